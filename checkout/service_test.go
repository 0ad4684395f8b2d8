package checkout

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
	"github.com/google/go-cmp/cmp"
)

// Thursday 2026-11-19 09:00 UTC (10:00 in Stockholm).
var testNow = time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)

type fixture struct {
	svc   *Service
	clock *deliverykit.ManualClock
	store storage.Store
}

// orders returns the completed orders the service wrote to the outbox.
func (f *fixture) orders(t testing.TB) []event.Event {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 100)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureWith(t, nil)
}

// newFixtureWith is newFixture over the demo catalogs as edit leaves them.
func newFixtureWith(t testing.TB, edit func(map[string]*catalog.Catalog)) *fixture {
	t.Helper()
	f := &fixture{clock: deliverykit.NewManualClock(testNow), store: memory.New()}
	cats := config.Demo().Catalogs()
	if edit != nil {
		edit(cats)
	}
	engines, err := NewEngines(cats, options.Options{Clock: f.clock})
	if err != nil {
		t.Fatal(err)
	}
	f.svc, err = New(f.store, Options{
		Engines: engines, Clock: f.clock, IDs: &deliverykit.SequentialIDs{},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func createRequest() CreateRequest {
	return CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &Cart{CartID: "cart-1", TotalValue: 45000, Items: []CartItem{
			{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 40000},
			{SKU: "pegs", Name: "Pegs", Quantity: 2, Price: 2500, Attributes: []string{"small"}},
		}},
		SearchAddress: &SearchAddress{PostalCode: "118 26"},
	}
}

var ctx = context.Background()

func TestCreate(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	s := v.Session
	if s.ID != "siw_000001" || s.Status != StatusActive || v.Token != "wt_000002" {
		t.Errorf("id, status, token = %q, %q, %q", s.ID, s.Status, v.Token)
	}
	if !s.ExpiresAt.Equal(testNow.Add(DefaultSessionTTL)) {
		t.Errorf("expires_at = %v", s.ExpiresAt)
	}
	if diff := cmp.Diff(&SearchAddress{PostalCode: "118 26", Country: "SE", Coordinates: &Coordinates{Lat: 59.3139, Lng: 18.0727}}, s.SearchAddress); diff != "" {
		t.Errorf("search_address (-want +got):\n%s", diff)
	}
	if s.Cart.Currency != "SEK" {
		t.Errorf("cart currency = %q, want the purchase currency", s.Cart.Currency)
	}
	opt := s.SelectedShippingOption
	if opt == nil || opt.ShippingMethod != "north-parcel-point" || opt.TimeSlot == nil || opt.TimeSlot.ID != "pickup/north-parcel-point/np-se-102" || opt.DeliveryType != "pickup" || opt.Carrier != "North Parcel" ||
		opt.Price != 4900 || opt.Currency != "SEK" || opt.Location == nil || opt.Location.Name != "Grocer Södermalm" {
		t.Fatalf("selected_shipping_option = %+v", opt)
	}
	if opt.Location.OperationalHours["mon"] != "08:00-20:00" || opt.Location.OperationalHours["sun"] != "" || opt.Location.Distance.Walking == nil {
		t.Errorf("location = %+v", opt.Location)
	}
	if s.ShippingPrice != 4900 || s.Customer != nil || s.TosID != "" {
		t.Errorf("shipping_price %d, customer %v, tos_id %q", s.ShippingPrice, s.Customer, s.TosID)
	}
	r := s.Result
	if r == nil || r.Selection != SelectionPreselected || r.Category.ID != "pickup" || r.Category.Name != "Pickup point" ||
		r.Category.PresentedCategoryName != "Utlämningsställe" || r.Pricing.Price != 4900 ||
		r.Pricing.PriceComponents[0].Type != PriceComponentShipping || r.Shipping.ExternalMethodID != "NP-PP" || r.Shipping.ShippingMethod != "north-parcel-point" || r.Category.ExternalID != "PICKUP" ||
		r.Shipping.Warehouse.Address.City != "Stockholm" {
		t.Errorf("result = %+v", r)
	}
	// Ready Thursday 10:00 Stockholm, cut-off 15:00: handover today,
	// delivery Friday to Tuesday (1-3 business days).
	dt := r.DeliveryTime
	if got := dt.PickupFromMerchant.Earliest.Format(time.RFC3339); got != "2026-11-19T15:00:00+01:00" {
		t.Errorf("pickup_from_merchant = %s", got)
	}
	if got := dt.CustomerDeliveryPromise.Earliest.Format(time.DateOnly) + "/" + dt.CustomerDeliveryPromise.Latest.Format(time.DateOnly); got != "2026-11-20/2026-11-24" {
		t.Errorf("customer_delivery_promise = %s", got)
	}
	if !strings.Contains(v.HTMLSnippet, `data-deliverykit-token="wt_000002"`) || !strings.Contains(v.HTMLSnippet, `data-deliverykit-base="/v1/siw/_/"`) {
		t.Errorf("html_snippet = %s", v.HTMLSnippet)
	}
	got, err := f.svc.Get(ctx, "demo-site", s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(v, got); diff != "" {
		t.Errorf("Get differs from Create (-create +get):\n%s", diff)
	}
}

func TestCreateWithoutSearchAddress(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	req.SearchAddress = nil
	req.Locales = nil
	req.Locale = "de-DE"
	v, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	// No address to place: no arbitrary pickup point is preselected (home
	// delivery is), names in German.
	if loc := v.Session.SelectedShippingOption.Location; loc != nil {
		t.Errorf("location = %+v, want none for an address that cannot be placed", loc)
	}
	if got := v.Session.Result.Category.PresentedCategoryName; got != "Lieferung nach Hause" {
		t.Errorf("presented name = %q", got)
	}
	st, err := f.svc.WidgetState(ctx, v.Token)
	if err != nil || !st.NeedsPostalCode {
		t.Errorf("widget state: %v, needs_postal_code %v", err, st != nil && st.NeedsPostalCode)
	}
}

func fields(err error) []string {
	var out []string
	for _, v := range deliverykit.ViolationsOf(err) {
		out = append(out, v.Field)
	}
	return out
}

func TestCreateInvalid(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name   string
		mutate func(r *CreateRequest)
		fields []string
	}{
		{"missing cart", func(r *CreateRequest) { r.Cart = nil }, []string{"cart"}},
		{"unknown currency", func(r *CreateRequest) { r.PurchaseCurrency = "SEX" }, []string{"purchase_currency"}},
		{"missing country", func(r *CreateRequest) { r.PurchaseCountry = "" }, []string{"purchase_country"}},
		{"negative price", func(r *CreateRequest) { r.Cart.Items[1].Price = -1 }, []string{"cart.items[1].price"}},
		{"negative total", func(r *CreateRequest) { r.Cart.TotalValue = -5 }, []string{"cart.total_value"}},
		{"missing sku", func(r *CreateRequest) { r.Cart.Items[0].SKU = "" }, []string{"cart.items[0].sku"}},
		{"malformed locale", func(r *CreateRequest) { r.Locales = []string{"sv-SE", "swedish"} }, []string{"locales[1]"}},
		{"malformed single locale", func(r *CreateRequest) { r.Locales = nil; r.Locale = "sv_SE!" }, []string{"locale"}},
		{"no locale", func(r *CreateRequest) { r.Locales = nil }, []string{"locales"}},
		{"cart in another currency", func(r *CreateRequest) { r.Cart.Currency = "EUR" }, []string{"cart.currency"}},
		{"bad search country", func(r *CreateRequest) { r.SearchAddress.Country = "XX" }, []string{"search_address.country"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := createRequest()
			tt.mutate(&req)
			_, err := f.svc.Create(ctx, "demo-site", req)
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Fatalf("error = %v, want invalid argument", err)
			}
			if diff := cmp.Diff(tt.fields, fields(err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
	if _, err := f.svc.Create(ctx, "no-catalog-site", createRequest()); !errors.Is(err, deliverykit.ErrFailedPrecondition) {
		t.Errorf("site without catalog: %v", err)
	}
}

func TestUpdate(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.ID
	// The customer picks another pickup point in the widget.
	if _, err := f.svc.Select(ctx, v.Token, SelectRequest{OptionID: "pickup/swift-courier-locker/sc-se-102"}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Hour) // options expire after 30 minutes; the choice survives recomputation

	// A bigger cart: free shipping above 999 kr, the choice is kept.
	cart := *createRequest().Cart
	cart.TotalValue = 120000
	v, err = f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, Cart: &cart})
	if err != nil {
		t.Fatal(err)
	}
	s := v.Session
	if s.SelectedShippingOption.TimeSlot.ID != "pickup/swift-courier-locker/sc-se-102" || s.ShippingPrice != 0 || s.Result.Selection != SelectionUser {
		t.Errorf("after cart update: option %q, price %d, selection %s", s.SelectedShippingOption.TimeSlot.ID, s.ShippingPrice, s.Result.Selection)
	}
	if !s.ExpiresAt.Equal(testNow.Add(time.Hour + DefaultSessionTTL)) {
		t.Errorf("expires_at = %v, want extended by the update", s.ExpiresAt)
	}

	// A customer in Berlin: options regenerate for that address, the
	// Stockholm locker is gone, the preselected option for Berlin wins.
	v, err = f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, Customer: &Customer{Email: "a@example.com",
		Address: &CustomerAddress{Name: "A", AddressLines: []string{"Alexanderplatz 1"}, City: "Berlin", PostalCode: "10178", Country: "DE"}}})
	if err != nil {
		t.Fatal(err)
	}
	s = v.Session
	if got := s.SelectedShippingOption; got.Location == nil || got.Location.Name != "Späti Alexanderplatz" || s.Result.Selection != SelectionPreselected {
		t.Errorf("after customer update: %+v, selection %s", got, s.Result.Selection)
	}
	if s.Customer == nil || s.Customer.Email != "a@example.com" {
		t.Errorf("customer = %+v", s.Customer)
	}
	// The search address keeps its own coordinates.
	if s.SearchAddress.Coordinates == nil || s.SearchAddress.Coordinates.Lat != 59.3139 {
		t.Errorf("search_address = %+v", s.SearchAddress)
	}

	tests := []struct {
		name string
		req  UpdateRequest
		kind error
		want []string
	}{
		{"nothing to update", UpdateRequest{ID: id}, deliverykit.ErrInvalidArgument, []string{"cart"}},
		{"no id", UpdateRequest{Cart: &cart}, deliverykit.ErrInvalidArgument, []string{"id"}},
		{"unknown id", UpdateRequest{ID: "siw_nope", Cart: &cart}, deliverykit.ErrNotFound, []string{"id"}},
		{"bad email", UpdateRequest{ID: id, Customer: &Customer{Email: "nope"}}, deliverykit.ErrInvalidArgument, []string{"customer.email"}},
		{"negative quantity", UpdateRequest{ID: id, Cart: &Cart{Items: []CartItem{{SKU: "x", Quantity: -1}}}}, deliverykit.ErrInvalidArgument, []string{"cart.items[0].quantity"}},
	}
	for _, tt := range tests {
		_, err := f.svc.Update(ctx, "demo-site", tt.req)
		if !errors.Is(err, tt.kind) || !cmp.Equal(tt.want, fields(err)) {
			t.Errorf("%s: error = %v (fields %v), want %v on %v", tt.name, err, fields(err), tt.kind, tt.want)
		}
	}
	// Another site's key never reaches the session.
	if _, err := f.svc.Get(ctx, "demo-site-2", id); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("Get from another site: %v", err)
	}
}

func TestComplete(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.ID
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: id}); !errors.Is(err, deliverykit.ErrInvalidArgument) || !cmp.Equal(fields(err), []string{"customer"}) {
		t.Errorf("complete without customer: %v", err)
	}
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: id, Customer: &Customer{Email: "a@example.com", Address: &CustomerAddress{}}}); !cmp.Equal(fields(err), []string{"customer.address.country", "customer.address.postal_code"}) {
		t.Errorf("complete without address fields: %v", err)
	}
	// Home delivery with the carry-in addon, chosen in the widget.
	if _, err := f.svc.Select(ctx, v.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}}); err != nil {
		t.Fatal(err)
	}
	customer := &Customer{Email: "a@example.com", Phone: "+46701234567",
		Address: &CustomerAddress{Name: "Anna", AddressLines: []string{"Götgatan 45"}, City: "Stockholm", PostalCode: "118 26", Country: "SE"}}
	c, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: id, Customer: customer})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Session
	if c.TosID == "" || s.TosID != c.TosID || s.Status != StatusComplete || s.Customer == nil {
		t.Fatalf("completed = %+v", c)
	}
	if s.ShippingPrice != 7900+19900 || s.Result.Selection != SelectionUser {
		t.Errorf("shipping_price = %d, selection %s", s.ShippingPrice, s.Result.Selection)
	}
	wantComponents := []PriceComponent{
		{Type: PriceComponentShipping, ID: "home/north-parcel-home", Name: "Hemleverans", Value: 7900, VAT: 1580, VATRate: 2500},
		{Type: PriceComponentAddon, ID: "carry-in", Name: "Inbärning", Value: 19900, VAT: 3980, VATRate: 2500},
	}
	if diff := cmp.Diff(wantComponents, s.Result.Pricing.PriceComponents); diff != "" {
		t.Errorf("price_components (-want +got):\n%s", diff)
	}

	// Frozen: every change is refused with PermissionDenied naming the state.
	for name, err := range map[string]error{
		"update": func() error {
			_, err := f.svc.Update(ctx, "demo-site", UpdateRequest{ID: id, Customer: customer})
			return err
		}(),
		"complete": func() error {
			_, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: id, Customer: customer})
			return err
		}(),
		"select": func() error {
			_, err := f.svc.Select(ctx, v.Token, SelectRequest{OptionID: "home/north-parcel-home"})
			return err
		}(),
	} {
		if !errors.Is(err, deliverykit.ErrPermissionDenied) || !strings.Contains(err.Error(), "completed") {
			t.Errorf("%s after complete: %v, want permission denied saying completed", name, err)
		}
	}
	got, err := f.svc.Get(ctx, "demo-site", id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, got.Session); diff != "" {
		t.Errorf("Get after complete (-complete +get):\n%s", diff)
	}

	// The completing write put one order, with what tracking needs, in
	// the outbox.
	evs := f.orders(t)
	if len(evs) != 1 {
		t.Fatalf("%d events in the outbox, want 1", len(evs))
	}
	o, err := event.Decode[event.OrderCompleted](evs[0])
	if err != nil {
		t.Fatal(err)
	}
	type facts struct {
		Site, TosID, ExternalID, ProductRef, DeliveryType, Currency, City string
		ShippingPrice                                                     int64
		Items                                                             int
		CompletedAt                                                       time.Time
	}
	wantOrder := facts{"demo-site", c.TosID, "cart-1", "north-parcel-home", "DELIVERY", "SEK", "Stockholm", 27800, 2, testNow}
	gotOrder := facts{evs[0].Site, o.TosID, o.ExternalID, o.ProductRef, o.DeliveryType, o.Currency, o.CustomerAddress.City,
		o.ShippingPrice, len(o.Cart.Items), o.CompletedAt}
	if diff := cmp.Diff(wantOrder, gotOrder); diff != "" {
		t.Errorf("completed order (-want +got):\n%s", diff)
	}
}

