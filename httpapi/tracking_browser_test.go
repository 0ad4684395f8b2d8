package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTrackingPageInBrowser registers an order over HTTP, reports a few
// carrier events, generates a Swedish tracking link and opens it in
// Chromium on a phone-sized screen, asserting what the customer sees.
func TestTrackingPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	e := newTrackingEnvPortal(t, srv.URL)
	h = e.h(t)
	e.mustOrder(t)
	key := authed("demo-key")
	for _, b := range []string{
		`{"tracking_number": "TN1", "time": "2026-11-22T07:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T08:00:00Z", "step": "STEP_ON_ROUTE", "estimated_time": {"start": "2026-11-23T08:00:00Z", "end": "2026-11-23T18:00:00Z"}}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "alert": "ALERT_DELIVERY_ATTEMPT_FAILED", "estimated_time": {"start": "2026-11-24T08:00:00Z", "end": "2026-11-24T18:00:00Z"}}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T09:30:00Z", "step": "STEP_DELIVERED_TO_PICKUP_POINT"}`,
	} {
		if resp, body := (call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key, body: b}).do(t, h); resp.StatusCode != 200 {
			t.Fatalf("event: %d %v", resp.StatusCode, body)
		}
	}
	// Another site's order, which the page must never show.
	other := strings.NewReplacer(`"demo-site"`, `"demo-site-2"`, "ORD-1", "OTHER-9", "Alva Berg", "Bo Ek").Replace(orderBody)
	if resp, body := (call{method: "POST", path: "/v1/delivery_tracking/order", header: authed("demo-key-2"), body: other}).do(t, h); resp.StatusCode != 200 {
		t.Fatalf("other order: %d %v", resp.StatusCode, body)
	}
	_, body := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: key,
		body: `{"tracking_number": "TN1", "locale": "sv-SE"}`}.do(t, h)
	link, _ := body["tracking_link"].(string)
	if !strings.HasPrefix(link, srv.URL) {
		t.Fatalf("link = %q", link)
	}

	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(375, 740),
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-step"]`)),
	); err != nil {
		t.Fatal(err)
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	heading, current := text(`[data-testid="order"]`), text(`[data-testid="current-step"]`)
	carrier, location, hours := text(`[data-testid="carrier"]`), text(`[data-testid="location"]`), text(`[data-testid="hours"]`)
	alerts := evalJS[string](t, ctx, `Array.from(document.querySelectorAll('[data-testid="alert"]')).map(e => e.textContent).join("|")`)
	href := evalJS[string](t, ctx, `document.querySelector('[data-testid="carrier-link"]').href`)
	steps := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid="timeline"] li').length`)
	lang := evalJS[string](t, ctx, `document.documentElement.lang`)
	overflow := evalJS[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`)
	page := evalJS[string](t, ctx, `document.body.innerText`)
	checks := []struct{ what, got, want string }{
		{"heading", heading, "Beställning ORD-1"},
		{"current step", current, "Redo att hämtas"},
		{"current step time", current, "2026-11-22 09:30"},
		{"alerts", alerts, "Transportören kunde inte leverera paketet. Ett nytt försök görs."},
		{"alerts", alerts, "Den beräknade leveranstiden har ändrats."},
		{"carrier", carrier, "FastPost"},
		{"expected delivery", text(`[data-testid="eta"]`), "2026-11-24 08:00–18:00"},
		{"location", location, "Kiosk Central"},
		{"hours", hours, "10:00-18:00"},
		{"hours", hours, "Stängt"},
		{"carrier link", href, "https://track.example/fp?id=TN1"},
		{"lang", lang, "sv"},
		{"page", page, "Historik"},
		{"items", page, "2 × Mug"},
	}
	for _, c := range checks {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s = %q, want it to contain %q", c.what, c.got, c.want)
		}
	}
	if steps != 3 {
		t.Errorf("timeline has %d steps, want 3", steps)
	}
	if overflow {
		t.Error("the page overflows a 375 px phone screen")
	}
	for _, secret := range []string{"alva@example.com", "OTHER-9", "Bo Ek"} {
		if strings.Contains(page, secret) {
			t.Errorf("the page shows %q", secret)
		}
	}

	// A mistyped link shows a localized not-found page.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/v1/delivery_tracking/_/page/tt_wrong?locale=de-DE")); err != nil {
		t.Fatal(err)
	}
	notFound := text(`[data-testid="not-found"]`)
	if notFound != "Dieser Sendungslink ist ungültig." {
		t.Errorf("not-found text = %q", notFound)
	}
}

// evalJS evaluates a JavaScript expression in the page and returns its
// value as T.
func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}
