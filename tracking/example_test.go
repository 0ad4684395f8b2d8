package tracking_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
)

// A merchant registers an order and its parcel, a carrier reports events
// (one of them late), and the merchant reads the parcel back.
func Example() {
	ctx := context.Background()
	svc, err := tracking.New(memory.New(), tracking.Options{
		Products: tracking.StaticProducts{
			"fastpost-home": {Ref: "fastpost-home", CarrierID: "fastpost", CarrierName: "FastPost", DeliveryType: tracking.DeliveryDelivery},
		},
		Clock: deliverykit.NewManualClock(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)),
		IDs:   &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}
	id, err := svc.CreateOrder(ctx, "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID:        "ORD-1001",
		CarrierProductRef: "fastpost-home",
		Sender:            &tracking.Sender{Name: "My Shop"},
		Receiver:          &tracking.Receiver{Name: "Alva Berg"},
		Destination:       &tracking.Destination{Address: &tracking.Address{City: "Uppsala", Country: "SE"}},
		DeliveryType:      tracking.OrderDeliveryDelivery,
	})
	if err != nil {
		panic(err)
	}
	err = svc.CreateParcel(ctx, "my-site", tracking.CreateParcelRequest{
		TosID: id, TrackingNumber: "FP123", CarrierProductRef: "fastpost-home", DirectionType: tracking.DirectionOutbound,
	})
	if err != nil {
		panic(err)
	}
	for _, ev := range []tracking.Event{
		{TrackingNumber: "FP123", Time: "2026-11-21T07:30:00Z", Step: tracking.StepOnRoute, Alert: tracking.AlertOutForDelivery},
		{TrackingNumber: "FP123", Time: "2026-11-20T16:00:00Z", Step: tracking.StepSubmittedToCarrier}, // arrives late
	} {
		if err := svc.RecordEvent(ctx, "my-site", ev); err != nil {
			panic(err)
		}
	}
	res, err := svc.Parcels(ctx, "my-site", tracking.ParcelsQuery{TrackingNumber: "FP123"})
	if err != nil {
		panic(err)
	}
	p := res.Parcels[0]
	for _, it := range p.ProgressHistory {
		fmt.Println(it.Time, it.Step)
	}
	fmt.Println("current:", p.CurrentProgress.Step)
	fmt.Println("alert:", p.Alerts[0].Type)
	// Output:
	// 2026-11-21T07:30:00Z STEP_ON_ROUTE
	// 2026-11-20T16:00:00Z STEP_SUBMITTED_TO_CARRIER
	// current: STEP_ON_ROUTE
	// alert: ALERT_OUT_FOR_DELIVERY
}

// Validation errors name the JSON path of every offending field.
func ExampleService_CreateOrder_validation() {
	svc, _ := tracking.New(memory.New(), tracking.Options{Products: tracking.StaticProducts{}})
	_, err := svc.CreateOrder(context.Background(), "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID:   "ORD-1",
		DeliveryType: "HOME",
		Destination: &tracking.Destination{
			Address:          &tracking.Address{Country: "Sweden"},
			OperationalHours: &tracking.OperationalHours{Mon: []tracking.TimeRange{{Start: "9:00", End: "17:00:00"}}},
		},
	})
	for _, v := range deliverykit.ViolationsOf(err) {
		fmt.Println(v)
	}
	// Output:
	// carrier_product_ref: is required
	// delivery_type: must be one of UNKNOWN, DELIVERY, PICKUP, INSTORE
	// destination.address.country: must be an ISO 3166-1 alpha-2 country code
	// destination.operational_hours.mon[0].start: must be a time of day HH:MM:SS
	// receiver: is required
	// sender: is required
}

// GenerateLink returns the customer page link; its token also opens the
// order through GET /parcels?token=.
func ExampleService_GenerateLink() {
	ctx := context.Background()
	svc, _ := tracking.New(memory.New(), tracking.Options{
		Products:  tracking.StaticProducts{"p": {Ref: "p", CarrierID: "c"}},
		PortalURL: "https://track.my-shop.example",
		IDs:       &deliverykit.SequentialIDs{},
	})
	_, err := svc.CreateOrder(ctx, "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "ORD-7", CarrierProductRef: "p", Sender: &tracking.Sender{Name: "My Shop"},
		Receiver: &tracking.Receiver{Name: "Bo"}, Destination: &tracking.Destination{Address: &tracking.Address{}},
		DeliveryType: tracking.OrderDeliveryUnknown,
	})
	if err != nil {
		panic(err)
	}
	res, err := svc.GenerateLink(ctx, "my-site", tracking.GenerateTrackingPageLinkRequest{OrderID: "ORD-7", Locale: "sv-SE"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.TrackingLink)
	// Output:
	// https://track.my-shop.example/v1/delivery_tracking/_/page/tt_000003?locale=sv-SE
}

