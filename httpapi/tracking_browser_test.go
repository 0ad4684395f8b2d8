package httpapi

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTrackingPageInBrowser registers an order over HTTP, reports a few
// carrier events, generates a Swedish tracking link and opens it in
// Chromium on a phone-sized screen, asserting what the customer sees; it
// saves screenshots of the page in Swedish, German and English (see
// screenshotDir), then lets the parcel reach its pickup point and
// sees the alerts go.
func TestTrackingPageInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	defer srv.Close()
	e := newTrackingEnvPortal(t, srv.URL) // the clock: 2026-11-22 10:00 UTC
	h = e.h(t)
	e.mustOrder(t)
	key := authed("demo-key")
	event := func(b string) {
		t.Helper()
		if resp, body := (call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key, body: b}).do(t, h); resp.StatusCode != 200 {
			t.Fatalf("event: %d %v", resp.StatusCode, body)
		}
	}
	for _, b := range []string{
		`{"tracking_number": "TN1", "time": "2026-11-22T07:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T08:00:00Z", "step": "STEP_ON_ROUTE", "estimated_time": {"start": "2026-11-23T08:00:00Z", "end": "2026-11-23T18:00:00Z"}}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "alert": "ALERT_DELIVERY_ATTEMPT_FAILED", "estimated_time": {"start": "2026-11-24T08:00:00Z", "end": "2026-11-24T18:00:00Z"}}`,
	} {
		event(b)
	}
	// Another site's order, which the page must never show.
	other := strings.NewReplacer(`"demo-site"`, `"demo-site-2"`, "ORD-1", "OTHER-9", "Alva Berg", "Bo Ek").Replace(orderBody)
	if resp, body := (call{method: "POST", path: "/v1/delivery_tracking/order", header: authed("demo-key-2"), body: other}).do(t, h); resp.StatusCode != 200 {
		t.Fatalf("other order: %d %v", resp.StatusCode, body)
	}
	_, body := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: key,
		body: `{"tracking_number": "TN1", "locale": "sv-SE"}`}.do(t, h)
	link, _ := body["tracking_link"].(string)
	if !strings.HasPrefix(link, srv.URL) || !strings.HasSuffix(link, "?locale=sv-SE&tracking_number=TN1") {
		t.Fatalf("link = %q", link)
	}
	open := func(url string) {
		t.Helper()
		if err := chromedp.Do(ctx,
			chromedp.EmulateViewport(375, 740),
			chromedp.Navigate(url),
			chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-step"]`)),
		); err != nil {
			t.Fatal(err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return v
	}
	alerts := func() string {
		return evalJS[string](t, ctx, `Array.from(document.querySelectorAll('[data-testid="alert"]')).map(e => e.textContent).join("|")`)
	}
	check := func(checks []struct{ what, got, want string }) {
		t.Helper()
		for _, c := range checks {
			if !strings.Contains(c.got, c.want) {
				t.Errorf("%s = %q, want it to contain %q", c.what, c.got, c.want)
			}
		}
	}

	// On its way, after a failed attempt: both alerts are current. Times
	// are Swedish (UTC+1 in November).
	dir := screenshotDir(t)
	for _, v := range []struct{ lang, url, step, time, eta, zone, alert string }{
		{"sv", link, "På väg", "22 nov. 2026 09:00", "24 nov. 2026 09:00–19:00", "Alla tider är svensk tid (CET).", "Transportören kunde inte leverera paketet. Ett nytt försök görs."},
		{"de", strings.Replace(link, "sv-SE", "de-DE", 1), "Unterwegs", "22. Nov. 2026, 09:00", "24. Nov. 2026, 09:00–19:00", "Alle Zeitangaben in schwedischer Zeit (CET).", "Das Paket konnte nicht zugestellt werden."},
		{"en", strings.Replace(link, "sv-SE", "en-US", 1), "On its way", "Nov 22, 2026, 9:00\u00a0AM", "Nov 24, 2026, 9:00\u00a0AM\u2009–\u20097:00\u00a0PM", "All times are Swedish time (CET).", "The carrier could not deliver the parcel."},
	} {
		open(v.url)
		check([]struct{ what, got, want string }{
			{v.lang + " lang", evalJS[string](t, ctx, `document.documentElement.lang`), v.lang},
			{v.lang + " current step", text(`[data-testid="current-step"]`), v.step},
			{v.lang + " current step time", text(`[data-testid="current-step"]`), v.time},
			{v.lang + " time zone", text(`[data-testid="time-zone"]`), v.zone},
			{v.lang + " alerts", alerts(), v.alert},
			{v.lang + " expected delivery", text(`[data-testid="eta"]`), v.eta},
		})
		if n := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid="alert"]').length`); n != 2 {
			t.Errorf("%s: %d alerts, want 2 (attempt failed, estimate changed)", v.lang, n)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		saveTrackingScreenshot(t, dir, "tracking-page-"+v.lang+".png", png)
	}

	// At the pickup point: the alerts no longer apply.
	event(`{"tracking_number": "TN1", "time": "2026-11-22T09:30:00Z", "step": "STEP_DELIVERED_TO_PICKUP_POINT"}`)
	open(link)
	heading, current := text(`[data-testid="order"]`), text(`[data-testid="current-step"]`)
	carrier, location, hours := text(`[data-testid="carrier"]`), text(`[data-testid="location"]`), text(`[data-testid="hours"]`)
	href := evalJS[string](t, ctx, `document.querySelector('[data-testid="carrier-link"]').href`)
	steps := evalJS[int](t, ctx, `document.querySelectorAll('[data-testid="timeline"] li').length`)
	overflow := evalJS[bool](t, ctx, `document.documentElement.scrollWidth > window.innerWidth`)
	page := evalJS[string](t, ctx, `document.body.innerText`)
	check([]struct{ what, got, want string }{
		{"heading", heading, "Beställning ORD-1"},
		{"current step", current, "Redo att hämtas"},
		{"current step time", current, "22 nov. 2026 10:30"},
		{"carrier", carrier, "FastPost"},
		{"location", location, "Kiosk Central"},
		{"hours", hours, "10:00-18:00"},
		{"hours", hours, "Stängt"},
		{"carrier link", href, "https://track.example/fp?id=TN1"},
		{"page", page, "Historik"},
		{"items", page, "2 × Mug"},
	})
	if got := alerts(); got != "" {
		t.Errorf("alerts after the parcel reached the pickup point: %q", got)
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

// saveTrackingScreenshot checks that b is a PNG of a phone-wide page and
// writes it to dir/name.
func saveTrackingScreenshot(t *testing.T, dir, name string, b []byte) {
	t.Helper()
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: not a PNG: %v", name, err)
	}
	if cfg.Width < 375 || cfg.Height < 300 {
		t.Errorf("%s: %d×%d pixels, want a phone-wide page", name, cfg.Width, cfg.Height)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
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
