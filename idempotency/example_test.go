package idempotency_test

import (
	"context"
	"fmt"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// A Go caller makes a service call safe to repeat as an HTTP client does
// with the Idempotency-Key header: the key goes into the context, and
// Call runs the call once per key; a repeat (after a timeout, say) gets
// the first result and creates nothing.
func ExampleCall() {
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{})
	if err != nil {
		panic(err)
	}
	req := checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{CartID: "order-1001", TotalValue: 45000,
			Items: []checkout.CartItem{{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 45000}}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "111 57"}}
	create := func(ctx context.Context) (*checkout.View, error) {
		return svcs.Checkout.Create(ctx, "demo-site", req)
	}

	ctx := idempotency.WithKey(context.Background(), "order-1001-session")
	first, err := idempotency.Call(ctx, svcs.Idempotency, "demo-site", "checkout.Create", req, create)
	if err != nil {
		panic(err)
	}
	again, err := idempotency.Call(ctx, svcs.Idempotency, "demo-site", "checkout.Create", req, create)
	if err != nil {
		panic(err)
	}
	fmt.Println("same session:", again.Session.ID == first.Session.ID)

	// The same key with another request is refused.
	req.Cart.CartID = "order-1002"
	_, err = idempotency.Call(ctx, svcs.Idempotency, "demo-site", "checkout.Create", req, create)
	fmt.Println(err)
	// Output:
	// same session: true
	// idempotency key reused: Idempotency-Key: reused with a different request
}
