package session

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/deliverykit/deliverykit"
)

// State is the lifecycle state of a session; the package documentation
// has the transitions.
type State string

// The session states. StateUnspecified is the unused default of the
// enumeration; a stored session is always ACTIVE or COMPLETED.
const (
	StateUnspecified State = "STATE_UNSPECIFIED"
	StateActive      State = "ACTIVE"
	StateCompleted   State = "COMPLETED"
)

// DeliveryType is how the goods reach the recipient.
type DeliveryType string

// The delivery types of a delivery category.
const (
	DeliveryTypeUnspecified DeliveryType = "DELIVERY_TYPE_UNSPECIFIED"
	DeliveryTypeDelivery    DeliveryType = "DELIVERY"
	DeliveryTypePickup      DeliveryType = "PICKUP"
	DeliveryTypeMailbox     DeliveryType = "MAILBOX"
	DeliveryTypeInstore     DeliveryType = "INSTORE"
)

// OptionsSource says where a category's options come from.
type OptionsSource string

// The options sources. Options computed from the catalog's carrier products
// are CARRIER; FALLBACK is part of the enumeration for clients but is never
// produced, because the engine has no second source to fall back to.
const (
	OptionsSourceUnspecified OptionsSource = "OPTIONS_SOURCE_UNSPECIFIED"
	OptionsSourceFallback    OptionsSource = "FALLBACK"
	OptionsSourceCarrier     OptionsSource = "CARRIER"
)

// TimeUnit is the unit of a relative estimate.
type TimeUnit string

// The time units of a relative ETD.
const (
	TimeUnitUnspecified TimeUnit = "TIME_UNIT_UNSPECIFIED"
	TimeUnitMinute      TimeUnit = "TIME_UNIT_MINUTE"
	TimeUnitHour        TimeUnit = "TIME_UNIT_HOUR"
	TimeUnitDay         TimeUnit = "TIME_UNIT_DAY"
	TimeUnitBusinessDay TimeUnit = "TIME_UNIT_BUSINESS_DAY"
	TimeUnitWeek        TimeUnit = "TIME_UNIT_WEEK"
	TimeUnitMonth       TimeUnit = "TIME_UNIT_MONTH"
)

// AddonType classifies an addon.
type AddonType string

// The addon types.
const (
	AddonTypeUnspecified AddonType = "ADDON_TYPE_UNSPECIFIED"
	AddonTypeCustom      AddonType = "CUSTOM"
	AddonTypeCarryIn     AddonType = "CARRY_IN"
	AddonTypeLeaveAtDoor AddonType = "LEAVE_AT_DOOR"
	AddonTypeUnwrapping  AddonType = "UNWRAPPING"
)

// LocationType classifies a pickup location.
type LocationType string

// The location types.
const (
	LocationTypeUnspecified LocationType = "LOCATION_TYPE_UNSPECIFIED"
	LocationTypeLocker      LocationType = "LOCKER"
	LocationTypeStore       LocationType = "STORE"
	LocationTypePostOffice  LocationType = "POSTOFFICE"
	LocationTypeManned      LocationType = "MANNED"
)

// Role is the part a delivery node plays.
type Role string

// The node roles.
const (
	RoleUnspecified Role = "ROLE_UNSPECIFIED"
	RoleOrigin      Role = "ORIGIN"
	RoleDestination Role = "DESTINATION"
)

// Format selects the representations Convert returns.
type Format string

// The convert formats. The empty string means FormatUnspecified.
const (
	FormatUnspecified     Format = "FORMAT_UNSPECIFIED"
	FormatAgenticCheckout Format = "AGENTIC_CHECKOUT"
)

// Int64 is an int64 on the wire the way protobuf JSON writes it: a decimal
// string on output ("4900"), a string or a number on input. JavaScript
// clients lose precision above 2^53 with numbers; strings keep it.
type Int64 int64

