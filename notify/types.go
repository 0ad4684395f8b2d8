package notify

import (
	"context"
	"time"
)

// Status is where a notification is in its life (see the package doc).
type Status string

// Status values.
const (
	StatusPending   Status = "PENDING"
	StatusTriggered Status = "TRIGGERED"
	StatusCancelled Status = "CANCELLED"
	StatusFailed    Status = "FAILED"
)

// Channel is how a notification reaches the customer.
type Channel string

// Channel values. CEP_CHANNEL is the carrier's own customer messaging
// (courier, express and parcel services notify their receivers themselves
// when asked to); it needs no contact data here.
const (
	ChannelEmail Channel = "EMAIL"
	ChannelSMS   Channel = "SMS"
	ChannelCEP   Channel = "CEP_CHANNEL"
)

// Origin tells why a notification exists.
type Origin string

// Origin values.
const (
	OriginSystem    Origin = "SYSTEM"    // made by a rule from a parcel event
	OriginRetrigger Origin = "RETRIGGER" // made by POST /notification.retrigger
)

// Name is what a notification tells the customer.
type Name string

// Name values of the default rules.
const (
	NameConfirmedByMerchant   Name = "CONFIRMED_BY_MERCHANT"
	NameSubmittedToCarrier    Name = "SUBMITTED_TO_CARRIER"
	NameOutForDelivery        Name = "OUT_FOR_DELIVERY"
	NameDeliveryAttemptFailed Name = "DELIVERY_ATTEMPT_FAILED"
	NameReadyForPickup        Name = "READY_FOR_PICKUP"
	NamePickupReminder        Name = "PICKUP_REMINDER"
	NameDeliveredToConsumer   Name = "DELIVERED_TO_CONSUMER"
)

// Notification is a notification as GET /notifications lists it and
// POST /notification.retrigger answers it.
type Notification struct {
	ID             string  `json:"id"`
	Status         Status  `json:"status"`
	Name           Name    `json:"name"`
	Channel        Channel `json:"channel"`
	TrackingNumber string  `json:"tracking_number,omitempty"`
	ScheduledAt    string  `json:"scheduled_at,omitempty"`
	TriggeredAt    string  `json:"triggered_at,omitempty"`
	Origin         Origin  `json:"origin"`
}

// ListResponse answers GET /notifications.
type ListResponse struct {
	Notifications []Notification `json:"notifications"`
}

// RetriggerRequest is the body of POST /notification.retrigger.
type RetriggerRequest struct {
	SiteID         string `json:"site_id" validate:"max_id"`
	NotificationID string `json:"notification_id" validate:"required,max_id"`
}

// RetriggerResponse answers POST /notification.retrigger.
type RetriggerResponse struct {
	NotificationID string `json:"notification_id"`
}

// Event is a parcel change that may cause notifications. It mirrors
// tracking.Change field by field; notify does not import tracking (areas
// never import each other), so the caller copies one into the other.
type Event struct {
	Site           string
	TosID          string
	ExternalID     string
	TrackingNumber string
	// Trigger is the step or alert value, e.g. "STEP_DELIVERED_TO_CONSUMER"
	// or "ALERT_OUT_FOR_DELIVERY".
	Trigger      string
	Time         time.Time
	ReceiverName string
	Email        string
	Phone        string
	TrackingLink string
	// Locale is the order's locale ("sv-SE"); the notifications are
	// written in its language (English when empty or not translated).
	Locale string
}

// Message is what a Sender sends.
type Message struct {
	NotificationID string
	Site           string
	Name           Name
	Channel        Channel
	// Recipient is the e-mail address (EMAIL), the phone number (SMS) or
	// empty (CEP_CHANNEL).
	Recipient      string
	ReceiverName   string
	ExternalID     string
	TrackingNumber string
	TrackingLink   string
	Subject        string
	Body           string
	// Language is the language Subject and Body are written in, a BCP 47
	// language ("sv").
	Language string
}

// Sender delivers messages of one channel. A returned error marks the
// notification FAILED and schedules a retry; Send may be called again for
// the same notification after a crash (delivery is at least once).
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SenderFunc adapts a function to Sender.
type SenderFunc func(ctx context.Context, m Message) error

// Send implements Sender.
func (f SenderFunc) Send(ctx context.Context, m Message) error { return f(ctx, m) }
