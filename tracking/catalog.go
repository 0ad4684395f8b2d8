package tracking

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
)

// CatalogProducts are the sites' delivery catalogs as Products: tracking
// accepts exactly the carrier product refs the catalog of the site offers.
type CatalogProducts map[string]*catalog.Catalog

// Product implements Products.
func (c CatalogProducts) Product(site, ref string) (Product, bool) {
	cat := c[site]
	if cat == nil {
		return Product{}, false
	}
	p, ok := cat.Product(ref)
	if !ok {
		return Product{}, false
	}
	return Product{
		Ref:            p.Ref,
		CarrierID:      p.CarrierID,
		CarrierName:    p.CarrierName,
		ProductID:      p.ProductID,
		DeliveryType:   DeliveryType(p.DeliveryType),
		ShippingMethod: p.ProductName,
		TrackingURL:    p.CarrierTrackingURL,
		LogoPattern:    p.CarrierLogoPattern,
	}, true
}

// PickupPoint implements PickupPoints: the pickup instructions and the
// opening hours in words of the catalog's location with the external id.
func (c CatalogProducts) PickupPoint(site, externalID string) (PickupPoint, bool) {
	cat := c[site]
	if cat == nil || externalID == "" {
		return PickupPoint{}, false
	}
	l, ok := cat.PickupLocation(externalID)
	if !ok {
		return PickupPoint{}, false
	}
	return PickupPoint{Instructions: l.PickupInstructions.In(cat.Locales[0], ""), InstructionsText: l.PickupInstructions, HoursText: l.HoursText}, true
}

// CheckOrder answers whether an order with the external id may still be
// registered for the site: one that is already a tracking order of the
// site is a Conflict naming external_id. Checkout and delivery sessions
// ask it before they complete (checkout.OrderChecker,
// session.OrderChecker), so a taken order number is the caller's 409 and
// never a completed session whose order cannot be tracked.
func (s *Service) CheckOrder(ctx context.Context, site, externalID string) error {
	if externalID == "" {
		return nil
	}
	res, err := s.Orders(ctx, site, OrdersQuery{ExternalID: externalID})
	if err != nil {
		return fmt.Errorf("checking external id %q: %w", externalID, err)
	}
	if len(res.Orders) > 0 {
		return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already a tracking order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "is already the external id of a tracking order of this site"}}}
	}
	return nil
}

// CatalogSites are the sites as tracking shows them: each site's display
// name (names, by site id) and the time zone of its catalog's first
// warehouse, which tracking pages use when the destination names no
// country tracking knows.
func CatalogSites(names map[string]string, catalogs map[string]*catalog.Catalog) map[string]Site {
	out := make(map[string]Site, len(names))
	for id, name := range names {
		s := Site{Name: name}
		if c := catalogs[id]; c != nil && len(c.Warehouses) > 0 {
			s.TimeZone = c.Warehouses[0].TimeZone
		}
		out[id] = s
	}
	return out
}
