package event

import "time"

// TypeParcelRegistered: a merchant registered a parcel of a tracking
// order through the tracking API (ParcelRegistered); parcels that
// shipments booked are reported by parcel.booked instead.
const TypeParcelRegistered Type = "parcel.registered"

// ParcelRegistered is a parcel the merchant registered with a tracking
// order (POST /parcel.create): its carrier reports it from here on. It is
// written in the transaction that stores the parcel, once per parcel (an
// identical registration repeated writes none). A test site's carrier
// simulator reads it to make a TEST<scenario> parcel travel.
type ParcelRegistered struct {
	// TosID is the tracking order, OrderExternalID the merchant's order.
	TosID           string `json:"tos_id"`
	OrderExternalID string `json:"order_external_id"`
	TrackingNumber  string `json:"tracking_number"`
	ProductRef      string `json:"product_ref"`
	// Direction is the parcel's direction_type (OUTBOUND, RETURN, …);
	// DeliveryType its delivery_type, defaulted as tracking shows it.
	Direction    string    `json:"direction"`
	DeliveryType string    `json:"delivery_type"`
	RegisteredAt time.Time `json:"registered_at"`
}

// EventType implements Payload.
func (ParcelRegistered) EventType() Type { return TypeParcelRegistered }
