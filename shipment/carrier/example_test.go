package carrier_test

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// S10 numbers carry a mod-11 check digit, so a mistyped number is caught
// before any lookup.
func ExampleCheckS10() {
	n, _ := carrier.FormatS10("RR", 12345678, "SE")
	fmt.Println(n, carrier.CheckS10(n))
	fmt.Println(carrier.CheckS10("RR123456784SE"))
	// Output:
	// RR123456785SE <nil>
	// has a wrong S10 check digit: want 5
}

// The demo carrier answers the same key with the same booking, which is
// what makes a repeated booking request safe.
func ExampleDemo_Book() {
	ctx := context.Background()
	demo, _ := carrier.NewDemo(memory.New(), carrier.DemoOptions{Service: "CP", Country: "SE", TrackingURL: "https://track.example/{tracking_number}"})
	req := shipment.BookingRequest{Key: "my-site/shp_1-P1-D1", Receiver: shipment.Receiver{Address: &shipment.Address{PostalCode: "753 20", Country: "SE"}}}
	first, _ := demo.Book(ctx, req)
	again, _ := demo.Book(ctx, req)
	fmt.Println(first.TrackingNumber, first.RoutingCode, first.TrackingURL)
	fmt.Println(again == first)
	// Output:
	// CP000000014SE SE-753 https://track.example/CP000000014SE
	// true
}