// MarshalJSON writes the value as a quoted decimal.
func (n Int64) MarshalJSON() ([]byte, error) {
	// One allocation: a session answer has hundreds of amounts.
	b := make([]byte, 0, 22)
	b = append(b, '"')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '"'), nil
}

var int64Type = reflect.TypeFor[int64]()

// UnmarshalJSON accepts "123", 123 and null (which leaves n unchanged).
// Anything else is a *json.UnmarshalTypeError, so the decoder names the
// field.
func (n *Int64) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		var err error
		if s, err = strconv.Unquote(s); err != nil {
			return &json.UnmarshalTypeError{Value: "string " + string(b), Type: int64Type}
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// The error names the value, which may be as long as the body;
		// a number has at most 20 characters, so its start says enough.
		if len(s) > 40 {
			s = strings.ToValidUTF8(s[:40], "") + "…"
		}
		what := "number " + s
		if b[0] == '"' {
			what = "string " + strconv.Quote(s)
		} else if b[0] != '-' && (b[0] < '0' || b[0] > '9') {
			what = string(b)
		}
		return &json.UnmarshalTypeError{Value: what, Type: int64Type}
	}
	*n = Int64(v)
	return nil
}

// Timestamp is a date-time on the wire: RFC 3339, written in UTC. The zero
// Timestamp is "absent" (omitzero).
type Timestamp struct{ time.Time }

// At returns t as a Timestamp in UTC.
func At(t time.Time) Timestamp { return Timestamp{t.UTC()} }

var timeType = reflect.TypeFor[time.Time]()

// MarshalJSON writes RFC 3339 in UTC.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	// RFC 3339 has nothing to escape; one allocation.
	return t.appendJSON(make([]byte, 0, len(time.RFC3339Nano)+2)), nil
}

func (t Timestamp) appendJSON(b []byte) []byte {
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendWindow appends the JSON object of AbsoluteETD, Readiness and
// Handoff, which share their fields: earliest_time and latest_time, each
// omitted when zero (omitzero by Timestamp's IsZero), in this order.
//
// It is what encoding/json and the store's codec write for these structs
// without a MarshalJSON (TestWindowsEncodeAsTheirFields pins it). Written
// by hand, because the codec decides omitzero for a type with an IsZero
// method by reflection and a boxed copy of each value (goccy's
// isZeroByMethod: reflect.Implements and an allocation per Timestamp),
// and a session's answer has two of them per delivery option.
func appendWindow(b []byte, earliest, latest Timestamp) []byte {
	b = append(b, '{')
	if !earliest.IsZero() {
		b = append(b, `"earliest_time":`...)
		b = earliest.appendJSON(b)
	}
	if !latest.IsZero() {
		if !earliest.IsZero() {
			b = append(b, ',')
		}
		b = append(b, `"latest_time":`...)
		b = latest.appendJSON(b)
	}
	return append(b, '}')
}

// windowJSONSize holds a window of two UTC date-times with nanoseconds.
const windowJSONSize = len(`{"earliest_time":"","latest_time":""}`) + 2*len("2006-01-02T15:04:05.999999999Z")

// UnmarshalJSON accepts an RFC 3339 string or null; anything else is a
// *json.UnmarshalTypeError, so the decoder names the field.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: timeType}
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		// The error names the value, which may be as long as the body;
		// a date-time is short, so its start says enough.
		if len(s) > 40 {
			s = strings.ToValidUTF8(s[:40], "") + "…"
		}
		return &json.UnmarshalTypeError{Value: "string " + strconv.Quote(s) + " (want an RFC 3339 date-time)", Type: timeType}
	}
	t.Time = v.UTC()
	return nil
}

