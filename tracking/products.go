package tracking

import "github.com/deliverykit/deliverykit/catalog"

// Product is what tracking shows about a carrier product. Tracking does not
// own the delivery catalog; the caller adapts its catalog to Products.
type Product struct {
	// Ref is the carrier_product_ref clients send.
	Ref string
	// CarrierID names the carrier in keys and in PrivateParcel.carrier
	// ("carrier-" + CarrierID). Tracking numbers are unique per site and
	// carrier.
	CarrierID string
	// CarrierName is the carrier's display name (display_carrier_name,
	// carrier_name).
	CarrierName string
	// ProductID is carrier_product_id.
	ProductID string
	// DeliveryType is the product's kind of delivery, the parcel default
	// when neither the request nor the order says more.
	DeliveryType DeliveryType
	// ShippingMethod is the name of the product as the customer chose it
	// (requested_shipping_method).
	ShippingMethod string
	// TrackingURL is the carrier's tracking page for one parcel, with
	// "{tracking_number}" where the number goes (carrier_link) and
	// optionally "{postal_code}" and "{locale}" (see
	// catalog.TrackingURLPlaceholders). Empty when the carrier has no
	// public page.
	TrackingURL string
	// LogoPattern is carrier_logo_pattern, a URL pattern of the carrier's
	// logo.
	LogoPattern string
}

// CarrierLink returns the carrier's tracking page for the tracking number,
// or "" when the product has none. The number is query-escaped.
func (p Product) CarrierLink(trackingNumber string) string {
	return p.Link(trackingNumber, "", "")
}

// Link returns the carrier's tracking page for the tracking number, the
// destination's postal code and the page's locale (the placeholders of
// catalog.TrackingURLPlaceholders, each query-escaped), or "" when the
// product has none.
func (p Product) Link(trackingNumber, postalCode, locale string) string {
	return catalog.CarrierLink(p.TrackingURL, trackingNumber, postalCode, locale)
}

// PickupPoint is what the catalog says about a pickup location beyond
// what orders and parcels carry.
type PickupPoint struct {
	// Instructions tell the customer how to collect a parcel there
	// (Location.pickup_instructions).
	Instructions string
	// InstructionsText are the instructions in every locale the catalog
	// has them in; Instructions is in the catalog's default locale.
	InstructionsText catalog.Text
	// HoursText are opening hours in words
	// (Location.operational_hours.free_text).
	HoursText []string
}

// PickupPoints looks pickup locations up by their external id (the id
// orders and carriers name them by).
type PickupPoints interface {
	// PickupPoint returns the location of site with the external id, and
	// whether there is one.
	PickupPoint(site, externalID string) (PickupPoint, bool)
}

// Products looks carrier products up by reference. It is declared here, by
// its consumer; the example server adapts the delivery catalog to it.
type Products interface {
	// Product returns the product of site with the reference, and whether
	// there is one.
	Product(site, ref string) (Product, bool)
}

// StaticProducts is a Products backed by a map from reference to product,
// the same for every site. It is meant for tests and for embedders with a
// fixed catalog. Do not modify it while a Service uses it.
type StaticProducts map[string]Product

// Product implements Products.
func (m StaticProducts) Product(_, ref string) (Product, bool) {
	p, ok := m[ref]
	return p, ok
}
