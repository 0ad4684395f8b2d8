package wiring_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
)

// The README's quick start, as a program: a checkout completed, its
// tracking order, and a parcel that moves as the clock does. The README
// shows this function's body inside main (TestReadmeQuickStart).
func Example_quickStart() {
	ctx := context.Background()
	check := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	// Every area on one store (memory.New here; bolt.Open or postgres.Open
	// keep data), with the carrier simulator as the carrier so that booked
	// parcels travel, on a clock and ids this program controls (leave both
	// out for the system clock and random ids).
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{
		PublicURL: "https://track.example.com", Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Simulate: &carrier.SimulatorOptions{},
	})
	check(err)

	// The shopper's checkout: a session for the cart, with its delivery
	// options, completed with the customer.
	home := &deliverykit.Address{Name: "Alva Berg", AddressLines: []string{"Sergels torg 1"},
		City: "Stockholm", PostalCode: "111 57", Country: "SE"}
	tent := checkout.CartItem{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 189900, Weight: 2400}
	sess, err := svcs.Checkout.Create(ctx, "demo-site", checkout.CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"}, ExternalID: "order-1001",
		Cart:          &checkout.Cart{CartID: "cart-1001", TotalValue: 189900, Items: []checkout.CartItem{tent}},
		SearchAddress: &checkout.SearchAddress{PostalCode: home.PostalCode, Country: home.Country},
	})
	check(err)
	// In the widget (html_snippet), the shopper picks home delivery.
	_, err = svcs.Checkout.Select(ctx, sess.Token, checkout.SelectRequest{OptionID: "home/north-parcel-home"})
	check(err)
	done, err := svcs.Checkout.Complete(ctx, "demo-site", checkout.CompleteRequest{ID: sess.Session.ID,
		Customer: &checkout.Customer{Email: "alva@example.com", Address: &checkout.CustomerAddress{Name: home.Name,
			AddressLines: home.AddressLines, City: home.City, PostalCode: home.PostalCode, Country: home.Country}}})
	check(err)
	method := done.Session.Result.Shipping.ShippingMethod

	// Completing it made the tracking order, under the same order number.
	orders, err := svcs.Tracking.Orders(ctx, "demo-site", tracking.OrdersQuery{ExternalID: "order-1001"})
	check(err)
	fmt.Println("tracking order:", orders.Orders[0].ExternalID, "shipping with", method)

	// The warehouse books the parcel with the product the shopper chose.
	sh, err := svcs.Shipment.CreateAndBook(ctx, "demo-site", shipment.CreateShipmentRequest{ExternalID: "order-1001",
		Sender:   &shipment.Sender{Name: "Demo Outdoor Store", Address: &deliverykit.Address{City: "Göteborg", PostalCode: "411 05", Country: "SE"}},
		Receiver: &shipment.Receiver{Name: home.Name, Email: "alva@example.com", Address: home},
		Parcels: []shipment.ParcelInput{{Weight: 2400,
			Deliveries: []shipment.DeliveryInput{{CarrierProductRef: method}}}},
	})
	check(err)
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber

	// Two days pass. A server runs svcs.Simulator.Run (and the other
	// loops) on the system clock; here the program moves the clock and
	// lets the carrier report what fell due, which tracking records.
	for range 48 {
		clock.Advance(time.Hour)
		_, err := svcs.Simulator.Dispatch(ctx)
		check(err)
	}
	parcels, err := svcs.Tracking.Parcels(ctx, "demo-site", tracking.ParcelsQuery{TrackingNumber: tn})
	check(err)
	for _, p := range slices.Backward(parcels.Parcels[0].ProgressHistory) { // stored newest first
		fmt.Println(p.Time, p.Step)
	}
	// Output:
	// tracking order: order-1001 shipping with north-parcel-home
	// 2026-11-23T12:34:56Z STEP_SUBMITTED_TO_CARRIER
	// 2026-11-23T17:43:46Z STEP_ON_ROUTE
	// 2026-11-24T13:27:19Z STEP_DELIVERED_TO_CONSUMER
}
