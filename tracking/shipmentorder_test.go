package tracking

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// A parcel booked for a shipment made for an order (its tos_id) is
// tracked with that order, whatever the shipment's external id; a tos_id
// tracking does not have falls back to the external id.
func TestParcelBookedForOrder(t *testing.T) {
	tests := []struct {
		name      string
		tosID     string // "" none, "order" the registered order's
		extID     string
		wantOrder string // the external id of the order holding the parcel
	}{
		{"by tos_id", "order", "SH-1", "SO-1"},
		{"unknown tos_id: by external id", "tos_nope", "SO-1", "SO-1"},
		{"no tos_id: a new order", "", "SH-2", "SH-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := t.Context()
			tos, err := f.svc.CreateOrder(ctx, "site-a", orderReq("SO-1"))
			if err != nil {
				t.Fatal(err)
			}
			p := event.ParcelBooked{ShipmentID: "shp_1", DeliveryID: "shp_1-P1-D1", OrderExternalID: tt.extID, TrackingNumber: "CP000000001SE",
				ProductRef: "fastpost-home", Direction: "OUTBOUND", DeliveryType: "DELIVERY",
				Sender: deliverykit.Contact{Name: "Shop A"}, Receiver: deliverykit.Contact{Name: "Alva"},
				ReceiverAddress: &deliverykit.Address{PostalCode: "11151", Country: "SE"}, BookedAt: t0}
			p.TosID = tt.tosID
			if tt.tosID == "order" {
				p.TosID = tos
			}
			ev, err := event.New("evt_1", "site-a", "CP1", t0, p)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.svc.HandleParcelBooked(ctx, ev); err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{TrackingNumber: "CP000000001SE"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, res.ExternalID); diff != "" {
				t.Errorf("the parcel's order (-want +got):\n%s", diff)
			}
		})
	}
}

// OrderRequest answers an order of the site as registered; another
// site's or an unknown tos_id is NotFound.
func TestOrderRequest(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	req := orderReq("SO-1")
	tos, err := f.svc.CreateOrder(ctx, "site-a", req)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, site, tos string
		wantExt         string
		wantKind        deliverykit.Kind
	}{
		{"the order", "site-a", tos, "SO-1", 0},
		{"another site's", "site-b", tos, "", deliverykit.KindNotFound},
		{"unknown", "site-a", "tos_nope", "", deliverykit.KindNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.svc.OrderRequest(ctx, tt.site, tt.tos)
			if tt.wantKind != 0 {
				if k := deliverykit.KindOf(err); k != tt.wantKind {
					t.Errorf("kind = %v (%v), want %v", k, err, tt.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantExt, got.ExternalID); diff != "" {
				t.Errorf("external_id (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(req.Receiver, got.Receiver); diff != "" {
				t.Errorf("receiver (-want +got):\n%s", diff)
			}
		})
	}
}
