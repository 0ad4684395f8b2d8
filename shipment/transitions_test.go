package shipment_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/shipment"
)

// reach makes a one-parcel, one-delivery shipment whose delivery is in
// state st, so that the shipment is in the same state.
func reach(t *testing.T, f *fixture, st shipment.DeliveryState) *shipment.Shipment {
	t.Helper()
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	if st == shipment.DeliveryCreated {
		return sh
	}
	sh = must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	switch st {
	case shipment.DeliveryPickupBooked, shipment.DeliveryPickedUp:
		sh = must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: tn, PickupWindow: pickupWindow()}))
		if st == shipment.DeliveryPickedUp {
			sh = must[*shipment.Shipment](t)(f.svc.ConfirmPickup(ctx, site, shipment.ConfirmPickupRequest{TrackingNumber: tn}))
		}
	case shipment.DeliveryCancelled:
		sh = must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: tn}))
	}
	if got := sh.Parcels[0].Deliveries[0].State; got != st {
		t.Fatalf("reached %s, want %s", got, st)
	}
	return sh
}

type op struct {
	name string
	run  func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error)
}

func tn(sh *shipment.Shipment) string { return sh.Parcels[0].Deliveries[0].TrackingNumber }

var deliveryOps = map[string]op{
	"BookParcels": {"BookParcels", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
		return f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID})
	}},
	"BookPickup": {"BookPickup", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
		later := &shipment.DateTimeRangeStrict{Start: "2026-11-23T09:00:00Z", End: "2026-11-23T12:00:00Z"}
		if tn(sh) == "" {
			return f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: sh.ID, PickupWindow: later})
		}
		return f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: tn(sh), PickupWindow: later})
	}},
	"CancelDelivery": {"CancelDelivery", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
		if tn(sh) == "" {
			return f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{DeliveryID: sh.Parcels[0].Deliveries[0].ID})
		}
		return f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: tn(sh)})
	}},
	"ConfirmPickup": {"ConfirmPickup", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
		return f.svc.ConfirmPickup(ctx, site, shipment.ConfirmPickupRequest{TrackingNumber: tn(sh), PickedUpAt: "2026-11-21T10:15:00+01:00"})
	}},
}

// TestDeliveryTransitions checks the delivery table of the package doc
// row by row, and that every other operation is refused naming the state.
func TestDeliveryTransitions(t *testing.T) {
	const fp = "failed precondition"
	cases := []struct {
		from shipment.DeliveryState
		op   string
		want string // next state, or an error kind
	}{
		{"CREATED", "BookParcels", "BOOKED"},
		{"CREATED", "CancelDelivery", "CANCELLED"},
		{"CREATED", "BookPickup", fp},
		{"BOOKED", "BookParcels", "BOOKED"},
		{"BOOKED", "BookPickup", "PICKUP_BOOKED"},
		{"BOOKED", "CancelDelivery", "CANCELLED"},
		{"BOOKED", "ConfirmPickup", "PICKED_UP"},
		{"PICKUP_BOOKED", "BookParcels", "PICKUP_BOOKED"},
		{"PICKUP_BOOKED", "BookPickup", "PICKUP_BOOKED"},
		{"PICKUP_BOOKED", "CancelDelivery", "CANCELLED"},
		{"PICKUP_BOOKED", "ConfirmPickup", "PICKED_UP"},
		{"PICKED_UP", "BookParcels", "PICKED_UP"},
		{"PICKED_UP", "BookPickup", fp},
		{"PICKED_UP", "CancelDelivery", fp},
		{"PICKED_UP", "ConfirmPickup", "PICKED_UP"},
		{"CANCELLED", "BookParcels", fp},
		{"CANCELLED", "BookPickup", fp},
		{"CANCELLED", "CancelDelivery", fp},
		{"CANCELLED", "ConfirmPickup", fp},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/%s", tc.from, tc.op), func(t *testing.T) {
			f := newFixture(t)
			sh := reach(t, f, tc.from)
			got, err := deliveryOps[tc.op].run(f, sh)
			if err != nil {
				if kindOf(err) != tc.want {
					t.Fatalf("%s: %v, want %s", tc.op, err, tc.want)
				}
				if !strings.Contains(err.Error(), " is "+string(tc.from)) {
					t.Errorf("error %q does not name the state %s", err, tc.from)
				}
				return
			}
			d := got.Parcels[0].Deliveries[0]
			if string(d.State) != tc.want {
				t.Fatalf("%s: delivery %s, want %s", tc.op, d.State, tc.want)
			}
			// One delivery: the shipment follows it.
			if string(got.State) != tc.want {
				t.Errorf("shipment %s, want %s", got.State, tc.want)
			}
			switch d.State {
			case shipment.DeliveryPickedUp:
				if d.PickedUpAt == nil {
					t.Error("picked_up_at not set")
				} else if tc.op == "ConfirmPickup" && tc.from != "PICKED_UP" && d.PickedUpAt.Format("15:04") != "09:15" {
					t.Errorf("picked_up_at %v, want the carrier's time in UTC", d.PickedUpAt)
				}
			case shipment.DeliveryCancelled:
				if d.CancelledAt == nil || got.CancelledAt == nil {
					t.Error("cancelled_at not set")
				}
			case shipment.DeliveryPickupBooked:
				if tc.op == "BookPickup" && (d.PickupWindow == nil || d.PickupWindow.Start.Day() != 23) {
					t.Errorf("pickup window %v, want the new one", d.PickupWindow)
				}
			}
		})
	}
}

