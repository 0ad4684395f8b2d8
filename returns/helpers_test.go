package returns

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 123456789, time.UTC)

type fixture struct {
	svc   *Service
	store storage.Store
	clock *deliverykit.ManualClock
	ctx   context.Context
}

// testPolicy charges 49.00 SEK for the label, 10.50 for handling and 25 for
// an exchange, refunds shipping and allows 30 days.
var testPolicy = Policy{WindowDays: 30, RefundShipping: true, Costs: map[string]Costs{
	"SEK": {ReturnShipment: 4900, ReturnHandling: 1050, Exchange: 2500},
	"JPY": {ReturnShipment: 500},
}}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	return newFixtureOn(t, memory.New())
}

// newFixtureOn is newFixture on store.
func newFixtureOn(t testing.TB, store storage.Store) *fixture {
	t.Helper()
	clock := deliverykit.NewManualClock(t0)
	svc := New(store, Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies:  StaticPolicies{"site-a": testPolicy, "site-b": testPolicy},
		PublicURL: "http://127.0.0.1:8080/",
	})
	return &fixture{svc: svc, store: store, clock: clock, ctx: context.Background()}
}

// orderInput is an order of two lines: 2 × jacket at 1299.90 and 3 ×
// socks at 0.10 (SEK), with 59.00 shipping.
func orderInput(foreignID string) OrderInput {
	return OrderInput{
		ForeignID: foreignID, ForeignName: "#" + foreignID, ForeignNumber: 1001, CurrencyCode: "SEK",
		Email: "Customer@Example.com", ShippingAmount: "59",
		Items: []OrderItemInput{
			{ForeignLineItemID: "L1", SKU: "JACKET-M", ProductTitle: "Jacket", VariantTitle: "M", Quantity: 2,
				PurchasePriceAmount: PriceInput{Amount: "1299.90", ItemTax: "259.98"}},
			{ForeignLineItemID: "L2", SKU: "SOCKS", ProductTitle: "Socks", Quantity: 3,
				PurchasePriceAmount: PriceInput{Amount: "0.1", ItemTax: "0.02"}},
		},
	}
}

func (f *fixture) importOrder(t testing.TB, site, foreignID string) Order {
	t.Helper()
	o, err := f.svc.ImportOrder(f.ctx, site, orderInput(foreignID))
	if err != nil {
		t.Fatalf("ImportOrder(%s, %s): %v", site, foreignID, err)
	}
	return o
}

func (f *fixture) createReturn(t testing.TB, site, foreignID string, items ...CustomerReturnItemInput) Return {
	t.Helper()
	r, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: site, ForeignOrderID: foreignID, Email: "customer@example.com", Items: items})
	if err != nil {
		t.Fatalf("CreateReturn(%s, %s): %v", site, foreignID, err)
	}
	return r
}

// jsonOf marshals v to a generic value, to compare wire shapes.
func jsonOf(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func kindOf(err error) string {
	if err == nil {
		return "ok"
	}
	return deliverykit.KindOf(err).String()
}
