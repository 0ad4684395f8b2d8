package tracking

import (
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
)

// Wire types of area A: the tracking orders and parcels merchants register
// and the views they read. JSON names are those existing tracking clients
// send and expect; optional fields carry omitempty so that zero values are
// omitted on output.
// Timestamps are RFC 3339 strings on the wire and are kept as strings in
// request types, so that a malformed one is reported by the validator with
// its JSON path instead of failing the whole decode.

// Address is a postal address. All fields are optional.
type Address = deliverykit.Address

// Coordinates is a point in WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// DateTimeRange is a time window whose ends may be absent.
type DateTimeRange struct {
	Start string `json:"start,omitempty" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
	End   string `json:"end,omitempty" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
}

// DateTimeRangeStrict is a time window with both ends.
type DateTimeRangeStrict struct {
	Start string `json:"start" validate:"required,datetime=2006-01-02T15:04:05Z07:00"`
	End   string `json:"end" validate:"required,datetime=2006-01-02T15:04:05Z07:00"`
}

// EstimatedTime is an estimate window.
type EstimatedTime struct {
	Earliest string `json:"earliest,omitempty"`
	Latest   string `json:"latest,omitempty"`
}

// TimeRange is an opening interval within a day, "HH:MM:SS" at both ends.
type TimeRange struct {
	Start string `json:"start" validate:"required,hhmmss"`
	End   string `json:"end" validate:"required,hhmmss"`
}

// AlertType is the kind of a parcel alert.
type AlertType string

// AlertType values.
const (
	AlertUndefined                    AlertType = "ALERT_UNDEFINED"
	AlertDeliveryDelayed              AlertType = "ALERT_DELIVERY_DELAYED"
	AlertEstimatedDeliveryTimeUpdated AlertType = "ALERT_ESTIMATED_DELIVERY_TIME_UPDATED"
	AlertDeliveryAttemptFailed        AlertType = "ALERT_DELIVERY_ATTEMPT_FAILED"
	AlertOutForDelivery               AlertType = "ALERT_OUT_FOR_DELIVERY"
	AlertSubmissionDelayed            AlertType = "ALERT_SUBMISSION_DELAYED"
	AlertDeliveryDelayedFromCarrier   AlertType = "ALERT_DELIVERY_DELAYED_FROM_CARRIER"
	AlertAwaitingSupplier             AlertType = "ALERT_AWAITING_SUPPLIER"
	AlertLinehaulToCarrier            AlertType = "ALERT_LINEHAUL_TO_CARRIER"
)

// OrderDeliveryType is how an order reaches the customer
// (CreateTrackingOrderRequestDeliveryType).
type OrderDeliveryType string

// OrderDeliveryType values.
const (
	OrderDeliveryUnknown  OrderDeliveryType = "UNKNOWN"
	OrderDeliveryDelivery OrderDeliveryType = "DELIVERY"
	OrderDeliveryPickup   OrderDeliveryType = "PICKUP"
	OrderDeliveryInstore  OrderDeliveryType = "INSTORE"
)

// DeliveryType is how a parcel reaches its receiver.
type DeliveryType string

// DeliveryType values.
const (
	DeliveryUnknown     DeliveryType = "UNKNOWN"
	DeliveryDelivery    DeliveryType = "DELIVERY"
	DeliveryPickup      DeliveryType = "PICKUP"
	DeliveryMailbox     DeliveryType = "MAILBOX"
	DeliveryInstore     DeliveryType = "INSTORE"
	DeliveryInwarehouse DeliveryType = "INWAREHOUSE"
)

// DirectionType tells outbound parcels from returns.
type DirectionType string

// DirectionType values.
const (
	DirectionUnknown     DirectionType = "UNKNOWN_DIRECTION_TYPE"
	DirectionOutbound    DirectionType = "OUTBOUND"
	DirectionReturn      DirectionType = "RETURN"
	DirectionUnspecified DirectionType = "UNSPECIFIED"
)

// PickupLocationType is the kind of a pickup location. The order
// destination accepts a subset (UNKNOWN_PICKUP_LOCATION_TYPE, LOCKER, STORE,
// MANNED); parcels accept all values.
type PickupLocationType string

