package deliverykittest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/tracking"
)

// shipped is what a test reads back of a shipped checkout: the order the
// parcel went out for and the tracking order it is tracked under.
type shipped struct {
	ExternalID, Receiver, Email, ShippingMethod string
	TrackedUnder, TrackedAs                     string
	Items                                       int
}

func readShipped(t *testing.T, kit *deliverykittest.Kit, p deliverykittest.Parcel) shipped {
	t.Helper()
	res, err := kit.Services.Tracking.Parcels(t.Context(), kit.Site, tracking.ParcelsQuery{TrackingNumber: p.TrackingNumber})
	if err != nil {
		t.Fatal(err)
	}
	s := shipped{ExternalID: p.Order.ExternalID, ShippingMethod: p.ShippingMethod, TrackedUnder: res.TosID, TrackedAs: res.ExternalID, Items: len(p.Order.Items)}
	if c := p.Order.Customer; c != nil && c.Address != nil {
		s.Receiver, s.Email = c.Address.Name, c.Email
	}
	return s
}

// The checkouts Ship is given here were completed without the kit's
// CompleteCheckout: over HTTP as a shop's backend does, and in the newer
// generation with the address the shopper typed in the widget.
func TestShipAnyCompletedCheckout(t *testing.T) {
	ctx := context.Background()
	kit := deliverykittest.Start(t, deliverykittest.Options{})
	w := walker{t: t, kit: kit}
	auth := map[string]string{"Authorization": kit.BearerAuth(kit.Site)}

	// Over HTTP (/v1/siw), with the merchant's customer.
	body, _ := json.Marshal(map[string]any{"purchase_country": "SE", "purchase_currency": "SEK", "locales": []string{"sv-SE"}, "external_id": "web-7",
		"cart":           map[string]any{"total_value": 189900, "items": []map[string]any{{"sku": "tent-2p", "name": "Tent", "quantity": 1, "price": 189900, "weight": 2400}}},
		"search_address": map[string]any{"postal_code": "111 57", "country": "SE"}})
	code, _, created := w.call("POST", "/v1/siw/session.create", "application/json", body, auth)
	if code != http.StatusOK {
		t.Fatalf("session.create: %d %v", code, created)
	}
	httpID := created.(map[string]any)["session"].(map[string]any)["id"].(string)
	body, _ = json.Marshal(map[string]any{"id": httpID, "customer": map[string]any{"email": "erik@example.com", "address": map[string]any{
		"name": "Erik Lund", "address_lines": []string{"Götgatan 1"}, "city": "Stockholm", "postal_code": "118 26", "country": "SE"}}})
	code, _, done := w.call("POST", "/v1/siw/session.complete", "application/json", body, auth)
	if code != http.StatusOK {
		t.Fatalf("session.complete: %d %v", code, done)
	}
	httpTos := done.(map[string]any)["tos_id"].(string)

	// In the newer generation, the receiver entered in the widget, no
	// customer and no external id: the order is the cart's id.
	gen2 := func() (id, tos string) {
		v, err := kit.Services.Checkout.CreateCheckout(ctx, kit.Site, checkout.CheckoutCreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
			Cart: &checkout.CheckoutCart{CartID: "cart-88", TotalValue: 89900, Items: []checkout.CheckoutItem{{SKU: "bag-3s", Name: "Sleeping bag", Quantity: 1, Price: 89900, Weight: 1200}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kit.Services.Checkout.SaveAddresses(ctx, v.Token, checkout.AddressRequest{DeliveryAddress: &checkout.DeliveryAddress{
			FirstName: "Alva", LastName: "Berg", AddressLines: []string{"Storgatan 5"}, City: "Uppsala", PostalCode: "753 20", Country: "SE",
			Email: "alva@example.com", Phone: "+46701234567"}}); err != nil {
			t.Fatal(err)
		}
		c, err := kit.Services.Checkout.CompleteCheckout(ctx, kit.Site, checkout.CheckoutCompleteRequest{CheckoutSessionID: v.Session.CheckoutSessionID})
		if err != nil {
			t.Fatal(err)
		}
		return c.Session.CheckoutSessionID, c.Session.DeliveryGroups[0].TosID
	}
	gen2ID, gen2Tos := gen2()

	httpOrder := shipped{ExternalID: "web-7", Receiver: "Erik Lund", Email: "erik@example.com", ShippingMethod: "north-parcel-point", TrackedUnder: httpTos, TrackedAs: "web-7", Items: 1}
	gen2Order := shipped{ExternalID: "cart-88", Receiver: "Alva Berg", Email: "alva@example.com", ShippingMethod: "north-parcel-home", TrackedUnder: gen2Tos, TrackedAs: "cart-88", Items: 1}
	tests := []struct {
		name string
		c    deliverykittest.Checkout
		want shipped
	}{
		{"HTTP, by session id", deliverykittest.Checkout{SessionID: httpID}, httpOrder},
		{"HTTP, by tos_id", deliverykittest.Checkout{TosID: httpTos}, httpOrder},
		{"both ids", deliverykittest.Checkout{SessionID: httpID, TosID: httpTos}, httpOrder},
		{"widget address, by session id", deliverykittest.Checkout{SessionID: gen2ID}, gen2Order},
		{"widget address, by tos_id", deliverykittest.Checkout{TosID: gen2Tos}, gen2Order},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := kit.Ship(ctx, tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if p.TrackingNumber == "" || p.ShipmentID == "" {
				t.Errorf("the parcel has no tracking number or shipment: %+v", p)
			}
			if diff := cmp.Diff(tt.want, readShipped(t, kit, p)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestShipRefusesWhatIsNotACompletedCheckout(t *testing.T) {
	ctx := context.Background()
	kit := deliverykittest.Start(t, deliverykittest.Options{})
	active, err := kit.Services.Checkout.Create(ctx, kit.Site, checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"en-US"},
		Cart: &checkout.Cart{TotalValue: 89900, Items: deliverykittest.DefaultItems()[1:]}})
	if err != nil {
		t.Fatal(err)
	}
	done, err := kit.CompleteCheckout(ctx, deliverykittest.Order{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := kit.CompleteCheckout(ctx, deliverykittest.Order{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    deliverykittest.Checkout
		want deliverykit.Kind
	}{
		{"no id", deliverykittest.Checkout{}, deliverykit.KindInvalidArgument},
		{"unknown session", deliverykittest.Checkout{SessionID: "siw_unknown"}, deliverykit.KindNotFound},
		{"unknown tos_id", deliverykittest.Checkout{TosID: "tos_unknown"}, deliverykit.KindNotFound},
		{"not completed", deliverykittest.Checkout{SessionID: active.Session.ID}, deliverykit.KindFailedPrecondition},
		{"another order's tos_id", deliverykittest.Checkout{SessionID: done.SessionID, TosID: other.TosID}, deliverykit.KindInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := kit.Ship(ctx, tt.c)
			if got := deliverykit.KindOf(err); err == nil || got != tt.want {
				t.Errorf("Ship(%+v) = %v (%v), want %v", tt.c, err, got, tt.want)
			}
		})
	}
}
