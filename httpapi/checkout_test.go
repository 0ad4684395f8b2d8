package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// siwNow is a Thursday morning in Stockholm.
var siwNow = time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)

func newCheckoutService(t testing.TB, clock deliverykit.Clock) *checkout.Service {
	t.Helper()
	return newCheckoutServiceAt(t, clock, "http://example.com/v1/siw/_/")
}

// newCheckoutServiceAt is newCheckoutService with the widget served from
// base.
func newCheckoutServiceAt(t testing.TB, clock deliverykit.Clock, base string) *checkout.Service {
	t.Helper()
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, IDs: deliverykit.RandomIDs{}, WidgetBaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

type siwEnv struct {
	t       *testing.T
	handler http.Handler
	doc     *apiDoc
}

func newSiwEnv(t *testing.T) *siwEnv {
	t.Helper()
	svc := newCheckoutService(t, deliverykit.NewManualClock(siwNow))
	s, _ := newTestServer(t, Options{Checkout: svc})
	env := &siwEnv{t: t, handler: s.handler}
	env.doc = checkoutAPI(t)
	return env
}

type siwResp struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

// do sends a request and validates the response against the OpenAPI
// document: its status must be documented for the operation and its body
// must match the schema, with no undocumented property anywhere.
func (e *siwEnv) do(method, path string, header map[string]string, body string) siwResp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	res := rec.Result()
	raw, _ := io.ReadAll(res.Body)
	r := siwResp{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if method == http.MethodOptions {
		return r
	}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("%s %s: response is not a JSON object: %v\n%s", method, path, err, raw)
	}
	if err := e.doc.check(req, res.StatusCode, res.Header, raw); err != nil {
		e.t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", method, path, err, raw)
	}
	return r
}

var siwKey = map[string]string{"Authorization": bearer("demo-key")}

