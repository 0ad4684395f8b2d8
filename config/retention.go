package config

import (
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
)

// Retention says how many days records are kept once they are no longer
// in use; the background sweep (package retention) deletes them then. A
// missing member is its default; 0 keeps the records forever.
//
//	"retention": {"active_session_days": 7, "completed_session_days": 90, "dead_event_days": 30, "tracking_days": 180,
//		"webhook_delivery_days": 30, "shipment_days": 730, "return_days": 730, "idempotency_key_hours": 24}
type Retention struct {
	// ActiveSessionDays is how long an ACTIVE checkout session is kept
	// after its expires_at, with its widget token, and an ACTIVE delivery
	// session after its last change. Default 7; 0 keeps them forever.
	ActiveSessionDays *int `json:"active_session_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=7"`
	// CompletedSessionDays is how long a COMPLETED checkout or delivery
	// session is kept after its completion. Default 90; 0 keeps them
	// forever.
	CompletedSessionDays *int `json:"completed_session_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=90"`
	// DeadEventDays is how long an event the outbox could not deliver
	// is kept after it died, for the dead-event list and retries.
	// Delivered events are deleted when delivered. Default 30; 0 keeps
	// them forever.
	DeadEventDays *int `json:"dead_event_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=30"`
	// TrackingDays is how long a tracking order is kept after its last
	// activity (its registration, a parcel's, the last carrier event or
	// the delivery), with its parcels and tracking links, and how long a
	// notification is kept after it was sent, failed for good or was
	// cancelled. Default 180; 0 keeps them forever.
	TrackingDays *int `json:"tracking_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=180"`
	// WebhookDeliveryDays is how long a webhook delivery is kept after it
	// was delivered or died, for the deliveries list and redelivery.
	// Default 30; 0 keeps them forever.
	WebhookDeliveryDays *int `json:"webhook_delivery_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=30"`
	// ShipmentDays is how long a shipment is kept after its last change
	// (booking, pickup, carrier event, cancellation), whatever its state:
	// merchants need shipments for their bookkeeping. Default 730 (two
	// years); 0 keeps them forever.
	ShipmentDays *int `json:"shipment_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=730"`
	// ReturnDays is how long a return is kept after its last change (its
	// refunds' and complaints' included), whatever its state, with its
	// refunds, complaint photos and status links: merchants need returns
	// for their bookkeeping. A site's returns go in the order they were
	// made, so a return may stay until its site's older ones have gone.
	// Default 730 (two years); 0 keeps them forever.
	ReturnDays *int `json:"return_days,omitempty" jsonschema:"minimum=0,maximum=36500,default=730"`
	// IdempotencyKeyHours is how long the answer to a call with an
	// Idempotency-Key is kept and given again to a repeat of the call,
	// in hours. Default 24; 0 keeps them forever.
	IdempotencyKeyHours *int `json:"idempotency_key_hours,omitempty" jsonschema:"minimum=0,maximum=876000,default=24"`
}

// maxRetentionDays bounds a retention: a hundred years is forever.
const maxRetentionDays = 36500

// Policy is the retention r configures; a nil r is every default.
func (r *Retention) Policy() retention.Policy {
	if r == nil {
		return retention.Policy{}
	}
	return retention.Policy{ActiveSessions: days(r.ActiveSessionDays), CompletedSessions: days(r.CompletedSessionDays),
		DeadEvents: days(r.DeadEventDays), Tracking: days(r.TrackingDays),
		WebhookDeliveries: days(r.WebhookDeliveryDays), Shipments: days(r.ShipmentDays), Returns: days(r.ReturnDays),
		IdempotencyKeys: hours(r.IdempotencyKeyHours)}
}

// days is a Policy duration: nil is the default (0), 0 is Never.
func days(n *int) time.Duration {
	switch {
	case n == nil:
		return 0
	case *n == 0:
		return retention.Never
	}
	return time.Duration(*n) * 24 * time.Hour
}

// hours is days for a policy counted in hours.
func hours(n *int) time.Duration {
	if n != nil && *n > 0 {
		return time.Duration(*n) * time.Hour
	}
	return days(n)
}

func (r *Retention) violations() []deliverykit.FieldViolation {
	if r == nil {
		return nil
	}
	var vs []deliverykit.FieldViolation
	for _, f := range []struct {
		name string
		n    *int
	}{
		{"retention.active_session_days", r.ActiveSessionDays},
		{"retention.completed_session_days", r.CompletedSessionDays},
		{"retention.dead_event_days", r.DeadEventDays},
		{"retention.tracking_days", r.TrackingDays},
		{"retention.webhook_delivery_days", r.WebhookDeliveryDays},
		{"retention.shipment_days", r.ShipmentDays},
		{"retention.return_days", r.ReturnDays},
	} {
		if f.n != nil && (*f.n < 0 || *f.n > maxRetentionDays) {
			vs = append(vs, deliverykit.FieldViolation{Field: f.name, Rule: "range",
				Message: fmt.Sprintf("must be between 0 (keep forever) and %d days", maxRetentionDays)})
		}
	}
	if n := r.IdempotencyKeyHours; n != nil && (*n < 0 || *n > 24*maxRetentionDays) {
		vs = append(vs, deliverykit.FieldViolation{Field: "retention.idempotency_key_hours", Rule: "range",
			Message: fmt.Sprintf("must be between 0 (keep forever) and %d hours", 24*maxRetentionDays)})
	}
	return vs
}