// PickupLocationType values.
const (
	PickupUnknown         PickupLocationType = "UNKNOWN_PICKUP_LOCATION_TYPE"
	PickupLocker          PickupLocationType = "LOCKER"
	PickupStore           PickupLocationType = "STORE"
	PickupPostOffice      PickupLocationType = "POSTOFFICE"
	PickupManned          PickupLocationType = "MANNED"
	PickupAgeVerification PickupLocationType = "AGE_VERIFICATION"
	PickupIndoor          PickupLocationType = "INDOOR"
)

// Step is a progress step of a parcel. The legal sequences are in the
// package documentation.
type Step string

// Step values.
const (
	StepUnknown                Step = "STEP_UNKNOWN"
	StepConfirmedByMerchant    Step = "STEP_CONFIRMED_BY_MERCHANT"
	StepPreparedByMerchant     Step = "STEP_PREPARED_BY_MERCHANT"
	StepSubmittedToCarrier     Step = "STEP_SUBMITTED_TO_CARRIER"
	StepOnRoute                Step = "STEP_ON_ROUTE"
	StepDeliveredToPickupPoint Step = "STEP_DELIVERED_TO_PICKUP_POINT"
	StepDeliveredToConsumer    Step = "STEP_DELIVERED_TO_CONSUMER"
	StepTerminated             Step = "STEP_TERMINATED"
	StepSentBack               Step = "STEP_SENT_BACK"
	StepReturnRequested        Step = "STEP_RETURN_REQUESTED"
	StepDeliveredToMerchant    Step = "STEP_DELIVERED_TO_MERCHANT"
	StepAwaitingSupplier       Step = "STEP_AWAITING_SUPPLIER"
	StepLinehaulToCarrier      Step = "STEP_LINEHAUL_TO_CARRIER"
	StepReturnApproved         Step = "STEP_RETURN_APPROVED"
	StepReturnDeclined         Step = "STEP_RETURN_DECLINED"
	StepReturnCompleted        Step = "STEP_RETURN_COMPLETED"
	StepReplacementSent        Step = "STEP_REPLACEMENT_SENT"
	StepReturnCancelled        Step = "STEP_RETURN_CANCELLED"
)

// LinkType is the kind of a tracking link.
type LinkType string

// LinkType values.
const (
	LinkUnknown          LinkType = "UNKNOWN_LINK_TYPE"
	LinkServicePortal    LinkType = "SERVICE_PORTAL_LINK"
	LinkMerchantProvided LinkType = "MERCHANT_PROVIDED_LINK"
)

// CreateTrackingOrderRequest registers a tracking order (POST /order).
type CreateTrackingOrderRequest struct {
	SiteID            string            `json:"site_id" validate:"required,max_id"`
	ExternalID        string            `json:"external_id" validate:"required,max_ref,keysafe"`
	CarrierProductRef string            `json:"carrier_product_ref" validate:"required,max_id,keysafe"`
	Sender            *Sender           `json:"sender" validate:"required"`
	Receiver          *Receiver         `json:"receiver" validate:"required"`
	Destination       *Destination      `json:"destination" validate:"required"`
	DeliveryType      OrderDeliveryType `json:"delivery_type" validate:"required,oneof=UNKNOWN DELIVERY PICKUP INSTORE"`
	Cart              *Cart             `json:"cart,omitempty" validate:"omitempty"`
	Promises          *Promises         `json:"promises,omitempty" validate:"omitempty"`
	// Locale (an extension) is the customer's locale ("sv-SE"), as the
	// checkout knew it: notifications are written in it, and the
	// customer page uses it when the link names none.
	Locale string `json:"locale,omitempty" validate:"omitempty,max=35"`
	// MerchantTrackingLink (an extension) is the merchant's own page
	// about this order (an https URL), listed in tracking_links as
	// MERCHANT_PROVIDED_LINK; it wins over the site's link template.
	MerchantTrackingLink string `json:"merchant_tracking_link,omitempty" validate:"omitempty,httpsurl"`
}

// Sender is the merchant side of an order.
type Sender struct {
	Name    string   `json:"name" validate:"required,max_name"`
	Address *Address `json:"address,omitempty" validate:"omitempty"`
}

