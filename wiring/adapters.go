package wiring

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// CatalogProducts adapts the sites' delivery catalogs to tracking.Products,
// so that tracking accepts exactly the carrier product refs the catalog
// offers.
type CatalogProducts map[string]*catalog.Catalog

// Product implements tracking.Products.
func (c CatalogProducts) Product(site, ref string) (tracking.Product, bool) {
	cat := c[site]
	if cat == nil {
		return tracking.Product{}, false
	}
	p, ok := cat.Product(ref)
	if !ok {
		return tracking.Product{}, false
	}
	return tracking.Product{
		Ref:            p.Ref,
		CarrierID:      p.CarrierID,
		CarrierName:    p.CarrierName,
		ProductID:      p.ProductID,
		DeliveryType:   tracking.DeliveryType(p.DeliveryType),
		ShippingMethod: p.ProductName,
	}, true
}

// CatalogPolicies adapts the sites' catalog return policies to
// returns.Policies. A catalog without a return policy gives the zero policy
// (free returns without a time limit); returns_enabled false refuses every
// return.
type CatalogPolicies map[string]*catalog.Catalog

// Policy implements returns.Policies.
func (c CatalogPolicies) Policy(site string) (returns.Policy, bool) {
	cat := c[site]
	if cat == nil || cat.ReturnPolicy == nil {
		return returns.Policy{}, false
	}
	rp := cat.ReturnPolicy
	p := returns.Policy{
		WindowDays:    rp.ReturnTimeDays,
		ReturnProduct: rp.ReturnProduct,
		Costs: map[string]returns.Costs{
			rp.Currency: {ReturnShipment: rp.ReturnCost, Exchange: rp.ExchangeCost},
		},
	}
	p.Disabled = !rp.ReturnsEnabled
	return p, true
}

// orderNumbers answers checkout.OrderChecker from tracking: an external
// id that is already a tracking order of the site is a Conflict naming
// external_id, answered before the session completes.
type orderNumbers struct{ tracking *tracking.Service }

// CheckOrder implements checkout.OrderChecker and session.OrderChecker.
func (o orderNumbers) CheckOrder(ctx context.Context, site, externalID string) error {
	if externalID == "" {
		return nil
	}
	res, err := o.tracking.Orders(ctx, site, tracking.OrdersQuery{ExternalID: externalID})
	if err != nil {
		return fmt.Errorf("checking external id %q: %w", externalID, err)
	}
	if len(res.Orders) > 0 {
		return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "external_id is already a tracking order",
			Violations: []deliverykit.FieldViolation{{Field: "external_id", Rule: "unique", Message: "is already the external id of a tracking order of this site"}}}
	}
	return nil
}

// Compile-time checks that the adapters satisfy the consumers' interfaces.
var (
	_ tracking.Products     = CatalogProducts(nil)
	_ returns.Policies      = CatalogPolicies(nil)
	_ checkout.OrderChecker = orderNumbers{}
	_ shipment.Products     = CatalogShipmentProducts(nil)
)

// CatalogShipmentProducts adapts the sites' catalogs to shipment.Products.
type CatalogShipmentProducts map[string]*catalog.Catalog

// Product implements shipment.Products.
func (c CatalogShipmentProducts) Product(site, ref string) (shipment.Product, bool) {
	cat := c[site]
	if cat == nil {
		return shipment.Product{}, false
	}
	p, ok := cat.Product(ref)
	if !ok {
		return shipment.Product{}, false
	}
	return shipment.Product{
		Ref:          p.Ref,
		CarrierID:    p.CarrierID,
		CarrierName:  p.CarrierName,
		Name:         p.ProductName,
		DeliveryType: shipment.DeliveryType(p.DeliveryType),
	}, true
}
