package returns

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func sek(minor int64) Amount { return Amount{Minor: minor, Scale: 2} }

func TestJourney(t *testing.T) {
	f := newFixture(t)
	order := f.importOrder(t, "site-a", "A-1")
	if order.ID != 1 || order.OrderRefund.RefundStatus != RefundNone || len(order.Items) != 2 {
		t.Fatalf("imported order = %+v", order)
	}

	f.clock.Advance(time.Hour)
	ret := f.createReturn(t, "site-a", "A-1",
		CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1, Reason: "too small"},
		CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 3})
	wantCosts := ReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050), ExchangeCost: sek(0), FailedDeliveryCost: sek(0), TotalCost: sek(5950)}
	if diff := cmp.Diff(wantCosts, ret.ReturnCosts); diff != "" {
		t.Errorf("returnCosts (-want +got):\n%s", diff)
	}
	wantEstimate := CalculatedRefund{CurrencyCode: "SEK", TotalRefundAmount: sek(124070), Lines: []CalculatedRefundLine{
		{ForeignLineItemID: "L1", Quantity: 1, Amount: sek(129990)},
		{ForeignLineItemID: "L2", Quantity: 3, Amount: sek(30)},
	}}
	if diff := cmp.Diff(wantEstimate, ret.CalculatedRefund); diff != "" {
		t.Errorf("calculatedRefund (-want +got):\n%s", diff)
	}
	if ret.Status != StatusAwaitingReturn || ret.StatusURL != "http://127.0.0.1:8080/returns/customer/return/rt_000001" {
		t.Errorf("status %s, statusUrl %q", ret.Status, ret.StatusURL)
	}

	f.clock.Advance(time.Hour)
	res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: ret.ID, Items: []ReturnedItemInput{
		{SKU: "JACKET-M", Quantity: 1, Approved: true},
		{SKU: "SOCKS", Quantity: 2, Approved: true},
		{SKU: "SOCKS", Quantity: 1, Approved: false, Comment: "hole"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reported := t0.Add(2 * time.Hour).Truncate(time.Microsecond)
	wantEntry := RefundEntry{
		RefundID: 1, ReturnID: ret.ID, CreatedAt: Timestamp(reported),
		Order:  RefundEntryOrder{ID: order.ID, ForeignID: "A-1", CreatedAt: order.CreatedAt, Status: RefundAwaiting},
		Status: TxAwaitingExternalRefund, CurrencyCode: "SEK", AmountToRefund: sek(124060),
		RefundDetails: RefundDetails{
			RefundAmounts: RefundAmounts{TotalItemRefundAmount: sek(130010), ShippingRefundAmount: sek(0), GiftCardAddition: sek(0)},
			ReturnCosts: EntryReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050),
				FailedDeliveryCost: sek(0), ExchangeCost: sek(0), TotalReturnCost: sek(5950)},
			Items: []RefundEntryItem{
				{ForeignOrderLineItemID: "L1", RefundAmount: sek(129990), Name: "Jacket - M"},
				{ForeignOrderLineItemID: "L2", RefundAmount: sek(20), Name: "Socks"},
			},
		},
		Attempt: 1,
	}
	if len(res.RefundTransactions) != 1 {
		t.Fatalf("refund transactions = %+v", res.RefundTransactions)
	}
	if diff := cmp.Diff(wantEntry, res.RefundTransactions[0]); diff != "" {
		t.Errorf("refund entry (-want +got):\n%s", diff)
	}
	if got := res.Returns[0].Status; got != StatusAwaitingRefund {
		t.Errorf("return status = %s, want AWAITING_REFUND", got)
	}

	page, err := f.svc.ListRefunds(f.ctx, "site-a", TxAwaitingExternalRefund, PageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]RefundEntry{wantEntry}, page.Content); diff != "" {
		t.Errorf("listed refunds (-want +got):\n%s", diff)
	}

	f.clock.Advance(time.Hour)
	marked, err := f.svc.MarkRefunded(f.ctx, "site-a", 1)
	if err != nil {
		t.Fatal(err)
	}
	if marked.Status != TxRefunded || marked.Order.Status != RefundDone {
		t.Errorf("marked = %s, order status %s", marked.Status, marked.Order.Status)
	}
	_, err = f.svc.MarkRefunded(f.ctx, "site-a", 1)
	if kindOf(err) != "failed precondition" || deliverykit.Message(err) != "refund transaction 1 is already REFUNDED" {
		t.Errorf("marking twice: %v", err)
	}

	got, err := f.svc.GetOrder(f.ctx, "site-a", "A-1", IDForeign)
	if err != nil {
		t.Fatal(err)
	}
	if got.OrderRefund.RefundStatus != RefundDone || got.OrderRefund.AmountRefunded != sek(124060) || len(got.OrderRefund.Transactions) != 1 {
		t.Errorf("order refund = %+v", got.OrderRefund)
	}
	r1 := got.Returns[0]
	if r1.Status != StatusCompleted {
		t.Errorf("return status = %s, want COMPLETED", r1.Status)
	}
	type itemState struct {
		Status   ItemStatus
		Refund   RefundStatus
		Restock  RestockStatus
		Approved int
		Comment  string
	}
	var states []itemState
	for _, it := range r1.Items {
		states = append(states, itemState{it.Status, it.RefundStatus, it.RestockStatus, *it.ApprovedQuantity, it.Comment})
	}
	wantStates := []itemState{{ItemReturned, RefundDone, RestockYes, 1, ""}, {ItemReturned, RefundDone, RestockYes, 2, "hole"}}
	if diff := cmp.Diff(wantStates, states); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}

	// The declined sock and the second jacket can be returned again; the
	// return completing the order refunds the shipping.
	ret2 := f.createReturn(t, "site-a", "A-1",
		CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1},
		CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	if got := ret2.CalculatedRefund.TotalRefundAmount; got != sek(129950) {
		t.Errorf("second estimate = %s, want 1299.50", got)
	}
	res2, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ForeignOrderID: "A-1", Items: []ReturnedItemInput{
		{SKU: "JACKET-M", Quantity: 1, Approved: true}, {SKU: "SOCKS", Quantity: 1, Approved: true},
	}})
	if err != nil {
		t.Fatal(err)
	}
	rf := res2.RefundTransactions[0]
	if rf.AmountToRefund != sek(129950) || rf.RefundDetails.RefundAmounts.ShippingRefundAmount != sek(5900) {
		t.Errorf("second refund = %s with shipping %s", rf.AmountToRefund, rf.RefundDetails.RefundAmounts.ShippingRefundAmount)
	}
	got, _ = f.svc.GetOrder(f.ctx, "site-a", "A-1", IDForeign)
	if got.OrderRefund.RefundStatus != RefundAwaiting || got.OrderRefund.AmountRefunded != sek(124060) {
		t.Errorf("order refund after second return = %+v", got.OrderRefund)
	}
	// Everything bought is on returns now.
	_, err = f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L2", Quantity: 1}}})
	if diff := cmp.Diff([]deliverykit.FieldViolation{{Field: "items[0].quantity", Rule: "lte", Message: "must be at most 0: 3 bought, 3 already being returned"}}, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("over-return (-want +got):\n%s", diff)
	}
}

func TestImportOrderErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*OrderInput)
		kind   string
		want   []deliverykit.FieldViolation
	}{
		{"missing fields", func(in *OrderInput) { in.ForeignID, in.Email, in.Items = "", "", nil }, "invalid argument", []deliverykit.FieldViolation{
			{Field: "email", Rule: "required", Message: "is required"},
			{Field: "foreignId", Rule: "required", Message: "is required"},
			{Field: "items", Rule: "required", Message: "is required"},
		}},
		{"bad line", func(in *OrderInput) { in.Items[1].Quantity, in.Items[1].SKU = 0, "" }, "invalid argument", []deliverykit.FieldViolation{
			{Field: "items[1].quantity", Rule: "gte", Message: "must be at least 1"},
			{Field: "items[1].sku", Rule: "required", Message: "is required"},
		}},
		{"currency", func(in *OrderInput) { in.CurrencyCode = "ABC" }, "invalid argument", []deliverykit.FieldViolation{
			{Field: "currencyCode", Rule: "iso4217", Message: "is not a known ISO 4217 currency code"},
		}},
		{"too many decimals and duplicate line", func(in *OrderInput) {
			in.Items[0].PurchasePriceAmount.Amount = "1.001"
			in.Items[1].ForeignLineItemID = "L1"
		}, "invalid argument", []deliverykit.FieldViolation{
			{Field: "items[0].purchasePriceAmount.amount", Rule: "decimal", Message: "has more decimals than its currency allows (2)"},
			{Field: "items[1].foreignLineItemId", Rule: "unique", Message: "is used by an earlier line"},
		}},
		{"tax above price", func(in *OrderInput) { in.Items[0].PurchasePriceAmount.ItemTax = "2000" }, "invalid argument", []deliverykit.FieldViolation{
			{Field: "items[0].purchasePriceAmount", Rule: "range", Message: "amount and itemTax must not be negative and itemTax must not exceed amount"},
		}},
		{"duplicate foreignId", func(in *OrderInput) { in.ForeignID = "DUP" }, "conflict", []deliverykit.FieldViolation{
			{Field: "foreignId", Rule: "unique", Message: "is already imported"},
		}},
	}
	f := newFixture(t)
	f.importOrder(t, "site-a", "DUP")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := orderInput("X-" + tt.name)
			tt.mutate(&in)
			_, err := f.svc.ImportOrder(f.ctx, "site-a", in)
			if kindOf(err) != tt.kind {
				t.Fatalf("kind = %s (%v), want %s", kindOf(err), err, tt.kind)
			}
			if diff := cmp.Diff(tt.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCreateReturnErrors(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	yen := orderInput("Y-1")
	yen.CurrencyCode, yen.ShippingAmount = "EUR", ""
	yen.Items[0].PurchasePriceAmount = PriceInput{Amount: "10"}
	yen.Items[1].PurchasePriceAmount = PriceInput{Amount: "1"}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", yen); err != nil {
		t.Fatal(err)
	}
	line := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}
	const notFoundMsg = "no order with this foreignOrderId and email"
	tests := []struct {
		name    string
		in      CustomerReturnInput
		advance time.Duration
		kind    string
		msg     string
	}{
		{"wrong e-mail", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "other@example.com", Items: line}, 0, "not found", notFoundMsg},
		{"unknown order", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-2", Email: "customer@example.com", Items: line}, 0, "not found", notFoundMsg},
		{"other site", CustomerReturnInput{SiteID: "site-b", ForeignOrderID: "A-1", Email: "customer@example.com", Items: line}, 0, "not found", notFoundMsg},
		{"unknown line and duplicate", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Items: []CustomerReturnItemInput{
			{ForeignLineItemID: "L9", Quantity: 1}, {ForeignLineItemID: "L1", Quantity: 1}, {ForeignLineItemID: "L1", Quantity: 1}}}, 0, "invalid argument",
			"invalid request: items[0].foreignLineItemId: is not a line of the order; items[2].foreignLineItemId: is used by an earlier item"},
		{"too many", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 3}}}, 0, "invalid argument",
			"invalid request: items[0].quantity: must be at most 2: 2 bought, 0 already being returned"},
		{"no costs in currency", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "Y-1", Email: "customer@example.com", Items: line}, 0, "failed precondition",
			"the merchant's return policy has no costs in EUR"},
		{"window passed", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Items: line}, 31 * 24 * time.Hour, "failed precondition",
			"the return window of 30 days for this order has passed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.clock.Advance(tt.advance)
			defer f.clock.Set(t0)
			_, err := f.svc.CreateReturn(f.ctx, tt.in)
			if kindOf(err) != tt.kind || deliverykit.Message(err) != tt.msg {
				t.Errorf("got %s %q, want %s %q", kindOf(err), deliverykit.Message(err), tt.kind, tt.msg)
			}
		})
	}
}

