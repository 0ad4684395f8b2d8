package checkout

import (
	"time"

	"github.com/deliverykit/deliverykit"
)

// Status is a session's state; the package documentation has the
// transitions.
type Status string

// The session states. A COMPLETE session is frozen.
const (
	StatusActive   Status = "ACTIVE"
	StatusComplete Status = "COMPLETE"
)

// Selection says how the session's shipping option was chosen.
type Selection string

// The selection values. PRESELECTED_CHOICE is also what a session completed
// without a customer choice carries: its option is the preselected one for
// the customer's address.
const (
	SelectionUndefined   Selection = "RESULT_SELECTION_UNDEFINED"
	SelectionPreselected Selection = "PRESELECTED_CHOICE"
	SelectionUser        Selection = "USER_CHOICE"
	// The fallback's selections: the catalog's fallback is the result
	// because no carrier product serves the address. FROM_USER_CHOICE when
	// the customer had chosen an option that is no longer offered.
	SelectionFallbackFromUser        Selection = "FALLBACK_FROM_USER_CHOICE"
	SelectionFallbackFromPreselected Selection = "FALLBACK_FROM_PRESELECTED_CHOICE"
	// The failed fallbacks: nothing, not even a fallback, is offered.
	// A session in that state has no result; these values are never
	// stored and are listed for clients that switch on every value.
	SelectionFallbackFailedForUser        Selection = "FALLBACK_FAILED_FOR_USER_CHOICE"
	SelectionFallbackFailedForPreselected Selection = "FALLBACK_FAILED_FOR_PRESELECTED_CHOICE"
)

// PriceComponentType classifies a part of the shipping price.
type PriceComponentType string

// The price component types.
const (
	PriceComponentUndefined PriceComponentType = "PRICE_COMPONENT_TYPE_UNDEFINED"
	PriceComponentShipping  PriceComponentType = "PRICE_COMPONENT_TYPE_SHIPPING"
	PriceComponentAddon     PriceComponentType = "PRICE_COMPONENT_TYPE_ADDON"
	PriceComponentReturn    PriceComponentType = "PRICE_COMPONENT_TYPE_RETURN"
)

// Session is the checkout shipping session as the API shows it, under the
// key "session" of every answer.
type Session struct {
	ID                     string          `json:"id"`
	Status                 Status          `json:"status"`
	Cart                   Cart            `json:"cart"`
	SelectedShippingOption *ShippingOption `json:"selected_shipping_option,omitempty"`
	// ShippingPrice is the selected option's price plus chosen addons,
	// in minor units.
	ShippingPrice int64          `json:"shipping_price"`
	ExpiresAt     time.Time      `json:"expires_at"`
	Customer      *Customer      `json:"customer,omitempty"`
	SearchAddress *SearchAddress `json:"search_address,omitempty"`
	// ExternalID is the merchant's order number, as it sent it; completing
	// makes it the tracking order's external id.
	ExternalID string            `json:"external_id,omitempty"`
	TosID      string            `json:"tos_id,omitempty"`
	Result     *Result           `json:"result,omitempty"`
	Meta       map[string]string `json:"meta,omitempty"`
}

// Cart is the merchant's cart. Amounts are minor units.
type Cart struct {
	CartID        string `json:"cart_id,omitempty" validate:"max_ref"`
	TotalValue    int64  `json:"total_value" validate:"gte=0,checkout_amount"`
	TotalDiscount int64  `json:"total_discount" validate:"gte=0,checkout_amount"`
	Currency      string `json:"currency,omitempty" validate:"omitempty,iso4217"`
	PreOrder      bool   `json:"pre_order"`
	// Vouchers are the purchase's voucher codes, lower-cased; they price
	// through the catalog's voucher rules. Voucher is the single code
	// older clients send: it joins Vouchers and is never echoed.
	Vouchers []string   `json:"vouchers,omitempty" validate:"checkout_vouchers,dive,max_code"`
	Voucher  string     `json:"voucher,omitempty" validate:"max_code"`
	Items    []CartItem `json:"items" validate:"checkout_cart_items,dive"`
	// Attributes are the cart's own attributes; with the items' they
	// drive the catalog's filter and price rules.
	Attributes []string `json:"attributes,omitempty" validate:"checkout_attributes,dive,max_id"`
	// ShippingDate is when the whole cart can ship (see ShippingDate).
	ShippingDate *ShippingDate `json:"shipping_date,omitempty"`
}

