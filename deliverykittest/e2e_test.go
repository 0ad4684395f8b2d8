package deliverykittest_test

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/returns"
)

// walker calls the kit's HTTP APIs as a merchant's code and a customer's
// browser do, and decodes the answers.
type walker struct {
	t   *testing.T
	kit *deliverykittest.Kit
}

// call sends body (JSON, or raw bytes with contentType) and returns the
// status, the headers and the decoded answer (a string when not JSON).
func (w walker) call(method, path, contentType string, body []byte, header map[string]string) (int, http.Header, any) {
	w.t.Helper()
	req, err := http.NewRequestWithContext(w.t.Context(), method, deliverykittest.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := w.kit.Client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		w.t.Fatal(err)
	}
	var v any
	if len(raw) > 0 && json.Unmarshal(raw, &v) != nil {
		v = string(raw)
	}
	return resp.StatusCode, resp.Header, v
}

// json calls with a JSON body and wants 200 or 201.
func (w walker) json(method, path string, body any, header map[string]string) any {
	w.t.Helper()
	var b []byte
	ct := ""
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			w.t.Fatal(err)
		}
		ct = "application/json"
	}
	status, _, v := w.call(method, path, ct, b, header)
	if status != http.StatusOK && status != http.StatusCreated {
		w.t.Fatalf("%s %s: %d %v", method, path, status, v)
	}
	return v
}

// tracking calls area A or B with the site's bearer key.
func (w walker) tracking(method, path string, body any) any {
	w.t.Helper()
	return w.json(method, "/v1/delivery_tracking"+path, body, map[string]string{"Authorization": w.kit.BearerAuth(w.kit.Site)})
}

// returns calls area E's merchant API with the site's key.
func (w walker) returns(method, path string, body any) any {
	w.t.Helper()
	return w.json(method, "/returns"+path, body, map[string]string{"x-api-key": w.kit.APIKey(w.kit.Site)})
}

// advance moves the kit's clock, running what falls due.
func (w walker) advance(d time.Duration) {
	w.t.Helper()
	if err := w.kit.Advance(w.t.Context(), d); err != nil {
		w.t.Fatal(err)
	}
}

// expect fails for every field of fields that doc never populates, but
// for the ones exemptFields names.
func (w walker) expect(what string, doc any, fields []string) {
	w.t.Helper()
	for _, f := range fields {
		if exempt(f) == "" && !populated(doc, f) {
			w.t.Errorf("%s: %s is never populated", what, f)
		}
	}
}

// value is the first value path reaches in doc.
func value(doc any, path string) any {
	if vs := reached(doc, path); len(vs) > 0 {
		return vs[0]
	}
	return nil
}

func text(doc any, path string) string {
	s, _ := value(doc, path).(string)
	return s
}

func number(doc any, path string) uint64 {
	f, _ := value(doc, path).(float64)
	return uint64(f)
}

