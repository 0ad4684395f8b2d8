package httpapi

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/returns"
)

// TestReturnStatusPageInBrowser renders the customer status page in a real
// browser: the page a customer reaches from statusUrl, in the language
// asked for, following the return through its lifecycle.
func TestReturnStatusPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	s, svc := newReturnsServer(t)
	srv := httptest.NewServer(s.handler)
	defer srv.Close()

	if _, err := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "JACKET-M", ProductTitle: "Jacke", VariantTitle: "M", Quantity: 1,
			PurchasePriceAmount: returns.PriceInput{Amount: "1299.90"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	pageURL := srv.URL + strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080")
	dir := screenshotDir(t)
	shoot := func(name string) {
		t.Helper()
		b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	if got := returnsPageTexts(t, ctx, pageURL+"?locale=en-GB", "#status"); got["#status"] != "Waiting for your parcel" {
		t.Errorf("English page: %q", got)
	}
	shoot("return-page-en.png")

	got := returnsPageTexts(t, ctx, pageURL+"?lang=de", "#status", "#refund", "#items")
	if got["lang"] != "de" || got["#status"] != "Wir warten auf Ihr Paket" || got["#refund"] != "1.240,40\u00a0SEK" || !strings.Contains(got["#items"], "Jacke – M") {
		t.Errorf("German page: %q", got)
	}
	shoot("return-page-de.png")

	// The merchant inspects the parcel; the page, now chosen by the
	// browser's Accept-Language, shows the refund.
	if _, err := svc.ReportReturnedItems(ctx, "demo-site", returns.ReturnedItemsInput{ReturnID: ret.ID,
		Items: []returns.ReturnedItemInput{{SKU: "JACKET-M", Quantity: 1, Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "sv-SE,sv;q=0.9"}}); err != nil {
		t.Fatal(err)
	}
	got = returnsPageTexts(t, ctx, pageURL, "#status", "ol.steps li.current")
	if got["lang"] != "sv-SE" || got["#status"] != "Kontrollerad, återbetalning på väg" || got["ol.steps li.current"] != "Kontrollerad" {
		t.Errorf("Swedish page after inspection: %q", got)
	}
	shoot("return-page-sv.png")

	got = returnsPageTexts(t, ctx, srv.URL+returns.StatusPagePath+"rt_unknown", "#notfound")
	if !strings.Contains(got["#notfound"], "inte giltig") {
		t.Errorf("unknown token page: %q", got)
	}
}

// returnsPageTexts opens url and returns the html lang attribute ("lang")
// and the text of each selector.
func returnsPageTexts(t *testing.T, ctx context.Context, url string, selectors ...string) map[string]string {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatalf("navigate %s: %v", url, err)
	}
	out := map[string]string{}
	lang, err := chromedp.Run(ctx, chromedp.AttributeValue("html", "lang"))
	if err != nil {
		t.Fatal(err)
	}
	out["lang"] = lang.Value
	for _, sel := range selectors {
		text, err := chromedp.Run(ctx, chromedp.Text(sel))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		out[sel] = strings.TrimSpace(text)
	}
	return out
}
