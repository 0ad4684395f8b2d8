package checkout

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

func gen2Request() CheckoutCreateRequest {
	return CheckoutCreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &CheckoutCart{CartID: "cart-1", TotalValue: 45000, Vouchers: []string{"WELCOME10"}, Items: []CheckoutItem{
			{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 40000},
			{SKU: "pegs", Name: "Pegs", Quantity: 2, Price: 2500},
		}},
		SearchAddress: &SearchAddress{PostalCode: "111 57", Country: "SE"}}
}

// One session, two views: what one generation creates and changes, the
// other reads, updates and completes, and both show the same option,
// price and order.
func TestGenerationsShareSessions(t *testing.T) {
	f := newFixture(t)
	siw, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	dc, err := f.svc.GetCheckout(t.Context(), "demo-site", siw.Session.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	g := dc.Session.DeliveryGroups[0]
	res := siw.Session.Result
	want := DeliveryGroup{GroupID: GroupID, Items: []GroupItem{{SKU: "tent-2p", Quantity: 1}, {SKU: "pegs", Quantity: 2}},
		Header: map[string]string{},
		Shipping: &GroupShipping{DeliveryType: res.Shipping.DeliveryType, Carrier: res.Shipping.Carrier, Product: res.Shipping.Product,
			CarrierProductID: res.Shipping.ExternalMethodID, Addons: res.Shipping.Addons, DeliveryAddons: res.Shipping.DeliveryAddons,
			Supports: GroupSupports(res.Shipping.Supports), Warehouse: res.Shipping.Warehouse, Meta: map[string]string{},
			Route: GroupRoute{Origin: "stockholm", Carrier: "north-parcel", Product: res.Shipping.ShippingMethod}},
		Category: groupCategory(res.Category), Pricing: groupPricing(res.Pricing), Selection: GroupSelection(res.Selection), DeliveryTime: res.DeliveryTime,
		Addresses: GroupAddresses{Location: res.Shipping.Location, SearchAddress: siw.Session.SearchAddress}}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Errorf("the /v1/siw session as a delivery group (-want +got):\n%s", diff)
	}
	if dc.Session.CheckoutSessionID != siw.Session.ID || dc.Session.PurchaseCountry != "SE" || !dc.Session.UpdatedAt.Equal(testNow) ||
		dc.HTMLSnippet != siw.HTMLSnippet || g.Shipping.CarrierProductID != "NP-PP" {
		t.Errorf("session %+v", dc.Session)
	}

	// Updated in the newer generation, read in the older.
	f.clock.Advance(time.Minute)
	cart := checkoutCart(*createRequest().Cart)
	cart.TotalValue = 150000
	up, err := f.svc.UpdateCheckout(t.Context(), "demo-site", CheckoutUpdateRequest{CheckoutSessionID: siw.Session.ID, Cart: &cart})
	if err != nil {
		t.Fatal(err)
	}
	back, err := f.svc.Get(t.Context(), "demo-site", siw.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Session.Cart.TotalValue != 150000 || back.Session.Result.Pricing.Price != up.Session.DeliveryGroups[0].Pricing.Price ||
		!up.Session.UpdatedAt.Equal(testNow.Add(time.Minute)) {
		t.Errorf("after the update: siw price %d, delivery_checkout price %d", back.Session.Result.Pricing.Price, up.Session.DeliveryGroups[0].Pricing.Price)
	}

	// Created in the newer generation, completed in the older with the
	// merchant's customer; the newer one reads the tos_id.
	created, err := f.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	if created.Token == "" || created.Session.Cart.Vouchers[0] != "welcome10" || created.Session.Status != StatusActive {
		t.Errorf("create: %+v", created)
	}
	done, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: created.Session.CheckoutSessionID,
		Customer: &Customer{Email: "e@example.com", Address: &CustomerAddress{Name: "Eva", PostalCode: "111 57", Country: "SE"}}})
	if err != nil {
		t.Fatal(err)
	}
	read, err := f.svc.GetCheckout(t.Context(), "demo-site", created.Session.CheckoutSessionID, "")
	if err != nil {
		t.Fatal(err)
	}
	rg := read.Session.DeliveryGroups[0]
	if read.Session.Status != StatusComplete || rg.TosID != done.TosID || rg.Addresses.Customer == nil || rg.Addresses.Customer.Name != "Eva" {
		t.Errorf("completed in /v1/siw, read in the newer generation: %+v", read.Session)
	}
}