// TestShipmentTransitions checks the shipment table of the package doc:
// every shipment operation in every state.
func TestShipmentTransitions(t *testing.T) {
	const fp = "failed precondition"
	ops := map[string]op{
		"BookParcels": deliveryOps["BookParcels"],
		"BookPickup": {"BookPickup", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
			later := &shipment.DateTimeRangeStrict{Start: "2026-11-23T09:00:00Z", End: "2026-11-23T12:00:00Z"}
			return f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{ShipmentID: sh.ID, PickupWindow: later})
		}},
		"AddParcel": {"AddParcel", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
			return f.svc.AddParcel(ctx, site, shipment.AddParcelRequest{ShipmentID: sh.ID, Parcel: ptr(parcel("np-home"))})
		}},
		"UpdateAttributes": {"UpdateAttributes", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
			return f.svc.Update(ctx, site, shipment.UpdateShipmentRequest{ShipmentID: sh.ID, Attributes: &map[string]string{"k": "v"}})
		}},
		"UpdateReceiver": {"UpdateReceiver", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
			r := receiver()
			r.Name = "Someone Else"
			return f.svc.Update(ctx, site, shipment.UpdateShipmentRequest{ShipmentID: sh.ID, Receiver: r})
		}},
		"CancelShipment": {"CancelShipment", func(f *fixture, sh *shipment.Shipment) (*shipment.Shipment, error) {
			return f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID})
		}},
	}
	want := map[shipment.DeliveryState]map[string]string{
		"CREATED": {"BookParcels": "BOOKED", "BookPickup": fp, "AddParcel": "CREATED",
			"UpdateAttributes": "CREATED", "UpdateReceiver": "CREATED", "CancelShipment": "CANCELLED"},
		"BOOKED": {"BookParcels": "BOOKED", "BookPickup": "PICKUP_BOOKED", "AddParcel": "BOOKED",
			"UpdateAttributes": "BOOKED", "UpdateReceiver": fp, "CancelShipment": "CANCELLED"},
		"PICKUP_BOOKED": {"BookParcels": "PICKUP_BOOKED", "BookPickup": "PICKUP_BOOKED", "AddParcel": fp,
			"UpdateAttributes": "PICKUP_BOOKED", "UpdateReceiver": fp, "CancelShipment": "CANCELLED"},
		"PICKED_UP": {"BookParcels": "PICKED_UP", "BookPickup": fp, "AddParcel": fp,
			"UpdateAttributes": "PICKED_UP", "UpdateReceiver": fp, "CancelShipment": fp},
		"CANCELLED": {"BookParcels": fp, "BookPickup": fp, "AddParcel": fp,
			"UpdateAttributes": fp, "UpdateReceiver": fp, "CancelShipment": fp},
	}
	for from, row := range want {
		for name, w := range row {
			t.Run(fmt.Sprintf("%s/%s", from, name), func(t *testing.T) {
				f := newFixture(t)
				sh := reach(t, f, from)
				got, err := ops[name].run(f, sh)
				if err != nil {
					if kindOf(err) != w {
						t.Fatalf("%s: %v, want %s", name, err, w)
					}
					if !strings.Contains(err.Error(), " is "+string(from)) {
						t.Errorf("error %q does not name the state %s", err, from)
					}
					return
				}
				if string(got.State) != w {
					t.Errorf("%s: shipment %s, want %s", name, got.State, w)
				}
				stored := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
				if stored.State != got.State {
					t.Errorf("stored state %s, returned %s", stored.State, got.State)
				}
			})
		}
	}
}
