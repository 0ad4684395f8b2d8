package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/security"
	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/internal/browsertest"
)

// browser drives the console in Chromium.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func (b *browser) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		b.t.Fatal(err)
	}
}

func (b *browser) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+path), chromedp.WaitVisible(chromedp.CSS("h1")))
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		b.t.Fatalf("%s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func (b *browser) eval(js string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return s
}

// path is the page's path and query.
func (b *browser) path() string {
	return b.eval(`location.pathname + location.search`)
}

// click presses the button sel and waits for the page it leads to.
func (b *browser) click(sel string) {
	b.t.Helper()
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		b.t.Fatalf("clicking %s: %v", sel, err)
	}
	b.do(chromedp.WaitVisible(chromedp.CSS("h1")))
}

// expect checks that the page's main text contains each of want.
func (b *browser) expect(want ...string) {
	b.t.Helper()
	body := b.text("main")
	for _, w := range want {
		if !strings.Contains(body, w) {
			b.t.Errorf("%s: no %q in %.400q", b.path(), w, body)
		}
	}
}

func (b *browser) login(email, password string) {
	b.t.Helper()
	b.open("/console/login")
	b.do(chromedp.SendKeys(chromedp.CSS("#email"), email), chromedp.SendKeys(chromedp.CSS("#password"), password))
	b.click(`main button[type="submit"]`)
}

func (b *browser) logout() {
	b.t.Helper()
	b.click(".who button")
}

// newBrowser starts Chromium for the console at base, served over TLS
// with httptest's certificate: the session cookie is Secure, and browsers
// keep those from https only.
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	ctx := browsertest.New(t, 3*time.Minute)
	if _, err := chromedp.CallBrowser(ctx, security.SetIgnoreCertificateErrors, security.SetIgnoreCertificateErrorsParams{Ignore: true}); err != nil {
		t.Fatal(err)
	}
	return &browser{t: t, ctx: ctx, base: base}
}

// TestConsoleInBrowser logs in, walks every page and takes every
// operator action in Chromium, then checks what a viewer, another site's
// operator, a cross-site form and a password guesser get.
func TestConsoleInBrowser(t *testing.T) {
	kit := startKit(t, console.LoginLimits{PerAccount: 3, PerAddress: 100})
	p, ret := shipAndReturn(t, kit, "order-7100")
	addDeadEvent(t, kit, kit.Site)
	srv := httptest.NewTLSServer(kit.Handler)
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	b.do(chromedp.EmulateViewport(1280, 900))

	b.login(operator, testPassword)
	if got := b.path(); got != "/console/overview" {
		t.Fatalf("after login: %s: %s", got, b.text("main"))
	}
	// The cookie the browser kept is the session, out of script's reach.
	if got := b.eval(`document.cookie`); got != "" {
		t.Errorf("document.cookie = %q: the session is readable by script", got)
	}
	b.expect("Parcels in transit", "Orders", "Dead events", "Checkout sessions", "Completion rate")

	// Keyboard: the first Tab reaches the skip link, the next the first
	// section.
	b.do(chromedp.KeyEvent("\t"))
	if got := b.eval(`document.activeElement.textContent`); got != "Skip to content" {
		t.Errorf("first Tab focuses %q", got)
	}
	b.do(chromedp.KeyEvent("\t"))
	if got := b.eval(`document.activeElement.textContent`); got != "Overview" {
		t.Errorf("second Tab focuses %q", got)
	}

	// Orders: search by tracking number, open the order, resend.
	b.open("/console/orders")
	b.do(chromedp.SendKeys(chromedp.CSS("#q"), p.TrackingNumber+"\n"), chromedp.WaitVisible(chromedp.CSS("section.card")))
	if got := b.path(); got != "/console/orders/order-7100" {
		t.Fatalf("search by tracking number opened %s", got)
	}
	b.expect(p.TrackingNumber, "Delivered", "Download label", "Send again")
	b.click(`form[action$="/retrigger"] button`)
	b.expect("The notification is sent again.")

	// Returns: the queue, the return, the complaint, the inspection, the
	// refund.
	b.open("/console/returns")
	b.expect(fmt.Sprintf("Return %d", ret.ID))
	b.click(fmt.Sprintf(`a[href="/console/returns/%d"]`, ret.ID))
	b.expect("The pole is snapped", "to decide")
	b.click(`form[action*="/complaints/"] button[value="APPROVED"]`)
	b.expect("The complaint is decided.", "approved")
	for range ret.Items {
		b.click(`form[action$="/items"] button[value="approve"]`)
		b.expect("The item is reported.")
	}
	b.click(`form[action$="/refunded"] button`)
	b.expect("The refund is marked refunded.", "paid out")

	// Checkout: sessions against completed orders, promise accuracy.
	b.open("/console/checkout")
	b.expect("Sessions → completed orders", "Completion rate (7 days)", "100.0\u00a0%", "Promise accuracy (30 days)", "north-parcel-point")

	// Operations: readiness; redeliver a webhook, retry the dead event.
	b.open("/console/operations")
	b.expect("Readiness", "Ready", "parcel.booked", "broken-demo-site")
	b.click(`form[action*="/redeliver/"] button`)
	b.expect("The event is queued for delivery again.")
	b.click(`form[action$="/retry"] button`)
	b.expect("The event is queued again.")
	b.logout()
	if got := b.path(); got != "/console/login" {
		t.Errorf("after logout: %s", got)
	}

	// A viewer sees no buttons; a post made by hand is refused.
	b.login(viewer, testPassword)
	b.open(fmt.Sprintf("/console/returns/%d", ret.ID))
	if n := b.eval(`String(document.querySelectorAll("main form").length)`); n != "0" {
		t.Errorf("a viewer's return page has %s forms", n)
	}
	if _, err := chromedp.RunResponse(b.ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const f = document.createElement("form"); f.method = "post"; f.action = "/console/events/x/retry";
		const i = document.createElement("input"); i.name = "csrf"; i.value = document.querySelector(".who input[name=csrf]").value;
		f.append(i); document.body.append(f); f.submit(); })()`)); err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.WaitVisible(chromedp.CSS("h1")))
	b.expect("operator role")
	b.open("/console/overview")
	b.logout()

	// Another site's operator: the first site's order is not found, and
	// its returns are not listed.
	b.login(operator2, testPassword)
	b.open("/console/orders/order-7100")
	b.expect("not found")
	b.open("/console/returns")
	if strings.Contains(b.text("main"), fmt.Sprintf("Return %d", ret.ID)) {
		t.Error("the second site lists the first site's return")
	}

	// A page of another origin posts a form to the console: the browser
	// sends the cookie (same site, other port) but says where it came
	// from, and the post is refused.
	token := b.eval(`document.querySelector(".who input[name=csrf]").value`)
	evil := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!doctype html><h1>Win a prize</h1><form method="post" action="%s/console/logout"><input name="csrf" value="%s"><button id="go">Go</button></form>`, srv.URL, token)
	}))
	defer evil.Close()
	b.do(chromedp.Navigate(evil.URL), chromedp.WaitVisible(chromedp.CSS("#go")))
	b.click("#go")
	b.expect("post is refused")
	b.open("/console/overview")
	if got := b.path(); got != "/console/overview" {
		t.Errorf("the cross-site logout went through: at %s", got)
	}
	b.logout()

	// Guessing: after three wrong passwords the account is locked for
	// the window, the right password too.
	for range 3 {
		b.login(operator2, "guess")
		b.expect("not right")
	}
	b.login(operator2, testPassword)
	b.expect("Too many attempts")
}