// Session is the delivery session resource (v1alphaSession on the wire).
//
// Read-only fields (state, create_time, update_time, returns_promise and,
// in deliveries, delivery_categories, tos_id and external_id) are ignored
// when they appear in a Create or Patch request, as resource-style APIs
// treat output-only fields: clients may send back a session they read.
type Session struct {
	// Name is "sessions/{session_id}".
	Name           string          `json:"name,omitempty" validate:"max_ref"`
	State          State           `json:"state,omitempty" validate:"-"`
	Purchase       *Purchase       `json:"purchase,omitempty" validate:"required"`
	Deliveries     []Delivery      `json:"deliveries,omitempty" validate:"max_deliveries,dive"`
	CreateTime     Timestamp       `json:"create_time,omitzero" validate:"-"`
	UpdateTime     Timestamp       `json:"update_time,omitzero" validate:"-"`
	Etag           string          `json:"etag,omitempty" validate:"max_id"`
	ReturnsPromise *ReturnsPromise `json:"returns_promise,omitempty" validate:"-"`
}

// Purchase is what is being bought. Amounts are minor units.
type Purchase struct {
	CountryCode   string   `json:"country_code" validate:"required,iso3166_1_alpha2"`
	CurrencyCode  string   `json:"currency_code" validate:"required,iso4217"`
	TotalDiscount Int64    `json:"total_discount,omitzero" validate:"gte=0"`
	TotalValue    Int64    `json:"total_value,omitzero" validate:"gte=0"`
	Vouchers      []string `json:"vouchers,omitempty" validate:"max_vouchers,dive,max_id"`
	// Locales are the customer's preferences, best first ("sv-SE"); the
	// first one the catalog supports names categories and addons.
	Locales []string `json:"locales,omitempty" validate:"max_locales,dive,max_locale"`
}

// Delivery is one shipment of the purchase to one recipient.
type Delivery struct {
	ID               string         `json:"id" validate:"required,max_id"`
	LineItems        []LineItem     `json:"line_items" validate:"required,max_line_items,dive"`
	Fulfillments     []Fulfillment  `json:"fulfillments" validate:"required,max_fulfillments,dive"`
	RecipientContact *Contact       `json:"recipient_contact" validate:"required"`
	Attributes       []string       `json:"attributes,omitempty" validate:"max_attributes,dive,max_name"`
	Nodes            []DeliveryNode `json:"nodes,omitempty" validate:"max_nodes,dive"`

	// Read-only: computed by the options engine, set on completion.
	DeliveryCategories []DeliveryCategory `json:"delivery_categories,omitempty" validate:"-"`
	TosID              string             `json:"tos_id,omitempty" validate:"-"`
	ExternalID         string             `json:"external_id,omitempty" validate:"-"`
}

// LineItem is one line of a delivery. Weight and Dimensions are pointers
// to keep presence: an absent weight is allowed, a weight of 0 is not.
type LineItem struct {
	SKU        string      `json:"sku" validate:"required,max_id"`
	Title      string      `json:"title" validate:"required,max_title"`
	Quantity   int32       `json:"quantity" validate:"gt=0"`
	Weight     *int32      `json:"weight,omitempty" validate:"omitnil,gt=0"`
	Dimensions *Dimensions `json:"dimensions,omitempty"`
	Discount   Int64       `json:"discount,omitzero" validate:"gte=0"`
	Price      Int64       `json:"price,omitzero" validate:"gte=0"`
	ImageURI   string      `json:"image_uri,omitempty" validate:"omitempty,httpsurl"`
	Attributes []string    `json:"attributes,omitempty" validate:"max_attributes,dive,max_name"`
}

// Dimensions are millimetres; each is required and positive.
type Dimensions struct {
	Height int32 `json:"height" validate:"gt=0"`
	Length int32 `json:"length" validate:"gt=0"`
	Width  int32 `json:"width" validate:"gt=0"`
}

// Fulfillment says when (part of) the goods are ready and which
// categories may carry them.
type Fulfillment struct {
	Readiness *Readiness `json:"readiness" validate:"required"`
	// CategoryTags restricts the delivery to the catalog categories with
	// these ids; empty means every category.
	CategoryTags []string `json:"category_tags,omitempty" validate:"max_category_tags,dive,max_id"`
}