// The address form's rules, per field and country.
func TestSaveAddressesRules(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*AddressRequest)
		want []deliverykit.FieldViolation
	}{
		{"Swedish postal code with a space", func(*AddressRequest) {}, nil},
		{"Swedish postal code without", func(r *AddressRequest) { r.DeliveryAddress.PostalCode = "11826" }, nil},
		{"too short for Sweden", func(r *AddressRequest) { r.DeliveryAddress.PostalCode = "1182" }, []deliverykit.FieldViolation{
			{Field: "delivery_address.postal_code", Rule: "postal_code", Message: "is not a postal code of SE (such as 111 57)"}}},
		{"letters in a German one", func(r *AddressRequest) { r.DeliveryAddress.Country, r.DeliveryAddress.PostalCode = "DE", "1011A" },
			[]deliverykit.FieldViolation{{Field: "delivery_address.postal_code", Rule: "postal_code", Message: "is not a postal code of DE (such as 10115)"}}},
		{"a country the shop does not deliver to", func(r *AddressRequest) { r.DeliveryAddress.Country, r.DeliveryAddress.PostalCode = "NO", "0150" },
			[]deliverykit.FieldViolation{{Field: "delivery_address.country", Rule: "oneof", Message: "is not a country this shop delivers to"}}},
		{"empty form", func(r *AddressRequest) { r.DeliveryAddress = &DeliveryAddress{} }, []deliverykit.FieldViolation{
			{Field: "delivery_address.city", Rule: "required", Message: "is required"},
			{Field: "delivery_address.country", Rule: "required", Message: "is required"},
			{Field: "delivery_address.email", Rule: "required", Message: "is required"},
			{Field: "delivery_address.first_name", Rule: "required", Message: "is required"},
			{Field: "delivery_address.last_name", Rule: "required", Message: "is required"},
			{Field: "delivery_address.postal_code", Rule: "required", Message: "is required"},
			{Field: "delivery_address.street", Rule: "required", Message: "is required"},
		}},
		{"billing in the US needs a state", func(r *AddressRequest) {
			r.BillingAddress = &BillingAddress{FirstName: "A", LastName: "B", Street: "1 Infinite Loop", PostalCode: "95014", City: "Cupertino", Country: "US"}
		}, []deliverykit.FieldViolation{{Field: "billing_address.region", Rule: "required", Message: "is required"}}},
		{"billing with a bad code", func(r *AddressRequest) {
			r.BillingAddress = &BillingAddress{FirstName: "A", LastName: "B", Street: "x", PostalCode: "ABC", City: "Oslo", Country: "NO"}
		}, []deliverykit.FieldViolation{{Field: "billing_address.postal_code", Rule: "postal_code", Message: "is not a postal code of NO (such as 0150)"}}},
		{"bad e-mail", func(r *AddressRequest) { r.DeliveryAddress.Email = "anna" }, []deliverykit.FieldViolation{
			{Field: "delivery_address.email", Rule: "email", Message: "must be an e-mail address"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := AddressRequest{DeliveryAddress: shopperAddress()}
			tc.edit(&req)
			_, err := f.svc.SaveAddresses(t.Context(), v.Token, req)
			if diff := cmp.Diff(tc.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s (err %v)", diff, err)
			}
			if tc.want == nil && err != nil {
				t.Fatal(err)
			}
		})
	}
	// A session of /v1/siw without address_form takes no address.
	siw, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.SaveAddresses(t.Context(), siw.Token, AddressRequest{DeliveryAddress: shopperAddress()}); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("address for a session that does not collect them: %v", err)
	}
	if _, err := f.svc.SaveAddresses(t.Context(), "wt_nope", AddressRequest{DeliveryAddress: shopperAddress()}); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("unknown token: %v", err)
	}
}

