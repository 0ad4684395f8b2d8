package packing

import (
	"errors"
	"math"

	"github.com/deliverykit/deliverykit/catalog"
)

// The bounds of a packing a shipment books: the checkout's price per
// parcel and the shipment's packing of the same items refuse the same
// carts, so a price is never quoted for what cannot be booked.
const (
	// MaxUnits is the most units (items times their quantities) packed
	// at once.
	MaxUnits = 500
	// MaxParcels is the most parcels a shipment has.
	MaxParcels = 100
)

// ErrNotPackable is Count's answer for units it cannot pack: one without
// measures or weight, more than MaxUnits of them, one that fits no box,
// or more than MaxParcels parcels.
var ErrNotPackable = errors.New("packing: the items cannot be packed into the boxes")

// UsableBoxes are the boxes of a catalog that may ship with the carrier
// product ref, in catalog order, and the same boxes as Pack takes them.
// The shipment's packing and the price per parcel both pick boxes here,
// so they pack into the same ones.
func UsableBoxes(all []catalog.Box, ref string) ([]catalog.Box, []Box) {
	var usable []catalog.Box
	for _, b := range all {
		if b.UsableWith(ref) {
			usable = append(usable, b)
		}
	}
	boxes := make([]Box, len(usable))
	for i, b := range usable {
		// The catalog bounds measures and weights far below int32.
		boxes[i] = Box{Length: int32(b.Inner.Length), Width: int32(b.Inner.Width), Height: int32(b.Inner.Height),
			MaxWeight: int32(b.MaxWeight), TareWeight: int32(b.TareWeight)}
	}
	return usable, boxes
}

// Unit is a cart line as the price per parcel knows it: a quantity of
// units, each of Weight grams with the measures in millimetres; 0 is
// unknown.
type Unit struct {
	Quantity              int
	Weight                int
	Length, Width, Height int
}

// Count is the number of parcels the units pack into with boxes, by Pack:
// what a shipment created with these items books. Lines without quantity
// are skipped; units that cannot be packed are ErrNotPackable.
func Count(lines []Unit, boxes []Box) (int, error) {
	n := 0
	for _, l := range lines {
		if l.Quantity <= 0 {
			continue
		}
		if l.Quantity > MaxUnits-n {
			return 0, ErrNotPackable
		}
		n += l.Quantity
	}
	items := make([]Item, 0, n)
	for _, l := range lines {
		if l.Quantity <= 0 {
			continue
		}
		if !inInt32(l.Weight) || !inInt32(l.Length) || !inInt32(l.Width) || !inInt32(l.Height) {
			return 0, ErrNotPackable
		}
		it := Item{Length: int32(l.Length), Width: int32(l.Width), Height: int32(l.Height), Weight: int32(l.Weight)}
		for range l.Quantity {
			items = append(items, it)
		}
	}
	if len(items) == 0 {
		return 0, ErrNotPackable
	}
	parcels, err := Pack(items, boxes)
	if err != nil || len(parcels) > MaxParcels {
		return 0, ErrNotPackable
	}
	return len(parcels), nil
}

// inInt32 reports whether a measure or weight is known (above 0) and
// within what an Item holds; Pack bounds it further.
func inInt32(v int) bool { return v > 0 && v <= math.MaxInt32 }