func TestCompleteGeneratesChoice(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	req.SearchAddress = nil
	v, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	c, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: &Customer{
		Address: &CustomerAddress{City: "Malmö", PostalCode: "214 24", Country: "SE"}}})
	if err != nil {
		t.Fatal(err)
	}
	s := c.Session
	if s.Result.Selection != SelectionPreselected || s.SelectedShippingOption.Location.Name != "Grocer Möllevången" {
		t.Errorf("generated choice = %+v (%s)", s.SelectedShippingOption, s.Result.Selection)
	}

	// An address no category serves gets the catalog's fallback.
	v, _ = f.svc.Create(ctx, "demo-site", createRequest())
	c, err = f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, ExternalID: "order-no",
		Customer: &Customer{Address: &CustomerAddress{PostalCode: "0150", Country: "NO"}}})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Session.Result.Selection, c.Session.Result.Category.ID, c.Session.Result.Shipping.ShippingMethod, c.Session.ShippingPrice}
	if diff := cmp.Diff([]any{SelectionFallbackFromPreselected, "fallback", "north-parcel-home", int64(14900)}, got); diff != "" {
		t.Errorf("fallback result (-want +got):\n%s", diff)
	}

	// Without a fallback, an address nothing delivers to cannot complete.
	f = newFixtureWith(t, func(cats map[string]*catalog.Catalog) { cats["demo-site"].Fallback = nil })
	v, _ = f.svc.Create(ctx, "demo-site", createRequest())
	_, err = f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: &Customer{Address: &CustomerAddress{PostalCode: "1000", Country: "NO"}}})
	if !errors.Is(err, deliverykit.ErrFailedPrecondition) || !cmp.Equal(fields(err), []string{"customer.address"}) {
		t.Errorf("undeliverable address: %v", err)
	}
}