// Receiver is the customer of an order.
type Receiver struct {
	Name           string   `json:"name" validate:"required,max_name"`
	Address        *Address `json:"address,omitempty" validate:"omitempty"`
	BillingAddress *Address `json:"billing_address,omitempty" validate:"omitempty"`
	Email          string   `json:"email,omitempty" validate:"omitempty,max_email,email"`
	PhoneNumber    string   `json:"phone_number,omitempty" validate:"max_code"`
}

// Destination is where an order goes.
type Destination struct {
	Address            *Address           `json:"address" validate:"required"`
	LocationExternalID string             `json:"location_external_id,omitempty" validate:"max_ref"`
	LocationType       PickupLocationType `json:"location_type,omitempty" validate:"omitempty,oneof=UNKNOWN_PICKUP_LOCATION_TYPE LOCKER STORE MANNED"`
	OperationalHours   *OperationalHours  `json:"operational_hours,omitempty" validate:"omitempty"`
}

// OperationalHours lists the opening intervals of each weekday. A day
// without intervals is closed; several intervals express breaks.
type OperationalHours struct {
	Mon []TimeRange `json:"mon,omitempty" validate:"max_opening_ranges,dive"`
	Tue []TimeRange `json:"tue,omitempty" validate:"max_opening_ranges,dive"`
	Wed []TimeRange `json:"wed,omitempty" validate:"max_opening_ranges,dive"`
	Thu []TimeRange `json:"thu,omitempty" validate:"max_opening_ranges,dive"`
	Fri []TimeRange `json:"fri,omitempty" validate:"max_opening_ranges,dive"`
	Sat []TimeRange `json:"sat,omitempty" validate:"max_opening_ranges,dive"`
	Sun []TimeRange `json:"sun,omitempty" validate:"max_opening_ranges,dive"`
}

// days returns the weekdays in order with their JSON names.
func (h *OperationalHours) days() []struct {
	name   string
	ranges []TimeRange
} {
	return []struct {
		name   string
		ranges []TimeRange
	}{{"mon", h.Mon}, {"tue", h.Tue}, {"wed", h.Wed}, {"thu", h.Thu}, {"fri", h.Fri}, {"sat", h.Sat}, {"sun", h.Sun}}
}

// Cart is what the customer bought. Amounts are minor units.
type Cart struct {
	Items         []CartItem `json:"items" validate:"required,max_cart_items,dive"`
	Total         int32      `json:"total" validate:"gte=0"`
	Discount      int32      `json:"discount" validate:"gte=0"`
	Currency      string     `json:"currency,omitempty" validate:"omitempty,iso4217"`
	ShippingPrice int32      `json:"shipping_price,omitempty" validate:"gte=0"`
	Tax           int32      `json:"tax,omitempty" validate:"gte=0"`
}

// CartItem is one SKU of a cart. Price is one item with discounts applied;
// Discount is the discount on one item.
type CartItem struct {
	SKU      string `json:"sku" validate:"required,max_id"`
	Name     string `json:"name" validate:"required,max_title"`
	Quantity int32  `json:"quantity" validate:"gt=0"`
	Price    int32  `json:"price" validate:"gte=0"`
	Discount int32  `json:"discount" validate:"gte=0"`
	Image    string `json:"image,omitempty" validate:"omitempty,httpsurl"`
}

// Promises are the merchant's delivery promises shown to the customer and
// used to derive delay alerts.
type Promises struct {
	EstimatedDeliveryTime    *DateTimeRangeStrict `json:"estimated_delivery_time,omitempty" validate:"omitempty"`
	EstimatedPreparationTime *DateTimeRangeStrict `json:"estimated_preparation_time,omitempty" validate:"omitempty"`
	EstimatedSubmissionTime  *DateTimeRangeStrict `json:"estimated_submission_time,omitempty" validate:"omitempty"`
}

// CreateTrackingOrderResponse answers POST /order.
type CreateTrackingOrderResponse struct {
	ID string `json:"id"`
}

