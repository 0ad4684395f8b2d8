package shipment

import (
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog/packing"
)

// Wire types of area F. They follow the other areas: snake_case JSON,
// optional fields with omitempty, enums as strings, RFC 3339 times, weights
// in grams and dimensions in millimetres (each greater than 0), money in
// minor units, and the address and contact shapes of tracking. Request
// times are strings, so that a malformed one is reported with its JSON
// path instead of failing the whole decode.

// Address is a postal address, the same as a tracking order's.
type Address = deliverykit.Address

// Coordinates is a point in WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// Sender is who hands a parcel to the carrier. A label needs the return
// address, so it is required.
type Sender struct {
	Name        string   `json:"name" validate:"required,max_name"`
	Address     *Address `json:"address" validate:"required"`
	Email       string   `json:"email,omitempty" validate:"omitempty,max_email,email"`
	PhoneNumber string   `json:"phone_number,omitempty" validate:"omitempty,max_code"`
}

// Receiver is who receives a parcel: tracking's Receiver contact shape.
// Address is the home address; a delivery to a pickup point names the
// point in Delivery.Pickup.
type Receiver struct {
	Name        string   `json:"name" validate:"required,max_name"`
	Address     *Address `json:"address" validate:"required"`
	Email       string   `json:"email,omitempty" validate:"omitempty,max_email,email"`
	PhoneNumber string   `json:"phone_number,omitempty" validate:"omitempty,max_code"`
}

// Pickup is a pickup point at the carrier (tracking's pickup shape).
type Pickup struct {
	ID           string             `json:"id" validate:"required,max_id"`
	Address      *Address           `json:"address,omitempty" validate:"omitempty"`
	LocationType PickupLocationType `json:"location_type,omitempty" validate:"omitempty,oneof=UNKNOWN_PICKUP_LOCATION_TYPE LOCKER STORE POSTOFFICE MANNED AGE_VERIFICATION INDOOR"`
}

// Dimensions are a parcel's outer measures in millimetres, each greater
// than 0.
type Dimensions struct {
	Length int32 `json:"length" validate:"gt=0"`
	Width  int32 `json:"width" validate:"gt=0"`
	Height int32 `json:"height" validate:"gt=0"`
}

// LineItem is one SKU packed in a parcel, tracking's parcel line item shape.
// Amounts are minor units of Currency.
type LineItem struct {
	SKU      string `json:"sku" validate:"required,max_id"`
	Name     string `json:"name,omitempty" validate:"max_title"`
	Quantity int32  `json:"quantity" validate:"gt=0"`
	Price    int32  `json:"price" validate:"gte=0"`
	Currency string `json:"currency" validate:"required,iso4217"`
	Discount int32  `json:"discount,omitempty" validate:"gte=0"`
}

// DateTimeRangeStrict is a time window with both ends, RFC 3339.
type DateTimeRangeStrict struct {
	Start string `json:"start" validate:"required,datetime=2006-01-02T15:04:05Z07:00"`
	End   string `json:"end" validate:"required,datetime=2006-01-02T15:04:05Z07:00"`
}

// DirectionType tells outbound shipments from returns (tracking's values).
type DirectionType string

// DirectionType values. A shipment is OUTBOUND or RETURN; the others are
// accepted on input as OUTBOUND for compatibility with tracking clients.
const (
	DirectionOutbound DirectionType = "OUTBOUND"
	DirectionReturn   DirectionType = "RETURN"
)

// DeliveryType is how a delivery reaches its receiver (tracking's parcel
// DeliveryType). INWAREHOUSE is the warehouse leg of a chained delivery.
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

// PickupLocationType is the kind of a pickup location.
type PickupLocationType string

// ShipmentState is where a shipment is in its life; see the package doc.
type ShipmentState string

// ShipmentState values.
const (
	ShipmentCreated      ShipmentState = "CREATED"
	ShipmentBooked       ShipmentState = "BOOKED"
	ShipmentPickupBooked ShipmentState = "PICKUP_BOOKED"
	ShipmentPickedUp     ShipmentState = "PICKED_UP"
	ShipmentCancelled    ShipmentState = "CANCELLED"
)

// DeliveryState is where one delivery (carrier leg) is; see the package doc.
type DeliveryState string

// DeliveryState values.
const (
	DeliveryCreated      DeliveryState = "CREATED"
	DeliveryBooked       DeliveryState = "BOOKED"
	DeliveryPickupBooked DeliveryState = "PICKUP_BOOKED"
	DeliveryPickedUp     DeliveryState = "PICKED_UP"
	DeliveryCancelled    DeliveryState = "CANCELLED"
)

