package catalog

import (
	"net/url"
	"slices"
	"strings"

	"github.com/deliverykit/deliverykit"
)

// DeliveryType is how the goods reach the customer. The values are those
// of a delivery category's and a selected option's delivery_type on the
// wire.
type DeliveryType string

// The delivery types a category can have.
const (
	DeliveryHome    DeliveryType = "DELIVERY" // to the customer's door
	DeliveryPickup  DeliveryType = "PICKUP"   // to a pickup point of a carrier
	DeliveryMailbox DeliveryType = "MAILBOX"  // into the customer's mailbox
	DeliveryInStore DeliveryType = "INSTORE"  // collected in one of the merchant's stores
)

// Valid reports whether t is one of the defined delivery types.
func (t DeliveryType) Valid() bool {
	switch t {
	case DeliveryHome, DeliveryPickup, DeliveryMailbox, DeliveryInStore:
		return true
	}
	return false
}

// AtLocation reports whether options of this type are collected at a
// location (and therefore enumerate pickup locations).
func (t DeliveryType) AtLocation() bool { return t == DeliveryPickup || t == DeliveryInStore }

// AddonType classifies an addon (addon_type on the wire).
type AddonType string

// The addon types.
const (
	AddonCustom      AddonType = "CUSTOM"
	AddonCarryIn     AddonType = "CARRY_IN"
	AddonLeaveAtDoor AddonType = "LEAVE_AT_DOOR"
	AddonUnwrapping  AddonType = "UNWRAPPING"
)

// LocationType classifies a pickup location (location_type on the wire).
type LocationType string

// The location types.
const (
	LocationLocker     LocationType = "LOCKER"
	LocationStore      LocationType = "STORE"
	LocationPostOffice LocationType = "POSTOFFICE"
	LocationManned     LocationType = "MANNED"
)

// Catalog is one site's delivery offering. Build it from configuration
// (config.Site.Catalog) and check it with Validate before use; the options
// engine assumes a valid catalog.
type Catalog struct {
	// Locales lists the locales display names are written in, the
	// default first ("en-US", "sv-SE", …). A session's locales are
	// matched against this list.
	Locales []string `json:"locales"`
	// Holidays are dates ("2026-12-24") on which no warehouse ships and
	// no carrier delivers. Weekends are never business days.
	Holidays   []string    `json:"holidays,omitempty"`
	Warehouses []Warehouse `json:"warehouses"`
	Carriers   []Carrier   `json:"carriers"`
	Categories []Category  `json:"categories"`
	// PickupLocations are the pickup points and stores of every carrier.
	PickupLocations []PickupLocation `json:"pickup_locations,omitempty"`
	// PostalAreas feed the default geocoder: the coordinates of postal
	// code prefixes. Without an entry for a search address, options are
	// answered without distances rather than with invented ones.
	PostalAreas  []PostalArea  `json:"postal_areas,omitempty"`
	ReturnPolicy *ReturnPolicy `json:"return_policy,omitempty"`
	// VATRate is the VAT included in shipping prices, in basis points
	// (2500 is 25 %), for products that set none. Zero means prices carry
	// no VAT: price components then show vat 0 and net_price = price.
	VATRate int `json:"vat_rate,omitempty"`
	// Branding styles the checkout widget and the customer pages.
	Branding *Branding `json:"branding,omitempty"`
	// Fallback is offered when no category has an option for an address,
	// so that a checkout always has a result. Nil: no fallback; such a
	// session has no options and cannot be completed.
	Fallback *Fallback `json:"fallback,omitempty"`
	// Notifications configure the customer notifications of the site.
	Notifications *Notifications `json:"notifications,omitempty"`
	// Boxes are the cartons shipments are packed in (boxes.go).
	Boxes []Box `json:"boxes,omitempty"`
	// Promise is the default PromiseMode of the catalog's products:
	// where their delivery estimates come from. Empty: configured.
	Promise PromiseMode `json:"promise,omitempty"`
	// Learning tunes learned promises (promise.go).
	Learning *Learning `json:"learning,omitempty"`
}

