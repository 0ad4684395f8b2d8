package notify

import (
	"cmp"
	"context"

	outboxevent "github.com/deliverykit/deliverykit/event"
)

// HandleParcelChanged is the outbox consumer of event.TypeParcelChanged:
// the parcel's new step or alert is observed (Observe), which cancels and
// schedules the customer's notifications. The same event handled twice
// makes its notifications once. A return parcel's change (Direction
// RETURN) is not the customer's delivery: it notifies nobody.
func (s *Service) HandleParcelChanged(ctx context.Context, e outboxevent.Event) error {
	c, err := outboxevent.Decode[outboxevent.ParcelChanged](e)
	if err != nil {
		return err
	}
	if c.Direction == outboxevent.DirectionReturn {
		// A customer's return parcel goes to the merchant: its steps are
		// the return's (its status page, the returns webhooks), not
		// deliveries to tell the customer about.
		return nil
	}
	return s.Observe(ctx, Event{
		Site:           e.Site,
		TosID:          c.TosID,
		ExternalID:     c.ExternalID,
		TrackingNumber: c.TrackingNumber,
		Trigger:        cmp.Or(c.Alert, c.Step),
		Time:           c.Time,
		ReceiverName:   c.Receiver.Name,
		Email:          c.Receiver.Email,
		Phone:          c.Receiver.Phone,
		TrackingLink:   c.TrackingLink,
		Locale:         c.Locale,
	})
}
