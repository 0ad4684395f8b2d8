package tracking

import (
	"time"

	"github.com/deliverykit/deliverykit/internal/stored"
)

// Stored records of orders and parcels. Their types below name their JSON
// fields themselves: changing a wire type's tags changes no stored byte.
// views.go converts between them and the orderRecord and parcelRecord the
// service works with, whose requests are the wire requests.
//
// Schemas:
//   - 1: records without a schema field. Their layout is schema 2's: the
//     record types took the names the wire types had when those records
//     were written (the create requests, progress items and alerts were
//     stored as their wire types then).
//   - 2: a schema field.
//
// A change of a stored name or meaning needs a new schema number and a
// step in upgradeOrder or upgradeParcel.
const (
	orderSchema  = 2
	parcelSchema = 2
)

// orders and parcels hold the site's orders (key: site, tos_id) and
// parcels (key: site, tracking number, carrier id). Every read goes
// through upgradeOrder and upgradeParcel.
var (
	orders  = stored.Collection[orderRecord, storedOrder]{Name: "tracking.orders", Record: storeOrder, Value: loadStoredOrder}
	parcels = stored.Collection[parcelRecord, storedParcel]{Name: "tracking.parcels", Record: storeParcel, Value: loadStoredParcel}
)

// storedOrder is an order as stored.
type storedOrder struct {
	Schema      int                `json:"schema"`
	TosID       string             `json:"tos_id"`
	AnalyticsID string             `json:"analytics_id"`
	Token       string             `json:"token"`
	Request     orderRequestRecord `json:"request"`
	CreatedAt   time.Time          `json:"created_at"`
	// ActiveAt is the order's last activity, where its retention counts
	// from (see retention.go); orders stored before it was kept have
	// none and count from their parcels' times and CreatedAt.
	ActiveAt   time.Time   `json:"active_at,omitzero"`
	Parcels    []parcelRef `json:"parcels,omitempty"`
	LinkTokens []string    `json:"link_tokens,omitempty"`
	// CancelledLines are the cancelled quantities of the cart's SKUs.
	CancelledLines []cancelledLineRecord `json:"cancelled_lines,omitempty"`
}

// cancelledLineRecord is the cancelled quantity of a SKU.
type cancelledLineRecord struct {
	SKU      string `json:"sku"`
	Quantity int32  `json:"quantity"`
}

// upgradeOrder brings a record of an earlier schema to orderSchema.
func upgradeOrder(r *storedOrder) error {
	if err := stored.CheckSchema("tracking order", r.Schema, orderSchema); err != nil {
		return err
	}
	if r.Schema < 2 {
		// Schema 1 has schema 2's layout.
		r.Schema = 2
	}
	return nil
}

// storedParcel is a parcel as stored.
type storedParcel struct {
	Schema      int                 `json:"schema"`
	TosID       string              `json:"tos_id"`
	CarrierID   string              `json:"carrier_id"`
	Index       int32               `json:"index"`
	Request     parcelRequestRecord `json:"request"`
	CreatedAt   time.Time           `json:"created_at"`
	Progress    []progressRecord    `json:"progress,omitempty"`
	Alerts      []alertRecord       `json:"alerts,omitempty"`
	Estimate    *rangeRecord        `json:"estimate,omitempty"`
	LastEventAt time.Time           `json:"last_event_at,omitzero"`
	Exceptions  []exceptionRecord   `json:"exceptions,omitempty"`
}

// exceptionRecord is a parcel exception; CreatedAt is RFC 3339 as
// formatTime writes it.
type exceptionRecord struct {
	CreatedAt string          `json:"created_at"`
	Status    ExceptionStatus `json:"status"`
}

// upgradeParcel brings a record of an earlier schema to parcelSchema.
func upgradeParcel(r *storedParcel) error {
	if err := stored.CheckSchema("tracking parcel", r.Schema, parcelSchema); err != nil {
		return err
	}
	if r.Schema < 2 {
		// Schema 1 has schema 2's layout.
		r.Schema = 2
	}
	return nil
}

// orderRequestRecord is a registered order request.
type orderRequestRecord struct {
	SiteID            string             `json:"site_id"`
	ExternalID        string             `json:"external_id"`
	CarrierProductRef string             `json:"carrier_product_ref"`
	Sender            *senderRecord      `json:"sender"`
	Receiver          *receiverRecord    `json:"receiver"`
	Destination       *destinationRecord `json:"destination"`
	DeliveryType      OrderDeliveryType  `json:"delivery_type"`
	Cart              *cartRecord        `json:"cart,omitempty"`
	Promises          *promisesRecord    `json:"promises,omitempty"`
	Locale            string             `json:"locale,omitempty"`
	// MerchantTrackingLink is the order's merchant-provided link.
	MerchantTrackingLink string `json:"merchant_tracking_link,omitempty"`
}

// senderRecord is an order's or a parcel's sender.
type senderRecord struct {
	Name    string         `json:"name"`
	Address *addressRecord `json:"address,omitempty"`
}

type receiverRecord struct {
	Name           string         `json:"name"`
	Address        *addressRecord `json:"address,omitempty"`
	BillingAddress *addressRecord `json:"billing_address,omitempty"`
	Email          string         `json:"email,omitempty"`
	PhoneNumber    string         `json:"phone_number,omitempty"`
}

// addressRecord is a stored address.
type addressRecord = stored.Address