// TestConsoleScreenshots saves every page in each language, on a desktop
// and a phone, for a person to look at.
func TestConsoleScreenshots(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	_, ret := shipAndReturn(t, kit, "order-7200")
	// An order with vouchers, so the checkout page shows them.
	if _, err := kit.CheckoutAndShip(t.Context(), deliverykittest.Order{ExternalID: "order-7201", Vouchers: []string{"SPRING10", "welcome-back-2026"}}); err != nil {
		t.Fatal(err)
	}
	addDeadEvent(t, kit, kit.Site)
	srv := httptest.NewTLSServer(kit.Handler)
	defer srv.Close()
	b := newBrowser(t, srv.URL)
	dir := browsertest.ScreenshotDir(t)
	pages := []struct{ name, path string }{
		{"overview", "/console/overview"},
		{"checkout", "/console/checkout"},
		{"orders", "/console/orders?q=nothing-like-it"},
		{"order", "/console/orders/order-7200"},
		{"returns", "/console/returns"},
		{"return", fmt.Sprintf("/console/returns/%d", ret.ID)},
		{"operations", "/console/operations"},
		{"notfound", "/console/orders/no-such-order"},
	}
	screens := []struct {
		name string
		w, h int64
	}{{"desktop", 1280, 900}, {"phone", 390, 844}}
	shoot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, lang := range []string{"en-US", "sv-SE", "de-DE"} {
		if _, err := chromedp.Call(b.ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": lang}}); err != nil {
			t.Fatal(err)
		}
		for _, sc := range screens {
			b.do(chromedp.EmulateViewport(sc.w, sc.h))
			b.open("/console/login")
			if got := b.eval(`document.documentElement.lang`); got != lang {
				t.Errorf("page language %q, want %q", got, lang)
			}
			shoot(fmt.Sprintf("console-login-%s-%s.png", lang, sc.name))
			b.login(operator, testPassword)
			for _, pg := range pages {
				b.open(pg.path)
				// Nothing is wider than the screen: wide tables scroll
				// within the page.
				if w := b.eval(`String(document.documentElement.scrollWidth)`); w != fmt.Sprint(sc.w) {
					t.Errorf("%s, %s, %s: the page is %s pixels wide", pg.name, lang, sc.name, w)
				}
				shoot(fmt.Sprintf("console-%s-%s-%s.png", pg.name, lang, sc.name))
			}
			b.open("/console/overview")
			b.logout()
		}
	}
}
