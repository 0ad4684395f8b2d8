package wiring_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestDemoRefundExecutor: with the demo refund executor, a refund made by
// the inspection is executed through the outbox as soon as the report
// commits: a success settles the return, a failure waits for the
// merchant's retry, which the executor then pays out as attempt 2.
func TestDemoRefundExecutor(t *testing.T) {
	draws := []float64{0.9, 0.1, 0.9} // success, failure, success (failure rate 0.5)
	demo, err := returns.NewDemoRefunds(returns.DemoRefundsOptions{FailureRate: 0.5,
		Rand: func() float64 { v := draws[0]; draws = draws[1:]; return v }})
	if err != nil {
		t.Fatal(err)
	}
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		RefundExecutor: demo})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	rs := svcs.Returns
	type seen struct {
		Status    returns.TransactionStatus
		ForeignID string
		Return    returns.ReturnStatus
	}
	refund := func(returnID uint64) seen {
		r, err := rs.GetReturn(ctx, "demo-site", returnID)
		if err != nil {
			t.Fatal(err)
		}
		tx := r.RefundTransactions[len(r.RefundTransactions)-1]
		return seen{tx.Status, tx.ForeignID, r.Status}
	}
	var got []seen
	for i, foreign := range []string{"A-1", "A-2"} {
		if _, err := rs.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: foreign, CurrencyCode: "SEK", Email: "anna@example.com",
			Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "TENT", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "999"}}}}); err != nil {
			t.Fatal(err)
		}
		r, err := rs.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: foreign, Email: "anna@example.com",
			Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := rs.ReportReturnedItems(ctx, "demo-site", returns.ReturnedItemsInput{ReturnID: r.ID, Items: []returns.ReturnedItemInput{{SKU: "TENT", Quantity: 1, Approved: true}}})
		if err != nil {
			t.Fatal(err)
		}
		if res.RefundTransactions[0].Status != returns.TxPending {
			t.Errorf("refund %d made %s, want PENDING", i+1, res.RefundTransactions[0].Status)
		}
		got = append(got, refund(r.ID))
	}
	if _, err := rs.RetryRefund(ctx, "demo-site", 2); err != nil {
		t.Fatal(err)
	}
	got = append(got, refund(2))
	want := []seen{
		{returns.TxSuccess, "demo-refund-1-1", returns.StatusCompleted},
		{returns.TxFailed, "demo-refund-2-1", returns.StatusAwaitingRefund},
		{returns.TxSuccess, "demo-refund-2-2", returns.StatusCompleted},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if dead, err := svcs.Outbox.Dead(ctx, "demo-site", "", 10); err != nil || len(dead) != 0 {
		t.Errorf("dead events: %v %v", dead, err)
	}
}
