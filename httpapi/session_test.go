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
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// sessNow is a Thursday morning in Stockholm.
var sessNow = time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)

type sessEnv struct {
	t       *testing.T
	handler http.Handler
	clock   *deliverykit.ManualClock
	doc     *apiDoc
}

// newSessEnv serves area D over the demo catalog; mods change the
// session service's options.
func newSessEnv(t *testing.T, mods ...func(*session.Options)) *sessEnv {
	t.Helper()
	clock := deliverykit.NewManualClock(sessNow)
	// checkout.Engines satisfies session.EngineSource: one engine per
	// site serves both session styles.
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	opts := session.Options{Engines: engines, Clock: clock}
	for _, m := range mods {
		m(&opts)
	}
	svc, err := session.New(memory.New(), opts)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, Options{Session: svc})
	return &sessEnv{t: t, handler: s.handler, clock: clock, doc: sessionAPI(t)}
}

type sessResp struct {
	status int
	body   map[string]any
	raw    string
}

var sessKey = map[string]string{"authorization": "demo-key"}

// do sends a request and validates the answer against the OpenAPI
// document: status documented for the operation, body matching the schema
// with no undocumented property.
func (e *sessEnv) do(method, path string, header map[string]string, body string) sessResp {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	res := rec.Result()
	raw, _ := io.ReadAll(res.Body)
	r := sessResp{status: res.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("%s %s: response is not a JSON object: %v\n%s", method, path, err, raw)
	}
	if err := e.doc.check(req, res.StatusCode, res.Header, raw); err != nil {
		e.t.Errorf("%s %s: response does not match the OpenAPI document: %v\n%s", method, path, err, raw)
	}
	return r
}

