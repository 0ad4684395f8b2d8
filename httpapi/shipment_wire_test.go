package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// TestShipmentAddParcelWithoutParcelOverHTTP: shipments.addParcel with
// only shipment_id (and site_id) adds a duplicate of the first parcel:
// its weight, dimensions and carrier product, not its line items; booked
// at once on a booked shipment.
func TestShipmentAddParcelWithoutParcelOverHTTP(t *testing.T) {
	tests := []struct {
		name      string
		create    string
		wantState string
	}{
		{"created", "/shipments.create", "CREATED"},
		{"booked", "/shipments.createAndBook", "BOOKED"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newShipmentEnv(t)
			_, sh := som("POST", tt.create, "demo-key", shipmentBody).do(t, env.h)
			id := str(sh, "id")
			resp, got := som("POST", "/shipments.addParcel", "demo-key", `{"shipment_id": "`+id+`", "site_id": "demo-site"}`).do(t, env.h)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("addParcel: %d %v", resp.StatusCode, got)
			}
			p := dig(got, "parcels", 1)
			gotFacts := map[string]any{"id": dig(p, "id"), "weight": dig(p, "weight"), "dimensions": dig(p, "dimensions"),
				"line_items": dig(p, "line_items"), "product": dig(p, "deliveries", 0, "carrier_product_ref"), "state": dig(p, "deliveries", 0, "state")}
			want := map[string]any{"id": id + "-P2", "weight": 1250.0, "dimensions": map[string]any{"length": 300.0, "width": 200.0, "height": 100.0},
				"line_items": nil, "product": "np-home", "state": tt.wantState}
			if diff := cmp.Diff(want, gotFacts); diff != "" {
				t.Errorf("the added parcel (-want +got):\n%s", diff)
			}
			if tt.wantState == "BOOKED" && str(p, "deliveries", 0, "tracking_number") == "" {
				t.Errorf("the added parcel of a booked shipment has no tracking number: %v", p)
			}
		})
	}
}

// shipmentOrderFunc answers shipment.Orders with a function.
type shipmentOrderFunc func(site, tosID string) (shipment.Order, error)

func (f shipmentOrderFunc) Order(_ context.Context, site, tosID string) (shipment.Order, error) {
	return f(site, tosID)
}

// TestShipmentCreateWithTosIDOverHTTP: shipments.create with a tos_id and
// without receiver and line items takes them from the order; the answer
// names the order; an unknown tos_id is 404 naming tos_id; the booked
// parcel is tracked with the order.
func TestShipmentCreateWithTosIDOverHTTP(t *testing.T) {
	var tos string
	env := newShipmentEnvOrders(t, shipmentOrderFunc(func(site, tosID string) (shipment.Order, error) {
		if site != "demo-site" || tosID != tos {
			return shipment.Order{}, deliverykit.E(deliverykit.KindNotFound, "tracking order not found")
		}
		return shipment.Order{ExternalID: "SO-5", ShippingMethod: "np-home",
			Receiver:  &shipment.Receiver{Name: "Alva Berg", Email: "alva@example.com", Address: &shipment.Address{Street: "Storgatan", StreetNumber: "5", PostalCode: "753 20", City: "Uppsala", Country: "SE"}},
			LineItems: []shipment.LineItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900, Currency: "SEK"}}}, nil
	}))
	var err error
	tos, err = env.track.CreateOrder(t.Context(), "demo-site", tracking.CreateTrackingOrderRequest{ExternalID: "SO-5", CarrierProductRef: "np-home",
		Sender: &tracking.Sender{Name: "Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg"},
		Destination: &tracking.Destination{Address: &tracking.Address{PostalCode: "753 20", Country: "SE"}}, DeliveryType: tracking.OrderDeliveryDelivery})
	if err != nil {
		t.Fatal(err)
	}
	body := func(tosID string) string {
		return `{"tos_id": "` + tosID + `", "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
		  "parcels": [{"weight": 800}]}`
	}
	tests := []struct {
		name       string
		tosID      string
		wantStatus int
		want       map[string]any
	}{
		{"the order's", "", http.StatusOK, map[string]any{"tos_id": "", "receiver": "Alva Berg", "reference": "SO-5", "product": "np-home",
			"items": []any{map[string]any{"sku": "MUG", "name": "Mug", "quantity": 2.0, "price": 9900.0, "currency": "SEK"}}}},
		{"unknown order", "tos_nope", http.StatusNotFound, map[string]any{"field": "tos_id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.tosID
			if id == "" {
				id = tos
			}
			resp, got := som("POST", "/shipments.createAndBook", "demo-key", body(id)).do(t, env.h)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %v", resp.StatusCode, tt.wantStatus, got)
			}
			if tt.wantStatus != http.StatusOK {
				if diff := cmp.Diff(tt.want, map[string]any{"field": dig(got, "details", 0, "field")}); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				return
			}
			tt.want["tos_id"] = tos
			facts := map[string]any{"tos_id": dig(got, "tos_id"), "receiver": dig(got, "receiver", "name"), "reference": dig(got, "reference"),
				"product": dig(got, "parcels", 0, "deliveries", 0, "carrier_product_ref"), "items": dig(got, "parcels", 0, "line_items")}
			if diff := cmp.Diff(tt.want, facts); diff != "" {
				t.Errorf("the shipment (-want +got):\n%s", diff)
			}
			tn := str(got, "parcels", 0, "deliveries", 0, "tracking_number")
			res, err := env.track.Parcels(t.Context(), "demo-site", tracking.ParcelsQuery{TrackingNumber: tn})
			if err != nil {
				t.Fatal(err)
			}
			if res.TosID != tos {
				t.Errorf("parcel %s is tracked with %s, want %s", tn, res.TosID, tos)
			}
		})
	}
}
