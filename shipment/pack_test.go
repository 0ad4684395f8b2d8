package shipment_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/shipment"
)

var packBoxes = shipment.StaticBoxes{
	{ID: "small", Name: "Small", Inner: catalog.Dimensions{Length: 300, Width: 200, Height: 150}, MaxWeight: 10000, TareWeight: 200},
	{ID: "large", Name: "Large", Inner: catalog.Dimensions{Length: 600, Width: 400, Height: 400},
		Outer: &catalog.Dimensions{Length: 612, Width: 412, Height: 412}, MaxWeight: 25000, TareWeight: 700, Products: []string{"np-home"}},
}

func item(sku string, qty, grams, l, w, h int32) shipment.ItemInput {
	return shipment.ItemInput{SKU: sku, Name: sku, Quantity: qty, Price: 1000, Currency: "SEK", Weight: grams,
		Dimensions: shipment.ItemDimensions{Length: l, Width: w, Height: h}}
}

func packRequest(method string, items ...shipment.ItemInput) shipment.CreateShipmentRequest {
	req := request("")
	req.Parcels, req.ShippingMethod, req.Items = nil, method, items
	return req
}

// Items are packed into parcels: three parcels when the weight needs
// them, each with its box's measures and tare and its line items.
func TestCreatePacksItems(t *testing.T) {
	f := newFixtureWith(t, func(o *shipment.Options) { o.Boxes = packBoxes })
	// Eight 7 kg units, which the large box's measures would hold: three
	// per box by weight (21 kg + 700 g tare), so three boxes.
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, packRequest("np-home",
		item("KETTLEBELL", 6, 7000, 150, 150, 150), item("PLATE", 2, 7000, 250, 250, 30))))
	type got struct {
		Weight     int32
		Dimensions shipment.Dimensions
		LineItems  []shipment.LineItem
		Product    string
	}
	var parcels []got
	for _, p := range sh.Parcels {
		parcels = append(parcels, got{p.Weight, *p.Dimensions, p.LineItems, p.Deliveries[0].CarrierProductRef})
	}
	large := shipment.Dimensions{Length: 612, Width: 412, Height: 412}
	li := func(sku string, n int32) shipment.LineItem {
		return shipment.LineItem{SKU: sku, Name: sku, Quantity: n, Price: 1000, Currency: "SEK"}
	}
	want := []got{
		{21700, large, []shipment.LineItem{li("KETTLEBELL", 3)}, "np-home"},
		{21700, large, []shipment.LineItem{li("KETTLEBELL", 3)}, "np-home"},
		{14700, large, []shipment.LineItem{li("PLATE", 2)}, "np-home"},
	}
	if diff := cmp.Diff(want, parcels); diff != "" {
		t.Errorf("parcels (-want +got):\n%s", diff)
	}
}

func TestCreatePackingRefused(t *testing.T) {
	many := item("PIN", shipment.MaxPackedUnits, 1, 10, 10, 10)
	tests := []struct {
		name  string
		boxes shipment.Boxes
		req   shipment.CreateShipmentRequest
		want  []string
	}{
		{"no shipping method", packBoxes, packRequest("", item("MUG", 1, 400, 100, 100, 100)), []string{"shipping_method"}},
		{"too large for the boxes of the product", packBoxes,
			packRequest("np-point", item("MUG", 1, 400, 100, 100, 100), item("TENT", 1, 4000, 550, 200, 200)), []string{"items[1]"}},
		{"too heavy", packBoxes, packRequest("np-home", item("ANVIL", 1, 24400, 100, 100, 100)), []string{"items[0]"}},
		{"no boxes", nil, packRequest("np-home", item("MUG", 1, 400, 100, 100, 100)), []string{"items[0]"}},
		{"too many units", packBoxes, packRequest("np-home", many, item("MUG", 1, 400, 100, 100, 100)), []string{"items"}},
		{"bad measures", packBoxes, packRequest("np-home", item("MUG", 1, 0, 0, 100, shipment.MaxItemDimension+1)),
			[]string{"items[0].dimensions.height", "items[0].dimensions.length", "items[0].weight"}},
		{"neither parcels nor items", packBoxes, packRequest("np-home"), []string{"parcels"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(o *shipment.Options) { o.Boxes = tt.boxes })
			_, err := f.svc.Create(ctx, site, tt.req)
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("err = %v, want InvalidArgument", err)
			}
			var fields []string
			for _, v := range deliverykit.ViolationsOf(err) {
				fields = append(fields, v.Field)
			}
			if diff := cmp.Diff(tt.want, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}