// photo is a small PNG, as a phone would upload.
func photo(t *testing.T) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	img.Set(3, 3, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var (
	home = map[string]any{"name": "Anna Svensson", "address_lines": []string{"Storgatan 1"}, "street": "Storgatan", "street_number": "1",
		"postal_code": "111 57", "city": "Stockholm", "country": "SE", "coordinates": map[string]any{"lat": 59.3326, "lng": 18.0649}}
	day   = []any{map[string]any{"start": "07:00:00", "end": "22:00:00"}}
	week  = map[string]any{"mon": day, "tue": day, "wed": day, "thu": day, "fri": day, "sat": day, "sun": day}
	kiosk = map[string]any{"name": "Kiosk Sergels Torg", "address_lines": []string{"Sergels torg 12"}, "postal_code": "111 57",
		"city": "Stockholm", "country": "SE", "coordinates": map[string]any{"lat": 59.3326, "lng": 18.0649},
		"street": "Sergels torg", "street_number": "12", "building_name": "Kulturhuset", "floor_number": "0", "apartment_number": "K1",
		"attn": "Parcel desk", "care_of": "Pressbyrån", "door_code": "1234", "po_box_id": "PB 12", "region": "Stockholms län", "subregion": "SE-AB"}
)

// TestEveryFieldOverHTTP walks an order through every area as a merchant
// and a customer meet it, over HTTP only: the outbound order and its two
// parcels (one with an exception, an alert carrying a payload and a
// cancelled line, one whose carrier never reports), the customer's
// notifications, then a return with a complaint photo whose label is
// booked by event, carried by the carrier to the warehouse, inspected
// and refunded (PENDING, then SUCCESS), and an exchange. At the end every
// field the interface lists for tracking, notifications and returns is
// read back with a meaningful value, except those exemptFields names.
func TestEveryFieldOverHTTP(t *testing.T) {
	// The demo policy, with a handling cost and a price for exchanges.
	cfg := config.Demo()
	pol := cfg.Sites[0].Catalog.ReturnPolicy
	pol.ReturnHandlingCost, pol.ExchangeCost = 1500, 2900
	kit := deliverykittest.Start(t, deliverykittest.Options{Config: cfg, Refunds: &returns.DemoRefundsOptions{Delay: 2 * time.Hour}})
	w := walker{t, kit}
	site, start := kit.Site, kit.Clock.Now()
	at := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339) }

	// The merchant registers the order and its two parcels with tracking.
	created := w.tracking("POST", "/order", map[string]any{
		"site_id": site, "external_id": "10071", "carrier_product_ref": "north-parcel-point", "delivery_type": "PICKUP",
		"sender":      map[string]any{"name": "Demo Outdoor Store", "address": map[string]any{"city": "Stockholm", "country": "SE"}},
		"receiver":    map[string]any{"name": "Anna Svensson", "address": home, "billing_address": home, "email": "anna@example.com", "phone_number": "+46701234567"},
		"destination": map[string]any{"address": kiosk, "location_external_id": "NPSE1010", "location_type": "MANNED", "operational_hours": week},
		"cart": map[string]any{"currency": "SEK", "total": 398800, "discount": 24900, "shipping_price": 4900, "tax": 79760, "items": []any{
			map[string]any{"sku": "TENT-2P", "name": "Tent, 2 persons", "quantity": 2, "price": 189900, "discount": 10000, "image": "https://shop.example/tent.jpg"},
			map[string]any{"sku": "MUG", "name": "Enamel mug", "quantity": 1, "price": 19000, "discount": 0, "image": "https://shop.example/mug.jpg"},
		}},
		"promises":               map[string]any{"estimated_delivery_time": map[string]any{"start": at(24 * time.Hour), "end": at(72 * time.Hour)}},
		"merchant_tracking_link": "https://shop.example/orders/10071",
	})
	tosID := text(created, "id")
	pickup := map[string]any{"id": "NPSE1010", "address": kiosk, "location_type": "MANNED"}
	for _, p := range []map[string]any{
		{"tracking_number": "NP100000001SE", "line_items": []any{
			map[string]any{"sku": "TENT-2P", "name": "Tent, 2 persons", "quantity": 2, "price": 189900, "discount": 10000, "currency": "SEK",
				"total_price": 369800, "image": "https://shop.example/tent.jpg", "properties": map[string]string{"color": "green", "size": "2P", "material": "nylon"}},
		}},
		{"tracking_number": "NP100000002SE", "line_items": []any{
			map[string]any{"sku": "MUG", "name": "Enamel mug", "quantity": 1, "price": 19000, "currency": "SEK", "total_price": 19000},
		}},
	} {
		p["site_id"], p["tos_id"], p["carrier_product_ref"], p["direction_type"], p["delivery_type"] = site, tosID, "north-parcel-point", "OUTBOUND", "PICKUP"
		p["receiver"] = map[string]any{"name": "Anna Svensson", "email": "anna@example.com", "destination": map[string]any{"pickup": pickup}}
		p["sender"] = map[string]any{"name": "Demo Outdoor Store"}
		w.tracking("POST", "/parcel", p)
	}

	// The first parcel's carrier reports; the second's never does.
	w.advance(time.Hour)
	tn := "NP100000001SE"
	for _, ev := range []map[string]any{
		{"alert": "ALERT_AWAITING_SUPPLIER", "estimated_time": map[string]any{"start": at(20 * time.Hour), "end": at(30 * time.Hour)}},
		{"alert": "ALERT_LINEHAUL_TO_CARRIER", "estimated_time": map[string]any{"start": at(24 * time.Hour), "end": at(32 * time.Hour)}},
		{"step": "STEP_SUBMITTED_TO_CARRIER", "estimated_time": map[string]any{"start": at(30 * time.Hour), "end": at(60 * time.Hour)}},
		{"alert": "ALERT_SUBMISSION_DELAYED"},
		{"step": "STEP_ON_ROUTE"},
		{"alert": "ALERT_DELIVERY_DELAYED_FROM_CARRIER"},
		{"alert": "ALERT_OUT_FOR_DELIVERY"},
		{"alert": "ALERT_DELIVERY_ATTEMPT_FAILED", "exception": "ADDRESS_PROBLEM"},
		{"step": "STEP_DELIVERED_TO_PICKUP_POINT"},
	} {
		ev["site_id"], ev["tracking_number"], ev["time"] = site, tn, kit.Clock.Now().Format(time.RFC3339)
		w.tracking("POST", "/parcel.event", ev)
		w.advance(4 * time.Hour)
	}
	w.tracking("POST", "/order.lines_cancelled", map[string]any{"site_id": site, "order_id": "10071",
		"lines": []any{map[string]any{"sku": "TENT-2P", "cancelled_quantity": 1}}})
	// Four days at the pickup point: the customer is reminded.
	w.advance(96 * time.Hour)

	q := url.Values{"site_id": {site}, "external_id": {"10071"}, "locale": {"en-US"}}.Encode()
	generated := w.tracking("POST", "/generate_tracking_page_link", map[string]any{"site_id": site, "locale": "en-US",
		"tracking_number": "NP100000002SE"})
	w.expect("POST /generate_tracking_page_link", generated, []string{"tracking_link", "tracking_links.links[].type", "tracking_links.links[].url"})
	link := text(generated, "tracking_link")
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Path[strings.LastIndex(u.Path, "/")+1:]
	orders := w.tracking("GET", "/orders?"+q, nil)
	byToken := w.tracking("GET", "/orders?"+url.Values{"token": {token}, "tracking_number": {"NP100000002SE"}}.Encode(), nil)
	if got := text(byToken, "orders[].preselected_parcel_index"); got != "1" {
		t.Errorf("preselected_parcel_index through the second parcel's link = %q, want \"1\"", got)
	}
	w.expect("GET /orders", map[string]any{"orders": []any{value(orders, "orders[]"), value(byToken, "orders[]")}},
		prefixed("orders[].", privateOrderFields))
	// Every alert carries the payload object named after its kind.
	for _, a := range reached(orders, "orders[].parcels[].alerts[]") {
		kind := strings.ToLower(strings.TrimPrefix(a.(map[string]any)["type"].(string), "ALERT_"))
		if kind == "linehaul_to_carrier" {
			kind = "linehaul" // the one payload not named after its alert
		}
		if _, ok := a.(map[string]any)[kind]; !ok {
			t.Errorf("alert %v has no %s payload", a, kind)
		}
	}
	parcels := w.tracking("GET", "/parcels?"+q, nil)
	w.expect("GET /parcels", parcels, trackingParcelsFields)
	if got := text(parcels, "parcels[].current_progress.step"); got != text(parcels, "parcels[].progress_history[].step") {
		t.Errorf("current_progress %q is not the newest of progress_history", got)
	}
	notes := w.tracking("GET", "/notifications?"+q, nil)
	w.expect("GET /notifications", notes, notificationFields)
	names := map[string]bool{}
	for _, n := range reached(notes, "notifications[].name") {
		names[n.(string)] = true
	}
	if !names["PICKUP_REMINDER"] {
		t.Errorf("no PICKUP_REMINDER among %v", names)
	}

	walkReturns(w)
}

