package checkout

import "time"

// Status is a session's state (spec §3).
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
	SelectionPreselected Selection = "PRESELECTED_CHOICE"
	SelectionUser        Selection = "USER_CHOICE"
)

// PriceComponentType classifies a part of the shipping price.
type PriceComponentType string

// The price component types.
const (
	PriceComponentShipping PriceComponentType = "PRICE_COMPONENT_TYPE_SHIPPING"
	PriceComponentAddon    PriceComponentType = "PRICE_COMPONENT_TYPE_ADDON"
)

// Session is the checkout shipping session as the API shows it (spec §2.5).
type Session struct {
	ID                     string          `json:"id"`
	Status                 Status          `json:"status"`
	Cart                   Cart            `json:"cart"`
	SelectedShippingOption *ShippingOption `json:"selected_shipping_option,omitempty"`
	// ShippingPrice is the selected option's price plus chosen addons,
	// in minor units.
	ShippingPrice int64          `json:"shipping_price,omitempty"`
	ExpiresAt     time.Time      `json:"expires_at"`
	Customer      *Customer      `json:"customer,omitempty"`
	SearchAddress *SearchAddress `json:"search_address,omitempty"`
	TosID         string         `json:"tos_id,omitempty"`
	Result        *Result        `json:"result,omitempty"`
}

// Cart is the merchant's cart. Amounts are minor units.
type Cart struct {
	CartID        string     `json:"cart_id,omitempty"`
	TotalValue    int64      `json:"total_value,omitempty" validate:"gte=0"`
	TotalDiscount int64      `json:"total_discount,omitempty" validate:"gte=0"`
	Currency      string     `json:"currency,omitempty" validate:"omitempty,iso4217"`
	PreOrder      bool       `json:"pre_order,omitempty"`
	Items         []CartItem `json:"items,omitempty" validate:"dive"`
}

// CartItem is one cart line.
type CartItem struct {
	SKU        string   `json:"sku,omitempty" validate:"required,max=128"`
	Name       string   `json:"name,omitempty" validate:"max=500"`
	Attributes []string `json:"attributes,omitempty"`
	OutOfStock bool     `json:"out_of_stock,omitempty"`
	Quantity   int64    `json:"quantity,omitempty" validate:"gte=0,lte=100000"`
	// Price is the unit price in minor units.
	Price int64 `json:"price,omitempty" validate:"gte=0"`
}

// SearchAddress is the area options are searched for; it need not be the
// customer's address. The service sets Coordinates when it can place it.
type SearchAddress struct {
	PostalCode  string       `json:"postal_code,omitempty"`
	Country     string       `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
	Coordinates *Coordinates `json:"coordinates,omitempty"`
}

// Coordinates are WGS84 degrees.
type Coordinates struct {
	Lat float64 `json:"lat" validate:"gte=-90,lte=90"`
	Lng float64 `json:"lng" validate:"gte=-180,lte=180"`
}

// Customer is who receives the goods; the merchant supplies it at the latest
// in Complete.
type Customer struct {
	Email   string           `json:"email,omitempty" validate:"omitempty,email"`
	Phone   string           `json:"phone,omitempty"`
	Address *CustomerAddress `json:"address,omitempty"`
}

// CustomerAddress is the delivery address.
type CustomerAddress struct {
	Name         string   `json:"name,omitempty" validate:"max=256"`
	AddressLines []string `json:"address_lines,omitempty" validate:"max=10,dive,max=256"`
	City         string   `json:"city,omitempty" validate:"max=128"`
	PostalCode   string   `json:"postal_code,omitempty" validate:"max=32"`
	Country      string   `json:"country,omitempty" validate:"omitempty,iso3166_1_alpha2"`
}

// ShippingOption is the selected delivery option.
type ShippingOption struct {
	// ShippingMethod is the option id (stable across recomputation).
	ShippingMethod string    `json:"shipping_method"`
	DeliveryType   string    `json:"delivery_type"`
	Carrier        string    `json:"carrier"`
	Product        string    `json:"product"`
	Price          int64     `json:"price,omitempty"`
	Currency       string    `json:"currency"`
	Location       *Location `json:"location,omitempty"`
	TimeSlot       *TimeSlot `json:"time_slot,omitempty"`
	// Addons lists the ids of the chosen addons (an extension).
	Addons []string `json:"addons,omitempty"`
}

// TimeSlot is a delivery window.
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
type ResultShipping struct {
	ShippingMethod   string          `json:"shipping_method"`
	DeliveryType     string          `json:"delivery_type"`
	Carrier          string          `json:"carrier"`
	Product          string          `json:"product"`
	Location         *Location       `json:"location,omitempty"`
	DeliveryTime     *TimeSlot       `json:"delivery_time,omitempty"`
	ExternalMethodID string          `json:"external_method_id,omitempty"`
	Supports         map[string]bool `json:"supports,omitempty"`
	Warehouse        *Warehouse      `json:"warehouse,omitempty"`
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
	Name                  string `json:"name"`
	PresentedCategoryName string `json:"presented_category_name"`
	CustomText            string `json:"custom_text,omitempty"`
}

// Pricing is the shipping price and its parts.
type Pricing struct {
	Currency        string           `json:"currency"`
	Price           int64            `json:"price,omitempty"`
	PriceComponents []PriceComponent `json:"price_components"`
}

// PriceComponent is one part of the shipping price.
type PriceComponent struct {
	Type  PriceComponentType `json:"type"`
	ID    string             `json:"id,omitempty"`
	Name  string             `json:"name,omitempty"`
	Price int64              `json:"price,omitempty"`
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
	Locales       []string       `json:"locales,omitempty"`
	Locale        string         `json:"locale,omitempty"`
	Cart          *Cart          `json:"cart" validate:"required"`
	SearchAddress *SearchAddress `json:"search_address,omitempty"`
}

// UpdateRequest is the body of session.update: cart and/or customer.
type UpdateRequest struct {
	ID       string    `json:"id" validate:"required"`
	Cart     *Cart     `json:"cart,omitempty"`
	Customer *Customer `json:"customer,omitempty"`
}

// CompleteRequest is the body of session.complete.
type CompleteRequest struct {
	ID       string    `json:"id" validate:"required"`
	Customer *Customer `json:"customer,omitempty"`
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