// Completing in the newer generation takes the receiver from the
// shopper's delivery address: without one it is refused naming
// delivery_address; with one, the order event's customer is the shopper
// and the search address, and the options, follow the address.
func TestCompleteCheckoutWithShopperAddress(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.CheckoutSessionID
	_, err = f.svc.CompleteCheckout(t.Context(), "demo-site", CheckoutCompleteRequest{CheckoutSessionID: id})
	if diff := cmp.Diff([]deliverykit.FieldViolation{{Field: "delivery_address", Rule: "required",
		Message: "is required: the shopper enters it in the widget (or send customer)"}}, deliverykit.ViolationsOf(err)); diff != "" || deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("complete without an address (-want +got):\n%s", diff)
	}
	st, err := f.svc.SaveAddresses(t.Context(), v.Token, AddressRequest{DeliveryAddress: shopperAddress()})
	if err != nil {
		t.Fatal(err)
	}
	if st.Summary.SearchAddress.PostalCode != "118 26" || st.Summary.DeliveryAddress.FirstName != "Anna" || st.AddressForm.Countries[0].Country != "SE" {
		t.Errorf("widget state after the address: %+v", st.Summary)
	}
	got, err := f.svc.GetCheckout(t.Context(), "demo-site", id, "")
	if err != nil {
		t.Fatal(err)
	}
	a := got.Session.DeliveryGroups[0].Addresses
	if a.DeliveryAddress.Street != "Götgatan" || a.BillingAddress.FirstName != "Anna" || a.Customer.Name != "Anna Berg" ||
		a.SearchAddress.PostalCode != "118 26" {
		t.Errorf("addresses: %+v", a)
	}
	done, err := f.svc.CompleteCheckout(t.Context(), "demo-site", CheckoutCompleteRequest{CheckoutSessionID: id, ExternalID: "order-7"})
	if err != nil {
		t.Fatal(err)
	}
	g := done.Session.DeliveryGroups[0]
	if done.Session.Status != StatusComplete || g.TosID == "" || g.ExternalID != "order-7" {
		t.Errorf("completed: %+v", done.Session)
	}
	evs := f.orders(t)
	if len(evs) != 1 {
		t.Fatalf("%d events", len(evs))
	}
	o, err := event.Decode[event.OrderCompleted](evs[0])
	if err != nil {
		t.Fatal(err)
	}
	wantAddr := &deliverykit.Address{Name: "Anna Berg", AddressLines: []string{"Götgatan 45 1102"}, Street: "Götgatan", StreetNumber: "45",
		ApartmentNumber: "1102", City: "Stockholm", PostalCode: "118 26", Country: "SE", DoorCode: "1234"}
	if diff := cmp.Diff(wantAddr, o.CustomerAddress); diff != "" {
		t.Errorf("order's customer address (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(deliverykit.Contact{Name: "Anna Berg", Email: "anna@example.com", Phone: "+46701234567"}, o.Customer); diff != "" {
		t.Errorf("order's customer (-want +got):\n%s", diff)
	}
	if o.TosID != g.TosID || o.ExternalID != "order-7" {
		t.Errorf("order %s / %s", o.TosID, o.ExternalID)
	}
	// Frozen: the address form refuses, pull answers the frozen session.
	if _, err := f.svc.SaveAddresses(t.Context(), v.Token, AddressRequest{DeliveryAddress: shopperAddress()}); deliverykit.KindOf(err) != deliverykit.KindPermissionDenied {
		t.Errorf("address after completion: %v", err)
	}
	pulled, err := f.svc.PullCheckout(t.Context(), "demo-site", id)
	if err != nil || pulled.Session.Status != StatusComplete {
		t.Errorf("pull of a completed session: %v %+v", err, pulled)
	}
}

