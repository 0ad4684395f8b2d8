package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/internal/browsertest"
)

// newBrowser is a headless Chromium for one test (browsertest.New).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.New(t, 90*time.Second)
}

// TestDemoShop buys in the demo shop as a shopper does, in Swedish: adds
// a tent, sees the widget render inside the page's strict CSP, chooses
// another delivery and sees the total follow (data_changed, then the
// backend's session.get), adds a second tent (suspend, session.update,
// resume), fills in the customer form and places the order, opens the
// tracking page of its parcel, starts a return, and sees the return parcel
// on the tracking page as a return. Screenshots (shop-*.png) go to
// browsertest.ScreenshotDir.
func TestDemoShop(t *testing.T) {
	ctx := newBrowser(t)
	dir := browsertest.ScreenshotDir(t)
	base, done, stop := start(t, hooks{})
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()

	eval := func(expr string) any {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](expr))
		if err != nil {
			t.Fatalf("evaluating %s: %v", expr, err)
		}
		return v
	}
	waitFor := func(what, cond string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
			t.Fatalf("waiting for %s (%s): %v; status %q, CSP refused %v, page %.3000s", what, cond, err,
				eval(`(document.getElementById("status")||{}).textContent`), eval(`JSON.stringify(window.cspErrors)`), eval(`document.querySelector("main").innerHTML`))
		}
	}
	text := func(sel string) string {
		t.Helper()
		return eval(fmt.Sprintf(`document.querySelector(%q).textContent`, sel)).(string)
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "shop-"+name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// cspErrors collects what the page's Content-Security-Policy refused.
	const watchCSP = `window.cspErrors = []; document.addEventListener("securitypolicyviolation", e => cspErrors.push(e.violatedDirective + " " + e.blockedURI));`

	// The English page, then the Swedish one, where the purchase happens.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"/demo/shop?lang=en-US"),
		chromedp.WaitVisible(chromedp.CSS("button.add"))); err != nil {
		t.Fatal(err)
	}
	if got := text("h1"); got != "Products" {
		t.Errorf("the English page's heading is %q", got)
	}
	shot("en-US")
	if err := chromedp.Do(ctx, chromedp.Navigate(base+"/demo/shop?lang=sv-SE"), chromedp.WaitVisible(chromedp.CSS("button.add"))); err != nil {
		t.Fatal(err)
	}
	eval(watchCSP)
	if got := eval(`document.documentElement.lang + " " + document.querySelector("h1").textContent`); got != "sv-SE Produkter" {
		t.Errorf("the Swedish page: %q", got)
	}
	if got := nbsp(text(`.product .price`)); !strings.Contains(got, "899,00") || !strings.Contains(got, "kr") {
		t.Errorf("the tent's price reads %q", got)
	}

	// A tent in the cart: the backend creates the session, the page
	// inserts the widget.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`button.add[data-sku="tent-2p"]`))); err != nil {
		t.Fatal(err)
	}
	waitFor("the widget", `document.querySelectorAll("#shipwallet-container input[type=radio]").length > 0`)
	eval(`window.seen = []; window._sw(api => api.on("data_changed", (d, meta) => seen.push({price: d.price, meta: meta})));`)
	waitFor("the first total", `document.getElementById("total").textContent !== ""`)
	first := nbsp(text("#total"))
	if want := "948,00 kr"; first != want {
		t.Errorf("a tent with the preselected delivery costs %q, want %q", first, want)
	}
	shot("cart")

	// Another delivery at another price: data_changed, and the total the
	// backend reads from the session follows.
	chosen := eval(`document.querySelector(".dk-widget input[type=radio]:checked").value`)
	var other string
	for _, want := range []string{"home", "express", "mailbox"} {
		v := eval(fmt.Sprintf(`(Array.from(document.querySelectorAll(".dk-widget input[type=radio]")).find(i => i.value.includes(%q) && !i.checked) || {}).value || ""`, want)).(string)
		if v != "" {
			other = v
			break
		}
	}
	if other == "" {
		t.Fatalf("no delivery other than %v to choose: %v", chosen, eval(`Array.from(document.querySelectorAll(".dk-widget input[type=radio]")).map(i => i.value)`))
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.dk-widget input[value=%q]`, other)))); err != nil {
		t.Fatal(err)
	}
	waitFor("data_changed", `seen.some(e => !e.meta.initial_load)`)
	waitFor("the total to change", fmt.Sprintf(`document.getElementById("total").textContent.replaceAll("\u00a0", " ") !== %q`, first))
	if got, want := nbsp(text("#total")), "978,00 kr"; got != want {
		t.Errorf("after choosing %s the total reads %q, want %q (was %q)", other, got, want, first)
	}
	shot("widget")
	// On a phone: one column, nothing wider than the screen.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	if eval(`document.documentElement.scrollWidth > window.innerWidth`) == true {
		t.Error("on a phone the shop is wider than the screen")
	}
	// What the phone's screen shows at the cart.
	eval(`document.getElementById("cart-h").scrollIntoView()`)
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop-phone.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}

	// A second tent: the widget waits while the backend updates the
	// session, then reloads; the products' sum doubles.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`#cart-lines button.qty:last-of-type`))); err != nil {
		t.Fatal(err)
	}
	waitFor("the cart update", `document.getElementById("total-items").textContent.includes("1\u00a0798,00")`)
	waitFor("the widget to resume", `Array.from(document.querySelectorAll(".dk-widget input[type=radio]")).every(i => !i.disabled)`)
	// Past the catalog's free-shipping threshold the delivery is free.
	if got, want := nbsp(text("#total")), "1 798,00 kr"; got != want {
		t.Errorf("with two tents the total reads %q, want %q", got, want)
	}

	// The customer form, and the order.
	for _, f := range []struct{ id, value string }{{"c-name", "Alva Berg"}, {"c-email", "alva@example.com"},
		{"c-street", "Sergels torg 1"}, {"c-postal", "111 57"}, {"c-city", "Stockholm"}} {
		if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS("#"+f.id), f.value)); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#place")), chromedp.WaitVisible(chromedp.CSS("#confirmation"))); err != nil {
		t.Fatal(err)
	}
	order := text("#order-no")
	if !strings.HasPrefix(order, "shop-") {
		t.Errorf("order number %q", order)
	}
	if got := eval(`JSON.stringify(cspErrors)`); got != "[]" {
		t.Errorf("the CSP refused: %v", got)
	}
	shot("confirmation")

	// The tracking page of the parcel, in a tab of its own as the link
	// would open from an e-mail.
	trackURL := eval(`document.getElementById("track-link").href`).(string)
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(trackURL), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	page, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, order) || !strings.Contains(page, "Tält, 2 personer") {
		t.Errorf("the tracking page names neither the order %s nor its tents:\n%s", order, page)
	}
	if png, err = chromedp.Run(tab, chromedp.FullScreenshot(100)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop-tracking.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}

	// A return of the order: its page opens, in Swedish.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#return-btn")), chromedp.WaitVisible(chromedp.CSS("#return-link"))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#return-link")), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
		t.Fatal(err)
	}
	if got := eval(`document.documentElement.lang + " " + document.querySelector("h1").textContent`); got != "sv Din retur" && got != "sv-SE Din retur" {
		t.Errorf("the return page: %q", got)
	}
	shot("return")

	// Back on the tracking page, the return parcel (booked by the outbox
	// right after the return) shows as a return, going back to the
	// warehouse.
	for deadline := time.Now().Add(20 * time.Second); ; {
		if err := chromedp.Do(tab, chromedp.Navigate(trackURL), chromedp.WaitVisible(chromedp.CSS("h1"))); err != nil {
			t.Fatal(err)
		}
		if found, err := chromedp.Run(tab, chromedp.Evaluate[bool](`document.querySelector('[data-direction="return"]') !== null`)); err != nil || found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the return parcel did not reach the tracking page")
		}
		time.Sleep(100 * time.Millisecond)
	}
	ret, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.querySelector('[data-direction="return"]').innerText`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Returpaket", "Skickas tillbaka till", "Demo Outdoor Warehouse"} {
		if !strings.Contains(ret, want) {
			t.Errorf("the return parcel's section lacks %q:\n%s", want, ret)
		}
	}
	if png, err = chromedp.Run(tab, chromedp.FullScreenshot(100)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shop-tracking-return.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// nbsp reads no-break spaces, which Intl.NumberFormat puts in amounts, as
// spaces.
func nbsp(s string) string { return strings.ReplaceAll(s, "\u00a0", " ") }