func TestReportReturnedItems(t *testing.T) {
	f := newFixture(t)
	// Order with the same SKU on two lines.
	in := orderInput("S-1")
	in.Items[1].SKU = "JACKET-M"
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	f.importOrder(t, "site-a", "D-1")
	both := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 2}, {ForeignLineItemID: "L2", Quantity: 2}}
	r := f.createReturn(t, "site-a", "S-1", both...)

	tests := []struct {
		name string
		in   ReturnedItemsInput
		kind string
		msg  string
	}{
		{"no selector", ReturnedItemsInput{Items: []ReturnedItemInput{{SKU: "X", Quantity: 1}}}, "invalid argument",
			"invalid request: foreignOrderId: exactly one of foreignOrderId, returnId and trackingReference must be set"},
		{"two selectors", ReturnedItemsInput{ReturnID: r.ID, ForeignOrderID: "S-1", Items: []ReturnedItemInput{{SKU: "X", Quantity: 1}}}, "invalid argument",
			"invalid request: foreignOrderId: exactly one of foreignOrderId, returnId and trackingReference must be set"},
		{"no items", ReturnedItemsInput{ReturnID: r.ID}, "invalid argument", "invalid request: items: is required"},
		{"unknown sku", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "HAT", Quantity: 1}}}, "invalid argument",
			"invalid request: items[0].sku: no line of the selected return(s) has this SKU"},
		{"too many units", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 5, Approved: true}}}, "failed precondition",
			`items already reported: items[0].quantity: 4 of 5 units of SKU "JACKET-M" were left to report; the others were already reported`},
		{"unknown return", ReturnedItemsInput{ReturnID: 99, Items: []ReturnedItemInput{{SKU: "X", Quantity: 1}}}, "not found", "return not found"},
		{"unknown tracking", ReturnedItemsInput{TrackingReference: "T-0", Items: []ReturnedItemInput{{SKU: "X", Quantity: 1}}}, "not found", "return with this trackingReference not found"},
		{"order without returns", ReturnedItemsInput{ForeignOrderID: "D-1", Items: []ReturnedItemInput{{SKU: "X", Quantity: 1}}}, "failed precondition", "the order has no return waiting for its items"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.ReportReturnedItems(f.ctx, "site-a", tt.in)
			if kindOf(err) != tt.kind || deliverykit.Message(err) != tt.msg {
				t.Errorf("got %s %q, want %s %q", kindOf(err), deliverykit.Message(err), tt.kind, tt.msg)
			}
		})
	}

	// Three jackets: the first line (2) fills before the second gets one.
	res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 3, Approved: true}}})
	if err != nil {
		t.Fatal(err)
	}
	var handled [][2]int
	for _, it := range res.Returns[0].Items {
		n := 0
		if it.ApprovedQuantity != nil {
			n = *it.ApprovedQuantity
		}
		handled = append(handled, [2]int{it.Quantity, n})
	}
	if diff := cmp.Diff([][2]int{{2, 2}, {2, 0}}, handled); diff != "" {
		t.Errorf("lines (quantity, approved) (-want +got):\n%s", diff)
	}
	if res.Returns[0].Status != StatusAwaitingReturn || len(res.RefundTransactions) != 0 {
		t.Errorf("partly reported return: %s, %d refunds", res.Returns[0].Status, len(res.RefundTransactions))
	}
	res, err = f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: false}}})
	if err != nil || len(res.RefundTransactions) != 1 {
		t.Fatalf("completing report: %v, %+v", err, res.RefundTransactions)
	}
	// Reporting the same items again is refused and refunds nothing.
	_, err = f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}})
	if kindOf(err) != "failed precondition" || deliverykit.Message(err) != "return 1 is AWAITING_REFUND: its items were already reported" {
		t.Errorf("second report: %v", err)
	}
	page, _ := f.svc.ListRefunds(f.ctx, "site-a", "", PageRequest{})
	if page.TotalElements != 1 {
		t.Errorf("refunds after double report = %d, want 1", page.TotalElements)
	}

	// All declined: completed without a refund.
	r2 := f.createReturn(t, "site-a", "D-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	res, err = f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r2.ID, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1}}})
	if err != nil || res.Returns[0].Status != StatusCompleted || len(res.RefundTransactions) != 0 || res.Returns[0].Items[0].Status != ItemDeclined {
		t.Errorf("all declined: %v, %+v", err, res)
	}
}