// CreateParcelRequest registers a parcel of an order (POST /parcel).
type CreateParcelRequest struct {
	SiteID            string           `json:"site_id" validate:"required,max_id"`
	TosID             string           `json:"tos_id" validate:"required,max_id,keysafe"`
	TrackingNumber    string           `json:"tracking_number" validate:"required,max_id,keysafe"`
	CarrierProductRef string           `json:"carrier_product_ref" validate:"required,max_id,keysafe"`
	DirectionType     DirectionType    `json:"direction_type" validate:"required,oneof=UNKNOWN_DIRECTION_TYPE OUTBOUND RETURN UNSPECIFIED"`
	DeliveryType      DeliveryType     `json:"delivery_type,omitempty" validate:"omitempty,oneof=UNKNOWN DELIVERY PICKUP MAILBOX INSTORE INWAREHOUSE"`
	Attributes        map[string]any   `json:"attributes,omitempty" validate:"max_parcel_attributes,dive,keys,max_id,endkeys,omitempty,jsonsize=1024"`
	LineItems         []ParcelLineItem `json:"line_items,omitempty" validate:"max_parcel_line_items,dive"`
	Receiver          *ParcelReceiver  `json:"receiver,omitempty" validate:"omitempty"`
	Sender            *ParcelSender    `json:"sender,omitempty" validate:"omitempty"`
}

// ParcelReceiver is who receives a parcel and where.
type ParcelReceiver struct {
	Name        string             `json:"name" validate:"required,max_name"`
	Destination *ParcelDestination `json:"destination" validate:"required"`
	Email       string             `json:"email,omitempty" validate:"omitempty,max_email,email"`
	PhoneNumber string             `json:"phone_number,omitempty" validate:"max_code"`
}

// ParcelDestination is a home address and/or a pickup point.
type ParcelDestination struct {
	Address *Address `json:"address,omitempty" validate:"omitempty"`
	Pickup  *Pickup  `json:"pickup,omitempty" validate:"omitempty"`
}

// Pickup is a pickup point at the carrier.
type Pickup struct {
	ID           string             `json:"id" validate:"required,max_id"`
	Address      *Address           `json:"address,omitempty" validate:"omitempty"`
	LocationType PickupLocationType `json:"location_type,omitempty" validate:"omitempty,oneof=UNKNOWN_PICKUP_LOCATION_TYPE LOCKER STORE POSTOFFICE MANNED AGE_VERIFICATION INDOOR"`
}

// ParcelSender is who sends a parcel.
type ParcelSender struct {
	Name    string   `json:"name" validate:"required,max_name"`
	Address *Address `json:"address,omitempty" validate:"omitempty"`
}

// ParcelLineItem is one SKU in a parcel. PrivateParcel.line_items has the
// same shape.
type ParcelLineItem struct {
	SKU        string            `json:"sku" validate:"required,max_id"`
	Quantity   int32             `json:"quantity" validate:"gt=0"`
	Price      int32             `json:"price" validate:"gte=0"`
	Currency   string            `json:"currency" validate:"required,iso4217"`
	Discount   int32             `json:"discount,omitempty" validate:"gte=0"`
	Image      string            `json:"image,omitempty" validate:"omitempty,httpsurl"`
	Name       string            `json:"name,omitempty" validate:"max_title"`
	Properties map[string]string `json:"properties,omitempty" validate:"max_item_properties,dive,keys,max_id,endkeys,max_name"`
	TotalPrice int32             `json:"total_price,omitempty" validate:"gte=0"`
}

// GenerateTrackingPageLinkRequest asks for a customer-facing link.
type GenerateTrackingPageLinkRequest struct {
	SiteID         string `json:"site_id" validate:"required,max_id"`
	Locale         string `json:"locale" validate:"required,max_locale"`
	OrderID        string `json:"order_id,omitempty" validate:"max_ref"`
	TrackingNumber string `json:"tracking_number,omitempty" validate:"max_id"`
	// Rotate (an extension) gives the order a new token: links handed out
	// before stop working, for example after one was forwarded to the
	// wrong person.
	Rotate bool `json:"rotate,omitempty"`
}

