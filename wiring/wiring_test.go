package wiring_test

import (
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
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/wiring"
	"github.com/google/go-cmp/cmp"
)

type env struct {
	t *testing.T
	h http.Handler
}

func (e env) do(method, path string, header map[string]string, body string) (int, map[string]any) {
	e.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Body)
	var m map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &m) != nil {
		e.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
	}
	return rec.Code, m
}

func get(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			a, _ := m.([]any)
			if k >= len(a) {
				return nil
			}
			m = a[k]
		}
	}
	return m
}

// TestCheckoutToTrackingNotifyAndReturns follows one order through every
// connection New makes: a completed checkout becomes a tracking order and a
// returnable order; a carrier event on its parcel becomes a notification; the
// customer can start a return.
func TestCheckoutToTrackingNotifyAndReturns(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	mail := notify.NewLogSender(quiet)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test/",
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: mail}})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}

	status, body := e.do("POST", "/v1/siw/session.create", bearer, `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "order-77", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`)
	if status != 200 {
		t.Fatalf("session.create: %d %v", status, body)
	}
	id := get(body, "session", "id").(string)
	status, body = e.do("POST", "/v1/siw/session.complete", bearer, `{"id": "`+id+`", "customer": {"email": "anna@example.com", "phone": "+46701234567",
		"address": {"name": "Anna Svensson", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	if status != 200 {
		t.Fatalf("session.complete: %d %v", status, body)
	}
	tos := body["tos_id"].(string)

	// The completed checkout is a tracking order under its tos_id.
	status, body = e.do("GET", "/v1/delivery_tracking/orders?external_id=order-77", bearer, "")
	if status != 200 || get(body, "orders", 0, "tos_id") != tos || get(body, "orders", 0, "external_id") != "order-77" {
		t.Fatalf("orders: %d %v", status, body)
	}
	if got := get(body, "orders", 0, "sender_name"); got != "Demo Outdoor Store" {
		t.Errorf("sender_name = %v", got)
	}
	// It keeps the checkout's locale, and its page shows Swedish time.
	if l, z := get(body, "orders", 0, "locale"), get(body, "orders", 0, "time_zone"); l != "sv-SE" || z != "Europe/Stockholm" {
		t.Errorf("locale %v, time_zone %v", l, z)
	}

	// A parcel of it, delivered: the customer is to be told.
	status, body = e.do("POST", "/v1/delivery_tracking/parcel", bearer, `{"tos_id": "`+tos+`", "tracking_number": "NP123456789SE",
		"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`)
	if status != 200 {
		t.Fatalf("parcel: %d %v", status, body)
	}
	// Each is sent as it happens (a notification still unsent when the
	// parcel is delivered would be cancelled).
	for _, ev := range []struct {
		at   time.Time
		body string
	}{
		{time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC), `"time": "2026-11-24T07:00:00Z", "alert": "ALERT_OUT_FOR_DELIVERY"`},
		{time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC), `"time": "2026-11-24T14:00:00Z", "step": "STEP_DELIVERED_TO_CONSUMER"`},
	} {
		status, body = e.do("POST", "/v1/delivery_tracking/parcel.event", bearer, `{"tracking_number": "NP123456789SE", `+ev.body+`}`)
		if status != 200 {
			t.Fatalf("parcel.event: %d %v", status, body)
		}
		// The customer checked out in Swedish, so the e-mails are Swedish.
		clock.Set(ev.at)
		if n, err := svcs.Notify.Dispatch(t.Context()); n != 1 || err != nil {
			t.Fatalf("dispatch = %d, %v", n, err)
		}
	}
	var mails []string
	for _, m := range mail.Sent() {
		mails = append(mails, m.Language+": "+m.Subject+" / "+strings.Split(m.Body, " Följ")[0])
	}
	if diff := cmp.Diff([]string{
		"sv: Ditt paket levereras i dag / Ditt paket NP123456789SE är ute för leverans och kommer i dag.",
		"sv: Ditt paket har levererats / Ditt paket NP123456789SE har levererats.",
	}, mails); diff != "" {
		t.Errorf("e-mails (-want +got):\n%s", diff)
	}
	status, body = e.do("GET", "/v1/delivery_tracking/notifications?external_id=order-77", bearer, "")
	if status != 200 {
		t.Fatalf("notifications: %d %v", status, body)
	}
	names := map[any]bool{}
	for _, n := range body["notifications"].([]any) {
		names[get(n, "name")] = true
		if get(n, "tracking_number") != "NP123456789SE" {
			t.Errorf("notification for %v", get(n, "tracking_number"))
		}
	}
	if !names["DELIVERED_TO_CONSUMER"] {
		t.Errorf("notifications %v lack DELIVERED_TO_CONSUMER", body)
	}

	// The customer returns the tent; the merchant sees the return.
	status, body = e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "order-77",
		"email": "anna@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1, "reason": "too small"}]}`)
	if status != 201 || body["status"] != "AWAITING_RETURN" || !strings.HasPrefix(body["statusUrl"].(string), "http://shop.test/") {
		t.Fatalf("customer return: %d %v", status, body)
	}
	status, body = e.do("GET", "/returns/merchant/return", map[string]string{"X-Api-Key": "demo-key"}, "")
	if status != 200 || get(body, "totalElements") != float64(1) {
		t.Fatalf("merchant returns: %d %v", status, body)
	}
	// The other demo site sees none of it.
	status, body = e.do("GET", "/returns/merchant/return", map[string]string{"X-Api-Key": "demo-key-2"}, "")
	if status != 200 || get(body, "totalElements") != float64(0) {
		t.Errorf("other site's returns: %d %v", status, body)
	}
}

