package httpapi

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
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
