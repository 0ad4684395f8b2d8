package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/google/go-cmp/cmp"
)

var trackingProducts = tracking.StaticProducts{
	"fastpost-pickup": {Ref: "fastpost-pickup", CarrierID: "fastpost", CarrierName: "FastPost", ProductID: "FP-P",
		DeliveryType: tracking.DeliveryPickup, TrackingURL: "https://track.example/fp?id={tracking_number}"},
}

// trackingEnv is a server with tracking and notify wired as the example
// server wires them: tracking's observer feeds notify.
type trackingEnv struct {
	s      *server
	clock  *deliverykit.ManualClock
	track  *tracking.Service
	notify *notify.Service
	sent   *notify.LogSender
	logs   *bytes.Buffer // the server's log
}

func newTrackingEnv(t *testing.T) *trackingEnv { return newTrackingEnvPortal(t, "http://portal.test") }

func newTrackingEnvPortal(t *testing.T, portal string) *trackingEnv {
	t.Helper()
	store := memory.New()
	env := &trackingEnv{clock: deliverykit.NewManualClock(testTime)}
	ids := &deliverykit.SequentialIDs{}
	env.sent = notify.NewLogSender(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ns, err := notify.New(store, notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: env.sent},
		Clock:   env.clock, IDs: ids,
	})
	if err != nil {
		t.Fatal(err)
	}
	// Parcel changes reach notify the way wiring connects them: through
	// the outbox, delivered as each change commits.
	d := outbox.New(store, outbox.Options{Clock: env.clock})
	d.Handle(event.TypeParcelChanged, "notify", ns.HandleParcelChanged)
	ts, err := tracking.New(d.Store(), tracking.Options{
		Products:  trackingProducts,
		Clock:     env.clock,
		IDs:       ids,
		PortalURL: portal,
		Sites:     map[string]tracking.Site{"demo-site": {Name: "Demo Outdoor Store"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	env.track, env.notify = ts, ns
	// The promise report, on a store without deliveries (package promise
	// tests what it counts).
	ps := promise.New(store, promise.Options{Clock: env.clock, Engines: func(string) (*options.Engine, bool) { return nil, false }})
	env.s, env.logs = newTestServer(t, Options{Tracking: ts, Notify: ns, Promises: ps})
	env.s.clock = env.clock // the page's "now" is tracking's
	return env
}

func authed(key string) map[string]string { return map[string]string{"Authorization": bearer(key)} }

const orderBody = `{
  "site_id": "demo-site", "external_id": "ORD-1", "carrier_product_ref": "fastpost-pickup",
  "sender": {"name": "Demo Outdoor Store"},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com"},
  "destination": {"address": {"city": "Stockholm", "country": "SE"}, "location_external_id": "pp-1",
    "operational_hours": {"mon": [{"start": "10:00:00", "end": "18:00:00"}]}},
  "delivery_type": "PICKUP",
  "cart": {"items": [{"sku": "MUG", "name": "Mug", "quantity": 2, "price": 9900, "discount": 0}],
    "total": 19800, "discount": 0, "currency": "SEK", "shipping_price": 4900},
  "some_future_field": true
}`

func (e *trackingEnv) mustOrder(t *testing.T) string {
	t.Helper()
	resp, body := call{method: "POST", path: "/v1/delivery_tracking/order", header: authed("demo-key"), body: orderBody}.do(t, e.h(t))
	if resp.StatusCode != 200 {
		t.Fatalf("order: %d %v", resp.StatusCode, body)
	}
	id, _ := body["id"].(string)
	resp, body = call{method: "POST", path: "/v1/delivery_tracking/parcel", header: authed("demo-key"),
		body: `{"tos_id": "` + id + `", "tracking_number": "TN1", "carrier_product_ref": "fastpost-pickup", "direction_type": "OUTBOUND",
		"receiver": {"name": "Alva Berg", "destination": {"pickup": {"id": "pp-1", "address": {"name": "Kiosk Central", "city": "Stockholm"}}}}}`}.do(t, e.h(t))
	if resp.StatusCode != 200 || len(body) != 0 {
		t.Fatalf("parcel: %d %v", resp.StatusCode, body)
	}
	return id
}

func TestTrackingHTTPFlow(t *testing.T) {
	e := newTrackingEnv(t)
	id := e.mustOrder(t)
	h := e.h(t)
	key := authed("demo-key")
	// Registering the same order again returns the same id.
	resp, body := call{method: "POST", path: "/v1/delivery_tracking/order", header: key, body: orderBody}.do(t, h)
	if resp.StatusCode != 200 || body["id"] != id {
		t.Fatalf("repeat order: %d %v, want id %s", resp.StatusCode, body, id)
	}
	events := []string{
		`{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"}`,
		`{"tracking_number": "TN1", "time": "2026-11-22T09:30:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"}`,
		`{"site_id": "demo-site", "tracking_number": "TN1", "time": "2026-11-22T09:45:00Z", "step": "STEP_ON_ROUTE"}`,
	}
	for _, b := range events {
		resp, body := call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key, body: b}.do(t, h)
		if resp.StatusCode != 200 {
			t.Fatalf("event %s: %d %v", b, resp.StatusCode, body)
		}
	}
	resp, body = call{method: "GET", path: "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number=TN1", header: key}.do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("parcels: %d %v", resp.StatusCode, body)
	}
	p := body["parcels"].([]any)[0].(map[string]any)
	want := map[string]any{"step": "STEP_ON_ROUTE", "time": "2026-11-22T09:45:00Z"}
	if diff := cmp.Diff(want, p["current_progress"]); diff != "" {
		t.Errorf("current_progress (-want +got):\n%s", diff)
	}
	// progress_history is newest first; current_progress is its first
	// element.
	wantHistory := []any{want, map[string]any{"step": "STEP_SUBMITTED_TO_CARRIER", "time": "2026-11-22T09:00:00Z"}}
	if diff := cmp.Diff(wantHistory, p["progress_history"]); diff != "" {
		t.Errorf("progress_history (-want +got):\n%s", diff)
	}
	if body["tos_id"] != id || body["external_id"] != "ORD-1" {
		t.Errorf("parcels body = %v", body)
	}

	resp, body = call{method: "GET", path: "/v1/delivery_tracking/orders?external_id=ORD-1&locale=de-DE", header: key}.do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("orders: %d %v", resp.StatusCode, body)
	}
	o := body["orders"].([]any)[0].(map[string]any)
	prices := o["cart"].(map[string]any)["prices"].(map[string]any)
	wantPrices := map[string]any{
		"shipping_components": []any{map[string]any{"name": "Versand", "price": float64(4900)}},
		"total":               map[string]any{"items_price": float64(19800), "price": float64(24700), "shipping_price": float64(4900)},
	}
	if diff := cmp.Diff(wantPrices, prices); diff != "" {
		t.Errorf("prices (-want +got):\n%s", diff)
	}
	if o["site_name"] != "Demo Outdoor Store" || o["items"] == nil || o["analytics_id"] == "" {
		t.Errorf("order = %v", o)
	}
	pp := o["parcels"].([]any)[0].(map[string]any)
	if pp["tracking_link"] != "https://track.example/fp?id=TN1" || pp["carrier"] != "carrier-fastpost" {
		t.Errorf("private parcel = %v", pp)
	}

	resp, body = call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: key,
		body: `{"site_id": "demo-site", "order_id": "ORD-1", "locale": "sv-SE"}`}.do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("link: %d %v", resp.StatusCode, body)
	}
	link := body["tracking_link"].(string)
	wantLinks := map[string]any{"links": []any{map[string]any{"type": "SERVICE_PORTAL_LINK", "url": link}}}
	if diff := cmp.Diff(wantLinks, body["tracking_links"]); diff != "" {
		t.Errorf("tracking_links (-want +got):\n%s", diff)
	}
	u, err := url.Parse(link)
	if err != nil || !strings.HasPrefix(link, "http://portal.test/v1/delivery_tracking/_/page/") {
		t.Fatalf("link = %q", link)
	}
	token := strings.TrimPrefix(u.Path, tracking.PagePath)
	resp, body = call{method: "GET", path: "/v1/delivery_tracking/parcels?token=" + token + "&tracking_number=ignored&external_id=ignored", header: key}.do(t, h)
	if resp.StatusCode != 200 || body["tos_id"] != id {
		t.Errorf("parcels by token: %d %v", resp.StatusCode, body)
	}

	// Notifications made by the events, sent by Dispatch, listed and
	// retriggered over HTTP.
	e.clock.Set(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	if n, err := e.notify.Dispatch(context.Background()); err != nil || n != 2 {
		t.Fatalf("dispatch = %d, %v", n, err)
	}
	resp, body = call{method: "GET", path: "/v1/delivery_tracking/notifications?site_id=demo-site&external_id=ORD-1", header: key}.do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("notifications: %d %v", resp.StatusCode, body)
	}
	ns := body["notifications"].([]any)
	var names []string
	for _, n := range ns {
		m := n.(map[string]any)
		names = append(names, m["name"].(string)+" "+m["status"].(string)+" "+m["channel"].(string)+" "+m["origin"].(string))
	}
	if diff := cmp.Diff([]string{"SUBMITTED_TO_CARRIER TRIGGERED EMAIL SYSTEM", "OUT_FOR_DELIVERY TRIGGERED EMAIL SYSTEM"}, names); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
	first := ns[1].(map[string]any)["id"].(string)
	resp, body = call{method: "POST", path: "/v1/delivery_tracking/notification.retrigger", header: key,
		body: `{"site_id": "demo-site", "notification_id": "` + first + `"}`}.do(t, h)
	if resp.StatusCode != 200 || body["notification_id"] == first || body["notification_id"] == "" {
		t.Fatalf("retrigger: %d %v", resp.StatusCode, body)
	}
	if got := len(e.sent.Sent()); got != 3 {
		t.Errorf("sent %d messages, want 3", got)
	}
}

