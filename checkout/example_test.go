package checkout_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// The in-process flow: create a session for a cart, let the customer pick
// home delivery, update the cart, complete with the customer's address.
// The memory store and a fixed clock make it deterministic.
func Example() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		panic(err)
	}

	v, err := svc.Create(ctx, "demo-site", checkout.CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"en-US"},
		Cart:          &checkout.Cart{CartID: "c-1", TotalValue: 45000, Items: []checkout.CartItem{{SKU: "tent", Name: "Tent", Quantity: 1, Price: 45000}}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "111 57"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", v.Session.ID, v.Session.Status, v.Session.SelectedShippingOption.ShippingMethod, v.Session.ShippingPrice)

	// What the widget does when the customer chooses.
	if _, err := svc.Select(ctx, v.Token, checkout.SelectRequest{OptionID: "home/north-parcel-home"}); err != nil {
		panic(err)
	}
	// The cart grows past the free-shipping threshold.
	v, err = svc.Update(ctx, "demo-site", checkout.UpdateRequest{ID: v.Session.ID,
		Cart: &checkout.Cart{CartID: "c-1", TotalValue: 120000, Items: []checkout.CartItem{{SKU: "tent", Name: "Tent", Quantity: 3, Price: 40000}}}})
	if err != nil {
		panic(err)
	}
	fmt.Println("updated:", v.Session.SelectedShippingOption.ShippingMethod, v.Session.ShippingPrice)

	c, err := svc.Complete(ctx, "demo-site", checkout.CompleteRequest{ID: v.Session.ID, Customer: &checkout.Customer{
		Email:   "anna@example.com",
		Address: &checkout.CustomerAddress{Name: "Anna", AddressLines: []string{"Sergels torg 1"}, City: "Stockholm", PostalCode: "111 57", Country: "SE"},
	}})
	if err != nil {
		panic(err)
	}
	r := c.Session.Result
	fmt.Println("completed:", c.Session.Status, c.TosID, r.Selection, r.Category.Name, r.Pricing.Price)
	fmt.Println("delivered:", r.DeliveryTime.CustomerDeliveryPromise.Earliest.Format("Mon 2 Jan"), "to", r.DeliveryTime.CustomerDeliveryPromise.Latest.Format("Mon 2 Jan"))

	_, err = svc.Update(ctx, "demo-site", checkout.UpdateRequest{ID: v.Session.ID, Cart: &checkout.Cart{}})
	fmt.Println("update after complete:", deliverykit.KindOf(err))
	// Output:
	// created: siw_000001 ACTIVE north-parcel-point 4900
	// updated: north-parcel-home 0
	// completed: COMPLETE tos_000003 USER_CHOICE Home delivery 0
	// delivered: Fri 20 Nov to Mon 23 Nov
	// update after complete: permission denied
}

// The newer API generation: the shopper enters the delivery address in
// the widget (SaveAddresses is the widget's call), and the session
// completes without a customer from the merchant. The same session reads
// in both generations.
func ExampleService_CompleteCheckout() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		panic(err)
	}
	v, err := svc.CreateCheckout(ctx, "demo-site", checkout.CheckoutCreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.CheckoutCart{CartID: "c-1", TotalValue: 45000, Vouchers: []string{"WELCOME10"},
			Items: []checkout.CheckoutItem{{SKU: "tent", Name: "Tent", Quantity: 1, Price: 45000}}},
	})
	if err != nil {
		panic(err)
	}
	g := v.Session.DeliveryGroups[0]
	fmt.Println("created:", v.Session.CheckoutSessionID, v.Session.Status, g.Shipping.CarrierProductID, v.Session.Cart.Vouchers)

	_, err = svc.CompleteCheckout(ctx, "demo-site", checkout.CheckoutCompleteRequest{CheckoutSessionID: v.Session.CheckoutSessionID})
	fmt.Println("complete without an address:", deliverykit.ViolationsOf(err)[0].Field)

	// The widget's address form: a postal code that is not Swedish is
	// refused naming its field; a right one is kept.
	addr := &checkout.DeliveryAddress{FirstName: "Anna", LastName: "Berg", Street: "Götgatan", StreetNumber: "45",
		PostalCode: "1182", City: "Stockholm", Country: "SE", Email: "anna@example.com"}
	_, err = svc.SaveAddresses(ctx, v.Token, checkout.AddressRequest{DeliveryAddress: addr})
	fmt.Println("postal code 1182:", deliverykit.ViolationsOf(err)[0])
	addr.PostalCode = "118 26"
	if _, err := svc.SaveAddresses(ctx, v.Token, checkout.AddressRequest{DeliveryAddress: addr}); err != nil {
		panic(err)
	}

	c, err := svc.CompleteCheckout(ctx, "demo-site", checkout.CheckoutCompleteRequest{CheckoutSessionID: v.Session.CheckoutSessionID})
	if err != nil {
		panic(err)
	}
	g = c.Session.DeliveryGroups[0]
	fmt.Println("completed:", c.Session.Status, g.TosID, g.Addresses.Customer.Name, g.Addresses.Customer.PostalCode)
	old, err := svc.Get(ctx, "demo-site", v.Session.CheckoutSessionID)
	if err != nil {
		panic(err)
	}
	fmt.Println("in /v1/siw:", old.Session.Status, old.Session.TosID)
	// Output:
	// created: siw_000001 ACTIVE NP-HD [welcome10]
	// complete without an address: delivery_address
	// postal code 1182: delivery_address.postal_code: is not a postal code of SE (such as 111 57)
	// completed: COMPLETE tos_000003 Anna Berg 118 26
	// in /v1/siw: COMPLETE tos_000003
}

// An adapter answering session reads with the same bytes while a session
// is unchanged: it renders the View once per stored version (here a line
// of text; httpapi renders the JSON body) and writes the kept bytes after
// that. The Renderer is made once and reused.
func ExampleService_GetRendered() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		panic(err)
	}
	svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		panic(err)
	}
	renders := 0
	line := checkout.NewRenderer(func(v *checkout.View) ([]byte, error) {
		renders++
		s := v.Session
		return fmt.Appendf(nil, "%s %s %s %d\n", s.ID, s.Status, s.SelectedShippingOption.ShippingMethod, s.ShippingPrice), nil
	})
	v, err := svc.Create(ctx, "demo-site", checkout.CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"en-US"},
		Cart:          &checkout.Cart{CartID: "c-1", TotalValue: 45000, Items: []checkout.CartItem{{SKU: "tent", Name: "Tent", Quantity: 1, Price: 45000}}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "111 57"},
	})
	if err != nil {
		panic(err)
	}
	read := func() {
		a, err := svc.GetRendered(ctx, "demo-site", v.Session.ID, line)
		if err != nil {
			panic(err)
		}
		a.WriteTo(os.Stdout)
	}
	read()
	read() // unchanged: the kept bytes
	if _, err := svc.Select(ctx, v.Token, checkout.SelectRequest{OptionID: "home/north-parcel-home"}); err != nil {
		panic(err)
	}
	read() // a new version: rendered again
	fmt.Println("renders:", renders)
	// Output:
	// siw_000001 ACTIVE north-parcel-point 4900
	// siw_000001 ACTIVE north-parcel-point 4900
	// siw_000001 ACTIVE north-parcel-home 7900
	// renders: 2
}