// CartItem is one cart line.
type CartItem struct {
	SKU        string   `json:"sku,omitempty" validate:"required,max_id"`
	Name       string   `json:"name,omitempty" validate:"max_name"`
	Attributes []string `json:"attributes,omitempty" validate:"checkout_attributes,dive,max_id"`
	OutOfStock bool     `json:"out_of_stock"`
	Quantity   int64    `json:"quantity" validate:"gte=0,checkout_quantity"`
	// Price is the unit price in minor units; Discount the line's discount.
	Price    int64  `json:"price" validate:"gte=0,checkout_amount"`
	Discount int64  `json:"discount" validate:"gte=0,checkout_amount"`
	Image    string `json:"image,omitempty" validate:"omitempty,httpsurl"`
	// Weight is grams per unit; Dimensions millimetres. Both feed the
	// catalog's weight bands and size filters.
	Weight     int64       `json:"weight,omitempty" validate:"gte=0,checkout_weight"`
	Dimensions *Dimensions `json:"dimensions,omitempty"`
	// ShippingDate is when the item can ship: its handling time.
	ShippingDate *ShippingDate `json:"shipping_date,omitempty"`
}

// Dimensions are millimetres.
type Dimensions struct {
	Height int64 `json:"height" validate:"gte=0,checkout_dimension"`
	Length int64 `json:"length" validate:"gte=0,checkout_dimension"`
	Width  int64 `json:"width" validate:"gte=0,checkout_dimension"`
}

// SearchAddress is the area options are searched for; it need not be the
// customer's address. The service sets Coordinates when it can place it.
// Coordinates sent by the merchant are used as given; without them the
// service places the postal code and reports where.
type SearchAddress struct {
	PostalCode   string       `json:"postal_code,omitempty" validate:"checkout_short"`
	Country      string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	Region       string       `json:"region,omitempty" validate:"max_id"`
	City         string       `json:"city,omitempty" validate:"max_id"`
	AddressLines []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	Coordinates  *Coordinates `json:"coordinates,omitempty"`
}

// Coordinates are WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// Customer is who receives the goods; the merchant supplies it at the latest
// in Complete.
type Customer struct {
	Email   string           `json:"email,omitempty" validate:"omitempty,max=254,email"`
	Phone   string           `json:"phone,omitempty" validate:"checkout_short"`
	Address *CustomerAddress `json:"address,omitempty"`
}

// CustomerAddress is the delivery address. Street, StreetNumber and
// ApartmentNumber are the parts some carriers need apart; AddressLines is
// the address as written. Coordinates, when given, place the address for
// pickup-point distances instead of its postal code.
type CustomerAddress struct {
	Name            string       `json:"name,omitempty" validate:"max_name"`
	AddressLines    []string     `json:"address_lines,omitempty" validate:"max_address_lines,dive,max_name"`
	Street          string       `json:"street,omitempty" validate:"max_name"`
	StreetNumber    string       `json:"street_number,omitempty" validate:"checkout_short"`
	ApartmentNumber string       `json:"apartment_number,omitempty" validate:"checkout_short"`
	City            string       `json:"city,omitempty" validate:"max_id"`
	PostalCode      string       `json:"postal_code,omitempty" validate:"checkout_short"`
	Region          string       `json:"region,omitempty" validate:"max_id"`
	Country         string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	CareOf          string       `json:"care_of,omitempty" validate:"max_name"`
	Attn            string       `json:"attn,omitempty" validate:"max_name"`
	DoorCode        string       `json:"door_code,omitempty" validate:"checkout_short"`
	Coordinates     *Coordinates `json:"coordinates,omitempty"`
}

// ShippingOption is the selected delivery option.
type ShippingOption struct {
	// ShippingMethod is the carrier product's reference: the value
	// tracking orders (carrier_product_ref) and shipments accept.
	ShippingMethod string `json:"shipping_method"`
	// DeliveryType is lower case: delivery, pickup, mailbox or instore.
	DeliveryType string    `json:"delivery_type"`
	Carrier      string    `json:"carrier"`
	Product      string    `json:"product"`
	Price        int64     `json:"price"`
	Currency     string    `json:"currency"`
	Location     *Location `json:"location,omitempty"`
	TimeSlot     *TimeSlot `json:"time_slot,omitempty"`
	// Addons lists the ids of the chosen addons (an extension).
	Addons []string `json:"addons,omitempty"`
}

// TimeSlot is a delivery window. ID identifies the chosen option (its
// category, product and pickup location); Expires is when the offer lapses
// and the options are computed again.
type TimeSlot struct {
	ID      string     `json:"id,omitempty"`
	Expires *time.Time `json:"expires,omitempty"`
	Start   time.Time  `json:"start"`
	End     time.Time  `json:"end"`
}

// Location is a pickup location.
type Location struct {
	ExternalID       string            `json:"external_id"`
	Name             string            `json:"name"`
	Address          *LocationAddress  `json:"address,omitempty"`
	Distance         *Distance         `json:"distance,omitempty"`
	OperationalHours map[string]string `json:"operational_hours,omitempty"`
	Meta             map[string]string `json:"meta,omitempty"`
	LocationType     string            `json:"location_type,omitempty"`
}

