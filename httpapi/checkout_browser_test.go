package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/deliverykit/deliverykit"
)

// siwHTTP calls the API over the network, as a merchant backend does, and
// validates the answer against the OpenAPI document.
func siwHTTP(t *testing.T, doc *apiDoc, method, url, body string) map[string]any {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", siwKey["Authorization"])
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %v %v", method, url, resp.StatusCode, out, err)
	}
	if err := doc.check(resp.Request, resp.StatusCode, resp.Header, raw); err != nil {
		t.Errorf("%s %s: response does not match the OpenAPI document: %v", method, url, err)
	}
	return out
}

// newWidgetAPI serves the checkout API on a live address that is also the
// widget's configured base, as the example server's public URL is: the
// server starts first and gets its handler once the service knows the URL.
func newWidgetAPI(t *testing.T) *httptest.Server {
	t.Helper()
	var handler http.Handler
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(api.Close)
	svc := newCheckoutServiceAt(t, deliverykit.NewManualClock(siwNow), api.URL+"/v1/siw/_/")
	s, _ := newTestServer(t, Options{Checkout: svc})
	handler = s.handler
	return api
}

// TestCheckoutWidgetInBrowser loads a merchant page holding html_snippet
// (served from another origin than the API), picks a pickup point with the
// mouse and another option with the keyboard, checks the DOM event, the
// suspend/resume flow around a cart update and the phone layout, and reads
// the session back over the API after each step.
func TestCheckoutWidgetInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	api := newWidgetAPI(t)
	doc := checkoutAPI(t)

	created := siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.create", siwCreate)
	id := jsonPath(created, "session.id").(string)
	snippet := created["html_snippet"].(string)
	page := `<!doctype html><html lang="sv"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Kassa</title></head>
<body style="margin:0;padding:8px"><h1>Checkout</h1>` + snippet + `
<script>window.dkEvents = []; document.addEventListener("deliverykit:shipping-option-change", function (e) { window.dkEvents.push(e.detail); });</script>
</body></html>`
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer merchant.Close()

	getSession := func() map[string]any {
		return siwHTTP(t, doc, "GET", api.URL+"/v1/siw/session.get?id="+id, "")["session"].(map[string]any)
	}
	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	waitEvents := func(n int) map[string]any {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf("window.dkEvents.length >= %d", n), chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("waiting for change event %d: %v", n, err)
		}
		detail, _ := eval(fmt.Sprintf("window.dkEvents[%d]", n-1)).(map[string]any)
		return detail
	}

	const pre = `input[value="pickup/north-parcel-point/np-se-101"]`
	const pick = `input[value="pickup/north-parcel-point/np-se-104"]`
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 740),
		chromedp.Navigate(merchant.URL),
		chromedp.WaitVisible(chromedp.CSS(pick)),
	); err != nil {
		t.Fatal(err)
	}
	if eval(fmt.Sprintf(`document.querySelector(%q).checked`, pre)) != true {
		t.Error("the preselected option is not checked")
	}
	inputs := eval(`document.querySelectorAll(".dk-widget input").length`)
	labelled := eval(`Array.from(document.querySelectorAll(".dk-widget input")).filter(i => i.closest("label")).length`)
	legends := eval(`document.querySelectorAll(".dk-widget fieldset > legend").length`)
	if inputs != labelled || legends != float64(4) {
		t.Errorf("%v inputs, %v inside labels, %v legends; want every input labelled and 4 categories", inputs, labelled, legends)
	}
	if eval(`document.documentElement.scrollWidth > window.innerWidth`) != false {
		t.Error("the widget overflows a 375 px phone screen")
	}

	// Pick a pickup point with the mouse.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(pick))); err != nil {
		t.Fatal(err)
	}
	detail := waitEvents(1)
	if detail["option_id"] != "pickup/north-parcel-point/np-se-104" || detail["shipping_price"] != float64(4900) || detail["currency"] != "SEK" {
		t.Errorf("event detail = %v", detail)
	}
	sess := getSession()
	if jsonPath(sess, "selected_shipping_option.time_slot.id") != "pickup/north-parcel-point/np-se-104" ||
		jsonPath(sess, "selected_shipping_option.location.name") != "Kiosk Kungsholmen" ||
		jsonPath(sess, "shipping_price") != float64(4900) || jsonPath(sess, "result.selection") != "USER_CHOICE" {
		t.Errorf("session after the click: %v", sess["selected_shipping_option"])
	}

	// Choose the next option with the keyboard (arrow keys move within the
	// radio group, as for any native radio button).
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(pick)), chromedp.KeyEvent(kb.ArrowDown)); err != nil {
		t.Fatal(err)
	}
	detail = waitEvents(2)
	next := eval(`document.querySelector(".dk-widget input[type=radio]:checked").value`)
	if detail["option_id"] != next || next == "pickup/north-parcel-point/np-se-104" {
		t.Errorf("keyboard choice: event %v, checked %v", detail, next)
	}
	if got := jsonPath(getSession(), "selected_shipping_option.time_slot.id"); got != next {
		t.Errorf("session after the keyboard choice: %v, want %v", got, next)
	}

	// Cart change: suspend, update from the backend, resume.
	totalBefore, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".dk-total")))
	if err != nil {
		t.Fatal(err)
	}
	if eval(`deliverykitCheckout.suspend(); Array.from(document.querySelectorAll(".dk-widget input")).every(i => i.disabled)`) != true {
		t.Error("suspend() left inputs enabled")
	}
	siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.update", `{"id": "`+id+`", "cart": {"cart_id": "c-1", "total_value": 150000, "items": [{"sku": "tent", "quantity": 3, "price": 50000}]}}`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`deliverykitCheckout.resume().then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	totalAfter, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".dk-total")))
	if err != nil {
		t.Fatal(err)
	}
	disabled := eval(`Array.from(document.querySelectorAll(".dk-widget input")).some(i => i.disabled)`)
	t.Logf("keyboard chose %v; shipping line %q before the cart update, %q after", next, totalBefore, totalAfter)
	if disabled != false || totalAfter == totalBefore || !strings.Contains(totalAfter, "0,00") {
		t.Errorf("after resume: total %q (before %q), disabled %v", totalAfter, totalBefore, disabled)
	}
	if got := jsonPath(getSession(), "shipping_price"); got != 0.0 {
		t.Errorf("shipping_price after the update = %v, want free: a present 0", got)
	}
}