// Branding is how the shop presents itself to its customers.
type Branding struct {
	// DisplayName is the shop's name as customers know it.
	DisplayName string `json:"display_name,omitempty"`
	// LogoURL is an https URL of the shop's logo.
	LogoURL string `json:"logo_url,omitempty"`
	// AccentColor ("#0a7d44") colours chosen options, focus rings and
	// links; it should contrast with white.
	AccentColor string `json:"accent_color,omitempty"`
}

// Fallback is the merchant's catch-all delivery, offered only when no
// category serves an address (a country or postal code no filter admits, a
// cart too heavy for every product). It ships with one of the catalog's
// products, so its result names a carrier product reference like any other.
type Fallback struct {
	// ID is the fallback category's id; it must not be a category id.
	ID         string `json:"id"`
	ExternalID string `json:"external_id,omitempty"`
	// Product is the ref of the carrier product that ships it (a DELIVERY
	// or MAILBOX product): its lead and transit times give the estimate.
	Product     string            `json:"product"`
	DisplayName map[string]string `json:"display_name"`
	// ETDText is the estimate shown instead of dates ("3–7 business
	// days"), per locale; optional.
	ETDText map[string]string `json:"etd_text,omitempty"`
	// Prices price the fallback like a category's; the first that matches
	// applies. Without a matching rule the fallback is not offered.
	Prices []PriceRule `json:"prices"`
}

// Warehouse is where goods leave from. Its time zone decides what "today",
// the cut-off and business days mean.
type Warehouse struct {
	ID         string  `json:"id"`
	ExternalID string  `json:"external_id,omitempty"`
	Address    Address `json:"address"`
	// TimeZone is an IANA zone name ("Europe/Stockholm").
	TimeZone string `json:"time_zone"`
}

// Address is a postal address with optional coordinates.
type Address struct {
	Name         string   `json:"name,omitempty"`
	AddressLines []string `json:"address_lines,omitempty"`
	City         string   `json:"city,omitempty"`
	PostalCode   string   `json:"postal_code,omitempty"`
	// RegionCode is the ISO 3166-2 subdivision without the country
	// prefix ("AB" for SE-AB), shown as the delivery session's
	// region_code. Optional; 1 to 3 upper-case letters or digits.
	RegionCode  string       `json:"region_code,omitempty"`
	Country     string       `json:"country"`
	Coordinates *Coordinates `json:"coordinates,omitempty"`
}

// Coordinates are WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// Carrier is a transport company and the products it sells.
type Carrier struct {
	ID       string    `json:"id"`
	Name     string    `json:"name"`
	Products []Product `json:"products"`
	// TrackingURL is the carrier's public tracking page of one parcel, an
	// https URL template (see TrackingURLPlaceholders): tracking shows it
	// as a parcel's carrier_link. Optional; "{tracking_number}" is
	// required in it.
	TrackingURL string `json:"tracking_url,omitempty"`
	// LogoPattern is the URL pattern of the carrier's logo (see
	// LogoPlaceholders), shown as a parcel's carrier_logo_pattern; the
	// page that shows the logo fills in the size it needs. Optional.
	LogoPattern string `json:"logo_pattern,omitempty"`
}

// TrackingURLPlaceholders are the placeholders a Carrier.TrackingURL may
// hold, each replaced by the query-escaped value:
//
//	{tracking_number}  the parcel's tracking number (required)
//	{postal_code}      the postal code of the parcel's destination (empty when unknown)
//	{locale}           the language of the page that shows the link, e.g. "sv-SE" (empty when unknown)
//
// A query parameter whose value is only an unknown placeholder is left
// out of the link (see CarrierLink).
var TrackingURLPlaceholders = []string{"{tracking_number}", "{postal_code}", "{locale}"}

// LogoPlaceholders are the placeholders a Carrier.LogoPattern may hold,
// filled in by whoever shows the logo:
//
//	{size}    the logo's height in pixels, e.g. "64"
//	{format}  the image format, "svg" or "png"
var LogoPlaceholders = []string{"{size}", "{format}"}

