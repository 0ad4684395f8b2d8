// Package packing packs items into boxes: which boxes a set of goods
// needs, and what goes in each. It is pure computation, no I/O.
//
// # Algorithm
//
// Pack is first fit decreasing by volume. Items are taken largest volume
// first (then heaviest, then in input order); each goes into the first
// open box it fits in, and when it fits in none a new box is opened. This
// is done once per box type, opening that type whenever the item fits an
// empty one (else the largest type it fits); each run's boxes are then
// shrunk, every box replaced by the smallest type that holds its items.
// The result with the fewest boxes wins, then the least total box volume,
// then the earlier run; the runs go from the largest type to the
// smallest, and one that needs more boxes than the best so far stops.
//
// # Space model
//
// A box's free space is a list of cuboids, at first its inner space. An
// item fits a free cuboid when some rotation (permutation) of its
// measures fits, is placed in its corner, and the cuboid is cut in three
// (guillotine cuts): the space beside the item, the space in front of it
// and the space on top of it. So every packing Pack returns can be
// physically built, box by box, in the order the items were placed. What
// the model cannot do: join free cuboids again (two gaps side by side do
// not hold an item wider than either), place items off the corner of a
// cuboid, or try other cuts; it may therefore use a box more than an
// optimal packer would. It does not model fragility, orientation
// constraints ("this side up") or weight distribution.
//
// # Weights and ship-alone items
//
// A box's items and its tare weigh at most its MaxWeight. An item with
// ShipAlone gets a parcel of its own, in the smallest box (by volume) that
// holds it; one that fits no box ships in its own packaging (Parcel.Box is
// -1): such goods usually travel in their maker's carton. Any other item
// that fits no box, by its measures or its weight, is an *ItemError.
package packing

import (
	"cmp"
	"fmt"
	"slices"
)

// MaxMeasure bounds every measure of items and boxes, so that volumes
// cannot overflow.
const MaxMeasure = 1 << 20

// Item is one unit of goods. Measures are millimetres (1 to MaxMeasure),
// weights grams (greater than 0); an item outside these is an *ItemError.
type Item struct {
	Length, Width, Height int32
	Weight                int32
	ShipAlone             bool
}

// Box is a box type, of which any number may be used. Measures are 1 to
// MaxMeasure millimetres, the tare at least 0 and below MaxWeight; other
// boxes are an error.
type Box struct {
	Length, Width, Height int32 // inner measures
	MaxWeight             int32 // the packed box, tare included
	TareWeight            int32
}

// Parcel is one packed box.
type Parcel struct {
	// Box is the index of the box type in the boxes Pack was given; -1
	// for a ShipAlone item that fits no box.
	Box int
	// Items are indexes into the items Pack was given, in the order they
	// were placed.
	Items []int
	// Weight is the items' weight plus the box's tare, in grams.
	Weight int64
}

// ItemError is the item that fits no box.
type ItemError struct {
	Index  int    // into the items Pack was given
	Reason string // "too large", "too heavy" or "invalid"
}

func (e *ItemError) Error() string {
	return fmt.Sprintf("item %d is %s for every box", e.Index, e.Reason)
}

// cuboid is a free space in a box, or a rotation of an item.
type cuboid [3]int64

func (c cuboid) volume() int64 { return c[0] * c[1] * c[2] }

// rotations are the permutations of an item's measures.
var rotations = [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}

// sorted is c's measures in increasing order: an item fits a space in
// some rotation exactly when its sorted measures are each at most the
// space's.
func (c cuboid) sorted() cuboid {
	if c[0] > c[1] {
		c[0], c[1] = c[1], c[0]
	}
	if c[1] > c[2] {
		c[1], c[2] = c[2], c[1]
	}
	if c[0] > c[1] {
		c[0], c[1] = c[1], c[0]
	}
	return c
}

// place finds the first free cuboid the item fits in, and the first of
// the rotations that fits it. ok is false when none does.
func place(free []cuboid, it cuboid) (at int, rot cuboid, ok bool) {
	s := it.sorted()
	for i, f := range free {
		if fs := f.sorted(); s[0] > fs[0] || s[1] > fs[1] || s[2] > fs[2] {
			continue
		}
		for _, r := range rotations {
			c := cuboid{it[r[0]], it[r[1]], it[r[2]]}
			if c[0] <= f[0] && c[1] <= f[1] && c[2] <= f[2] {
				return i, c, true
			}
		}
	}
	return 0, cuboid{}, false
}

