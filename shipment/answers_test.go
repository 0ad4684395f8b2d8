package shipment

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// deliveries.bookPickup answers with the delivery a tracking number names,
// else with the shipment.
func TestBookPickupAnswer(t *testing.T) {
	sh := &Shipment{ID: "S1", Parcels: []Parcel{{Deliveries: []Delivery{{ID: "S1-P1-D1", TrackingNumber: "TN1"}}},
		{Deliveries: []Delivery{{ID: "S1-P2-D1", TrackingNumber: "TN2"}}}}}
	tests := []struct {
		name string
		req  BookPickupRequest
		sh   *Shipment
		want BookPickupResponse
	}{
		{"by tracking number", BookPickupRequest{TrackingNumber: "TN2"}, sh, BookPickupResponse{Delivery: &sh.Parcels[1].Deliveries[0]}},
		{"by shipment", BookPickupRequest{ShipmentID: "S1"}, sh, BookPickupResponse{Shipment: sh}},
		{"a number not in the shipment", BookPickupRequest{TrackingNumber: "TN9"}, sh, BookPickupResponse{Shipment: sh}},
		{"a failed call", BookPickupRequest{TrackingNumber: "TN1"}, nil, BookPickupResponse{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, BookPickupAnswer(tt.req, tt.sh)); diff != "" {
				t.Errorf("answer (-want +got):\n%s", diff)
			}
		})
	}
}