// LabelFormat is a printable label format of GET /labels/{tracking_number}.
type LabelFormat string

// LabelFormat values.
const (
	LabelPDF LabelFormat = "pdf"
	LabelZPL LabelFormat = "zpl"
)

// Shipment is a consignment from one sender to one receiver: parcels, each
// carried by one or more deliveries (legs). It is the response of every
// shipment operation.
type Shipment struct {
	ID         string        `json:"id"`
	SiteID     string        `json:"site_id"`
	ExternalID string        `json:"external_id,omitempty"`
	State      ShipmentState `json:"state"`
	// DirectionType is OUTBOUND or RETURN.
	DirectionType DirectionType `json:"direction_type"`
	// TosID is the order the shipment was made for, if any.
	TosID      string            `json:"tos_id,omitempty"`
	Reference  string            `json:"reference,omitempty"`
	Attributes map[string]string `json:"attributes,omitempty"`
	Sender     Sender            `json:"sender"`
	Receiver   Receiver          `json:"receiver"`
	Parcels    []Parcel          `json:"parcels"`
	// ReturnShipmentID is the connected return shipment of an outbound
	// one; OutboundShipmentID is the reverse link.
	ReturnShipmentID   string     `json:"return_shipment_id,omitempty"`
	OutboundShipmentID string     `json:"outbound_shipment_id,omitempty"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
	BookedAt           *time.Time `json:"booked_at,omitempty"`
	CancelledAt        *time.Time `json:"cancelled_at,omitempty"`
	// Customs is the customs declaration: required when sender and
	// receiver are in different customs territories (see customs.go).
	Customs *CustomsDeclaration `json:"customs,omitempty"`
	// Documents are the customs documents the shipment travels with,
	// decided when it is booked; each is rendered on request.
	Documents []Document `json:"documents,omitempty"`
}

// Parcel is one physical package of a shipment.
type Parcel struct {
	ID         string      `json:"id"`
	ExternalID string      `json:"external_id,omitempty"`
	Weight     int32       `json:"weight"`
	Dimensions *Dimensions `json:"dimensions,omitempty"`
	LineItems  []LineItem  `json:"line_items,omitempty"`
	Deliveries []Delivery  `json:"deliveries"`
}

// Delivery is one carrier leg of a parcel: the unit that is booked, gets a
// tracking number and a label, is picked up and can be cancelled.
type Delivery struct {
	ID                string        `json:"id"`
	ShipmentID        string        `json:"shipment_id"`
	ParcelID          string        `json:"parcel_id"`
	State             DeliveryState `json:"state"`
	CarrierProductRef string        `json:"carrier_product_ref"`
	CarrierName       string        `json:"carrier_name,omitempty"`
	ProductName       string        `json:"product_name,omitempty"`
	DeliveryType      DeliveryType  `json:"delivery_type"`
	// Sender and Receiver are set when the leg overrides the shipment's
	// (a warehouse leg ends at the warehouse, the last mile starts there).
	Sender         *Sender    `json:"sender,omitempty"`
	Receiver       *Receiver  `json:"receiver,omitempty"`
	Pickup         *Pickup    `json:"pickup,omitempty"`
	TrackingNumber string     `json:"tracking_number,omitempty"`
	TrackingLink   string     `json:"tracking_link,omitempty"`
	Label          *Label     `json:"label,omitempty"`
	PickupWindow   *TimeSpan  `json:"pickup_window,omitempty"`
	BookedAt       *time.Time `json:"booked_at,omitempty"`
	PickupBookedAt *time.Time `json:"pickup_booked_at,omitempty"`
	PickedUpAt     *time.Time `json:"picked_up_at,omitempty"`
	CancelledAt    *time.Time `json:"cancelled_at,omitempty"`
	// ManifestID names the manifest that handed the delivery over to its
	// carrier (CreateManifest); such a delivery can no longer be
	// cancelled.
	ManifestID string `json:"manifest_id,omitempty"`
	// Meta is the request's meta (DeliveryInput.Meta).
	Meta map[string]string `json:"meta,omitempty"`
}

// Label tells where a booked delivery's printable label is.
type Label struct {
	// PDFURL and ZPLURL are the label endpoint with format=pdf and
	// format=zpl: LabelPath + tracking number, prefixed by
	// Options.LabelBaseURL.
	PDFURL string `json:"pdf_url"`
	ZPLURL string `json:"zpl_url"`
	// RoutingCode is the carrier's sorting code printed on the label.
	RoutingCode string `json:"routing_code,omitempty"`
}

// TimeSpan is a stored time window.
type TimeSpan struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// The limits of the area's requests, besides the shared ones of strings
// (see internal/validation): each is named once here and referred to by
// name in the struct tags (validate.go registers the names). A list over
// its limit is refused with one violation, before any of its entries is
// looked at.
const (
	// MaxParcels is the most parcels a shipment may have, at creation
	// and after shipments.addParcel.
	MaxParcels = packing.MaxParcels
	// MaxParcelDeliveries is the most deliveries (carrier legs) of one
	// parcel.
	MaxParcelDeliveries = 10
	// MaxParcelLineItems is the most line items of one parcel.
	MaxParcelLineItems = 500
	// MaxAttributes is the most attributes of a shipment.
	MaxAttributes = 100
	// MaxDeliveryMeta is the most meta entries of a delivery.
	MaxDeliveryMeta = 16
	// MaxReferenceLength bounds a shipment's reference, printed on labels.
	MaxReferenceLength = 64
	// MaxInstructionsLength bounds the driver instructions of a pickup.
	MaxInstructionsLength = 512
	// MaxItems is the most items (lines) of a create request, and
	// MaxPackedUnits the most units they add up to: each unit is packed.
	MaxItems       = 500
	MaxPackedUnits = packing.MaxUnits
	// MaxItemDimension bounds an item's measures in millimetres.
	MaxItemDimension = 10000
)

// CreateShipmentRequest is the body of POST /shipments.create and, with
// PickupWindow, of POST /shipments.createAndBook.
type CreateShipmentRequest struct {
	// SiteID may be omitted; when given it must be the caller's site.
	SiteID string `json:"site_id,omitempty" validate:"max_id"`
	// ExternalID is the merchant's id of the shipment, unique per site:
	// creating again with the same external_id and the same content
	// returns the first shipment; with other content it is a Conflict.
	ExternalID string `json:"external_id,omitempty" validate:"omitempty,max_ref"`
	// DirectionType is OUTBOUND (the default) or RETURN.
	DirectionType DirectionType `json:"direction_type,omitempty" validate:"omitempty,oneof=OUTBOUND RETURN"`
	// TosID names the order (a tracking order's tos_id) the shipment
	// ships: what the request leaves out is taken from it (receiver,
	// sender, shipping_method, reference, the pickup point, the line
	// items of a one-parcel shipment; see Order); what it says wins.
	// Booked parcels are tracked with that order.
	TosID string `json:"tos_id,omitempty" validate:"max_id"`
	// ShippingMethod is a carrier product reference (a checkout's
	// shipping_method, a delivery session's carrier.product_id) for every
	// delivery that names none; a parcel without deliveries gets one
	// delivery with it.
	ShippingMethod string            `json:"shipping_method,omitempty" validate:"max_id"`
	Reference      string            `json:"reference,omitempty" validate:"omitempty,max_shipment_reference"`
	Attributes     map[string]string `json:"attributes,omitempty" validate:"max_shipment_attributes,dive,keys,max_id,endkeys,max_name"`
	// Sender and Receiver are required; with a TosID they default to the
	// order's (checkCreate requires them once the order filled them in).
	Sender   *Sender   `json:"sender" validate:"omitempty"`
	Receiver *Receiver `json:"receiver" validate:"omitempty"`
	// Parcels are required unless Items are given; given, they win and
	// the items are not packed.
	Parcels []ParcelInput `json:"parcels,omitempty" validate:"max_parcels,dive"`
	// Items, without parcels, are packed into the catalog's boxes usable
	// with shipping_method (required then): one parcel per box, weighing
	// its items and the box's tare, measuring the box's outer measures,
	// with its items as line items (see package catalog/packing). An item
	// that fits no box is refused naming it (items[3]).
	Items []ItemInput `json:"items,omitempty" validate:"max_items,dive"`
	// OutboundShipmentID connects a RETURN shipment to the outbound
	// shipment it returns: parcels added later to the outbound shipment
	// are added to it too.
	OutboundShipmentID string `json:"outbound_shipment_id,omitempty" validate:"max_id"`
	// PickupWindow is used by createAndBook only: when set, the pickup of
	// every delivery is booked for it.
	PickupWindow *DateTimeRangeStrict `json:"pickup_window,omitempty" validate:"omitempty"`
	// Customs is the customs declaration, required when sender and
	// receiver are in different customs territories; what it leaves out
	// defaults as CustomsDeclaration says.
	Customs *CustomsDeclaration `json:"customs,omitempty" validate:"omitempty"`
}

// ParcelInput is a parcel to create.
type ParcelInput struct {
	ExternalID string          `json:"external_id,omitempty" validate:"omitempty,max_ref"`
	Weight     int32           `json:"weight" validate:"gt=0,lte=1000000"`
	Dimensions *Dimensions     `json:"dimensions,omitempty" validate:"omitempty"`
	LineItems  []LineItem      `json:"line_items,omitempty" validate:"max_parcel_items,dive"`
	Deliveries []DeliveryInput `json:"deliveries" validate:"required,min=1,max_parcel_deliveries,dive"`
}

// ItemInput is one line of goods to pack: a line item with the measures
// and weight of one unit. Each of its Quantity units is packed on its own.
type ItemInput struct {
	SKU      string `json:"sku" validate:"required,max_id"`
	Name     string `json:"name,omitempty" validate:"max_title"`
	Quantity int32  `json:"quantity" validate:"gt=0,max_packed_units"`
	Price    int32  `json:"price" validate:"gte=0"`
	Currency string `json:"currency" validate:"required,iso4217"`
	Discount int32  `json:"discount,omitempty" validate:"gte=0"`
	// Weight is one unit's, in grams.
	Weight     int32          `json:"weight" validate:"gt=0,lte=1000000"`
	Dimensions ItemDimensions `json:"dimensions"`
	// ShipAlone puts each unit in a parcel of its own: in the smallest
	// box that holds it, or, when none does, in its own packaging (its
	// own weight and measures).
	ShipAlone bool `json:"ship_alone,omitempty"`
}

// ItemDimensions are one unit's measures in millimetres, each greater than
// 0 and at most MaxItemDimension.
type ItemDimensions struct {
	Length int32 `json:"length" validate:"gt=0,max_item_dimension"`
	Width  int32 `json:"width" validate:"gt=0,max_item_dimension"`
	Height int32 `json:"height" validate:"gt=0,max_item_dimension"`
}

// DeliveryInput is a carrier leg to create. DeliveryType defaults to the
// carrier product's.
type DeliveryInput struct {
	CarrierProductRef string       `json:"carrier_product_ref" validate:"required,max_id"`
	DeliveryType      DeliveryType `json:"delivery_type,omitempty" validate:"omitempty,oneof=UNKNOWN DELIVERY PICKUP MAILBOX INSTORE INWAREHOUSE"`
	Sender            *Sender      `json:"sender,omitempty" validate:"omitempty"`
	Receiver          *Receiver    `json:"receiver,omitempty" validate:"omitempty"`
	Pickup            *Pickup      `json:"pickup,omitempty" validate:"omitempty"`
	// Meta is the merchant's own data about the delivery, kept with it
	// and shown in its views; at most MaxDeliveryMeta entries, keys of
	// up to 64 characters, values of up to 256. On a test site,
	// meta["test_scenario"] (MetaTestScenario) picks the journey the
	// test carrier plays.
	Meta map[string]string `json:"meta,omitempty" validate:"max_delivery_meta,dive,keys,max_code,endkeys,max_name"`
}

// MetaTestScenario is the key of a delivery's meta that names the test
// scenario (or fault) its carrier plays, when the carrier is a test site's
// simulator; BookingRequest.Scenario carries it.
const MetaTestScenario = "test_scenario"

// ShipmentRef names a shipment: POST /shipments.bookParcels and
// /shipments.cancel.
type ShipmentRef struct {
	SiteID     string `json:"site_id,omitempty" validate:"max_id"`
	ShipmentID string `json:"shipment_id" validate:"required,max_id"`
}

// GetShipmentQuery selects a shipment by exactly one of its id, its
// external id or the tracking number of one of its deliveries.
type GetShipmentQuery struct {
	ID             string
	ExternalID     string
	TrackingNumber string
}

// BookPickupRequest books the carrier's pickup for one delivery (by
// tracking number) or for every booked delivery of a shipment.
type BookPickupRequest struct {
	SiteID         string               `json:"site_id,omitempty" validate:"max_id"`
	TrackingNumber string               `json:"tracking_number,omitempty" validate:"max_id"`
	ShipmentID     string               `json:"shipment_id,omitempty" validate:"max_id"`
	PickupWindow   *DateTimeRangeStrict `json:"pickup_window" validate:"required"`
	// Address is where the carrier collects; default: the sender's.
	Address *Address `json:"address,omitempty" validate:"omitempty"`
	// Instructions are passed on to the carrier's driver.
	Instructions string `json:"instructions,omitempty" validate:"omitempty,max_instructions"`
	// Manifest makes the pickup the collection of the day's manifest:
	// the parcels of the carriers booked that wait for a manifest are
	// manifested for the window's day (UTC) first, and a carrier that
	// takes hand-overs collects them in the window. Like every
	// manifested parcel, they can no longer be cancelled; without it, a
	// delivery with a booked pickup may be cancelled until it is
	// collected.
	Manifest bool `json:"manifest,omitempty"`
}

// DeliveryRef names one delivery by its tracking number or, before
// booking, by its id: POST /deliveries.cancel.
type DeliveryRef struct {
	SiteID         string `json:"site_id,omitempty" validate:"max_id"`
	TrackingNumber string `json:"tracking_number,omitempty" validate:"max_id"`
	DeliveryID     string `json:"delivery_id,omitempty" validate:"max_id"`
}

// ConfirmPickupRequest records that the carrier collected a delivery
// (extension endpoint POST /deliveries.confirmPickup, called by carrier
// integrations). PickedUpAt defaults to now.
type ConfirmPickupRequest struct {
	SiteID         string `json:"site_id,omitempty" validate:"max_id"`
	TrackingNumber string `json:"tracking_number" validate:"required,max_id"`
	PickedUpAt     string `json:"picked_up_at,omitempty" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
}

