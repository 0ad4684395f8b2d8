package shipment

import (
	"context"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// collectedSteps are the tracking steps a carrier reports only for a
// parcel it has: the first of them is the pickup of its delivery.
var collectedSteps = map[string]bool{
	"STEP_SUBMITTED_TO_CARRIER": true, "STEP_ON_ROUTE": true, "STEP_DELIVERED_TO_PICKUP_POINT": true,
	"STEP_DELIVERED_TO_CONSUMER": true, "STEP_SENT_BACK": true, "STEP_DELIVERED_TO_MERCHANT": true,
}

// HandleCarrierEvent is the outbox consumer of
// event.TypeCarrierEventReported: a step the carrier reports only for a
// parcel it has confirms the pickup of a booked delivery at the event's
// time, as POST /deliveries.confirmPickup does, so the delivery can no
// longer be cancelled. Events of parcels that are no shipment's, and of
// deliveries cancelled or picked up already, change nothing; a delivery
// is read before anything is written, so the steps after the first cost
// no write.
func (s *Service) HandleCarrierEvent(ctx context.Context, e event.Event) error {
	c, err := event.Decode[event.CarrierEventReported](e)
	if err != nil {
		return err
	}
	if !collectedSteps[c.Step] || s.checkTrackingNumber("tracking_number", c.TrackingNumber) != nil {
		return nil
	}
	d, err := s.GetDelivery(ctx, e.Site, c.TrackingNumber)
	if deliverykit.KindOf(err) == deliverykit.KindNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if d.State != DeliveryBooked && d.State != DeliveryPickupBooked {
		return nil
	}
	_, err = s.ConfirmPickup(ctx, e.Site, ConfirmPickupRequest{TrackingNumber: c.TrackingNumber, PickedUpAt: c.Time.UTC().Format(time.RFC3339)})
	switch deliverykit.KindOf(err) {
	case deliverykit.KindNotFound, deliverykit.KindFailedPrecondition:
		return nil // cancelled meanwhile: the carrier's word changes nothing
	}
	return err
}