func TestExpiry(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(DefaultSessionTTL)
	customer := &Customer{Address: &CustomerAddress{PostalCode: "11826", Country: "SE"}}
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: customer}); !errors.Is(err, deliverykit.ErrFailedPrecondition) || !strings.Contains(err.Error(), "expired") {
		t.Errorf("complete after expiry: %v", err)
	}
	if _, err := f.svc.Update(ctx, "demo-site", UpdateRequest{ID: v.Session.ID, Customer: customer}); !errors.Is(err, deliverykit.ErrFailedPrecondition) {
		t.Errorf("update after expiry: %v", err)
	}
	if got, err := f.svc.Get(ctx, "demo-site", v.Session.ID); err != nil || got.Session.Status != StatusActive {
		t.Errorf("get after expiry: %v, %v", got, err)
	}
}

// TestConcurrentUpdates runs 32 updates of one session at once: each is
// acknowledged or refused with Conflict, and no acknowledged update is
// lost (the record counts committed writes).
func TestConcurrentUpdates(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	const n = 32
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		acked = make([]bool, n)
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cart := *createRequest().Cart
			cart.CartID = "cart-" + string(rune('A'+i))
			<-start
			_, errs[i] = f.svc.Update(ctx, "demo-site", UpdateRequest{ID: v.Session.ID, Cart: &cart})
			acked[i] = errs[i] == nil
		}()
	}
	close(start)
	wg.Wait()
	ackCount, last := 0, ""
	for i := range n {
		switch {
		case acked[i]:
			ackCount++
		case !errors.Is(errs[i], deliverykit.ErrConflict) || !strings.Contains(errs[i].Error(), "repeat the call"):
			t.Errorf("update %d: %v, want success or conflict", i, errs[i])
		}
	}
	var rec storage.Item[record]
	f.store.View(ctx, func(tx storage.Tx) error {
		rec, err = sessions.Get(tx, storage.Key("demo-site", v.Session.ID))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if ackCount == 0 || rec.Value.Revision != 1+ackCount {
		t.Errorf("%d updates acknowledged, revision %d: an acknowledged update was lost", ackCount, rec.Value.Revision)
	}
	t.Logf("%d of %d concurrent updates acknowledged, the rest refused with Conflict", ackCount, n)
	last = rec.Value.Cart.CartID
	i := int(last[len(last)-1] - 'A')
	if i < 0 || i >= n || !acked[i] {
		t.Errorf("final cart %q is not from an acknowledged update", last)
	}
}

func TestWidget(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.WidgetState(ctx, v.Token)
	if err != nil {
		t.Fatal(err)
	}
	var cats []string
	for _, c := range st.Categories {
		cats = append(cats, c.ID+":"+c.Name)
	}
	if diff := cmp.Diff([]string{"pickup:Utlämningsställe", "home:Hemleverans", "mailbox:Brevlåda", "instore:Hämta i butik"}, cats); diff != "" {
		t.Errorf("categories (-want +got):\n%s", diff)
	}
	if st.Selected != v.Session.SelectedShippingOption.TimeSlot.ID || st.Locale != "sv-SE" || st.Currency != "SEK" || st.ShippingPrice != 4900 {
		t.Errorf("state = %+v", st)
	}
	if o := st.Categories[0].Options[0]; o.EarliestDate != "2026-11-20" || o.LatestDate != "2026-11-24" || o.Location == nil {
		t.Errorf("first option = %+v", o)
	}
	st, err = f.svc.Select(ctx, v.Token, SelectRequest{OptionID: "home/swift-courier-express", AddonIDs: []string{"leave-at-door", "leave-at-door"}})
	if err != nil {
		t.Fatal(err)
	}
	if st.Selected != "home/swift-courier-express" || !cmp.Equal(st.Addons, []string{"leave-at-door"}) || st.ShippingPrice != 7900 {
		t.Errorf("after select: %+v", st)
	}
	got, _ := f.svc.Get(ctx, "demo-site", v.Session.ID)
	if got.Session.SelectedShippingOption.ShippingMethod != "swift-courier-express" || got.Session.ShippingPrice != 7900 || got.Session.Result.Selection != SelectionUser {
		t.Errorf("session after select: %+v", got.Session.SelectedShippingOption)
	}
	tests := []struct {
		token string
		req   SelectRequest
		kind  error
		want  []string
	}{
		{v.Token, SelectRequest{}, deliverykit.ErrInvalidArgument, []string{"option_id"}},
		{v.Token, SelectRequest{OptionID: "home/teleport"}, deliverykit.ErrInvalidArgument, []string{"option_id"}},
		{v.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"gift-wrap"}}, deliverykit.ErrInvalidArgument, []string{"addon_ids[0]"}},
		{"wt_guess", SelectRequest{OptionID: "home/north-parcel-home"}, deliverykit.ErrNotFound, nil},
		{"", SelectRequest{OptionID: "home/north-parcel-home"}, deliverykit.ErrUnauthenticated, nil},
	}
	for _, tt := range tests {
		_, err := f.svc.Select(ctx, tt.token, tt.req)
		if !errors.Is(err, tt.kind) || !cmp.Equal(tt.want, fields(err)) {
			t.Errorf("Select(%q, %+v) = %v, want %v %v", tt.token, tt.req, err, tt.kind, tt.want)
		}
	}
	if _, err := f.svc.WidgetState(ctx, "wt_guess"); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("WidgetState(bad token) = %v", err)
	}
}

