package returns_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A whole return: the merchant's order, the customer's return, the
// inspection and the refund.
func Example() {
	ctx := context.Background()
	svc := returns.New(memory.New(), returns.Options{
		Clock:     deliverykit.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)),
		IDs:       &deliverykit.SequentialIDs{},
		PublicURL: "https://shop.example",
		Policies: returns.StaticPolicies{"my-site": {WindowDays: 30, Costs: map[string]returns.Costs{
			"EUR": {ReturnShipment: 495}, // 4.95 EUR per return label
		}}},
	})
	_, err := svc.ImportOrder(ctx, "my-site", returns.OrderInput{
		ForeignID: "1001", CurrencyCode: "EUR", Email: "anna@example.com",
		Items: []returns.OrderItemInput{
			{ForeignLineItemID: "a", SKU: "MUG", ProductTitle: "Mug", Quantity: 3, PurchasePriceAmount: returns.PriceInput{Amount: "0.10"}},
			{ForeignLineItemID: "b", SKU: "TEA", ProductTitle: "Tea", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "19.99"}},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{
		SiteID: "my-site", ForeignOrderID: "1001", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 3, Reason: "broken"}, {ForeignLineItemID: "b", Quantity: 1}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(ret.Status, ret.StatusURL)
	fmt.Println("expected refund:", ret.CalculatedRefund.TotalRefundAmount)

	res, err := svc.ReportReturnedItems(ctx, "my-site", returns.ReturnedItemsInput{
		ReturnID: ret.ID,
		Items:    []returns.ReturnedItemInput{{SKU: "MUG", Quantity: 3, Approved: true}, {SKU: "TEA", Quantity: 1, Approved: false, Comment: "opened"}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	rt := res.RefundTransactions[0]
	fmt.Println(res.Returns[0].Status, rt.Status, rt.AmountToRefund)

	entry, err := svc.MarkRefunded(ctx, "my-site", rt.RefundID)
	if err != nil {
		fmt.Println(err)
		return
	}
	order, _ := svc.GetOrder(ctx, "my-site", "1001", returns.IDForeign)
	fmt.Println(entry.Status, order.OrderRefund.RefundStatus, order.Returns[0].Status)
	// Output:
	// AWAITING_RETURN https://shop.example/returns/customer/return/rt_000001
	// expected refund: 15.34
	// AWAITING_REFUND AWAITING_EXTERNAL_REFUND 0.00
	// REFUNDED REFUNDED COMPLETED
}

// Listing with Spring-style paging, read from a query string.
func ExampleService_ListOrders() {
	ctx := context.Background()
	svc := returns.New(memory.New(), returns.Options{IDs: &deliverykit.SequentialIDs{}})
	for _, id := range []string{"A", "B", "C"} {
		svc.ImportOrder(ctx, "my-site", returns.OrderInput{ForeignID: id, CurrencyCode: "SEK", Email: "a@example.com",
			Items: []returns.OrderItemInput{{ForeignLineItemID: "1", SKU: "S", Quantity: 1}}})
	}
	pr, err := returns.ParsePageQuery(map[string][]string{"size": {"2"}, "sort": {"id,desc"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	page, _ := svc.ListOrders(ctx, "my-site", pr)
	for _, o := range page.Content {
		fmt.Print(o.ForeignID, " ")
	}
	fmt.Println("| total", page.TotalElements, "pages", page.TotalPages, "last", page.Last)
	// Output:
	// C B | total 3 pages 2 last false
}

// A status page link works for StatusLinkLifetime; the merchant renews an
// expired one, and the old link then reports that it expired.
func ExampleService_RenewStatusLink() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	svc := returns.New(memory.New(), returns.Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "https://shop.example",
		StatusLinkLifetime: 30 * 24 * time.Hour,
	})
	_, err := svc.ImportOrder(ctx, "my-site", returns.OrderInput{
		ForeignID: "1001", CurrencyCode: "EUR", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "a", SKU: "MUG", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "9.50"}}},
	})
	if err != nil {
		panic(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "my-site", ForeignOrderID: "1001", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 1}}})
	if err != nil {
		panic(err)
	}
	clock.Advance(31 * 24 * time.Hour)
	_, _, err = svc.ReturnByToken(ctx, "rt_000001")
	fmt.Println(ret.StatusURL, "expired:", errors.Is(err, returns.ErrStatusLinkExpired))
	renewed, err := svc.RenewStatusLink(ctx, "my-site", ret.ID)
	if err != nil {
		panic(err)
	}
	_, _, err = svc.ReturnByToken(ctx, "rt_000002")
	fmt.Println(renewed.StatusURL, "works:", err == nil)
	// Output:
	// https://shop.example/returns/customer/return/rt_000001 expired: true
	// https://shop.example/returns/customer/return/rt_000002 works: true
}

