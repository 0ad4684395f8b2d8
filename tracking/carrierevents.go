package tracking

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// HandleCarrierEvent is the outbox consumer of
// event.TypeCarrierEventReported: the carrier's event is recorded by
// RecordEvent, the path of POST /parcel.event, so a carrier integration
// in process and one posting over HTTP are recorded alike.
//
// A parcel not registered yet is retried (its parcel.booked may still be
// on its way); an event the step rules refuse (a step after a final one)
// will never apply, and is reported as an InvalidArgument error so that
// the outbox parks it as dead at once, with the reason, instead of
// retrying it. Recording is idempotent: an event recorded already changes
// nothing.
func (s *Service) HandleCarrierEvent(ctx context.Context, e event.Event) error {
	c, err := event.Decode[event.CarrierEventReported](e)
	if err != nil {
		return err
	}
	ev := Event{
		SiteID: e.Site, TrackingNumber: c.TrackingNumber, CarrierProductRef: c.ProductRef,
		Time: c.Time.UTC().Format(time.RFC3339), Step: Step(c.Step), Alert: AlertType(c.Alert),
		Exception: ExceptionStatus(c.Exception),
	}
	if est := c.Estimate; est != nil {
		ev.EstimatedTime = &DateTimeRange{Start: est.Earliest.UTC().Format(time.RFC3339), End: est.Latest.UTC().Format(time.RFC3339)}
	}
	err = s.RecordEvent(ctx, e.Site, ev)
	if err != nil && deliverykit.KindOf(err) == deliverykit.KindFailedPrecondition {
		return &deliverykit.Error{Kind: deliverykit.KindInvalidArgument, Err: err,
			Message: fmt.Sprintf("carrier event %s of %s will never apply: %s", e.ID, c.TrackingNumber, deliverykit.Message(err))}
	}
	return err
}
