package options

import (
	"strings"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/catalog/packing"
)

// perParcel is what pricing per parcel needs of the catalog: the boxes
// usable with each product priced per parcel (catalog.Product.
// PricePerParcel), and per product the ids of those boxes, so that the
// products packing into the same boxes pack a cart once.
type perParcel struct {
	boxes map[string][]packing.Box
	group map[string]string
}

func newPerParcel(cat *catalog.Catalog) perParcel {
	var pp perParcel
	for _, cr := range cat.Carriers {
		for _, p := range cr.Products {
			if !p.PricePerParcel {
				continue
			}
			if pp.boxes == nil {
				pp.boxes, pp.group = map[string][]packing.Box{}, map[string]string{}
			}
			usable, boxes := packing.UsableBoxes(cat.Boxes, p.Ref)
			ids := make([]string, len(usable))
			for i, b := range usable {
				ids[i] = b.ID
			}
			pp.boxes[p.Ref], pp.group[p.Ref] = boxes, strings.Join(ids, "\x00")
		}
	}
	return pp
}

// priceParcels prices the options of cat whose products are priced per
// parcel: the category's price times the parcels the items pack into
// (packing.Count, as the shipment created with them books them). Options
// whose items cannot be packed are left out, as a category none of whose
// price rules applies is: a price is never guessed. The base price is
// multiplied too when every option has the same number of parcels, so
// that it stays the price before vouchers and free shipping.
func (pp perParcel) priceParcels(items []Item, cat *Category, pc *parcelCounts) {
	if pp.boxes == nil {
		return
	}
	same := 0               // the options' common number of parcels; -1 when they differ
	kept := cat.Options[:0] // the options are the computation's own
	for _, o := range cat.Options {
		n := 1
		if boxes, ok := pp.boxes[o.Carrier.ProductRef]; ok {
			c := pc.count(items, pp.group[o.Carrier.ProductRef], boxes)
			if c == 0 {
				continue
			}
			n = c
		}
		// Prices are at most 10^11 minor units (catalog) and parcels
		// at most packing.MaxParcels: no overflow.
		o.Price *= int64(n)
		if same == 0 {
			same = n
		} else if same != n {
			same = -1
		}
		kept = append(kept, o)
	}
	cat.Options = kept
	if same > 1 {
		cat.BasePrice *= int64(same)
	}
}

// parcelCounts are the parcels of one computation's cart per set of
// boxes (perParcel.group), so that the categories of a computation pack
// it once per set.
type parcelCounts struct {
	units  []packing.Unit
	counts map[string]int // 0: cannot be packed
}

// count is the parcels of items in boxes, the set group.
func (pc *parcelCounts) count(items []Item, group string, boxes []packing.Box) int {
	if c, ok := pc.counts[group]; ok {
		return c
	}
	if pc.counts == nil {
		pc.counts, pc.units = map[string]int{}, packingUnits(items)
	}
	c, _ := packing.Count(pc.units, boxes) // 0 with the error
	pc.counts[group] = c
	return c
}

// packingUnits are the cart's items as packing counts them.
func packingUnits(items []Item) []packing.Unit {
	units := make([]packing.Unit, len(items))
	for i, it := range items {
		units[i] = packing.Unit{Quantity: it.Quantity, Weight: it.Weight}
		if d := it.Dimensions; d != nil {
			units[i].Length, units[i].Width, units[i].Height = d.Length, d.Width, d.Height
		}
	}
	return units
}