const sessBody = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": 45000, "locales": ["sv-SE"]},
  "deliveries": [{
    "id": "d1",
    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-19T08:00:00Z"}}],
    "recipient_contact": {"address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}
  }],
  "some_future_field": {"x": 1}
}`

func withEtag(body, etag string) string {
	b, _ := json.Marshal(etag)
	return strings.Replace(body, `"purchase":`, `"etag": `+string(b)+`, "purchase":`, 1)
}

// rpcFields returns the code and the fields of the BadRequest detail.
func rpcFields(body map[string]any) (float64, []string) {
	code, _ := body["code"].(float64)
	var fields []string
	details, _ := body["details"].([]any)
	for _, d := range details {
		dm := d.(map[string]any)
		if dm["@type"] != "type.googleapis.com/google.rpc.BadRequest" {
			continue
		}
		for _, fv := range dm["fieldViolations"].([]any) {
			fields = append(fields, fv.(map[string]any)["field"].(string))
		}
	}
	return code, fields
}

func TestSessionHTTPFlow(t *testing.T) {
	e := newSessEnv(t)
	r := e.do("POST", "/delivery/v1/sessions", sessKey, sessBody)
	if r.status != 200 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	name, _ := r.body["name"].(string)
	etag, _ := r.body["etag"].(string)
	id := strings.TrimPrefix(name, "sessions/")
	if !strings.HasPrefix(name, "sessions/") || len(id) < 20 || etag == "" || r.body["state"] != "ACTIVE" ||
		r.body["create_time"] != "2026-11-19T09:00:00Z" {
		t.Errorf("create: %s", r.raw)
	}
	// int64 amounts are strings, whichever form came in.
	if jsonPath(r.body, "purchase.total_value") != "45000" || jsonPath(r.body, "deliveries.0.delivery_categories.0.delivery_options.0.price") != "4900" ||
		jsonPath(r.body, "returns_promise.return_cost") != "4900" {
		t.Errorf("int64 as strings: %s", r.raw)
	}
	url := "/delivery/v1/sessions/" + id

	// A Bearer prefix is accepted too.
	g := e.do("GET", url, map[string]string{"Authorization": "Bearer demo-key"}, "")
	if g.status != 200 || !cmp.Equal(g.body, r.body) {
		t.Errorf("get: %d\n%s", g.status, cmp.Diff(r.body, g.body))
	}

	p := e.do("PATCH", url, sessKey, withEtag(strings.Replace(sessBody, `"total_value": 45000`, `"total_value": "150000"`, 1), etag))
	if p.status != 200 || p.body["etag"] == etag || jsonPath(p.body, "deliveries.0.delivery_categories.1.delivery_options.0.price") != "0" {
		t.Fatalf("patch: %d %s", p.status, p.raw)
	}
	// Read-only fields in a request are ignored.
	ro := e.do("PATCH", url, sessKey, strings.Replace(sessBody, `"purchase":`, `"state": "COMPLETED", "create_time": "2020-01-01T00:00:00Z", "returns_promise": {"is_unavailable": true}, "purchase":`, 1))
	if ro.status != 200 || ro.body["state"] != "ACTIVE" || ro.body["create_time"] != "2026-11-19T09:00:00Z" || jsonPath(ro.body, "returns_promise.is_unavailable") != nil {
		t.Errorf("patch with read-only fields: %d %s", ro.status, ro.raw)
	}
	p = e.do("PATCH", url, sessKey, withEtag(strings.Replace(sessBody, `"total_value": 45000`, `"total_value": "150000"`, 1), ro.body["etag"].(string)))
	if p.status != 200 {
		t.Fatalf("patch: %d %s", p.status, p.raw)
	}
	// The etag read before the patches is stale now: ABORTED.
	st := e.do("PATCH", url, sessKey, withEtag(sessBody, etag))
	if code, _ := rpcFields(st.body); st.status != 409 || code != 10 {
		t.Errorf("stale patch: %d %s", st.status, st.raw)
	}

	c := e.do("POST", url+":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "addon_ids": ["carry-in"], "external_id": "order-1"}], "etag": `+fmt.Sprintf("%q", p.body["etag"])+`}`)
	if c.status != 200 || jsonPath(c.body, "session.state") != "COMPLETED" || jsonPath(c.body, "session.deliveries.0.external_id") != "order-1" ||
		jsonPath(c.body, "session.deliveries.0.tos_id") == nil || jsonPath(c.body, "session.deliveries.0.delivery_categories.1.chosen") != true {
		t.Fatalf("complete: %d %s", c.status, c.raw)
	}

	cv := e.do("POST", url+":convert?format=AGENTIC_CHECKOUT", sessKey, "")
	if cv.status != 200 || !cmp.Equal(cv.body["native"], c.body["session"]) ||
		jsonPath(cv.body, "agentic_checkout.deliveries.0.fulfillment_option_id") != "home/north-parcel-home" ||
		jsonPath(cv.body, "agentic_checkout.deliveries.0.fulfillment_options.0.type") != "shipping" {
		t.Errorf("convert: %d %s", cv.status, cv.raw)
	}
	// The newer protocol: the chosen option with its addon, selected for
	// the delivery's items (the OpenAPI check covers the shape).
	cv = e.do("POST", url+":convert?format=AGENTIC_CHECKOUT&acp_version=2026-04-17", sessKey, "")
	if cv.status != 200 || jsonPath(cv.body, "agentic_checkout.protocol.version") != "2026-04-17" ||
		jsonPath(cv.body, "agentic_checkout.selected_fulfillment_options.0.option_id") != "home/north-parcel-home" ||
		jsonPath(cv.body, "agentic_checkout.totals.1.amount") != 19900.0 || jsonPath(cv.body, "agentic_checkout.status") != "completed" {
		t.Errorf("convert 2026-04-17: %d %s", cv.status, cv.raw)
	}
	if g := e.do("GET", url, sessKey, ""); g.body["etag"] != jsonPath(c.body, "session.etag") {
		t.Errorf("convert changed the etag: %v → %v", jsonPath(c.body, "session.etag"), g.body["etag"])
	}
	for _, q := range []string{"", "?format=FORMAT_UNSPECIFIED"} {
		cv = e.do("POST", url+":convert"+q, sessKey, "")
		if _, ok := cv.body["agentic_checkout"]; cv.status != 200 || ok || cv.body["native"] == nil {
			t.Errorf("convert%s: %d %s", q, cv.status, cv.raw)
		}
	}

	// COMPLETED is final: FAILED_PRECONDITION.
	for _, req := range []struct{ method, path, body string }{
		{"PATCH", url, sessBody},
		{"POST", url + ":complete", `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home"}]}`},
	} {
		r := e.do(req.method, req.path, sessKey, req.body)
		if code, _ := rpcFields(r.body); r.status != 400 || code != 9 || !strings.Contains(r.body["message"].(string), "COMPLETED") {
			t.Errorf("%s %s after complete: %d %s", req.method, req.path, r.status, r.raw)
		}
	}
}

