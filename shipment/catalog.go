package shipment

import "github.com/deliverykit/deliverykit/catalog"

// CatalogProducts are the sites' delivery catalogs as Products: shipments
// accept exactly the carrier product refs the catalog of the site offers.
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
		Ref:          p.Ref,
		CarrierID:    p.CarrierID,
		CarrierName:  p.CarrierName,
		Name:         p.ProductName,
		DeliveryType: DeliveryType(p.DeliveryType),
	}, true
}
