package wiring_test

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/wiring"
)

// The drop-off points a return page lists: the return product's carrier's
// pickup locations nearest to the customer, placed by postal code.
func ExampleNewDropOffs() {
	d := wiring.NewDropOffs(config.Demo().Catalogs(), 0)
	points, err := d.DropOffPoints(context.Background(), "demo-site", "north-parcel-point",
		returns.Address{PostalCode: "114 49", City: "Stockholm", Country: "SE"}, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range points {
		fmt.Printf("%s, %.1f km\n", p.Name, p.Meters/1000)
	}
	// Output:
	// Service Point Östermalm, 0.0 km
	// Kiosk Sergels Torg, 1.3 km
	// Grocer Vasastan, 2.1 km
}