// LocationAddress is the address of a location or warehouse.
type LocationAddress struct {
	Name         string       `json:"name,omitempty"`
	AddressLines []string     `json:"address_lines,omitempty"`
	City         string       `json:"city,omitempty"`
	PostalCode   string       `json:"postal_code,omitempty"`
	Country      string       `json:"country,omitempty"`
	Coordinates  *Coordinates `json:"coordinates,omitempty"`
}

// Distance is the way to a location, on foot and by car.
type Distance struct {
	Walking *DistanceValue `json:"walking,omitempty"`
	Driving *DistanceValue `json:"driving,omitempty"`
}

// DistanceValue is metres and minutes.
type DistanceValue struct {
	Value    int64 `json:"value"`
	Duration int64 `json:"duration"`
}

// Result is the final outcome of the session: what the merchant reads
// after completion.
type Result struct {
	Shipping     *ResultShipping `json:"shipping,omitempty"`
	Category     *ResultCategory `json:"category,omitempty"`
	Pricing      *Pricing        `json:"pricing,omitempty"`
	Selection    Selection       `json:"selection,omitempty"`
	DeliveryTime *DeliveryTime   `json:"delivery_time,omitempty"`
}

// ResultShipping is the chosen shipping.
//
// ShippingMethod is the carrier product's reference and ExternalMethodID the
// merchant's id for that product: the two identities a product has.
type ResultShipping struct {
	ShippingMethod   string          `json:"shipping_method"`
	DeliveryType     string          `json:"delivery_type"`
	Carrier          string          `json:"carrier"`
	Product          string          `json:"product"`
	Location         *Location       `json:"location,omitempty"`
	DeliveryTime     *TimeSlot       `json:"delivery_time,omitempty"`
	ExternalMethodID string          `json:"external_method_id,omitempty"`
	Addons           []Addon         `json:"addons,omitempty"`
	DeliveryAddons   []DeliveryAddon `json:"delivery_addons,omitempty"`
	// Meta is the catalog product's meta and the session's, the
	// session's winning a key both have; an empty object when neither
	// has any.
	Meta      map[string]string `json:"meta"`
	Supports  Supports          `json:"supports"`
	Warehouse *Warehouse        `json:"warehouse,omitempty"`
}