// TestDeliverySessionToTrackingAndReturns: each delivery of a completed
// delivery session becomes a tracking order under its tos_id and external
// id, and a returnable order when the recipient gave an e-mail address.
func TestDeliverySessionToTrackingAndReturns(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	key := map[string]string{"Authorization": "demo-key"}
	status, body := e.do("POST", "/delivery/v1/sessions", key, `{
	  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
	  "deliveries": [{"id": "d1",
	    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
	    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
	    "recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}`)
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	name := body["name"].(string)
	status, body = e.do("POST", "/delivery/v1/"+name+":complete", key,
		`{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "external_id": "web-5001"}]}`)
	if status != 200 {
		t.Fatalf("complete: %d %v", status, body)
	}
	tos := get(body, "session", "deliveries", 0, "tos_id")

	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	status, body = e.do("GET", "/v1/delivery_tracking/orders?external_id=web-5001", bearer, "")
	if status != 200 || tos == nil || get(body, "orders", 0, "tos_id") != tos {
		t.Fatalf("tracking order of %v: %d %v", tos, status, body)
	}
	if l := get(body, "orders", 0, "locale"); l != "sv-SE" {
		t.Errorf("the tracking order's locale = %v, want the purchase's", l)
	}
	status, body = e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "web-5001",
		"email": "erik@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1, "reason": "changed my mind"}]}`)
	if status != 201 {
		t.Fatalf("customer return: %d %v", status, body)
	}
}

var quiet = slog.New(slog.DiscardHandler)

// TestShipmentToTracking: a shipment booked through area F shows up as a
// tracking parcel with its tracking page link, and its label is served.
func TestShipmentToTracking(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test"})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	status, body := e.do("POST", "/v1/som/shipments.createAndBook", bearer, `{"external_id": "ORD-900",
	  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
	  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
	  "parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
	if status != 200 {
		t.Fatalf("createAndBook: %d %v", status, body)
	}
	tn, _ := get(body, "parcels", 0, "deliveries", 0, "tracking_number").(string)
	link, _ := get(body, "parcels", 0, "deliveries", 0, "tracking_link").(string)
	if tn == "" || !strings.HasPrefix(link, "http://shop.test/v1/delivery_tracking/_/page/") {
		t.Fatalf("booked delivery: tracking number %q, link %q", tn, link)
	}
	status, body = e.do("GET", "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number="+tn, bearer, "")
	if status != 200 || get(body, "external_id") != "ORD-900" || get(body, "parcels", 0, "carrier_name") != "North Parcel" {
		t.Fatalf("tracking parcel: %d %v", status, body)
	}
	req := httptest.NewRequest("GET", "/v1/som/labels/"+tn+"?format=zpl", nil)
	req.Header.Set("Authorization", bearer["Authorization"])
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "^XA") {
		t.Errorf("label: %d %.100s", rec.Code, rec.Body.String())
	}
}

