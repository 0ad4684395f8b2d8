package tracking

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// TestHandleReturnParcelBooked: a RETURN parcel booked for a return is
// tracked under the outbound order it names (its external_id and tos_id),
// direction RETURN; when tracking has no such order, the order registered
// for it is the customer's (found by the customer's e-mail address), with
// the shop as its sender. Its location is the shop's address it goes
// back to.
func TestHandleReturnParcelBooked(t *testing.T) {
	customer := deliverykit.Contact{Name: "Łukasz Żółć", Email: "lukasz@example.com"}
	home := &deliverykit.Address{AddressLines: []string{"Drottninggatan 5"}, PostalCode: "11151", City: "Stockholm", Country: "SE"}
	shop := &deliverykit.Address{AddressLines: []string{"Lagervägen 1"}, PostalCode: "12162", City: "Stockholm", Country: "SE"}
	tests := []struct {
		name     string
		outbound bool // the outbound order is tracked
	}{
		{"under the outbound order", true},
		{"an order tracking never saw", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := t.Context()
			var tos string
			if tc.outbound {
				var err error
				if tos, err = f.svc.CreateOrder(ctx, "site-a", orderReq("SO-1")); err != nil {
					t.Fatal(err)
				}
			}
			ev, err := event.New("evt_1", "site-a", "CP1", t0, event.ParcelBooked{
				ShipmentID: "shp_1", DeliveryID: "shp_1-P1-D1", OrderExternalID: "SO-1", TrackingNumber: "CP000000001SE",
				ProductRef: "fastpost-home", Direction: "RETURN", DeliveryType: "DELIVERY",
				Sender: customer, SenderAddress: home, Receiver: deliverykit.Contact{Name: "Shop A"}, ReceiverAddress: shop,
				BookedAt: t0, ShipmentExternalID: "return-7", CarrierName: "FastPost",
			})
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // idempotent
				if err := f.svc.HandleParcelBooked(ctx, ev); err != nil {
					t.Fatal(err)
				}
			}
			res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "SO-1"})
			if err != nil || len(res.Orders) != 1 {
				t.Fatalf("orders %+v, %v", res, err)
			}
			o := res.Orders[0]
			if tc.outbound && o.TosID != tos {
				t.Errorf("tracked under %s, want the outbound order %s", o.TosID, tos)
			}
			var got []string
			for _, p := range o.Parcels {
				got = append(got, p.TrackingNumber+" "+string(p.DirectionType))
			}
			if diff := cmp.Diff([]string{"CP000000001SE RETURN"}, got); diff != "" {
				t.Errorf("parcels (-want +got):\n%s", diff)
			}
			// It goes back to the shop, whatever the order's pickup point.
			wantLoc := &Location{Address: &Address{Name: "Shop A", AddressLines: []string{"Lagervägen 1"}, PostalCode: "12162", City: "Stockholm", Country: "SE"}}
			if diff := cmp.Diff(wantLoc, o.Parcels[0].Location); diff != "" {
				t.Errorf("the return parcel's location (-want +got):\n%s", diff)
			}
			if !tc.outbound {
				byEmail, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Email: "lukasz@example.com"})
				if err != nil || len(byEmail.Orders) != 1 || byEmail.Orders[0].TosID != o.TosID || o.SenderName != "Shop A" {
					t.Errorf("the order is not the customer's: %+v (by e-mail %+v, %v)", o, byEmail, err)
				}
			}
		})
	}
}