// Readiness is when goods are ready; without LatestTime they stay ready
// indefinitely.
type Readiness struct {
	EarliestTime Timestamp `json:"earliest_time,omitzero" validate:"required"`
	LatestTime   Timestamp `json:"latest_time,omitzero"`
}

// MarshalJSON writes the Readiness's fields as their tags say (appendWindow).
func (r Readiness) MarshalJSON() ([]byte, error) {
	return appendWindow(make([]byte, 0, windowJSONSize), r.EarliestTime, r.LatestTime), nil
}

// Contact is a recipient or a location's contact.
type Contact struct {
	// Name is the person or place to address: the agentic conversion's
	// fulfillment_address.name. The spec's Contact has no name field;
	// this optional one is the module's addition (docs/ARCHITECTURE.md).
	Name        string       `json:"name,omitempty" validate:"max_name"`
	Address     *Address     `json:"address" validate:"required"`
	Email       string       `json:"email,omitempty" validate:"omitempty,max_email,email"`
	PhoneNumber *PhoneNumber `json:"phone_number,omitempty"`
}

// PhoneNumber is a phone number split the way dialling needs it.
type PhoneNumber struct {
	CountryCode string `json:"country_code" validate:"required,max_phone_country_code"`
	Number      string `json:"number" validate:"required,max_phone_number"`
	Extension   string `json:"extension,omitempty" validate:"max_phone_number"`
}

// Address is a postal address of the delivery session.
type Address struct {
	CountryCode string `json:"country_code" validate:"required,iso3166_1_alpha2"`
	// RegionCode is an ISO 3166-2 subdivision without the country prefix
	// ("AB" for SE-AB).
	RegionCode   string       `json:"region_code,omitempty" validate:"max_code"`
	PostalCode   string       `json:"postal_code,omitempty" validate:"max_code"`
	City         string       `json:"city,omitempty" validate:"max_name"`
	AddressLines []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	Coordinates  *Coordinates `json:"coordinates,omitempty"`
}

// Coordinates are WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// DeliveryCategory groups the options shown together ("Home delivery").
// It is computed by the options engine: read-only.
type DeliveryCategory struct {
	ID              string           `json:"id"`
	DeliveryType    DeliveryType     `json:"delivery_type"`
	DisplayName     string           `json:"display_name"`
	SortOrder       int32            `json:"sort_order"`
	OptionsSource   OptionsSource    `json:"options_source"`
	DeliveryOptions []DeliveryOption `json:"delivery_options"`
	ExternalID      string           `json:"external_id,omitempty"`
	Addons          []Addon          `json:"addons,omitempty"`
	Preselected     bool             `json:"preselected,omitempty"`
	Chosen          bool             `json:"chosen,omitempty"`
	Warehouse       *Warehouse       `json:"warehouse,omitempty"`
}

// Warehouse is where the goods of a category leave from.
type Warehouse struct {
	ID         string  `json:"id"`
	Address    Address `json:"address"`
	ExternalID string  `json:"external_id,omitempty"`
}

// DeliveryOption is one way to deliver: a carrier product at a price, with
// an estimate, at a pickup location for PICKUP and INSTORE.
type DeliveryOption struct {
	ID             string          `json:"id"`
	Carrier        Carrier         `json:"carrier"`
	ETD            ETD             `json:"etd"`
	Price          Int64           `json:"price"`
	PickupLocation *PickupLocation `json:"pickup_location,omitempty"`
	Preselected    bool            `json:"preselected,omitempty"`
	Chosen         bool            `json:"chosen,omitempty"`
	ExpireTime     Timestamp       `json:"expire_time,omitzero"`
	// VATRate is the VAT included in Price and in the category's addon
	// prices, in basis points: the carrier product's rate, as checkout
	// prices it. It is not on the wire (the spec's option has no such
	// field); the agentic conversion computes its tax from it.
	VATRate int `json:"-"`
}