func TestSnippetEscapes(t *testing.T) {
	got := Snippet(`https://x.example/"><script>`, `t"><b>`)
	if strings.Contains(got, `"><b>`) || strings.Contains(got, `"><script>`) {
		t.Errorf("snippet does not escape: %s", got)
	}
}

// TestCartRoundTrip: every cart field the merchant sends is kept as sent.
func TestCartRoundTrip(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	req.Cart = &Cart{CartID: "c-9", TotalValue: 9000, TotalDiscount: 1000, Currency: "SEK", PreOrder: true, Items: []CartItem{
		{SKU: "a", Name: "A", Attributes: []string{"x", "y"}, OutOfStock: true, Quantity: 3, Price: 3000},
	}}
	v, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(*req.Cart, v.Session.Cart); diff != "" {
		t.Errorf("cart (-sent +kept):\n%s", diff)
	}
}

// TestCompleteEmitsWithTheCommit: the order is written with the session's
// completion, once; a session that fails to complete writes none.
func TestCompleteEmitsWithTheCommit(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID}); err == nil {
		t.Fatal("Complete without a customer succeeded")
	}
	if evs := f.orders(t); len(evs) != 0 {
		t.Fatalf("a failed completion wrote %d events", len(evs))
	}
	c, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: &Customer{Address: &CustomerAddress{PostalCode: "118 26", Country: "SE"}}})
	if err != nil || c.Session.Status != StatusComplete {
		t.Fatalf("Complete = %v, %v", c, err)
	}
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID}); err == nil {
		t.Fatal("a second Complete succeeded")
	}
	evs := f.orders(t)
	if len(evs) != 1 || evs[0].Subject != c.TosID || evs[0].Type != event.TypeOrderCompleted {
		t.Errorf("outbox = %+v, want one order.completed of %s", evs, c.TosID)
	}
	engines, _ := NewEngines(config.Demo().Catalogs(), options.Options{})
	if _, err := New(nil, Options{Engines: engines}); err == nil {
		t.Error("New without a store succeeded")
	}
	if _, err := New(memory.New(), Options{}); err == nil {
		t.Error("New without engines succeeded")
	}
}

