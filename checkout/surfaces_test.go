package checkout

import (
	"bytes"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/returns"
	returnspage "github.com/deliverykit/deliverykit/returns/page"
	"github.com/deliverykit/deliverykit/tracking"
	trackingpage "github.com/deliverykit/deliverykit/tracking/page"
)

// TestOneAmountOnEverySurface shows one amount, 49 SEK, on the three
// pages a Swedish shopper sees: the widget (the chosen option's price and
// the shipping total), the tracking page (an item of the order) and the
// return page (a returned item and the return's cost). Each writes it the
// same way, "49,00 kr" with a no-break space.
func TestOneAmountOnEverySurface(t *testing.T) {
	const want = "49,00\u00a0kr"
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.svc.WidgetState(ctx, v.Token)
	if err != nil {
		t.Fatal(err)
	}
	if st.Locale != "sv-SE" || st.Currency != "SEK" || st.ShippingPrice != 4900 {
		t.Fatalf("the fixture's session is not a Swedish one with a 49 kr choice: %s %s %d", st.Locale, st.Currency, st.ShippingPrice)
	}
	var chosen WidgetOption
	for _, c := range st.Categories {
		for _, o := range c.Options {
			if o.ID == st.Selected {
				chosen = o
			}
		}
	}

	tag := i18n.Match(st.Locale)
	var tp bytes.Buffer
	order := &tracking.PrivateOrder{ExternalID: "ORD-1", TimeZone: "Europe/Stockholm",
		Cart: &tracking.PrivateOrderCart{Currency: "SEK", Items: []tracking.Item{{Name: "Mug", Quantity: 1, TotalPrice: 4900}}}}
	if err := trackingpage.Render(&tp, order, tag, trackingpage.Options{Now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}); err != nil {
		t.Fatal(err)
	}
	var rp bytes.Buffer
	amount := returns.Amount{Minor: 4900, Scale: 2}
	ret := returns.Return{ID: 1, Status: returns.StatusAwaitingReturn,
		ReturnCosts: returns.ReturnCosts{CurrencyCode: "SEK", TotalCost: amount},
		Items: []returns.ReturnItem{{Quantity: 1, Status: returns.ItemAwaitingReturn,
			PurchasePriceAmount: returns.PurchasePrice{CurrencyCode: "SEK", Amount: amount}, ProductVariant: returns.ProductVariant{SKU: "MUG"}}}}
	if err := returnspage.Render(&rp, tag, returns.StatusPageView{Return: ret}); err != nil {
		t.Fatal(err)
	}

	got := map[string]string{
		"widget option":        chosen.PriceText,
		"widget shipping":      st.ShippingPriceText,
		"tracking item":        first(`<span class="price">([^<]*)</span>`, tp.String()),
		"return item":          first(`<td class="num">[^<]*</td><td class="num">([^<]*)</td>`, rp.String()),
		"return cost":          first(`id="costs">([^<]*)<`, rp.String()),
		"the formatter itself": i18n.Money(tag, 4900, "SEK"),
	}
	wantAll := map[string]string{}
	for k := range got {
		wantAll[k] = want
	}
	if diff := cmp.Diff(wantAll, got); diff != "" {
		t.Errorf("49 SEK on the surfaces (-want +got):\n%s", diff)
	}
}

// first is the first submatch of pattern in s; empty when none.
func first(pattern, s string) string {
	if m := regexp.MustCompile(pattern).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}
