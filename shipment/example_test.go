package shipment_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A merchant creates a shipment, books it with the demo carrier (S10
// tracking numbers) and books the carrier's pickup: create, book, pickup.
func Example() {
	ctx := context.Background()
	store := memory.New()
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{Country: "SE"})
	if err != nil {
		panic(err)
	}
	svc, err := shipment.New(store, shipment.Options{
		Products: shipment.StaticProducts{
			"fastpost-home": {Ref: "fastpost-home", CarrierID: "fastpost", CarrierName: "FastPost", Name: "Home", DeliveryType: shipment.DeliveryDelivery},
		},
		DefaultCarrier: demo,
		Clock:          deliverykit.NewManualClock(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)),
		IDs:            &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}
	sh, err := svc.Create(ctx, "my-site", shipment.CreateShipmentRequest{
		ExternalID: "ORD-1001",
		Sender:     &shipment.Sender{Name: "My Shop", Address: &shipment.Address{City: "Stockholm", PostalCode: "111 22", Country: "SE"}},
		Receiver:   &shipment.Receiver{Name: "Alva Berg", Address: &shipment.Address{City: "Uppsala", PostalCode: "753 20", Country: "SE"}},
		Parcels: []shipment.ParcelInput{{
			Weight:     1250,
			Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "fastpost-home"}},
		}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sh.ID, sh.State)
	sh, err = svc.BookParcels(ctx, "my-site", shipment.ShipmentRef{ShipmentID: sh.ID})
	if err != nil {
		panic(err)
	}
	d := sh.Parcels[0].Deliveries[0]
	fmt.Println(sh.State, d.TrackingNumber, d.Label.PDFURL)
	sh, err = svc.BookPickup(ctx, "my-site", shipment.BookPickupRequest{
		TrackingNumber: d.TrackingNumber,
		PickupWindow:   &shipment.DateTimeRangeStrict{Start: "2026-11-20T13:00:00Z", End: "2026-11-20T16:00:00Z"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sh.State)
	_, err = svc.CancelShipment(ctx, "my-site", shipment.ShipmentRef{ShipmentID: sh.ID})
	fmt.Println(err)
	// Output:
	// shp_000001 CREATED
	// BOOKED CP000000014SE /v1/som/labels/CP000000014SE?format=pdf
	// PICKUP_BOOKED
	// <nil>
}

// CreateAndBook does create, book and pickup in one call; a failure leaves
// nothing behind.
func ExampleService_CreateAndBook() {
	ctx := context.Background()
	store := memory.New()
	demo, _ := carrier.NewDemo(store, carrier.DemoOptions{Service: "RR", Country: "DE"})
	svc, _ := shipment.New(store, shipment.Options{
		Products:       shipment.StaticProducts{"p": {Ref: "p", CarrierID: "demo", CarrierName: "Demo Post", Name: "Parcel"}},
		DefaultCarrier: demo,
		IDs:            &deliverykit.SequentialIDs{},
	})
	sh, err := svc.CreateAndBook(ctx, "my-site", shipment.CreateShipmentRequest{
		Sender:       &shipment.Sender{Name: "My Shop", Address: &shipment.Address{City: "Berlin", Country: "DE"}},
		Receiver:     &shipment.Receiver{Name: "Jonas Weber", Address: &shipment.Address{City: "Köln", PostalCode: "50667", Country: "DE"}},
		Parcels:      []shipment.ParcelInput{{Weight: 800, Deliveries: []shipment.DeliveryInput{{CarrierProductRef: "p"}}}},
		PickupWindow: &shipment.DateTimeRangeStrict{Start: "2026-11-20T13:00:00Z", End: "2026-11-20T16:00:00Z"},
	})
	if err != nil {
		panic(err)
	}
	d := sh.Parcels[0].Deliveries[0]
	fmt.Println(sh.State, d.TrackingNumber, d.Label.RoutingCode)
	// Output: PICKUP_BOOKED RR000000014DE DE-506
}