// UpdateShipmentRequest changes a shipment. Absent (null) fields are left
// as they are. What may change in which state is in the package doc.
type UpdateShipmentRequest struct {
	SiteID     string             `json:"site_id,omitempty" validate:"max_id"`
	ShipmentID string             `json:"shipment_id" validate:"required,max_id"`
	Sender     *Sender            `json:"sender,omitempty" validate:"omitempty"`
	Receiver   *Receiver          `json:"receiver,omitempty" validate:"omitempty"`
	Reference  *string            `json:"reference,omitempty" validate:"omitempty,max_shipment_reference"`
	Attributes *map[string]string `json:"attributes,omitempty" validate:"omitempty,max_shipment_attributes,dive,keys,max_id,endkeys,max_name"`
}

// AddParcelRequest adds a parcel to a shipment. Without Parcel the new
// parcel duplicates the shipment's first parcel: its weight, dimensions
// and deliveries (carrier products, delivery types, legs' ends, pickup
// points), not its external_id nor its line items, which name goods
// already packed. ReturnParcel, when set, is the parcel added to the
// connected return shipment; by default that one gets a copy of the new
// parcel with the deliveries (carrier products) of the return shipment's
// first parcel.
type AddParcelRequest struct {
	SiteID       string       `json:"site_id,omitempty" validate:"max_id"`
	ShipmentID   string       `json:"shipment_id" validate:"required,max_id"`
	Parcel       *ParcelInput `json:"parcel,omitempty" validate:"omitempty"`
	ReturnParcel *ParcelInput `json:"return_parcel,omitempty" validate:"omitempty"`
}

