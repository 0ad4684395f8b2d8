package checkout

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Records written before the carrier-product identity (testdata/record-v1-*,
// written by the previous release) read with today's wire values: the
// reference as shipping_method, the product's external id, lower-case
// delivery types, VAT; an old ACTIVE session can still be updated and an
// old completed one cloned.
func TestRecordsOfTheFirstFormat(t *testing.T) {
	f := newFixture(t)
	put := func(file, id string) {
		t.Helper()
		b, err := os.ReadFile("testdata/" + file)
		if err != nil {
			t.Fatal(err)
		}
		err = f.store.Update(t.Context(), func(tx storage.Tx) error {
			_, err := tx.Put(sessions.Name, storage.Key("demo-site", id), b, storage.MustNotExist())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for range 10 { // the ids the stored records use are taken
		f.svc.ids.NewID("")
	}
	put("record-v1-active.json", "siw_000001")
	put("record-v1-complete.json", "siw_000003")
	if err := f.store.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tosIndex.Put(tx, storage.Key("demo-site", "tos_000005"), "siw_000003", storage.MustNotExist())
		return err
	}); err != nil {
		t.Fatal(err)
	}

	type wire struct {
		Method, Type, External, SlotID string
		Price, VAT                     int64
		Selection                      Selection
	}
	read := func(s Session) wire {
		r := s.Result
		return wire{r.Shipping.ShippingMethod, r.Shipping.DeliveryType, r.Shipping.ExternalMethodID, r.Shipping.DeliveryTime.ID,
			r.Pricing.Price, r.Pricing.PriceComponents[0].VAT, r.Selection}
	}
	active, err := f.svc.Get(t.Context(), "demo-site", "siw_000001")
	if err != nil {
		t.Fatal(err)
	}
	want := wire{"north-parcel-home", "delivery", "NP-HD", "home/north-parcel-home", 7900 + 19900, 1580, SelectionUser}
	if diff := cmp.Diff(want, read(active.Session)); diff != "" {
		t.Errorf("old ACTIVE session (-want +got):\n%s", diff)
	}
	done, err := f.svc.Get(t.Context(), "demo-site", "siw_000003")
	if err != nil {
		t.Fatal(err)
	}
	want = wire{"north-parcel-point", "pickup", "NP-PP", "pickup/north-parcel-point/np-se-102", 4900, 980, SelectionPreselected}
	if diff := cmp.Diff(want, read(done.Session)); diff != "" {
		t.Errorf("old COMPLETE session (-want +got):\n%s", diff)
	}

	v, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: "siw_000001", ExternalID: "web-1"})
	if err != nil || v.Session.ExternalID != "web-1" || v.Session.Result.Selection != SelectionUser {
		t.Errorf("update of an old session: %v %+v", err, v)
	}
	clone, err := f.svc.CreateFromOrder(t.Context(), "demo-site", CreateFromOrderRequest{TosID: "tos_000005", ExternalID: "web-2"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(done.Session.Cart, clone.Session.Cart); diff != "" || clone.Session.Status != StatusActive {
		t.Errorf("clone of an old session: status %s, cart (-old +clone):\n%s", clone.Session.Status, diff)
	}
}

func TestVouchers(t *testing.T) {
	tests := []struct {
		name      string
		cart      func(*Cart)
		wantCodes []string
		wantPrice int64
	}{
		{"none", func(*Cart) {}, nil, 4900},
		{"list, any case", func(c *Cart) { c.Vouchers = []string{" FreeShip "} }, []string{"freeship"}, 0},
		{"older single voucher", func(c *Cart) { c.Voucher = "FREESHIP" }, []string{"freeship"}, 0},
		{"both, folded", func(c *Cart) { c.Vouchers = []string{"welcome10", "freeship"}; c.Voucher = "FreeShip" }, []string{"welcome10", "freeship"}, 0},
		{"unknown code", func(c *Cart) { c.Vouchers = []string{"nope"} }, []string{"nope"}, 4900},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			req := createRequest()
			tc.cart(req.Cart)
			v, err := f.svc.Create(t.Context(), "demo-site", req)
			if err != nil {
				t.Fatal(err)
			}
			got := []any{v.Session.Cart.Vouchers, v.Session.Cart.Voucher, v.Session.ShippingPrice}
			if diff := cmp.Diff([]any{tc.wantCodes, "", tc.wantPrice}, got); diff != "" {
				t.Errorf("(vouchers, voucher, price) (-want +got):\n%s", diff)
			}
			// The codes survive a read and an update of another field.
			u, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: v.Session.ID, Meta: Meta{"k": "v"}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantCodes, u.Session.Cart.Vouchers); diff != "" || u.Session.ShippingPrice != tc.wantPrice {
				t.Errorf("after update: price %d, vouchers (-want +got):\n%s", u.Session.ShippingPrice, diff)
			}
		})
	}
}