func TestTrackingHTTPErrors(t *testing.T) {
	e := newTrackingEnv(t)
	id := e.mustOrder(t)
	key := authed("demo-key")
	tests := []struct {
		name       string
		call       call
		wantStatus int
		wantBody   map[string]any
	}{
		{"unknown product", call{method: "POST", path: "/v1/delivery_tracking/order", header: key,
			body: strings.Replace(orderBody, `"fastpost-pickup"`, `"nope"`, 1)}, 400,
			map[string]any{"error": "invalid argument: invalid request: carrier_product_ref: is not a carrier product of the site's catalog",
				"details": []any{map[string]any{"field": "carrier_product_ref", "rule": "known", "message": "is not a carrier product of the site's catalog"}}}},
		{"same external id, other content", call{method: "POST", path: "/v1/delivery_tracking/order", header: key,
			body: strings.Replace(orderBody, "Alva Berg", "Other", 1)}, 409, nil},
		{"wrong type", call{method: "POST", path: "/v1/delivery_tracking/order", header: key, body: `{"external_id": 5}`}, 400,
			map[string]any{"details": []any{map[string]any{"field": "external_id", "rule": "type", "message": "expected a string, got number"}}}},
		{"parcels both filters", call{method: "GET", path: "/v1/delivery_tracking/parcels?external_id=ORD-1&tracking_number=TN1", header: key}, 400, nil},
		{"parcels no filter", call{method: "GET", path: "/v1/delivery_tracking/parcels", header: key}, 400, nil},
		{"step that is an alert", call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key,
			body: `{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "step": "STEP_OUT_FOR_DELIVERY"}`}, 400,
			map[string]any{"details": []any{map[string]any{"field": "step", "rule": "step", "message": "must be a Step value other than STEP_UNKNOWN"}}}},
		{"illegal sequence", call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key,
			body: `{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "step": "STEP_RETURN_APPROVED"}`}, 400,
			map[string]any{"error": "failed precondition: step STEP_RETURN_APPROVED is only for RETURN parcels; this parcel is OUTBOUND"}},
		{"unknown parcel for event", call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: key,
			body: `{"tracking_number": "NOPE", "time": "2026-11-22T09:00:00Z", "step": "STEP_ON_ROUTE"}`}, 404, nil},
		{"retrigger unknown", call{method: "POST", path: "/v1/delivery_tracking/notification.retrigger", header: key,
			body: `{"notification_id": "ntf_nope"}`}, 404, nil},
		{"notifications without external id", call{method: "GET", path: "/v1/delivery_tracking/notifications", header: key}, 400, nil},
		{"method not allowed", call{method: "DELETE", path: "/v1/delivery_tracking/order", header: key}, 405, nil},
		{"no key", call{method: "GET", path: "/v1/delivery_tracking/parcels?external_id=ORD-1"}, 401, nil},
		{"link without order", call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: key,
			body: `{"locale": "sv-SE"}`}, 400, nil},
		{"parcel for unknown order", call{method: "POST", path: "/v1/delivery_tracking/parcel", header: key,
			body: `{"tos_id": "tos_nope", "tracking_number": "TN2", "carrier_product_ref": "fastpost-pickup", "direction_type": "OUTBOUND"}`}, 404, nil},
	}
	_ = id
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.call.do(t, e.h(t))
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %v", resp.StatusCode, tt.wantStatus, body)
			}
			if _, ok := body["trace_id"]; !ok {
				t.Errorf("no trace_id in %v", body)
			}
			for k, v := range tt.wantBody {
				if diff := cmp.Diff(v, body[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

// TestTrackingTenantIsolation checks that demo-site-2's key never reaches
// demo-site's orders, parcels, notifications or links.
func TestTrackingTenantIsolation(t *testing.T) {
	e := newTrackingEnv(t)
	id := e.mustOrder(t)
	h := e.h(t)
	resp, body := call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: authed("demo-key"),
		body: `{"tracking_number": "TN1", "time": "2026-11-22T09:30:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"}`}.do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("event: %d %v", resp.StatusCode, body)
	}
	_, body = call{method: "GET", path: "/v1/delivery_tracking/notifications?external_id=ORD-1", header: authed("demo-key")}.do(t, h)
	ntf := body["notifications"].([]any)[0].(map[string]any)["id"].(string)
	_, body = call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-1", "locale": "en"}`}.do(t, h)
	token := strings.TrimPrefix(strings.Split(body["tracking_link"].(string), "?")[0], "http://portal.test"+tracking.PagePath)

	other := authed("demo-key-2")
	tests := []struct {
		name       string
		call       call
		wantStatus int
	}{
		{"orders by external id", call{method: "GET", path: "/v1/delivery_tracking/orders?external_id=ORD-1", header: other}, 200},
		{"orders by email", call{method: "GET", path: "/v1/delivery_tracking/orders?email=alva@example.com", header: other}, 200},
		{"orders naming the other site", call{method: "GET", path: "/v1/delivery_tracking/orders?site_id=demo-site", header: other}, 403},
		{"parcels by external id", call{method: "GET", path: "/v1/delivery_tracking/parcels?external_id=ORD-1", header: other}, 404},
		{"parcels by tracking number", call{method: "GET", path: "/v1/delivery_tracking/parcels?tracking_number=TN1", header: other}, 404},
		{"parcels by token", call{method: "GET", path: "/v1/delivery_tracking/parcels?token=" + token, header: other}, 404},
		{"link by tos id", call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: other, body: `{"order_id": "` + id + `", "locale": "en"}`}, 404},
		{"link naming the other site", call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: other, body: `{"site_id": "demo-site", "order_id": "` + id + `", "locale": "en"}`}, 403},
		{"parcel on the other site's order", call{method: "POST", path: "/v1/delivery_tracking/parcel", header: other,
			body: `{"tos_id": "` + id + `", "tracking_number": "X", "carrier_product_ref": "fastpost-pickup", "direction_type": "OUTBOUND"}`}, 404},
		{"event on the other site's parcel", call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: other,
			body: `{"tracking_number": "TN1", "time": "2026-11-22T09:00:00Z", "step": "STEP_ON_ROUTE"}`}, 404},
		{"notifications", call{method: "GET", path: "/v1/delivery_tracking/notifications?external_id=ORD-1", header: other}, 200},
		{"retrigger", call{method: "POST", path: "/v1/delivery_tracking/notification.retrigger", header: other, body: `{"notification_id": "` + ntf + `"}`}, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := tt.call.do(t, h)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status = %d, want %d; body %v", resp.StatusCode, tt.wantStatus, body)
			}
			for _, list := range []string{"orders", "notifications"} {
				if v, ok := body[list]; ok && len(v.([]any)) != 0 {
					t.Errorf("%s leaked: %v", list, v)
				}
			}
			if strings.Contains(strings.ToLower(jsonString(body)), "alva") {
				t.Errorf("receiver data leaked: %v", body)
			}
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTrackingPageHTTP(t *testing.T) {
	e := newTrackingEnv(t)
	e.mustOrder(t)
	_, body := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-1", "locale": "de-DE"}`}.do(t, e.h(t))
	link := body["tracking_link"].(string)
	path := strings.TrimPrefix(link, "http://portal.test")
	tests := []struct {
		name, path, accept string
		wantStatus         int
		want               string
	}{
		{"link locale", path, "", 200, "Bestellung ORD-1"},
		{"accept-language without locale", strings.Split(path, "?")[0], "sv-SE,sv;q=0.9", 200, "Beställning ORD-1"},
		{"default English", strings.Split(path, "?")[0], "", 200, "Order ORD-1"},
		{"unknown token", tracking.PagePath + "tt_unknown", "", 404, "This tracking link is not valid."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Language", tt.accept)
			}
			rec := httptest.NewRecorder()
			e.h(t).ServeHTTP(rec, req) // no API key: the route is public
			if rec.Code != tt.wantStatus || !strings.Contains(rec.Body.String(), tt.want) {
				t.Fatalf("status %d, body lacks %q:\n%s", rec.Code, tt.want, rec.Body.String())
			}
			for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": pageCacheControl(tt.wantStatus), "Referrer-Policy": "no-referrer"} {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if strings.Contains(rec.Body.String(), "alva@example.com") {
				t.Error("the page shows the receiver's e-mail address")
			}
		})
	}
	req := httptest.NewRequest("POST", path, nil)
	rec := httptest.NewRecorder()
	e.s.handler.ServeHTTP(rec, req)
	if rec.Code != 405 {
		t.Errorf("POST page = %d", rec.Code)
	}

	// Expired and replaced links answer 410 with a page that says so and
	// shows nothing of the order.
	page := func(path string) (int, string) {
		t.Helper()
		rec := httptest.NewRecorder()
		e.h(t).ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code, rec.Body.String()
	}
	_, rotated := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-1", "locale": "en-GB", "rotate": true}`}.do(t, e.h(t))
	fresh := strings.TrimPrefix(rotated["tracking_link"].(string), "http://portal.test")
	if fresh == path || rotated["expires_at"] != "2027-02-20T10:00:00Z" {
		t.Fatalf("rotated link = %v", rotated)
	}
	const expired = "This tracking link has expired. Please ask the shop you ordered from for a new link."
	for _, c := range []struct {
		name, path string
		advance    time.Duration
		status     int
		want       string
	}{
		{"replaced link", strings.Split(path, "?")[0], 0, 410, expired},
		{"rotated link", fresh, 0, 200, "Order ORD-1"},
		{"rotated link at the end of its lifetime", fresh, tracking.DefaultLinkLifetime, 410, expired},
	} {
		e.clock.Advance(c.advance)
		status, body := page(c.path)
		if status != c.status || !strings.Contains(body, c.want) || c.status == 410 && strings.Contains(body, "ORD-1") {
			t.Errorf("%s: status %d, want %d with %q:\n%s", c.name, status, c.status, c.want, body)
		}
	}
}

