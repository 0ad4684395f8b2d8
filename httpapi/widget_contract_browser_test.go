package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestWidgetFrontEndContract is a merchant front-end written for this API:
// it inserts html_snippet with insertAdjacentHTML, re-creates its script
// nodes so they run, and calls window._sw at once, before the widget script
// has loaded. It then chooses pickup points with the keyboard (several
// moves: the focus must stay with the shopper), sees data_changed and
// shipping_option_changed with the right meta flags, and goes through the
// cart-change flow: suspend(), session.update from the backend, resume().
func TestWidgetFrontEndContract(t *testing.T) {
	ctx := newBrowser(t)
	api := newWidgetAPI(t)
	doc := checkoutAPI(t)

	created := siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.create", siwCreate)
	id := jsonPath(created, "session.id").(string)
	snippet, _ := json.Marshal(created["html_snippet"].(string))
	page := `<!doctype html><html lang="sv"><head><meta charset="utf-8"><title>Kassa</title></head>
<body><h1>Checkout</h1><div id="shipping"></div>
<script>
window.events = [];
var target = document.getElementById("shipping");
target.insertAdjacentHTML("beforeend", ` + string(snippet) + `);
// Scripts inserted as HTML do not run: re-create them, as front-ends do.
target.querySelectorAll("script").forEach(function (old) {
  var s = document.createElement("script");
  Array.from(old.attributes).forEach(function (a) { s.setAttribute(a.name, a.value); });
  s.text = old.text;
  old.replaceWith(s);
});
window._sw(function (api) {
  window.swApi = api;
  api.on("data_changed", function (data, meta) { events.push({name: "data_changed", data: data, meta: meta}); });
  api.on("summary_changed", function (data, meta) { events.push({name: "summary_changed", data: data, meta: meta}); });
  api.on("shipping_option_changed", function (option) { events.push({name: "shipping_option_changed", option: option}); });
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
	// next waits for the n-th event (0-based) of a name and returns it.
	next := func(name string, n int) map[string]any {
		t.Helper()
		cond := fmt.Sprintf(`events.filter(e => e.name === %q).length > %d`, name, n)
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("waiting for %s #%d: %v (events: %v)", name, n, err, eval(`JSON.stringify(events)`))
		}
		e, _ := eval(fmt.Sprintf(`events.filter(e => e.name === %q)[%d]`, name, n)).(map[string]any)
		return e
	}
	trueFlags := func(e map[string]any) []string {
		var out []string
		for k, v := range e["meta"].(map[string]any) {
			if v == true {
				out = append(out, k)
			}
		}
		return sortedStrings(out)
	}

	if err := chromedp.Do(ctx, chromedp.Navigate(merchant.URL), chromedp.WaitVisible(chromedp.CSS(".dk-widget input[type=radio]"))); err != nil {
		t.Fatal(err)
	}
	if eval(`document.querySelectorAll("#shipwallet-container").length`) != float64(1) {
		t.Error("no #shipwallet-container on the page")
	}
	first := next("data_changed", 0)
	if got := trueFlags(first); strings.Join(got, ",") != "initial_load" {
		t.Errorf("first data_changed flags = %v, want initial_load only", got)
	}
	if jsonPath(first, "data.shipping_method") != "north-parcel-point" || jsonPath(first, "data.delivery_type") != "pickup" ||
		jsonPath(first, "data.external_method_id") != "NP-PP" || jsonPath(first, "data.price") != float64(4900) {
		t.Errorf("first data_changed data = %v", first["data"])
	}
	if eval(`Array.from(document.querySelectorAll(".dk-widget input")).every(i => i.getAttribute("aria-label"))`) != true {
		t.Error("an option has no aria-label")
	}

	// Three moves with the arrow key through the pickup points: each one
	// chooses, and the focus follows the choice through the re-render.
	pre := eval(`document.querySelector(".dk-widget input[type=radio]:checked").value`).(string)
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(fmt.Sprintf(`input[value=%q]`, pre)))); err != nil {
		t.Fatal(err)
	}
	seen := []string{pre}
	for move := range 3 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.ArrowDown)); err != nil {
			t.Fatal(err)
		}
		opt := next("shipping_option_changed", move)
		dc := next("data_changed", move+1)
		checked := eval(`document.querySelector(".dk-widget input[type=radio]:checked").value`)
		focused := eval(`document.activeElement && document.activeElement.value`)
		if opt["option"].(map[string]any)["id"] != checked || focused != checked {
			t.Errorf("move %d: event chose %v, checked %v, focus on %v", move+1, jsonPath(opt, "option.id"), checked, focused)
		}
		for _, s := range seen {
			if s == checked {
				t.Errorf("move %d: %v chosen again", move+1, checked)
			}
		}
		seen = append(seen, checked.(string))
		if got := strings.Join(trueFlags(dc), ","); got != "pickup_location_changed" && got != "external_method_id_changed,pickup_location_changed,shipping_method_changed" {
			t.Errorf("move %d: data_changed flags %v", move+1, got)
		}
		if jsonPath(opt, "option.price") != float64(4900) {
			t.Errorf("move %d: shipping_option_changed price %v", move+1, jsonPath(opt, "option.price"))
		}
	}
	sess := siwHTTP(t, doc, "GET", api.URL+"/v1/siw/session.get?id="+id, "")
	if got := jsonPath(sess, "session.selected_shipping_option.time_slot.id"); got != seen[3] {
		t.Errorf("session after the keyboard moves: %v, want %v", got, seen[3])
	}

	// The cart grows past the free-shipping threshold: suspend, update,
	// resume; the widget and the session both say free.
	if eval(`swApi.suspend(); Array.from(document.querySelectorAll(".dk-widget input")).every(i => i.disabled)`) != true {
		t.Error("suspend() left inputs enabled")
	}
	siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.update", `{"id": "`+id+`", "cart": {"cart_id": "c-1", "total_value": 150000, "items": [{"sku": "tent", "quantity": 3, "price": 50000}]}}`)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](`swApi.resume().then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	after := next("data_changed", 4)
	if got := strings.Join(trueFlags(after), ","); got != "price_changed" || jsonPath(after, "data.price") != nil && jsonPath(after, "data.price") != float64(0) {
		t.Errorf("data_changed after resume: flags %v, price %v", got, jsonPath(after, "data.price"))
	}
	sum := next("summary_changed", 0)
	if got := strings.Join(trueFlags(sum), ","); got != "total_value_changed" || jsonPath(sum, "data.total_value") != float64(150000) {
		t.Errorf("summary_changed: flags %v, data %v", got, sum["data"])
	}
	total, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(".dk-total")))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(total, "0,00") || eval(`Array.from(document.querySelectorAll(".dk-widget input")).some(i => i.disabled)`) != false {
		t.Errorf("after resume the widget shows %q", total)
	}
	if got := jsonPath(siwHTTP(t, doc, "GET", api.URL+"/v1/siw/session.get?id="+id, ""), "session.shipping_price"); got != 0.0 {
		t.Errorf("session.get shipping_price after the update = %v, want free: a present 0", got)
	}
}

func sortedStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}
