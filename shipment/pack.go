package shipment

import (
	"errors"
	"fmt"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/catalog/packing"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// Boxes lists the boxes a site packs its shipments in (catalog.Box).
type Boxes interface {
	Boxes(site string) []catalog.Box
}

// Boxes implements Boxes: the catalog's.
func (c CatalogProducts) Boxes(site string) []catalog.Box {
	if cat := c[site]; cat != nil {
		return cat.Boxes
	}
	return nil
}

// withPacking packs a request's items into parcels when it has items and
// no parcels (see CreateShipmentRequest.Items). What keeps the items from
// being packed is returned as violations; items the tags refuse are left
// to them. The caller's slices are left as they were.
func (s *Service) withPacking(site string, req CreateShipmentRequest) (CreateShipmentRequest, validation.Violations, error) {
	var vs validation.Violations
	if len(req.Parcels) > 0 || len(req.Items) == 0 || len(req.Items) > MaxItems {
		return req, nil, nil
	}
	if req.ShippingMethod == "" {
		vs.Add("shipping_method", "required_with", "is required to pack items into parcels")
		return req, vs, nil
	}
	var units []packing.Item
	var line []int // the item (line) of every unit
	for i, it := range req.Items {
		d := it.Dimensions
		if it.Quantity <= 0 || it.Weight <= 0 || it.Weight > 1000000 || d.Length <= 0 || d.Width <= 0 || d.Height <= 0 ||
			d.Length > MaxItemDimension || d.Width > MaxItemDimension || d.Height > MaxItemDimension {
			return req, nil, nil // the tags refuse it
		}
		if len(units)+int(it.Quantity) > MaxPackedUnits {
			vs.Add("items", "max_units", fmt.Sprintf("must add up to at most %d units", MaxPackedUnits))
			return req, vs, nil
		}
		for range it.Quantity {
			units = append(units, packing.Item{Length: d.Length, Width: d.Width, Height: d.Height, Weight: it.Weight, ShipAlone: it.ShipAlone})
			line = append(line, i)
		}
	}
	var all []catalog.Box
	if s.opts.Boxes != nil {
		all = s.opts.Boxes.Boxes(site)
	}
	usable, boxes := packing.UsableBoxes(all, req.ShippingMethod)
	packed, err := packing.Pack(units, boxes)
	if ie := (*packing.ItemError)(nil); errors.As(err, &ie) {
		vs.Add(fmt.Sprintf("items[%d]", line[ie.Index]), "fits_box",
			fmt.Sprintf("is %s for every box usable with %s", ie.Reason, req.ShippingMethod))
		return req, vs, nil
	}
	if err != nil {
		// The catalog's validation keeps invalid boxes out.
		return req, nil, fmt.Errorf("shipment: packing the items of site %s: %w", site, err)
	}
	if len(packed) > MaxParcels {
		vs.Add("items", "max_parcels", fmt.Sprintf("need %d parcels, more than %d", len(packed), MaxParcels))
		return req, vs, nil
	}
	req.Parcels = make([]ParcelInput, len(packed))
	for k, p := range packed {
		in := ParcelInput{Weight: int32(p.Weight)} // at most a box's max weight or an item's weight
		if p.Box >= 0 {
			o := usable[p.Box].OuterDimensions()
			in.Dimensions = &Dimensions{Length: int32(o.Length), Width: int32(o.Width), Height: int32(o.Height)}
		} else {
			d := req.Items[line[p.Items[0]]].Dimensions
			in.Dimensions = &Dimensions{Length: d.Length, Width: d.Width, Height: d.Height}
		}
		// One line item per item line, in the order of the request.
		count := map[int]int32{}
		for _, u := range p.Items {
			count[line[u]]++
		}
		for i, it := range req.Items {
			if n := count[i]; n > 0 {
				in.LineItems = append(in.LineItems, LineItem{SKU: it.SKU, Name: it.Name, Quantity: n,
					Price: it.Price, Currency: it.Currency, Discount: it.Discount})
			}
		}
		req.Parcels[k] = in
	}
	return req, nil, nil
}

// StaticBoxes are the same boxes for every site. Do not modify them while
// a Service uses them.
type StaticBoxes []catalog.Box

// Boxes implements Boxes.
func (b StaticBoxes) Boxes(string) []catalog.Box { return b }
