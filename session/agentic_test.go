package session_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/session"
	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// optionFor returns the first option of delivery d whose carrier product
// is ref, failing the test when there is none.
func optionFor(t *testing.T, s *session.Session, d int, ref string) string {
	t.Helper()
	for _, c := range s.Deliveries[d].DeliveryCategories {
		for _, o := range c.DeliveryOptions {
			if o.Carrier.ProductID == ref {
				return o.ID
			}
		}
	}
	t.Fatalf("deliveries[%d] has no %s option", d, ref)
	return ""
}

// named gives the recipient a name, which becomes fulfillment_address.name.
func named(s *session.Session) { s.Deliveries[0].RecipientContact.Name = "Anna Svensson" }

// agenticSessions creates the sessions the golden files show, keyed by
// file name: an ACTIVE one, one COMPLETED per delivery type (home with
// the carry-in addon, pickup point, locker, mailbox, store) and one of
// two deliveries.
func agenticSessions(t *testing.T, e *env) map[string]string {
	t.Helper()
	ctx := t.Context()
	active, err := e.svc.Create(ctx, "demo-site", input(t, func(s *session.Session) {
		s.Deliveries[0].RecipientContact.Address.RegionCode = "AB"
	}))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"active.json": active.Name}
	complete := func(file string, mod func(*session.Session), choose func(*session.Session) []session.DeliveryChoice) {
		s, err := e.svc.Create(ctx, "demo-site", input(t, named, mod))
		if err != nil {
			t.Fatal(err)
		}
		done, err := e.svc.Complete(ctx, "demo-site", s.Name, completeReq(choose(s)...))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out[file] = done.Session.Name
	}
	one := func(ref string, addons ...string) func(*session.Session) []session.DeliveryChoice {
		return func(s *session.Session) []session.DeliveryChoice {
			return []session.DeliveryChoice{{DeliveryID: "d1", OptionID: optionFor(t, s, 0, ref), AddonIDs: addons}}
		}
	}
	same := func(*session.Session) {}
	complete("completed.json", twoDeliveries, func(s *session.Session) []session.DeliveryChoice {
		return []session.DeliveryChoice{
			{DeliveryID: "d1", OptionID: "home/north-parcel-home", AddonIDs: []string{"leave-at-door"}},
			{DeliveryID: "d2", OptionID: "mailbox/north-parcel-mailbox"},
		}
	})
	complete("home-carry-in.json", same, one("north-parcel-home", "carry-in"))
	complete("pickup.json", same, one("north-parcel-point"))
	complete("locker.json", same, one("swift-courier-locker"))
	complete("mailbox.json", same, one("north-parcel-mailbox"))
	complete("instore.json", same, one("store-collect"))
	return out
}

// checkGolden compares got, as JSON, with the golden file at path; with
// -update it rewrites the file first.
func checkGolden(t *testing.T, path string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantRaw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var want, have any
	if err := json.Unmarshal(wantRaw, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("%s (-golden +got):\n%s", path, diff)
	}
}

// TestAgenticCheckoutGolden compares the agentic checkout conversion with
// the golden files of the ACP version it emits. Run with -update to
// rewrite them after a deliberate change, and review the diff.
func TestAgenticCheckoutGolden(t *testing.T) {
	e := newEnv(t)
	for file, name := range agenticSessions(t, e) {
		t.Run(file, func(t *testing.T) {
			res, err := e.svc.Convert(t.Context(), "demo-site", name, session.FormatAgenticCheckout)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "agentic", session.ACPVersion, file), res.AgenticCheckout)
		})
	}
}

// TestAgenticCheckoutAmounts checks the amounts of the chosen option:
// total is checkout's shipping price (option and chosen addons), tax the
// VAT checkout's price components carry (25 % included, rounded per
// price), subtotal the rest.
func TestAgenticCheckoutAmounts(t *testing.T) {
	e := newEnv(t)
	names := agenticSessions(t, e)
	type amounts struct{ Subtotal, Tax, Total session.Int64 }
	tests := []struct {
		file string
		want amounts
	}{
		// 7900 + carry-in 19900: VAT 1580 + 3980.
		{"home-carry-in.json", amounts{22240, 5560, 27800}},
		// 4900: VAT 980, as area C's price component.
		{"pickup.json", amounts{3920, 980, 4900}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := e.svc.Convert(t.Context(), "demo-site", names[tt.file], session.FormatAgenticCheckout)
			if err != nil {
				t.Fatal(err)
			}
			d := res.AgenticCheckout.Deliveries[0]
			var got amounts
			for _, fo := range d.FulfillmentOptions {
				if fo.ID == d.FulfillmentOptionID {
					got = amounts{fo.Subtotal, fo.Tax, fo.Total}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chosen option's amounts (-want +got):\n%s", diff)
			}
			if name := d.FulfillmentAddress.Name; name != "Anna Svensson" {
				t.Errorf("fulfillment_address.name = %q, want the recipient's", name)
			}
		})
	}
}

