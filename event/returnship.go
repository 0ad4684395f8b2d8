package event

import (
	"time"

	"github.com/deliverykit/deliverykit"
)

// TypeReturnShipmentRequested: a return needs a return parcel booked
// (ReturnShipmentRequested). The shipments area books it; its
// parcel.booked then reaches tracking and returns.
const TypeReturnShipmentRequested Type = "return.shipment_requested"

// ReturnShipmentRequested asks for the return parcel of a return: a
// RETURN shipment from the customer to the merchant, booked with the
// return policy's carrier product. It is written in the transaction that
// creates the return (or, for a return created before its site's policy
// named a return product, when its status page is first opened), so a
// return is never without its request, however often the booking fails.
type ReturnShipmentRequested struct {
	// ReturnID is the return's id, as the returns API shows it.
	ReturnID string `json:"return_id"`
	// ShipmentExternalID is the external id the shipment is booked under:
	// booking is idempotent by it, so a repeated request finds the first
	// shipment. The parcel.booked of the shipment carries it back.
	ShipmentExternalID string `json:"shipment_external_id"`
	// OrderExternalID is the merchant's order the goods were bought with;
	// the return parcel is tracked under it (the outbound order) and it
	// is the label's reference.
	OrderExternalID string `json:"order_external_id"`
	// ProductRef is the carrier product the parcel is booked with.
	ProductRef string `json:"product_ref"`
	// Sender is the customer and SenderAddress where the parcel comes
	// from: the order's delivery address.
	Sender        deliverykit.Contact  `json:"sender"`
	SenderAddress *deliverykit.Address `json:"sender_address,omitempty"`
	RequestedAt   time.Time            `json:"requested_at"`
}

// EventType implements Payload.
func (ReturnShipmentRequested) EventType() Type { return TypeReturnShipmentRequested }
