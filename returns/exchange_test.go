package returns

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// costPolicy charges 49.00 label, 10.50 handling, 25.00 exchange and
// 75.00 for a failed delivery, adds 100.00 to a gift card refund and
// refunds shipping.
var costPolicy = Policy{RefundShipping: true, Costs: map[string]Costs{
	"SEK": {ReturnShipment: 4900, ReturnHandling: 1050, Exchange: 2500, FailedDelivery: 7500, GiftCardAddition: 10000},
}}

func newCostFixture(t testing.TB, pol Policy) *fixture {
	t.Helper()
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	svc := New(store, Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Policies: StaticPolicies{"site-a": pol}})
	return &fixture{svc: svc, store: store, clock: clock, ctx: t.Context()}
}

// TestPolicyCostsAndAdditions: every cost and addition of the policy, on
// the return and on its refund, decimal-exact. The order is 2 × 1299.90 +
// 3 × 0.10 with 59.00 shipping.
func TestPolicyCostsAndAdditions(t *testing.T) {
	sek := func(m int64) Amount { return Amount{Minor: m, Scale: 2} }
	all := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 2}, {ForeignLineItemID: "L2", Quantity: 3}}
	one := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}
	type amounts struct {
		Costs             ReturnCosts
		Estimate          Amount
		Total, Items      Amount
		Shipping, GiftCrd Amount
		Method            RefundMethod
	}
	cases := []struct {
		name           string
		items          []CustomerReturnItemInput
		method         RefundMethod
		failedDelivery bool
		want           amounts
	}{
		{"part of the order, original payment", one, "", false, amounts{
			Costs:    ReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050), ExchangeCost: sek(0), FailedDeliveryCost: sek(0), TotalCost: sek(5950)},
			Estimate: sek(129990 - 5950), Total: sek(129990 - 5950), Items: sek(129990), Shipping: sek(0), GiftCrd: sek(0)}},
		{"whole order refunds shipping", all, "", false, amounts{
			Costs:    ReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050), ExchangeCost: sek(0), FailedDeliveryCost: sek(0), TotalCost: sek(5950)},
			Estimate: sek(260010 + 5900 - 5950), Total: sek(260010 + 5900 - 5950), Items: sek(260010), Shipping: sek(5900), GiftCrd: sek(0)}},
		{"gift card adds the bonus", one, RefundGiftCard, false, amounts{
			Costs:    ReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050), ExchangeCost: sek(0), FailedDeliveryCost: sek(0), TotalCost: sek(5950)},
			Estimate: sek(129990 + 10000 - 5950), Total: sek(129990 + 10000 - 5950), Items: sek(129990), Shipping: sek(0), GiftCrd: sek(10000), Method: RefundGiftCard}},
		{"failed delivery is charged at the report", one, RefundOriginalPayment, true, amounts{
			Costs:    ReturnCosts{CurrencyCode: "SEK", ReturnShipmentCost: sek(4900), ReturnHandlingCost: sek(1050), ExchangeCost: sek(0), FailedDeliveryCost: sek(7500), TotalCost: sek(13450)},
			Estimate: sek(129990 - 5950), Total: sek(129990 - 13450), Items: sek(129990), Shipping: sek(0), GiftCrd: sek(0), Method: RefundOriginalPayment}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newCostFixture(t, costPolicy)
			f.importOrder(t, "site-a", "A-1")
			r, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Items: tc.items, RefundMethod: tc.method})
			if err != nil {
				t.Fatal(err)
			}
			var report []ReturnedItemInput
			for _, it := range tc.items {
				sku := map[string]string{"L1": "JACKET-M", "L2": "SOCKS"}[it.ForeignLineItemID]
				report = append(report, ReturnedItemInput{SKU: sku, Quantity: it.Quantity, Approved: true})
			}
			res, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: report, FailedDelivery: tc.failedDelivery})
			if err != nil {
				t.Fatal(err)
			}
			rt := res.Returns[0].RefundTransactions[0]
			entry := res.RefundTransactions[0]
			got := amounts{Costs: res.Returns[0].ReturnCosts, Estimate: r.CalculatedRefund.TotalRefundAmount,
				Total: rt.TotalAmount, Items: rt.ItemsAmount, Shipping: rt.ShippingRefundAmount, GiftCrd: rt.GiftCardAddition, Method: rt.RefundMethod}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if entry.AmountToRefund != rt.TotalAmount || entry.RefundDetails.RefundAmounts.GiftCardAddition != rt.GiftCardAddition ||
				entry.RefundDetails.ReturnCosts.FailedDeliveryCost != tc.want.Costs.FailedDeliveryCost {
				t.Errorf("refund entry disagrees: %+v", entry)
			}
		})
	}
}