func TestLifecycle(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	sh := ShipmentInput{Carrier: "carrier-1", TrackingReference: "TR-1"}
	got, err := f.svc.MarkInTransit(f.ctx, "site-a", r.ID, sh)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Shipment{{ID: 1, Type: "C2B", Carrier: "carrier-1", TrackingReference: "TR-1"}}, got.Shipments); got.Status != StatusInTransit || diff != "" {
		t.Errorf("in transit: %s, shipments (-want +got):\n%s", got.Status, diff)
	}
	if _, err := f.svc.MarkInTransit(f.ctx, "site-a", r.ID, sh); deliverykit.Message(err) != "return 1 is IN_TRANSIT; this needs AWAITING_RETURN" {
		t.Errorf("second MarkInTransit: %v", err)
	}
	if _, err := f.svc.CompleteExchange(f.ctx, "site-a", r.ID); kindOf(err) != "failed precondition" {
		t.Errorf("CompleteExchange on a refund return: %v", err)
	}
	res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{TrackingReference: "TR-1", Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}})
	if err != nil || res.Returns[0].Status != StatusAwaitingRefund {
		t.Fatalf("report by tracking reference: %v %+v", err, res.Returns)
	}

	// An exchange: the exchange cost is charged and no refund is made.
	x, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "CUSTOMER@example.com", Exchange: true,
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L2", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if x.ReturnCosts.TotalCost != sek(8450) || x.CalculatedRefund.TotalRefundAmount != sek(0) {
		t.Errorf("exchange costs %s, estimate %s", x.ReturnCosts.TotalCost, x.CalculatedRefund.TotalRefundAmount)
	}
	if _, err := f.svc.MarkInTransit(f.ctx, "site-a", x.ID, sh); deliverykit.Message(err) != "the tracking reference belongs to another return: trackingReference: is already used" {
		t.Errorf("reused tracking reference: %v", err)
	}
	res, err = f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: x.ID, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1, Approved: true}}})
	if err != nil || res.Returns[0].Status != StatusAwaitingExchange || len(res.RefundTransactions) != 0 {
		t.Fatalf("exchange report: %v %+v", err, res)
	}
	done, err := f.svc.CompleteExchange(f.ctx, "site-a", x.ID)
	if err != nil || done.Status != StatusCompleted || len(done.Exchanges) != 1 {
		t.Errorf("CompleteExchange: %v %+v", err, done)
	}
}

