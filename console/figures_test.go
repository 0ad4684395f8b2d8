package console_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// openCheckouts opens n checkout sessions of site that nobody completes.
func openCheckouts(t testing.TB, kit *deliverykittest.Kit, site string, n int) {
	t.Helper()
	for range n {
		_, err := kit.Services.Checkout.Create(context.Background(), site, checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK",
			Locales: []string{"en-US"}, Cart: &checkout.Cart{CartID: "cart-open", TotalValue: 40000, Items: deliverykittest.DefaultItems()}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The figures the areas count beside the console's consumer: sessions
// created and the share completed, promise accuracy, and readiness; each
// page is checked for what it must and must not show.
func TestFigures(t *testing.T) {
	store := memory.New()
	readiness := httpapi.NewReadiness(store, httpapi.ReadinessOptions{})
	kit := deliverykittest.Start(t, deliverykittest.Options{Store: store, Console: &console.Options{Staff: testStaff(), Ready: readiness.Check}})
	shipAndReturn(t, kit, "order-7101") // a session completed, its parcel delivered
	openCheckouts(t, kit, kit.Site, 3)
	openCheckouts(t, kit, "demo-site-2", 2)
	c := newClient(t, kit.Handler).mustLogin(operator)
	other := newClient(t, kit.Handler).mustLogin(operator2)

	tests := []struct {
		name         string
		c            *client
		path         string
		want, unwant []string
		drain        bool // the server is shutting down: readiness fails from then on
	}{
		{name: "overview", c: c, path: "/console/overview",
			// The order was completed three days ago, the open sessions today.
			want: []string{`<th scope="row">Checkout sessions</th><td class="num">3</td><td class="num">4</td><td class="num">4</td>`,
				"<th scope=\"row\">Completion rate</th><td class=\"num\">0.0\u00a0%</td><td class=\"num\">25.0\u00a0%</td><td class=\"num\">25.0\u00a0%</td>",
				`aria-label="Checkout sessions"`}},
		{name: "overview of the other site", c: other, path: "/console/overview",
			want:   []string{`<th scope="row">Checkout sessions</th><td class="num">2</td>`, `<th scope="row">Completion rate</th><td class="num">0.0`},
			unwant: []string{`<td class="num">4</td>`}},
		{name: "checkout", c: c, path: "/console/checkout",
			want: []string{"Sessions → completed orders", `aria-label="Sessions created by day"`,
				"<dt>Completion rate (7 days)</dt><dd>25.0\u00a0%</dd>", "<dt>Completion rate (30 days)</dt><dd>25.0\u00a0%</dd>",
				"Promise accuracy (30 days)", "By carrier product", "<code>north-parcel-point</code></th><td class=\"num\">1</td>",
				"By week of delivery", "-W48</th><td class=\"num\">1</td>"}},
		{name: "checkout of the other site", c: other, path: "/console/checkout",
			want:   []string{"<dt>Completion rate (30 days)</dt><dd>0.0\u00a0%</dd>", "No parcels with a promise were delivered in the last 30 days."},
			unwant: []string{"north-parcel-point", "-W48"}},
		{name: "operations, ready", c: c, path: "/console/operations",
			want: []string{"Readiness", `<strong class="ok">Ready</strong>`}, unwant: []string{"Not ready"}},
		{name: "in German", c: c, path: "/console/checkout?lang=de",
			want: []string{"Abschlussquote (7 Tage)", "Genauigkeit der Lieferversprechen", "Nach Lieferwoche"}},
		{name: "operations, not ready", c: c, path: "/console/operations", drain: true,
			want: []string{`<strong class="bad">Not ready:</strong> the server is shutting down`}, unwant: []string{`<strong class="ok">Ready</strong>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.drain {
				readiness.Drain()
			}
			status, body := tt.c.get(tt.path)
			if status != http.StatusOK {
				t.Fatalf("GET %s: %d\n%.500s", tt.path, status, body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("GET %s: no %q in the page", tt.path, w)
				}
			}
			for _, w := range tt.unwant {
				if strings.Contains(body, w) {
					t.Errorf("GET %s: %q in the page", tt.path, w)
				}
			}
		})
	}
}

// The checkout page counts the orders that carried a voucher, and each
// code (case folded), from the completed orders' events.
func TestVouchersOnCheckoutPage(t *testing.T) {
	kit := deliverykittest.Start(t, deliverykittest.Options{Console: &console.Options{Staff: testStaff()}})
	ctx := context.Background()
	for i, vs := range [][]string{{"SPRING10"}, {"spring10", "FREESHIP"}, nil} {
		if _, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: fmt.Sprintf("order-72%02d", i), Vouchers: vs}); err != nil {
			t.Fatal(err)
		}
	}
	c := newClient(t, kit.Handler).mustLogin(operator)
	status, body := c.get("/console/checkout")
	if status != http.StatusOK {
		t.Fatalf("GET /console/checkout: %d", status)
	}
	for _, w := range []string{"Vouchers used", "<dt>Orders with a voucher</dt><dd>2 (66.7\u00a0%)</dd>",
		`<code>spring10</code></th><td class="num">2</td>`, `<code>freeship</code></th><td class="num">1</td>`} {
		if !strings.Contains(body, w) {
			t.Errorf("no %q in the checkout page", w)
		}
	}
	other := newClient(t, kit.Handler).mustLogin(operator2)
	if _, body := other.get("/console/checkout"); strings.Contains(body, "spring10") {
		t.Error("another site's checkout page shows the first site's vouchers")
	}
}