// cut replaces free[at] by the three spaces left around an item of
// measures c placed in its corner. Spaces with a side under minSide, the
// shortest side of any item, can hold nothing and are dropped.
func cut(free []cuboid, at int, c cuboid, minSide int64) []cuboid {
	f := free[at]
	free = slices.Delete(free, at, at+1)
	for _, s := range [3]cuboid{
		{f[0] - c[0], f[1], f[2]}, // beside: the full depth and height
		{c[0], f[1] - c[1], f[2]}, // in front: as long as the item
		{c[0], c[1], f[2] - c[2]}, // on top: the item's footprint
	} {
		if s[0] >= minSide && s[1] >= minSide && s[2] >= minSide {
			free = append(free, s)
		}
	}
	return free
}

// packer is what the runs of one Pack share.
type packer struct {
	items   []Item
	boxes   []Box
	bySize  []int // box types, smallest first
	minSide int64 // the shortest side of any item to pack
}

type open struct {
	box   int
	free  []cuboid
	items []int
	load  int64 // items' weight
	room  int64 // the box's volume less its items'
	// largest is the volume of the largest free cuboid: an item with
	// more volume fits none of them.
	largest int64
}

// fits reports whether the item fits an empty box b by measures and
// weight.
func fits(b Box, it Item) (size, weight bool) {
	_, _, size = place([]cuboid{boxSpace(b)}, itemSpace(it))
	return size, int64(it.Weight)+int64(b.TareWeight) <= int64(b.MaxWeight)
}

func boxSpace(b Box) cuboid    { return cuboid{int64(b.Length), int64(b.Width), int64(b.Height)} }
func itemSpace(it Item) cuboid { return cuboid{int64(it.Length), int64(it.Width), int64(it.Height)} }

func measures(l, w, h int32) bool {
	return l > 0 && w > 0 && h > 0 && l <= MaxMeasure && w <= MaxMeasure && h <= MaxMeasure
}

// Pack packs items into boxes (see the package doc). The parcels come
// sorted by the position of their first item in the decreasing order;
// ShipAlone items' parcels come first.
func Pack(items []Item, boxes []Box) ([]Parcel, error) {
	// Box types by volume, smallest first (ties: lighter limit first,
	// then input order), for "smallest that fits" and "largest that fits".
	bySize := make([]int, len(boxes))
	for i, b := range boxes {
		if !measures(b.Length, b.Width, b.Height) || b.TareWeight < 0 || b.TareWeight >= b.MaxWeight {
			return nil, fmt.Errorf("packing: box %d has a measure out of 1..%d mm or a tare out of 0..max weight", i, MaxMeasure)
		}
		bySize[i] = i
	}
	slices.SortStableFunc(bySize, func(a, b int) int {
		return cmp.Or(cmp.Compare(boxSpace(boxes[a]).volume(), boxSpace(boxes[b]).volume()),
			cmp.Compare(boxes[a].MaxWeight, boxes[b].MaxWeight))
	})
	order := make([]int, 0, len(items))
	var parcels []Parcel
	for i, it := range items {
		if !measures(it.Length, it.Width, it.Height) || it.Weight <= 0 {
			return nil, &ItemError{Index: i, Reason: "invalid"}
		}
		anySize, anyWeight := false, false
		smallest := -1
		for _, b := range bySize {
			s, w := fits(boxes[b], it)
			anySize, anyWeight = anySize || s, anyWeight || (s && w)
			if s && w && smallest < 0 {
				smallest = b
			}
		}
		switch {
		case it.ShipAlone:
			p := Parcel{Box: smallest, Items: []int{i}, Weight: int64(it.Weight)}
			if smallest >= 0 {
				p.Weight += int64(boxes[smallest].TareWeight)
			}
			parcels = append(parcels, p)
		case !anySize:
			return nil, &ItemError{Index: i, Reason: "too large"}
		case !anyWeight:
			return nil, &ItemError{Index: i, Reason: "too heavy"}
		default:
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(-cmp.Compare(itemSpace(items[a]).volume(), itemSpace(items[b]).volume()),
			-cmp.Compare(items[a].Weight, items[b].Weight))
	})
	if len(order) == 0 {
		return parcels, nil
	}
	pk := &packer{items: items, boxes: boxes, bySize: bySize, minSide: itemSpace(items[order[0]]).sorted()[0]}
	for _, i := range order {
		pk.minSide = min(pk.minSide, itemSpace(items[i]).sorted()[0])
	}
	var best []open
	var bestVolume int64
	// Largest type first: that run usually needs the fewest boxes, and a
	// later run is abandoned as soon as it needs more.
	for k := len(bySize) - 1; k >= 0; k-- {
		limit := len(order)
		if best != nil {
			limit = len(best)
		}
		run := pk.firstFit(order, bySize[k], limit)
		if run == nil {
			continue
		}
		var volume int64
		for j := range run {
			run[j] = pk.shrink(run[j])
			volume += boxSpace(boxes[run[j].box]).volume()
		}
		if best == nil || len(run) < len(best) || (len(run) == len(best) && volume < bestVolume) {
			best, bestVolume = run, volume
		}
	}
	for _, o := range best {
		parcels = append(parcels, Parcel{Box: o.box, Items: o.items, Weight: o.load + int64(boxes[o.box].TareWeight)})
	}
	return parcels, nil
}