// A link works for LinkLifetime after it was last handed out; rotate
// replaces the token, and the old link then reports that it expired.
func ExampleService_GenerateLink_rotate() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC))
	svc, _ := tracking.New(memory.New(), tracking.Options{
		Products:     tracking.StaticProducts{"p": {Ref: "p", CarrierID: "c"}},
		PortalURL:    "https://track.my-shop.example",
		LinkLifetime: 30 * 24 * time.Hour,
		Clock:        clock,
		IDs:          &deliverykit.SequentialIDs{},
	})
	_, err := svc.CreateOrder(ctx, "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "ORD-7", CarrierProductRef: "p", Sender: &tracking.Sender{Name: "My Shop"},
		Receiver: &tracking.Receiver{Name: "Bo"}, Destination: &tracking.Destination{Address: &tracking.Address{}},
		DeliveryType: tracking.OrderDeliveryUnknown,
	})
	if err != nil {
		panic(err)
	}
	clock.Advance(time.Hour)
	res, err := svc.GenerateLink(ctx, "my-site", tracking.GenerateTrackingPageLinkRequest{OrderID: "ORD-7", Locale: "sv-SE", Rotate: true})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.TrackingLink, "until", res.ExpiresAt)
	_, err = svc.OrderByToken(ctx, "tt_000003", "")
	fmt.Println("old link expired:", errors.Is(err, tracking.ErrLinkExpired))
	// Output:
	// https://track.my-shop.example/v1/delivery_tracking/_/page/tt_000004?locale=sv-SE until 2026-12-20T09:00:00Z
	// old link expired: true
}

// A parcel's line item properties describe the cart item in the order's
// language, and the merchant cancels one of the two mugs.
func ExampleService_CancelOrderLines() {
	ctx := context.Background()
	svc, err := tracking.New(memory.New(), tracking.Options{
		Products: tracking.StaticProducts{"fastpost-home": {Ref: "fastpost-home", CarrierID: "fastpost", CarrierName: "FastPost"}},
		Clock:    deliverykit.NewManualClock(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)),
		IDs:      &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}
	id, err := svc.CreateOrder(ctx, "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "ORD-7", CarrierProductRef: "fastpost-home", Locale: "sv-SE",
		Sender: &tracking.Sender{Name: "My Shop"}, Receiver: &tracking.Receiver{Name: "Alva Berg"},
		Destination:  &tracking.Destination{Address: &tracking.Address{Country: "SE"}},
		DeliveryType: tracking.OrderDeliveryDelivery,
		Cart: &tracking.Cart{Items: []tracking.CartItem{{SKU: "MUG", Name: "Mug", Quantity: 2, Price: 9900}},
			Total: 19800, Currency: "SEK"},
	})
	if err != nil {
		panic(err)
	}
	err = svc.CreateParcel(ctx, "my-site", tracking.CreateParcelRequest{
		TosID: id, TrackingNumber: "FP7", CarrierProductRef: "fastpost-home", DirectionType: tracking.DirectionOutbound,
		LineItems: []tracking.ParcelLineItem{{SKU: "MUG", Quantity: 1, Price: 9900, Currency: "SEK",
			Properties: map[string]string{"color": "blue", "size": "0.3 l"}}},
	})
	if err != nil {
		panic(err)
	}
	err = svc.CancelOrderLines(ctx, "my-site", tracking.CancelOrderLinesRequest{OrderID: "ORD-7",
		Lines: []tracking.CancelledLine{{SKU: "MUG", CancelledQuantity: 1}}})
	if err != nil {
		panic(err)
	}
	res, err := svc.Orders(ctx, "my-site", tracking.OrdersQuery{ExternalID: "ORD-7", Locale: "sv-SE"})
	if err != nil {
		panic(err)
	}
	it := res.Orders[0].Cart.Items[0]
	for _, a := range it.DisplayAttributes {
		fmt.Printf("%s: %s\n", a.Label, a.Value)
	}
	fmt.Println("coming:", it.Quantity, it.TotalPrice, "cancelled:", it.CancelledQuantity, it.CancelledTotalPrice)
	// Output:
	// Färg: blue
	// Storlek: 0.3 l
	// coming: 1 9900 cancelled: 1 9900
}

// Sweep deletes an order, with its parcels and tracking links, the
// configured time after its last activity; wiring runs it in the
// background with the other areas' sweeps (retention.Sweeper).
func ExampleService_Sweep() {
	ctx := context.Background()
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	svc, err := tracking.New(memory.New(), tracking.Options{
		Products: tracking.StaticProducts{"fastpost-home": {Ref: "fastpost-home", CarrierID: "fastpost", DeliveryType: tracking.DeliveryDelivery}},
		Clock:    clock, IDs: &deliverykit.SequentialIDs{},
		Retention: retention.Policy{Tracking: 30 * 24 * time.Hour},
	})
	if err != nil {
		panic(err)
	}
	id, err := svc.CreateOrder(ctx, "my-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "ORD-1001", CarrierProductRef: "fastpost-home", Sender: &tracking.Sender{Name: "My Shop"},
		Receiver:     &tracking.Receiver{Name: "Alva Berg"},
		Destination:  &tracking.Destination{Address: &tracking.Address{City: "Uppsala", Country: "SE"}},
		DeliveryType: tracking.OrderDeliveryDelivery,
	})
	if err != nil {
		panic(err)
	}
	if err := svc.CreateParcel(ctx, "my-site", tracking.CreateParcelRequest{TosID: id, TrackingNumber: "FP123",
		CarrierProductRef: "fastpost-home", DirectionType: tracking.DirectionOutbound}); err != nil {
		panic(err)
	}
	clock.Advance(10 * 24 * time.Hour) // delivered ten days later
	if err := svc.RecordEvent(ctx, "my-site", tracking.Event{TrackingNumber: "FP123",
		Time: clock.Now().Format(time.RFC3339), Step: tracking.StepDeliveredToConsumer}); err != nil {
		panic(err)
	}
	for _, days := range []int{35, 41} {
		n, err := svc.Sweep(ctx, start.Add(time.Duration(days)*24*time.Hour), 0)
		fmt.Printf("day %d: %d deleted, %v\n", days, n, err)
	}
	// Output:
	// day 35: 0 deleted, <nil>
	// day 41: 1 deleted, <nil>
}
