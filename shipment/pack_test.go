package shipment_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/options"
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

// What the shopper pays for a product priced per parcel is what is
// booked: for random carts, the options engine's price is the category's
// price times the parcels a shipment created with the same items has.
func TestPricePerParcelMatchesBooking(t *testing.T) {
	cat := &catalog.Catalog{
		Locales:    []string{"sv-SE"},
		Warehouses: []catalog.Warehouse{{ID: "sto", Address: catalog.Address{Country: "SE"}, TimeZone: "Europe/Stockholm"}},
		Carriers: []catalog.Carrier{{ID: "north", Name: "North Parcel", Products: []catalog.Product{
			{ID: "home", Ref: "np-home", Name: catalog.PlainText("Home"), DeliveryType: catalog.DeliveryHome,
				TransitDays: catalog.DayRange{Min: 1, Max: 2}, PricePerParcel: true},
		}}},
		Categories: []catalog.Category{{ID: "home", DisplayName: map[string]string{"sv-SE": "Hem"}, DeliveryType: catalog.DeliveryHome,
			Products: []string{"np-home"}, Prices: []catalog.PriceRule{{Currency: "SEK", Price: 4900}}}},
		Boxes: packBoxes,
	}
	eng, err := options.New(cat, options.Options{Clock: deliverykit.NewManualClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	f := newFixtureWith(t, func(o *shipment.Options) { o.Boxes = packBoxes })
	r := rand.New(rand.NewPCG(38, 1))
	for n := range 40 {
		var items []shipment.ItemInput
		var cart []options.Item
		for i := range 1 + r.IntN(6) {
			it := item(fmt.Sprint("SKU-", i), 1+r.Int32N(5), 100+r.Int32N(9000), 20+r.Int32N(560), 20+r.Int32N(380), 10+r.Int32N(390))
			items = append(items, it)
			d := it.Dimensions
			cart = append(cart, options.Item{Quantity: int(it.Quantity), Weight: int(it.Weight),
				Dimensions: &catalog.Dimensions{Length: int(d.Length), Width: int(d.Width), Height: int(d.Height)}})
		}
		res, err := eng.Compute(ctx, options.Request{Currency: "SEK", Items: cart, Address: catalog.Address{Country: "SE"}})
		if err != nil {
			t.Fatal(err)
		}
		sh, err := f.svc.Create(ctx, site, packRequest("np-home", items...))
		if err != nil {
			t.Fatalf("cart %d: %v", n, err)
		}
		if len(res.Categories) != 1 {
			t.Fatalf("cart %d: %d categories, want home", n, len(res.Categories))
		}
		if got, want := res.Categories[0].Options[0].Price, int64(4900*len(sh.Parcels)); got != want {
			t.Errorf("cart %d: price %d, want 4900 × %d booked parcels", n, got, len(sh.Parcels))
		}
	}
}