// Pull computes the options again as of now; another site's id and an
// unknown id are NotFound naming checkout_session_id.
func TestPullAndNotFound(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.CheckoutSessionID
	f.clock.Advance(3 * 24 * time.Hour / 2) // past the first estimate's expiry and the session's
	if _, err := f.svc.PullCheckout(t.Context(), "demo-site", id); err != nil {
		t.Fatalf("pull of an expired session: %v", err)
	}
	f2 := newFixture(t)
	v2, err := f2.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	f2.clock.Advance(6 * time.Hour) // past the day's cut-off: the estimate moves
	before := v2.Session.DeliveryGroups[0].DeliveryTime.CustomerDeliveryPromise.Earliest
	pulled, err := f2.svc.PullCheckout(t.Context(), "demo-site", v2.Session.CheckoutSessionID)
	if err != nil {
		t.Fatal(err)
	}
	if !pulled.Session.UpdatedAt.Equal(testNow.Add(6*time.Hour)) || !pulled.Session.DeliveryGroups[0].DeliveryTime.CustomerDeliveryPromise.Earliest.After(before) {
		t.Errorf("pull did not compute again: updated %v", pulled.Session.UpdatedAt)
	}
	for _, site := range []string{"demo-site-2", "demo-site"} {
		sid := id
		if site == "demo-site" {
			sid = "siw_unknown"
		}
		for name, call := range map[string]func() error{
			"get":  func() error { _, err := f.svc.GetCheckout(t.Context(), site, sid, ""); return err },
			"pull": func() error { _, err := f.svc.PullCheckout(t.Context(), site, sid); return err },
			"complete": func() error {
				_, err := f.svc.CompleteCheckout(t.Context(), site, CheckoutCompleteRequest{CheckoutSessionID: sid})
				return err
			},
			"update": func() error {
				_, err := f.svc.UpdateCheckout(t.Context(), site, CheckoutUpdateRequest{CheckoutSessionID: sid, ExternalID: "x"})
				return err
			},
		} {
			err := call()
			vs := deliverykit.ViolationsOf(err)
			if deliverykit.KindOf(err) != deliverykit.KindNotFound || len(vs) != 1 || vs[0].Field != "checkout_session_id" {
				t.Errorf("%s %s of %s: %v", name, sid, site, err)
			}
		}
	}
}