// MetaProductRef is the Carrier.Meta key holding the catalog's product
// ref: the value other areas (a tracking order's carrier_product_ref) name
// the carrier product by.
const MetaProductRef = "product_ref"

// Carrier names the carrier product of an option.
type Carrier struct {
	Name        string `json:"name"`
	ProductName string `json:"product_name"`
	// ProductID is the carrier product reference: the value a checkout's
	// shipping_method, a tracking order's carrier_product_ref and a
	// shipment's shipping_method carry for the same product.
	ProductID string `json:"product_id"`
	// ExternalID is the product's external id in the catalog, or its
	// reference when the catalog gives none (the field is required).
	ExternalID string            `json:"external_id"`
	SortOrder  int32             `json:"sort_order,omitempty"`
	Meta       map[string]string `json:"meta,omitempty"`
}

// ETD is an estimated time of delivery: exactly one of Relative, Absolute
// and Custom. The options engine computes calendar dates, so sessions carry
// Absolute estimates; the other forms are part of the schema for clients.
type ETD struct {
	Relative *RelativeETD `json:"relative,omitempty"`
	Absolute *AbsoluteETD `json:"absolute,omitempty"`
	Custom   *CustomETD   `json:"custom,omitempty"`
}

// RelativeETD counts units from now.
type RelativeETD struct {
	Unit     TimeUnit `json:"unit"`
	Earliest int32    `json:"earliest,omitempty"`
	Latest   int32    `json:"latest,omitempty"`
}

// AbsoluteETD is a window of date-times: no earliest means immediately, no
// latest means no guaranteed maximum.
type AbsoluteETD struct {
	EarliestTime Timestamp `json:"earliest_time,omitzero"`
	LatestTime   Timestamp `json:"latest_time,omitzero"`
}

// MarshalJSON writes the AbsoluteETD's fields as their tags say (appendWindow).
func (a AbsoluteETD) MarshalJSON() ([]byte, error) {
	return appendWindow(make([]byte, 0, windowJSONSize), a.EarliestTime, a.LatestTime), nil
}

// CustomETD is a free-text estimate.
type CustomETD struct {
	Text string `json:"text"`
}

// Addon is an extra service bought with an option of its category.
type Addon struct {
	ID          string    `json:"id,omitempty"`
	DisplayName string    `json:"display_name"`
	Price       Int64     `json:"price"`
	AddonType   AddonType `json:"addon_type,omitempty"`
	Preselected bool      `json:"preselected,omitempty"`
	Chosen      bool      `json:"chosen,omitempty"`
}

// PickupLocation is a pickup point, locker or store.
type PickupLocation struct {
	ID               string            `json:"id" validate:"required,max_id"`
	ExternalID       string            `json:"external_id" validate:"required,max_ref"`
	Title            string            `json:"title" validate:"required,max_title"`
	LocationType     LocationType      `json:"location_type,omitempty" validate:"omitempty,oneof=LOCATION_TYPE_UNSPECIFIED LOCKER STORE POSTOFFICE MANNED"`
	VisitingContact  *Contact          `json:"visiting_contact,omitempty"`
	DeliveryContact  *Contact          `json:"delivery_contact,omitempty"`
	OperationalHours *OperationalHours `json:"operational_hours,omitempty"`
	Sections         []Section         `json:"sections,omitempty" validate:"max_sections,dive"`
	// Distances are read-only: the engine's walking and driving estimates
	// from the recipient's address.
	Distances *Distances `json:"distances,omitempty" validate:"-"`
}

// OperationalHours lists opening ranges ("08:00-20:00") per weekday; a
// location with none is available at all times.
type OperationalHours struct {
	Monday    []string `json:"monday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Tuesday   []string `json:"tuesday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Wednesday []string `json:"wednesday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Thursday  []string `json:"thursday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Friday    []string `json:"friday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Saturday  []string `json:"saturday,omitempty" validate:"max_day_ranges,dive,max_code"`
	Sunday    []string `json:"sunday,omitempty" validate:"max_day_ranges,dive,max_code"`
	FreeText  []string `json:"free_text,omitempty" validate:"max_free_text,dive,max_title"`
}

