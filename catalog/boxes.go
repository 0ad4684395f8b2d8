package catalog

import (
	"fmt"
	"slices"
)

// Box is a shipping carton the warehouse packs goods in. Shipments created
// with items instead of parcels are packed into the catalog's boxes (see
// package catalog/packing), one parcel per box.
type Box struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Inner are the measures of the space inside, in millimetres: what
	// the goods must fit in.
	Inner Dimensions `json:"inner"`
	// Outer are the measures of the packed box, which the parcel is
	// booked with; optional, the inner measures when left out. Each is at
	// least the inner one.
	Outer *Dimensions `json:"outer,omitempty"`
	// MaxWeight is the most the packed box may weigh, in grams, its tare
	// included.
	MaxWeight int `json:"max_weight"`
	// TareWeight is the empty box's weight in grams, added to every
	// parcel packed in it.
	TareWeight int `json:"tare_weight,omitempty"`
	// Products are the refs of the carrier products the box may be
	// shipped with; empty: all of them.
	Products []string `json:"products,omitempty"`
}

// The bounds of a catalog's boxes.
const (
	// MaxBoxes is the most boxes a catalog lists.
	MaxBoxes = 50
	// MaxBoxDimension is the longest side of a box in millimetres.
	MaxBoxDimension = 3000
	// MaxBoxWeight is the heaviest a packed box may be in grams, the
	// heaviest parcel a shipment accepts.
	MaxBoxWeight = 1_000_000
	// MaxBoxProducts is the most carrier products a box names.
	MaxBoxProducts = 50
)

// UsableWith reports whether the box may be shipped with the carrier
// product ref.
func (b Box) UsableWith(ref string) bool {
	if len(b.Products) == 0 {
		return true
	}
	for _, p := range b.Products {
		if p == ref {
			return true
		}
	}
	return false
}

// OuterDimensions are the box's outer measures: Outer, else Inner.
func (b Box) OuterDimensions() Dimensions {
	if b.Outer != nil {
		return *b.Outer
	}
	return b.Inner
}

// validateBoxes checks the boxes against their bounds and the declared
// carrier products.
func (c *Catalog) validateBoxes(v *validator, d *declared) {
	if len(c.Boxes) > MaxBoxes {
		v.Addf("boxes", "max", "must have at most %d boxes", MaxBoxes)
		return
	}
	ids := map[string]bool{}
	for i, b := range c.Boxes {
		p := fmt.Sprintf("boxes[%d]", i)
		v.newID(p+".id", b.ID, ids, "a box id")
		v.required(p+".name", b.Name)
		boxDimensions(v, p+".inner", b.Inner)
		if o := b.Outer; o != nil {
			boxDimensions(v, p+".outer", *o)
			if o.Length < b.Inner.Length || o.Width < b.Inner.Width || o.Height < b.Inner.Height {
				v.Add(p+".outer", "gte_inner", "every outer measure must be at least the inner one")
			}
		}
		if b.MaxWeight <= 0 || b.MaxWeight > MaxBoxWeight {
			v.Addf(p+".max_weight", "range", "must be between 1 and %d grams", MaxBoxWeight)
		}
		if b.TareWeight < 0 || (b.MaxWeight > 0 && b.TareWeight >= b.MaxWeight) {
			v.Add(p+".tare_weight", "range", "must be at least 0 and less than max_weight")
		}
		if len(b.Products) > MaxBoxProducts {
			v.Addf(p+".products", "max", "must have at most %d products", MaxBoxProducts)
			continue
		}
		for j, ref := range b.Products {
			if _, ok := d.products[ref]; !ok {
				v.Addf(fmt.Sprintf("%s.products[%d]", p, j), "known", "%q is not the ref of a carrier product", ref)
			}
		}
	}
}

// validatePricePerParcel refuses a product priced per parcel that no box
// may ship with: it could never be offered.
func (c *Catalog) validatePricePerParcel(v *validator) {
	for i, cr := range c.Carriers {
		for j, p := range cr.Products {
			if !p.PricePerParcel {
				continue
			}
			if !slices.ContainsFunc(c.Boxes, func(b Box) bool { return b.UsableWith(p.Ref) }) {
				v.Addf(fmt.Sprintf("carriers[%d].products[%d].price_per_parcel", i, j), "boxes", "needs a box usable with %q: the parcels are counted by packing the cart into boxes", p.Ref)
			}
		}
	}
}

func boxDimensions(v *validator, field string, dm Dimensions) {
	for _, m := range []struct {
		name string
		val  int
	}{{"length", dm.Length}, {"width", dm.Width}, {"height", dm.Height}} {
		if m.val <= 0 || m.val > MaxBoxDimension {
			v.Addf(field+"."+m.name, "range", "must be between 1 and %d millimetres", MaxBoxDimension)
		}
	}
}
