package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestWidgetInEveryLanguageAndScheme renders the widget of a Swedish,
// German and English checkout on a phone and a desktop, light and dark,
// saves a screenshot of each, and checks that no text of another language
// shows and that it fits the phone's width.
func TestWidgetInEveryLanguageAndScheme(t *testing.T) {
	ctx := newBrowser(t)
	api := newWidgetAPI(t)
	doc := checkoutAPI(t)
	dir := screenshotDir(t)

	english := []string{"Opening hours", "Shipping:", "on foot", "by car", "Delivery options", "closed"}
	tests := []struct {
		locale string
		want   []string // texts of the language that must show
		banned []string // texts of another language that must not
	}{
		{"sv-SE", []string{"Frakt:", "till fots", "Öppettider"}, english},
		{"de-DE", []string{"Versand:", "zu Fuß", "Öffnungszeiten"}, english},
		{"en-US", []string{"Shipping:", "on foot", "Opening hours"}, []string{"Frakt", "Versand"}},
	}
	var page string
	merchant := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	}))
	defer merchant.Close()
	for _, tc := range tests {
		body := strings.Replace(siwCreate, `"sv-SE"`, `"`+tc.locale+`"`, 1)
		created := siwHTTP(t, doc, "POST", api.URL+"/v1/siw/session.create", body)
		page = `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Checkout</title></head><body style="margin:0;padding:8px;font-family:sans-serif">` + created["html_snippet"].(string) + `</body></html>`
		for _, v := range []struct {
			name   string
			width  int64
			height int64
		}{{"phone", 390, 844}, {"desktop", 1024, 900}} {
			for _, scheme := range []string{"light", "dark"} {
				name := fmt.Sprintf("widget-%s-%s-%s.png", tc.locale, v.name, scheme)
				if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
					Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
					t.Fatal(err)
				}
				err := chromedp.Do(ctx,
					chromedp.EmulateViewport(v.width, v.height),
					chromedp.Navigate(merchant.URL),
					chromedp.WaitVisible(chromedp.CSS(".dk-widget .dk-total")),
				)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// The first location's opening hours open, as a shopper
				// checking them sees the widget.
				text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".dk-widget details").open = true; document.querySelector(".dk-widget").innerText`))
				if err != nil {
					t.Fatal(err)
				}
				overflow, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
				if err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
					t.Fatal(err)
				}
				for _, w := range tc.want {
					if !strings.Contains(text, w) {
						t.Errorf("%s: %q does not show", name, w)
					}
				}
				for _, b := range tc.banned {
					if strings.Contains(text, b) {
						t.Errorf("%s: shows %q, another language's text", name, b)
					}
				}
				if overflow {
					t.Errorf("%s: wider than the screen", name)
				}
			}
		}
	}
	t.Logf("screenshots in %s", dir)
}