// Addon is a chosen addon as the result shows it: Code is its id.
type Addon struct {
	Code        string `json:"code"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// DeliveryAddon names a chosen addon by its id and the merchant's id.
type DeliveryAddon struct {
	ID              string `json:"id"`
	ExternalAddonID string `json:"external_addon_id,omitempty"`
}

// Supports says what the customer may enter for the chosen product.
type Supports struct {
	CourierInstructions bool `json:"courier_instructions"`
	CustomerNumber      bool `json:"customer_number"`
	DoorCode            bool `json:"door_code"`
	Search              bool `json:"search"`
}

// Warehouse is where the goods leave from.
type Warehouse struct {
	Address *LocationAddress `json:"address,omitempty"`
}

// ResultCategory is the chosen category.
type ResultCategory struct {
	ID string `json:"id"`
	// Name is in the catalog's default locale; PresentedCategoryName in
	// the locale the customer saw.
	Name                  string        `json:"name"`
	PresentedCategoryName string        `json:"presented_category_name"`
	ExternalID            string        `json:"external_id,omitempty"`
	BasePrice             int64         `json:"base_price"`
	CustomText            string        `json:"custom_text,omitempty"`
	CustomWarningText     string        `json:"custom_warning_text,omitempty"`
	Tags                  []CategoryTag `json:"tags,omitempty"`
}

// CategoryTag labels a category.
type CategoryTag struct {
	Name string `json:"name"`
}

// Pricing is the shipping price and its parts, in minor units. Price
// includes VAT; NetPrice is Price less the VAT of every component.
type Pricing struct {
	Currency        string           `json:"currency"`
	Price           int64            `json:"price"`
	NetPrice        int64            `json:"net_price"`
	PriceComponents []PriceComponent `json:"price_components"`
}

// PriceComponent is one part of the shipping price: the option itself
// (SHIPPING) or an addon (ADDON). Value includes VAT; VAT is the part of
// Value that is VAT, at VATRate basis points (2500 is 25 %), rounded to
// the nearest minor unit.
type PriceComponent struct {
	Type    PriceComponentType `json:"type"`
	ID      string             `json:"id,omitempty"`
	Name    string             `json:"name,omitempty"`
	Value   int64              `json:"value"`
	VAT     int64              `json:"vat"`
	VATRate int                `json:"vat_rate"`
}

// DeliveryTime holds the promises of the chosen option.
type DeliveryTime struct {
	PickupFromMerchant      *Window `json:"pickup_from_merchant,omitempty"`
	CustomerDeliveryPromise *Window `json:"customer_delivery_promise,omitempty"`
	CarrierDeliveryPromise  *Window `json:"carrier_delivery_promise,omitempty"`
}

// Window is an earliest/latest pair.
type Window struct {
	Earliest time.Time `json:"earliest"`
	Latest   time.Time `json:"latest"`
}

// CreateRequest is the body of session.create.
type CreateRequest struct {
	PurchaseCountry  string `json:"purchase_country" validate:"required,iso3166_1_alpha2"`
	PurchaseCurrency string `json:"purchase_currency" validate:"required,iso4217"`
	// Locales are the customer's locales ("sv-SE"), best first. Locale
	// is accepted for clients that send one.
	Locales       []string       `json:"locales,omitempty" validate:"max_locales,dive,max_locale"`
	Locale        string         `json:"locale,omitempty" validate:"max_locale"`
	Cart          *Cart          `json:"cart" validate:"required"`
	SearchAddress *SearchAddress `json:"search_address,omitempty"`
	Customer      *Customer      `json:"customer,omitempty"`
	// ExternalID is the merchant's order number (see Session.ExternalID).
	ExternalID string `json:"external_id,omitempty" validate:"max_ref,keysafe"`
	// Meta is the merchant's own data, echoed as session.meta.
	Meta Meta `json:"meta,omitempty" validate:"checkout_meta,dive,keys,max_code,endkeys,max_ref"`
	// AddressForm (an extension) makes the widget collect the shopper's
	// delivery and billing addresses, as it does for sessions of the
	// newer API generation; the session's customer still comes from the
	// merchant.
	AddressForm bool `json:"address_form,omitempty"`
	// SnippetConfiguration renames html_snippet's container and global.
	SnippetConfiguration *SnippetConfiguration `json:"snippet_configuration,omitempty"`
}

// Meta is a small map of the merchant's own strings.
type Meta = map[string]string

// UpdateRequest is the body of session.update: any of cart, customer,
// search address, external id and meta. Options are computed again when
// the cart or the address they are for changes.
type UpdateRequest struct {
	ID            string         `json:"id" validate:"required,max_id"`
	Cart          *Cart          `json:"cart,omitempty"`
	Customer      *Customer      `json:"customer,omitempty"`
	SearchAddress *SearchAddress `json:"search_address,omitempty"`
	ExternalID    string         `json:"external_id,omitempty" validate:"max_ref,keysafe"`
	Meta          Meta           `json:"meta,omitempty" validate:"checkout_meta,dive,keys,max_code,endkeys,max_ref"`
	// SnippetConfiguration, when given, replaces the session's.
	SnippetConfiguration *SnippetConfiguration `json:"snippet_configuration,omitempty"`
}

// CompleteRequest is the body of session.complete. ExternalID, when given,
// replaces the session's: it is the tracking order's external id.
type CompleteRequest struct {
	ID         string    `json:"id" validate:"required,max_id"`
	Customer   *Customer `json:"customer,omitempty"`
	ExternalID string    `json:"external_id,omitempty" validate:"max_ref,keysafe"`
}

// CreateFromOrderRequest is the body of session.createFromOrder: a new
// ACTIVE session with the cart, customer and search address of the
// completed session whose tos_id is given.
type CreateFromOrderRequest struct {
	TosID      string   `json:"tos_id" validate:"required,max_id"`
	ExternalID string   `json:"external_id,omitempty" validate:"max_ref,keysafe"`
	Locales    []string `json:"locales,omitempty" validate:"max_locales,dive,max_locale"`
	Meta       Meta     `json:"meta,omitempty" validate:"checkout_meta,dive,keys,max_code,endkeys,max_ref"`
	// SnippetConfiguration, when given, is the new session's; otherwise
	// it keeps the completed session's.
	SnippetConfiguration *SnippetConfiguration `json:"snippet_configuration,omitempty"`
}

// Summary is one entry of sessions_summaries.list.
type Summary struct {
	SessionID string  `json:"session_id"`
	Result    *Result `json:"result,omitempty"`
}

// Summaries is what sessions_summaries.list answers.
type Summaries struct {
	Results []Summary `json:"results"`
}

// View is a session with its widget: what create, update and get answer.
type View struct {
	Session     Session `json:"session"`
	HTMLSnippet string  `json:"html_snippet"`
	// Token is the widget token (returned by create only on the wire).
	Token string `json:"token,omitempty"`
}

// Completed is what complete answers.
type Completed struct {
	Session Session `json:"session"`
	TosID   string  `json:"tos_id"`
}
