package returns

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkCustomerReturnPaths measures the public POST /customer/return
// on its refusing paths, for an order of 2 lines and one of 500 (the
// largest order record): an unknown order, a known order with the wrong
// e-mail, and a known order with the right e-mail but an item that is not
// on the order. The first two must cost the same, whatever the order's
// size, or the time of the answer would tell a caller whether an order
// exists.
func BenchmarkCustomerReturnPaths(b *testing.B) {
	for _, lines := range []int{2, 500} {
		ctx := context.Background()
		svc := New(memory.New(), Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{}})
		in := orderInput("O-1")
		for len(in.Items) < lines {
			n := strconv.Itoa(len(in.Items))
			in.Items = append(in.Items, OrderItemInput{ForeignLineItemID: "X" + n, SKU: "SKU-" + n, ProductTitle: "Product " + n, Quantity: 1,
				PurchasePriceAmount: PriceInput{Amount: "10", ItemTax: "2"}})
		}
		if _, err := svc.ImportOrder(ctx, "site-a", in); err != nil {
			b.Fatal(err)
		}
		item := []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}
		for _, c := range []struct {
			name     string
			in       CustomerReturnInput
			wantKind deliverykit.Kind
		}{
			{"unknown-order", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "O-2", Email: "customer@example.com", Items: item}, deliverykit.KindNotFound},
			{"wrong-email", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "O-1", Email: "someone@example.com", Items: item}, deliverykit.KindNotFound},
			{"known-invalid-items", CustomerReturnInput{SiteID: "site-a", ForeignOrderID: "O-1", Email: "customer@example.com",
				Items: []CustomerReturnItemInput{{ForeignLineItemID: "NOPE", Quantity: 1}}}, deliverykit.KindInvalidArgument},
		} {
			b.Run(fmt.Sprintf("lines=%d/%s", lines, c.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_, err := svc.CreateReturn(ctx, c.in)
					if deliverykit.KindOf(err) != c.wantKind {
						b.Fatalf("CreateReturn: %v, want kind %v", err, c.wantKind)
					}
				}
			})
		}
	}
}
