package session

import (
	"time"

	"github.com/deliverykit/deliverykit/internal/stored"
)

// Stored sessions. A session is stored as a storedSession, whose types
// below name their JSON fields themselves: changing a wire type's tags (or
// the encoding of Int64 or Timestamp) changes no stored byte. views.go
// converts between them and the record the service works with.
//
// Schemas:
//   - 1: records without a schema field. Their layout is schema 2's: the
//     record types took the names and encodings (amounts as decimal
//     strings) the wire types had when those records were written (the
//     wire Session was stored then). Records written before the carrier
//     product reference was carrier.product_id hold the carrier's own
//     product id there and the reference in the meta; records written
//     before options inputs were stored hold an ACTIVE session's
//     categories and no inputs, and are read as stored.
//   - 2: a schema field; carrier.product_id is the reference. Options
//     gained vat_rate and contacts name later, both optional: records
//     written before have none, and their agentic tax is 0.
//
// A change of a stored name or meaning needs a new schema number and a
// step in upgradeSession.
const sessionSchema = 2

// sessions holds the stored sessions, keyed by site and session id. Every
// read goes through upgradeSession.
var sessions = stored.Collection[record, storedSession]{Name: "session.sessions", Record: storeSession, Value: loadStoredSession}

// storedSession is a session as stored (see record for what an ACTIVE and
// a COMPLETED one keep).
type storedSession struct {
	Schema         int              `json:"schema"`
	Name           string           `json:"name,omitempty"`
	State          State            `json:"state,omitempty"`
	Purchase       *purchaseRecord  `json:"purchase,omitempty"`
	Deliveries     []deliveryRecord `json:"deliveries,omitempty"`
	CreateTime     time.Time        `json:"create_time,omitzero"`
	UpdateTime     time.Time        `json:"update_time,omitzero"`
	ReturnsPromise *promiseRecord   `json:"returns_promise,omitempty"`
	OptionsInputs  []inputRecord    `json:"options_inputs,omitempty"`
}

// upgradeSession brings a record of an earlier schema to sessionSchema.
func upgradeSession(r *storedSession) error {
	if err := stored.CheckSchema("session", r.Schema, sessionSchema); err != nil {
		return err
	}
	if r.Schema < 2 {
		// carrier.product_id becomes the reference, kept in the meta
		// of records that had the carrier's product id there.
		for i := range r.Deliveries {
			for j := range r.Deliveries[i].DeliveryCategories {
				opts := r.Deliveries[i].DeliveryCategories[j].DeliveryOptions
				for k := range opts {
					if ref := opts[k].Carrier.Meta[MetaProductRef]; ref != "" {
						opts[k].Carrier.ProductID = ref
					}
				}
			}
		}
		r.Schema = 2
	}
	return nil
}

// inputRecord is what a delivery's options were computed from (see
// optionsInput).
type inputRecord struct {
	At          time.Time          `json:"at"`
	Coordinates *coordinatesRecord `json:"coordinates,omitempty"`
}

type purchaseRecord struct {
	CountryCode   string   `json:"country_code"`
	CurrencyCode  string   `json:"currency_code"`
	TotalDiscount int64    `json:"total_discount,omitzero,string"`
	TotalValue    int64    `json:"total_value,omitzero,string"`
	Vouchers      []string `json:"vouchers,omitempty"`
	Locales       []string `json:"locales,omitempty"`
}

type deliveryRecord struct {
	ID                 string              `json:"id"`
	LineItems          []lineItemRecord    `json:"line_items"`
	Fulfillments       []fulfillmentRecord `json:"fulfillments"`
	RecipientContact   *contactRecord      `json:"recipient_contact"`
	Attributes         []string            `json:"attributes,omitempty"`
	Nodes              []nodeRecord        `json:"nodes,omitempty"`
	DeliveryCategories []categoryRecord    `json:"delivery_categories,omitempty"`
	TosID              string              `json:"tos_id,omitempty"`
	ExternalID         string              `json:"external_id,omitempty"`
}

type lineItemRecord struct {
	SKU        string            `json:"sku"`
	Title      string            `json:"title"`
	Quantity   int32             `json:"quantity"`
	Weight     *int32            `json:"weight,omitempty"`
	Dimensions *dimensionsRecord `json:"dimensions,omitempty"`
	Discount   int64             `json:"discount,omitzero,string"`
	Price      int64             `json:"price,omitzero,string"`
	ImageURI   string            `json:"image_uri,omitempty"`
	Attributes []string          `json:"attributes,omitempty"`
}

type dimensionsRecord struct {
	Height int32 `json:"height"`
	Length int32 `json:"length"`
	Width  int32 `json:"width"`
}

type fulfillmentRecord struct {
	Readiness    *windowRecord `json:"readiness"`
	CategoryTags []string      `json:"category_tags,omitempty"`
}

// windowRecord is a readiness, a handoff or an absolute estimate: two
// optional times.
type windowRecord struct {
	EarliestTime time.Time `json:"earliest_time,omitzero"`
	LatestTime   time.Time `json:"latest_time,omitzero"`
}

type contactRecord struct {
	Name        string         `json:"name,omitempty"`
	Address     *addressRecord `json:"address"`
	Email       string         `json:"email,omitempty"`
	PhoneNumber *phoneRecord   `json:"phone_number,omitempty"`
}

type phoneRecord struct {
	CountryCode string `json:"country_code"`
	Number      string `json:"number"`
	Extension   string `json:"extension,omitempty"`
}

