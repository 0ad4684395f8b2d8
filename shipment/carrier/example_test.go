package carrier_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/outbox"

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

// A simulated parcel's route is planned when it is booked; as the clock
// passes each step, Dispatch reports it to the outbox as a carrier event.
func ExampleSimulator() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	store := memory.New()
	sim, err := carrier.NewSimulator(store, carrier.SimulatorOptions{Clock: clock, Rates: &carrier.Rates{}})
	if err != nil {
		panic(err)
	}
	b, err := sim.Book(ctx, shipment.BookingRequest{Key: "my-site/shp_1-P1-D1", Site: "my-site",
		Product: shipment.Product{Ref: "home", DeliveryType: shipment.DeliveryDelivery}})
	if err != nil {
		panic(err)
	}
	route, _ := sim.Route(ctx, b.TrackingNumber)
	for _, s := range route.Steps {
		fmt.Println(s.At.Format("Mon 15:04"), s.Step+s.Alert)
	}
	clock.Set(route.Steps[1].At)
	n, _ := sim.Dispatch(ctx)
	pending, _ := outbox.Pending(ctx, store, 10)
	fmt.Println(n, "reported:", pending[0].Type, pending[0].Subject)
	// Output:
	// Mon 15:54 STEP_SUBMITTED_TO_CARRIER
	// Mon 18:35 STEP_ON_ROUTE
	// Tue 08:50 ALERT_OUT_FOR_DELIVERY
	// Tue 12:36 STEP_DELIVERED_TO_CONSUMER
	// 2 reported: carrier.event_reported CP000000014SE
}

// A test site's simulator plays the scenario a booking names: here a
// parcel booked on a Monday morning is declared lost five days after the
// carrier collected it.
func ExampleScenarios() {
	ctx := context.Background()
	store := memory.New()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	sim, _ := carrier.NewSimulator(store, carrier.SimulatorOptions{Scenarios: true, Clock: clock})
	b, _ := sim.Book(ctx, shipment.BookingRequest{Key: "site-1/shp_1-P1-D1", Site: "site-1",
		Product: shipment.Product{Ref: "np-home", DeliveryType: shipment.DeliveryDelivery}, Scenario: string(carrier.ScenarioLost)})
	r, _ := sim.Route(ctx, b.TrackingNumber)
	for _, s := range r.Steps {
		fmt.Println(strings.TrimSpace(s.At.Format("Mon 15:04") + " " + s.Step + " " + s.Exception))
	}
	_, err := sim.Book(ctx, shipment.BookingRequest{Key: "site-1/shp_2-P1-D1", Site: "site-1", Scenario: string(carrier.FaultBookingRejected)})
	fmt.Println(deliverykit.KindOf(err))
	// Output:
	// Mon 16:00 STEP_SUBMITTED_TO_CARRIER
	// Mon 18:00 STEP_ON_ROUTE
	// Sat 16:00 STEP_TERMINATED LOST
	// failed precondition
}
