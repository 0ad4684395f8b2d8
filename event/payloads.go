package event

import (
	"time"

	"github.com/deliverykit/deliverykit"
)

// OrderCompleted is a completed checkout session, or one completed delivery
// of a delivery session: an order the customer paid for, to be tracked and,
// when the customer can be reached, returned. Both session styles describe
// it in this one shape.
type OrderCompleted struct {
	// TosID is the order id the session gave; ExternalID the merchant's
	// (order number, cart id or the tos_id).
	TosID      string `json:"tos_id"`
	ExternalID string `json:"external_id"`
	// SessionID is the session completed; Source says which kind
	// ("checkout" or "delivery_session").
	SessionID string `json:"session_id"`
	Source    string `json:"source"`
	// DeliveryID is the delivery of a delivery session this order is
	// (a checkout session is one delivery: empty).
	DeliveryID string `json:"delivery_id,omitempty"`
	// OptionID is the delivery option chosen (or preselected).
	OptionID    string    `json:"option_id"`
	CompletedAt time.Time `json:"completed_at"`
	// Locale is the customer's ("sv-SE"), or empty.
	Locale string `json:"locale,omitempty"`
	// Country is the purchase country; Currency the ISO 4217 code of
	// every amount below.
	Country  string `json:"country"`
	Currency string `json:"currency"`
	// ProductRef is the chosen carrier product's reference in the site's
	// catalog; DeliveryType the catalog's delivery type of it (home,
	// mailbox, pickup, instore).
	ProductRef   string `json:"product_ref"`
	DeliveryType string `json:"delivery_type"`
	// Warehouse is where the order ships from, when the catalog says.
	Warehouse *deliverykit.Address `json:"warehouse,omitempty"`
	// Customer and CustomerAddress are who receives the order and where.
	Customer        deliverykit.Contact  `json:"customer"`
	CustomerAddress *deliverykit.Address `json:"customer_address,omitempty"`
	// Pickup is the chosen pickup location, if any.
	Pickup *Location `json:"pickup,omitempty"`
	Cart   Cart      `json:"cart"`
	// ShippingPrice is what the customer pays for the delivery, addons
	// included, in minor units.
	ShippingPrice int64 `json:"shipping_price"`
	// Promise is the estimated delivery window, if one was shown.
	Promise *TimeRange `json:"promise,omitempty"`
	// PromiseSource says where the promise came from when the product's
	// promise is learned or blend: "learned", "blend", or "configured"
	// while too few parcels were delivered. Empty: configured.
	PromiseSource string `json:"promise_source,omitempty"`
}

// EventType implements Payload.
func (OrderCompleted) EventType() Type { return TypeOrderCompleted }

// Location is a place a parcel is picked up at.
type Location struct {
	ExternalID string `json:"external_id,omitempty"`
	// Type is the catalog's location type (locker, store, manned,
	// post_office).
	Type    string              `json:"type,omitempty"`
	Address deliverykit.Address `json:"address"`
	// Hours are the opening hours by day ("mon" … "sun"), each a list of
	// "HH:MM-HH:MM" ranges.
	Hours map[string][]string `json:"hours,omitempty"`
}

// Cart is what was bought; amounts are minor units of the order's currency.
type Cart struct {
	Total    int64  `json:"total"`
	Discount int64  `json:"discount"`
	Items    []Item `json:"items,omitempty"`
	// Vouchers are the voucher codes the purchase carried, as the
	// session has them.
	Vouchers []string `json:"vouchers,omitempty"`
}

// Item is one line of a cart or a parcel. Price and Discount are per unit,
// in minor units.
type Item struct {
	SKU      string `json:"sku,omitempty"`
	Name     string `json:"name,omitempty"`
	Quantity int64  `json:"quantity"`
	Price    int64  `json:"price"`
	Discount int64  `json:"discount,omitempty"`
	Image    string `json:"image,omitempty"`
}

// TimeRange is a window of time with both ends.
type TimeRange struct {
	Earliest time.Time `json:"earliest"`
	Latest   time.Time `json:"latest"`
}

// The directions of a parcel (ParcelBooked.Direction,
// ParcelChanged.Direction), tracking's and shipments' values.
const (
	DirectionOutbound = "OUTBOUND"
	DirectionReturn   = "RETURN"
)