// Section is a block of information shown with a location.
type Section struct {
	Title   string   `json:"title" validate:"required,max_title"`
	Columns []Column `json:"columns" validate:"required,max_columns,dive"`
}

// Column is one column of a Section.
type Column struct {
	Items []ColumnItem `json:"items" validate:"required,max_column_items,dive"`
}

// ColumnItem is one entry of a Column.
type ColumnItem struct {
	IconURI string `json:"icon_uri,omitempty" validate:"omitempty,httpsurl"`
	Text    string `json:"text,omitempty" validate:"max_title"`
	LinkURI string `json:"link_uri,omitempty" validate:"omitempty,httpsurl"`
}

// Distances estimate the way to a pickup location.
type Distances struct {
	Walking *Distance `json:"walking,omitempty"`
	Driving *Distance `json:"driving,omitempty"`
}

// Distance is a length and a duration.
type Distance struct {
	Meters  Int64 `json:"meters"`
	Minutes Int64 `json:"minutes"`
}

// DeliveryNode is a place a delivery passes: where goods are handed off
// (ORIGIN) or go (DESTINATION).
type DeliveryNode struct {
	Handoff  *Handoff        `json:"handoff,omitempty"`
	Location *PickupLocation `json:"location,omitempty"`
	Roles    []Role          `json:"roles,omitempty" validate:"max_roles,dive,oneof=ROLE_UNSPECIFIED ORIGIN DESTINATION"`
	Tags     []string        `json:"tags,omitempty" validate:"max_node_tags,dive,max_id"`
}

// Handoff is when goods are handed over at a node.
type Handoff struct {
	EarliestTime Timestamp `json:"earliest_time,omitzero"`
	LatestTime   Timestamp `json:"latest_time,omitzero"`
}

// MarshalJSON writes the Handoff's fields as their tags say (appendWindow).
func (h Handoff) MarshalJSON() ([]byte, error) {
	return appendWindow(make([]byte, 0, windowJSONSize), h.EarliestTime, h.LatestTime), nil
}

// DeliveryChoice is the customer's choice for one delivery.
type DeliveryChoice struct {
	DeliveryID string   `json:"delivery_id" validate:"required,max_id"`
	OptionID   string   `json:"option_id" validate:"required,max_ref"`
	AddonIDs   []string `json:"addon_ids,omitempty" validate:"max_addons,dive,max_id"`
	// ExternalID is the merchant's id for the delivery, used as the
	// external id of the order.
	ExternalID string `json:"external_id,omitempty" validate:"max_ref"`
}

// CompleteRequest is the body of :complete.
type CompleteRequest struct {
	DeliveryChoices []DeliveryChoice `json:"delivery_choices" validate:"required,max_deliveries,dive"`
	// Etag, when set, must equal the session's current etag.
	Etag string `json:"etag,omitempty" validate:"max_id"`
}

// CompleteResponse is the answer of :complete.
type CompleteResponse struct {
	Session *Session `json:"session"`
}

// ReturnsPromise is what the merchant promises about returns, from the
// catalog's return policy (read-only).
type ReturnsPromise struct {
	ID               string `json:"id,omitempty"`
	CurrencyCode     string `json:"currency_code,omitempty"`
	ReturnsEnabled   bool   `json:"returns_enabled,omitempty"`
	ReturnCost       Int64  `json:"return_cost,omitzero"`
	ExchangesEnabled bool   `json:"exchanges_enabled,omitempty"`
	ExchangeCost     Int64  `json:"exchange_cost,omitzero"`
	ReturnTimeDays   int32  `json:"return_time_days,omitempty"`
	ReturnPolicyText string `json:"return_policy_text,omitempty"`
	ReturnPolicyURL  string `json:"return_policy_url,omitempty"`
	// IsUnavailable is true when no promise could be computed: the site
	// has no return policy, or its policy is in another currency than
	// the purchase.
	IsUnavailable bool `json:"is_unavailable,omitempty"`
}