// BookParcelsResponse answers POST /shipments.bookParcels: the booked
// shipment, wrapped as shipment clients read it.
type BookParcelsResponse struct {
	Shipment *Shipment `json:"shipment"`
}

// BookPickupResponse answers POST /deliveries.bookPickup. Booked by
// tracking_number, it holds the delivery, as shipment clients read it;
// booked by shipment_id (an extension: every booked delivery of the
// shipment), it holds the shipment.
type BookPickupResponse struct {
	Delivery *Delivery `json:"delivery,omitempty"`
	Shipment *Shipment `json:"shipment,omitempty"`
}

// BookPickupAnswer is the answer of POST /deliveries.bookPickup for req,
// given the shipment BookPickup returned: the delivery req names by
// tracking number, else the shipment.
func BookPickupAnswer(req BookPickupRequest, sh *Shipment) BookPickupResponse {
	if req.TrackingNumber == "" || sh == nil {
		return BookPickupResponse{Shipment: sh}
	}
	i, j, ok := findDelivery(sh, func(d *Delivery) bool { return d.TrackingNumber == req.TrackingNumber })
	if !ok {
		return BookPickupResponse{Shipment: sh}
	}
	d := sh.Parcels[i].Deliveries[j]
	return BookPickupResponse{Delivery: &d}
}