// The newer generation as its generated clients read it: the cart echoes
// what the merchant sent (attributes, image_url), free shipping is a
// present 0 while other zeros are left out, and sessions_summaries.list
// answers one summary of the order.
func TestCheckoutWireAsClientsReadIt(t *testing.T) {
	f := newFixture(t)
	req := gen2Request()
	req.Cart.Vouchers = []string{"freeship"}
	req.Cart.Attributes = []string{"gift"}
	req.Cart.Items[0].ImageURL = "https://shop.example/tent.png"
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v.Session)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Cart struct {
			Attributes []string `json:"attributes"`
			Items      []struct {
				ImageURL string `json:"image_url"`
			} `json:"items"`
		} `json:"cart"`
		DeliveryGroups []struct {
			Pricing map[string]any `json:"pricing"`
		} `json:"delivery_groups"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"gift"}, got.Cart.Attributes); diff != "" {
		t.Errorf("cart.attributes (-sent +echoed):\n%s", diff)
	}
	if got.Cart.Items[0].ImageURL != "https://shop.example/tent.png" {
		t.Errorf("items[0].image_url %q", got.Cart.Items[0].ImageURL)
	}
	p := got.DeliveryGroups[0].Pricing
	if p["price"] != 0.0 || p["net_price"] != 0.0 {
		t.Errorf("free shipping's pricing %v: price and net_price must be a present 0", p)
	}
	for _, c := range p["price_components"].([]any) {
		if _, ok := c.(map[string]any)["value"]; ok {
			t.Errorf("a free component shows its zero value: %v (this generation leaves zeros out)", c)
		}
	}

	// The order's summary.
	if _, err := f.svc.SaveAddresses(t.Context(), v.Token, AddressRequest{DeliveryAddress: shopperAddress()}); err != nil {
		t.Fatal(err)
	}
	done, err := f.svc.CompleteCheckout(t.Context(), "demo-site", CheckoutCompleteRequest{CheckoutSessionID: v.Session.CheckoutSessionID, ExternalID: "order-8"})
	if err != nil {
		t.Fatal(err)
	}
	g := done.Session.DeliveryGroups[0]
	sum, err := f.svc.CheckoutSummaries(t.Context(), "demo-site", g.TosID)
	if err != nil {
		t.Fatal(err)
	}
	want := &CheckoutSummary{ExternalID: "order-8", PurchaseCountry: "SE", TosID: g.TosID, Result: &SummaryResult{
		Addresses: &g.Addresses, Category: g.Category, DeliveryTime: g.DeliveryTime, Pricing: g.Pricing, Selection: g.Selection, Shipping: g.Shipping}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		site, tos string
		kind      deliverykit.Kind
	}{{"demo-site", "tos_nosuch", deliverykit.KindNotFound}, {"demo-site-2", g.TosID, deliverykit.KindNotFound}, {"demo-site", "", deliverykit.KindInvalidArgument}} {
		if _, err := f.svc.CheckoutSummaries(t.Context(), tc.site, tc.tos); deliverykit.KindOf(err) != tc.kind {
			t.Errorf("summary of %s/%q: %v, want %v", tc.site, tc.tos, err, tc.kind)
		}
	}
}

// shipping.meta carries the catalog product's meta and the session's (the
// session's winning), in both generations; the newer generation's header
// is the session's meta and its route names origin, carrier and product.
func TestShippingMetaHeaderAndRoute(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	req.Meta = Meta{"channel": "web", "service_code": "override"}
	v, err := f.svc.Create(t.Context(), "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Select(t.Context(), v.Token, SelectRequest{OptionID: "home/north-parcel-home"}); err != nil {
		t.Fatal(err)
	}
	got, err := f.svc.Get(t.Context(), "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"channel": "web", "service_code": "override"}, got.Session.Result.Shipping.Meta); diff != "" {
		t.Errorf("siw shipping.meta (-want +got):\n%s", diff)
	}
	dc, err := f.svc.GetCheckout(t.Context(), "demo-site", v.Session.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	g := dc.Session.DeliveryGroups[0]
	if diff := cmp.Diff(map[string]string{"channel": "web", "service_code": "override"}, g.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(GroupRoute{Origin: "stockholm", Carrier: "north-parcel", Product: "north-parcel-home"}, g.Shipping.Route); diff != "" {
		t.Errorf("route (-want +got):\n%s", diff)
	}

	// Without session meta: the product's alone.
	plain, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Select(t.Context(), plain.Token, SelectRequest{OptionID: "home/north-parcel-home"}); err != nil {
		t.Fatal(err)
	}
	got, err = f.svc.Get(t.Context(), "demo-site", plain.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"service_code": "NP-17"}, got.Session.Result.Shipping.Meta); diff != "" {
		t.Errorf("product meta alone (-want +got):\n%s", diff)
	}
}

// A pull that finds the offer as stored writes nothing; one that finds a
// new estimate (past the day's cut-off) writes it.
func TestPullWritesOnlyChanges(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.CreateCheckout(t.Context(), "demo-site", gen2Request())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.CheckoutSessionID
	version := func() uint64 {
		t.Helper()
		var ver uint64
		if err := f.store.View(t.Context(), func(tx storage.Tx) error {
			rec, err := tx.Get(sessions.Name, storage.Key("demo-site", id))
			ver = rec.Version
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ver
	}
	before := version()
	f.clock.Advance(time.Minute)
	pulled, err := f.svc.PullCheckout(t.Context(), "demo-site", id)
	if err != nil {
		t.Fatal(err)
	}
	if got := version(); got != before {
		t.Errorf("an unchanged pull wrote the session: version %d → %d", before, got)
	}
	if diff := cmp.Diff(v.Session.DeliveryGroups, pulled.Session.DeliveryGroups); diff != "" {
		t.Errorf("unchanged pull (-created +pulled):\n%s", diff)
	}
	f.clock.Advance(6 * time.Hour) // past the day's cut-off: the estimate moves
	pulled, err = f.svc.PullCheckout(t.Context(), "demo-site", id)
	if err != nil {
		t.Fatal(err)
	}
	if got := version(); got == before {
		t.Errorf("a pull with new estimates did not write")
	}
	if a, b := v.Session.DeliveryGroups[0].DeliveryTime.CustomerDeliveryPromise, pulled.Session.DeliveryGroups[0].DeliveryTime.CustomerDeliveryPromise; a.Earliest.Equal(b.Earliest) {
		t.Errorf("a day later the promise is still %v", b)
	}
}