type destinationRecord struct {
	Address            *addressRecord     `json:"address"`
	LocationExternalID string             `json:"location_external_id,omitempty"`
	LocationType       PickupLocationType `json:"location_type,omitempty"`
	OperationalHours   *hoursRecord       `json:"operational_hours,omitempty"`
}

type hoursRecord struct {
	Mon []timeRangeRecord `json:"mon,omitempty"`
	Tue []timeRangeRecord `json:"tue,omitempty"`
	Wed []timeRangeRecord `json:"wed,omitempty"`
	Thu []timeRangeRecord `json:"thu,omitempty"`
	Fri []timeRangeRecord `json:"fri,omitempty"`
	Sat []timeRangeRecord `json:"sat,omitempty"`
	Sun []timeRangeRecord `json:"sun,omitempty"`
}

type timeRangeRecord struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

type cartRecord struct {
	Items         []cartItemRecord `json:"items"`
	Total         int32            `json:"total"`
	Discount      int32            `json:"discount"`
	Currency      string           `json:"currency,omitempty"`
	ShippingPrice int32            `json:"shipping_price,omitempty"`
	Tax           int32            `json:"tax,omitempty"`
}

type cartItemRecord struct {
	SKU      string `json:"sku"`
	Name     string `json:"name"`
	Quantity int32  `json:"quantity"`
	Price    int32  `json:"price"`
	Discount int32  `json:"discount"`
	Image    string `json:"image,omitempty"`
}

type promisesRecord struct {
	EstimatedDeliveryTime    *windowRecord `json:"estimated_delivery_time,omitempty"`
	EstimatedPreparationTime *windowRecord `json:"estimated_preparation_time,omitempty"`
	EstimatedSubmissionTime  *windowRecord `json:"estimated_submission_time,omitempty"`
}

// windowRecord is a promised window; both ends are set.
type windowRecord struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// parcelRequestRecord is a registered parcel request.
type parcelRequestRecord struct {
	SiteID            string                 `json:"site_id"`
	TosID             string                 `json:"tos_id"`
	TrackingNumber    string                 `json:"tracking_number"`
	CarrierProductRef string                 `json:"carrier_product_ref"`
	DirectionType     DirectionType          `json:"direction_type"`
	DeliveryType      DeliveryType           `json:"delivery_type,omitempty"`
	Attributes        map[string]any         `json:"attributes,omitempty"`
	LineItems         []parcelLineItemRecord `json:"line_items,omitempty"`
	Receiver          *parcelReceiverRecord  `json:"receiver,omitempty"`
	Sender            *senderRecord          `json:"sender,omitempty"`
}

type parcelLineItemRecord struct {
	SKU        string            `json:"sku"`
	Quantity   int32             `json:"quantity"`
	Price      int32             `json:"price"`
	Currency   string            `json:"currency"`
	Discount   int32             `json:"discount,omitempty"`
	Image      string            `json:"image,omitempty"`
	Name       string            `json:"name,omitempty"`
	Properties map[string]string `json:"properties,omitempty"`
	TotalPrice int32             `json:"total_price,omitempty"`
}

type parcelReceiverRecord struct {
	Name        string                   `json:"name"`
	Destination *parcelDestinationRecord `json:"destination"`
	Email       string                   `json:"email,omitempty"`
	PhoneNumber string                   `json:"phone_number,omitempty"`
}

type parcelDestinationRecord struct {
	Address *addressRecord `json:"address,omitempty"`
	Pickup  *pickupRecord  `json:"pickup,omitempty"`
}

type pickupRecord struct {
	ID           string             `json:"id"`
	Address      *addressRecord     `json:"address,omitempty"`
	LocationType PickupLocationType `json:"location_type,omitempty"`
}

// progressRecord is a step of a parcel's history. Times are RFC 3339 as
// formatTime writes them.
type progressRecord struct {
	Step          Step         `json:"step"`
	Time          string       `json:"time"`
	EstimatedTime *rangeRecord `json:"estimated_time,omitempty"`
}

// rangeRecord is a window whose ends may be absent.
type rangeRecord struct {
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`
}

// alertRecord is a reported or event-derived alert; one payload is set,
// named after the type.
type alertRecord struct {
	Type                         AlertType              `json:"type"`
	CreatedAt                    string                 `json:"created_at"`
	AwaitingSupplier             *estimatePayloadRecord `json:"awaiting_supplier,omitempty"`
	Linehaul                     *estimatePayloadRecord `json:"linehaul,omitempty"`
	DeliveryAttemptFailed        *present               `json:"delivery_attempt_failed,omitempty"`
	DeliveryDelayed              *present               `json:"delivery_delayed,omitempty"`
	DeliveryDelayedFromCarrier   *present               `json:"delivery_delayed_from_carrier,omitempty"`
	EstimatedDeliveryTimeUpdated *present               `json:"estimated_delivery_time_updated,omitempty"`
	OutForDelivery               *present               `json:"out_for_delivery,omitempty"`
	SubmissionDelayed            *present               `json:"submission_delayed,omitempty"`
}

// present is a payload without content: stored as {} when set.
type present struct{}

type estimatePayloadRecord struct {
	EstimatedTime      *estimatedTimeRecord `json:"estimated_time,omitempty"`
	EstimatedTimeRange *rangeRecord         `json:"estimated_time_range,omitempty"`
}

type estimatedTimeRecord struct {
	Earliest string `json:"earliest,omitempty"`
	Latest   string `json:"latest,omitempty"`
}
