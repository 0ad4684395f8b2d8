package options_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
)

// Compute the options for a Swedish cart with the demo catalog on a
// Thursday morning: pickup points nearest Södermalm first, priced in SEK,
// named in Swedish.
func Example() {
	site, _ := config.Demo().Site("demo-site")
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engine, err := options.New(site.Catalog, options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	res, err := engine.Compute(context.Background(), options.Request{
		Currency:  "SEK",
		Locales:   []string{"sv-SE"},
		CartValue: 45000,
		Items:     []options.Item{{Quantity: 1, Weight: 800}},
		Address:   catalog.Address{Country: "SE", PostalCode: "118 26"},
	})
	if err != nil {
		panic(err)
	}
	for _, c := range res.Categories {
		o := c.Options[0]
		fmt.Printf("%s: %d options, from %s %s, %d öre, delivered %s\n", c.Name, len(c.Options),
			o.Carrier.Name, o.Carrier.ProductName, o.Price, o.ETD.Earliest.Format("Mon 2 Jan"))
	}
	first := res.Categories[0].Options[0]
	fmt.Printf("nearest: %s, %d m walk\n", first.Location.Name, first.Location.Distance.WalkingMeters)
	fmt.Println("preselected:", res.Preselected)
	// Output:
	// Utlämningsställe: 8 options, from North Parcel Ombud, 4900 öre, delivered Fri 20 Nov
	// Hemleverans: 2 options, from North Parcel Hemleverans, 7900 öre, delivered Fri 20 Nov
	// Brevlåda: 1 options, from North Parcel Brevlådepaket, 2900 öre, delivered Mon 23 Nov
	// Hämta i butik: 1 options, from Demo Stores Klicka och hämta, 0 öre, delivered Mon 23 Nov
	// nearest: Grocer Södermalm, 0 m walk
	// preselected: pickup/north-parcel-point/np-se-102
}

// Keep what a result was computed from instead of the result, and compute
// it again later, exactly, without geocoding: a day later the engine's
// clock has moved on, but ComputeAt answers as of the first computation.
func ExampleEngine_ComputeAt() {
	site, _ := config.Demo().Site("demo-site")
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engine, err := options.New(site.Catalog, options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	req := options.Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: 45000,
		Items: []options.Item{{Quantity: 1}}, Address: catalog.Address{Country: "SE", PostalCode: "118 26"}}
	at := engine.Now()
	first, err := engine.ComputeFor(context.Background(), req, at)
	if err != nil {
		panic(err)
	}
	// Stored: req, at and first.Coordinates — a few hundred bytes.
	clock.Advance(24 * time.Hour)
	again, err := engine.ComputeAt(req, at, first.Coordinates)
	if err != nil {
		panic(err)
	}
	_, o1, _ := first.Option(first.Preselected)
	_, o2, _ := again.Option(again.Preselected)
	fmt.Println(o2.ID, o2.ExpireTime.Equal(o1.ExpireTime), o2.ETD.Earliest.Equal(o1.ETD.Earliest))
	// Output:
	// pickup/north-parcel-point/np-se-102 true true
}