func TestTenantIsolation(t *testing.T) {
	f := newFixture(t)
	a := f.importOrder(t, "site-a", "A-1")
	ra := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	if _, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: ra.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	f.importOrder(t, "site-a", "A-2")
	f.importOrder(t, "site-b", "A-1") // the same foreign id is another order at another site

	checks := []struct {
		name string
		err  error
	}{
		{"order by id", second(f.svc.GetOrder(f.ctx, "site-b", "2", IDService))},
		{"return by id", second(f.svc.GetReturn(f.ctx, "site-b", ra.ID))},
		{"mark refund", second(f.svc.MarkRefunded(f.ctx, "site-b", 1))},
		{"report", second(f.svc.ReportReturnedItems(f.ctx, "site-b", ReturnedItemsInput{ReturnID: ra.ID, Items: []ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1}}}))},
		{"in transit", second(f.svc.MarkInTransit(f.ctx, "site-b", ra.ID, ShipmentInput{Carrier: "c", TrackingReference: "t"}))},
	}
	for _, c := range checks {
		if kindOf(c.err) != "not found" {
			t.Errorf("%s from site-b: %v, want not found", c.name, c.err)
		}
	}
	// Ids are per site: site-b's first order is 1 as site-a's is, and it
	// is site-b's own.
	ob, err := f.svc.GetOrder(f.ctx, "site-b", "1", IDService)
	if err != nil || ob.ID != a.ID || len(ob.Returns) != 0 || ob.OrderRefund.RefundStatus != RefundNone {
		t.Errorf("site-b's order 1 = %+v, %v", ob, err)
	}
	orders, _ := f.svc.ListOrders(f.ctx, "site-b", PageRequest{})
	rets, _ := f.svc.ListReturns(f.ctx, "site-b", PageRequest{})
	refunds, _ := f.svc.ListRefunds(f.ctx, "site-b", "", PageRequest{})
	if orders.TotalElements != 1 || rets.TotalElements != 0 || refunds.TotalElements != 0 {
		t.Errorf("site-b sees %d orders, %d returns, %d refunds", orders.TotalElements, rets.TotalElements, refunds.TotalElements)
	}
}

func second[T any](_ T, err error) error { return err }

