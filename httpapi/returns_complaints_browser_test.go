package httpapi

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/deliverykit/deliverykit/returns"
)

// TestReturnComplaintsInBrowser shows the status page with the lines'
// reasons from the catalog in the page's language, a complaint with its
// photo (served by its signed URL), and a line's complaint form, which
// the browser fills in and submits with a photo from disk: the plain form
// works without script, and the page shows the new complaint afterwards.
func TestReturnComplaintsInBrowser(t *testing.T) {
	ctx := newBrowser(t)
	s, svc, _ := newComplaintsServer(t)
	srv := httptest.NewServer(s.handler)
	defer srv.Close()

	if _, err := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{
			{ForeignLineItemID: "L1", SKU: "JACKET-M", ProductTitle: "Jacka", VariantTitle: "M", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "1299.90"}},
			{ForeignLineItemID: "L2", SKU: "MUG", ProductTitle: "Mugg", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "149.00"}},
		}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com", Locale: "sv-SE",
		Items: []returns.CustomerReturnItemInput{
			{ForeignLineItemID: "L1", Quantity: 1, ReasonID: "size", SubReasonID: "too-small", Complaint: &returns.ComplaintInput{ReasonID: "damaged", Text: "Dragkedjan är trasig."}},
			{ForeignLineItemID: "L2", Quantity: 1, Reason: "Passade inte"},
		}})
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080"+returns.StatusPagePath)
	if _, err := svc.AddComplaintPhotos(ctx, token, 1, returns.ComplaintUpload{Images: []returns.UploadedImage{{Field: "image[0]", Data: testPNG(t, 160, 120)}}}); err != nil {
		t.Fatal(err)
	}
	pageURL := srv.URL + returns.StatusPagePath + token
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	got := returnsPageTexts(t, ctx, pageURL, "#items", "#complaint-1 .complaint-reason", "#complaint-1 .complaint-status", "#complaint-1 .complaint-text",
		"#reason-2")
	for sel, want := range map[string]string{
		"#items": "Fel storlek – För liten", "#complaint-1 .complaint-reason": "Skadad vid leverans", "#complaint-1 .complaint-status": "Granskas",
		"#complaint-1 .complaint-text": "Dragkedjan är trasig.",
		"#reason-2":                    "Fungerar inte", // the catalog's complaint reasons, in Swedish
	} {
		if !strings.Contains(got[sel], want) {
			t.Errorf("%s: %q, want it to contain %q", sel, got[sel], want)
		}
	}
	if !strings.Contains(got["#items"], "Passade inte") {
		t.Errorf("own words missing: %q", got["#items"])
	}
	// The photo is loaded through its signed URL under the page's policy.
	loaded := func(sel string) bool {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const i = document.querySelector(`+"`"+sel+"`"+`); return !!i && i.complete && i.naturalWidth > 0 })()`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#complaint-1 .photos img"))); err != nil {
		t.Fatal(err)
	}
	if !loaded("#complaint-1 .photos img") {
		t.Error("the complaint photo did not load")
	}
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
	shoot("return-page-complaints-sv.png")

	// The customer complains about the mug with the page's form.
	file := filepath.Join(t.TempDir(), "mugg.png")
	if err := os.WriteFile(file, testPNG(t, 120, 160), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS("#reason-2"), "faulty"),
		chromedp.SendKeys(chromedp.CSS("#text-2"), "Spricka i botten"),
		chromedp.SetUploadFiles(chromedp.CSS("#image-2"), []string{file}),
		chromedp.Click(chromedp.CSS("#complaint-2 button")),
		chromedp.WaitVisible(chromedp.CSS("#complaint-2 .photos img")),
	); err != nil {
		t.Fatal(err)
	}
	got = returnsPageTexts(t, ctx, pageURL, "#complaint-2 .complaint-reason", "#complaint-2 .complaint-text")
	if got["#complaint-2 .complaint-reason"] != "Fungerar inte" || got["#complaint-2 .complaint-text"] != "Spricka i botten" {
		t.Errorf("after the form: %q", got)
	}
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS("#complaint-2 .photos img"))); err != nil {
		t.Fatal(err)
	}
	if !loaded("#complaint-2 .photos img") {
		t.Error("the uploaded photo did not load")
	}
	shoot("return-page-complaints-sv-after.png")

	// A file that is not a photo is refused, and the page says so.
	notes := filepath.Join(t.TempDir(), "kvitto.png")
	if err := os.WriteFile(notes, []byte("Kvitto: 149,00 kr"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetUploadFiles(chromedp.CSS("#image-1"), []string{notes}),
		chromedp.Click(chromedp.CSS("#complaint-1 button")),
		chromedp.WaitVisible(chromedp.CSS("#complaint-error-1")),
	); err != nil {
		t.Fatal(err)
	}
	got = returnsPageTexts(t, ctx, pageURL+"?complaint_error=1", "#complaint-error-1")
	if !strings.Contains(got["#complaint-error-1"], "kunde inte läggas till") {
		t.Errorf("refusal: %q", got)
	}
	shoot("return-page-complaints-sv-refused.png")
}
