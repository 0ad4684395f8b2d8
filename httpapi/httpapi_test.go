package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/google/go-cmp/cmp"
)

var testTime = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// newTestServer returns a server with the demo keys, a fixed clock and a
// log captured in buf.
func newTestServer(t *testing.T, opts Options) (*server, *bytes.Buffer) {
	t.Helper()
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	keys.Add("demo-site-2", auth.HashKey("demo-key-2"))
	var buf bytes.Buffer
	opts.Keys = &keys
	opts.Logger = slog.New(slog.NewJSONHandler(&buf, nil))
	opts.Clock = deliverykit.NewManualClock(testTime)
	return newServer(opts), &buf
}

func bearer(key string) string { return "Bearer " + base64.StdEncoding.EncodeToString([]byte(key)) }

type call struct {
	method, path string
	header       map[string]string
	body         string
}

func (c call) do(t *testing.T, h http.Handler) (*http.Response, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	var body map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("%s %s: response is not JSON: %v", c.method, c.path, err)
	}
	if resp.Header.Get("X-Trace-Id") == "" {
		t.Errorf("%s %s: no X-Trace-Id header", c.method, c.path)
	}
	return resp, body
}

func TestAuthPerArea(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	tests := []struct {
		name       string
		call       call
		wantStatus int
		wantBody   map[string]any // compared on the keys it has
	}{
		{"tracking no key", call{method: "GET", path: "/v1/delivery_tracking/orders"}, 401,
			map[string]any{"error": "unauthenticated: missing or invalid API key"}},
		{"tracking raw key instead of base64", call{method: "GET", path: "/v1/delivery_tracking/orders", header: map[string]string{"Authorization": "Bearer demo-key"}}, 401,
			map[string]any{"error": "unauthenticated: missing or invalid API key"}},
		{"tracking wrong key", call{method: "GET", path: "/v1/delivery_tracking/orders", header: map[string]string{"Authorization": bearer("nope")}}, 401, nil},
		{"tracking good key", call{method: "GET", path: "/v1/delivery_tracking/nothing-here", header: map[string]string{"Authorization": bearer("demo-key")}}, 404,
			map[string]any{"error": "not found: no such endpoint: /v1/delivery_tracking/nothing-here"}},
		{"checkout lower-case bearer unpadded", call{method: "GET", path: "/v1/siw/x", header: map[string]string{"Authorization": "bearer " + base64.RawStdEncoding.EncodeToString([]byte("demo-key-2"))}}, 404, nil},
		{"shipment no key", call{method: "POST", path: "/v1/som/x"}, 401, nil},
		{"session no key", call{method: "GET", path: "/delivery/v1/sessions/abc"}, 401,
			map[string]any{"code": float64(16), "message": "missing or invalid API key", "details": []any{}}},
		{"session raw key", call{method: "GET", path: "/delivery/v1/x", header: map[string]string{"Authorization": "demo-key"}}, 404,
			map[string]any{"code": float64(5)}},
		{"session bearer key", call{method: "GET", path: "/delivery/v1/x", header: map[string]string{"Authorization": "Bearer demo-key"}}, 404, nil},
		{"returns no key", call{method: "GET", path: "/returns/merchant/order"}, 401,
			map[string]any{"status": float64(401), "error": "Unauthorized", "message": "missing or invalid API key", "path": "/returns/merchant/order", "timestamp": "2026-11-22T10:00:00.000Z"}},
		{"returns bearer is not its scheme", call{method: "GET", path: "/returns/merchant/order", header: map[string]string{"Authorization": bearer("demo-key")}}, 401, nil},
		{"returns good key", call{method: "GET", path: "/returns/x", header: map[string]string{"X-Api-Key": "demo-key"}}, 404,
			map[string]any{"status": float64(404), "error": "Not Found"}},
		{"outside every area", call{method: "GET", path: "/elsewhere"}, 404,
			map[string]any{"error": "not found: no such endpoint: /elsewhere"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.call.do(t, s.handler)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("status = %d, want %d; body %v", resp.StatusCode, tt.wantStatus, body)
			}
			got := map[string]any{}
			for k := range tt.wantBody {
				got[k] = body[k]
			}
			if diff := cmp.Diff(tt.wantBody, got, cmp.Comparer(func(a, b map[string]any) bool { return len(a) == 0 && len(b) == 0 || cmp.Equal(a, b) })); tt.wantBody != nil && diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}
}

func TestEndpointErrorsAndLimits(t *testing.T) {
	s, logs := newTestServer(t, Options{MaxBodyBytes: 64})
	type req struct {
		Name  string `json:"name"`
		Count int32  `json:"count"`
		Tags  []string
	}
	var gotSite string
	var gotReq req
	s.route(areaTracking, "/v1/delivery_tracking/test", map[string]endpoint{
		"POST": func(w http.ResponseWriter, r *http.Request, site string) error {
			gotSite = site
			gotReq = req{}
			if err := decodeJSON(r, &gotReq); err != nil {
				return err
			}
			if err := checkSite(site, r.URL.Query().Get("site_id")); err != nil {
				return err
			}
			switch gotReq.Name {
			case "":
				return deliverykit.InvalidField("name", "required", "is required")
			case "panic":
				panic("secret internal state")
			case "boom":
				return errors.New("database password=hunter2 rejected")
			case "conflict":
				return deliverykit.E(deliverykit.KindConflict, "session changed concurrently")
			case "done":
				return deliverykit.E(deliverykit.KindFailedPrecondition, "session is COMPLETE")
			}
			writeJSON(w, 200, gotReq)
			return nil
		},
	})
	auth := map[string]string{"Authorization": bearer("demo-key")}
	tests := []struct {
		name       string
		call       call
		wantStatus int
		wantError  string
		wantFields []string
	}{
		{"ok, unknown fields ignored", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"x","count":2,"extra":{"a":1}}`}, 200, "", nil},
		{"empty body is an empty object", call{"POST", "/v1/delivery_tracking/test", auth, ``}, 400, "invalid argument: invalid request: name: is required", []string{"name"}},
		{"malformed", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":`}, 400, "", []string{""}},
		{"wrong type", call{"POST", "/v1/delivery_tracking/test", auth, `{"count":"two"}`}, 400, "invalid argument: invalid request: count: expected an integer, got string \"two\"", []string{"count"}},
		{"out of range", call{"POST", "/v1/delivery_tracking/test", auth, `{"count":99999999999}`}, 400, "", []string{"count"}},
		{"too large", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"` + strings.Repeat("x", 100) + `"}`}, 413, "request too large: request body too large: the limit is 64 bytes", nil},
		{"method not allowed", call{"GET", "/v1/delivery_tracking/test", auth, ``}, 405, "method not allowed: GET is not allowed here; allowed: POST", nil},
		{"other site", call{"POST", "/v1/delivery_tracking/test?site_id=demo-site-2", auth, `{"name":"x"}`}, 403, "", []string{"site_id"}},
		{"panic", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"panic"}`}, 500, "internal: internal error", nil},
		{"internal error", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"boom"}`}, 500, "internal: internal error", nil},
		{"conflict", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"conflict"}`}, 409, "conflict: session changed concurrently", nil},
		{"failed precondition", call{"POST", "/v1/delivery_tracking/test", auth, `{"name":"done"}`}, 400, "failed precondition: session is COMPLETE", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.call.do(t, s.handler)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %v", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantStatus == 200 {
				if gotSite != "demo-site" {
					t.Errorf("site = %q", gotSite)
				}
				return
			}
			if tt.wantError != "" && body["error"] != tt.wantError {
				t.Errorf("error = %q, want %q", body["error"], tt.wantError)
			}
			if body["trace_id"] != resp.Header.Get("X-Trace-Id") {
				t.Errorf("trace_id %v != header %q", body["trace_id"], resp.Header.Get("X-Trace-Id"))
			}
			var fields []string
			details, _ := body["details"].([]any)
			for _, d := range details {
				fields = append(fields, d.(map[string]any)["field"].(string))
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("detail fields (-want +got):\n%s", diff)
			}
			if tt.wantStatus == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow = %q", resp.Header.Get("Allow"))
			}
		})
	}
	// Internals go to the log with the trace id, never to the wire.
	log := logs.String()
	for _, want := range []string{"secret internal state", "hunter2", `"stack"`} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q", want)
		}
	}
	if strings.Contains(log, "demo-key") || strings.Contains(log, base64.StdEncoding.EncodeToString([]byte("demo-key"))) {
		t.Errorf("log contains the API key:\n%s", log)
	}
}

