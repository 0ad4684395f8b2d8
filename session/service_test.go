package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
	"github.com/google/go-cmp/cmp"
)

// testNow is a Thursday morning in Stockholm.
var testNow = time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)

// engines is the test's EngineSource: one engine per demo site.
type engines map[string]*options.Engine

func (e engines) Engine(site string) (*options.Engine, error) {
	if en, ok := e[site]; ok {
		return en, nil
	}
	return nil, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "site %q has no delivery catalog", site)
}

func demoEngines(t testing.TB, clock deliverykit.Clock) engines {
	t.Helper()
	out := engines{}
	for site, cat := range config.Demo().Catalogs() {
		e, err := options.New(cat, options.Options{Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		out[site] = e
	}
	return out
}

type env struct {
	svc   *session.Service
	clock *deliverykit.ManualClock
	store storage.Store
}

// orders returns the completed orders the service wrote to the outbox.
func (e *env) orders(t testing.TB) []event.OrderCompleted {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), e.store, 100)
	if err != nil {
		t.Fatal(err)
	}
	var out []event.OrderCompleted
	for _, ev := range evs {
		o, err := event.Decode[event.OrderCompleted](ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

func newEnv(t testing.TB) *env {
	t.Helper()
	clock := deliverykit.NewManualClock(testNow)
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	svc, err := session.New(store, session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{svc: svc, clock: clock, store: store}
}

const sessionJSON = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
  "deliveries": [{
    "id": "d1",
    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-19T08:00:00Z"}}],
    "recipient_contact": {
      "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1", "lgh 1102"]},
      "email": "anna@example.com"
    }
  }]
}`

// input decodes sessionJSON, the way the HTTP adapter would, and applies
// the modifications.
func input(t testing.TB, mods ...func(*session.Session)) session.Session {
	t.Helper()
	var s session.Session
	if err := json.Unmarshal([]byte(sessionJSON), &s); err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		m(&s)
	}
	return s
}

func i32(v int32) *int32 { return &v }

// fields returns the fields named by err's violations.
func fields(err error) []string {
	var out []string
	for _, v := range deliverykit.ViolationsOf(err) {
		out = append(out, v.Field)
	}
	return out
}

func TestCreateAndGet(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, err := e.svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "sessions/000001" || s.State != session.StateActive || s.Etag == "" ||
		!s.CreateTime.Equal(testNow) || !s.UpdateTime.Equal(testNow) {
		t.Errorf("created session: %+v", s)
	}
	d := s.Deliveries[0]
	var ids []string
	for _, c := range d.DeliveryCategories {
		ids = append(ids, c.ID+":"+string(c.DeliveryType))
		if c.OptionsSource != session.OptionsSourceCarrier || c.Warehouse == nil || c.DisplayName == "" {
			t.Errorf("category %s: %+v", c.ID, c)
		}
	}
	if diff := cmp.Diff([]string{"pickup:PICKUP", "home:DELIVERY", "mailbox:MAILBOX", "instore:INSTORE"}, ids); diff != "" {
		t.Errorf("categories (-want +got):\n%s", diff)
	}
	pickup := d.DeliveryCategories[0]
	first := pickup.DeliveryOptions[0]
	if !pickup.Preselected || !first.Preselected || first.PickupLocation == nil || first.PickupLocation.Distances == nil ||
		first.Price != 4900 || first.ETD.Absolute == nil || first.Carrier.Meta[session.MetaProductRef] == "" ||
		!first.ExpireTime.Equal(testNow.Add(options.DefaultOptionTTL)) {
		t.Errorf("first pickup option: %+v", first)
	}
	if pickup.DisplayName != "Utlämningsställe" {
		t.Errorf("display name in sv-SE = %q", pickup.DisplayName)
	}
	home := d.DeliveryCategories[1]
	if len(home.Addons) != 2 || home.Addons[0].ID == "" || home.Addons[0].AddonType == "" {
		t.Errorf("home addons: %+v", home.Addons)
	}
	want := &session.ReturnsPromise{ID: "standard-30-days", CurrencyCode: "SEK", ReturnsEnabled: true, ReturnCost: 4900, ExchangesEnabled: true,
		ReturnTimeDays: 30, ReturnPolicyText: "Return unused items within 30 days.", ReturnPolicyURL: "https://example.com/returns"}
	if diff := cmp.Diff(want, s.ReturnsPromise); diff != "" {
		t.Errorf("returns_promise (-want +got):\n%s", diff)
	}

	got, err := e.svc.Get(ctx, "demo-site", s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got); diff != "" {
		t.Errorf("get differs from create (-create +get):\n%s", diff)
	}
	// Another site's key never reaches the session.
	if _, err := e.svc.Get(ctx, "demo-site-2", s.Name); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("get from another site: %v", err)
	}
}

// TestReadOnlyFieldsIgnored: read-only fields sent in a request change
// nothing.
func TestReadOnlyFieldsIgnored(t *testing.T) {
	e := newEnv(t)
	in := input(t, func(s *session.Session) {
		s.Name = "sessions/mine"
		s.State = session.StateCompleted
		s.CreateTime = session.At(testNow.Add(-time.Hour))
		s.ReturnsPromise = &session.ReturnsPromise{IsUnavailable: true}
		s.Deliveries[0].TosID = "tos_forged"
		s.Deliveries[0].ExternalID = "ext"
		s.Deliveries[0].DeliveryCategories = []session.DeliveryCategory{{ID: "forged"}}
	})
	s, err := e.svc.Create(context.Background(), "demo-site", in)
	if err != nil {
		t.Fatal(err)
	}
	d := s.Deliveries[0]
	if s.Name == "sessions/mine" || s.State != session.StateActive || !s.CreateTime.Equal(testNow) || s.ReturnsPromise.IsUnavailable ||
		d.TosID != "" || d.ExternalID != "" || d.DeliveryCategories[0].ID == "forged" {
		t.Errorf("read-only fields were taken from the request: %+v", s)
	}
}

func TestCreateValidation(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*session.Session)
		want []string
	}{
		{"no purchase", func(s *session.Session) { s.Purchase = nil }, []string{"purchase"}},
		{"unknown country", func(s *session.Session) { s.Purchase.CountryCode = "XX" }, []string{"purchase.country_code"}},
		{"unknown currency", func(s *session.Session) { s.Purchase.CurrencyCode = "SXK" }, []string{"purchase.currency_code"}},
		{"lower-case codes", func(s *session.Session) { s.Purchase.CountryCode, s.Purchase.CurrencyCode = "se", "sek" },
			[]string{"purchase.country_code", "purchase.currency_code"}},
		{"negative total", func(s *session.Session) { s.Purchase.TotalValue = -1 }, []string{"purchase.total_value"}},
		{"negative discount", func(s *session.Session) { s.Purchase.TotalDiscount = -1 }, []string{"purchase.total_discount"}},
		{"malformed locale", func(s *session.Session) { s.Purchase.Locales = []string{"sv-SE", "sv_SE"} }, []string{"purchase.locales[1]"}},
		{"no deliveries", func(s *session.Session) { s.Deliveries = nil }, []string{"deliveries"}},
		{"missing delivery id", func(s *session.Session) { s.Deliveries[0].ID = "" }, []string{"deliveries[0].id"}},
		{"duplicate delivery id", func(s *session.Session) { s.Deliveries = append(s.Deliveries, s.Deliveries[0]) }, []string{"deliveries[1].id"}},
		{"no line items", func(s *session.Session) { s.Deliveries[0].LineItems = nil }, []string{"deliveries[0].line_items"}},
		{"weight 0", func(s *session.Session) { s.Deliveries[0].LineItems[0].Weight = i32(0) }, []string{"deliveries[0].line_items[0].weight"}},
		{"negative weight", func(s *session.Session) { s.Deliveries[0].LineItems[0].Weight = i32(-5) }, []string{"deliveries[0].line_items[0].weight"}},
		{"height 0", func(s *session.Session) {
			s.Deliveries[0].LineItems[0].Dimensions = &session.Dimensions{Height: 0, Length: 10, Width: 10}
		}, []string{"deliveries[0].line_items[0].dimensions.height"}},
		{"negative width", func(s *session.Session) {
			s.Deliveries[0].LineItems[0].Dimensions = &session.Dimensions{Height: 10, Length: 10, Width: -1}
		}, []string{"deliveries[0].line_items[0].dimensions.width"}},
		{"quantity 0", func(s *session.Session) { s.Deliveries[0].LineItems[0].Quantity = 0 }, []string{"deliveries[0].line_items[0].quantity"}},
		// MaxInt32 × MaxInt32 is just under 2^62 g: after the 800 g tent,
		// the third such line takes the sum past MaxInt64 (the engine
		// sums in int), where a wrapped total came out light enough for
		// the mailbox.
		{"total weight overflows", func(s *session.Session) {
			li := s.Deliveries[0].LineItems[0]
			li.Quantity, li.Weight = math.MaxInt32, i32(math.MaxInt32)
			s.Deliveries[0].LineItems = []session.LineItem{s.Deliveries[0].LineItems[0], li, li, li, li}
		}, []string{"deliveries[0].line_items[3].weight"}},
		{"total weight overflows in the second delivery", func(s *session.Session) {
			d := s.Deliveries[0]
			d.ID = "d2"
			li := d.LineItems[0]
			li.Quantity, li.Weight = math.MaxInt32, i32(math.MaxInt32)
			d.LineItems = []session.LineItem{li, li, {SKU: "x", Title: "X", Quantity: 1}, li, li, li}
			s.Deliveries = append(s.Deliveries, d)
		}, []string{"deliveries[1].line_items[3].weight"}},
		{"negative price", func(s *session.Session) { s.Deliveries[0].LineItems[0].Price = -1 }, []string{"deliveries[0].line_items[0].price"}},
		{"negative item discount", func(s *session.Session) { s.Deliveries[0].LineItems[0].Discount = -1 }, []string{"deliveries[0].line_items[0].discount"}},
		{"missing sku and title", func(s *session.Session) {
			s.Deliveries[0].LineItems[0].SKU, s.Deliveries[0].LineItems[0].Title = "", ""
		},
			[]string{"deliveries[0].line_items[0].sku", "deliveries[0].line_items[0].title"}},
		{"no fulfillments", func(s *session.Session) { s.Deliveries[0].Fulfillments = nil }, []string{"deliveries[0].fulfillments"}},
		{"no readiness", func(s *session.Session) { s.Deliveries[0].Fulfillments[0].Readiness = nil }, []string{"deliveries[0].fulfillments[0].readiness"}},
		{"no earliest time", func(s *session.Session) { s.Deliveries[0].Fulfillments[0].Readiness.EarliestTime = session.Timestamp{} },
			[]string{"deliveries[0].fulfillments[0].readiness.earliest_time"}},
		{"latest before earliest", func(s *session.Session) {
			s.Deliveries[0].Fulfillments[0].Readiness.LatestTime = session.At(testNow.Add(-24 * time.Hour))
		}, []string{"deliveries[0].fulfillments[0].readiness.latest_time"}},
		{"no recipient", func(s *session.Session) { s.Deliveries[0].RecipientContact = nil }, []string{"deliveries[0].recipient_contact"}},
		{"no address", func(s *session.Session) { s.Deliveries[0].RecipientContact.Address = nil }, []string{"deliveries[0].recipient_contact.address"}},
		{"no address country", func(s *session.Session) { s.Deliveries[0].RecipientContact.Address.CountryCode = "" },
			[]string{"deliveries[0].recipient_contact.address.country_code"}},
		{"latitude out of range", func(s *session.Session) {
			s.Deliveries[0].RecipientContact.Address.Coordinates = &session.Coordinates{Lat: 90.5, Lng: 18}
		}, []string{"deliveries[0].recipient_contact.address.coordinates.lat"}},
		{"longitude out of range", func(s *session.Session) {
			s.Deliveries[0].RecipientContact.Address.Coordinates = &session.Coordinates{Lat: 59, Lng: -180.01}
		}, []string{"deliveries[0].recipient_contact.address.coordinates.lng"}},
		{"region with country prefix", func(s *session.Session) { s.Deliveries[0].RecipientContact.Address.RegionCode = "SE-AB" },
			[]string{"deliveries[0].recipient_contact.address.region_code"}},
		{"bad email", func(s *session.Session) { s.Deliveries[0].RecipientContact.Email = "anna" }, []string{"deliveries[0].recipient_contact.email"}},
		{"phone without number", func(s *session.Session) {
			s.Deliveries[0].RecipientContact.PhoneNumber = &session.PhoneNumber{CountryCode: "46"}
		}, []string{"deliveries[0].recipient_contact.phone_number.number"}},
		{"unknown node role", func(s *session.Session) {
			s.Deliveries[0].Nodes = []session.DeliveryNode{{Roles: []session.Role{"SOURCE"}}}
		},
			[]string{"deliveries[0].nodes[0].roles[0]"}},
		{"node location without id", func(s *session.Session) {
			s.Deliveries[0].Nodes = []session.DeliveryNode{{Location: &session.PickupLocation{ExternalID: "x", Title: "Store"}}}
		}, []string{"deliveries[0].nodes[0].location.id"}},
	}
	e := newEnv(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Create(context.Background(), "demo-site", input(t, tt.mod))
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Fatalf("err = %v, want InvalidArgument", err)
			}
			if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
	// Absent weight and dimensions are allowed.
	if _, err := e.svc.Create(context.Background(), "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].LineItems[0].Weight = nil
		s.Deliveries[0].LineItems[0].Dimensions = nil
	})); err != nil {
		t.Errorf("absent weight: %v", err)
	}
}

// TestWireJSON: int64 amounts are strings on output and strings or
// numbers on input; timestamps are RFC 3339 UTC; weight keeps presence.
func TestWireJSON(t *testing.T) {
	var p session.Purchase
	if err := json.Unmarshal([]byte(`{"total_value": 12, "total_discount": "7"}`), &p); err != nil || p.TotalValue != 12 || p.TotalDiscount != 7 {
		t.Fatalf("decode: %v %+v", err, p)
	}
	b, _ := json.Marshal(p)
	if !strings.Contains(string(b), `"total_discount":"7","total_value":"12"`) {
		t.Errorf("encode: %s", b)
	}
	for _, bad := range []string{`{"total_value": "1.5"}`, `{"total_value": 1.5}`, `{"total_value": true}`, `{"total_value": "12x"}`, `{"total_value": "99999999999999999999"}`} {
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal([]byte(bad), &p); !errors.As(err, &te) || te.Field != "total_value" {
			t.Errorf("%s: err = %v, want a type error naming total_value", bad, err)
		}
	}
	var li session.LineItem
	if err := json.Unmarshal([]byte(`{"weight": 0}`), &li); err != nil || li.Weight == nil || *li.Weight != 0 {
		t.Errorf("explicit 0 weight lost its presence: %v %v", err, li.Weight)
	}
	var r session.Readiness
	if err := json.Unmarshal([]byte(`{"earliest_time": "2026-11-19T10:00:00+01:00"}`), &r); err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(r); string(b) != `{"earliest_time":"2026-11-19T09:00:00Z"}` {
		t.Errorf("timestamp in UTC: %s", b)
	}
	var te *json.UnmarshalTypeError
	if err := json.Unmarshal([]byte(`{"earliest_time": "19 Nov"}`), &r); !errors.As(err, &te) || te.Field != "earliest_time" {
		t.Errorf("bad timestamp: %v", err)
	}
}

func TestReturnsPromise(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	eur := func(s *session.Session) { s.Purchase.CurrencyCode = "EUR" }
	tests := []struct {
		site, currency string
		mod            func(*session.Session)
		unavailable    bool
		cost           session.Int64
	}{
		{"demo-site", "SEK", nil, false, 4900},
		{"demo-site", "EUR", eur, true, 0},
		{"demo-site-2", "EUR", eur, false, 490},
	}
	for _, tt := range tests {
		mods := []func(*session.Session){}
		if tt.mod != nil {
			mods = append(mods, tt.mod)
		}
		s, err := e.svc.Create(ctx, tt.site, input(t, mods...))
		if err != nil {
			t.Fatal(err)
		}
		if rp := s.ReturnsPromise; rp.IsUnavailable != tt.unavailable || rp.ReturnCost != tt.cost {
			t.Errorf("%s %s: returns_promise = %+v", tt.site, tt.currency, rp)
		}
	}
}

// TestEngineInputs: fulfillments' category tags and readiness and ORIGIN
// nodes' handoff reach the engine.
func TestEngineInputs(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cats := func(s *session.Session) []string {
		var out []string
		for _, c := range s.Deliveries[0].DeliveryCategories {
			out = append(out, c.ID)
		}
		return out
	}
	s, err := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		f := s.Deliveries[0].Fulfillments[0]
		s.Deliveries[0].Fulfillments = []session.Fulfillment{
			{Readiness: f.Readiness, CategoryTags: []string{"home", "mailbox", "pickup"}},
			{Readiness: f.Readiness, CategoryTags: []string{"mailbox", "home"}},
			{Readiness: f.Readiness},
		}
	}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"home", "mailbox"}, cats(s)); diff != "" {
		t.Errorf("categories allowed by every fulfillment (-want +got):\n%s", diff)
	}
	s, err = e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		f := s.Deliveries[0].Fulfillments[0]
		s.Deliveries[0].Fulfillments = []session.Fulfillment{
			{Readiness: f.Readiness, CategoryTags: []string{"home"}},
			{Readiness: f.Readiness, CategoryTags: []string{"mailbox"}},
		}
	}))
	// No category is allowed by both: only the fallback, which is not a
	// category tags name, is offered.
	if err != nil || !slices.Equal(cats(s), []string{"fallback"}) {
		t.Errorf("disjoint tags: %v %v", err, cats(s))
	}
	// Where no carrier serves, tags naming every category still get the
	// fallback.
	s, err = e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].Fulfillments[0].CategoryTags = []string{"home", "pickup", "mailbox", "instore"}
		s.Deliveries[0].RecipientContact.Address = &session.Address{CountryCode: "NO", PostalCode: "0150", City: "Oslo"}
	}))
	if err != nil || !slices.Equal(cats(s), []string{"fallback"}) {
		t.Errorf("every tag, unserved address: %v %v", err, cats(s))
	}

	homeETD := func(s *session.Session) time.Time {
		for _, c := range s.Deliveries[0].DeliveryCategories {
			if c.ID == "home" {
				return c.DeliveryOptions[0].ETD.Absolute.EarliestTime.Time
			}
		}
		t.Fatal("no home category")
		return time.Time{}
	}
	base, _ := e.svc.Create(ctx, "demo-site", input(t))
	later := testNow.Add(7 * 24 * time.Hour)
	readyLater, _ := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].Fulfillments = append(s.Deliveries[0].Fulfillments, session.Fulfillment{Readiness: &session.Readiness{EarliestTime: session.At(later)}})
	}))
	handoffLater, _ := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].Nodes = []session.DeliveryNode{{Roles: []session.Role{session.RoleOrigin}, Handoff: &session.Handoff{EarliestTime: session.At(later)}}}
	}))
	destinationOnly, _ := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].Nodes = []session.DeliveryNode{{Roles: []session.Role{session.RoleDestination}, Handoff: &session.Handoff{EarliestTime: session.At(later)}}}
	}))
	if !homeETD(readyLater).After(later) || !homeETD(handoffLater).After(later) || !homeETD(base).Before(later) || !homeETD(destinationOnly).Equal(homeETD(base)) {
		t.Errorf("estimates: base %v, ready later %v, handoff later %v, destination node %v", homeETD(base), homeETD(readyLater), homeETD(handoffLater), homeETD(destinationOnly))
	}

	// Weight and attributes filter: 3 kg is too heavy for the mailbox,
	// and a bulky item is excluded from it too.
	heavy, _ := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) { s.Deliveries[0].LineItems[0].Weight = i32(3000) }))
	bulky, _ := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) { s.Deliveries[0].LineItems[0].Attributes = []string{"bulky"} }))
	for _, s := range []*session.Session{heavy, bulky} {
		if diff := cmp.Diff([]string{"pickup", "home", "instore"}, cats(s)); diff != "" {
			t.Errorf("filtered categories (-want +got):\n%s", diff)
		}
	}
}

func TestPatch(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	patch := func(name, etag string, mods ...func(*session.Session)) (*session.Session, error) {
		in := input(t, mods...)
		in.Name, in.Etag = name, etag
		return e.svc.Patch(ctx, "demo-site", in)
	}
	e.clock.Advance(time.Minute)
	freeShipping := func(s *session.Session) { s.Purchase.TotalValue = 150000 }
	p, err := patch(s.Name, s.Etag, freeShipping)
	if err != nil {
		t.Fatal(err)
	}
	if p.Etag == s.Etag || !p.UpdateTime.Equal(testNow.Add(time.Minute)) || !p.CreateTime.Equal(testNow) ||
		p.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].Price != 0 || p.Purchase.TotalValue != 150000 {
		t.Errorf("patched: etag %s→%s, %+v", s.Etag, p.Etag, p)
	}
	tests := []struct {
		name     string
		session  string
		etag     string
		mods     []func(*session.Session)
		wantKind deliverykit.Kind
		want     []string
	}{
		{"stale etag", s.Name, s.Etag, nil, deliverykit.KindConflict, nil},
		{"malformed etag", s.Name, "W/whatever", nil, deliverykit.KindConflict, nil},
		{"unknown session", "sessions/nope", "", nil, deliverykit.KindNotFound, nil},
		{"bad name", "session/1", "", nil, deliverykit.KindInvalidArgument, []string{"name"}},
		{"no name", "", "", nil, deliverykit.KindInvalidArgument, []string{"name"}},
		{"invalid body", s.Name, p.Etag, []func(*session.Session){func(s *session.Session) { s.Deliveries[0].LineItems[0].Weight = i32(0) }},
			deliverykit.KindInvalidArgument, []string{"deliveries[0].line_items[0].weight"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := patch(tt.session, tt.etag, tt.mods...)
			if err == nil || deliverykit.KindOf(err) != tt.wantKind {
				t.Fatalf("err = %v, want %v", err, tt.wantKind)
			}
			if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
	// Refused patches changed nothing.
	got, _ := e.svc.Get(ctx, "demo-site", s.Name)
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("session changed by refused patches (-want +got):\n%s", diff)
	}
	// No etag: no check.
	q, err := patch(s.Name, "")
	if err != nil || q.Etag == p.Etag || q.Purchase.TotalValue != 45000 {
		t.Errorf("patch without etag: %v %+v", err, q)
	}
	// Another site cannot patch it.
	in := input(t)
	in.Name = s.Name
	if _, err := e.svc.Patch(ctx, "demo-site-2", in); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("patch from another site: %v", err)
	}
}

func completeReq(choices ...session.DeliveryChoice) session.CompleteRequest {
	return session.CompleteRequest{DeliveryChoices: choices}
}

// twoDeliveries is a session with deliveries d1 and d2.
func twoDeliveries(s *session.Session) {
	d2 := s.Deliveries[0]
	d2.ID = "d2"
	s.Deliveries = append(s.Deliveries, d2)
}

func TestComplete(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t, twoDeliveries))
	home := "home/north-parcel-home"
	pickup := s.Deliveries[0].DeliveryCategories[0].DeliveryOptions[1].ID
	tests := []struct {
		name     string
		req      session.CompleteRequest
		wantKind deliverykit.Kind
		want     []string
	}{
		{"no choices", completeReq(), deliverykit.KindInvalidArgument, []string{"delivery_choices"}},
		{"choice without ids", completeReq(session.DeliveryChoice{}), deliverykit.KindInvalidArgument,
			[]string{"delivery_choices[0].delivery_id", "delivery_choices[0].option_id"}},
		{"a delivery left out", completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: home}), deliverykit.KindInvalidArgument, []string{"delivery_choices"}},
		{"a delivery twice", completeReq(
			session.DeliveryChoice{DeliveryID: "d1", OptionID: home},
			session.DeliveryChoice{DeliveryID: "d1", OptionID: home},
			session.DeliveryChoice{DeliveryID: "d2", OptionID: home},
		), deliverykit.KindInvalidArgument, []string{"delivery_choices[1].delivery_id"}},
		{"unknown delivery", completeReq(
			session.DeliveryChoice{DeliveryID: "d1", OptionID: home},
			session.DeliveryChoice{DeliveryID: "d3", OptionID: home},
		), deliverykit.KindInvalidArgument, []string{"delivery_choices[1].delivery_id"}},
		{"unknown option", completeReq(
			session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/teleport"},
			session.DeliveryChoice{DeliveryID: "d2", OptionID: home},
		), deliverykit.KindInvalidArgument, []string{"delivery_choices[0].option_id"}},
		{"unknown addon", completeReq(
			session.DeliveryChoice{DeliveryID: "d1", OptionID: home, AddonIDs: []string{"carry-in", "gift-wrap"}},
			session.DeliveryChoice{DeliveryID: "d2", OptionID: home},
		), deliverykit.KindInvalidArgument, []string{"delivery_choices[0].addon_ids[1]"}},
		{"addon of another category", completeReq(
			session.DeliveryChoice{DeliveryID: "d1", OptionID: home},
			session.DeliveryChoice{DeliveryID: "d2", OptionID: pickup, AddonIDs: []string{"carry-in"}},
		), deliverykit.KindInvalidArgument, []string{"delivery_choices[1].addon_ids[0]"}},
		{"stale etag", session.CompleteRequest{Etag: `"zz"`, DeliveryChoices: []session.DeliveryChoice{
			{DeliveryID: "d1", OptionID: home}, {DeliveryID: "d2", OptionID: home},
		}}, deliverykit.KindConflict, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Complete(ctx, "demo-site", s.Name, tt.req)
			if err == nil || deliverykit.KindOf(err) != tt.wantKind {
				t.Fatalf("err = %v, want %v", err, tt.wantKind)
			}
			if diff := cmp.Diff(tt.want, fields(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
	if got, _ := e.svc.Get(ctx, "demo-site", s.Name); got.Etag != s.Etag || got.State != session.StateActive {
		t.Fatalf("refused completions changed the session: %+v", got)
	}

	e.clock.Advance(time.Minute)
	res, err := e.svc.Complete(ctx, "demo-site", s.Name, session.CompleteRequest{Etag: s.Etag, DeliveryChoices: []session.DeliveryChoice{
		{DeliveryID: "d2", OptionID: pickup, ExternalID: "order-17-b"},
		{DeliveryID: "d1", OptionID: home, AddonIDs: []string{"carry-in"}, ExternalID: "order-17-a"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Session
	if c.State != session.StateCompleted || c.Etag == s.Etag || !c.UpdateTime.Equal(testNow.Add(time.Minute)) {
		t.Errorf("completed: %+v", c)
	}
	type flags struct {
		Delivery, Category, Option string
		Addons                     []string
		TosID, ExternalID          string
	}
	var got []flags
	for _, d := range c.Deliveries {
		f := flags{Delivery: d.ID, TosID: d.TosID, ExternalID: d.ExternalID}
		for _, cat := range d.DeliveryCategories {
			if cat.Chosen {
				f.Category += cat.ID
			}
			for _, o := range cat.DeliveryOptions {
				if o.Chosen {
					f.Option += o.ID
				}
			}
			for _, a := range cat.Addons {
				if a.Chosen {
					f.Addons = append(f.Addons, a.ID)
				}
			}
		}
		got = append(got, f)
	}
	want := []flags{
		{Delivery: "d1", Category: "home", Option: home, Addons: []string{"carry-in"}, TosID: "tos_000003", ExternalID: "order-17-a"},
		{Delivery: "d2", Category: "pickup", Option: pickup, TosID: "tos_000002", ExternalID: "order-17-b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("saved choices (-want +got):\n%s", diff)
	}
	if g, _ := e.svc.Get(ctx, "demo-site", s.Name); !cmp.Equal(c, g) {
		t.Errorf("get after complete differs:\n%s", cmp.Diff(c, g))
	}

	// The completing write put both deliveries in the outbox.
	var orders []string
	for _, o := range e.orders(t) {
		orders = append(orders, o.SessionID+" "+o.DeliveryID+" "+o.TosID+" "+o.ExternalID+" "+o.ProductRef+" "+o.OptionID)
		if o.DeliveryID == "d1" && o.ShippingPrice != 7900+19900 {
			t.Errorf("d1 order price %d, want the option's and the addon's", o.ShippingPrice)
		}
	}
	wantOrders := []string{
		s.Name + " d2 tos_000002 order-17-b swift-courier-locker " + pickup,
		s.Name + " d1 tos_000003 order-17-a north-parcel-home " + home,
	}
	if diff := cmp.Diff(wantOrders, orders); diff != "" {
		t.Errorf("recorded orders (-want +got):\n%s", diff)
	}

	// COMPLETED is final.
	in := input(t, twoDeliveries)
	in.Name = s.Name
	_, perr := e.svc.Patch(ctx, "demo-site", in)
	_, cerr := e.svc.Complete(ctx, "demo-site", s.Name, completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: home}, session.DeliveryChoice{DeliveryID: "d2", OptionID: home}))
	for _, err := range []error{perr, cerr} {
		if !errors.Is(err, deliverykit.ErrFailedPrecondition) || !strings.Contains(err.Error(), "COMPLETED") {
			t.Errorf("change of a completed session: %v", err)
		}
	}
}

func TestCompleteExpiredOption(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	e.clock.Advance(options.DefaultOptionTTL)
	req := completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/north-parcel-home"})
	_, err := e.svc.Complete(ctx, "demo-site", s.Name, req)
	if !errors.Is(err, deliverykit.ErrFailedPrecondition) || !strings.Contains(err.Error(), "home/north-parcel-home") {
		t.Fatalf("expired option: %v", err)
	}
	// Patching refreshes the options; then the choice completes.
	in := input(t)
	in.Name = s.Name
	if _, err := e.svc.Patch(ctx, "demo-site", in); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.Complete(ctx, "demo-site", s.Name, req); err != nil {
		t.Errorf("after refresh: %v", err)
	}
}

// TestFailedCompleteEmitsNothing: a completion that fails writes no order.
func TestFailedCompleteEmitsNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	_, err := e.svc.Complete(ctx, "demo-site", s.Name, completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: "no-such-option"}))
	if !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Fatalf("complete with an unknown option: %v", err)
	}
	if got := e.orders(t); len(got) != 0 {
		t.Errorf("a failed completion wrote %d orders", len(got))
	}
}

func TestConvert(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	tests := []struct {
		format  session.Format
		agentic bool
		wantErr deliverykit.Kind
	}{
		{"", false, 0},
		{session.FormatUnspecified, false, 0},
		{session.FormatAgenticCheckout, true, 0},
		{"PDF", false, deliverykit.KindInvalidArgument},
	}
	for _, tt := range tests {
		res, err := e.svc.Convert(ctx, "demo-site", s.Name, tt.format)
		if tt.wantErr != 0 {
			if deliverykit.KindOf(err) != tt.wantErr || !cmp.Equal(fields(err), []string{"format"}) {
				t.Errorf("format %q: err = %v", tt.format, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("format %q: %v", tt.format, err)
		}
		if !cmp.Equal(s, res.Native) || (res.AgenticCheckout != nil) != tt.agentic {
			t.Errorf("format %q: %+v", tt.format, res)
		}
	}
	if got, _ := e.svc.Get(ctx, "demo-site", s.Name); !cmp.Equal(s, got) {
		t.Errorf("convert changed the session")
	}
	if _, err := e.svc.Convert(ctx, "demo-site-2", s.Name, session.FormatAgenticCheckout); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("convert from another site: %v", err)
	}
}

// TestConcurrentPatches: 32 goroutines each read the session and patch it
// with the etag they read. Exactly the patches whose etag was current at
// their write succeed; the others are refused with Conflict (ABORTED);
// no acknowledged write is lost: the successful writes form one chain of
// etags from the created session to the final one, and the final session
// holds the last write.
func TestConcurrentPatches(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	const n = 32
	type result struct {
		read, wrote string
		value       int64
		err         error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cur, err := e.svc.Get(ctx, "demo-site", s.Name)
			if err != nil {
				results[i].err = err
				return
			}
			in := input(t, func(s *session.Session) { s.Purchase.TotalValue = session.Int64(1000 + i) })
			in.Name, in.Etag = s.Name, cur.Etag
			p, err := e.svc.Patch(ctx, "demo-site", in)
			results[i] = result{read: cur.Etag, value: int64(1000 + i), err: err}
			if err == nil {
				results[i].wrote = p.Etag
			}
		}()
	}
	close(start)
	wg.Wait()

	next := map[string]result{} // etag read → the write that consumed it
	aborted := 0
	for i, r := range results {
		switch {
		case r.err == nil:
			if prev, dup := next[r.read]; dup {
				t.Errorf("two writes succeeded with etag %s: %d and %d", r.read, prev.value, r.value)
			}
			next[r.read] = r
		case errors.Is(r.err, deliverykit.ErrConflict):
			aborted++
		default:
			t.Errorf("patch %d: %v", i, r.err)
		}
	}
	// Follow the chain from the created session.
	chain := map[string]bool{s.Etag: true}
	etag, last := s.Etag, int64(45000)
	for {
		w, ok := next[etag]
		if !ok {
			break
		}
		etag, last = w.wrote, w.value
		chain[etag] = true
	}
	if len(chain)-1 != len(next) {
		t.Errorf("lost writes: %d succeeded, %d on the chain", len(next), len(chain)-1)
	}
	// Every refused patch had read an etag that a successful write had
	// already replaced.
	for i, r := range results {
		if errors.Is(r.err, deliverykit.ErrConflict) && (!chain[r.read] || r.read == etag) {
			t.Errorf("patch %d was refused with etag %s, which was current", i, r.read)
		}
	}
	final, _ := e.svc.Get(ctx, "demo-site", s.Name)
	if final.Etag != etag || int64(final.Purchase.TotalValue) != last {
		t.Errorf("final session: etag %s value %d, want etag %s value %d", final.Etag, final.Purchase.TotalValue, etag, last)
	}
	if len(next)+aborted != n || len(next) == 0 {
		t.Errorf("%d succeeded, %d aborted of %d", len(next), aborted, n)
	}
	t.Logf("%d patches succeeded, %d were aborted", len(next), aborted)
}

// TestConcurrentPatchesSameEtag: when all 32 hold the same etag, exactly
// one wins.
func TestConcurrentPatchesSameEtag(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(t))
	var wg sync.WaitGroup
	errs := make([]error, 32)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := input(t, func(s *session.Session) { s.Purchase.TotalValue = session.Int64(i) })
			in.Name, in.Etag = s.Name, s.Etag
			_, errs[i] = e.svc.Patch(ctx, "demo-site", in)
		}()
	}
	wg.Wait()
	won, winner := 0, -1
	for i, err := range errs {
		switch {
		case err == nil:
			won, winner = won+1, i
		case !errors.Is(err, deliverykit.ErrConflict):
			t.Errorf("patch %d: %v", i, err)
		}
	}
	final, _ := e.svc.Get(ctx, "demo-site", s.Name)
	if won != 1 || int(final.Purchase.TotalValue) != winner {
		t.Errorf("%d winners; final value %d, winner %d", won, final.Purchase.TotalValue, winner)
	}
}

// TestResultOwnsItsMemory: changing the request after Create does not
// change the returned session.
func TestResultOwnsItsMemory(t *testing.T) {
	e := newEnv(t)
	in := input(t)
	s, err := e.svc.Create(context.Background(), "demo-site", in)
	if err != nil {
		t.Fatal(err)
	}
	in.Purchase.TotalValue = 1
	in.Purchase.Locales[0] = "de-DE"
	in.Deliveries[0].LineItems[0].SKU = "changed"
	in.Deliveries[0].RecipientContact.Address.City = "Berlin"
	if s.Purchase.TotalValue != 45000 || s.Purchase.Locales[0] != "sv-SE" || s.Deliveries[0].LineItems[0].SKU != "tent" ||
		s.Deliveries[0].RecipientContact.Address.City != "Stockholm" {
		t.Errorf("the result shares memory with the request: %+v", s)
	}
}

type checkerFunc func(ext string) error

func (f checkerFunc) CheckOrder(_ context.Context, _, ext string) error { return f(ext) }

// TestCompleteRacingItsOwnOrder: when a concurrent call completed the same
// session (its order now holds the choice's external id) after this call
// began, this call hears that the session is completed, not that the
// external id is taken.
func TestCompleteRacingItsOwnOrder(t *testing.T) {
	clock := deliverykit.NewManualClock(testNow)
	var svc *session.Service
	var name string
	req := completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/north-parcel-home", ExternalID: "web-9"})
	calls := 0
	svc, err := session.New(memory.New(), session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Orders: checkerFunc(func(ext string) error {
			calls++
			if calls > 1 {
				return nil // the winner's own check
			}
			if _, err := svc.Complete(t.Context(), "demo-site", name, req); err != nil {
				t.Fatalf("the winning completion: %v", err)
			}
			return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "taken",
				Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "taken"}}}
		})})
	if err != nil {
		t.Fatal(err)
	}
	s, err := svc.Create(t.Context(), "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	name = s.Name
	_, err = svc.Complete(t.Context(), "demo-site", name, req)
	if !errors.Is(err, deliverykit.ErrFailedPrecondition) || !strings.Contains(err.Error(), "COMPLETED") {
		t.Errorf("the losing completion: %v, want the session is COMPLETED", err)
	}
}

// TestCompleteTakenExternalID: an order number that is already an order
// of the site is AlreadyExists naming the choice's external_id, whichever
// of the two kinds the checker reports, so that RPC clients never read it
// as a stale etag; other checker errors pass through, and nothing is
// completed.
func TestCompleteTakenExternalID(t *testing.T) {
	taken := func(kind deliverykit.Kind) error {
		return &deliverykit.Error{Kind: kind, Message: "external_id is already a tracking order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "taken"}}}
	}
	want := []deliverykit.FieldViolation{{Field: "delivery_choices[0].external_id", Rule: "unique", Message: "is already the external id of an order of this site"}}
	tests := []struct {
		name           string
		checker        error
		wantKind       deliverykit.Kind
		wantViolations []deliverykit.FieldViolation
	}{
		{"free", nil, 0, nil},
		{"taken, checker says conflict", taken(deliverykit.KindConflict), deliverykit.KindAlreadyExists, want},
		{"taken, checker says already exists", taken(deliverykit.KindAlreadyExists), deliverykit.KindAlreadyExists, want},
		{"checker unavailable", deliverykit.E(deliverykit.KindUnavailable, "disk full"), deliverykit.KindUnavailable, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := deliverykit.NewManualClock(testNow)
			svc, err := session.New(memory.New(), session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{},
				Orders: checkerFunc(func(string) error { return tt.checker })})
			if err != nil {
				t.Fatal(err)
			}
			s, err := svc.Create(t.Context(), "demo-site", input(t))
			if err != nil {
				t.Fatal(err)
			}
			_, err = svc.Complete(t.Context(), "demo-site", s.Name, completeReq(session.DeliveryChoice{DeliveryID: "d1", OptionID: "home/north-parcel-home", ExternalID: "web-9"}))
			if tt.checker == nil {
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				return
			}
			if got := deliverykit.KindOf(err); got != tt.wantKind {
				t.Errorf("kind = %v (%v), want %v", got, err, tt.wantKind)
			}
			if diff := cmp.Diff(tt.wantViolations, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			got, err := svc.Get(t.Context(), "demo-site", s.Name)
			if err != nil {
				t.Fatal(err)
			}
			if got.State != session.StateActive {
				t.Errorf("state after the refused completion = %v, want ACTIVE", got.State)
			}
		})
	}
}

// Node locations get distances from the recipient, estimated as the
// engine estimates an option location's; a node location without
// coordinates gets none, and distances a request sends are replaced.
func TestNodeDistances(t *testing.T) {
	e := newEnv(t)
	recipient := session.Coordinates{Lat: 59.3155, Lng: 18.0717}
	wh := session.Coordinates{Lat: 59.293, Lng: 18.083}
	sent := &session.Distances{Walking: &session.Distance{Meters: 1}}
	s, err := e.svc.Create(t.Context(), "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].RecipientContact.Address.Coordinates = &recipient
		node := func(c *session.Coordinates) session.DeliveryNode {
			return session.DeliveryNode{Roles: []session.Role{session.RoleOrigin}, Location: &session.PickupLocation{
				ID: "wh", ExternalID: "WH", Title: "Warehouse", Distances: sent,
				VisitingContact: &session.Contact{Address: &session.Address{CountryCode: "SE", Coordinates: c}}}}
		}
		s.Deliveries[0].Nodes = []session.DeliveryNode{node(&wh), node(nil)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	d := options.DistanceBetween(recipient, wh)
	want := []*session.Distances{{
		Walking: &session.Distance{Meters: session.Int64(d.WalkingMeters), Minutes: session.Int64(d.WalkingMinutes)},
		Driving: &session.Distance{Meters: session.Int64(d.DrivingMeters), Minutes: session.Int64(d.DrivingMinutes)},
	}, nil}
	var got []*session.Distances
	for _, n := range s.Deliveries[0].Nodes {
		got = append(got, n.Location.Distances)
	}
	if diff := cmp.Diff(want, got); diff != "" || d.WalkingMeters < 2000 {
		t.Errorf("node distances (-want +got):\n%s", diff)
	}
	read, err := e.svc.Get(t.Context(), "demo-site", s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s.Deliveries[0].Nodes, read.Deliveries[0].Nodes); diff != "" {
		t.Errorf("nodes read back (-created +read):\n%s", diff)
	}
}

// A catalog policy without an id is identified by a digest of its terms:
// the same for the same terms.
func TestReturnsPromiseDerivedID(t *testing.T) {
	e := newEnv(t)
	eur := func(s *session.Session) {
		s.Purchase.CountryCode, s.Purchase.CurrencyCode, s.Purchase.Locales = "DE", "EUR", []string{"de-DE"}
		s.Deliveries[0].RecipientContact.Address = &session.Address{CountryCode: "DE", PostalCode: "10115", City: "Berlin"}
	}
	a, err := e.svc.Create(t.Context(), "demo-site-2", input(t, eur))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := e.svc.Create(t.Context(), "demo-site-2", input(t, eur))
	id := a.ReturnsPromise.ID
	if !regexp.MustCompile(`^policy-[0-9a-f]{16}$`).MatchString(id) || b.ReturnsPromise.ID != id {
		t.Errorf("returns_promise.id = %q and %q, want one policy-<16 hex digits>", id, b.ReturnsPromise.ID)
	}
}

// TestGetReadsOneRecord: a GET reads the session with one storage.Get
// (one statement on PostgreSQL), and a missing one is still NotFound.
func TestGetReadsOneRecord(t *testing.T) {
	clock := deliverykit.NewManualClock(testNow)
	base := storagetest.Getting(memory.New())
	t.Cleanup(func() { base.Close() })
	svc, err := session.New(base, session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	created, err := svc.Create(t.Context(), "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	before := base.Gets()
	got, err := svc.Get(t.Context(), "demo-site", created.Name)
	if err != nil {
		t.Fatal(err)
	}
	if got.Etag != created.Etag {
		t.Errorf("Get: etag %q, want the created session's %q", got.Etag, created.Etag)
	}
	if n := base.Gets() - before; n != 1 {
		t.Errorf("Get read with %d storage.Get; want 1", n)
	}
	if _, err := svc.Get(t.Context(), "other-site", created.Name); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("Get from another site = %v; want NotFound", err)
	}
}