// GenerateTrackingPageLinkResponse answers POST /generate_tracking_page_link.
type GenerateTrackingPageLinkResponse struct {
	TrackingLink  string         `json:"tracking_link"`
	TrackingLinks *TrackingLinks `json:"tracking_links"`
	// ExpiresAt (an extension) is when the portal link stops working
	// unless handed out again (RFC 3339).
	ExpiresAt string `json:"expires_at,omitempty"`
}

// TrackingLinks holds at least the portal link.
type TrackingLinks struct {
	Links []TrackingLink `json:"links"`
}

// TrackingLink is one typed link.
type TrackingLink struct {
	Type LinkType `json:"type"`
	URL  string   `json:"url"`
}

// GetTrackingOrdersResponse answers GET /orders.
type GetTrackingOrdersResponse struct {
	Orders []PrivateOrder `json:"orders"`
}

// GetTrackingParcelsResponse answers GET /parcels.
type GetTrackingParcelsResponse struct {
	ExternalID    string           `json:"external_id,omitempty"`
	TosID         string           `json:"tos_id,omitempty"`
	TrackingLink  string           `json:"tracking_link,omitempty"`
	TrackingLinks *TrackingLinks   `json:"tracking_links,omitempty"`
	Parcels       []TrackingParcel `json:"parcels"`
}

// PrivateOrder is an order as the merchant reads it.
type PrivateOrder struct {
	AnalyticsID            string            `json:"analytics_id"`
	Cart                   *PrivateOrderCart `json:"cart,omitempty"`
	ExternalID             string            `json:"external_id,omitempty"`
	Items                  []DisplayItem     `json:"items,omitempty"` // deprecated: use Cart
	Parcels                []PrivateParcel   `json:"parcels,omitempty"`
	PreselectedParcelIndex int64             `json:"preselected_parcel_index,omitempty,string"`
	SenderName             string            `json:"sender_name,omitempty"`
	SiteName               string            `json:"site_name,omitempty"`
	TosID                  string            `json:"tos_id,omitempty"`
	TrackingLinks          *TrackingLinks    `json:"tracking_links,omitempty"`
	// Locale (an extension) is the order's locale as registered.
	Locale string `json:"locale,omitempty"`
	// TimeZone (an extension) is the IANA time zone of the delivery
	// ("Europe/Stockholm"), the one the customer page shows times in:
	// the zone of the destination's country, else the site's
	// (Site.TimeZone), else the sender's country's; empty when none is
	// known.
	TimeZone string `json:"time_zone,omitempty"`
}

// PrivateOrderCart is the cart with its prices computed.
type PrivateOrderCart struct {
	Currency string      `json:"currency,omitempty"`
	Items    []Item      `json:"items,omitempty"`
	Prices   *CartPrices `json:"prices,omitempty"`
}

// CartPrices breaks the order value down.
type CartPrices struct {
	ShippingComponents []ShippingComponent `json:"shipping_components,omitempty"`
	Total              *CartTotal          `json:"total,omitempty"`
}

// ShippingComponent is one priced part of shipping, named in the locale.
type ShippingComponent struct {
	Discount int32  `json:"discount,omitempty"`
	Name     string `json:"name,omitempty"`
	Price    int32  `json:"price,omitempty"`
}

// CartTotal sums the cart; see computeCart for the formulas.
type CartTotal struct {
	Discount         int32 `json:"discount,omitempty"`
	ItemsDiscount    int32 `json:"items_discount,omitempty"`
	ItemsPrice       int32 `json:"items_price,omitempty"`
	Price            int32 `json:"price,omitempty"`
	ShippingDiscount int32 `json:"shipping_discount,omitempty"`
	ShippingPrice    int32 `json:"shipping_price,omitempty"`
	Tax              int32 `json:"tax,omitempty"`
}

