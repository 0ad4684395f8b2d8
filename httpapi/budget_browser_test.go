package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/returns"
)

// What a shopper on a phone downloads and waits for, measured in Chromium
// throttled as page-speed audits throttle a mobile visit: the CPU four
// times slower, 150 ms round trips, 1.6 Mbit/s down and 750 kbit/s up.
// The byte budgets are asserted (they do not depend on the machine); the
// times are logged for BENCHMARKS.md, never asserted.
const (
	budgetWidgetScript  = 10 << 10 // the widget script, compressed
	budgetCustomerPages = 30 << 10 // a customer page with all it loads, compressed
)

// throttlePhone makes ctx's tab a throttled phone.
func throttlePhone(t *testing.T, ctx context.Context) {
	t.Helper()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
		MatchedNetworkConditions: []*network.Conditions{{Latency: 150, DownloadThroughput: 1.6e6 / 8, UploadThroughput: 750e3 / 8}},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 4}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
}

// transferred is the sum of the encoded (compressed) body sizes of the
// page and everything it loaded, by the browser's resource timing.
const transferred = `(() => {
	const all = performance.getEntriesByType("navigation").concat(performance.getEntriesByType("resource"));
	return all.reduce((n, e) => n + e.encodedBodySize, 0);
})()`

// TestWidgetBudgetOnThrottledPhone inserts html_snippet the way shops do
// (innerHTML, then re-created script nodes under the container) on a
// throttled phone and measures the widget script's compressed size and
// the time until the options show.
func TestWidgetBudgetOnThrottledPhone(t *testing.T) {
	ctx := newBrowser(t)
	api := newWidgetAPI(t)
	created := siwHTTP(t, checkoutAPI(t), "POST", api.URL+"/v1/siw/session.create", siwCreate)
	snippet := created["html_snippet"].(string)
	page := `<!doctype html><html lang="sv"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Kassa</title></head>
<body><h1>Checkout</h1><div id="checkout"></div>
<script>
window.insertSnippet = function (html) {
	const start = performance.now();
	const holder = document.getElementById("checkout");
	holder.innerHTML = html;
	const container = document.getElementById("shipwallet-container");
	for (const old of container.querySelectorAll("script")) {
		const s = document.createElement("script");
		s.text = old.text;
		old.replaceWith(s);
	}
	window._sw(function (api) {});
	new MutationObserver(function (_, obs) {
		if (container.querySelector(".dk-widget input[type=radio]")) {
			window.dkRendered = performance.now() - start;
			obs.disconnect();
		}
	}).observe(container, {childList: true, subtree: true});
};
</script></body></html>`
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer merchant.Close()

	throttlePhone(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(merchant.URL)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](fmt.Sprintf("insertSnippet(%q)", snippet))); err != nil {
		t.Fatal(err)
	}
	rendered, err := chromedp.Run(ctx, chromedp.Poll[float64](`window.dkRendered`, chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		t.Fatalf("the options never showed: %v", err)
	}
	script, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]any](`(() => {
		const e = performance.getEntriesByType("resource").find(e => /\/widget\.[0-9a-f]{16}\.js$/.test(e.name));
		return e ? {name: e.name, encoded: e.encodedBodySize, decoded: e.decodedBodySize} : {};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	encoded, _ := script["encoded"].(float64)
	t.Logf("throttled phone: options shown %.0f ms after the snippet was inserted; widget script %v bytes on the wire (%v decoded) from %v",
		rendered, encoded, script["decoded"], script["name"])
	if encoded == 0 || encoded > budgetWidgetScript {
		t.Errorf("widget script on the wire: %v bytes, budget %d (from the content-addressed URL: %v)", encoded, budgetWidgetScript, script["name"])
	}
}

// TestCustomerPagesBudget opens the tracking page and a return's status
// page on a throttled phone and sums what each transfers.
func TestCustomerPagesBudget(t *testing.T) {
	ctx := newBrowser(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	e := newTrackingEnvPortal(t, srv.URL)
	tracked := e.h(t)
	e.mustOrder(t)
	_, body := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-1", "locale": "sv-SE"}`}.do(t, tracked)
	trackingPage := body["tracking_link"].(string)

	rs, svc := newReturnsServer(t)
	if _, err := svc.ImportOrder(t.Context(), "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "JACKET-M", ProductTitle: "Jacke", VariantTitle: "M", Quantity: 1,
			PurchasePriceAmount: returns.PriceInput{Amount: "1299.90"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(t.Context(), returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	returnPage := srv.URL + strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080")
	h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, returns.StatusPagePath) {
			rs.handler.ServeHTTP(w, r)
			return
		}
		tracked.ServeHTTP(w, r)
	})

	throttlePhone(t, ctx)
	for _, p := range []struct{ name, url, ready string }{
		{"tracking page", trackingPage, `[data-testid="current-step"]`},
		{"return status page", returnPage, "#status"},
	} {
		start := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate(p.url), chromedp.WaitVisible(chromedp.CSS(p.ready))); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[float64](transferred))
		if err != nil {
			t.Fatal(err)
		}
		encoding, err := chromedp.Run(ctx, chromedp.Evaluate[string](`performance.getEntriesByType("navigation")[0].encodedBodySize < performance.getEntriesByType("navigation")[0].decodedBodySize ? "compressed" : "plain"`))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("throttled phone: %s, %.0f bytes transferred (%s), shown after %v", p.name, n, encoding, time.Since(start).Round(time.Millisecond))
		if n == 0 || n > budgetCustomerPages {
			t.Errorf("%s: %.0f bytes, budget %d", p.name, n, budgetCustomerPages)
		}
		if encoding != "compressed" {
			t.Errorf("%s: the browser got it uncompressed", p.name)
		}
	}
}