// CarrierLink fills a tracking URL template: each placeholder of
// TrackingURLPlaceholders becomes the query-escaped value. A query
// parameter whose whole value is a placeholder with an empty value is left
// out ("?n={tracking_number}&lang={locale}" without a locale gives
// "?n=TN1"): carrier pages read "lang=" as a language of that name, not as
// none. An empty template gives "".
func CarrierLink(template, trackingNumber, postalCode, locale string) string {
	if template == "" {
		return ""
	}
	return FillURL(template,
		"{tracking_number}", trackingNumber,
		"{postal_code}", postalCode,
		"{locale}", locale)
}

// FillURL replaces each placeholder of a URL template by its
// query-escaped value; placeholderValue lists placeholders and values in
// pairs, as strings.NewReplacer does. A query parameter whose whole value
// is one of the placeholders with an empty value is left out, and so is
// the "?" when no parameter remains.
func FillURL(template string, placeholderValue ...string) string {
	pairs := make([]string, 0, len(placeholderValue)&^1)
	for i := 0; i+1 < len(placeholderValue); i += 2 {
		pairs = append(pairs, placeholderValue[i], url.QueryEscape(placeholderValue[i+1]))
	}
	// empty: the last pair naming the placeholder decides, as a map
	// filled in order would.
	empty := func(placeholder string) bool {
		e := false
		for i := 0; i+1 < len(placeholderValue); i += 2 {
			if placeholderValue[i] == placeholder {
				e = placeholderValue[i+1] == ""
			}
		}
		return e
	}
	base, query, hasQuery := strings.Cut(template, "?")
	if hasQuery {
		params, fragment, hasFragment := strings.Cut(query, "#")
		var kept []string
		for _, p := range strings.Split(params, "&") {
			if _, v, ok := strings.Cut(p, "="); ok && empty(v) {
				continue
			}
			kept = append(kept, p)
		}
		template = base
		if len(kept) > 0 {
			template += "?" + strings.Join(kept, "&")
		}
		if hasFragment {
			template += "#" + fragment
		}
	}
	return replaceInOrder(template, pairs)
}

