package shipment

import (
	"encoding/json"
	"time"

	"github.com/deliverykit/deliverykit/internal/stored"
)

// Stored records. A shipment is stored as a storedShipment, whose types
// below name their JSON fields themselves: changing a wire type's tags
// changes no stored byte. views.go converts between them and the wire
// types the service works with.
//
// Schemas:
//   - 1: records without a schema field. Their layout is schema 2's: the
//     record types took the names the wire types had when those records
//     were written (the wire types were stored then).
//   - 2: a schema field.
//   - 3: the customs declaration and documents (customs, documents in
//     the shipment, customs in the request). Schema 2 records have none
//     and read as they are.
//   - 4: manifest_id in deliveries (the manifest that handed them over).
//     Schema 3 records have none and read as they are; a release of
//     schema 3 refuses them rather than cancel a manifested delivery.
//     Deliveries and delivery inputs may have meta, an optional field of
//     the same schema: a release without it drops only the merchant's
//     notes.
//
// A change of a stored name or meaning needs a new schema number and a
// step in upgradeShipment.
const shipmentSchema = 4

// shipments holds the shipments, keyed by site and shipment id. Every read
// goes through upgradeShipment.
var shipments = stored.Collection[shipmentRecord, storedShipment]{
	Name: "shipment.shipments", Record: storeShipment, Value: loadStoredShipment,
}

// storedShipment is a shipment as stored: the whole aggregate in one
// record (see shipmentRecord).
type storedShipment struct {
	Schema   int          `json:"schema"`
	Shipment shipmentBody `json:"shipment"`
	// Request is the canonical JSON of the create request's record
	// (requestRecord), compared when the same external_id is created
	// again.
	Request    json.RawMessage   `json:"request,omitempty"`
	CarrierIDs map[string]string `json:"carrier_ids"`
	Unrecorded []string          `json:"unrecorded,omitempty"`
}

// upgradeShipment brings a record of an earlier schema to shipmentSchema.
func upgradeShipment(r *storedShipment) error {
	if err := stored.CheckSchema("shipment", r.Schema, shipmentSchema); err != nil {
		return err
	}
	if r.Schema < 4 {
		// Schema 1 has schema 2's layout; schemas 3 and 4 only add
		// optional fields.
		r.Schema = 4
	}
	return nil
}

type shipmentBody struct {
	ID                 string            `json:"id"`
	SiteID             string            `json:"site_id"`
	ExternalID         string            `json:"external_id,omitempty"`
	State              ShipmentState     `json:"state"`
	DirectionType      DirectionType     `json:"direction_type"`
	TosID              string            `json:"tos_id,omitempty"`
	Reference          string            `json:"reference,omitempty"`
	Attributes         map[string]string `json:"attributes,omitempty"`
	Sender             contactRecord     `json:"sender"`
	Receiver           contactRecord     `json:"receiver"`
	Parcels            []parcelRecord    `json:"parcels"`
	ReturnShipmentID   string            `json:"return_shipment_id,omitempty"`
	OutboundShipmentID string            `json:"outbound_shipment_id,omitempty"`
	CreatedAt          time.Time         `json:"created_at"`
	UpdatedAt          time.Time         `json:"updated_at"`
	BookedAt           *time.Time        `json:"booked_at,omitempty"`
	CancelledAt        *time.Time        `json:"cancelled_at,omitempty"`
	Customs            *customsRecord    `json:"customs,omitempty"`
	Documents          []documentRecord  `json:"documents,omitempty"`
}

// customsRecord is a stored customs declaration.
type customsRecord struct {
	ContentsType  ContentsType        `json:"contents_type"`
	Incoterm      Incoterm            `json:"incoterm,omitempty"`
	InvoiceNumber string              `json:"invoice_number,omitempty"`
	Exporter      *customsPartyRecord `json:"exporter,omitempty"`
	Importer      *customsPartyRecord `json:"importer,omitempty"`
	Items         []customsItemRecord `json:"items"`
}

type customsPartyRecord struct {
	VAT  string `json:"vat,omitempty"`
	EORI string `json:"eori,omitempty"`
}

type customsItemRecord struct {
	SKU           string `json:"sku,omitempty"`
	Description   string `json:"description"`
	HSCode        string `json:"hs_code"`
	OriginCountry string `json:"origin_country"`
	Quantity      int32  `json:"quantity"`
	NetWeight     int32  `json:"net_weight"`
	Value         int32  `json:"value"`
	Currency      string `json:"currency"`
}

type documentRecord struct {
	Kind   string `json:"kind"`
	PDFURL string `json:"pdf_url"`
}

// contactRecord is a sender or a receiver.
type contactRecord struct {
	Name        string         `json:"name"`
	Address     *addressRecord `json:"address"`
	Email       string         `json:"email,omitempty"`
	PhoneNumber string         `json:"phone_number,omitempty"`
}

// addressRecord is a stored address.
type addressRecord = stored.Address

