package returns

import (
	"math"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestRefundAmountEdges(t *testing.T) {
	type got struct {
		V  int64
		OK bool
	}
	tests := []struct {
		name            string
		items, shipping int64
		costs           costsRecord
		want            got
	}{
		{"plain", 1000, 50, costsRecord{Shipment: 100, Handling: 10}, got{940, true}},
		{"costs above value", 100, 0, costsRecord{Shipment: 500}, got{0, true}},
		{"exactly MaxInt64", math.MaxInt64 - 1, 1, costsRecord{}, got{math.MaxInt64, true}},
		{"items and shipping overflow", math.MaxInt64, 1, costsRecord{}, got{0, false}},
		{"costs overflow", 0, 0, costsRecord{Shipment: math.MaxInt64, Handling: 1}, got{0, false}},
		{"negative shipping allowed by the sum", 10, -5, costsRecord{}, got{5, true}},
		{"negative cost past MinInt64", math.MinInt64 + 1, 0, costsRecord{Shipment: 2}, got{0, false}},
	}
	for _, tt := range tests {
		var g got
		g.V, g.OK = refundAmount(tt.items, tt.shipping, tt.costs)
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, tt := range []struct {
		price int64
		qty   int
		want  got
	}{
		{maxMinor, maxQuantity, got{maxMinor * maxQuantity, true}},
		{math.MaxInt64, 1, got{math.MaxInt64, true}},
		{math.MaxInt64/2 + 1, 2, got{0, false}},
		{math.MinInt64, -1, got{0, false}},
	} {
		var g got
		g.V, g.OK = lineAmount(tt.price, tt.qty)
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("lineAmount(%d, %d) (-want +got):\n%s", tt.price, tt.qty, diff)
		}
	}
}

// TestLargestOrder imports an order at every bound (500 lines of 10,000
// units at 10^12 minor units, shipping 10^12: 5 × 10^18 + 10^12, near
// MaxInt64) and returns all of it: the estimate is exact, not wrapped.
func TestLargestOrder(t *testing.T) {
	f := newFixture(t)
	in := OrderInput{ForeignID: "BIG", CurrencyCode: "JPY", Email: "customer@example.com", ShippingAmount: Decimal(strconv.Itoa(maxMinor))}
	var items []CustomerReturnItemInput
	for i := range maxLines {
		id := "L" + strconv.Itoa(i)
		in.Items = append(in.Items, OrderItemInput{ForeignLineItemID: id, SKU: id, Quantity: maxQuantity,
			PurchasePriceAmount: PriceInput{Amount: Decimal(strconv.Itoa(maxMinor))}})
		items = append(items, CustomerReturnItemInput{ForeignLineItemID: id, Quantity: maxQuantity})
	}
	if _, err := f.svc.ImportOrder(f.ctx, "site-a", in); err != nil {
		t.Fatal(err)
	}
	r, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "BIG", Email: "customer@example.com", Items: items})
	if err != nil {
		t.Fatal(err)
	}
	// JPY costs of testPolicy: 500 for the label.
	want := int64(maxLines*maxQuantity*maxMinor + maxMinor - 500)
	if diff := cmp.Diff(strconv.FormatInt(want, 10), r.CalculatedRefund.TotalRefundAmount.String()); diff != "" {
		t.Errorf("estimate (-want +got):\n%s", diff)
	}
}

// TestPolicyCostsOutOfRange: a policy whose costs could make a sum
// overflow (or refund more than the items) is refused, never applied.
func TestPolicyCostsOutOfRange(t *testing.T) {
	for _, c := range []Costs{{ReturnShipment: math.MaxInt64}, {ReturnHandling: maxMinor + 1}, {Exchange: -1}} {
		svc := New(memory.New(), Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
			Policies: StaticPolicies{"site-a": {Costs: map[string]Costs{"SEK": c}}}})
		f := &fixture{svc: svc, ctx: t.Context()}
		f.importOrder(t, "site-a", "A-1")
		_, err := svc.CreateReturn(t.Context(), CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "customer@example.com", Exchange: true,
			Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
		if deliverykit.KindOf(err) != deliverykit.KindInternal {
			t.Errorf("costs %+v: err = %v, want an internal error", c, err)
		}
	}
}
