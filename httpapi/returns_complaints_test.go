package httpapi

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// complaintReasons is demo-site's reason catalog in these tests.
var complaintReasons = returns.StaticReasons{"demo-site": {
	Locales: []string{"en-US", "sv-SE", "de-DE"},
	Return: []catalog.ReturnReason{
		{ID: "size", DisplayName: map[string]string{"en-US": "Wrong size", "sv-SE": "Fel storlek", "de-DE": "Falsche Größe"}, SubReasons: []catalog.SubReason{
			{ID: "too-small", DisplayName: map[string]string{"en-US": "Too small", "sv-SE": "För liten", "de-DE": "Zu klein"}},
		}},
	},
	Complaint: []catalog.ComplaintReason{
		{ID: "damaged", DisplayName: map[string]string{"en-US": "Arrived damaged", "sv-SE": "Skadad vid leverans", "de-DE": "Beschädigt angekommen"}},
		{ID: "faulty", DisplayName: map[string]string{"en-US": "Does not work", "sv-SE": "Fungerar inte", "de-DE": "Funktioniert nicht"}},
	},
}}

// newComplaintsServer is newReturnsServer with the reason catalog, photos
// in memory and a fixed signing secret; it answers the clock too.
func newComplaintsServer(t *testing.T) (*server, *returns.Service, *deliverykit.ManualClock) {
	t.Helper()
	clock := deliverykit.NewManualClock(testTime)
	svc := returns.New(memory.New(), returns.Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{},
		Policies:  returns.StaticPolicies{"demo-site": {WindowDays: 30}},
		Reasons:   complaintReasons,
		Blobs:     &returns.MemoryBlobs{},
		PublicURL: "http://127.0.0.1:8080", ImageURLSecret: bytes.Repeat([]byte{7}, 32),
	})
	s, _ := newTestServer(t, Options{Returns: svc})
	return s, svc, clock
}

func testPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(150 + x%100), G: uint8(60 + y%80), B: 40, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

type formFile struct {
	field, name, contentType string
	data                     []byte
}

// multipartBody is a multipart/form-data body of fields and files.
func multipartBody(t *testing.T, fields map[string]string, files ...formFile) (string, *bytes.Buffer) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		if err := w.WriteField(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+f.field+`"; filename="`+f.name+`"`)
		h.Set("Content-Type", f.contentType)
		p, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		p.Write(f.data)
	}
	w.Close()
	return w.FormDataContentType(), &b
}

// complaintsDo sends a request and validates the answer against the
// returns document.
func complaintsDo(t *testing.T, h http.Handler, req *http.Request) returnsResp {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if err := returnsAPI(t).checkRecorded(req, rec); err != nil {
		t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", req.Method, req.URL, err, rec.Body)
	}
	out := returnsResp{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &out.body); err != nil {
			t.Fatalf("%v in %s", err, out.raw)
		}
	}
	return out
}

