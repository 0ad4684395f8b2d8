package packing

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/catalog"
)

func TestCount(t *testing.T) {
	tent := Unit{Quantity: 1, Weight: 2400, Length: 550, Width: 350, Height: 350} // the large box only
	mug := Unit{Quantity: 4, Weight: 400, Length: 120, Width: 100, Height: 100}
	tests := []struct {
		name    string
		lines   []Unit
		boxes   []Box
		want    int
		wantErr bool
	}{
		{"fits one box", []Unit{mug}, boxes, 1, false},
		{"needs three", []Unit{{Quantity: 3, Weight: 2400, Length: 550, Width: 350, Height: 350}}, boxes, 3, false},
		{"a line without quantity is skipped", []Unit{mug, {Quantity: 0}}, boxes, 1, false},
		{"weight splits", []Unit{{Quantity: 3, Weight: 9000, Length: 100, Width: 100, Height: 100}}, []Box{small}, 3, false},
		{"fits no box", []Unit{tent}, []Box{small, medium}, 0, true},
		{"no boxes", []Unit{mug}, nil, 0, true},
		{"no weight", []Unit{{Quantity: 1, Length: 100, Width: 100, Height: 100}}, boxes, 0, true},
		{"no measures", []Unit{{Quantity: 1, Weight: 100}}, boxes, 0, true},
		{"nothing to pack", nil, boxes, 0, true},
		{"too many units", []Unit{{Quantity: MaxUnits, Weight: 1, Length: 1, Width: 1, Height: 1}, {Quantity: 1, Weight: 1, Length: 1, Width: 1, Height: 1}}, boxes, 0, true},
		{"more than int32", []Unit{{Quantity: 1, Weight: 1 << 40, Length: 1, Width: 1, Height: 1}}, boxes, 0, true},
		{"more parcels than a shipment has", []Unit{{Quantity: MaxParcels + 1, Weight: 2400, Length: 550, Width: 350, Height: 350}}, boxes, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Count(tt.lines, tt.boxes)
			if tt.wantErr != (err != nil) || (err != nil && !errors.Is(err, ErrNotPackable)) {
				t.Fatalf("Count: %d, %v; want an error: %v", got, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Count = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestUsableBoxes(t *testing.T) {
	all := []catalog.Box{
		{ID: "any", Inner: catalog.Dimensions{Length: 300, Width: 200, Height: 150}, MaxWeight: 10000, TareWeight: 200},
		{ID: "home-only", Inner: catalog.Dimensions{Length: 600, Width: 400, Height: 400}, MaxWeight: 25000, Products: []string{"np-home"}},
	}
	for _, tt := range []struct {
		ref  string
		want []string
		pack []Box
	}{
		{"np-home", []string{"any", "home-only"}, []Box{small, {Length: 600, Width: 400, Height: 400, MaxWeight: 25000}}},
		{"np-point", []string{"any"}, []Box{small}},
	} {
		usable, packed := UsableBoxes(all, tt.ref)
		var ids []string
		for _, b := range usable {
			ids = append(ids, b.ID)
		}
		if diff := cmp.Diff(tt.want, ids); diff != "" {
			t.Errorf("%s: boxes (-want +got):\n%s", tt.ref, diff)
		}
		if diff := cmp.Diff(tt.pack, packed); diff != "" {
			t.Errorf("%s: as Pack takes them (-want +got):\n%s", tt.ref, diff)
		}
	}
}
