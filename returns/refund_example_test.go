package returns_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A refund paid out by a refund executor, here the demo one: the
// inspection makes the refund PENDING, and the outbox's delivery of its
// refund.changed (HandleRefundChanged; wiring registers it) executes it.
// The customer took the refund as a gift card, which the policy rewards.
func ExampleDemoRefunds() {
	ctx := context.Background()
	demo, _ := returns.NewDemoRefunds(returns.DemoRefundsOptions{FailureRate: 0.1, Rand: func() float64 { return 0.5 }})
	svc := returns.New(memory.New(), returns.Options{
		Clock: deliverykit.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)), IDs: &deliverykit.SequentialIDs{},
		Policies: returns.StaticPolicies{"my-site": {Costs: map[string]returns.Costs{
			"EUR": {ReturnShipment: 495, GiftCardAddition: 500}, // 4.95 EUR a label, 5.00 EUR more as a gift card
		}}},
		RefundExecutor: demo,
	})
	svc.ImportOrder(ctx, "my-site", returns.OrderInput{ForeignID: "1001", CurrencyCode: "EUR", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "a", SKU: "TEA", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "19.99"}}}})
	ret, _ := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "my-site", ForeignOrderID: "1001", Email: "anna@example.com",
		RefundMethod: returns.RefundGiftCard, Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 1}}})
	res, _ := svc.ReportReturnedItems(ctx, "my-site", returns.ReturnedItemsInput{ReturnID: ret.ID,
		Items: []returns.ReturnedItemInput{{SKU: "TEA", Quantity: 1, Approved: true}}})
	rt := res.RefundTransactions[0]
	fmt.Println(rt.Status, rt.AmountToRefund, "of which gift card addition", rt.RefundDetails.RefundAmounts.GiftCardAddition)

	// What the outbox does once the report has committed.
	if err := svc.HandleRefundChanged(ctx, event.Event{Type: event.TypeRefundChanged, Site: "my-site", Subject: fmt.Sprint(ret.ID)}); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := svc.GetReturn(ctx, "my-site", ret.ID)
	fmt.Println(got.Status, got.RefundTransactions[0].Status, got.RefundTransactions[0].ForeignID)
	// Output:
	// PENDING 20.04 of which gift card addition 5.00
	// COMPLETED SUCCESS demo-refund-1-1
}
