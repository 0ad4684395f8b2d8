package httpapi

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/google/go-cmp/cmp"
)

const webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

type webhooksEnv struct {
	svc  *webhook.Service
	h    http.Handler // every answer checked against openapi/webhooks.json
	gone atomic.Bool  // the receiver answers 410
}

func newWebhooksEnv(t *testing.T) *webhooksEnv {
	t.Helper()
	env := &webhooksEnv{}
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if env.gone.Load() {
			w.WriteHeader(http.StatusGone)
			return
		}
		io.WriteString(w, "thanks")
	}))
	t.Cleanup(receiver.Close)
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	ep := webhook.Endpoint{ID: "erp", URL: receiver.URL, Secrets: []string{webhookSecret}, Events: event.Types}
	svc, err := webhook.New(store, webhook.Options{
		Endpoints:    map[string][]webhook.Endpoint{"demo-site": {ep}, "demo-site-2": {ep}},
		Clock:        deliverykit.NewManualClock(testTime),
		Jitter:       func() float64 { return 0 },
		Logger:       slog.New(slog.DiscardHandler),
		AllowPrivate: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	env.svc = svc
	s, _ := newTestServer(t, Options{Webhooks: svc})
	env.h = webhooksAPI(t).handler(t, s.handler)
	return env
}

func (env *webhooksEnv) send(t *testing.T, id, subject string) {
	t.Helper()
	ev, err := event.New(id, "demo-site", subject, testTime, event.ParcelChanged{TrackingNumber: subject, Step: "DELIVERED", Time: testTime})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.svc.Handle(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
	if _, err := env.svc.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
}

func wh(method, path, key string) call {
	c := call{method: method, path: "/v1/webhooks" + path}
	if key != "" {
		c.header = authed(key)
	}
	return c
}

func TestWebhooksAPI(t *testing.T) {
	env := newWebhooksEnv(t)
	env.send(t, "evt_1", "CP1")
	env.send(t, "evt_2", "CP2")

	resp, list := wh("GET", "/endpoints", "demo-key").do(t, env.h)
	if resp.StatusCode != 200 || str(list, "endpoints", 0, "id") != "erp" || list["endpoints"].([]any)[0].(map[string]any)["enabled"] != true {
		t.Fatalf("endpoints: %d %v", resp.StatusCode, list)
	}

	resp, page := wh("GET", "/endpoints/erp/deliveries?limit=1", "demo-key").do(t, env.h)
	if resp.StatusCode != 200 {
		t.Fatalf("deliveries: %d %v", resp.StatusCode, page)
	}
	got := map[string]any{}
	d := page["deliveries"].([]any)[0].(map[string]any)
	for _, k := range []string{"event_id", "event_type", "subject", "status", "attempts", "last_response_code", "last_response"} {
		got[k] = d[k]
	}
	want := map[string]any{"event_id": "evt_2", "event_type": "parcel.changed", "subject": "CP2", "status": "delivered",
		"attempts": float64(1), "last_response_code": float64(200), "last_response": "thanks"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("newest delivery (-want +got):\n%s", diff)
	}
	_, older := wh("GET", "/endpoints/erp/deliveries?before="+str(page, "next_before"), "demo-key").do(t, env.h)
	if ds := older["deliveries"].([]any); len(ds) != 1 || str(ds[0], "event_id") != "evt_1" {
		t.Errorf("older page: %v", older)
	}

	resp, again := wh("POST", "/endpoints/erp/deliveries/evt_1:redeliver", "demo-key").do(t, env.h)
	if resp.StatusCode != 200 || again["status"] != "pending" || again["redelivery"] != true || again["event_id"] != "evt_1" {
		t.Fatalf("redeliver: %d %v", resp.StatusCode, again)
	}

	// A 410 disables the endpoint until it is enabled again.
	env.gone.Store(true)
	env.send(t, "evt_3", "CP3")
	_, ep := wh("GET", "/endpoints/erp", "demo-key").do(t, env.h)
	if ep["enabled"] != false || ep["disabled_reason"] != "the endpoint answered 410 Gone" {
		t.Errorf("endpoint after a 410: %v", ep)
	}
	if resp, body := wh("POST", "/endpoints/erp/deliveries/evt_1:redeliver", "demo-key").do(t, env.h); resp.StatusCode != 400 {
		t.Errorf("redeliver to a disabled endpoint: %d %v", resp.StatusCode, body)
	}
	if resp, body := wh("POST", "/endpoints/erp:enable", "demo-key").do(t, env.h); resp.StatusCode != 200 || body["enabled"] != true {
		t.Errorf("enable: %d %v", resp.StatusCode, body)
	}
}

func TestWebhooksAPIErrors(t *testing.T) {
	env := newWebhooksEnv(t)
	env.send(t, "evt_1", "CP1")
	tests := []struct {
		name   string
		call   call
		status int
		error  string
	}{
		{"no key", wh("GET", "/endpoints", ""), 401, "unauthenticated: missing or invalid API key"},
		{"another site named", wh("GET", "/endpoints?site_id=demo-site-2", "demo-key"), 403, "permission denied: the API key does not belong to this site: site_id: is not the site of the API key"},
		{"another site's event", wh("POST", "/endpoints/erp/deliveries/evt_1:redeliver", "demo-key-2"), 404, "not found: no delivery of this event to the endpoint"},
		{"unknown endpoint", wh("GET", "/endpoints/nope/deliveries", "demo-key"), 404, "not found: no such webhook endpoint"},
		{"unknown endpoint read", wh("GET", "/endpoints/nope", "demo-key"), 404, "not found: no such webhook endpoint"},
		{"limit not a number", wh("GET", "/endpoints/erp/deliveries?limit=ten", "demo-key"), 400, "invalid argument: invalid request: limit: must be an integer"},
		{"negative limit", wh("GET", "/endpoints/erp/deliveries?limit=-1", "demo-key"), 400, "invalid argument: invalid request: limit: must not be negative"},
		{"malformed before", wh("GET", "/endpoints/erp/deliveries?before=x", "demo-key"), 400, "invalid argument: invalid request: before: must be the id of a delivery"},
		{"unknown verb", wh("POST", "/endpoints/erp:disable", "demo-key"), 404, "not found: POST needs a custom method: /v1/webhooks/endpoints/{id}:enable"},
		{"redeliver without verb", wh("POST", "/endpoints/erp/deliveries/evt_1", "demo-key"), 404, "not found: POST needs a custom method: /v1/webhooks/endpoints/{id}/deliveries/{event_id}:redeliver"},
		{"unknown path", wh("GET", "/nothing", "demo-key"), 404, "not found: no such endpoint: /v1/webhooks/nothing"},
		{"wrong method", wh("DELETE", "/endpoints", "demo-key"), 405, "method not allowed: DELETE is not allowed here; allowed: GET"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.call.do(t, env.h)
			if resp.StatusCode != tt.status || body["error"] != tt.error {
				t.Errorf("%d %q, want %d %q", resp.StatusCode, body["error"], tt.status, tt.error)
			}
		})
	}
	// The other site sees its own endpoint of the same id, with no
	// deliveries.
	if resp, body := wh("GET", "/endpoints/erp/deliveries", "demo-key-2").do(t, env.h); resp.StatusCode != 200 || len(body["deliveries"].([]any)) != 0 {
		t.Errorf("demo-site-2's deliveries: %d %v", resp.StatusCode, body)
	}
}

func TestWebhooksAPINoSecrets(t *testing.T) {
	env := newWebhooksEnv(t)
	for _, path := range []string{"/endpoints", "/endpoints/erp"} {
		req := httptest.NewRequest("GET", "/v1/webhooks"+path, nil)
		req.Header.Set("Authorization", bearer("demo-key"))
		rec := httptest.NewRecorder()
		env.h.ServeHTTP(rec, req)
		if rec.Code != 200 || strings.Contains(rec.Body.String(), "whsec_") || strings.Contains(rec.Body.String(), webhookSecret[6:]) {
			t.Errorf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
	}
}

func TestWebhooksOpenAPIServed(t *testing.T) {
	env := newWebhooksEnv(t)
	req := httptest.NewRequest("GET", "/v1/webhooks/openapi.json", nil)
	rec := httptest.NewRecorder()
	env.h.ServeHTTP(rec, req)
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), webhooksOpenAPI) {
		t.Errorf("GET /v1/webhooks/openapi.json: %d, body equal to the embedded document: %v", rec.Code, bytes.Equal(rec.Body.Bytes(), webhooksOpenAPI))
	}
}