// oneCarrier renders labels and knows one drop-off point: what the
// shipments area and the delivery catalog (CatalogDropOffs) do.
type oneCarrier struct{}

func (oneCarrier) LabelPDF(context.Context, string, string) ([]byte, error) {
	return []byte("%PDF-1.3 …"), nil
}

func (oneCarrier) DropOffPoints(_ context.Context, _, _ string, near returns.Address, _ int) ([]returns.DropOffPoint, error) {
	return []returns.DropOffPoint{{ID: "np-1", Name: "Kiosk " + near.City, Meters: 350}}, nil
}

// The status page of a return whose policy names a return product: the
// label is being prepared until the parcel.booked of the return parcel
// asked for with the return arrives (the shipments area books it through
// the outbox), then it is shown with the drop-off points near the order's
// delivery address.
func ExampleService_StatusPage() {
	ctx := context.Background()
	svc := returns.New(memory.New(), returns.Options{
		IDs: &deliverykit.SequentialIDs{}, PublicURL: "https://shop.example",
		Policies:  returns.StaticPolicies{"my-site": {ReturnProduct: "north-parcel-point"}},
		LabelPDFs: oneCarrier{}, DropOffs: oneCarrier{},
	})
	_, err := svc.ImportOrder(ctx, "my-site", returns.OrderInput{
		ForeignID: "1001", CurrencyCode: "EUR", Email: "anna@example.com", Locale: "sv-SE",
		DeliveryAddress: &returns.Address{Name: "Anna", AddressLines: []string{"Storgatan 5"}, PostalCode: "111 51", City: "Stockholm", Country: "SE"},
		Items:           []returns.OrderItemInput{{ForeignLineItemID: "a", SKU: "MUG", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "9.90"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "my-site", ForeignOrderID: "1001", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 1}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	token := ret.StatusURL[len("https://shop.example"+returns.StatusPagePath):]
	page, err := svc.StatusPage(ctx, token)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Locale, "label being prepared:", page.LabelPending)

	// The shipments area booked the parcel (what its parcel.booked says).
	ev, err := event.New("evt_1", "my-site", "RR000000001SE", time.Now(), event.ParcelBooked{
		ShipmentID: "shp_1", OrderExternalID: "1001", TrackingNumber: "RR000000001SE", Direction: "RETURN",
		ShipmentExternalID: returns.ShipmentExternalID(ret.ID), CarrierName: "North Parcel",
	})
	if err == nil {
		err = svc.HandleParcelBooked(ctx, ev)
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	page, err = svc.StatusPage(ctx, token)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Label.TrackingNumber, page.Label.Path)
	fmt.Println(page.DropOffs[0].Name)
	fmt.Println(page.Return.Shipments[0].Type, page.Return.Shipments[0].Carrier, page.Return.Shipments[0].TrackingReference)
	// Output:
	// sv-SE label being prepared: true
	// RR000000001SE /returns/customer/return/rt_000001/label.pdf
	// Kiosk Stockholm
	// C2B North Parcel RR000000001SE
}

// The drop-off points a return page lists: the return product's carrier's
// pickup locations nearest to the customer, placed by postal code.
func ExampleNewCatalogDropOffs() {
	d := returns.NewCatalogDropOffs(config.Demo().Catalogs(), 0)
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