type addressRecord struct {
	CountryCode  string             `json:"country_code"`
	RegionCode   string             `json:"region_code,omitempty"`
	PostalCode   string             `json:"postal_code,omitempty"`
	City         string             `json:"city,omitempty"`
	AddressLines []string           `json:"address_lines,omitempty"`
	Coordinates  *coordinatesRecord `json:"coordinates,omitempty"`
}

type coordinatesRecord struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

type nodeRecord struct {
	Handoff  *windowRecord   `json:"handoff,omitempty"`
	Location *locationRecord `json:"location,omitempty"`
	Roles    []Role          `json:"roles,omitempty"`
	Tags     []string        `json:"tags,omitempty"`
}

type locationRecord struct {
	ID               string           `json:"id"`
	ExternalID       string           `json:"external_id"`
	Title            string           `json:"title"`
	LocationType     LocationType     `json:"location_type,omitempty"`
	VisitingContact  *contactRecord   `json:"visiting_contact,omitempty"`
	DeliveryContact  *contactRecord   `json:"delivery_contact,omitempty"`
	OperationalHours *hoursRecord     `json:"operational_hours,omitempty"`
	Sections         []sectionRecord  `json:"sections,omitempty"`
	Distances        *distancesRecord `json:"distances,omitempty"`
}

type hoursRecord struct {
	Monday    []string `json:"monday,omitempty"`
	Tuesday   []string `json:"tuesday,omitempty"`
	Wednesday []string `json:"wednesday,omitempty"`
	Thursday  []string `json:"thursday,omitempty"`
	Friday    []string `json:"friday,omitempty"`
	Saturday  []string `json:"saturday,omitempty"`
	Sunday    []string `json:"sunday,omitempty"`
	FreeText  []string `json:"free_text,omitempty"`
}

type sectionRecord struct {
	Title   string         `json:"title"`
	Columns []columnRecord `json:"columns"`
}

type columnRecord struct {
	Items []columnItemRecord `json:"items"`
}

type columnItemRecord struct {
	IconURI string `json:"icon_uri,omitempty"`
	Text    string `json:"text,omitempty"`
	LinkURI string `json:"link_uri,omitempty"`
}

type distancesRecord struct {
	Walking *distanceRecord `json:"walking,omitempty"`
	Driving *distanceRecord `json:"driving,omitempty"`
}

type distanceRecord struct {
	Meters  int64 `json:"meters,string"`
	Minutes int64 `json:"minutes,string"`
}

type categoryRecord struct {
	ID              string           `json:"id"`
	DeliveryType    DeliveryType     `json:"delivery_type"`
	DisplayName     string           `json:"display_name"`
	SortOrder       int32            `json:"sort_order"`
	OptionsSource   OptionsSource    `json:"options_source"`
	DeliveryOptions []optionRecord   `json:"delivery_options"`
	ExternalID      string           `json:"external_id,omitempty"`
	Addons          []addonRecord    `json:"addons,omitempty"`
	Preselected     bool             `json:"preselected,omitempty"`
	Chosen          bool             `json:"chosen,omitempty"`
	Warehouse       *warehouseRecord `json:"warehouse,omitempty"`
}

type warehouseRecord struct {
	ID         string        `json:"id"`
	Address    addressRecord `json:"address"`
	ExternalID string        `json:"external_id,omitempty"`
}

type optionRecord struct {
	ID             string          `json:"id"`
	Carrier        carrierRecord   `json:"carrier"`
	ETD            etdRecord       `json:"etd"`
	Price          int64           `json:"price,string"`
	PickupLocation *locationRecord `json:"pickup_location,omitempty"`
	Preselected    bool            `json:"preselected,omitempty"`
	Chosen         bool            `json:"chosen,omitempty"`
	ExpireTime     time.Time       `json:"expire_time,omitzero"`
	VATRate        int             `json:"vat_rate,omitempty"`
}

type carrierRecord struct {
	Name        string            `json:"name"`
	ProductName string            `json:"product_name"`
	ProductID   string            `json:"product_id"`
	ExternalID  string            `json:"external_id"`
	SortOrder   int32             `json:"sort_order,omitempty"`
	Meta        map[string]string `json:"meta,omitempty"`
}

type etdRecord struct {
	Relative *relativeRecord `json:"relative,omitempty"`
	Absolute *windowRecord   `json:"absolute,omitempty"`
	Custom   *customRecord   `json:"custom,omitempty"`
}

type relativeRecord struct {
	Unit     TimeUnit `json:"unit"`
	Earliest int32    `json:"earliest,omitempty"`
	Latest   int32    `json:"latest,omitempty"`
}

type customRecord struct {
	Text string `json:"text"`
}

type addonRecord struct {
	ID          string    `json:"id,omitempty"`
	DisplayName string    `json:"display_name"`
	Price       int64     `json:"price,string"`
	AddonType   AddonType `json:"addon_type,omitempty"`
	Preselected bool      `json:"preselected,omitempty"`
	Chosen      bool      `json:"chosen,omitempty"`
}

type promiseRecord struct {
	ID               string `json:"id,omitempty"`
	CurrencyCode     string `json:"currency_code,omitempty"`
	ReturnsEnabled   bool   `json:"returns_enabled,omitempty"`
	ReturnCost       int64  `json:"return_cost,omitzero,string"`
	ExchangesEnabled bool   `json:"exchanges_enabled,omitempty"`
	ExchangeCost     int64  `json:"exchange_cost,omitzero,string"`
	ReturnTimeDays   int32  `json:"return_time_days,omitempty"`
	ReturnPolicyText string `json:"return_policy_text,omitempty"`
	ReturnPolicyURL  string `json:"return_policy_url,omitempty"`
	IsUnavailable    bool   `json:"is_unavailable,omitempty"`
}
