package tracking

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"
)

// TestComputeCartEdges computes carts at the int32 edges: sums that just
// fit are shown exactly; a cart stored before registration checked its
// sums is shown without prices, never with wrapped ones.
func TestComputeCartEdges(t *testing.T) {
	tests := []struct {
		name string
		cart Cart
		want *PrivateOrderCart
	}{
		{"sums just fit", Cart{Items: []CartItem{{SKU: "A", Quantity: 1, Price: math.MaxInt32 - 1}, {SKU: "B", Quantity: 1, Price: 1}},
			Total: math.MaxInt32 - 10, ShippingPrice: 10, Discount: 10},
			&PrivateOrderCart{
				Items: []Item{{SKU: "A", Quantity: 1, Price: math.MaxInt32 - 1, TotalPrice: math.MaxInt32 - 1}, {SKU: "B", Quantity: 1, Price: 1, TotalPrice: 1}},
				Prices: &CartPrices{ShippingComponents: []ShippingComponent{{Name: "Shipping", Price: 10}},
					Total: &CartTotal{Discount: 10, ItemsPrice: math.MaxInt32, Price: math.MaxInt32, ShippingPrice: 10}},
			}},
		// items_discount and the order discount are both MaxInt32:
		// discount − both is −2^32 + 2, which wrapped in int32 to a
		// shipping discount of 2.
		{"shipping discount never wraps", Cart{Items: []CartItem{{SKU: "A", Quantity: 1, Price: math.MaxInt32, Discount: math.MaxInt32}}}, &PrivateOrderCart{
			Items: []Item{{SKU: "A", Quantity: 1, Price: math.MaxInt32, Discount: math.MaxInt32, TotalPrice: math.MaxInt32}},
			Prices: &CartPrices{ShippingComponents: []ShippingComponent{{Name: "Shipping"}},
				Total: &CartTotal{ItemsPrice: math.MaxInt32, ItemsDiscount: math.MaxInt32}},
		}},
		{"stored overflowing cart", Cart{Items: []CartItem{{SKU: "A", Quantity: 3, Price: math.MaxInt32 / 2}, {SKU: "B", Quantity: 1, Price: 5}}, Total: 5}, &PrivateOrderCart{
			Items: []Item{{SKU: "A", Quantity: 3, Price: math.MaxInt32 / 2}, {SKU: "B", Quantity: 1, Price: 5, TotalPrice: 5}},
		}},
		{"stored overflowing sum", Cart{Items: []CartItem{{SKU: "A", Quantity: 1, Price: math.MaxInt32}, {SKU: "B", Quantity: 1, Price: 1}}}, &PrivateOrderCart{
			Items: []Item{{SKU: "A", Quantity: 1, Price: math.MaxInt32, TotalPrice: math.MaxInt32}, {SKU: "B", Quantity: 1, Price: 1, TotalPrice: 1}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, computeCart(&tt.cart, language.English)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