// firstFit is one first-fit-decreasing run that opens box type prefer
// when the item fits an empty one, else the largest type it fits. It gives
// up, returning nil, when it needs more than limit boxes.
func (pk *packer) firstFit(order []int, prefer, limit int) []open {
	items, boxes, bySize := pk.items, pk.boxes, pk.bySize
	var run []open
	for _, i := range order {
		it := items[i]
		if !pk.add(run, i) {
			b := prefer
			if s, w := fits(boxes[b], it); !s || !w {
				for k := len(bySize) - 1; k >= 0; k-- {
					if s, w := fits(boxes[bySize[k]], it); s && w {
						b = bySize[k]
						break
					}
				}
			}
			if len(run) == limit {
				return nil
			}
			space := boxSpace(boxes[b])
			run = append(run, open{box: b, free: []cuboid{space}, room: space.volume(), largest: space.volume()})
			pk.add(run[len(run)-1:], i) // it fits the empty box
		}
	}
	return run
}

// add puts item i into the first box of run it fits in.
func (pk *packer) add(run []open, i int) bool {
	items, boxes := pk.items, pk.boxes
	it := items[i]
	for k := range run {
		o := &run[k]
		b := boxes[o.box]
		if o.largest < itemSpace(it).volume() || o.load+int64(it.Weight)+int64(b.TareWeight) > int64(b.MaxWeight) {
			continue
		}
		at, rot, ok := place(o.free, itemSpace(it))
		if !ok {
			continue
		}
		o.free = cut(o.free, at, rot, pk.minSide)
		o.largest = 0
		for _, f := range o.free {
			o.largest = max(o.largest, f.volume())
		}
		o.items = append(o.items, i)
		o.load += int64(it.Weight)
		o.room -= itemSpace(it).volume()
		return true
	}
	return false
}

// shrink moves a packed box's items into the smallest box type that holds
// them all, placed in the same order; o when none smaller does.
func (pk *packer) shrink(o open) open {
	items, boxes, bySize := pk.items, pk.boxes, pk.bySize
	used := boxSpace(boxes[o.box]).volume() - o.room
	for _, b := range bySize {
		if b == o.box {
			return o
		}
		if boxSpace(boxes[b]).volume() < used || o.load+int64(boxes[b].TareWeight) > int64(boxes[b].MaxWeight) {
			continue
		}
		free := []cuboid{boxSpace(boxes[b])}
		ok := true
		for _, i := range o.items {
			at, rot, fit := place(free, itemSpace(items[i]))
			if !fit {
				ok = false
				break
			}
			free = cut(free, at, rot, pk.minSide)
		}
		if ok {
			return open{box: b, free: free, items: o.items, load: o.load, room: boxSpace(boxes[b]).volume() - used}
		}
	}
	return o
}