// ParcelBooked is one shipment delivery booked with its carrier: a parcel
// to track.
type ParcelBooked struct {
	ShipmentID string `json:"shipment_id"`
	DeliveryID string `json:"delivery_id"`
	// OrderExternalID is the merchant's order the parcel belongs to: the
	// shipment's external id, else its id; for a RETURN shipment whose
	// attributes name the outbound order (order_external_id, as a return
	// parcel booked for the returns area does), that order's.
	OrderExternalID string `json:"order_external_id"`
	// TosID is the order the shipment was made for (its tos_id), when
	// it names one: the consumer tracks the parcel with that order.
	TosID          string `json:"tos_id,omitempty"`
	Reference      string `json:"reference,omitempty"`
	TrackingNumber string `json:"tracking_number"`
	ProductRef     string `json:"product_ref"`
	// Direction is DirectionOutbound or DirectionReturn; DeliveryType the
	// product's.
	Direction    string `json:"direction"`
	DeliveryType string `json:"delivery_type"`
	// Sender and Receiver are this leg's ends.
	Sender          deliverykit.Contact  `json:"sender"`
	SenderAddress   *deliverykit.Address `json:"sender_address,omitempty"`
	Receiver        deliverykit.Contact  `json:"receiver"`
	ReceiverAddress *deliverykit.Address `json:"receiver_address,omitempty"`
	// PickupAddress is where the receiver collects the parcel, if not at
	// home.
	PickupAddress *deliverykit.Address `json:"pickup_address,omitempty"`
	Currency      string               `json:"currency,omitempty"`
	Items         []Item               `json:"items,omitempty"`
	// LinkToken is the customer tracking link token the producer already
	// handed out for this parcel (in the delivery's tracking_link); the
	// consumer makes it name the parcel's order. Empty: no link.
	LinkToken string    `json:"link_token,omitempty"`
	BookedAt  time.Time `json:"booked_at"`
	// ShipmentExternalID is the shipment's external id, when it has one:
	// how the returns area knows its return parcels (see
	// ReturnShipmentRequested). CarrierName is the delivery's carrier.
	ShipmentExternalID string `json:"shipment_external_id,omitempty"`
	CarrierName        string `json:"carrier_name,omitempty"`
}

// EventType implements Payload.
func (ParcelBooked) EventType() Type { return TypeParcelBooked }

// ParcelChanged is a new step or an alert of a tracked parcel. Exactly one
// of Step and Alert is set.
type ParcelChanged struct {
	TosID          string `json:"tos_id"`
	ExternalID     string `json:"external_id"`
	TrackingNumber string `json:"tracking_number"`
	Step           string `json:"step,omitempty"`
	Alert          string `json:"alert,omitempty"`
	// Time is when the step happened or the alert was raised.
	Time         time.Time `json:"time"`
	DeliveryType string    `json:"delivery_type,omitempty"`
	// Receiver is the parcel receiver's contact, falling back to the
	// order receiver's.
	Receiver deliverykit.Contact `json:"receiver"`
	// TrackingLink is the customer page of the order, without a locale.
	TrackingLink string `json:"tracking_link,omitempty"`
	// Locale is the order's, empty when it was registered without one.
	Locale string `json:"locale,omitempty"`
	// Direction is the parcel's: DirectionOutbound, or DirectionReturn
	// for a customer's return parcel (whose receiver is the merchant); empty in events
	// written before it was added, which were all outbound.
	Direction string `json:"direction,omitempty"`
	// ProductRef is the parcel's carrier product; Promise the order's
	// promised delivery window (its promises' estimated_delivery_time),
	// if it has one; DestinationCountry and DestinationPostalCode where
	// the parcel goes (its pickup point's, else its receiver's, else the
	// order's destination). With them a consumer measures the promise
	// of an order registered without a checkout.
	ProductRef            string     `json:"product_ref,omitempty"`
	Promise               *TimeRange `json:"promise,omitempty"`
	DestinationCountry    string     `json:"destination_country,omitempty"`
	DestinationPostalCode string     `json:"destination_postal_code,omitempty"`
}

// EventType implements Payload.
func (ParcelChanged) EventType() Type { return TypeParcelChanged }
