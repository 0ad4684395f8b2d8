package packing

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The boxes of the tests: small, medium and large, as in the demo catalog.
var (
	small  = Box{Length: 300, Width: 200, Height: 150, MaxWeight: 10000, TareWeight: 200}
	medium = Box{Length: 400, Width: 300, Height: 250, MaxWeight: 20000, TareWeight: 300}
	large  = Box{Length: 600, Width: 400, Height: 400, MaxWeight: 25000, TareWeight: 700}
	// Given largest first, so that picking the smallest is not the input
	// order.
	boxes = []Box{large, medium, small}
)

const (
	iLarge = iota
	iMedium
	iSmall
)

func cube(side, grams int32) Item {
	return Item{Length: side, Width: side, Height: side, Weight: grams}
}

func TestPack(t *testing.T) {
	tests := []struct {
		name  string
		items []Item
		want  []Parcel
	}{
		{"fits one box", []Item{cube(100, 500), cube(100, 700)},
			[]Parcel{{Box: iSmall, Items: []int{1, 0}, Weight: 1400}}},
		{"rotation needed", []Item{{Length: 140, Width: 290, Height: 190, Weight: 1000}},
			[]Parcel{{Box: iSmall, Items: []int{0}, Weight: 1200}}},
		{"least volume: the medium box, not the large", []Item{{Length: 350, Width: 250, Height: 200, Weight: 1000}},
			[]Parcel{{Box: iMedium, Items: []int{0}, Weight: 1300}}},
		{"needs three by measures", []Item{
			{Length: 500, Width: 350, Height: 300, Weight: 3000},
			{Length: 300, Width: 500, Height: 350, Weight: 3000},
			{Length: 350, Width: 300, Height: 500, Weight: 3000},
		}, []Parcel{
			{Box: iLarge, Items: []int{0}, Weight: 3700},
			{Box: iLarge, Items: []int{1}, Weight: 3700},
			{Box: iLarge, Items: []int{2}, Weight: 3700},
		}},
		{"weight limits: two 10 kg items per large box, tare included", []Item{
			cube(100, 10000), cube(100, 10000), cube(100, 10000), cube(100, 10000), cube(100, 10000), cube(100, 10000),
		}, []Parcel{
			{Box: iLarge, Items: []int{0, 1}, Weight: 20700},
			{Box: iLarge, Items: []int{2, 3}, Weight: 20700},
			{Box: iLarge, Items: []int{4, 5}, Weight: 20700},
		}},
		{"fewest boxes: one large rather than two medium", []Item{
			{Length: 400, Width: 300, Height: 200, Weight: 1000},
			{Length: 400, Width: 300, Height: 200, Weight: 1000},
		}, []Parcel{{Box: iLarge, Items: []int{0, 1}, Weight: 2700}}},
		{"ship alone: own parcel, smallest box, or own packaging", []Item{
			cube(100, 500),
			{Length: 1000, Width: 800, Height: 600, Weight: 40000, ShipAlone: true},
			{Length: 100, Width: 100, Height: 100, Weight: 500, ShipAlone: true},
			cube(100, 500),
		}, []Parcel{
			{Box: -1, Items: []int{1}, Weight: 40000},
			{Box: iSmall, Items: []int{2}, Weight: 700},
			{Box: iSmall, Items: []int{0, 3}, Weight: 1200},
		}},
		{"no items", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Pack(tt.items, boxes)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Pack (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPackItemFitsNoBox(t *testing.T) {
	tests := []struct {
		name  string
		items []Item
		boxes []Box
		want  ItemError
	}{
		{"too large", []Item{cube(100, 1), {Length: 700, Width: 10, Height: 10, Weight: 1}}, boxes, ItemError{Index: 1, Reason: "too large"}},
		{"too heavy", []Item{cube(100, 1), cube(100, 1), cube(100, 1), cube(100, 24301)}, boxes, ItemError{Index: 3, Reason: "too heavy"}},
		// Fits the small box's measures and the large box's weight, but
		// neither box as a whole.
		{"too heavy for the box it fits", []Item{{Length: 290, Width: 190, Height: 140, Weight: 20000}},
			[]Box{small, {Length: 100, Width: 100, Height: 100, MaxWeight: 25000}}, ItemError{Index: 0, Reason: "too heavy"}},
		{"no boxes", []Item{cube(1, 1)}, nil, ItemError{Index: 0, Reason: "too large"}},
		{"invalid measures", []Item{cube(1, 1), {Length: MaxMeasure + 1, Width: 1, Height: 1, Weight: 1}}, boxes, ItemError{Index: 1, Reason: "invalid"}},
		{"invalid weight", []Item{cube(1, 0)}, boxes, ItemError{Index: 0, Reason: "invalid"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Pack(tt.items, tt.boxes)
			var ie *ItemError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v, want an *ItemError", err)
			}
			if diff := cmp.Diff(tt.want, *ie); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPackInvalidBox(t *testing.T) {
	for _, b := range []Box{{Length: 0, Width: 1, Height: 1, MaxWeight: 1}, {Length: 1, Width: 1, Height: MaxMeasure + 1, MaxWeight: 1},
		{Length: 1, Width: 1, Height: 1, MaxWeight: 10, TareWeight: 10}, {Length: 1, Width: 1, Height: 1, MaxWeight: 10, TareWeight: -1}} {
		if _, err := Pack([]Item{cube(1, 1)}, []Box{small, b}); err == nil {
			t.Errorf("box %+v was accepted", b)
		}
	}
}

// TestPackValid packs random carts and checks what every packing must
// hold: each item in exactly one parcel, no box over its weight or its
// volume, each item's measures within its box's in some rotation.
func TestPackValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		items := randomItems(r, 1+n%60)
		parcels, err := Pack(items, boxes)
		if err != nil {
			t.Fatalf("cart %d: %v", n, err)
		}
		seen := make([]int, len(items))
		for k, p := range parcels {
			b := boxes[p.Box]
			var volume, weight int64
			for _, i := range p.Items {
				seen[i]++
				volume += itemSpace(items[i]).volume()
				weight += int64(items[i].Weight)
				if _, _, ok := place([]cuboid{boxSpace(b)}, itemSpace(items[i])); !ok {
					t.Errorf("cart %d parcel %d: item %d does not fit box %d", n, k, i, p.Box)
				}
			}
			if volume > boxSpace(b).volume() || weight+int64(b.TareWeight) > int64(b.MaxWeight) || p.Weight != weight+int64(b.TareWeight) {
				t.Errorf("cart %d parcel %d: volume %d, weight %d (reported %d) over box %d", n, k, volume, weight, p.Weight, p.Box)
			}
		}
		for i, c := range seen {
			if c != 1 {
				t.Errorf("cart %d: item %d is in %d parcels", n, i, c)
			}
		}
	}
}

func randomItems(r *rand.Rand, n int) []Item {
	items := make([]Item, n)
	for i := range items {
		items[i] = Item{Length: 20 + r.Int32N(380), Width: 20 + r.Int32N(280), Height: 10 + r.Int32N(240), Weight: 50 + r.Int32N(4000)}
	}
	return items
}

// BenchmarkPack100 packs a cart of 100 items of mixed sizes into the four
// boxes of the demo catalog.
func BenchmarkPack100(b *testing.B) {
	demo := []Box{
		{Length: 320, Width: 230, Height: 25, MaxWeight: 2000, TareWeight: 40},
		small, medium, large,
	}
	r := rand.New(rand.NewPCG(3, 4))
	items := make([]Item, 100)
	for i := range items {
		items[i] = Item{Length: 30 + r.Int32N(250), Width: 20 + r.Int32N(180), Height: 10 + r.Int32N(120), Weight: 50 + r.Int32N(1500)}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Pack(items, demo); err != nil {
			b.Fatal(err)
		}
	}
}