const siwCreate = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
  "cart": {"cart_id": "c-1", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000, "attributes": ["small"]}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}, "some_future_field": {"x": 1}}`

func TestCheckoutHTTPFlow(t *testing.T) {
	e := newSiwEnv(t)
	r := e.do("POST", "/v1/siw/session.create", siwKey, siwCreate)
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	sess := r.body["session"].(map[string]any)
	id, token := sess["id"].(string), r.body["token"].(string)
	if sess["status"] != "ACTIVE" || len(token) < 20 || !strings.HasPrefix(id, "siw_") {
		t.Errorf("create: %s", r.raw)
	}
	snippet := r.body["html_snippet"].(string)
	if !strings.Contains(snippet, `data-deliverykit-base="http://example.com/v1/siw/_/"`) || !strings.Contains(snippet, token) {
		t.Errorf("html_snippet = %s", snippet)
	}
	if got := jsonPath(sess, "selected_shipping_option.shipping_method"); got != "north-parcel-point" {
		t.Errorf("preselected = %v", got)
	}
	if got := jsonPath(sess, "result.pricing.price_components.0.type"); got != "PRICE_COMPONENT_TYPE_SHIPPING" {
		t.Errorf("price component type = %v", got)
	}

	// get answers {session, html_snippet}, without the token.
	r = e.do("GET", "/v1/siw/session.get?id="+id, siwKey, "")
	if r.status != 200 || r.body["token"] != nil || r.body["html_snippet"] != snippet {
		t.Errorf("get: %d %s", r.status, r.raw)
	}

	// The widget, with its token only.
	wt := map[string]string{"X-Widget-Token": token}
	r = e.do("GET", "/v1/siw/_/widget/state", wt, "")
	if r.status != 200 || r.body["selected"] != "pickup/north-parcel-point/np-se-101" || r.header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("widget state: %d %s", r.status, r.raw)
	}
	r = e.do("POST", "/v1/siw/_/widget/select", wt, `{"option_id": "home/north-parcel-home", "addon_ids": ["carry-in"]}`)
	if r.status != 200 || r.body["shipping_price"] != float64(7900+19900) {
		t.Errorf("widget select: %d %s", r.status, r.raw)
	}
	r = e.do("GET", "/v1/siw/session.get?id="+id, siwKey, "")
	if jsonPath(r.body, "session.selected_shipping_option.shipping_method") != "north-parcel-home" ||
		jsonPath(r.body, "session.shipping_price") != float64(27800) || jsonPath(r.body, "session.result.selection") != "USER_CHOICE" {
		t.Errorf("get after select: %s", r.raw)
	}

	// update: bigger cart, free shipping; the addon still costs.
	r = e.do("POST", "/v1/siw/session.update", siwKey, `{"id": "`+id+`", "cart": {"cart_id": "c-1", "total_value": 150000, "items": [{"sku": "tent", "quantity": 3, "price": 50000}]}}`)
	if r.status != 200 || jsonPath(r.body, "session.shipping_price") != float64(19900) || r.body["token"] != nil {
		t.Errorf("update: %d %s", r.status, r.raw)
	}

	// complete answers {session, tos_id} with status COMPLETE.
	customer := `{"email": "anna@example.com", "phone": "+46701234567", "address": {"name": "Anna", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}`
	r = e.do("POST", "/v1/siw/session.complete", siwKey, `{"id": "`+id+`", "customer": `+customer+`}`)
	tos, _ := r.body["tos_id"].(string)
	if r.status != 200 || tos == "" || jsonPath(r.body, "session.status") != "COMPLETE" || jsonPath(r.body, "session.tos_id") != tos ||
		jsonPath(r.body, "session.customer.email") != "anna@example.com" {
		t.Errorf("complete: %d %s", r.status, r.raw)
	}

	// Frozen: 403 with a body saying the session is completed.
	for _, c := range []struct{ path, body string }{
		{"/v1/siw/session.update", `{"id": "` + id + `", "customer": ` + customer + `}`},
		{"/v1/siw/session.complete", `{"id": "` + id + `", "customer": ` + customer + `}`},
	} {
		r = e.do("POST", c.path, siwKey, c.body)
		if msg, _ := r.body["error"].(string); r.status != 403 || !strings.Contains(msg, "completed") {
			t.Errorf("%s after complete: %d %s", c.path, r.status, r.raw)
		}
	}
	r = e.do("POST", "/v1/siw/_/widget/select", wt, `{"option_id": "home/north-parcel-home"}`)
	if r.status != 403 {
		t.Errorf("widget select after complete: %d %s", r.status, r.raw)
	}
	r = e.do("GET", "/v1/siw/_/widget/state", wt, "")
	if r.status != 200 || r.body["status"] != "COMPLETE" {
		t.Errorf("widget state after complete: %d %s", r.status, r.raw)
	}
}

func TestCheckoutHTTPErrors(t *testing.T) {
	e := newSiwEnv(t)
	r := e.do("POST", "/v1/siw/session.create", siwKey, siwCreate)
	id := jsonPath(r.body, "session.id").(string)
	tests := []struct {
		name       string
		method     string
		path       string
		header     map[string]string
		body       string
		wantStatus int
		wantFields []string
	}{
		{"missing cart", "POST", "/v1/siw/session.create", siwKey, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"]}`, 400, []string{"cart"}},
		{"unknown currency", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"SEK"`, `"SXK"`, 1), 400, []string{"purchase_currency"}},
		{"negative price", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"price": 45000`, `"price": -1`, 1), 400, []string{"cart.items[0].price"}},
		{"malformed locale", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"sv-SE"`, `"sv_SE"`, 1), 400, []string{"locales[0]"}},
		{"wrong type", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"total_value": 45000`, `"total_value": "lots"`, 1), 400, []string{"cart.total_value"}},
		{"malformed JSON", "POST", "/v1/siw/session.create", siwKey, `{"cart": `, 400, []string{""}},
		{"cart as an array", "POST", "/v1/siw/session.create", siwKey, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"], "cart": []}`, 400, []string{"cart"}},
		{"locales as a string", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `["sv-SE"]`, `"sv-SE"`, 1), 400, []string{"locales"}},
		{"null cart", "POST", "/v1/siw/session.create", siwKey, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"], "cart": null}`, 400, []string{"cart"}},
		{"items as an object", "POST", "/v1/siw/session.create", siwKey, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"], "cart": {"items": {}}}`, 400, []string{"cart.items"}},
		{"voucher as a number", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"total_value": 45000`, `"total_value": 45000, "vouchers": [7]`, 1), 400, []string{"cart.vouchers[0]"}},
		{"vouchers as an object", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"total_value": 45000`, `"total_value": 45000, "vouchers": {"a": 1}`, 1), 400, []string{"cart.vouchers"}},
		{"older voucher as a list", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"total_value": 45000`, `"total_value": 45000, "voucher": ["a"]`, 1), 400, []string{"cart.voucher"}},
		{"customer email as a number", "POST", "/v1/siw/session.complete", siwKey, `{"id": "` + id + `", "customer": {"email": 5}}`, 400, []string{"customer.email"}},
		{"customer door code as an object", "POST", "/v1/siw/session.update", siwKey, `{"id": "` + id + `", "customer": {"address": {"door_code": {}}}}`, 400, []string{"customer.address.door_code"}},
		{"latitude off the globe", "POST", "/v1/siw/session.update", siwKey, `{"id": "` + id + `", "search_address": {"country": "SE", "coordinates": {"lat": 95, "lng": 18}}}`, 400, []string{"search_address.coordinates.lat"}},
		{"longitude off the globe", "POST", "/v1/siw/session.complete", siwKey, `{"id": "` + id + `", "customer": {"address": {"country": "SE", "postal_code": "11157", "coordinates": {"lat": 59, "lng": -200}}}}`, 400, []string{"customer.address.coordinates.lng"}},
		{"meta too large", "POST", "/v1/siw/session.update", siwKey, `{"id": "` + id + `", "meta": {"k": "` + strings.Repeat("x", 513) + `"}}`, 400, []string{"meta[k]"}},
		{"container id not an HTML id", "POST", "/v1/siw/session.create", siwKey, strings.Replace(siwCreate, `"locales"`, `"snippet_configuration": {"container_id": "a\"><b>"}, "locales"`, 1), 400, []string{"snippet_configuration.container_id"}},
		{"object id a reserved global", "POST", "/v1/siw/session.update", siwKey, `{"id": "` + id + `", "snippet_configuration": {"object_id": "document"}}`, 400, []string{"snippet_configuration.object_id"}},
		{"clone with an object id not an identifier", "POST", "/v1/siw/session.createFromOrder", siwKey, `{"tos_id": "tos_1", "snippet_configuration": {"object_id": "a.b"}}`, 400, []string{"snippet_configuration.object_id"}},
		{"clone of an unknown order", "POST", "/v1/siw/session.createFromOrder", siwKey, `{"tos_id": "tos_nope"}`, 404, []string{"tos_id"}},
		{"clone without tos_id", "POST", "/v1/siw/session.createFromOrder", siwKey, `{}`, 400, []string{"tos_id"}},
		{"summaries without tos_id", "GET", "/v1/siw/sessions_summaries.list", siwKey, "", 400, []string{"tos_id"}},
		{"unknown session", "GET", "/v1/siw/session.get?id=siw_nope", siwKey, "", 404, []string{"id"}},
		{"missing id", "GET", "/v1/siw/session.get", siwKey, "", 400, []string{"id"}},
		{"another site's session", "GET", "/v1/siw/session.get?id=" + id, map[string]string{"Authorization": bearer("demo-key-2")}, "", 404, []string{"id"}},
		{"update unknown session", "POST", "/v1/siw/session.update", siwKey, `{"id": "siw_nope", "cart": {}}`, 404, []string{"id"}},
		{"update nothing", "POST", "/v1/siw/session.update", siwKey, `{"id": "` + id + `"}`, 400, []string{"cart"}},
		{"complete without customer", "POST", "/v1/siw/session.complete", siwKey, `{"id": "` + id + `"}`, 400, []string{"customer"}},
		{"no key", "POST", "/v1/siw/session.create", nil, siwCreate, 401, nil},
		{"wrong method", "GET", "/v1/siw/session.create", siwKey, "", 405, nil},
		{"widget without token", "GET", "/v1/siw/_/widget/state", nil, "", 401, nil},
		{"widget with an API key only", "GET", "/v1/siw/_/widget/state", siwKey, "", 401, nil},
		{"widget guessed token", "POST", "/v1/siw/_/widget/select", map[string]string{"X-Widget-Token": "wt_aaaaaaaaaaaaaaaaaaaaaaaaaa"}, `{"option_id": "x"}`, 404, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do(tt.method, tt.path, tt.header, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", r.status, tt.wantStatus, r.raw)
			}
			var got []string
			details, _ := r.body["details"].([]any)
			for _, d := range details {
				got = append(got, d.(map[string]any)["field"].(string))
			}
			if diff := cmp.Diff(tt.wantFields, got); diff != "" {
				t.Errorf("detail fields (-want +got):\n%s\n%s", diff, r.raw)
			}
			if r.body["trace_id"] == "" || !strings.Contains(r.body["error"].(string), ": ") {
				t.Errorf("error body = %s", r.raw)
			}
		})
	}
}

// TestCheckoutHTTPConcurrentUpdates: 32 concurrent session.update calls
// are each answered 200 or 409 ("repeat the call"), never 500.
func TestCheckoutHTTPConcurrentUpdates(t *testing.T) {
	e := newSiwEnv(t)
	r := e.do("POST", "/v1/siw/session.create", siwKey, siwCreate)
	id := jsonPath(r.body, "session.id").(string)
	var wg sync.WaitGroup
	statuses := make([]int, 32)
	bodies := make([]string, 32)
	headers := make([]http.Header, 32)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequest("POST", "/v1/siw/session.update", strings.NewReader(fmt.Sprintf(`{"id": %q, "cart": {"cart_id": "c-%d", "total_value": %d}}`, id, i, 1000*i)))
			req.Header.Set("Authorization", siwKey["Authorization"])
			rec := httptest.NewRecorder()
			e.handler.ServeHTTP(rec, req)
			statuses[i], bodies[i], headers[i] = rec.Code, rec.Body.String(), rec.Header()
		}()
	}
	wg.Wait()
	conflicts := 0
	for i, st := range statuses {
		var body map[string]any
		if err := json.Unmarshal([]byte(bodies[i]), &body); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
		if err := e.doc.check(httptest.NewRequest("POST", "/v1/siw/session.update", nil), st, headers[i], []byte(bodies[i])); err != nil {
			t.Errorf("update %d: response does not match the OpenAPI document: %v", i, err)
		}
		switch {
		case st == 409 && strings.Contains(bodies[i], "repeat the call"):
			conflicts++
		case st != 200:
			t.Errorf("update %d: %d %s", i, st, bodies[i])
		}
	}
	t.Logf("%d of 32 concurrent updates answered 409", conflicts)
}

func TestCheckoutWidgetAssets(t *testing.T) {
	e := newSiwEnv(t)
	req := httptest.NewRequest("OPTIONS", "/v1/siw/_/widget/select", nil)
	req.Header.Set("Origin", "https://shop.example")
	req.Header.Set("Access-Control-Request-Headers", "x-widget-token, content-type, idempotency-key")
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	if allowed := rec.Header().Get("Access-Control-Allow-Headers"); rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "*" ||
		!strings.Contains(allowed, "X-Widget-Token") || !strings.Contains(allowed, "Idempotency-Key") ||
		rec.Header().Get("Access-Control-Expose-Headers") != "Idempotent-Replayed" {
		t.Errorf("preflight: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	e.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/siw/_/widget.js", nil))
	if rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/javascript") || !strings.Contains(rec.Body.String(), "deliverykit:shipping-option-change") {
		t.Errorf("widget.js: %d %v", rec.Code, rec.Header())
	}
	rec = httptest.NewRecorder()
	e.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/siw/_/swagger.json", nil))
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || !strings.HasPrefix(doc.OpenAPI, "3.") {
		t.Fatalf("swagger.json: %v %s", err, doc.OpenAPI)
	}
	// The served document is the embedded one the tests validate against.
	if !bytes.Equal(rec.Body.Bytes(), checkoutOpenAPI) {
		t.Error("swagger.json is not the embedded openapi/checkout.json")
	}
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	want := []string{"/_/swagger.json", "/_/widget.js", "/_/widget/address", "/_/widget/select", "/_/widget/state", "/session.complete", "/session.create", "/session.createFromOrder", "/session.get", "/session.update", "/sessions_summaries.list"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("documented paths (-want +got):\n%s", diff)
	}
}

// TestCheckoutSnippetBase: a configured absolute widget base is used as is.
func TestCheckoutSnippetBase(t *testing.T) {
	clock := deliverykit.NewManualClock(siwNow)
	engines, _ := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	svc, _ := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, WidgetBaseURL: "https://cdn.example/dk/"})
	s, _ := newTestServer(t, Options{Checkout: svc})
	e := &siwEnv{t: t, handler: s.handler, doc: checkoutAPI(t)}
	body := e.do("POST", "/v1/siw/session.create", siwKey, siwCreate).body
	if sn, _ := body["html_snippet"].(string); !strings.Contains(sn, `data-deliverykit-base="https://cdn.example/dk/"`) {
		t.Errorf("html_snippet = %s", sn)
	}
	// The Host header the caller sends changes nothing: the snippet comes
	// from the configuration only.
	id := jsonPath(body, "session.id").(string)
	for _, host := range []string{"evil.example", "127.0.0.1:9", strings.Repeat("h", 200) + ".example"} {
		req := httptest.NewRequest("GET", "/v1/siw/session.get?id="+id, nil)
		req.Host = host
		req.Header.Set("Authorization", siwKey["Authorization"])
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if strings.Contains(rec.Body.String(), host) || !strings.Contains(rec.Body.String(), `https://cdn.example/dk/`) {
			t.Errorf("Host %s: the answer names the host or lacks the configured base", host)
		}
	}
}

