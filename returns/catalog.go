package returns

import "github.com/deliverykit/deliverykit/catalog"

// CatalogPolicies are the sites' catalog return policies as Policies. A
// catalog without a return policy gives the zero policy (free returns
// without a time limit); returns_enabled false refuses every return.
type CatalogPolicies map[string]*catalog.Catalog

// Policy implements Policies.
func (c CatalogPolicies) Policy(site string) (Policy, bool) {
	cat := c[site]
	if cat == nil || cat.ReturnPolicy == nil {
		return Policy{}, false
	}
	rp := cat.ReturnPolicy
	var zone string
	if len(cat.Warehouses) > 0 {
		zone = cat.Warehouses[0].TimeZone // the site's zone, as tracking takes it
	}
	return Policy{
		TimeZone:       zone,
		WindowDays:     rp.ReturnTimeDays,
		ReturnProduct:  rp.ReturnProduct,
		RefundShipping: rp.RefundShipping,
		Costs: map[string]Costs{
			rp.Currency: {ReturnShipment: rp.ReturnCost, ReturnHandling: rp.ReturnHandlingCost, Exchange: rp.ExchangeCost,
				FailedDelivery: rp.FailedDeliveryCost, GiftCardAddition: rp.GiftCardAddition},
		},
		Disabled:    !rp.ReturnsEnabled,
		NoExchanges: !rp.ExchangesEnabled,
	}, true
}