// Item is one SKU of a PrivateOrderCart.
type Item struct {
	Attributes          map[string]string `json:"attributes,omitempty"`
	CancelledQuantity   int32             `json:"cancelled_quantity,omitempty"`
	CancelledTotalPrice int32             `json:"cancelled_total_price,omitempty"`
	Discount            int32             `json:"discount,omitempty"`
	DisplayAttributes   []DisplayAttr     `json:"display_attributes,omitempty"`
	Image               string            `json:"image,omitempty"`
	Name                string            `json:"name,omitempty"`
	Price               int32             `json:"price,omitempty"`
	Quantity            int32             `json:"quantity,omitempty"`
	SKU                 string            `json:"sku,omitempty"`
	TotalPrice          int32             `json:"total_price,omitempty"`
	Variant             *Variant          `json:"variant,omitempty"`
}

// DisplayAttr is an item attribute rendered to end users.
type DisplayAttr struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Value string `json:"value"`
}

// Variant is an item's color and size.
type Variant struct {
	Color string `json:"color,omitempty"`
	Size  string `json:"size,omitempty"`
}

// DisplayItem is the deprecated item shape of PrivateOrder.items.
type DisplayItem struct {
	Discount   int32  `json:"discount,omitempty"`
	Image      string `json:"image,omitempty"`
	Name       string `json:"name,omitempty"`
	Price      int32  `json:"price,omitempty"`
	Quantity   int32  `json:"quantity,omitempty"`
	SKU        string `json:"sku,omitempty"`
	TotalPrice int32  `json:"total_price,omitempty"`
}

// PrivateParcel is a parcel as the merchant reads it.
type PrivateParcel struct {
	TrackingNumber          string            `json:"tracking_number"`
	Alerts                  []Alert           `json:"alerts,omitempty"`
	Carrier                 string            `json:"carrier,omitempty"`
	CarrierFallbackEnabled  bool              `json:"carrier_fallback_enabled,omitempty"`
	CarrierLink             string            `json:"carrier_link,omitempty"`
	CarrierLogoPattern      string            `json:"carrier_logo_pattern,omitempty"`
	CarrierProductID        string            `json:"carrier_product_id,omitempty"`
	CarrierProductRef       string            `json:"carrier_product_ref,omitempty"`
	DeliveryType            DeliveryType      `json:"delivery_type,omitempty"`
	DirectionType           DirectionType     `json:"direction_type,omitempty"`
	DisplayCarrierName      string            `json:"display_carrier_name,omitempty"`
	EstimatedDeliveryTime   *DateTimeRange    `json:"estimated_delivery_time,omitempty"`
	Exceptions              []ParcelException `json:"exceptions,omitempty"`
	Index                   int32             `json:"index,omitempty"`
	LineItems               []ParcelLineItem  `json:"line_items,omitempty"`
	Location                *Location         `json:"location,omitempty"`
	Progress                []ProgressItem    `json:"progress,omitempty"`
	RequestedShippingMethod string            `json:"requested_shipping_method,omitempty"`
	SenderName              string            `json:"sender_name,omitempty"`
	TrackingLink            string            `json:"tracking_link,omitempty"` // deprecated: use CarrierLink
}

// Alert is a derived or reported parcel alert. Exactly one payload field is
// set, named after the alert type.
type Alert struct {
	Type                         AlertType        `json:"type"`
	CreatedAt                    string           `json:"created_at"`
	AwaitingSupplier             *EstimatePayload `json:"awaiting_supplier,omitempty"`
	Linehaul                     *EstimatePayload `json:"linehaul,omitempty"`
	DeliveryAttemptFailed        *struct{}        `json:"delivery_attempt_failed,omitempty"`
	DeliveryDelayed              *struct{}        `json:"delivery_delayed,omitempty"`
	DeliveryDelayedFromCarrier   *struct{}        `json:"delivery_delayed_from_carrier,omitempty"`
	EstimatedDeliveryTimeUpdated *struct{}        `json:"estimated_delivery_time_updated,omitempty"`
	OutForDelivery               *struct{}        `json:"out_for_delivery,omitempty"`
	SubmissionDelayed            *struct{}        `json:"submission_delayed,omitempty"`
}

// EstimatePayload is the payload of the awaiting-supplier and linehaul
// alerts.
type EstimatePayload struct {
	EstimatedTime      *EstimatedTime `json:"estimated_time,omitempty"`
	EstimatedTimeRange *DateTimeRange `json:"estimated_time_range,omitempty"`
}

