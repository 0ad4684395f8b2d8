package shipment_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/shipment"
)

func carrierStep(t *testing.T, tn, step string, at time.Time) event.Event {
	t.Helper()
	ev, err := event.New("", site, tn, at, event.CarrierEventReported{TrackingNumber: tn, Step: step, Time: at})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// The first step a carrier reports only for a parcel it has confirms the
// pickup of a booked delivery, at the step's time; other events, other
// parcels and cancelled deliveries change nothing.
func TestHandleCarrierEvent(t *testing.T) {
	f := newFixture(t)
	booked := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, request("ORD-1", parcel("np-home"), parcel("np-home"))))
	first, second := booked.Parcels[0].Deliveries[0].TrackingNumber, booked.Parcels[1].Deliveries[0].TrackingNumber
	must[*shipment.Shipment](t)(f.svc.CancelDelivery(ctx, site, shipment.DeliveryRef{TrackingNumber: second}))
	at := t0.Add(3 * time.Hour)
	tests := []struct {
		name string
		ev   event.Event
		want []shipment.DeliveryState
	}{
		{"an event without a step", carrierStep(t, first, "", at), []shipment.DeliveryState{shipment.DeliveryBooked, shipment.DeliveryCancelled}},
		{"a parcel of no shipment", carrierStep(t, "CP000000099SE", "STEP_ON_ROUTE", at), []shipment.DeliveryState{shipment.DeliveryBooked, shipment.DeliveryCancelled}},
		{"a number of no carrier", carrierStep(t, "nonsense", "STEP_ON_ROUTE", at), []shipment.DeliveryState{shipment.DeliveryBooked, shipment.DeliveryCancelled}},
		{"a cancelled delivery", carrierStep(t, second, "STEP_SUBMITTED_TO_CARRIER", at), []shipment.DeliveryState{shipment.DeliveryBooked, shipment.DeliveryCancelled}},
		{"submitted", carrierStep(t, first, "STEP_SUBMITTED_TO_CARRIER", at), []shipment.DeliveryState{shipment.DeliveryPickedUp, shipment.DeliveryCancelled}},
		{"later steps", carrierStep(t, first, "STEP_ON_ROUTE", at.Add(time.Hour)), []shipment.DeliveryState{shipment.DeliveryPickedUp, shipment.DeliveryCancelled}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := f.svc.HandleCarrierEvent(ctx, tt.ev); err != nil {
				t.Fatal(err)
			}
			sh := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: booked.ID}))
			if diff := cmp.Diff(tt.want, states(sh)); diff != "" {
				t.Errorf("states (-want +got):\n%s", diff)
			}
		})
	}
	d := must[*shipment.Delivery](t)(f.svc.GetDelivery(ctx, site, first))
	if d.PickedUpAt == nil || !d.PickedUpAt.Equal(at) {
		t.Errorf("picked up at %v, want the submission's time %v", d.PickedUpAt, at)
	}
}