func jsonPath(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestCheckoutDocValidator makes sure the response validation used above
// (openapi_test.go) does catch what it is meant to catch in this document.
func TestCheckoutDocValidator(t *testing.T) {
	e := newSiwEnv(t)
	cart := map[string]any{"total_value": 0, "total_discount": 0, "pre_order": false, "items": []any{}}
	valid := map[string]any{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": cart, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0}, "html_snippet": ""}
	if err := e.doc.checkJSON("GET", "/v1/siw/session.get?id=x", 200, valid); err != nil {
		t.Errorf("valid body refused: %v", err)
	}
	bad := []map[string]any{
		{"session": map[string]any{"id": "x", "status": "DONE", "cart": cart, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0}, "html_snippet": ""},
		{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": map[string]any{}, "expires_at": "tomorrow"}, "html_snippet": ""},
		{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": map[string]any{"total_value": 1.5, "total_discount": 0, "pre_order": false, "items": []any{}}, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0}, "html_snippet": ""},
		{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": cart, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0, "secret": 1}, "html_snippet": ""},
		{"session": map[string]any{"status": "ACTIVE", "cart": cart, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0}, "html_snippet": ""},
		// Zero is a value: a missing amount is refused.
		{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": cart, "expires_at": "2026-11-20T09:00:00Z"}, "html_snippet": ""},
		{"session": map[string]any{"id": "x", "status": "ACTIVE", "cart": map[string]any{"total_value": 0, "pre_order": false, "items": []any{}}, "expires_at": "2026-11-20T09:00:00Z", "shipping_price": 0}, "html_snippet": ""},
	}
	for i, b := range bad {
		if err := e.doc.checkJSON("GET", "/v1/siw/session.get", 200, b); err == nil {
			t.Errorf("bad body %d accepted", i)
		}
	}
	if err := e.doc.checkJSON("GET", "/v1/siw/session.get", 418, valid); err == nil {
		t.Error("undocumented status accepted")
	}
}