// A merchant order number already taken answers 409 naming external_id,
// and the session stays ACTIVE: nothing is frozen.
func TestExternalIDTaken(t *testing.T) {
	customer := &Customer{Email: "a@example.com", Address: &CustomerAddress{Name: "A", PostalCode: "118 26", Country: "SE"}}
	tests := []struct {
		name   string
		orders OrderChecker
		first  string // external id of an earlier completed session ("" none)
		req    CompleteRequest
	}{
		{"another completed session", nil, "web-1", CompleteRequest{ExternalID: "web-1"}},
		{"a tracking order", checkerFunc(func(ext string) error {
			if ext == "web-7" {
				return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "taken",
					Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "taken"}}}
			}
			return nil
		}), "", CompleteRequest{ExternalID: "web-7"}},
		{"the cart id of another completed session", nil, "", CompleteRequest{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			f.svc.orders = tc.orders
			if tc.name == "the cart id of another completed session" {
				v, _ := f.svc.Create(t.Context(), "demo-site", createRequest())
				if _, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: v.Session.ID, Customer: customer}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.first != "" {
				req := createRequest()
				req.Cart.CartID = "other-cart"
				v, _ := f.svc.Create(t.Context(), "demo-site", req)
				if _, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: v.Session.ID, ExternalID: tc.first, Customer: customer}); err != nil {
					t.Fatal(err)
				}
			}
			v, _ := f.svc.Create(t.Context(), "demo-site", createRequest())
			tc.req.ID, tc.req.Customer = v.Session.ID, customer
			_, err := f.svc.Complete(t.Context(), "demo-site", tc.req)
			if !errors.Is(err, deliverykit.ErrConflict) || !cmp.Equal(fields(err), []string{"external_id"}) {
				t.Errorf("complete = %v, want a conflict naming external_id", err)
			}
			got, _ := f.svc.Get(t.Context(), "demo-site", v.Session.ID)
			if got.Session.Status != StatusActive || got.Session.TosID != "" {
				t.Errorf("after the refused complete: %s %q", got.Session.Status, got.Session.TosID)
			}
		})
	}
}

type checkerFunc func(ext string) error

func (f checkerFunc) CheckOrder(_ context.Context, _, ext string) error { return f(ext) }

// Coordinates the merchant sends place the search address as given; a new
// search address on update recomputes the options for it.
func TestSearchAddressOnUpdate(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	before := v.Session.SelectedShippingOption.Location.Name
	// Malmö's coordinates with a Stockholm postal code: the coordinates win.
	v, err = f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: v.Session.ID,
		SearchAddress: &SearchAddress{PostalCode: "118 26", Country: "SE", City: "Malmö", Coordinates: &Coordinates{Lat: 55.5916, Lng: 13.0079}}})
	if err != nil {
		t.Fatal(err)
	}
	s := v.Session
	if diff := cmp.Diff(&Coordinates{Lat: 55.5916, Lng: 13.0079}, s.SearchAddress.Coordinates); diff != "" {
		t.Errorf("search_address.coordinates (-want +got):\n%s", diff)
	}
	if got := s.SelectedShippingOption.Location.Address.City; got != "Malmö" || s.SelectedShippingOption.Location.Name == before {
		t.Errorf("nearest pickup point after the move: %s in %s (was %s)", s.SelectedShippingOption.Location.Name, got, before)
	}
	for _, tc := range []struct {
		c    Coordinates
		want []string
	}{
		{Coordinates{Lat: 91, Lng: 0}, []string{"search_address.coordinates.lat"}},
		{Coordinates{Lat: 0, Lng: -181}, []string{"search_address.coordinates.lng"}},
	} {
		_, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: s.ID, SearchAddress: &SearchAddress{Country: "SE", Coordinates: &tc.c}})
		if !errors.Is(err, deliverykit.ErrInvalidArgument) || !cmp.Equal(fields(err), tc.want) {
			t.Errorf("coordinates %+v: %v, want violations of %v", tc.c, err, tc.want)
		}
	}
}

func TestCreateFromOrderAndSummaries(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	req.ExternalID, req.Meta = "web-1", Meta{"channel": "web"}
	v, _ := f.svc.Create(t.Context(), "demo-site", req)
	c, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: v.Session.ID,
		Customer: &Customer{Email: "a@example.com", Address: &CustomerAddress{Name: "A", PostalCode: "118 26", Country: "SE"}}})
	if err != nil {
		t.Fatal(err)
	}
	clone, err := f.svc.CreateFromOrder(t.Context(), "demo-site", CreateFromOrderRequest{TosID: c.TosID, ExternalID: "web-1-b"})
	if err != nil {
		t.Fatal(err)
	}
	cs := clone.Session
	got := []any{cs.Status, cs.ExternalID, cs.Meta, cs.Customer.Email, cs.SearchAddress.PostalCode, cs.TosID, cs.ID == v.Session.ID}
	if diff := cmp.Diff([]any{StatusActive, "web-1-b", Meta{"channel": "web"}, "a@example.com", "118 26", "", false}, got); diff != "" {
		t.Errorf("clone (-want +got):\n%s", diff)
	}
	sum, err := f.svc.Summaries(t.Context(), "demo-site", c.TosID)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range sum.Results {
		ids = append(ids, r.SessionID)
		if r.Result == nil {
			t.Errorf("summary of %s has no result", r.SessionID)
		}
	}
	if diff := cmp.Diff([]string{v.Session.ID, cs.ID}, ids); diff != "" {
		t.Errorf("summaries (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name, site, tos string
		want            error
	}{
		{"unknown tos_id", "demo-site", "tos_nope", deliverykit.ErrNotFound},
		{"another site's tos_id", "demo-site-2", c.TosID, deliverykit.ErrNotFound},
		{"no tos_id", "demo-site", "", deliverykit.ErrInvalidArgument},
	} {
		_, err := f.svc.CreateFromOrder(t.Context(), tc.site, CreateFromOrderRequest{TosID: tc.tos})
		if !errors.Is(err, tc.want) || !cmp.Equal(fields(err), []string{"tos_id"}) {
			t.Errorf("%s: %v, want %v naming tos_id", tc.name, err, tc.want)
		}
	}
	if sum, err := f.svc.Summaries(t.Context(), "demo-site-2", c.TosID); err != nil || len(sum.Results) != 0 {
		t.Errorf("another site's summaries: %v %+v", err, sum)
	}
}

