package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// newReturnsServer serves area E with a fixed clock, sequential tokens and
// a policy charging 49.00 + 10.50 SEK per return.
func newReturnsServer(t *testing.T) (*server, *returns.Service) {
	t.Helper()
	svc := returns.New(memory.New(), returns.Options{
		Clock: deliverykit.NewManualClock(testTime), IDs: &deliverykit.SequentialIDs{},
		Policies: returns.StaticPolicies{"demo-site": {WindowDays: 30, Costs: map[string]returns.Costs{
			"SEK": {ReturnShipment: 4900, ReturnHandling: 1050},
		}}},
		PublicURL: "http://127.0.0.1:8080",
	})
	s, _ := newTestServer(t, Options{Returns: svc})
	return s, svc
}

type returnsResp struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

// returnsDo sends a request with the x-api-key key ("" for none) and
// validates the answer against the OpenAPI document (openapi_test.go).
func returnsDo(t *testing.T, h http.Handler, method, path, key, body string) returnsResp {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if err := returnsAPI(t).checkRecorded(req, rec); err != nil {
		t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", method, path, err, rec.Body)
	}
	out := returnsResp{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(rec.Body.Bytes(), &out.body); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, out.raw)
		}
	}
	return out
}

const returnsOrderJSON = `{"foreignId":"A-1","foreignName":"#1001","foreignNumber":1001,"currencyCode":"SEK","email":"anna@example.com",
 "items":[{"foreignLineItemId":"L1","sku":"JACKET-M","productTitle":"Jacket","variantTitle":"M","quantity":2,"purchasePriceAmount":{"amount":1299.90,"itemTax":259.98}},
          {"foreignLineItemId":"L2","sku":"SOCKS","productTitle":"Socks","quantity":3,"purchasePriceAmount":{"amount":0.10,"itemTax":0.02}}],
 "someFutureField":true}`