func TestTraceID(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	tests := []struct {
		sent string
		keep bool
	}{
		{"", false},
		{"abc-123_X.y", true},
		{"bad id with spaces", false},
		{strings.Repeat("a", 129), false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("GET", "/healthz", nil)
		if tt.sent != "" {
			req.Header.Set("X-Trace-Id", tt.sent)
		}
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		got := rec.Header().Get("X-Trace-Id")
		if tt.keep && got != tt.sent || !tt.keep && (got == tt.sent || len(got) != 32) {
			t.Errorf("sent %q, got %q", tt.sent, got)
		}
	}
}

func TestHealthz(t *testing.T) {
	failing := func(context.Context) error { return errors.New("store closed") }
	for _, tt := range []struct {
		health  func(context.Context) error
		version string
		path    string
		status  int
		body    string
	}{
		{nil, "", "/healthz", 200, `{"status":"ok"}`},
		{func(context.Context) error { return nil }, "", "/healthz", 200, `{"status":"ok"}`},
		{failing, "", "/healthz", 503, `{"status":"unavailable"}`},
		{nil, "v0.3.0", "/healthz", 200, `{"status":"ok","version":"v0.3.0"}`},
		{failing, "(devel)", "/healthz", 503, `{"status":"unavailable","version":"(devel)"}`},
		// /readyz is for load balancers, which need no version.
		{nil, "v0.3.0", "/readyz", 200, `{"status":"ok"}`},
	} {
		s, _ := newTestServer(t, Options{Health: tt.health, Version: tt.version})
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, httptest.NewRequest("GET", tt.path, nil))
		if rec.Code != tt.status || strings.TrimSpace(rec.Body.String()) != tt.body {
			t.Errorf("%s with version %q = %d %s, want %d %s", tt.path, tt.version, rec.Code, rec.Body, tt.status, tt.body)
		}
	}
}