func TestSessionHTTPErrors(t *testing.T) {
	e := newSessEnv(t)
	r := e.do("POST", "/delivery/v1/sessions", sessKey, sessBody)
	url := "/delivery/v1/sessions/" + strings.TrimPrefix(r.body["name"].(string), "sessions/")
	expiring := newSessEnv(t)
	r = expiring.do("POST", "/delivery/v1/sessions", sessKey, sessBody)
	expURL := "/delivery/v1/sessions/" + strings.TrimPrefix(r.body["name"].(string), "sessions/")
	expiring.clock.Advance(time.Hour)

	tests := []struct {
		name       string
		env        *sessEnv
		method     string
		path       string
		header     map[string]string
		body       string
		wantStatus int
		wantCode   float64
		wantFields []string
	}{
		{"no key", e, "POST", "/delivery/v1/sessions", nil, sessBody, 401, 16, nil},
		{"unknown key", e, "GET", url, map[string]string{"authorization": "nope"}, "", 401, 16, nil},
		{"weight 0", e, "POST", "/delivery/v1/sessions", sessKey, strings.Replace(sessBody, `"weight": 800`, `"weight": 0`, 1), 400, 3,
			[]string{"deliveries[0].line_items[0].weight"}},
		{"negative total", e, "POST", "/delivery/v1/sessions", sessKey, strings.Replace(sessBody, `"total_value": 45000`, `"total_value": "-1"`, 1), 400, 3,
			[]string{"purchase.total_value"}},
		{"latitude out of range", e, "POST", "/delivery/v1/sessions", sessKey, strings.Replace(sessBody, `"city": "Stockholm"`, `"city": "Stockholm", "coordinates": {"lat": 91, "lng": 18}`, 1), 400, 3,
			[]string{"deliveries[0].recipient_contact.address.coordinates.lat"}},
		{"malformed locale", e, "POST", "/delivery/v1/sessions", sessKey, strings.Replace(sessBody, `"sv-SE"`, `"swedish"`, 1), 400, 3, []string{"purchase.locales[0]"}},
		{"price not a number", e, "POST", "/delivery/v1/sessions", sessKey, strings.Replace(sessBody, `"price": "45000"`, `"price": "cheap"`, 1), 400, 3,
			[]string{"deliveries[0].line_items[0].price"}},
		{"malformed JSON", e, "POST", "/delivery/v1/sessions", sessKey, `{"purchase": `, 400, 3, []string{""}},
		{"no purchase", e, "POST", "/delivery/v1/sessions", sessKey, `{}`, 400, 3, []string{"deliveries", "purchase"}},
		{"unknown session", e, "GET", "/delivery/v1/sessions/nope", sessKey, "", 404, 5, nil},
		{"another site's session", e, "GET", url, map[string]string{"authorization": "demo-key-2"}, "", 404, 5, nil},
		{"name mismatch", e, "PATCH", url, sessKey, strings.Replace(sessBody, `"purchase":`, `"name": "sessions/other", "purchase":`, 1), 400, 3, []string{"name"}},
		{"malformed etag", e, "PATCH", url, sessKey, withEtag(sessBody, "1"), 409, 10, nil},
		{"unknown verb", e, "POST", url + ":cancel", sessKey, "", 404, 5, nil},
		{"no verb", e, "POST", url, sessKey, "", 404, 5, nil},
		{"bad format", e, "POST", url + ":convert?format=PDF", sessKey, "", 400, 3, []string{"format"}},
		{"unknown protocol version", e, "POST", url + ":convert?format=AGENTIC_CHECKOUT&acp_version=2026-01-30", sessKey, "", 400, 3, []string{"acp_version"}},
		{"method not allowed", e, "DELETE", url, sessKey, "", 405, 12, nil},
		{"complete without choices", e, "POST", url + ":complete", sessKey, `{}`, 400, 3, []string{"delivery_choices"}},
		{"complete unknown option", e, "POST", url + ":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "x"}]}`, 400, 3,
			[]string{"delivery_choices[0].option_id"}},
		{"complete unknown delivery", e, "POST", url + ":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d9", "option_id": "x"}]}`, 400, 3,
			[]string{"delivery_choices[0].delivery_id"}},
		{"complete unknown addon", e, "POST", url + ":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "addon_ids": ["x"]}]}`, 400, 3,
			[]string{"delivery_choices[0].addon_ids[0]"}},
		{"complete expired option", expiring, "POST", expURL + ":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home"}]}`, 400, 9, nil},
		{"unknown path", e, "GET", "/delivery/v2/things", sessKey, "", 404, 5, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.env.do(tt.method, tt.path, tt.header, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", r.status, tt.wantStatus, r.raw)
			}
			code, fields := rpcFields(r.body)
			if code != tt.wantCode {
				t.Errorf("code = %v, want %v: %s", code, tt.wantCode, r.raw)
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("fieldViolations (-want +got):\n%s\n%s", diff, r.raw)
			}
		})
	}
}

// TestSessionHTTPConcurrentPatches: 32 clients each GET the session and
// PATCH it with the etag they read. Every answer is 200 or 409 ABORTED;
// the successful patches form one unbroken chain of etags, so none was
// lost, and the final session holds the last of them.
func TestSessionHTTPConcurrentPatches(t *testing.T) {
	e := newSessEnv(t)
	r := e.do("POST", "/delivery/v1/sessions", sessKey, sessBody)
	url := "/delivery/v1/sessions/" + strings.TrimPrefix(r.body["name"].(string), "sessions/")
	first := r.body["etag"].(string)
	send := func(method, body string) (int, map[string]any) {
		req := httptest.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("authorization", "demo-key")
		rec := httptest.NewRecorder()
		e.handler.ServeHTTP(rec, req)
		var m map[string]any
		json.Unmarshal(rec.Body.Bytes(), &m)
		return rec.Code, m
	}
	type result struct {
		read, wrote, value string
		status             int
		code               float64
	}
	results := make([]result, 32)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, cur := send("GET", "")
			etag, _ := cur["etag"].(string)
			value := fmt.Sprint(1000 + i)
			st, body := send("PATCH", withEtag(strings.Replace(sessBody, `"total_value": 45000`, `"total_value": "`+value+`"`, 1), etag))
			res := result{read: etag, value: value, status: st}
			res.code, _ = body["code"].(float64)
			res.wrote, _ = body["etag"].(string)
			results[i] = res
		}()
	}
	wg.Wait()
	next := map[string]result{}
	for i, r := range results {
		switch {
		case r.status == 200:
			if _, dup := next[r.read]; dup {
				t.Errorf("two patches succeeded with etag %s", r.read)
			}
			next[r.read] = r
		case r.status == 409 && r.code == 10:
		default:
			t.Errorf("patch %d: %d code %v", i, r.status, r.code)
		}
	}
	etag, value, n := first, "45000", 0
	for w, ok := next[etag]; ok; w, ok = next[etag] {
		etag, value, n = w.wrote, w.value, n+1
	}
	if n != len(next) || n == 0 {
		t.Errorf("%d patches succeeded, %d on the chain", len(next), n)
	}
	_, final := send("GET", "")
	if final["etag"] != etag || jsonPath(final, "purchase.total_value") != value {
		t.Errorf("final: etag %v value %v, want %s %s", final["etag"], jsonPath(final, "purchase.total_value"), etag, value)
	}
	t.Logf("%d of 32 patches succeeded, the rest were ABORTED", n)
}

func TestSessionOpenAPIDocument(t *testing.T) {
	e := newSessEnv(t)
	// The served document is the embedded one the tests validate against
	// (loading it resolved every $ref and validated the document).
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/delivery/openapi.json", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), sessionOpenAPI) {
		t.Errorf("openapi.json: %d, not the embedded openapi/session.json", rec.Code)
	}
	paths := e.doc.doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	want := []string{"/openapi.json", "/v1/sessions", "/v1/sessions/{session_id}", "/v1/sessions/{session_id}:complete", "/v1/sessions/{session_id}:convert",
		"/v1/sessions/{session_id}:order"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("documented paths (-want +got):\n%s", diff)
	}
	// The response validation catches what it must.
	valid := map[string]any{"name": "sessions/x", "state": "ACTIVE", "purchase": map[string]any{"country_code": "SE", "currency_code": "SEK", "total_value": "45000"}, "deliveries": []any{}}
	if err := e.doc.checkJSON("GET", "/delivery/v1/sessions/x", 200, valid); err != nil {
		t.Errorf("valid body refused: %v", err)
	}
	bad := []map[string]any{
		{"name": "sessions/x", "purchase": map[string]any{"country_code": "SE", "currency_code": "SEK", "total_value": 45000}, "deliveries": []any{}},
		{"name": "sessions/x", "state": "DONE", "purchase": map[string]any{"country_code": "SE", "currency_code": "SEK"}, "deliveries": []any{}},
		{"name": "sessions/x", "purchase": map[string]any{"country_code": "SE", "currency_code": "SEK"}, "deliveries": []any{}, "secret": 1},
	}
	for i, b := range bad {
		if err := e.doc.checkJSON("GET", "/delivery/v1/sessions/x", 200, b); err == nil {
			t.Errorf("bad body %d accepted", i)
		}
	}
	if err := e.doc.checkJSON("GET", "/delivery/v1/sessions/x", 418, valid); err == nil {
		t.Error("undocumented status accepted")
	}
	// Custom methods are told apart from the resource they act on.
	if err := e.doc.checkJSON("POST", "/delivery/v1/sessions/x:complete", 200, valid); err == nil {
		t.Error("a Session accepted as the answer of :complete")
	}
	// Requests no operation is documented for are answered with a Status.
	status := map[string]any{"code": 12, "message": "DELETE is not allowed here", "details": []any{}}
	if err := e.doc.checkJSON("DELETE", "/delivery/v1/sessions/x", 405, status); err != nil {
		t.Errorf("catch-all Status refused: %v", err)
	}
	if err := e.doc.checkJSON("GET", "/delivery/v2/things", 404, map[string]any{"error": "x"}); err == nil {
		t.Error("catch-all answer that is not a Status accepted")
	}
}