// TestReturnsComplaintsHTTP walks every new field over HTTP: an order with
// product variants, a return with catalog reasons and a complaint, the
// customer's photo upload under the status token (sniffed, bounded), the
// signed photo URL (served, then refused when altered or expired) and the
// merchant's decision.
func TestReturnsComplaintsHTTP(t *testing.T) {
	s, _, clock := newComplaintsServer(t)
	h := s.handler
	must := func(r returnsResp, status int) returnsResp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}
	order := `{"foreignId":"A-1","currencyCode":"SEK","email":"anna@example.com","items":[
	  {"foreignLineItemId":"L1","sku":"JACKET-M-BLUE","productTitle":"Jacket","variantTitle":"M / blue","quantity":1,
	   "foreignProductId":"prod-7","foreignVariantId":"var-7-m-blue","properties":[{"type":"size","value":"M"},{"type":"color","value":"blue"}],
	   "purchasePriceAmount":{"amount":1299.90,"itemTax":259.98}},
	  {"foreignLineItemId":"L2","sku":"SOCKS","productTitle":"Socks","quantity":1,"purchasePriceAmount":{"amount":49.00,"itemTax":9.80}}]}`
	o := must(returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", order), 201)
	wantVariant := map[string]any{"id": 1.0, "foreignProductId": "prod-7", "foreignVariantId": "var-7-m-blue", "sku": "JACKET-M-BLUE",
		"productTitle": "Jacket", "variantTitle": "M / blue",
		"properties": []any{map[string]any{"type": "size", "value": "M"}, map[string]any{"type": "color", "value": "blue"}}}
	if diff := cmp.Diff(wantVariant, dig(o.body, "items", 0, "productVariant")); diff != "" {
		t.Errorf("order productVariant (-want +got):\n%s", diff)
	}

	bad := must(returnsDo(t, h, "POST", "/returns/customer/return", "", `{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com",
	  "items":[{"foreignLineItemId":"L1","quantity":1,"reasonId":"colour"}]}`), 400)
	if msg, _ := bad.body["message"].(string); !strings.Contains(msg, "items[0].reasonId") {
		t.Errorf("unknown reason id: %s", bad.raw)
	}
	ret := must(returnsDo(t, h, "POST", "/returns/customer/return", "", `{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com",
	  "items":[{"foreignLineItemId":"L1","quantity":1,"reasonId":"size","subReasonId":"too-small","reason":"tight at the shoulders",
	            "complaint":{"reasonId":"damaged","text":"The zip is torn."}},
	           {"foreignLineItemId":"L2","quantity":1,"reason":"not needed"}]}`), 201)
	wantReasons := []any{map[string]any{"id": "size", "reason": "Wrong size", "subReason": "Too small", "subReasonId": "too-small"},
		map[string]any{"reason": "tight at the shoulders"}}
	if diff := cmp.Diff(wantReasons, dig(ret.body, "items", 0, "returnReasons")); diff != "" {
		t.Errorf("returnReasons (-want +got):\n%s", diff)
	}
	id := strconv.Itoa(int(ret.body["id"].(float64)))
	token := strings.TrimPrefix(ret.body["statusUrl"].(string), "http://127.0.0.1:8080"+returns.StatusPagePath)
	upload := func(item, accept string, fields map[string]string, files ...formFile) returnsResp {
		t.Helper()
		ct, body := multipartBody(t, fields, files...)
		req := httptest.NewRequest("POST", returns.StatusPagePath+token+"/items/"+item+"/complaint", body)
		req.Header.Set("Content-Type", ct)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		return complaintsDo(t, h, req)
	}
	photo := testPNG(t, 8, 8)

	// Refusals name the field.
	refusals := []struct {
		name, item, field string
		fields            map[string]string
		files             []formFile
	}{
		{"HTML declared as PNG", "1", "image[0]", nil, []formFile{{"image", "photo.png", "image/png", []byte("<html><script>alert(1)</script></html>")}}},
		{"second photo not an image", "1", "image[1]", nil, []formFile{{"image", "a.png", "image/png", photo}, {"image", "b.png", "image/png", []byte("%PDF-1.7")}}},
		{"too large", "1", "image[0]", nil, []formFile{{"image", "big.png", "image/png", append(bytes.Clone(photo), make([]byte, returns.MaxComplaintImageBytes)...)}}},
		{"too many", "1", "image", nil, []formFile{{"image", "1.png", "image/png", photo}, {"image", "2.png", "image/png", photo}, {"image", "3.png", "image/png", photo},
			{"image", "4.png", "image/png", photo}, {"image", "5.png", "image/png", photo}, {"image", "6.png", "image/png", photo}}},
		{"unknown complaint reason", "2", "reasonId", map[string]string{"reasonId": "lost"}, []formFile{{"image", "a.png", "image/png", photo}}},
	}
	for _, tc := range refusals {
		r := must(upload(tc.item, "", tc.fields, tc.files...), 400)
		if msg, _ := r.body["message"].(string); !strings.Contains(msg, tc.field+":") {
			t.Errorf("%s: %s, want the message to name %s", tc.name, r.raw, tc.field)
		}
	}
	// A PNG the client calls text/plain is a PNG: the bytes decide.
	item := must(upload("1", "", nil, formFile{"image", "IMG_0001.txt", "text/plain", photo}), 201)
	if dig(item.body, "customerComplaint", "image", "id") != 1.0 || dig(item.body, "customerComplaint", "status") != "PENDING" {
		t.Errorf("uploaded: %s", item.raw)
	}
	// A browser form makes the complaint of line 2 and goes back to the page.
	form := must(upload("2", "text/html,application/xhtml+xml", map[string]string{"reasonId": "faulty", "text": "Holes\r\nafter one wash"},
		formFile{"image", "", "application/octet-stream", nil}, formFile{"image", "holes.png", "image/png", photo}), 303)
	if loc := form.header.Get("Location"); loc != returns.StatusPagePath+token {
		t.Errorf("form answer goes to %q", loc)
	}
	// A refused browser upload goes back to the page, which says so by
	// the line's form.
	refused := must(upload("2", "text/html", nil, formFile{"image", "notes.png", "image/png", []byte("just text")}), 303)
	loc := refused.header.Get("Location")
	if loc != returns.StatusPagePath+token+"?complaint_error=2#complaint-2" {
		t.Errorf("refused form answer goes to %q", loc)
	}
	pg := must(returnsDo(t, h, "GET", strings.TrimSuffix(loc, "#complaint-2"), "", ""), 200)
	if !strings.Contains(pg.raw, `id="complaint-error-2"`) || strings.Contains(pg.raw, `id="complaint-error-1"`) {
		t.Errorf("the page does not show the refusal by line 2's form")
	}

	// The merchant reads every field.
	r := must(returnsDo(t, h, "GET", "/returns/merchant/return/"+id, "demo-key", ""), 200)
	c1, c2 := dig(r.body, "items", 0, "customerComplaint"), dig(r.body, "items", 1, "customerComplaint")
	if diff := cmp.Diff(wantVariant, dig(r.body, "items", 0, "productVariant")); diff != "" {
		t.Errorf("return productVariant (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantReasons, dig(r.body, "items", 0, "returnReasons")); diff != "" {
		t.Errorf("return returnReasons (-want +got):\n%s", diff)
	}
	for _, x := range []struct {
		got, want any
	}{
		{dig(c1, "id"), 1.0}, {dig(c1, "status"), "PENDING"}, {dig(c1, "complaintReason"), map[string]any{"id": "damaged", "reason": "Arrived damaged"}},
		{dig(c1, "complaintText"), "The zip is torn."}, {dig(c1, "image", "id"), 1.0},
		{dig(c2, "complaintReason", "id"), "faulty"}, {dig(c2, "complaintText"), "Holes\nafter one wash"}, {dig(c2, "image", "id"), 2.0},
		{len(dig(c2, "images").([]any)), 1},
	} {
		if !cmp.Equal(x.want, x.got) {
			t.Errorf("complaint field %v, want %v in %s", x.got, x.want, r.raw)
		}
	}
	uuid, _ := dig(c1, "image", "uuid").(string)
	u, err := url.Parse(dig(c1, "image", "downloadUrl").(string))
	if err != nil || u.Path != returns.ComplaintImagePath+uuid || !returns.BlobKeyPattern.MatchString(uuid) {
		t.Fatalf("image %v", dig(c1, "image"))
	}

	// The signed URL serves the photo, with its sniffed type, never
	// sniffed again, cached at most until it expires.
	get := func(target string) returnsResp {
		t.Helper()
		return complaintsDo(t, h, httptest.NewRequest("GET", target, nil))
	}
	img := must(get(u.RequestURI()), 200)
	wantHeaders := map[string]string{"Content-Type": "image/png", "X-Content-Type-Options": "nosniff", "Cache-Control": "private, max-age=3600",
		"Content-Length": strconv.Itoa(len(photo)), "Content-Security-Policy": "sandbox; default-src 'none'", "X-Frame-Options": "DENY"}
	for k, v := range wantHeaders {
		if got := img.header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	if img.raw != string(photo) {
		t.Error("the photo served is not the photo uploaded")
	}
	q := u.Query()
	sig := q.Get("signature")
	// alter changes the first character, whatever it is (upper-casing
	// changes nothing in a signature that starts with digits).
	alter := func(s string) string {
		if s[0] == 'A' {
			return "B" + s[1:]
		}
		return "A" + s[1:]
	}
	altered := []struct{ name, target string }{
		{"altered signature", u.Path + "?expires=" + q.Get("expires") + "&signature=" + alter(sig)},
		{"altered path", returns.ComplaintImagePath + dig(c2, "image", "uuid").(string) + "?" + u.RawQuery},
		{"altered expiry", u.Path + "?expires=" + q.Get("expires") + "9&signature=" + sig},
		{"no signature", u.Path + "?expires=" + q.Get("expires")},
	}
	for _, a := range altered {
		if r := get(a.target); r.status != 403 || r.body["message"] != "the image link is invalid or has expired" {
			t.Errorf("%s: %d %s", a.name, r.status, r.raw)
		}
	}
	clock.Advance(time.Hour)
	if r := get(u.RequestURI()); r.status != 403 {
		t.Errorf("expired URL: %d %s", r.status, r.raw)
	}
	// A fresh view signs a fresh URL.
	r = must(returnsDo(t, h, "GET", "/returns/merchant/return/"+id, "demo-key", ""), 200)
	fresh, _ := url.Parse(dig(r.body, "items", 0, "customerComplaint", "image", "downloadUrl").(string))
	must(get(fresh.RequestURI()), 200)

	// The merchant decides; a decided complaint takes no more photos.
	decide := func(item, body string) returnsResp {
		t.Helper()
		return returnsDo(t, h, "POST", "/returns/merchant/return/"+id+"/items/"+item+"/complaint", "demo-key", body)
	}
	if r := must(decide("1", `{"status":"MAYBE"}`), 400); !strings.Contains(r.body["message"].(string), "status") {
		t.Errorf("bad status: %s", r.raw)
	}
	r = must(decide("1", `{"status":"APPROVED"}`), 200)
	if got := dig(r.body, "items", 0, "customerComplaint", "status"); got != "APPROVED" {
		t.Errorf("decided: %v", got)
	}
	must(decide("1", `{"status":"REJECTED"}`), 400)
	must(decide("2", `{"status":"REJECTED"}`), 200)
	must(returnsDo(t, h, "POST", "/returns/merchant/return/"+id+"/items/1/complaint", "", `{"status":"APPROVED"}`), 401)
	must(upload("1", "", nil, formFile{"image", "late.png", "image/png", photo}), 400)
	must(upload("9", "", nil, formFile{"image", "a.png", "image/png", photo}), 404)
}

// TestComplaintUploadLimits proves the upload's body limit applies before
// parsing and that the API's smaller limit does not cut uploads short.
func TestComplaintUploadLimits(t *testing.T) {
	s, svc, _ := newComplaintsServer(t)
	ctx := t.Context()
	if _, err := svc.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "A-1", CurrencyCode: "SEK", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "L1", SKU: "X", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "10"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1, Complaint: &returns.ComplaintInput{ReasonID: "damaged"}}}})
	if err != nil {
		t.Fatal(err)
	}
	path := strings.TrimPrefix(ret.StatusURL, "http://127.0.0.1:8080") + "/items/1/complaint"
	// Three photos of about 2 MB: over the API's 1 MiB, under the upload's limit.
	big := append(testPNG(t, 8, 8), make([]byte, 2<<20)...)
	ct, body := multipartBody(t, nil, formFile{"image", "1.png", "image/png", big}, formFile{"image", "2.png", "image/png", big}, formFile{"image", "3.png", "image/png", big})
	req := httptest.NewRequest("POST", path, body)
	req.Header.Set("Content-Type", ct)
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 201 {
		t.Fatalf("6 MB upload: %d %s", rec.Code, rec.Body)
	}
	tests := []struct {
		name   string
		length int64
		body   string
		ct     string
		status int
	}{
		{"declared length over the limit", complaintUploadLimit + 1, "", ct, 413},
		{"body over the limit", -1, strings.Repeat("x", complaintUploadLimit+1), ct, 413},
		{"not multipart", -1, `{"reasonId":"damaged"}`, "application/json", 400},
	}
	for _, tc := range tests {
		req := httptest.NewRequest("POST", path, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", tc.ct)
		if tc.length >= 0 {
			req.ContentLength = tc.length
		}
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s: %d %s", tc.name, rec.Code, rec.Body)
		}
	}
	// Other endpoints keep the API's limit.
	req = httptest.NewRequest("POST", "/returns/customer/return", strings.NewReader(strings.Repeat(" ", DefaultMaxBodyBytes+1)))
	rec = httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Errorf("return request over 1 MiB: %d", rec.Code)
	}
}
