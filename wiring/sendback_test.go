package wiring_test

import (
	"bytes"
	"encoding/base64"
	"html"
	"image"
	"image/png"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// page is a GET of a customer page: status, content type, body.
func (e env) page(path string, header map[string]string) (int, string, string) {
	e.t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	return rec.Code, rec.Header().Get("Content-Type"), rec.Body.String()
}

var (
	dropOffRow  = regexp.MustCompile(`<tr><td><strong>([^<]*)</strong><br>[^<]*</td><td class="num">([^<]*)</td>`)
	labelLink   = regexp.MustCompile(`<a class="button" id="label" href="([^"]+)"`)
	trackingNum = regexp.MustCompile(`<span id="tracking-number">([^<]+)</span>`)
	qrData      = regexp.MustCompile(`<img src="data:image/png;base64,([^"]+)" width="(\d+)"`)
)

// TestReturnPageSendBack follows a customer from checkout to sending the
// parcel back, over HTTP with the demo configuration: the checkout's
// address and language reach the return, whose status page lists the
// return carrier's drop-off points nearest to the address with their
// hours, links to a return label booked (through the outbox, before the
// customer's request is answered) as a RETURN shipment tracked under the
// outbound order (a PDF whose barcode and QR code carry the tracking
// number, and which prints the customer's name as written), and books it
// once however often the page is opened.
func TestReturnPageSendBack(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test/", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	status, body := e.do("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "order-88", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`)
	if status != 200 {
		t.Fatalf("session.create: %d %v", status, body)
	}
	status, body = e.do("POST", "/v1/siw/session.complete", bearer, `{"id": "`+get(body, "session", "id").(string)+`", "customer": {"email": "lukasz@example.com",
		"address": {"name": "Łukasz Żółć", "street": "Drottninggatan", "street_number": "5", "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	if status != 200 {
		t.Fatalf("session.complete: %d %v", status, body)
	}
	status, body = e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-88",
		"email": "lukasz@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1}]}`)
	if status != 201 {
		t.Fatalf("customer return: %d %v", status, body)
	}
	pagePath := strings.TrimPrefix(body["statusUrl"].(string), "http://shop.test")
	returnID := uint64(body["id"].(float64))

	// The page speaks the checkout's language, whatever the browser says.
	code, ctype, page := e.page(pagePath, map[string]string{"Accept-Language": "en"})
	if code != 200 || !strings.HasPrefix(ctype, "text/html") || !strings.Contains(page, `<html lang="sv-SE">`) || !strings.Contains(page, "Så skickar du tillbaka paketet") {
		t.Fatalf("status page %d %s:\n%s", code, ctype, page)
	}
	var points [][2]string
	for _, m := range dropOffRow.FindAllStringSubmatch(page, -1) {
		points = append(points, [2]string{html.UnescapeString(m[1]), m[2]})
	}
	// The five North Parcel points nearest to 111 57 (placed by the
	// catalog's postal data), nearest first; no other carrier's.
	want := [][2]string{{"Kiosk Sergels Torg", "0 m"}, {"Service Point Östermalm", "1,3 km"}, {"Kiosk Kungsholmen", "1,4 km"},
		{"Grocer Vasastan", "1,7 km"}, {"Grocer Södermalm", "2,1 km"}}
	if diff := cmp.Diff(want, points); diff != "" {
		t.Errorf("drop-off points (-want +got):\n%s", diff)
	}
	for _, w := range []string{"<li>Mån–Sön 07:00–22:00</li>", "<li>Mån–Fre 08:00–20:00</li><li>Lör 10:00–16:00</li><li>Sön stängt</li>"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks the opening hours %q", w)
		}
	}

	// The label: booked as a RETURN shipment, tracked, on the page as a
	// link under the page's token and as a QR code.
	sh, err := svcs.Shipment.Get(t.Context(), "demo-site", shipment.GetShipmentQuery{ExternalID: returns.ShipmentExternalID(returnID)})
	if err != nil {
		t.Fatal(err)
	}
	tn := sh.Parcels[0].Deliveries[0].TrackingNumber
	if sh.DirectionType != shipment.DirectionReturn || sh.Sender.Name != "Łukasz Żółć" || sh.Receiver.Address.City != "Stockholm" || tn == "" ||
		sh.Reference != "order-88" {
		t.Errorf("return shipment: %+v", sh)
	}
	if m := trackingNum.FindStringSubmatch(page); m == nil || m[1] != tn {
		t.Errorf("page shows tracking number %v, want %s", m, tn)
	}
	// Tracked under the outbound order (its external_id and tos_id), as
	// a RETURN parcel.
	status, body = e.do("GET", "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number="+tn, bearer, "")
	if status != 200 || get(body, "external_id") != "order-88" || get(body, "parcels", 0, "tracking_number") != tn {
		t.Errorf("the return parcel is not tracked under the outbound order: %d %v", status, body)
	}
	tos := get(body, "tos_id")
	status, body = e.do("GET", "/v1/delivery_tracking/orders?site_id=demo-site&external_id=order-88", bearer, "")
	var directions []any
	for _, p := range get(body, "orders", 0, "parcels").([]any) {
		if p.(map[string]any)["tracking_number"] == tn {
			directions = append(directions, p.(map[string]any)["direction_type"])
		}
	}
	if status != 200 || get(body, "orders", 0, "tos_id") != tos || cmp.Diff([]any{"RETURN"}, directions) != "" {
		t.Errorf("the outbound order's parcels: %d %v", status, body)
	}
	if got := scanPageQR(t, page); got != tn {
		t.Errorf("QR code reads %q, want %s", got, tn)
	}
	m := labelLink.FindStringSubmatch(page)
	if m == nil || m[1] != pagePath+"/label.pdf" {
		t.Fatalf("label link %v, want %s/label.pdf", m, pagePath)
	}
	code, ctype, pdf := e.page(html.UnescapeString(m[1]), nil)
	if code != 200 || ctype != "application/pdf" || !strings.HasPrefix(pdf, "%PDF") {
		t.Fatalf("label: %d %s %.20q", code, ctype, pdf)
	}
	if err := labeltest.CheckPDF([]byte(pdf)); err != nil {
		t.Fatal(err)
	}
	if codes, err := labeltest.PDFBarcodes([]byte(pdf)); err != nil || cmp.Diff([]string{tn}, codes) != "" {
		t.Errorf("label barcodes %v, %v; want %s", codes, err, tn)
	}
	texts, err := labeltest.Texts([]byte(pdf))
	if err != nil || !slices.Contains(texts, "Łukasz Żółć") || !slices.Contains(texts, "Drottninggatan 5") || !slices.Contains(texts, "Demo Outdoor Store") {
		t.Errorf("label text %q, %v", texts, err)
	}
	if missing, err := labeltest.MissingGlyphs([]byte(pdf)); err != nil || len(missing) > 0 {
		t.Errorf("label lacks glyphs for %q, %v", string(missing), err)
	}

	// Opening the page again books nothing more; another token is not
	// the way to this label.
	e.page(pagePath, nil)
	if again, err := svcs.Shipment.Get(t.Context(), "demo-site", shipment.GetShipmentQuery{ExternalID: returns.ShipmentExternalID(returnID)}); err != nil ||
		again.ID != sh.ID || again.Parcels[0].Deliveries[0].TrackingNumber != tn {
		t.Errorf("after a second view: %+v, %v", again, err)
	}
	if code, _, _ := e.page(returns.StatusPagePath+"rt_unknown/label.pdf", nil); code != 404 {
		t.Errorf("label of an unknown token: %d", code)
	}
}

// scanPageQR decodes the page's QR code as a phone would see it: the PNG
// at the size the page shows it, each pixel a square.
func scanPageQR(t *testing.T, page string) string {
	t.Helper()
	m := qrData.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no QR code on the page")
	}
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	shown, _ := strconv.Atoi(m[2])
	scale := max(shown/img.Bounds().Dx(), 1)
	big := image.NewGray(image.Rect(0, 0, img.Bounds().Dx()*scale, img.Bounds().Dy()*scale))
	for y := range big.Bounds().Dy() {
		for x := range big.Bounds().Dx() {
			big.Set(x, y, img.At(x/scale, y/scale))
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(big)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("the QR code does not scan: %v", err)
	}
	return res.GetText()
}