func TestReturnsJourneyHTTP(t *testing.T) {
	s, _ := newReturnsServer(t)
	h := s.handler
	must := func(r returnsResp, status int) returnsResp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}

	order := must(returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", returnsOrderJSON), 201)
	if order.body["id"] != float64(1) || !strings.Contains(order.raw, `"amount":1299.90,"itemTax":259.98`) || !strings.Contains(order.raw, `"createdAt":"2026-11-22T10:00:00.000000Z"`) {
		t.Errorf("imported order: %s", order.raw)
	}

	// The customer form takes no key; a wrong e-mail or another site is
	// the same 404 as an unknown order.
	notFound := map[string]any{"status": float64(404), "error": "Not Found", "message": "no order with this foreignOrderId and email",
		"path": "/returns/customer/return", "timestamp": "2026-11-22T10:00:00.000Z"}
	for _, body := range []string{
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"eve@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`,
		`{"siteId":"demo-site-2","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`,
		`{"siteId":"demo-site","foreignOrderId":"A-404","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`,
	} {
		r := must(returnsDo(t, h, "POST", "/returns/customer/return", "", body), 404)
		if diff := cmp.Diff(notFound, r.body); diff != "" {
			t.Errorf("customer 404 (-want +got):\n%s", diff)
		}
	}
	ret := must(returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"Anna@Example.com","items":[{"foreignLineItemId":"L1","quantity":1,"reason":"too small"},{"foreignLineItemId":"L2","quantity":3}]}`), 201)
	statusURL, _ := ret.body["statusUrl"].(string)
	pagePath, ok := strings.CutPrefix(statusURL, "http://127.0.0.1:8080")
	if !ok || !strings.HasPrefix(pagePath, "/returns/customer/return/rt_") {
		t.Errorf("statusUrl = %q", statusURL)
	}
	for _, want := range []string{`"status":"AWAITING_RETURN"`,
		`"totalCost":59.50`, `"totalRefundAmount":1240.70`} {
		if !strings.Contains(ret.raw, want) {
			t.Errorf("return lacks %s: %s", want, ret.raw)
		}
	}

	// Merchant reads, and the other merchant sees nothing.
	list := must(returnsDo(t, h, "GET", "/returns/merchant/return", "demo-key", ""), 200)
	if list.body["totalElements"] != float64(1) {
		t.Errorf("returns page: %s", list.raw)
	}
	for _, path := range []string{"/returns/merchant/order", "/returns/merchant/return", "/returns/merchant/refund/transaction"} {
		r := must(returnsDo(t, h, "GET", path, "demo-key-2", ""), 200)
		if r.body["totalElements"] != float64(0) {
			t.Errorf("demo-key-2 sees %s: %s", path, r.raw)
		}
	}
	for _, path := range []string{"/returns/merchant/order/1", "/returns/merchant/order/A-1?idType=FOREIGN_ID", "/returns/merchant/return/1"} {
		must(returnsDo(t, h, "GET", path, "demo-key", ""), 200)
		must(returnsDo(t, h, "GET", path, "demo-key-2", ""), 404)
	}
	must(returnsDo(t, h, "POST", "/returns/merchant/refund/transaction/1/refunded", "demo-key-2", ""), 404)

	// Inspection: the refund is approved units minus the return costs.
	rep := must(returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key",
		`{"returnId":1,"items":[{"sku":"JACKET-M","quantity":1,"approved":true},{"sku":"SOCKS","quantity":2,"approved":true},{"sku":"SOCKS","quantity":1,"approved":false,"comment":"hole"}]}`), 200)
	if !strings.Contains(rep.raw, `"amountToRefund":1240.60`) {
		t.Errorf("report: %s", rep.raw)
	}
	again := must(returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key", `{"returnId":1,"items":[{"sku":"SOCKS","quantity":1,"approved":true}]}`), 400)
	if again.body["message"] != "return 1 is AWAITING_REFUND: its items were already reported" {
		t.Errorf("second report: %s", again.raw)
	}

	refunds := must(returnsDo(t, h, "GET", "/returns/merchant/refund/transaction?status=AWAITING_EXTERNAL_REFUND", "demo-key", ""), 200)
	wantEntry := `{"refundId":1,"returnId":1,"createdAt":"2026-11-22T10:00:00.000000Z","order":{"id":1,"foreignId":"A-1","createdAt":"2026-11-22T10:00:00.000000Z","status":"AWAITING_REFUND"},` +
		`"status":"AWAITING_EXTERNAL_REFUND","currencyCode":"SEK","amountToRefund":1240.60,"refundDetails":{"refundAmounts":{"totalItemRefundAmount":1300.10,"shippingRefundAmount":0.00,"giftCardAddition":0.00},` +
		`"returnCosts":{"currencyCode":"SEK","returnShipmentCost":49.00,"returnHandlingCost":10.50,"failedDeliveryCost":0.00,"exchangeCost":0.00,"totalReturnCost":59.50},` +
		`"items":[{"foreignOrderLineItemId":"L1","refundAmount":1299.90,"name":"Jacket - M"},{"foreignOrderLineItemId":"L2","refundAmount":0.20,"name":"Socks"}]},"attempt":1}`
	if !strings.Contains(refunds.raw, `"content":[`+wantEntry+`]`) || refunds.body["totalElements"] != float64(1) {
		t.Errorf("refund list:\n got %s\nwant content [%s]", refunds.raw, wantEntry)
	}

	marked := must(returnsDo(t, h, "POST", "/returns/merchant/refund/transaction/1/refunded", "demo-key", ""), 200)
	if marked.body["status"] != "REFUNDED" {
		t.Errorf("marked: %s", marked.raw)
	}
	twice := must(returnsDo(t, h, "POST", "/returns/merchant/refund/transaction/1/refunded", "demo-key", ""), 400)
	if twice.body["message"] != "refund transaction 1 is already REFUNDED" {
		t.Errorf("marked twice: %s", twice.raw)
	}
	detail := must(returnsDo(t, h, "GET", "/returns/merchant/order/1001?idType=FOREIGN_NUMBER", "demo-key", ""), 200)
	if !strings.Contains(detail.raw, `"orderRefund":{"currencyCode":"SEK","amountRefunded":1240.60,"refundStatus":"REFUNDED"`) ||
		!strings.Contains(detail.raw, `"status":"COMPLETED"`) {
		t.Errorf("order after refund: %s", detail.raw)
	}
	none := must(returnsDo(t, h, "GET", "/returns/merchant/refund/transaction?status=AWAITING_EXTERNAL_REFUND", "demo-key", ""), 200)
	if none.body["empty"] != true {
		t.Errorf("awaiting after refund: %s", none.raw)
	}

	// The status page follows.
	pg := returnsDo(t, h, "GET", pagePath+"?lang=sv", "", "")
	if pg.status != 200 || !strings.Contains(pg.raw, `data-status="COMPLETED"`) || !strings.Contains(pg.raw, "1\u00a0240,60\u00a0kr") ||
		pg.header.Get("Content-Type") != "text/html; charset=utf-8" || pg.header.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("status page %d %v:\n%s", pg.status, pg.header, pg.raw)
	}
	gone := returnsDo(t, h, "GET", "/returns/customer/return/rt_999999", "", "")
	if gone.status != 404 || !strings.Contains(gone.raw, `id="notfound"`) {
		t.Errorf("unknown token %d:\n%s", gone.status, gone.raw)
	}

	// The merchant renews the link: the old one answers 410 with a page
	// that says it expired and shows nothing of the return.
	retID := strconv.FormatFloat(ret.body["id"].(float64), 'f', 0, 64)
	renewed := must(returnsDo(t, h, "POST", "/returns/merchant/return/"+retID+"/status-link", "demo-key", ""), 200)
	newPath, _ := strings.CutPrefix(renewed.body["statusUrl"].(string), "http://127.0.0.1:8080")
	if newPath == pagePath || renewed.body["id"] != ret.body["id"] {
		t.Fatalf("renewed return: %s", renewed.raw)
	}
	old := returnsDo(t, h, "GET", pagePath, "", "")
	if old.status != 410 || !strings.Contains(old.raw, `<p id="expired">This return link has expired. Please ask the shop you bought from for a new link.</p>`) ||
		strings.Contains(old.raw, `id="status"`) || old.header.Get("Cache-Control") != "no-store" {
		t.Errorf("replaced link %d:\n%s", old.status, old.raw)
	}
	if pg := returnsDo(t, h, "GET", newPath, "", ""); pg.status != 200 || !strings.Contains(pg.raw, `data-status="COMPLETED"`) {
		t.Errorf("renewed link %d:\n%s", pg.status, pg.raw)
	}
	if r := returnsDo(t, h, "POST", "/returns/merchant/return/"+retID+"/status-link", "", ""); r.status != 401 {
		t.Errorf("renew without a key: %d", r.status)
	}
}

func TestReturnsHTTPErrors(t *testing.T) {
	s, _ := newReturnsServer(t)
	h := s.handler
	returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", returnsOrderJSON)
	tests := []struct {
		name, method, path, key, body string
		status                        int
		message                       string
	}{
		{"no key", "GET", "/returns/merchant/order", "", "", 401, "missing or invalid API key"},
		{"wrong key", "GET", "/returns/merchant/return/1", "nope", "", 401, "missing or invalid API key"},
		{"negative size", "GET", "/returns/merchant/order?size=-1", "demo-key", "", 400, "invalid request: size: must be a whole number from 0 to 2147483647"},
		{"page not a number", "GET", "/returns/merchant/return?page=two", "demo-key", "", 400, "invalid request: page: must be a whole number from 0 to 2147483647"},
		{"unknown sort", "GET", "/returns/merchant/return?sort=email,asc", "demo-key", "", 400, `invalid request: sort: cannot sort by "email"; sortable: id, createdAt, status`},
		{"bad afterDate", "GET", "/returns/merchant/order?afterDate=yesterday", "demo-key", "", 400, "invalid request: afterDate: must be YYYY-MM-DDThh:mm:ss (read as UTC)"},
		{"bad status filter", "GET", "/returns/merchant/refund/transaction?status=DONE", "demo-key", "", 400,
			`invalid request: status: must be AWAITING_EXTERNAL_REFUND, PENDING, SUCCESS, FAILED or REFUNDED, not "DONE"`},
		{"bad idType", "GET", "/returns/merchant/order/1?idType=INTERNAL", "demo-key", "", 400, "invalid request: idType: must be SERVICE_ID, FOREIGN_ID, FOREIGN_NUMBER or FOREIGN_NAME"},
		{"return id not a number", "GET", "/returns/merchant/return/abc", "demo-key", "", 400, "invalid request: returnId: must be a positive integer"},
		{"unknown return", "GET", "/returns/merchant/return/9", "demo-key", "", 404, "return not found"},
		{"two selectors", "POST", "/returns/merchant/items/returned", "demo-key", `{"returnId":1,"foreignOrderId":"A-1","items":[{"sku":"X","quantity":1}]}`, 400,
			"invalid request: foreignOrderId: exactly one of foreignOrderId, returnId and trackingReference must be set"},
		{"wrong type", "POST", "/returns/merchant/items/returned", "demo-key", `{"returnId":"one"}`, 400, "invalid request: returnId: expected an integer, got string \"one\""},
		{"malformed JSON", "POST", "/returns/merchant/order", "demo-key", `{"foreignId":`, 400, "invalid request: malformed JSON at byte 13: unexpected end of JSON input"},
		{"too many decimals", "POST", "/returns/merchant/order", "demo-key",
			`{"foreignId":"B","currencyCode":"JPY","email":"a@b.se","items":[{"foreignLineItemId":"1","sku":"S","quantity":1,"purchasePriceAmount":{"amount":10.5}}]}`, 400,
			"invalid request: items[0].purchasePriceAmount.amount: has more decimals than its currency allows (0)"},
		{"duplicate order", "POST", "/returns/merchant/order", "demo-key", returnsOrderJSON, 409, "an order with this foreignId already exists: foreignId: is already imported"},
		{"customer validation", "POST", "/returns/customer/return", "", `{"siteId":"demo-site"}`, 400,
			"invalid request: email: is required; foreignOrderId: is required; items: is required"},
		{"method not allowed", "DELETE", "/returns/merchant/order", "demo-key", "", 405, "DELETE is not allowed here; allowed: GET, POST"},
		{"unknown path", "GET", "/returns/merchant/nothing", "demo-key", "", 404, "no such endpoint: /returns/merchant/nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := returnsDo(t, h, tt.method, tt.path, tt.key, tt.body)
			path, _, _ := strings.Cut(tt.path, "?")
			want := map[string]any{"status": float64(tt.status), "error": http.StatusText(tt.status), "message": tt.message, "path": path, "timestamp": "2026-11-22T10:00:00.000Z"}
			if r.status != tt.status {
				t.Errorf("status %d, want %d", r.status, tt.status)
			}
			if diff := cmp.Diff(want, r.body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReturnsPagingHTTP(t *testing.T) {
	s, svc := newReturnsServer(t)
	for _, id := range []string{"A-1", "A-2", "A-3"} {
		in := returns.OrderInput{ForeignID: id, CurrencyCode: "SEK", Email: "a@example.com",
			Items: []returns.OrderItemInput{{ForeignLineItemID: "1", SKU: "S", Quantity: 1}}}
		if _, err := svc.ImportOrder(t.Context(), "demo-site", in); err != nil {
			t.Fatal(err)
		}
	}
	r := returnsDo(t, s.handler, "GET", "/returns/merchant/order?size=2&page=1&sort=foreignId,desc", "demo-key", "")
	var got map[string]any
	if err := json.Unmarshal([]byte(r.raw), &got); err != nil {
		t.Fatal(err)
	}
	sorted := map[string]any{"sorted": true, "unsorted": false, "empty": false}
	created := testTime.Format("2006-01-02T15:04:05.000000Z")
	want := map[string]any{
		"content":    []any{map[string]any{"id": float64(1), "foreignId": "A-1", "createdAt": created}},
		"pageable":   map[string]any{"sort": sorted, "offset": float64(2), "pageSize": float64(2), "pageNumber": float64(1), "unpaged": false, "paged": true},
		"totalPages": float64(2), "totalElements": float64(3), "last": true, "size": float64(2), "number": float64(1),
		"sort": sorted, "numberOfElements": float64(1), "first": false, "empty": false,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("page (-want +got):\n%s", diff)
	}
	clamped := returnsDo(t, s.handler, "GET", "/returns/merchant/order?size=999999&afterId=1", "demo-key", "")
	if clamped.body["size"] != float64(2000) || clamped.body["totalElements"] != float64(2) {
		t.Errorf("clamped: %s", clamped.raw)
	}
}

func TestReturnsOpenAPI(t *testing.T) {
	s, _ := newReturnsServer(t)
	// The document does not describe itself, so this answer is not
	// validated against it: it must be the embedded document the other
	// tests validate against.
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/returns/openapi.json", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(rec.Body.Bytes(), returnsOpenAPI) {
		t.Fatalf("openapi.json: %d %s, not the embedded openapi/returns.json", rec.Code, rec.Header().Get("Content-Type"))
	}
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, p := range []string{"/merchant/order", "/merchant/order/{orderId}", "/merchant/return", "/merchant/return/{returnId}", "/merchant/return/{returnId}/status-link",
		"/merchant/items/returned", "/merchant/refund/transaction", "/merchant/refund/transaction/{refundTransactionId}/refunded", "/customer/return", "/customer/return/{token}",
		"/customer/return/{token}/label.pdf",
		// The refund lifecycle and exchanges (returns_refunds.go).
		"/merchant/refund/transaction/{refundTransactionId}/success", "/merchant/refund/transaction/{refundTransactionId}/failure",
		"/merchant/refund/transaction/{refundTransactionId}/retry", "/merchant/return/{returnId}/exchanged",
		// Complaints (returns_complaints.go).

		"/merchant/return/{returnId}/items/{itemId}/complaint", "/customer/return/{token}/items/{itemId}/complaint", "/customer/complaint-image/{uuid}"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("OpenAPI document lacks %s", p)
		}
	}
	if len(paths) != 18 {
		t.Errorf("OpenAPI document has %d paths, want 18", len(paths))
	}
}

// TestReturnsItemsReturnedSelectorsHTTP reports items by tracking reference
// and by order, and checks another merchant's key cannot report them.
func TestReturnsItemsReturnedSelectorsHTTP(t *testing.T) {
	s, svc := newReturnsServer(t)
	h := s.handler
	ctx := t.Context()
	returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", returnsOrderJSON)
	mk := func(line string) returns.Return {
		r, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "A-1", Email: "anna@example.com",
			Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: line, Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1, r2 := mk("L1"), mk("L2")
	if _, err := svc.MarkInTransit(ctx, "demo-site", r1.ID, returns.ShipmentInput{Carrier: "carrier-1", TrackingReference: "TR-1"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, key, body string
		status          int
		contains        string
	}{
		{"other merchant by return id", "demo-key-2", `{"returnId":1,"items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`, 404, `"message":"return not found"`},
		{"other merchant by tracking", "demo-key-2", `{"trackingReference":"TR-1","items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`, 404, `"message":"return with this trackingReference not found"`},
		{"other merchant by order", "demo-key-2", `{"foreignOrderId":"A-1","items":[{"sku":"SOCKS","quantity":1,"approved":true}]}`, 404, `"message":"order not found"`},
		{"by tracking reference", "demo-key", `{"trackingReference":"TR-1","items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`, 200, `"amountToRefund":1240.40`},
		{"by order: only open returns", "demo-key", `{"foreignOrderId":"A-1","items":[{"sku":"SOCKS","quantity":1,"approved":false}]}`, 200, `"returns":[{"id":2`},
		{"nothing left", "demo-key", `{"foreignOrderId":"A-1","items":[{"sku":"SOCKS","quantity":1}]}`, 400, `"message":"the order has no return waiting for its items"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := returnsDo(t, h, "POST", "/returns/merchant/items/returned", tt.key, tt.body)
			if r.status != tt.status || !strings.Contains(r.raw, tt.contains) {
				t.Errorf("%d %s; want %d containing %s", r.status, r.raw, tt.status, tt.contains)
			}
		})
	}
	got, _ := svc.GetReturn(ctx, "demo-site", r2.ID)
	if got.Status != returns.StatusCompleted {
		t.Errorf("all-declined return is %s, want COMPLETED", got.Status)
	}
	after := returnsDo(t, h, "GET", "/returns/merchant/return?afterDate=2026-11-22T09:59:59&sort=createdAt,desc&sort=id,desc", "demo-key", "")
	if after.status != 200 || after.body["totalElements"] != float64(2) || !strings.Contains(after.raw, `"content":[{"id":2,`) {
		t.Errorf("afterDate listing: %s", after.raw)
	}
	none := returnsDo(t, h, "GET", "/returns/merchant/return?afterDate=2026-11-22T10:00:00", "demo-key", "")
	if none.body["totalElements"] != float64(0) {
		t.Errorf("afterDate is exclusive: %s", none.raw)
	}
}

// TestReturnsDocValidator makes sure the response validation used by
// returnsDo (openapi_test.go) catches what it must in this document.
func TestReturnsDocValidator(t *testing.T) {
	d := returnsAPI(t)
	tests := []struct {
		name   string
		method string
		target string
		status int
		body   string
		ok     bool
	}{
		{"good page", "GET", "/returns/merchant/return?page=0", 200,
			`{"content": [{"id": 1, "createdAt": "2026-11-22T10:00:00.000000Z", "status": "AWAITING_RETURN"}], "totalElements": 1, "empty": false}`, true},
		{"undocumented property", "GET", "/returns/merchant/return", 200, `{"content": [{"id": 1, "secret": "x"}]}`, false},
		{"bad enum", "GET", "/returns/merchant/return", 200, `{"content": [{"id": 1, "status": "LOST"}]}`, false},
		{"bad time", "GET", "/returns/merchant/return", 200, `{"content": [{"id": 1, "createdAt": "22/11/2026"}]}`, false},
		{"wrong type", "GET", "/returns/merchant/return", 200, `{"totalElements": "1"}`, false},
		{"error body", "GET", "/returns/merchant/return/9", 404,
			`{"timestamp": "2026-11-22T10:00:00.000Z", "status": 404, "error": "Not Found", "message": "return not found", "path": "/returns/merchant/return/9"}`, true},
		{"undocumented status", "GET", "/returns/merchant/return/9", 409, `{"status": 409}`, false},
		{"catch-all", "GET", "/returns/merchant/nothing", 404, `{"status": 404, "error": "Not Found", "message": "no such endpoint"}`, true},
		{"catch-all in another style", "GET", "/returns/merchant/nothing", 404, `{"error": "not found: no such endpoint", "trace_id": "t"}`, false},
		{"JSON for the status page", "GET", "/returns/customer/return/rt_1", 200, `{"status": "AWAITING_RETURN"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
				t.Fatal(err)
			}
			if err := d.checkJSON(tt.method, tt.target, tt.status, v); (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
	page := httptest.NewRequest("GET", "/returns/customer/return/rt_1", nil)
	if err := d.check(page, 200, http.Header{"Content-Type": {"text/html; charset=utf-8"}}, []byte("<!doctype html><p>ok</p>")); err != nil {
		t.Errorf("status page refused: %v", err)
	}
}

// labelStub renders a tiny PDF.
type labelStub struct{}

func (labelStub) LabelPDF(_ context.Context, _, tn string) ([]byte, error) {
	return []byte("%PDF-1.4\n% " + tn + "\n%%EOF\n"), nil
}

// bookReturnParcel delivers to svc the parcel.booked of return id's
// parcel, as the shipments area writes it when it booked the parcel.
func bookReturnParcel(t *testing.T, svc *returns.Service, id uint64, order, tn string) {
	t.Helper()
	ev, err := event.New("evt_"+tn, "demo-site", tn, testTime, event.ParcelBooked{
		ShipmentID: "shp_" + tn, OrderExternalID: order, TrackingNumber: tn, ProductRef: "north-parcel-point", Direction: "RETURN",
		ShipmentExternalID: returns.ShipmentExternalID(id), CarrierName: "North Parcel", BookedAt: testTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.HandleParcelBooked(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
}

// TestReturnLabelHTTP: the status page links to the label under its own
// token; the label is served without a key as a PDF download that is
// never cached, and an expired link answers the expired page.
func TestReturnLabelHTTP(t *testing.T) {
	clock := deliverykit.NewManualClock(testTime)
	svc := returns.New(memory.New(), returns.Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{}, LabelPDFs: labelStub{},
		Policies:  returns.StaticPolicies{"demo-site": {ReturnProduct: "north-parcel-point"}},
		PublicURL: "http://127.0.0.1:8080",
	})
	s, _ := newTestServer(t, Options{Returns: svc})
	h := s.handler
	order := strings.Replace(returnsOrderJSON, `"someFutureField":true`,
		`"locale":"da-DK","deliveryAddress":{"name":"Jiří Dvořák","addressLines":["Storgatan 5"],"postalCode":"111 51","city":"Stockholm","country":"SE"}`, 1)
	if r := returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", order); r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	ret := returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`)
	if ret.status != 201 {
		t.Fatalf("return: %d %s", ret.status, ret.raw)
	}
	token := strings.TrimPrefix(ret.body["statusUrl"].(string), "http://127.0.0.1:8080"+returns.StatusPagePath)
	bookReturnParcel(t, svc, uint64(ret.body["id"].(float64)), "A-1", "CP000001SE")
	pg := returnsDo(t, h, "GET", returns.StatusPagePath+token+"?locale=de", "", "")
	labelPath := returns.StatusPagePath + token + returns.StatusLabelPath
	for _, want := range []string{`<html lang="da-DK">`, `href="` + labelPath + `"`, "Hent returlabelen (PDF)", `<span id="tracking-number">CP000001SE</span>`} {
		if pg.status != 200 || !strings.Contains(pg.raw, want) {
			t.Errorf("status page %d lacks %q:\n%s", pg.status, want, pg.raw)
		}
	}
	tests := []struct {
		name    string
		advance time.Duration
		status  int
		want    map[string]string
		body    string
	}{
		{"label", 0, 200, map[string]string{"Content-Type": "application/pdf", "Content-Disposition": `attachment; filename="return-label.pdf"`,
			"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}, "%PDF-1.4\n% CP000001SE"},
		{"expired link", returns.DefaultStatusLinkLifetime, 410, map[string]string{"Content-Type": "text/html; charset=utf-8",
			"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"}, `<p id="expired">`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock.Advance(tt.advance)
			r := returnsDo(t, h, "GET", labelPath, "", "")
			got := map[string]string{}
			for k := range tt.want {
				got[k] = r.header.Get(k)
			}
			if diff := cmp.Diff(tt.want, got); r.status != tt.status || diff != "" || !strings.Contains(r.raw, tt.body) {
				t.Errorf("%d, want %d; headers (-want +got):\n%s\nbody %q", r.status, tt.status, diff, r.raw)
			}
		})
	}
}