// TestLinkLifetimes: New passes the link lifetimes to tracking and
// returns.
func TestLinkLifetimes(t *testing.T) {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), config.Demo(), wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{},
		TrackingLinkLifetime: time.Hour, StatusLinkLifetime: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	_, err = svcs.Tracking.CreateOrder(ctx, "demo-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "ORD-1", CarrierProductRef: "north-parcel-home", Sender: &tracking.Sender{Name: "Shop"},
		Receiver: &tracking.Receiver{Name: "Alva"}, Destination: &tracking.Destination{Address: &tracking.Address{Country: "SE"}},
		DeliveryType: tracking.OrderDeliveryDelivery,
	})
	if err != nil {
		t.Fatal(err)
	}
	link, err := svcs.Tracking.GenerateLink(ctx, "demo-site", tracking.GenerateTrackingPageLinkRequest{OrderID: "ORD-1", Locale: "sv-SE"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svcs.Returns.ImportOrder(ctx, "demo-site", returns.OrderInput{ForeignID: "O-1", CurrencyCode: "SEK", Email: "a@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "a", SKU: "A", Quantity: 1, PurchasePriceAmount: returns.PriceInput{Amount: "10"}}}}); err != nil {
		t.Fatal(err)
	}
	ret, err := svcs.Returns.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "demo-site", ForeignOrderID: "O-1", Email: "a@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	token := ret.StatusURL[strings.LastIndex(ret.StatusURL, "/")+1:]
	clock.Advance(2 * time.Hour)
	_, _, err = svcs.Returns.ReturnByToken(ctx, token)
	if link.ExpiresAt != "2026-11-20T09:00:00Z" || !errors.Is(err, returns.ErrStatusLinkExpired) {
		t.Errorf("tracking link expires %s, want 2026-11-20T09:00:00Z; status link after 2h: %v", link.ExpiresAt, err)
	}
}

// TestHandlerServesConfigSchema: the handler wiring builds serves the
// configuration file's JSON Schema (httpapi only serves one it is given),
// or the embedder's own.
func TestHandlerServesConfigSchema(t *testing.T) {
	cfg := config.Demo()
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		schema []byte
		want   []byte
	}{
		{"default", nil, config.JSONSchema()},
		{"the embedder's", []byte(`{"type":"object"}`), []byte(`{"type":"object"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Logger: quiet, ConfigSchema: tt.schema})
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/openapi/config.schema.json", nil))
			if rec.Code != 200 {
				t.Fatalf("status %d", rec.Code)
			}
			if diff := cmp.Diff(string(tt.want), rec.Body.String()); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDemoBoxes: items are packed into the demo catalog's boxes, the large
// one only for the products it names.
func TestDemoBoxes(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test"})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	body := `{"shipping_method": "%s",
	  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
	  "receiver": {"name": "Alva Berg", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
	  "items": [{"sku": "TENT-2", "quantity": 1, "price": 129900, "currency": "SEK", "weight": 4400, "dimensions": {"length": 550, "width": 200, "height": 200}}]}`
	status, got := e.do("POST", "/v1/som/shipments.create", bearer, strings.Replace(body, "%s", "north-parcel-home", 1))
	if status != 200 || get(got, "parcels", 0, "weight") != float64(5100) || get(got, "parcels", 0, "dimensions", "length") != float64(614) {
		t.Fatalf("home delivery: %d %v", status, got)
	}
	status, got = e.do("POST", "/v1/som/shipments.create", bearer, strings.Replace(body, "%s", "north-parcel-mailbox", 1))
	if status != 400 || get(got, "details", 0, "field") != "items[0]" {
		t.Fatalf("mailbox: %d %v", status, got)
	}
}