func TestRPCErrorDetails(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	s.route(areaSession, "POST /delivery/v1/test", map[string]endpoint{
		"POST": func(w http.ResponseWriter, r *http.Request, site string) error {
			return deliverykit.InvalidField("purchase.country_code", "iso3166_1_alpha2", "must be an ISO 3166-1 alpha-2 code")
		},
	})
	resp, body := call{method: "POST", path: "/delivery/v1/test", header: map[string]string{"Authorization": "demo-key"}}.do(t, s.handler)
	want := map[string]any{
		"code":    float64(3),
		"message": "invalid request: purchase.country_code: must be an ISO 3166-1 alpha-2 code",
		"details": []any{map[string]any{
			"@type": "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": []any{map[string]any{
				"field": "purchase.country_code", "description": "must be an ISO 3166-1 alpha-2 code", "reason": "iso3166_1_alpha2",
			}},
		}},
	}
	if resp.StatusCode != 400 {
		t.Errorf("status = %d", resp.StatusCode)
	}
	if diff := cmp.Diff(want, body); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}
}

func TestInProcessClient(t *testing.T) {
	s, _ := newTestServer(t, Options{})
	s.route(areaCheckout, "/v1/siw/echo", map[string]endpoint{
		"POST": func(w http.ResponseWriter, r *http.Request, site string) error {
			var v map[string]any
			if err := decodeJSON(r, &v); err != nil {
				return err
			}
			v["site"] = site
			writeJSON(w, 200, v)
			return nil
		},
	})
	client := NewInProcessClient(s.handler)
	req, _ := http.NewRequest("POST", "http://deliverykit.invalid/v1/siw/echo", strings.NewReader(`{"a":1}`))
	req.Header.Set("Authorization", bearer("demo-key-2"))
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"a":1,"site":"demo-site-2"}` {
		t.Errorf("got %d %s", resp.StatusCode, b)
	}
	if resp.Request != req {
		t.Error("resp.Request is not the client's request")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ = http.NewRequestWithContext(ctx, "GET", "http://x/healthz", nil)
	if _, err := client.Do(req); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request error = %v", err)
	}
}

// TestBodyLimitWithoutLength: a body sent without a declared length is cut
// off by the limit as it is read; one with a declared length past the
// limit is refused before reading.
func TestBodyLimitWithoutLength(t *testing.T) {
	s, _ := newTestServer(t, Options{MaxBodyBytes: 64})
	read := 0
	s.route(areaTracking, "/v1/delivery_tracking/limit", map[string]endpoint{
		"POST": func(w http.ResponseWriter, r *http.Request, site string) error {
			var v map[string]any
			err := decodeJSON(r, &v)
			read++
			return err
		},
	})
	for _, length := range []int64{-1, 200} {
		body := `{"name":"` + strings.Repeat("x", 100) + `"}`
		req := httptest.NewRequest("POST", "/v1/delivery_tracking/limit", io.MultiReader(strings.NewReader(body)))
		req.ContentLength = length
		req.Header.Set("Authorization", bearer("demo-key"))
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("length %d: status %d, want 413: %s", length, rec.Code, rec.Body)
		}
	}
	if read != 2 {
		t.Errorf("endpoint ran %d times", read)
	}
}