// The result carries the product's supports, the chosen addons with their
// merchant ids, and VAT per component from the catalog.
func TestResultAddonsSupportsAndVAT(t *testing.T) {
	f := newFixture(t)
	v, _ := f.svc.Create(t.Context(), "demo-site", createRequest())
	if _, err := f.svc.Select(t.Context(), v.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}}); err != nil {
		t.Fatal(err)
	}
	g, _ := f.svc.Get(t.Context(), "demo-site", v.Session.ID)
	r := g.Session.Result
	if diff := cmp.Diff(Supports{CourierInstructions: true, DoorCode: true}, r.Shipping.Supports); diff != "" {
		t.Errorf("supports (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]DeliveryAddon{{ID: "carry-in", ExternalAddonID: "ADD-CI"}}, r.Shipping.DeliveryAddons); diff != "" {
		t.Errorf("delivery_addons (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Addon{{Code: "carry-in", Name: "Inbärning", Description: "Bärs in till valfritt rum."}}, r.Shipping.Addons); diff != "" {
		t.Errorf("addons (-want +got):\n%s", diff)
	}
	if got := []int64{r.Pricing.Price, r.Pricing.NetPrice}; !cmp.Equal(got, []int64{27800, 27800 - 1580 - 3980}) {
		t.Errorf("price, net_price = %v", got)
	}
}

// Every locale the demo catalog offers gets the widget in its language:
// the catalog's names and the message catalog's texts.
func TestWidgetLanguages(t *testing.T) {
	f := newFixture(t)
	tests := []struct{ locale, category, shipping string }{
		{"sv-SE", "Utlämningsställe", "Frakt: {price}"},
		{"nb-NO", "Hentested", "Frakt: {price}"},
		{"da-DK", "Udleveringssted", "Fragt: {price}"},
		{"fi-FI", "Noutopiste", "Toimitus: {price}"},
		{"de-DE", "Abholstation", "Versand: {price}"},
		{"en-GB", "Pickup point", "Shipping: {price}"},
		{"en-US", "Pickup point", "Shipping: {price}"},
	}
	for _, tc := range tests {
		req := createRequest()
		req.Locales = []string{tc.locale}
		v, err := f.svc.Create(t.Context(), "demo-site", req)
		if err != nil {
			t.Fatal(err)
		}
		st, err := f.svc.WidgetState(t.Context(), v.Token)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{st.Categories[0].Name, st.Messages["widget.shipping"]}
		if diff := cmp.Diff([]string{tc.category, tc.shipping}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.locale, diff)
		}
	}
}

// TestCompleteRacingItsOwnOrder: when a concurrent call completed the same
// session (and its order now holds the order number) after this call read
// it, this call lost a race: it is told to repeat the call, not that its
// order number is taken.
func TestCompleteRacingItsOwnOrder(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	customer := &Customer{Address: &CustomerAddress{PostalCode: "118 26", Country: "SE"}}
	var winner *Completed
	calls := 0
	f.svc.orders = checkerFunc(func(ext string) error {
		calls++
		if calls > 1 {
			return nil // the winner's own check
		}
		// The winning call completes the session while this one is
		// between its read and its write.
		var err error
		if winner, err = f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: customer}); err != nil {
			t.Fatalf("the winning completion: %v", err)
		}
		return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already a tracking order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "taken"}}}
	})
	_, err = f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: customer})
	if !errors.Is(err, deliverykit.ErrConflict) || len(deliverykit.ViolationsOf(err)) != 0 || !strings.Contains(err.Error(), "repeat the call") {
		t.Errorf("the losing completion: %v, want a conflict saying to repeat the call", err)
	}
	if _, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: customer}); !errors.Is(err, deliverykit.ErrPermissionDenied) {
		t.Errorf("repeated: %v, want the session is completed", err)
	}
	if winner == nil || winner.TosID == "" {
		t.Errorf("winner = %+v", winner)
	}
}