type parcelRecord struct {
	ID         string            `json:"id"`
	ExternalID string            `json:"external_id,omitempty"`
	Weight     int32             `json:"weight"`
	Dimensions *dimensionsRecord `json:"dimensions,omitempty"`
	LineItems  []lineItemRecord  `json:"line_items,omitempty"`
	Deliveries []deliveryRecord  `json:"deliveries"`
}

type dimensionsRecord struct {
	Length int32 `json:"length"`
	Width  int32 `json:"width"`
	Height int32 `json:"height"`
}

type lineItemRecord struct {
	SKU      string `json:"sku"`
	Name     string `json:"name,omitempty"`
	Quantity int32  `json:"quantity"`
	Price    int32  `json:"price"`
	Currency string `json:"currency"`
	Discount int32  `json:"discount,omitempty"`
}

type deliveryRecord struct {
	ID                string            `json:"id"`
	ShipmentID        string            `json:"shipment_id"`
	ParcelID          string            `json:"parcel_id"`
	State             DeliveryState     `json:"state"`
	CarrierProductRef string            `json:"carrier_product_ref"`
	CarrierName       string            `json:"carrier_name,omitempty"`
	ProductName       string            `json:"product_name,omitempty"`
	DeliveryType      DeliveryType      `json:"delivery_type"`
	Sender            *contactRecord    `json:"sender,omitempty"`
	Receiver          *contactRecord    `json:"receiver,omitempty"`
	Pickup            *pickupRecord     `json:"pickup,omitempty"`
	TrackingNumber    string            `json:"tracking_number,omitempty"`
	TrackingLink      string            `json:"tracking_link,omitempty"`
	Label             *labelRecord      `json:"label,omitempty"`
	PickupWindow      *timeSpanRecord   `json:"pickup_window,omitempty"`
	BookedAt          *time.Time        `json:"booked_at,omitempty"`
	PickupBookedAt    *time.Time        `json:"pickup_booked_at,omitempty"`
	PickedUpAt        *time.Time        `json:"picked_up_at,omitempty"`
	CancelledAt       *time.Time        `json:"cancelled_at,omitempty"`
	ManifestID        string            `json:"manifest_id,omitempty"`
	Meta              map[string]string `json:"meta,omitempty"`
}

type pickupRecord struct {
	ID           string             `json:"id"`
	Address      *addressRecord     `json:"address,omitempty"`
	LocationType PickupLocationType `json:"location_type,omitempty"`
}

type labelRecord struct {
	PDFURL      string `json:"pdf_url"`
	ZPLURL      string `json:"zpl_url"`
	RoutingCode string `json:"routing_code,omitempty"`
}

type timeSpanRecord struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// requestRecord is what a create request says about the shipment (not
// its site_id nor createAndBook's pickup_window). Its canonical JSON is
// storedShipment.Request.
type requestRecord struct {
	ExternalID         string              `json:"external_id,omitempty"`
	DirectionType      DirectionType       `json:"direction_type,omitempty"`
	TosID              string              `json:"tos_id,omitempty"`
	ShippingMethod     string              `json:"shipping_method,omitempty"`
	Reference          string              `json:"reference,omitempty"`
	Attributes         map[string]string   `json:"attributes,omitempty"`
	Sender             *contactRecord      `json:"sender"`
	Receiver           *contactRecord      `json:"receiver"`
	Parcels            []parcelInputRecord `json:"parcels"`
	OutboundShipmentID string              `json:"outbound_shipment_id,omitempty"`
	Customs            *customsRecord      `json:"customs,omitempty"`
	Items              []itemRecord        `json:"items,omitempty"`
}

// itemRecord is an item to pack of a create request.
type itemRecord struct {
	SKU        string           `json:"sku"`
	Name       string           `json:"name,omitempty"`
	Quantity   int32            `json:"quantity"`
	Price      int32            `json:"price"`
	Currency   string           `json:"currency"`
	Discount   int32            `json:"discount,omitempty"`
	Weight     int32            `json:"weight"`
	Dimensions dimensionsRecord `json:"dimensions"`
	ShipAlone  bool             `json:"ship_alone,omitempty"`
}

type parcelInputRecord struct {
	ExternalID string                `json:"external_id,omitempty"`
	Weight     int32                 `json:"weight"`
	Dimensions *dimensionsRecord     `json:"dimensions,omitempty"`
	LineItems  []lineItemRecord      `json:"line_items,omitempty"`
	Deliveries []deliveryInputRecord `json:"deliveries"`
}

type deliveryInputRecord struct {
	CarrierProductRef string            `json:"carrier_product_ref"`
	DeliveryType      DeliveryType      `json:"delivery_type,omitempty"`
	Sender            *contactRecord    `json:"sender,omitempty"`
	Receiver          *contactRecord    `json:"receiver,omitempty"`
	Pickup            *pickupRecord     `json:"pickup,omitempty"`
	Meta              map[string]string `json:"meta,omitempty"`
}
