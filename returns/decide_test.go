package returns

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

// TestNewReturn holds the decision of a customer return, without a store:
// the policy's gates, the lines taken, the costs and the estimate.
func TestNewReturn(t *testing.T) {
	created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	order := func() orderRecord {
		return orderRecord{ID: 7, ForeignID: "A-1", Currency: "SEK", Scale: 2, Shipping: 4900, CreatedAt: created, Locale: "sv-SE",
			Lines: []orderLine{
				{ID: 1, ForeignLineItemID: "L1", Quantity: 2, Price: 10000},
				{ID: 2, ForeignLineItemID: "L2", Quantity: 1, Price: 5000, InReturn: 1},
				{ID: 3, ForeignLineItemID: "L3", Quantity: 3, Price: 2000},
			}}
	}
	costs := map[string]Costs{"SEK": {ReturnShipment: 4900, ReturnHandling: 1000, Exchange: 3000}}
	item := func(id string, n int) CustomerReturnItemInput {
		return CustomerReturnItemInput{ForeignLineItemID: id, Quantity: n}
	}
	now := created.Add(48 * time.Hour)
	tests := []struct {
		name      string
		pol       Policy
		items     []CustomerReturnItemInput
		exchange  bool
		locale    string
		now       time.Time
		want      returnRecord
		wantIn    []int // InReturn of the order's lines afterwards
		wantErr   bool  // then wantKind and wantField
		wantKind  deliverykit.Kind
		wantField []string
	}{
		{
			name:  "two lines, costs subtracted, order's locale",
			pol:   Policy{Costs: costs},
			items: []CustomerReturnItemInput{item("L1", 1), item("L3", 2)},
			now:   now,
			want: returnRecord{OrderID: 7, Order: &orderSummaryRecord{ForeignID: "A-1", CreatedAt: created},
				Status: StatusAwaitingReturn, CreatedAt: now, Costs: costsRecord{Shipment: 4900, Handling: 1000},
				Estimate: 10000 + 2*2000 - 5900, Locale: "sv-SE",
				Lines: []returnLine{{ID: 1, OrderLine: 0, Quantity: 1}, {ID: 2, OrderLine: 2, Quantity: 2}}},
			wantIn: []int{1, 1, 2},
		},
		{
			name:     "exchange charged, customer's locale",
			pol:      Policy{Costs: costs},
			items:    []CustomerReturnItemInput{item("L1", 2)},
			exchange: true,
			locale:   "de-DE",
			now:      now,
			want: returnRecord{OrderID: 7, Order: &orderSummaryRecord{ForeignID: "A-1", CreatedAt: created},
				Status: StatusAwaitingReturn, Exchange: true, CreatedAt: now,
				Costs:    costsRecord{Shipment: 4900, Handling: 1000, Exchange: 3000},
				Estimate: 20000 - 8900, Locale: "de-DE",
				Lines: []returnLine{{ID: 1, OrderLine: 0, Quantity: 2}}},
			wantIn: []int{2, 1, 0},
		},
		{
			name:  "every unit on a return refunds shipping",
			pol:   Policy{RefundShipping: true},
			items: []CustomerReturnItemInput{item("L1", 2), item("L3", 3)},
			now:   now,
			want: returnRecord{OrderID: 7, Order: &orderSummaryRecord{ForeignID: "A-1", CreatedAt: created},
				Status: StatusAwaitingReturn, CreatedAt: now, Estimate: 20000 + 6000 + 4900, Locale: "sv-SE",
				Lines: []returnLine{{ID: 1, OrderLine: 0, Quantity: 2}, {ID: 2, OrderLine: 2, Quantity: 3}}},
			wantIn: []int{2, 1, 3},
		},
		{
			name:     "returns disabled",
			pol:      Policy{Disabled: true},
			items:    []CustomerReturnItemInput{item("L1", 1)},
			now:      now,
			wantErr:  true,
			wantKind: deliverykit.KindFailedPrecondition,
		},
		{
			name:     "window passed",
			pol:      Policy{WindowDays: 1},
			items:    []CustomerReturnItemInput{item("L1", 1)},
			now:      now,
			wantErr:  true,
			wantKind: deliverykit.KindFailedPrecondition,
		},
		{
			name:     "no costs in the order's currency",
			pol:      Policy{Costs: map[string]Costs{"EUR": {}}},
			items:    []CustomerReturnItemInput{item("L1", 1)},
			now:      now,
			wantErr:  true,
			wantKind: deliverykit.KindFailedPrecondition,
		},
		{
			name:      "unknown line, repeated line, too many units",
			items:     []CustomerReturnItemInput{item("L9", 1), item("L1", 1), item("L1", 1), item("L2", 1), item("L3", 4)},
			now:       now,
			wantErr:   true,
			wantKind:  deliverykit.KindInvalidArgument,
			wantField: []string{"items[0].foreignLineItemId", "items[2].foreignLineItemId", "items[3].quantity", "items[4].quantity"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := order()
			in := CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "A-1", Email: "a@example.com",
				Items: tc.items, Exchange: tc.exchange, Locale: tc.locale}
			r, got, err := newReturn(o, in, tc.pol, tc.now)
			if diff := cmp.Diff([]int{0, 1, 0}, inReturn(o)); diff != "" {
				t.Errorf("the order passed in changed (-want +got):\n%s", diff)
			}
			if tc.wantErr {
				if k := deliverykit.KindOf(err); k != tc.wantKind {
					t.Fatalf("error %v: kind %q; want %q", err, k, tc.wantKind)
				}
				var fields []string
				for _, v := range deliverykit.ViolationsOf(err) {
					fields = append(fields, v.Field)
				}
				if diff := cmp.Diff(tc.wantField, fields); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatalf("newReturn: %v", err)
			}
			if diff := cmp.Diff(tc.want, r); diff != "" {
				t.Errorf("return (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantIn, inReturn(got)); diff != "" {
				t.Errorf("InReturn afterwards (-want +got):\n%s", diff)
			}
		})
	}
}

func inReturn(o orderRecord) []int {
	var out []int
	for _, l := range o.Lines {
		out = append(out, l.InReturn)
	}
	return out
}