// TestAgenticCheckoutShape checks the rules of the mapping that the golden
// files show only by example.
func TestAgenticCheckoutShape(t *testing.T) {
	e := newEnv(t)
	s, _ := e.svc.Create(t.Context(), "demo-site", input(t))
	ac := session.ToAgenticCheckout(s)
	d := ac.Deliveries[0]
	n := 0
	for _, c := range s.Deliveries[0].DeliveryCategories {
		n += len(c.DeliveryOptions)
	}
	if len(d.FulfillmentOptions) != n {
		t.Errorf("%d fulfillment options for %d delivery options", len(d.FulfillmentOptions), n)
	}
	for _, fo := range d.FulfillmentOptions {
		if fo.Type != "shipping" || fo.Total != fo.Subtotal+fo.Tax || fo.EarliestDeliveryTime.IsZero() || fo.LatestDeliveryTime.Before(fo.EarliestDeliveryTime.Time) {
			t.Errorf("fulfillment option %+v", fo)
		}
	}
	want := &session.FulfillmentAddress{LineOne: "Götgatan 1", LineTwo: "lgh 1102", City: "Stockholm", Country: "SE", PostalCode: "118 26"}
	if diff := cmp.Diff(want, d.FulfillmentAddress); diff != "" {
		t.Errorf("fulfillment_address (-want +got):\n%s", diff)
	}
	if d.FulfillmentOptionID != s.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].ID {
		t.Errorf("fulfillment_option_id = %q, want the preselected option", d.FulfillmentOptionID)
	}
}

// acpSchema compiles the protocol's published JSON Schema of
// ACPVersionCurrent, read from the shared data directory next to the
// repository (it is not copied into it), at its CheckoutSession; the test
// skips without it.
func acpSchema(t *testing.T) *jsonschema.Schema { return acpSchemaDef(t, "CheckoutSession") }

// validACPDef checks v, as JSON, against the protocol's definition def.
func validACPDef(t *testing.T, def string, v any) { validACP(t, acpSchemaDef(t, def), v) }

func acpSchemaDef(t *testing.T, def string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "data", "acp", session.ACPVersionCurrent, "schema.agentic_checkout.json")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("the protocol's schema is not here: %v", err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("acp.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("acp.json#/$defs/" + def)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// validACP checks v, as JSON, against the protocol's CheckoutSession.
func validACP(t *testing.T, schema *jsonschema.Schema, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Errorf("not valid against the %s schema: %v", session.ACPVersionCurrent, err)
	}
}

// timeSlot is the completed home delivery with its chosen option's
// estimate narrowed to an evening slot, as a carrier's booked slot would
// be: the engine estimates whole days, so the slot is set by hand.
func timeSlot(t *testing.T, s *session.Session) *session.Session {
	t.Helper()
	for i := range s.Deliveries[0].DeliveryCategories {
		c := &s.Deliveries[0].DeliveryCategories[i]
		for j := range c.DeliveryOptions {
			if o := &c.DeliveryOptions[j]; o.Chosen {
				start := time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)
				o.ETD.Absolute = &session.AbsoluteETD{EarliestTime: session.At(start), LatestTime: session.At(start.Add(4 * time.Hour))}
				return s
			}
		}
	}
	t.Fatal("no chosen option")
	return nil
}

// TestACPCurrentGolden compares the ACPVersionCurrent rendering with its
// golden files — home delivery with an addon, pickup point, locker, a
// time slot, two deliveries, an ACTIVE session — and validates each
// against the protocol's published schema.
func TestACPCurrentGolden(t *testing.T) {
	e := newEnv(t)
	schema := acpSchema(t)
	if err := schema.Validate(map[string]any{"id": "sessions/1", "unknown": true}); err == nil {
		t.Fatal("the schema accepts an incomplete session with an unknown member")
	}
	names := agenticSessions(t, e)
	render := func(file string) *session.ACPCheckoutSession {
		res, err := e.svc.ConvertTo(t.Context(), "demo-site", names[file],
			session.ConvertRequest{Format: session.FormatAgenticCheckout, ACPVersion: session.ACPVersionCurrent})
		if err != nil {
			t.Fatal(err)
		}
		if res.AgenticCheckout != nil || res.ACPCheckout == nil {
			t.Fatalf("%s: the wrong rendering: %+v", file, res)
		}
		return res.ACPCheckout
	}
	tests := []struct {
		file string
		got  func() *session.ACPCheckoutSession
	}{
		{"home-carry-in.json", func() *session.ACPCheckoutSession { return render("home-carry-in.json") }},
		{"pickup.json", func() *session.ACPCheckoutSession { return render("pickup.json") }},
		{"locker.json", func() *session.ACPCheckoutSession { return render("locker.json") }},
		{"instore.json", func() *session.ACPCheckoutSession { return render("instore.json") }},
		{"two-deliveries.json", func() *session.ACPCheckoutSession { return render("completed.json") }},
		{"active.json", func() *session.ACPCheckoutSession { return render("active.json") }},
		{"time-slot.json", func() *session.ACPCheckoutSession {
			s, err := e.svc.Get(t.Context(), "demo-site", names["home-carry-in.json"])
			if err != nil {
				t.Fatal(err)
			}
			return session.ToACPCheckoutSession(timeSlot(t, s))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got := tt.got()
			validACP(t, schema, got)
			checkGolden(t, filepath.Join("testdata", "agentic", session.ACPVersionCurrent, tt.file), got)
		})
	}
}