func TestGetOrderIDTypes(t *testing.T) {
	f := newFixture(t)
	first := f.importOrder(t, "site-a", "A-1")
	f.importOrder(t, "site-a", "A-2") // same foreignNumber 1001
	tests := []struct {
		ref  string
		typ  IDType
		want uint64
		kind string
	}{
		{"1", "", first.ID, "ok"},
		{"1", IDService, first.ID, "ok"},
		{"A-2", IDForeign, 2, "ok"},
		{"1001", IDForeignNumber, first.ID, "ok"},
		{"#A-2", IDForeignName, 2, "ok"},
		{"x", IDService, 0, "invalid argument"},
		{"x", IDForeignNumber, 0, "invalid argument"},
		{"1", "OTHER", 0, "invalid argument"},
		{"A-9", IDForeign, 0, "not found"},
		{"#A-9", IDForeignName, 0, "not found"},
		{"77", IDService, 0, "not found"},
	}
	for _, tt := range tests {
		o, err := f.svc.GetOrder(f.ctx, "site-a", tt.ref, tt.typ)
		if kindOf(err) != tt.kind || o.ID != tt.want {
			t.Errorf("GetOrder(%q, %q) = %d, %v; want %d, %s", tt.ref, tt.typ, o.ID, err, tt.want, tt.kind)
		}
	}
}

func TestReturnByToken(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	site, got, err := f.svc.ReturnByToken(f.ctx, "rt_000001")
	if err != nil || site != "site-a" || got.ID != r.ID {
		t.Errorf("ReturnByToken = %s, %d, %v", site, got.ID, err)
	}
	if _, _, err := f.svc.ReturnByToken(f.ctx, "rt_000002"); kindOf(err) != "not found" {
		t.Errorf("unknown token: %v", err)
	}
}

// TestConcurrentReturnsNeverOversell races customers for the three socks
// of one order: exactly three single-unit returns succeed.
func TestConcurrentReturnsNeverOversell(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	const racers = 10
	errs := make(chan error, racers)
	for range racers {
		go func() {
			_, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
				Items: []CustomerReturnItemInput{{ForeignLineItemID: "L2", Quantity: 1}}})
			errs <- err
		}()
	}
	ok := 0
	for range racers {
		switch err := <-errs; kindOf(err) {
		case "ok":
			ok++
		case "invalid argument", "conflict":
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	page, _ := f.svc.ListReturns(f.ctx, "site-a", PageRequest{})
	if ok != 3 || page.TotalElements != 3 {
		t.Errorf("%d returns succeeded, %d stored; want 3", ok, page.TotalElements)
	}
}

func TestCreateReturnPolicyDisabled(t *testing.T) {
	svc := New(memory.New(), Options{
		Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
		Policies: StaticPolicies{"site-a": {Disabled: true}},
	})
	ctx := context.Background()
	if _, err := svc.ImportOrder(ctx, "site-a", orderInput("A-1")); err != nil {
		t.Fatal(err)
	}
	_, err := svc.CreateReturn(ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
	if !errors.Is(err, deliverykit.ErrFailedPrecondition) || deliverykit.Message(err) != "the merchant does not take returns" {
		t.Errorf("CreateReturn with returns disabled = %v, want failed precondition", err)
	}
}

// TestOrderItemStatus: an order's items say where each line stands:
// NOT_RETURNED until units of it are on a return, AWAITING_RETURN until
// they are inspected, RETURNED once a unit was approved; a declined line
// is NOT_RETURNED again.
func TestOrderItemStatus(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	statuses := func() []ItemStatus {
		o, err := f.svc.GetOrder(f.ctx, "site-a", "A-1", IDForeign)
		if err != nil {
			t.Fatal(err)
		}
		var out []ItemStatus
		for _, it := range o.Items {
			out = append(out, it.Status)
		}
		return out
	}
	steps := []struct {
		name string
		do   func() error
		want []ItemStatus
	}{
		{"imported", func() error { return nil }, []ItemStatus{ItemNotReturned, ItemNotReturned}},
		{"both lines on returns", func() error {
			f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
			f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
			return nil
		}, []ItemStatus{ItemAwaitingReturn, ItemAwaitingReturn}},
		{"L1 approved, L2 declined", func() error {
			_, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ForeignOrderID: "A-1", Items: []ReturnedItemInput{
				{SKU: "JACKET-M", Quantity: 1, Approved: true}, {SKU: "SOCKS", Quantity: 1}}})
			return err
		}, []ItemStatus{ItemReturned, ItemNotReturned}},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if diff := cmp.Diff(s.want, statuses()); diff != "" {
			t.Errorf("%s: order item statuses (-want +got):\n%s", s.name, diff)
		}
	}
}
