package shipment_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// emitted is an outbox event as the pickup tests compare it: the
// envelope, and the payload of a delivery.picked_up.
type emitted struct {
	Type          event.Type
	Site, Subject string
	Time          time.Time
	PickedUp      *event.DeliveryPickedUp
}

func (f *fixture) emitted(t *testing.T) []emitted {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []emitted
	for _, ev := range evs {
		e := emitted{Type: ev.Type, Site: ev.Site, Subject: ev.Subject, Time: ev.Time}
		if ev.Type == event.TypeDeliveryPickedUp {
			p, err := event.Decode[event.DeliveryPickedUp](ev)
			if err != nil {
				t.Fatal(err)
			}
			e.PickedUp = &p
		}
		out = append(out, e)
	}
	return out
}

// TestPickupEvents: the first confirmed pickup of a booked delivery writes
// one delivery.picked_up in the transaction that records it, after the
// delivery's parcel.booked and under the same subject (the tracking
// number); a repeated scan and a refused confirmation write none. Each case
// also runs on a store whose transactions all run twice (the first rolled
// back): the events are the same, written once.
func TestPickupEvents(t *testing.T) {
	confirmedAt := t0.Add(time.Hour)
	scanned := time.Date(2026, 11, 21, 9, 15, 0, 0, time.UTC)
	// pickedUp is the event of sh's first delivery picked up at at.
	pickedUp := func(sh *shipment.Shipment, orderID string, at time.Time) emitted {
		d := sh.Parcels[0].Deliveries[0]
		return emitted{Type: event.TypeDeliveryPickedUp, Site: site, Subject: d.TrackingNumber, Time: at,
			PickedUp: &event.DeliveryPickedUp{ShipmentID: sh.ID, DeliveryID: d.ID, OrderExternalID: orderID,
				TrackingNumber: d.TrackingNumber, ProductRef: "np-home", PickedUpAt: at}}
	}
	bookedEv := func(sh *shipment.Shipment) emitted {
		return emitted{Type: event.TypeParcelBooked, Site: site, Subject: tn(sh), Time: t0}
	}
	confirm := func(req shipment.ConfirmPickupRequest) func(t *testing.T, f *fixture, sh *shipment.Shipment) error {
		return func(t *testing.T, f *fixture, sh *shipment.Shipment) error {
			if req.TrackingNumber == "" {
				req.TrackingNumber = tn(sh)
			}
			_, err := f.svc.ConfirmPickup(ctx, site, req)
			return err
		}
	}
	tests := []struct {
		name    string
		ext     string
		from    shipment.DeliveryState
		run     func(t *testing.T, f *fixture, sh *shipment.Shipment) error
		wantErr deliverykit.Kind
		want    func(sh *shipment.Shipment) []emitted
	}{
		{
			name: "booked, picked up now", ext: "SO-1", from: shipment.DeliveryBooked,
			run: confirm(shipment.ConfirmPickupRequest{}),
			want: func(sh *shipment.Shipment) []emitted {
				return []emitted{bookedEv(sh), pickedUp(sh, "SO-1", confirmedAt)}
			},
		},
		{
			name: "pickup booked, the carrier's scan time; no external id: the shipment id", from: shipment.DeliveryPickupBooked,
			run: confirm(shipment.ConfirmPickupRequest{PickedUpAt: "2026-11-21T10:15:00+01:00"}),
			want: func(sh *shipment.Shipment) []emitted {
				return []emitted{bookedEv(sh), pickedUp(sh, sh.ID, scanned)}
			},
		},
		{
			name: "a repeated scan writes nothing more", ext: "SO-1", from: shipment.DeliveryBooked,
			run: func(t *testing.T, f *fixture, sh *shipment.Shipment) error {
				if err := confirm(shipment.ConfirmPickupRequest{})(t, f, sh); err != nil {
					return err
				}
				f.clock.Advance(time.Hour)
				return confirm(shipment.ConfirmPickupRequest{})(t, f, sh)
			},
			want: func(sh *shipment.Shipment) []emitted {
				return []emitted{bookedEv(sh), pickedUp(sh, "SO-1", confirmedAt)}
			},
		},
		{
			name: "cancelled: refused, nothing written", ext: "SO-1", from: shipment.DeliveryCancelled,
			run: confirm(shipment.ConfirmPickupRequest{}), wantErr: deliverykit.KindFailedPrecondition,
			want: func(sh *shipment.Shipment) []emitted { return []emitted{bookedEv(sh)} },
		},
		{
			name: "another site's parcel: not found, nothing written", ext: "SO-1", from: shipment.DeliveryBooked,
			run: func(t *testing.T, f *fixture, sh *shipment.Shipment) error {
				_, err := f.svc.ConfirmPickup(ctx, "site-2", shipment.ConfirmPickupRequest{TrackingNumber: tn(sh)})
				return err
			},
			wantErr: deliverykit.KindNotFound,
			want:    func(sh *shipment.Shipment) []emitted { return []emitted{bookedEv(sh)} },
		},
		{
			name: "cancelling a booked delivery writes nothing", ext: "SO-1", from: shipment.DeliveryBooked,
			run: func(t *testing.T, f *fixture, sh *shipment.Shipment) error {
				_, err := f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: tn(sh)})
				return err
			},
			want: func(sh *shipment.Shipment) []emitted { return []emitted{bookedEv(sh)} },
		},
	}
	stores := []struct {
		name string
		open func() storage.Store
	}{
		{"memory", func() storage.Store { return memory.New() }},
		{"retried transactions", func() storage.Store { return storagetest.Retrying(memory.New()) }},
	}
	for _, st := range stores {
		for _, tc := range tests {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				f := newFixtureOn(t, st.open())
				sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request(tc.ext)))
				sh = must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
				switch tc.from {
				case shipment.DeliveryPickupBooked:
					must[*shipment.Shipment](t)(f.svc.BookPickup(ctx, site, shipment.BookPickupRequest{TrackingNumber: tn(sh), PickupWindow: pickupWindow()}))
				case shipment.DeliveryCancelled:
					must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: tn(sh)}))
				}
				f.clock.Set(confirmedAt)
				err := tc.run(t, f, sh)
				// wantErr 0 means no error (no case wants an internal one).
				if (err == nil) != (tc.wantErr == 0) || err != nil && deliverykit.KindOf(err) != tc.wantErr {
					t.Fatalf("error = %v, want kind %v", err, tc.wantErr)
				}
				if diff := cmp.Diff(tc.want(sh), f.emitted(t)); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}
