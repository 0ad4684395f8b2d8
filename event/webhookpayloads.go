package event

import "time"

// NotificationSettled is the shape of a customer notification that was
// sent, or whose send attempt failed (it is retried until sent or
// cancelled). It is written as a NotificationSent or a
// NotificationFailed payload, one type per event type, so that Decode
// finds the right one. It carries no recipient address: the payload goes
// to the merchant's webhooks, and the address is personal data the
// merchant already has with the order.
type NotificationSettled struct {
	NotificationID string `json:"notification_id"`
	// Name is the notification's name (ORDER_RECEIVED, OUT_FOR_DELIVERY,
	// …); Channel the channel it went through (EMAIL, SMS).
	Name    string `json:"name"`
	Channel string `json:"channel"`
	// ExternalID is the merchant's order; TrackingNumber the parcel the
	// notification is about, when it is about one.
	ExternalID     string `json:"external_id,omitempty"`
	TrackingNumber string `json:"tracking_number,omitempty"`
	// Language is the language the message was written in ("sv").
	Language string `json:"language,omitempty"`
	// Attempts counts the sends tried, the last included.
	Attempts int `json:"attempts"`
	// Error is why the last attempt failed (NotificationFailed only).
	Error string `json:"error,omitempty"`
	// At is when it was sent, or when it was given up.
	At time.Time `json:"at"`
}

// NotificationSent is a NotificationSettled that was sent.
type NotificationSent NotificationSettled

// EventType implements Payload.
func (NotificationSent) EventType() Type { return TypeNotificationSent }

// NotificationFailed is a NotificationSettled whose attempt failed.
type NotificationFailed NotificationSettled

// EventType implements Payload.
func (NotificationFailed) EventType() Type { return TypeNotificationFailed }

// DeliveryPickedUp is a booked shipment delivery the carrier collected: it
// can no longer be cancelled.
type DeliveryPickedUp struct {
	ShipmentID string `json:"shipment_id"`
	DeliveryID string `json:"delivery_id"`
	// OrderExternalID is the merchant's order the parcel belongs to (the
	// shipment's external id, else its id).
	OrderExternalID string    `json:"order_external_id"`
	TrackingNumber  string    `json:"tracking_number"`
	ProductRef      string    `json:"product_ref"`
	PickedUpAt      time.Time `json:"picked_up_at"`
}

// EventType implements Payload.
func (DeliveryPickedUp) EventType() Type { return TypeDeliveryPickedUp }

// ReturnChanged is the shape of a return after a change: created, a new
// status, items received at the warehouse, or a refund changed. It is
// written as the payload type of its event type (ReturnCreated,
// ReturnStatusChanged, ReturnItemsReceived, RefundChanged,
// ReturnComplaintDecided), so that Decode
// finds the right one. Amounts are minor units of Currency.
type ReturnChanged struct {
	// ReturnID is the return's id, as the returns API shows it.
	ReturnID string `json:"return_id"`
	// OrderExternalID is the merchant's order the return is of.
	OrderExternalID string `json:"order_external_id"`
	// Status is the return's status after the change (AWAITING_RETURN,
	// IN_TRANSIT, AWAITING_REFUND, AWAITING_EXCHANGE, COMPLETED);
	// PreviousStatus the one before, empty for a new return.
	Status         string `json:"status"`
	PreviousStatus string `json:"previous_status,omitempty"`
	Currency       string `json:"currency"`
	// Items are the return's lines as they are now.
	Items []ReturnItem `json:"items,omitempty"`
	// Refund is the return's refund, once there is one.
	Refund *Refund `json:"refund,omitempty"`
	// StatusURL is the customer's status page of the return.
	StatusURL string    `json:"status_url,omitempty"`
	ChangedAt time.Time `json:"changed_at"`
}

// ReturnItem is one line of a return.
type ReturnItem struct {
	// LineItemID is the order line's id in the merchant's system.
	LineItemID string `json:"line_item_id"`
	SKU        string `json:"sku,omitempty"`
	Quantity   int64  `json:"quantity"`
	// Status is AWAITING_RETURN, AWAITING_INSPECTION (the return parcel
	// reached the merchant, the units are not reported yet), RETURNED or
	// DECLINED; ReceivedAt when the warehouse received it.
	Status     string     `json:"status"`
	ReceivedAt *time.Time `json:"received_at,omitempty"`
	// ComplaintStatus is the status of the customer's complaint about
	// the line (PENDING, APPROVED, REJECTED), when there is one.
	ComplaintStatus string `json:"complaint_status,omitempty"`
}

// Refund is the money a return gives back.
type Refund struct {
	// Status is AWAITING_REFUND, REFUNDED or FAILED.
	Status string `json:"status"`
	Amount int64  `json:"amount"`
	// ID is the refund transaction's id as the returns API shows it;
	// TransactionStatus its own status (AWAITING_EXTERNAL_REFUND,
	// PENDING, SUCCESS, FAILED, REFUNDED); ForeignID the payout's id at
	// the merchant or refund executor, once known.
	ID                string `json:"id,omitempty"`
	TransactionStatus string `json:"transaction_status,omitempty"`
	ForeignID         string `json:"foreign_id,omitempty"`
}

// ReturnCreated is a ReturnChanged: a customer created a return.
type ReturnCreated ReturnChanged

// EventType implements Payload.
func (ReturnCreated) EventType() Type { return TypeReturnCreated }

// ReturnStatusChanged is a ReturnChanged: the return's status changed.
type ReturnStatusChanged ReturnChanged

// EventType implements Payload.
func (ReturnStatusChanged) EventType() Type { return TypeReturnStatusChanged }

// ReturnItemsReceived is a ReturnChanged: the warehouse received items.
type ReturnItemsReceived ReturnChanged

// EventType implements Payload.
func (ReturnItemsReceived) EventType() Type { return TypeReturnItemsReceived }

// RefundChanged is a ReturnChanged: the return's refund changed.
type RefundChanged ReturnChanged

// EventType implements Payload.
func (RefundChanged) EventType() Type { return TypeRefundChanged }

// ReturnComplaintDecided is a ReturnChanged: the merchant decided a
// complaint about one of the return's lines.
type ReturnComplaintDecided ReturnChanged

// EventType implements Payload.
func (ReturnComplaintDecided) EventType() Type { return TypeReturnComplaintDecided }
