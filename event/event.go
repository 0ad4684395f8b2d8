// Package event is the vocabulary of what happens in one area of
// deliverykit and matters to another: a checkout or delivery session was
// completed, a shipment delivery was booked, a parcel moved, a return
// changed. Producers write an Event in the same storage transaction as the
// change it reports (package outbox); consumers receive it afterwards, at
// least once, and take the payload as it is. No area imports another: they
// meet here.
//
// An Event is an envelope: who (Site), what (Type), about which resource
// (Subject), when (Time), and a JSON payload of the type's payload struct.
//
//	ev, err := event.New("", site, order.TosID, now, order) // the outbox gives the id
//	...
//	order, err := event.Decode[event.OrderCompleted](ev)
//
// Payloads are stored: a field is added with a zero value that means what
// the payload meant before, and never renamed or removed.
package event

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
)

// Type names what happened. Types are API: webhook subscriptions name
// them.
type Type string

// The event types.
const (
	// TypeOrderCompleted: a checkout session or a delivery of a delivery
	// session was completed and is now an order (OrderCompleted).
	TypeOrderCompleted Type = "order.completed"
	// TypeParcelBooked: a shipment delivery was booked with its carrier
	// (ParcelBooked).
	TypeParcelBooked Type = "parcel.booked"
	// TypeParcelChanged: a tracked parcel has a new step or alert
	// (ParcelChanged).
	TypeParcelChanged Type = "parcel.changed"
	// TypeNotificationSent and TypeNotificationFailed: a customer
	// notification was sent, or an attempt to send it failed
	// (NotificationSettled).
	TypeNotificationSent   Type = "notification.sent"
	TypeNotificationFailed Type = "notification.failed"
	// TypeDeliveryPickedUp: the carrier collected a booked delivery
	// (DeliveryPickedUp).
	TypeDeliveryPickedUp Type = "delivery.picked_up"
	// TypeReturnCreated, TypeReturnStatusChanged, TypeReturnItemsReceived
	// and TypeRefundChanged report returns and refunds (ReturnChanged).
	TypeReturnCreated       Type = "return.created"
	TypeReturnStatusChanged Type = "return.status_changed"
	TypeReturnItemsReceived Type = "return.items_received"
	TypeRefundChanged       Type = "refund.changed"
	// TypeReturnComplaintDecided: the merchant approved or rejected a
	// customer's complaint about a returned line (ReturnChanged, the
	// line's items[].complaint_status).
	TypeReturnComplaintDecided Type = "return.complaint_decided"
)

// Types lists every type, in the order above (then the carrier's, in
// carrier.go, the return shipment's, in returnship.go, the complaint
// decision's, and the registered parcel's, in parcelregistered.go).
var Types = []Type{
	TypeOrderCompleted, TypeParcelBooked, TypeParcelChanged, TypeNotificationSent, TypeNotificationFailed,
	TypeDeliveryPickedUp, TypeReturnCreated, TypeReturnStatusChanged, TypeReturnItemsReceived, TypeRefundChanged,
	TypeCarrierEventReported, TypeReturnShipmentRequested, TypeReturnComplaintDecided, TypeParcelRegistered,
}

// Known reports whether t is one of Types.
func Known(t Type) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// Event is one thing that happened, as stored in the outbox and handed to
// consumers.
type Event struct {
	// ID is unique and sorts in creation order: to the millisecond, and
	// strictly among the events of one subject a process writes (see
	// package outbox); consumers use it to apply an event once.
	ID   string `json:"id"`
	Type Type   `json:"type"`
	// Site is the tenant the event belongs to.
	Site string `json:"site"`
	// Subject is the resource the event is about (a tos_id, a tracking
	// number, a return id): events of one subject are delivered to
	// webhooks in order.
	Subject string          `json:"subject"`
	Time    time.Time       `json:"time"`
	Payload json.RawMessage `json:"payload"`
}

// Payload is implemented by the payload structs of this package.
type Payload interface {
	// EventType is the Type whose payload this is.
	EventType() Type
}

// New makes the event of payload p.
func New(id, site, subject string, at time.Time, p Payload) (Event, error) {
	body, err := json.Marshal(p)
	if err != nil {
		return Event{}, fmt.Errorf("event: encoding %s: %w", p.EventType(), err)
	}
	return Event{ID: id, Type: p.EventType(), Site: site, Subject: subject, Time: at.UTC(), Payload: body}, nil
}

// Decode reads e's payload as a T. An event of another type is an
// InvalidArgument error: a consumer was registered for the wrong type.
func Decode[T Payload](e Event) (T, error) {
	var p T
	if e.Type != p.EventType() {
		return p, deliverykit.Errorf(deliverykit.KindInvalidArgument, "event %s is a %s, not a %s", e.ID, e.Type, p.EventType())
	}
	if err := json.Unmarshal(e.Payload, &p); err != nil {
		return p, deliverykit.Errorf(deliverykit.KindInvalidArgument, "event %s: decoding its %s payload: %v", e.ID, e.Type, err)
	}
	return p, nil
}