// walkReturns is the returns part of TestEveryFieldOverHTTP.
func walkReturns(w walker) {
	t, site := w.t, w.kit.Site
	w.returns("POST", "/merchant/order", map[string]any{
		"foreignId": "10071", "foreignName": "#10071", "foreignNumber": 10071, "currencyCode": "SEK", "email": "anna@example.com",
		"shippingAmount": 49.00, "locale": "en-US",
		"deliveryAddress": map[string]any{"name": "Anna Svensson", "addressLines": []string{"Storgatan 1"}, "postalCode": "111 57", "city": "Stockholm", "country": "SE"},
		"items": []any{
			map[string]any{"foreignLineItemId": "1", "sku": "TENT-2P", "productTitle": "Tent", "variantTitle": "2 persons, green", "quantity": 1,
				"purchasePriceAmount": map[string]any{"amount": 1799.00, "itemTax": 359.80}, "foreignProductId": "P-100", "foreignVariantId": "V-100-G",
				"properties": []any{map[string]any{"type": "color", "value": "green"}}},
			map[string]any{"foreignLineItemId": "2", "sku": "MUG", "productTitle": "Enamel mug", "variantTitle": "Red", "quantity": 1,
				"purchasePriceAmount": map[string]any{"amount": 190.00, "itemTax": 38.00}, "foreignProductId": "P-200", "foreignVariantId": "V-200-R",
				"properties": []any{map[string]any{"type": "color", "value": "red"}}, "exchangeSkus": []string{"MUG-BLUE"}},
		},
	})
	customer := func(body map[string]any) any {
		body["siteId"], body["foreignOrderId"], body["email"], body["locale"] = site, "10071", "anna@example.com", "en-US"
		return w.json("POST", "/returns/customer/return", body, nil)
	}
	refund := customer(map[string]any{"refundMethod": "GIFT_CARD", "items": []any{map[string]any{"foreignLineItemId": "1", "quantity": 1,
		"reasonId": "size", "subReasonId": "too-small", "reason": "Tight around the poles",
		"complaint": map[string]any{"reasonId": "damaged", "text": "One pole arrived bent."}}}})
	exchange := customer(map[string]any{"items": []any{map[string]any{"foreignLineItemId": "2", "quantity": 1,
		"reasonId": "changed-mind", "exchangeSku": "MUG-BLUE"}}})
	refundID, exchangeID := number(refund, "id"), number(exchange, "id")

	// The customer adds a photo to the complaint, on the status page's token.
	status, err := url.Parse(text(refund, "statusUrl"))
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("image", "pole.png")
	if err != nil {
		t.Fatal(err)
	}
	part.Write(photo(t))
	mw.Close()
	itemID := strconv.FormatUint(number(refund, "items[].id"), 10)
	if code, _, v := w.call("POST", "/returns/customer/return/"+status.Path[strings.LastIndex(status.Path, "/")+1:]+"/items/"+itemID+"/complaint",
		mw.FormDataContentType(), body.Bytes(), map[string]string{"Accept": "application/json"}); code != http.StatusCreated {
		t.Fatalf("uploading the photo: %d %v", code, v)
	}
	rid := strconv.FormatUint(refundID, 10)
	w.returns("POST", "/merchant/return/"+rid+"/items/"+itemID+"/complaint", map[string]any{"status": "APPROVED"})

	// The return parcels were booked by event; the carrier takes them to
	// the warehouse, and the returns move with them.
	detail := w.returns("GET", "/merchant/return/"+rid, nil)
	reference := text(detail, "shipments[].trackingReference")
	if reference == "" || text(detail, "status") != "AWAITING_RETURN" {
		t.Fatalf("return %s before the carrier: status %s, shipments %v", rid, text(detail, "status"), value(detail, "shipments"))
	}
	seen := map[string]bool{}
	for range 10 {
		w.advance(12 * time.Hour)
		r := w.returns("GET", "/merchant/return/"+rid, nil)
		seen[text(r, "status")+"/"+text(r, "items[].status")] = true
	}
	for _, want := range []string{"IN_TRANSIT/AWAITING_RETURN", "IN_TRANSIT/AWAITING_INSPECTION"} {
		if !seen[want] {
			t.Errorf("return %s never was %s; it was %v", rid, want, seen)
		}
	}

	// The customer is not told about their own return parcel's steps as
	// if it were a delivery.
	if rn := w.tracking("GET", "/notifications?"+url.Values{"site_id": {site}, "tracking_number": {reference}}.Encode(), nil); len(reached(rn, "notifications[]")) > 0 {
		t.Errorf("the return parcel made notifications: %v", rn)
	}
	// The exchange is inspected first, then the refund's line, by the
	// parcel's tracking reference: that return's refund then also gives
	// back the shipping.
	eid := strconv.FormatUint(exchangeID, 10)
	w.returns("POST", "/merchant/items/returned", map[string]any{"returnId": exchangeID,
		"items": []any{map[string]any{"sku": "MUG", "quantity": 1, "approved": true}}})
	w.returns("POST", "/merchant/return/"+eid+"/exchanged", map[string]any{"foreignId": "EX-10071"})
	w.returns("POST", "/merchant/items/returned", map[string]any{"trackingReference": reference, "failedDelivery": true,
		"items": []any{map[string]any{"sku": "TENT-2P", "quantity": 1, "approved": true, "comment": "Pole replaced, restocked"}}})
	pending := w.returns("GET", "/merchant/refund/transaction?status=PENDING", nil)
	if n := len(reached(pending, "content[]")); n != 1 {
		t.Fatalf("%d PENDING refunds, want 1: %v", n, pending)
	}
	w.advance(3 * time.Hour)
	refunds := w.returns("GET", "/merchant/refund/transaction?status=SUCCESS", nil)
	if n := len(reached(refunds, "content[]")); n != 1 {
		t.Fatalf("%d SUCCESS refunds after the executor's delay, want 1: %v", n, refunds)
	}

	details := map[string]any{"returns": []any{w.returns("GET", "/merchant/return/"+rid, nil), w.returns("GET", "/merchant/return/"+eid, nil)}}
	w.expect("GET /merchant/return/{id}", details, prefixed("returns[].", returnFields))
	order := w.returns("GET", "/merchant/order/10071?idType=FOREIGN_ID", nil)
	w.expect("GET /merchant/order/{id}", order, orderDetailFields)
	w.expect("GET /merchant/refund/transaction", refunds, refundEntryFields)
	for _, list := range []struct {
		path   string
		fields []string
	}{
		{"/merchant/order?sort=createdAt,desc", []string{"content[].id", "content[].foreignId", "content[].createdAt"}},
		{"/merchant/return?sort=id,asc", []string{"content[].id", "content[].createdAt", "content[].status", "content[].statusUrl",
			"content[].order.id", "content[].order.foreignId"}},
	} {
		page := w.returns("GET", list.path, nil)
		w.expect("GET "+list.path, page, list.fields)
		// The page envelope's numbers and flags may rightly be 0 or
		// false: each must be there.
		for _, f := range pageFields {
			if len(reached(page, f)) == 0 {
				t.Errorf("GET %s: the page has no %s", list.path, f)
			}
		}
	}

	// The photo's signed URL works, then expires.
	photoURL := text(details, "returns[].items[].customerComplaint.image.downloadUrl")
	if code, h, _ := w.call("GET", strings.TrimPrefix(photoURL, deliverykittest.BaseURL), "", nil, nil); code != http.StatusOK || h.Get("Content-Type") != "image/png" {
		t.Errorf("GET the photo: %d %s", code, h.Get("Content-Type"))
	}
	w.advance(2 * time.Hour)
	if code, _, _ := w.call("GET", strings.TrimPrefix(photoURL, deliverykittest.BaseURL), "", nil, nil); code != http.StatusForbidden {
		t.Errorf("GET the photo after its URL expired: %d, want 403", code)
	}
}

// TestExemptFieldsDocumented: every field the walk may leave empty is
// named, with its reason, in the decision record "Fields no walk fills".
func TestExemptFieldsDocumented(t *testing.T) {
	const record = "../docs/decisions/0018-fields-no-walk-fills.md"
	doc, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "## Decision\n")
	table, _, _ = strings.Cut(table, "\n## ")
	for field := range exemptFields {
		if !strings.Contains(table, "`"+field+"`") {
			t.Errorf("%s does not name %s", record, field)
		}
	}
}