// orderWith registers a copy of orderBody under external id ext with the
// extra JSON members and a parcel tn, and returns the parcel's page path
// (without a locale).
func (e *trackingEnv) orderWith(t *testing.T, ext, extra, tn string) string {
	t.Helper()
	body := strings.Replace(orderBody, `"external_id": "ORD-1"`, `"external_id": "`+ext+`"`+extra, 1)
	resp, res := call{method: "POST", path: "/v1/delivery_tracking/order", header: authed("demo-key"), body: body}.do(t, e.h(t))
	if resp.StatusCode != 200 {
		t.Fatalf("order: %d %v", resp.StatusCode, res)
	}
	resp, res = call{method: "POST", path: "/v1/delivery_tracking/parcel", header: authed("demo-key"),
		body: `{"tos_id": "` + res["id"].(string) + `", "tracking_number": "` + tn + `", "carrier_product_ref": "fastpost-pickup", "direction_type": "OUTBOUND"}`}.do(t, e.h(t))
	if resp.StatusCode != 200 {
		t.Fatalf("parcel: %d %v", resp.StatusCode, res)
	}
	_, res = call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "` + ext + `", "locale": "en"}`}.do(t, e.h(t))
	return strings.Split(strings.TrimPrefix(res["tracking_link"].(string), "http://portal.test"), "?")[0]
}

func (e *trackingEnv) event(t *testing.T, body string) {
	t.Helper()
	if resp, res := (call{method: "POST", path: "/v1/delivery_tracking/parcel.event", header: authed("demo-key"), body: body}).do(t, e.h(t)); resp.StatusCode != 200 {
		t.Fatalf("event: %d %v", resp.StatusCode, res)
	}
}

// getPage requests a page path with an Accept-Language header.
func (e *trackingEnv) getPage(t *testing.T, method, path, accept string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	if accept != "" {
		req.Header.Set("Accept-Language", accept)
	}
	rec := httptest.NewRecorder()
	e.h(t).ServeHTTP(rec, req)
	return rec
}

// The page speaks the link's locale, then the order's, then the browser's;
// shows times in the delivery's zone and names it; and shows an
// out-for-delivery alert on its day only.
func TestTrackingPageLanguageTimeAndAlerts(t *testing.T) {
	e := newTrackingEnv(t) // the clock: 2026-11-22 10:00 UTC
	plain := e.orderWith(t, "ORD-1", "", "TN1")
	norwegian := e.orderWith(t, "ORD-2", `, "locale": "nb-NO"`, "TN2")
	e.event(t, `{"tracking_number": "TN2", "time": "2026-11-22T08:00:00Z", "step": "STEP_ON_ROUTE"}`)
	e.event(t, `{"tracking_number": "TN2", "time": "2026-11-22T09:00:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"}`)

	tests := []struct {
		name, path, accept string
		lang               string
		want               []string
	}{
		{"the link's locale first", norwegian + "?locale=de-DE", "sv-SE,sv;q=0.9", "de",
			[]string{"Bestellung ORD-2", "Alle Zeitangaben in schwedischer Zeit (CET).", "Unterwegs <time>22. Nov. 2026, 09:00</time>", "Das Paket wird heute zugestellt."}},
		{"then the order's", norwegian, "sv-SE,sv;q=0.9", "nb",
			[]string{"Bestilling ORD-2", "Alle tider er svensk tid (CET).", "På vei <time>22. nov. 2026, 09:00</time>", "Pakken blir levert i dag."}},
		{"a locale the customer typed in overrides the order's", norwegian + "?locale=fi-FI", "", "fi",
			[]string{"Tilaus ORD-2", "Kaikki ajat ovat Ruotsin aikaa (CET).", "Paketti toimitetaan tänään."}},
		{"a malformed locale is skipped", norwegian + "?locale=%25%25", "", "nb", []string{"Bestilling ORD-2"}},
		{"then the browser's", plain, "da-DK,da;q=0.9,en;q=0.5", "da", []string{"Ordre ORD-1", "Alle tidspunkter er svensk tid (CET)."}},
		{"then English", plain, "", "en", []string{"Order ORD-1", "All times are Swedish time (CET)."}},
		{"not found, in the link's locale", tracking.PagePath + "tt_unknown?locale=sv", "de", "sv", []string{"Den här spårningslänken är inte giltig."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := e.getPage(t, "GET", tt.path, tt.accept)
			page := rec.Body.String()
			if !strings.Contains(page, `<html lang="`+tt.lang+`">`) {
				t.Errorf("status %d, not in %s:\n%s", rec.Code, tt.lang, page)
			}
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}

	// The next day, yesterday's out-for-delivery alert is gone.
	e.clock.Advance(24 * time.Hour)
	page := e.getPage(t, "GET", norwegian, "").Body.String()
	if strings.Contains(page, "Pakken blir levert i dag.") || !strings.Contains(page, "På vei") {
		t.Errorf("the next day's page:\n%s", page)
	}
}

// HEAD answers as GET does, headers and all, without the body; the
// security headers are there; the token never reaches the log.
func TestTrackingPageHead(t *testing.T) {
	e := newTrackingEnv(t)
	live := e.orderWith(t, "ORD-1", "", "TN1")
	old := e.orderWith(t, "ORD-2", "", "TN2")
	if resp, res := (call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-2", "locale": "en", "rotate": true}`}).do(t, e.h(t)); resp.StatusCode != 200 {
		t.Fatalf("rotate: %d %v", resp.StatusCode, res)
	}
	tests := []struct {
		name, path string
		status     int
	}{
		{"a live link", live + "?locale=sv-SE", 200},
		{"an unknown token", tracking.PagePath + "tt_unknown", 404},
		{"a replaced link", old, 410},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			get, head := e.getPage(t, "GET", tt.path, ""), e.getPage(t, "HEAD", tt.path, "")
			if get.Code != tt.status || head.Code != tt.status {
				t.Fatalf("GET %d, HEAD %d, want %d", get.Code, head.Code, tt.status)
			}
			if head.Body.Len() != 0 {
				t.Errorf("HEAD has a body of %d bytes", head.Body.Len())
			}
			gh, hh := get.Header().Clone(), head.Header().Clone()
			for _, h := range []http.Header{gh, hh} {
				h.Del("X-Trace-Id")
			}
			if diff := cmp.Diff(gh, hh); diff != "" {
				t.Errorf("headers (-GET +HEAD):\n%s", diff)
			}
			if got, want := hh.Get("Content-Length"), strconv.Itoa(get.Body.Len()); got != want {
				t.Errorf("HEAD Content-Length = %s, want GET's body length %s", got, want)
			}
			for k, v := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": pageCacheControl(get.Code), "Referrer-Policy": "no-referrer",
				"X-Content-Type-Options": "nosniff", "X-Frame-Options": "DENY"} {
				if got := hh.Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
			if csp := hh.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
				t.Errorf("Content-Security-Policy = %q", csp)
			}
		})
	}
	logs := e.logs.String()
	for _, p := range []string{live, old} {
		if token := strings.TrimPrefix(p, tracking.PagePath); strings.Contains(logs, token) {
			t.Errorf("the log shows the token %s:\n%s", token, logs)
		}
	}
	if !strings.Contains(logs, "HEAD") {
		t.Errorf("the HEAD requests are not in the log:\n%s", logs)
	}
}

// An order registered with a Swedish locale gets Swedish notifications.
func TestSwedishOrderSwedishNotification(t *testing.T) {
	e := newTrackingEnv(t)
	e.orderWith(t, "ORD-1", `, "locale": "sv-SE"`, "TN1")
	e.event(t, `{"tracking_number": "TN1", "time": "2026-11-22T10:00:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"}`)
	if n, err := e.notify.Dispatch(t.Context()); n != 1 || err != nil {
		t.Fatalf("dispatch = %d, %v", n, err)
	}
	m := e.sent.Sent()[0]
	want := [4]string{"OUT_FOR_DELIVERY", "sv", "Ditt paket levereras i dag", "Ditt paket TN1 är ute för leverans och kommer i dag. Följ paketet: http://portal.test" + tracking.PagePath}
	if diff := cmp.Diff(want, [4]string{string(m.Name), m.Language, m.Subject, m.Body[:len(want[3])]}); diff != "" {
		t.Errorf("e-mail (-want +got):\n%s", diff)
	}
}