// TestACPCurrentRules checks the rules the golden files show only by
// example: option types, the selection, the totals.
func TestACPCurrentRules(t *testing.T) {
	e := newEnv(t)
	names := agenticSessions(t, e)
	get := func(file string) *session.Session {
		s, err := e.svc.Get(t.Context(), "demo-site", names[file])
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	type selection struct {
		Type, OptionID, PickupType, Destination, LocationID string
		Total                                               int64
		Window                                              bool
	}
	pick := func(s *session.ACPCheckoutSession) selection {
		sel := s.SelectedFulfillmentOptions[0]
		out := selection{Type: sel.Type, OptionID: sel.OptionID, Destination: s.FulfillmentGroups[0].DestinationType,
			LocationID: s.FulfillmentGroups[0].LocationID, Total: s.Totals[1].Amount}
		for _, fo := range s.FulfillmentOptions {
			if fo.ID == sel.OptionID {
				out.PickupType, out.Window = fo.PickupType, fo.DeliveryWindow != nil
			}
		}
		return out
	}
	locker := get("locker.json")
	lockerOpt := optionFor(t, locker, 0, "swift-courier-locker")
	var lockerLoc string
	for _, c := range locker.Deliveries[0].DeliveryCategories {
		for _, o := range c.DeliveryOptions {
			if o.ID == lockerOpt {
				lockerLoc = o.PickupLocation.ID
			}
		}
	}
	tests := []struct {
		name string
		got  *session.ACPCheckoutSession
		want selection
	}{
		{"home with carry-in", session.ToACPCheckoutSession(get("home-carry-in.json")),
			selection{Type: "shipping", OptionID: "home/north-parcel-home", Destination: "shipping", Total: 27800}},
		{"locker", session.ToACPCheckoutSession(locker),
			selection{Type: "pickup", OptionID: lockerOpt, PickupType: "locker", Destination: "pickup", LocationID: lockerLoc, Total: 4900}},
		{"time slot", session.ToACPCheckoutSession(timeSlot(t, get("home-carry-in.json"))),
			selection{Type: "local_delivery", OptionID: "home/north-parcel-home", Destination: "local_delivery", Total: 27800, Window: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, pick(tt.got)); diff != "" {
				t.Errorf("selection (-want +got):\n%s", diff)
			}
			if s := tt.got.Totals; s[2].Amount != s[0].Amount+s[1].Amount || s[0].Amount != 45000 {
				t.Errorf("totals %+v: want subtotal 45000 and total = subtotal + fulfillment", s)
			}
		})
	}
	two := session.ToACPCheckoutSession(get("completed.json"))
	want := []session.ACPSelectedFulfillmentOption{
		{Type: "shipping", OptionID: "d1:home/north-parcel-home", ItemIDs: []string{"d1:1"}},
		{Type: "shipping", OptionID: "d2:mailbox/north-parcel-mailbox", ItemIDs: []string{"d2:1"}},
	}
	if diff := cmp.Diff(want, two.SelectedFulfillmentOptions); diff != "" || two.FulfillmentDetails != nil || len(two.FulfillmentGroups) != 2 {
		t.Errorf("two deliveries: selections (-want +got):\n%s\ndetails %+v, %d groups", diff, two.FulfillmentDetails, len(two.FulfillmentGroups))
	}
	if _, err := e.svc.ConvertTo(t.Context(), "demo-site", names["active.json"],
		session.ConvertRequest{Format: session.FormatAgenticCheckout, ACPVersion: "2026-01-30"}); !slices.Contains(fields(err), "acp_version") {
		t.Errorf("unknown version: %v, want acp_version named", err)
	}
}

// An available promise writes its costs even when they are 0; an
// unavailable one has none.
func TestReturnsPromiseJSON(t *testing.T) {
	tests := []struct {
		in   session.ReturnsPromise
		want string
	}{
		{session.ReturnsPromise{ID: "p", CurrencyCode: "SEK", ReturnsEnabled: true, ExchangesEnabled: true},
			`{"id":"p","currency_code":"SEK","returns_enabled":true,"exchanges_enabled":true,"return_cost":"0","exchange_cost":"0"}`},
		{session.ReturnsPromise{ID: "p", CurrencyCode: "SEK", ReturnCost: 4900},
			`{"id":"p","currency_code":"SEK","return_cost":"4900","exchange_cost":"0"}`},
		{session.ReturnsPromise{IsUnavailable: true}, `{"is_unavailable":true}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.in, diff)
		}
	}
}