// Location is where a parcel can be picked up.
type Location struct {
	Address            *Address           `json:"address"`
	LocationExternalID string             `json:"location_external_id,omitempty"`
	LocationType       PickupLocationType `json:"location_type,omitempty"`
	OperationalHours   *DisplayHours      `json:"operational_hours,omitempty"`
	PickupInstructions string             `json:"pickup_instructions,omitempty"`
	// PickupInstructionsText are the catalog's instructions in each
	// locale it has them in, for a page in the customer's language;
	// PickupInstructions is in the catalog's default locale.
	PickupInstructionsText catalog.Text `json:"-"`
}

// DisplayHours are opening hours as display strings per weekday, e.g.
// "10:00-14:00, 15:00-20:00". An absent day is closed.
type DisplayHours struct {
	Mon      string   `json:"mon,omitempty"`
	Tue      string   `json:"tue,omitempty"`
	Wed      string   `json:"wed,omitempty"`
	Thu      string   `json:"thu,omitempty"`
	Fri      string   `json:"fri,omitempty"`
	Sat      string   `json:"sat,omitempty"`
	Sun      string   `json:"sun,omitempty"`
	FreeText []string `json:"free_text,omitempty"`
}

// ProgressItem is one step in a parcel's history.
type ProgressItem struct {
	Step          Step           `json:"step"`
	Time          string         `json:"time"`
	EstimatedTime *DateTimeRange `json:"estimated_time,omitempty"`
}

// TrackingParcel is a parcel as GET /parcels returns it. The first five
// fields are those every tracking client reads; the rest repeat
// PrivateParcel's names and meaning so that one call gives a tracking page
// what it shows.
type TrackingParcel struct {
	CarrierName           string                  `json:"carrier_name,omitempty"`
	CurrentProgress       *ProgressItem           `json:"current_progress,omitempty"`
	Destination           *Location               `json:"destination,omitempty"`
	ProgressHistory       []ProgressItem          `json:"progress_history,omitempty"`
	Receiver              *TrackingParcelReceiver `json:"receiver,omitempty"`
	TrackingNumber        string                  `json:"tracking_number"`
	Alerts                []Alert                 `json:"alerts,omitempty"`
	CarrierLink           string                  `json:"carrier_link,omitempty"`
	DeliveryType          DeliveryType            `json:"delivery_type,omitempty"`
	EstimatedDeliveryTime *DateTimeRange          `json:"estimated_delivery_time,omitempty"`
}

// TrackingParcelReceiver names the receiver of a tracked parcel.
type TrackingParcelReceiver struct {
	Name string `json:"name,omitempty"`
}

// Event is a carrier event (the library call RecordEvent and the extension
// endpoint POST /parcel.event). At least one of Step and Alert is set; a
// step appends to the parcel's history, an alert is kept with created_at =
// Time.
type Event struct {
	SiteID         string `json:"site_id" validate:"max_id"`
	TrackingNumber string `json:"tracking_number" validate:"required,max_id,keysafe"`
	// CarrierProductRef disambiguates a tracking number that two carriers
	// of the site use; it is otherwise optional.
	CarrierProductRef string    `json:"carrier_product_ref,omitempty" validate:"max_id,keysafe"`
	Time              string    `json:"time" validate:"required,datetime=2006-01-02T15:04:05Z07:00"`
	Step              Step      `json:"step,omitempty" validate:"omitempty,step"`
	Alert             AlertType `json:"alert,omitempty" validate:"omitempty,alert"`
	// EstimatedTime is the carrier's delivery estimate at the time of the
	// event; a changed estimate raises ALERT_ESTIMATED_DELIVERY_TIME_UPDATED.
	// With ALERT_AWAITING_SUPPLIER or ALERT_LINEHAUL_TO_CARRIER it is
	// that alert's payload instead and leaves the delivery estimate alone.
	EstimatedTime *DateTimeRange `json:"estimated_time,omitempty" validate:"omitempty"`
	// Exception (an extension) is an exception the carrier reports with
	// the event or on its own (see ExceptionStatus); it is listed in the
	// parcel's exceptions.
	Exception ExceptionStatus `json:"exception,omitempty" validate:"omitempty,exception"`
}
