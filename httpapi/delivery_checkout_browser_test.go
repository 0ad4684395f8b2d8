package httpapi

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// newLiveDCStack serves the stack on a live address that is also the
// widget's base, as the example server's public URL is.
func newLiveDCStack(t *testing.T) (*dcStack, *httptest.Server) {
	t.Helper()
	var st *dcStack
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { st.handler.ServeHTTP(w, r) }))
	t.Cleanup(api.Close)
	st = newDCStack(t, api.URL+"/v1/siw/_/", RateLimits{})
	return st, api
}

// dcHTTP is the connector's backend calling the API over the network; the
// answer is checked against the newer generation's document.
func dcHTTP(t *testing.T, method, url, body string) map[string]any {
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
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, raw)
	}
	if err := deliveryCheckoutAPI(t).check(resp.Request, resp.StatusCode, resp.Header, raw); err != nil {
		t.Errorf("%s %s: the answer does not match the document: %v", method, url, err)
	}
	return out
}

// TestDeliveryCheckoutConnectorFlow is a commerce connector written for
// the newer generation, in a browser: its backend creates a session with
// a voucher; its front-end inserts html_snippet, re-creates the script and
// subscribes through window._sw; the shopper fills the widget's address
// form with the keyboard (a wrong postal code first, shown beside its
// field in the shopper's language); data_changed, summary_changed and
// address_changed reach the page; the backend updates the cart (suspend,
// session.update, resume), reads the session, completes it without a
// customer and reads delivery_groups[0].tos_id; the tracking order has
// the shopper as its receiver. Screenshots of the form go to
// screenshotDir.
func TestDeliveryCheckoutConnectorFlow(t *testing.T) {
	ctx := newBrowser(t)
	st, api := newLiveDCStack(t)
	dir := screenshotDir(t)
	base := api.URL + "/v1/delivery_checkout"

	created := dcHTTP(t, "POST", base+"/session.create", dcCreate)
	id := jsonPath(created, "session.checkout_session_id").(string)
	if jsonPath(created, "session.cart.vouchers.0") != "welcome10" {
		t.Errorf("vouchers: %v", jsonPath(created, "session.cart"))
	}
	snippet, _ := json.Marshal(created["html_snippet"].(string))
	page := `<!doctype html><html lang="sv"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kassa</title></head><body style="margin:0;padding:8px;font-family:sans-serif"><h1>Kassa</h1><div id="shipping"></div>
<script>
window.events = [];
var target = document.getElementById("shipping");
target.insertAdjacentHTML("beforeend", ` + string(snippet) + `);
target.querySelectorAll("script").forEach(function (old) {
  var s = document.createElement("script");
  s.text = old.text;
  old.replaceWith(s);
});
window._sw(function (api) {
  window.swApi = api;
  ["data_changed", "summary_changed"].forEach(function (n) {
    api.on(n, function (data, meta) { events.push({name: n, data: data, meta: meta}); });
  });
  api.on("address_changed", function (a) { events.push({name: "address_changed", data: a}); });
});
</script></body></html>`
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer merchant.Close()

	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	waitFor := func(cond string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("waiting for %s: %v (events: %v)", cond, err, eval(`JSON.stringify(events)`))
		}
	}
	event := func(name string, n int) map[string]any {
		t.Helper()
		waitFor(fmt.Sprintf(`events.filter(e => e.name === %q).length > %d`, name, n))
		e, _ := eval(fmt.Sprintf(`events.filter(e => e.name === %q)[%d]`, name, n)).(map[string]any)
		return e
	}
	shot := func(name string, width, height int64, scheme string) {
		t.Helper()
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
			t.Fatal(err)
		}
		if eval(`document.documentElement.scrollWidth > window.innerWidth`) == true {
			t.Errorf("%s: wider than the screen", name)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(merchant.URL),
		chromedp.WaitVisible(chromedp.CSS(".dk-address input[name=first_name]")), chromedp.WaitVisible(chromedp.CSS(".dk-widget input[type=radio]"))); err != nil {
		t.Fatal(err)
	}
	if first := event("data_changed", 0); jsonPath(first, "meta.initial_load") != true {
		t.Errorf("first data_changed: %v", first)
	}
	// Every field has a visible label in Swedish, and the region field is
	// hidden for Sweden.
	labels := eval(`Array.from(document.querySelectorAll(".dk-address-delivery .dk-field label")).filter(l => l.offsetParent).map(l => l.textContent + "→" + document.getElementById(l.htmlFor).name).join("|")`)
	if want := "Förnamn→first_name|Efternamn→last_name|Företag (valfritt)→company_name|Gata→street|Nummer→street_number|Lägenhet (valfritt)→apartment_number|Postnummer→postal_code|Ort→city|Land→country|E-post→email|Telefon (valfritt)→phone"; labels != want {
		t.Errorf("labels:\n got %v\nwant %v", labels, want)
	}
	shot("address-form-sv-phone-light.png", 390, 844, "light")

	// The shopper types with the keyboard: Tab goes from field to field in
	// reading order.
	typeInto := func(name, text string) {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".dk-address-delivery [name="+name+"]"), text)); err != nil {
			t.Fatal(err)
		}
	}
	typeInto("first_name", "Anna")
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.activeElement.name`); got != "last_name" {
		t.Errorf("Tab from first_name went to %v", got)
	}
	for _, f := range [][2]string{{"last_name", "Berg"}, {"street", "Götgatan"}, {"street_number", "45"}, {"postal_code", "1182"},
		{"city", "Stockholm"}, {"email", "anna@example.com"}, {"phone", "+46701234567"}} {
		typeInto(f[0], f[1])
	}
	// Enter submits; the wrong postal code is caught, said in Swedish
	// beside its field, and the keyboard is taken there.
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	waitFor(`document.activeElement && document.activeElement.name === "postal_code"`)
	if got := eval(`document.querySelector(".dk-address-delivery [name=postal_code]").getAttribute("aria-invalid") + " " + document.getElementById(document.activeElement.getAttribute("aria-describedby")).textContent`); got != "true Ange ett postnummer, till exempel 111 57." {
		t.Errorf("postal code error: %v", got)
	}
	shot("address-form-sv-phone-error.png", 390, 844, "light")
	if got := eval(`events.filter(e => e.name === "address_changed").length`); got != float64(0) {
		t.Errorf("a refused form fired address_changed")
	}

	eval(`document.querySelector(".dk-address-delivery [name=postal_code]").value = ""`)
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(".dk-address-delivery [name=postal_code]"), "118 26"+kb.Enter)); err != nil {
		t.Fatal(err)
	}
	changed := event("address_changed", 0)
	if jsonPath(changed, "data.delivery_address.postal_code") != "118 26" || jsonPath(changed, "data.delivery_address.first_name") != "Anna" {
		t.Errorf("address_changed: %v", changed)
	}
	sum := event("summary_changed", 0)
	if jsonPath(sum, "meta.delivery_address_changed") != true || jsonPath(sum, "meta.billing_address_changed") != false ||
		jsonPath(sum, "meta.total_value_changed") != false {
		t.Errorf("summary_changed: %v", sum)
	}
	dc := event("data_changed", 1)
	if jsonPath(dc, "meta.search_address_changed") != true || jsonPath(dc, "data.search_address.postal_code") != "118 26" {
		t.Errorf("data_changed after the address: %v", dc)
	}
	waitFor(`document.querySelector(".dk-status").textContent.includes("sparad")`)
	shot("address-form-sv-phone-saved.png", 390, 844, "light")
	shot("address-form-sv-desktop-dark.png", 1024, 900, "dark")

	// The cart changes: suspend, update from the backend, resume.
	if eval(`swApi.suspend(); Array.from(document.querySelectorAll(".dk-widget input, .dk-widget select, .dk-widget button")).every(i => i.disabled)`) != true {
		t.Error("suspend() left fields enabled")
	}
	dcHTTP(t, "POST", base+"/session.update", `{"checkout_session_id": "`+id+`", "cart": {"cart_id": "c-77", "total_value": 150000,
	  "vouchers": ["welcome10"], "items": [{"sku": "tent", "name": "Tent", "quantity": 3, "price": 50000}]}}`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`swApi.resume().then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	total := event("summary_changed", 1)
	if jsonPath(total, "meta.total_value_changed") != true || jsonPath(total, "meta.delivery_address_changed") != false {
		t.Errorf("summary_changed after the cart update: %v", total)
	}
	if eval(`document.querySelector(".dk-address-delivery [name=street]").value + " " + document.querySelector(".dk-address-delivery [name=street]").disabled`) != "Götgatan false" {
		t.Error("the form lost the address or stayed disabled after resume")
	}

	got := dcHTTP(t, "GET", base+"/session.get?checkout_session_id="+id, "")
	g := jsonPath(got, "session.delivery_groups.0").(map[string]any)
	if jsonPath(g, "addresses.delivery_address.postal_code") != "118 26" || jsonPath(g, "addresses.billing_address.first_name") != "Anna" ||
		jsonPath(g, "shipping.carrier_product_id") == nil || jsonPath(got, "session.cart.total_value") != float64(150000) {
		t.Errorf("session.get: %v", got["session"])
	}
	done := dcHTTP(t, "POST", base+"/session.complete", `{"checkout_session_id": "`+id+`"}`)
	tos, _ := jsonPath(done, "session.delivery_groups.0.tos_id").(string)
	if jsonPath(done, "session.status") != "COMPLETE" || tos == "" {
		t.Fatalf("complete: %v", done)
	}
	checkTrackedReceiver(t, st, tos, "Anna Berg", "118 26")
	t.Logf("screenshots in %s", dir)
}