// MarshalJSON writes an available promise's costs even when they are 0:
// free returns or exchanges are a promise an agent must see, not a
// missing field. An unavailable promise has no costs to write.
//
// It encodes with the store's codec, which writes what encoding/json
// writes (TestReturnsPromiseEncodesAsEncodingJSON): encoding/json's
// reflection was 1.4% of a delivery.create under load.
func (p ReturnsPromise) MarshalJSON() ([]byte, error) {
	type plain ReturnsPromise // without this method
	if p.IsUnavailable {
		return gojson.Marshal(plain(p))
	}
	return gojson.Marshal(struct {
		plain
		ReturnCost   Int64 `json:"return_cost"`
		ExchangeCost Int64 `json:"exchange_cost"`
	}{plain(p), p.ReturnCost, p.ExchangeCost})
}

// ConvertResponse is the answer of :convert. For FormatAgenticCheckout one
// of AgenticCheckout (the spec's shape, ACPVersion) and ACPCheckout
// (ACPVersionCurrent) is set; either is written as agentic_checkout.
type ConvertResponse struct {
	Native          *Session                `json:"native"`
	AgenticCheckout *AgenticCheckoutSession `json:"agentic_checkout,omitempty"`
	ACPCheckout     *ACPCheckoutSession     `json:"-"`
}

// MarshalJSON writes ACPCheckout, when set, as agentic_checkout.
func (r ConvertResponse) MarshalJSON() ([]byte, error) {
	type plain ConvertResponse // without this method
	if r.ACPCheckout == nil {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		Native          *Session            `json:"native"`
		AgenticCheckout *ACPCheckoutSession `json:"agentic_checkout"`
	}{r.Native, r.ACPCheckout})
}

// AgenticCheckoutSession is the session in the shape of the Agentic
// Commerce Protocol, version 2025-09-29 (ACPVersion).
type AgenticCheckoutSession struct {
	Name       string            `json:"name"`
	Deliveries []AgenticDelivery `json:"deliveries"`
}

// AgenticDelivery is one delivery with its fulfillment options.
type AgenticDelivery struct {
	ID                  string                     `json:"id"`
	FulfillmentAddress  *FulfillmentAddress        `json:"fulfillment_address,omitempty"`
	FulfillmentOptions  []AgenticFulfillmentOption `json:"fulfillment_options"`
	FulfillmentOptionID string                     `json:"fulfillment_option_id,omitempty"`
}

// FulfillmentAddress is the recipient address in agentic checkout form.
type FulfillmentAddress struct {
	Name       string `json:"name,omitempty"`
	LineOne    string `json:"line_one,omitempty"`
	LineTwo    string `json:"line_two,omitempty"`
	City       string `json:"city,omitempty"`
	State      string `json:"state,omitempty"`
	Country    string `json:"country"`
	PostalCode string `json:"postal_code,omitempty"`
}

// FulfillmentTypeShipping is the only fulfillment option type emitted.
const FulfillmentTypeShipping = "shipping"

// AgenticFulfillmentOption is one delivery option in agentic checkout
// form. Amounts are minor units as int64 strings.
type AgenticFulfillmentOption struct {
	Type                 string    `json:"type"`
	ID                   string    `json:"id"`
	Title                string    `json:"title"`
	Subtitle             string    `json:"subtitle,omitempty"`
	Carrier              string    `json:"carrier,omitempty"`
	EarliestDeliveryTime Timestamp `json:"earliest_delivery_time,omitzero"`
	LatestDeliveryTime   Timestamp `json:"latest_delivery_time,omitzero"`
	Subtotal             Int64     `json:"subtotal"`
	Tax                  Int64     `json:"tax"`
	Total                Int64     `json:"total"`
}
