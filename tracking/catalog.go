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
	return PickupPoint{Instructions: l.PickupInstructions, HoursText: l.HoursText}, true
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