// replaceInOrder is strings.NewReplacer(oldnew...).Replace(s) without
// building the replacer's lookup trie, which costs more than filling a
// template once (FillURL runs on every read of a tracked parcel): left to
// right, at each position the first old string in argument order that
// starts there is replaced, and the replacement is not scanned again. An
// empty old string, which matches everywhere, is left to strings.Replacer.
func replaceInOrder(s string, oldnew []string) string {
	// starts marks the first bytes of the old strings: most bytes of a
	// template start none and are passed over without a comparison.
	var starts [256]bool
	for i := 0; i+1 < len(oldnew); i += 2 {
		if oldnew[i] == "" {
			return strings.NewReplacer(oldnew...).Replace(s)
		}
		starts[oldnew[i][0]] = true
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		if !starts[s[i]] {
			i++
			continue
		}
		n := 0
		for j := 0; j+1 < len(oldnew); j += 2 {
			if strings.HasPrefix(s[i:], oldnew[j]) {
				if b.Len() == 0 {
					b.Grow(len(s) + 32)
				}
				b.WriteString(s[last:i])
				b.WriteString(oldnew[j+1])
				n = len(oldnew[j])
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		i += n
		last = i
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Product is one service of a carrier. Its Ref is what other areas name it
// by (a tracking order's carrier_product_ref); it is unique in the catalog.
type Product struct {
	// ID is unique within the carrier.
	ID         string `json:"id"`
	Ref        string `json:"ref"`
	ExternalID string `json:"external_id,omitempty"`
	// Name is what shoppers read (the widget, the tracking page): a
	// plain string or one per locale of Locales, at most MaxProductName
	// bytes each.
	Name Text `json:"name"`
	// DeliveryType is what the product does; a category offers only
	// products of its own type.
	DeliveryType DeliveryType `json:"delivery_type"`
	// LeadTimeDays is the warehouse's handling time in business days
	// between readiness and handover to the carrier.
	LeadTimeDays int `json:"lead_time_days,omitempty"`
	// TransitDays is the carrier's time from handover to the customer in
	// business days.
	TransitDays DayRange `json:"transit_days"`
	// CutOff ("15:00", warehouse time) is the latest handover time of a
	// day; goods ready later leave on the next collection day. Empty
	// means the end of the day.
	CutOff string `json:"cut_off,omitempty"`
	// Days lists the weekdays the carrier collects ("mon".."sun"); empty
	// means Monday to Friday. Holidays are skipped either way.
	Days []string `json:"days,omitempty"`
	// VATRate overrides the catalog's VATRate for this product (basis
	// points); zero means the catalog's.
	VATRate int `json:"vat_rate,omitempty"`
	// Supports says what the customer may enter for this product; a
	// checkout result reports it as shipping.supports.
	Supports Supports `json:"supports,omitzero"`
	// Meta is the merchant's own data about the product (a service code
	// its warehouse system uses, say): a checkout result reports it in
	// shipping.meta, with the session's meta. At most MaxProductMeta
	// entries, keys MaxMetaKey and values MaxMetaValue bytes long.
	Meta map[string]string `json:"meta,omitempty"`
	// PricePerParcel prices the product per parcel: its options cost the
	// category's price times the number of parcels the cart's items pack
	// into, in the boxes usable with the product (package
	// catalog/packing), as a shipment created with those items books
	// them. A cart that cannot be packed (an item without weight or
	// measures, or one no box holds) is not offered the product: its
	// price is never guessed. At least one box must be usable with it.
	PricePerParcel bool `json:"price_per_parcel,omitempty"`
	// Promise overrides the catalog's Promise for this product.
	Promise PromiseMode `json:"promise,omitempty"`
	// Simulate configures the carrier simulator's parcels of this
	// product.
	Simulate *Simulation `json:"simulate,omitempty"`
}

// PromiseOf is the promise mode of product p: its own, else the
// catalog's, else PromiseConfigured.
func (c *Catalog) PromiseOf(p *Product) PromiseMode {
	switch {
	case p.Promise != "":
		return p.Promise
	case c.Promise != "":
		return c.Promise
	}
	return PromiseConfigured
}

// The bounds of a product's Meta.
const (
	MaxProductMeta = 32
	MaxMetaKey     = 64
	MaxMetaValue   = 256
)

// Supports lists what a customer can add to a delivery of a product.
type Supports struct {
	CourierInstructions bool `json:"courier_instructions,omitempty"`
	CustomerNumber      bool `json:"customer_number,omitempty"`
	DoorCode            bool `json:"door_code,omitempty"`
	// Search means pickup points can be searched by address.
	Search bool `json:"search,omitempty"`
}

// DayRange is an inclusive range of days.
type DayRange struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

// Category is a group of options shown together ("Home delivery",
// "Pickup point").
type Category struct {
	ID         string `json:"id"`
	ExternalID string `json:"external_id,omitempty"`
	// DisplayName maps a locale of Catalog.Locales to the name shown.
	DisplayName  map[string]string `json:"display_name"`
	CustomText   map[string]string `json:"custom_text,omitempty"`
	DeliveryType DeliveryType      `json:"delivery_type"`
	SortOrder    int               `json:"sort_order"`
	// Warehouse is the id of the warehouse goods leave from; empty means
	// the catalog's first warehouse.
	Warehouse string `json:"warehouse,omitempty"`
	// Products lists the refs of the products offered, in display order.
	Products []string `json:"products"`
	Addons   []Addon  `json:"addons,omitempty"`
	// Prices are tried in order; the first that matches the purchase
	// prices the category. A category with no matching rule is not
	// offered: a price is never guessed.
	Prices []PriceRule `json:"prices"`
	Filter Filter      `json:"filter,omitempty"`
	// CustomWarningText is a notice shown with the category, per locale.
	CustomWarningText map[string]string `json:"custom_warning_text,omitempty"`
	// Tags label the category for the merchant's front-end ("eco").
	Tags []string `json:"tags,omitempty"`
	// MaxLocations caps the pickup locations offered per product
	// (PICKUP and INSTORE); 0 means 10.
	MaxLocations int `json:"max_locations,omitempty"`
	// MaxDistanceKm is how far (great-circle kilometres) a location may be
	// from the address to be offered; 0 means 50. Locations are offered
	// only for an address the geocoder can place: never arbitrary ones.
	MaxDistanceKm int `json:"max_distance_km,omitempty"`
}

// Addon is an extra service bought with an option.
type Addon struct {
	ID string `json:"id"`
	// ExternalID is the merchant's id for the addon.
	ExternalID  string            `json:"external_id,omitempty"`
	Type        AddonType         `json:"type"`
	DisplayName map[string]string `json:"display_name"`
	Description map[string]string `json:"description,omitempty"`
	Price       int64             `json:"price"`
	Preselected bool              `json:"preselected,omitempty"`
}

// PriceRule prices a category when all its conditions hold. Empty
// conditions hold for every purchase.
type PriceRule struct {
	Currency string `json:"currency"`
	// Price is the base price in minor units.
	Price int64 `json:"price"`
	// FreeAbove makes the price 0 when the cart value (after discount) is
	// at least this; 0 disables it.
	FreeAbove int64 `json:"free_above,omitempty"`
	// Attributes must all be present on the cart.
	Attributes []string `json:"attributes,omitempty"`
	// Voucher must be among the purchase's vouchers (compared without
	// regard to case).
	Voucher string `json:"voucher,omitempty"`
	// MinWeight and MaxWeight (grams, inclusive; MaxWeight 0 means no
	// maximum) form a weight band for the cart's total weight.
	MinWeight int `json:"min_weight,omitempty"`
	MaxWeight int `json:"max_weight,omitempty"`
}

// Filter decides whether a category is offered at all.
type Filter struct {
	// Countries the category delivers to (ISO 3166-1 alpha-2); empty
	// means every country.
	Countries []string `json:"countries,omitempty"`
	// PostalCodes, when set, restricts delivery to these ranges.
	PostalCodes []PostalRange `json:"postal_codes,omitempty"`
	// RequiredAttributes must all be on the cart; ExcludedAttributes
	// must all be absent.
	RequiredAttributes []string `json:"required_attributes,omitempty"`
	ExcludedAttributes []string `json:"excluded_attributes,omitempty"`
	// MaxWeight is the cart's maximum total weight in grams (0: none).
	MaxWeight int `json:"max_weight,omitempty"`
	// MaxDimensions bounds every item (millimetres, compared after
	// sorting both sides so orientation does not matter).
	MaxDimensions *Dimensions `json:"max_dimensions,omitempty"`
}

// PostalRange is an inclusive range of postal codes of one country,
// compared after removing spaces, as strings of equal length.
type PostalRange struct {
	Country string `json:"country"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// Dimensions are in millimetres.
type Dimensions struct {
	Height int `json:"height"`
	Length int `json:"length"`
	Width  int `json:"width"`
}

// PickupLocation is a pickup point, locker or store.
type PickupLocation struct {
	ID         string `json:"id"`
	ExternalID string `json:"external_id"`
	Name       string `json:"name"`
	// Carrier is the id of the carrier whose products deliver here.
	Carrier string       `json:"carrier"`
	Type    LocationType `json:"type"`
	// Address must have coordinates: distances and the spatial index
	// need them.
	Address Address `json:"address"`
	// Hours maps "mon".."sun" to opening ranges ("08:00-20:00"); a day
	// that is absent is closed. No hours at all means always open.
	Hours map[string][]string `json:"hours,omitempty"`
	// Closed lists dates ("2026-12-24") on which the location is closed.
	Closed []string          `json:"closed,omitempty"`
	Meta   map[string]string `json:"meta,omitempty"`
	// PickupInstructions tell the customer how to collect a parcel here
	// ("Ask at the tobacco counter; bring an ID"), shown on the tracking
	// page (pickup_instructions): a plain string or one per locale of
	// Locales, at most MaxPickupInstructions bytes each.
	PickupInstructions Text `json:"pickup_instructions,omitempty"`
	// HoursText are opening hours in words, for what Hours cannot say
	// ("Closed on the last Friday of the month"); shown as the location's
	// operational_hours.free_text. At most MaxHoursText lines of
	// MaxHoursTextLine bytes.
	HoursText []string `json:"hours_text,omitempty"`
	// Email and Phone reach the location; the delivery session shows them
	// in the location's visiting_contact and delivery_contact. Optional;
	// Email at most 254 bytes with an "@".
	Email string `json:"email,omitempty"`
	Phone *Phone `json:"phone,omitempty"`
	// Sections are blocks of information shown with the location in the
	// delivery session (parking, accessibility, what to bring). At most
	// MaxSections sections of MaxSectionColumns columns of
	// MaxSectionItems items.
	Sections []Section `json:"sections,omitempty"`
}

// Bounds of a pickup location's texts.
const (
	MaxPickupInstructions = 512
	MaxProductName        = 128
	MaxHoursText          = 10
	MaxHoursTextLine      = 200
	// A catalog holds many locations: its sections are bounded well
	// below what a delivery session request may carry.
	MaxSections       = 5
	MaxSectionColumns = 4
	MaxSectionItems   = 10
	// MaxSectionText bounds a section's title and an item's text, in
	// bytes; an item's icon_uri and link_uri are https URLs of at most
	// 2048 bytes.
	MaxSectionText = 200
)

// Phone is a phone number split the way dialling needs it: country_code
// ("46") and number ("8123456") required, extension optional; each at most
// 32 bytes of digits.
type Phone struct {
	CountryCode string `json:"country_code"`
	Number      string `json:"number"`
	Extension   string `json:"extension,omitempty"`
}

// Section is a titled block of columns shown with a pickup location.
type Section struct {
	Title   string          `json:"title"`
	Columns []SectionColumn `json:"columns"`
}

// SectionColumn is one column of a Section.
type SectionColumn struct {
	Items []SectionItem `json:"items"`
}

// SectionItem is one entry of a column: a text, an icon or a link, or
// several of them; at least one.
type SectionItem struct {
	IconURI string `json:"icon_uri,omitempty"`
	Text    string `json:"text,omitempty"`
	LinkURI string `json:"link_uri,omitempty"`
}

// Notifications are the site's settings of customer notifications.
type Notifications struct {
	// PickupReminderDays is how many days a parcel waits at a pickup
	// point before the customer is reminded to collect it (one
	// PICKUP_REMINDER notification). 0 means the default,
	// DefaultPickupReminderDays; at most MaxPickupReminderDays.
	PickupReminderDays int `json:"pickup_reminder_days,omitempty"`
}

// Pickup reminder bounds, in days.
const (
	DefaultPickupReminderDays = 3
	MaxPickupReminderDays     = 30
)

// PickupReminderDays is the catalog's pickup reminder delay in days: the
// Notifications setting, else DefaultPickupReminderDays.
func (c *Catalog) PickupReminderDays() int {
	if c == nil || c.Notifications == nil || c.Notifications.PickupReminderDays <= 0 {
		return DefaultPickupReminderDays
	}
	return c.Notifications.PickupReminderDays
}

// PickupLocation returns the pickup location with the external id (the
// id carriers and tracking orders name it by), and whether there is one.
func (c *Catalog) PickupLocation(externalID string) (PickupLocation, bool) {
	for _, l := range c.PickupLocations {
		if l.ExternalID == externalID {
			return l, true
		}
	}
	return PickupLocation{}, false
}

// PostalArea gives the centre of the area whose postal codes start with
// Prefix (spaces removed).
type PostalArea struct {
	Country     string      `json:"country"`
	Prefix      string      `json:"prefix"`
	Coordinates Coordinates `json:"coordinates"`
}

// ReturnPolicy is the site's returns promise.
type ReturnPolicy struct {
	// ID names the policy: the delivery session's returns_promise.id.
	// Optional (at most 64 bytes); without it the promise's id is derived
	// from the policy's terms, so it changes when they do.
	ID               string `json:"id,omitempty"`
	ReturnsEnabled   bool   `json:"returns_enabled"`
	ReturnCost       int64  `json:"return_cost"`
	ExchangesEnabled bool   `json:"exchanges_enabled"`
	ExchangeCost     int64  `json:"exchange_cost"`
	Currency         string `json:"currency"`
	ReturnTimeDays   int    `json:"return_time_days"`
	PolicyText       string `json:"policy_text,omitempty"`
	PolicyURL        string `json:"policy_url,omitempty"`
	// ReturnProduct is the ref of the carrier product return parcels are
	// booked with. With it, a customer's return page offers a return
	// label to print (or a QR code to show) and lists the drop-off points
	// (pickup locations) of the product's carrier nearest to the
	// customer. Empty: customers send returns back their own way.
	ReturnProduct string `json:"return_product,omitempty"`
	// ReturnHandlingCost is charged per return for inspection and
	// restocking, in minor units of Currency; default 0.
	ReturnHandlingCost int64 `json:"return_handling_cost,omitempty"`
	// FailedDeliveryCost is charged to a return when the merchant reports
	// that its parcel came back because the delivery failed (refused,
	// not collected), in minor units of Currency; default 0.
	FailedDeliveryCost int64 `json:"failed_delivery_cost,omitempty"`
	// GiftCardAddition is added to a refund the customer takes as a gift
	// card instead of the original payment, in minor units of Currency;
	// default 0 (no bonus).
	GiftCardAddition int64 `json:"gift_card_addition,omitempty"`
	// RefundShipping refunds what the customer paid for shipping once
	// every unit of the order has been returned and approved. Default
	// false.
	RefundShipping bool `json:"refund_shipping,omitempty"`
	// ReturnReasons are the reasons a customer picks from for each
	// returned line, with sub-reasons; ComplaintReasons those of a
	// complaint about a line (see returnreasons.go). Empty: customers
	// may give a reason in their own words only, and cannot complain.
	ReturnReasons    []ReturnReason    `json:"return_reasons,omitempty"`
	ComplaintReasons []ComplaintReason `json:"complaint_reasons,omitempty"`
}

// ProductInfo describes a carrier product for other areas (tracking checks
// carrier_product_ref values with it).
type ProductInfo struct {
	// Ref is the product's reference, its one identity on every area's
	// wire; ExternalID the merchant's own id for it.
	Ref         string
	CarrierID   string
	CarrierName string
	ProductID   string
	// ProductName is in the catalog's default locale (Locales[0]); Name
	// has every locale's.
	ProductName  string
	Name         Text
	ExternalID   string
	DeliveryType DeliveryType
	// CarrierTrackingURL and CarrierLogoPattern are the carrier's
	// Carrier.TrackingURL and Carrier.LogoPattern.
	CarrierTrackingURL string
	CarrierLogoPattern string
}

// Product returns the product with the given ref. It scans: catalogs hold
// tens of products, and a caller that looks up often keeps the result.
func (c *Catalog) Product(ref string) (ProductInfo, bool) {
	for _, cr := range c.Carriers {
		for _, p := range cr.Products {
			if p.Ref == ref {
				return ProductInfo{Ref: p.Ref, CarrierID: cr.ID, CarrierName: cr.Name, ProductID: p.ID,
					ProductName: p.Name.In(c.defaultLocale(), ""), Name: p.Name, ExternalID: p.ExternalID, DeliveryType: p.DeliveryType,
					CarrierTrackingURL: cr.TrackingURL, CarrierLogoPattern: cr.LogoPattern}, true
			}
		}
	}
	return ProductInfo{}, false
}

// defaultLocale is the locale texts fall back to: the first of Locales.
func (c *Catalog) defaultLocale() string {
	if len(c.Locales) == 0 {
		return ""
	}
	return c.Locales[0]
}

// ProductRefs returns every product ref of the catalog, sorted.
func (c *Catalog) ProductRefs() []string {
	var refs []string
	for _, cr := range c.Carriers {
		for _, p := range cr.Products {
			refs = append(refs, p.Ref)
		}
	}
	slices.Sort(refs)
	return refs
}

// Warehouse returns the warehouse with id, or the first warehouse when id
// is empty.
func (c *Catalog) Warehouse(id string) (Warehouse, bool) {
	if id == "" && len(c.Warehouses) > 0 {
		return c.Warehouses[0], true
	}
	for _, w := range c.Warehouses {
		if w.ID == id {
			return w, true
		}
	}
	return Warehouse{}, false
}

// NormalizePostalCode removes spaces and upper-cases, so "114 55" and
// "11455" are the same code.
func NormalizePostalCode(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

// Postal returns a as a postal address of the shared vocabulary.
func (a Address) Postal() deliverykit.Address {
	out := deliverykit.Address{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, Country: a.Country}
	if a.Coordinates != nil {
		c := *a.Coordinates
		out.Coordinates = &c
	}
	return out
}