// TestGetReadsOneRecord: session.get reads the session with storage.Get,
// one statement on a store that offers it (PostgreSQL), not a View, and
// the widget its token; a missing session is still NotFound naming the
// id, an unknown token still the widget's NotFound.
func TestGetReadsOneRecord(t *testing.T) {
	f := newFixture(t)
	base := storagetest.Getting(f.store)
	svc, err := New(base, Options{Engines: f.svc.engines, Clock: f.clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	before := base.Gets()
	got, err := svc.Get(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Session.ID != v.Session.ID {
		t.Errorf("Get returned session %q, want %q", got.Session.ID, v.Session.ID)
	}
	coll, key := base.Last()
	if n := base.Gets() - before; n != 1 || coll != sessions.Name || key != storage.Key("demo-site", v.Session.ID) {
		t.Errorf("Get read with %d storage.Get, the last of %q in %q; want 1, of the session", n, key, coll)
	}
	_, err = svc.Get(ctx, "demo-site", "siw_missing")
	var de *deliverykit.Error
	if !errors.As(err, &de) || de.Kind != deliverykit.KindNotFound || len(de.Violations) != 1 || de.Violations[0].Field != "id" {
		t.Errorf("Get of a missing session = %v; want NotFound naming the id", err)
	}
	// The widget reads its token, then the session: two storage.Gets.
	before = base.Gets()
	if _, err := svc.WidgetState(ctx, v.Token); err != nil {
		t.Fatal(err)
	}
	if n := base.Gets() - before; n != 2 {
		t.Errorf("WidgetState read with %d storage.Get; want 2 (the token, the session)", n)
	}
	if _, err := svc.WidgetState(ctx, "wt_unknown"); !errors.Is(err, errBadToken) {
		t.Errorf("WidgetState of an unknown token = %v; want %v", err, errBadToken)
	}
}