// TestFailedDeliveryWithoutPolicyCurrency: a failed delivery report
// under a policy without costs in the order's currency is refused and
// changes nothing.
func TestFailedDeliveryWithoutPolicyCurrency(t *testing.T) {
	f := newCostFixture(t, Policy{Costs: map[string]Costs{"EUR": {FailedDelivery: 500}}})
	f.importOrder(t, "site-a", "A-1")
	// No SEK costs: the return itself is refused by the same rule.
	_, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com",
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
	if kindOf(err) != "failed precondition" {
		t.Errorf("CreateReturn: %v", err)
	}
}

// TestExchanges: what a customer may take in exchange, the exchange on
// the return and order while requested and once completed, and the
// refusals.
func TestExchanges(t *testing.T) {
	order := orderInput("A-1")
	order.Items[0].ExchangeSKUs = []string{"JACKET-L", "JACKET-S", "JACKET-L", "JACKET-M"}
	cases := []struct {
		name   string
		pol    Policy
		in     CustomerReturnInput
		want   string // error kind, or "ok"
		field  string
		wantEx []ExchangeItem
	}{
		{name: "another variant", pol: costPolicy, want: "ok",
			in:     CustomerReturnInput{Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, ExchangeSKU: "JACKET-L"}}},
			wantEx: []ExchangeItem{{ForeignLineItemID: "L1", SKU: "JACKET-M", ExchangeSKU: "JACKET-L", Quantity: 1}}},
		{name: "the same SKU (a replacement), by exchange flag", pol: costPolicy, want: "ok",
			in:     CustomerReturnInput{Exchange: true, Items: []CustomerReturnItemInput{{ForeignLineItemID: "L2", Quantity: 2}}},
			wantEx: []ExchangeItem{{ForeignLineItemID: "L2", SKU: "SOCKS", ExchangeSKU: "SOCKS", Quantity: 2}}},
		{name: "a SKU the line does not offer", pol: costPolicy, want: "invalid argument", field: "items[0].exchangeSku",
			in: CustomerReturnInput{Items: []CustomerReturnItemInput{{ForeignLineItemID: "L2", Quantity: 1, ExchangeSKU: "JACKET-L"}}}},
		{name: "a refund method on an exchange", pol: costPolicy, want: "invalid argument", field: "refundMethod",
			in: CustomerReturnInput{RefundMethod: RefundGiftCard, Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, ExchangeSKU: "JACKET-L"}}}},
		{name: "the merchant takes no exchanges", pol: Policy{NoExchanges: true}, want: "failed precondition",
			in: CustomerReturnInput{Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, ExchangeSKU: "JACKET-L"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newCostFixture(t, tc.pol)
			o, err := f.svc.ImportOrder(f.ctx, "site-a", order)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"JACKET-L", "JACKET-S"}, o.Items[0].ExchangeSKUs); diff != "" {
				t.Errorf("order item exchangeSkus (-want +got):\n%s", diff)
			}
			in := tc.in
			in.SiteID, in.ForeignOrderID, in.Email = "site-a", "A-1", "customer@example.com"
			r, err := f.svc.CreateReturn(f.ctx, in)
			if kindOf(err) != tc.want {
				t.Fatalf("CreateReturn: %v, want %s", err, tc.want)
			}
			if err != nil {
				if tc.field != "" && !hasViolation(err, tc.field) {
					t.Errorf("error %v does not name %s", err, tc.field)
				}
				return
			}
			if r.ReturnCosts.ExchangeCost != (Amount{Minor: 2500, Scale: 2}) {
				t.Errorf("exchangeCost = %v", r.ReturnCosts.ExchangeCost)
			}
			want := []Exchange{{ReturnID: r.ID, Status: ExchangeRequested, Items: tc.wantEx}}
			if diff := cmp.Diff(want, r.Exchanges); diff != "" {
				t.Errorf("requested exchange (-want +got):\n%s", diff)
			}
			if r.Items[0].ExchangeSKU != tc.wantEx[0].ExchangeSKU {
				t.Errorf("item exchangeSku = %q", r.Items[0].ExchangeSKU)
			}
			// Completing before inspection is refused, naming the state.
			if _, err := f.svc.CompleteExchangeWith(f.ctx, "site-a", r.ID, ExchangeInput{ForeignID: "X-1"}); kindOf(err) != "failed precondition" {
				t.Errorf("complete before inspection: %v", err)
			}
			sku := tc.wantEx[0].SKU
			if _, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: sku, Quantity: tc.wantEx[0].Quantity, Approved: true}}}); err != nil {
				t.Fatal(err)
			}
			f.clock.Advance(3600e9)
			done, err := f.svc.CompleteExchangeWith(f.ctx, "site-a", r.ID, ExchangeInput{ForeignID: "X-1"})
			if err != nil {
				t.Fatal(err)
			}
			at := Timestamp(f.svc.now())
			want[0].Status, want[0].CompletedAt, want[0].ForeignID = ExchangeCompleted, &at, "X-1"
			if diff := cmp.Diff(want, done.Exchanges); diff != "" || done.Status != StatusCompleted {
				t.Errorf("completed exchange %s (-want +got):\n%s", done.Status, diff)
			}
			ord, err := f.svc.GetOrder(f.ctx, "site-a", "1", IDService)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, ord.Exchanges); diff != "" {
				t.Errorf("order's exchanges (-want +got):\n%s", diff)
			}
			if _, err := f.svc.CompleteExchangeWith(f.ctx, "site-a", r.ID, ExchangeInput{}); kindOf(err) != "failed precondition" {
				t.Errorf("complete twice: %v", err)
			}
		})
	}
}

func hasViolation(err error, field string) bool {
	var e *deliverykit.Error
	if !errors.As(err, &e) {
		return false
	}
	for _, v := range e.Violations {
		if v.Field == field {
			return true
		}
	}
	return false
}

// TestCatalogPolicyCosts: the catalog's return policy settings reach the
// policy.
func TestCatalogPolicyCosts(t *testing.T) {
	cat := &catalog.Catalog{ReturnPolicy: &catalog.ReturnPolicy{ReturnsEnabled: true, ReturnCost: 4900, ExchangesEnabled: false, ExchangeCost: 2500,
		Currency: "SEK", ReturnTimeDays: 30, ReturnHandlingCost: 1050, FailedDeliveryCost: 7500, GiftCardAddition: 10000, RefundShipping: true}}
	got, ok := CatalogPolicies{"site-a": cat}.Policy("site-a")
	want := Policy{WindowDays: 30, RefundShipping: true, NoExchanges: true, Costs: map[string]Costs{
		"SEK": {ReturnShipment: 4900, ReturnHandling: 1050, Exchange: 2500, FailedDelivery: 7500, GiftCardAddition: 10000}}}
	if diff := cmp.Diff(want, got); diff != "" || !ok {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
}
