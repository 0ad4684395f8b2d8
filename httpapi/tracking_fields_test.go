package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/google/go-cmp/cmp"
)

// fieldsCatalog is a catalog whose carrier has a tracking page and a logo
// and whose pickup point has instructions and hours in words.
func fieldsCatalog(t *testing.T) *catalog.Catalog {
	t.Helper()
	c := &catalog.Catalog{
		Locales:    []string{"en-US", "sv-SE"},
		Warehouses: []catalog.Warehouse{{ID: "w1", Address: catalog.Address{Country: "SE"}, TimeZone: "Europe/Stockholm"}},
		Carriers: []catalog.Carrier{{ID: "np", Name: "North Parcel",
			TrackingURL: "https://np.example/track?n={tracking_number}&zip={postal_code}&lang={locale}",
			LogoPattern: "https://cdn.example/np/{size}.svg",
			Products: []catalog.Product{{ID: "point", Ref: "np-point", Name: catalog.PlainText("Pickup point"), DeliveryType: catalog.DeliveryPickup,
				TransitDays: catalog.DayRange{Min: 1, Max: 2}}}}},
		Categories: []catalog.Category{{ID: "point", DisplayName: map[string]string{"en-US": "Pickup point"}, DeliveryType: catalog.DeliveryPickup,
			Products: []string{"np-point"}, Prices: []catalog.PriceRule{{Currency: "SEK", Price: 2900}}}},
		PickupLocations: []catalog.PickupLocation{{ID: "l1", ExternalID: "PP-1", Name: "Kiosk", Carrier: "np", Type: catalog.LocationManned,
			Address:            catalog.Address{Country: "SE", PostalCode: "111 57", Coordinates: &catalog.Coordinates{Lat: 59.3, Lng: 18}},
			PickupInstructions: catalog.PlainText("Ask at the tobacco counter; bring an ID."),
			HoursText:          []string{"Closes at 18:00 on the eve of public holidays."}}},
		Notifications: &catalog.Notifications{PickupReminderDays: 2},
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	return c
}

// fieldsEnv is tracking and notify on a catalog, connected through the
// outbox as wiring connects them; SMS always fails.
type fieldsEnv struct {
	trackingEnv
}

func newFieldsEnv(t *testing.T) *fieldsEnv {
	t.Helper()
	store := memory.New()
	env := &fieldsEnv{trackingEnv{clock: deliverykit.NewManualClock(testTime)}}
	ids := &deliverykit.SequentialIDs{}
	cats := map[string]*catalog.Catalog{"demo-site": fieldsCatalog(t)}
	env.sent = notify.NewLogSender(slog.New(slog.NewTextHandler(io.Discard, nil)))
	smsDown := notify.SenderFunc(func(context.Context, notify.Message) error { return errors.New("gateway down") })
	ns, err := notify.New(store, notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: env.sent, notify.ChannelSMS: smsDown},
		Clock:   env.clock, IDs: ids, MaxAttempts: 1, PickupReminder: notify.CatalogPickupReminders(cats),
	})
	if err != nil {
		t.Fatal(err)
	}
	d := outbox.New(store, outbox.Options{Clock: env.clock})
	d.Handle(event.TypeParcelChanged, "notify", ns.HandleParcelChanged)
	ts, err := tracking.New(d.Store(), tracking.Options{Products: tracking.CatalogProducts(cats), Clock: env.clock, IDs: ids,
		PortalURL: "http://portal.test", Sites: map[string]tracking.Site{"demo-site": {Name: "Demo Outdoor Store"}}})
	if err != nil {
		t.Fatal(err)
	}
	env.track, env.notify = ts, ns
	env.s, env.logs = newTestServer(t, Options{Tracking: ts, Notify: ns})
	env.s.clock = env.clock
	return env
}

// post sends a body to a tracking path and wants 200.
func (e *fieldsEnv) post(t *testing.T, path, body string) map[string]any {
	t.Helper()
	resp, got := call{method: "POST", path: "/v1/delivery_tracking" + path, header: authed("demo-key"), body: body}.do(t, e.h(t))
	if resp.StatusCode != 200 {
		t.Fatalf("POST %s: %d %v", path, resp.StatusCode, got)
	}
	return got
}

// getJSON reads a tracking path and wants status.
func (e *fieldsEnv) getJSON(t *testing.T, path string, status int) map[string]any {
	t.Helper()
	resp, got := call{method: "GET", path: "/v1/delivery_tracking" + path, header: authed("demo-key")}.do(t, e.h(t))
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d %v, want %d", path, resp.StatusCode, got, status)
	}
	return got
}

// Every field issue 18 fills in areas A and B, read over HTTP: carrier
// links and logo, the merchant's link, exceptions, the preselected parcel,
// item variants and attributes, cancelled items, pickup instructions and
// hours in words, the history newest first, an alert's payload that is not
// the delivery estimate, and notifications listed by parcel, CANCELLED,
// FAILED and a pickup reminder.
func TestTrackingFieldsOverHTTP(t *testing.T) {
	e := newFieldsEnv(t)
	tos := str(e.post(t, "/order", `{"external_id": "ORD-F", "carrier_product_ref": "np-point", "locale": "sv-SE",
		"merchant_tracking_link": "https://shop.example/orders/ORD-F",
		"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Alva Berg", "email": "alva@example.com", "phone_number": "+46701234567"},
		"destination": {"address": {"postal_code": "111 57", "country": "SE"}, "location_external_id": "PP-1"}, "delivery_type": "PICKUP",
		"promises": {"estimated_delivery_time": {"start": "2026-11-23T08:00:00Z", "end": "2026-11-23T18:00:00Z"}},
		"cart": {"items": [{"sku": "MUG", "name": "Mug", "quantity": 2, "price": 9900, "discount": 0},
			{"sku": "TENT", "name": "Tent", "quantity": 1, "price": 150000, "discount": 0}], "total": 169800, "discount": 0, "currency": "SEK"}}`), "id")
	for _, tn := range []string{"TN1", "TN2"} {
		e.post(t, "/parcel", `{"tos_id": "`+tos+`", "tracking_number": "`+tn+`", "carrier_product_ref": "np-point", "direction_type": "OUTBOUND",
			"line_items": [{"sku": "MUG", "quantity": 2, "price": 9900, "currency": "SEK", "properties": {"color": "red", "size": "L", "glaze": "matte"}}],
			"receiver": {"name": "Alva Berg", "destination": {"pickup": {"id": "PP-1", "address": {"postal_code": "111 57", "country": "SE"}}}}}`)
	}
	for _, ev := range []string{
		`"time": "2026-11-22T09:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"`,
		`"time": "2026-11-22T09:30:00Z", "alert": "ALERT_AWAITING_SUPPLIER", "estimated_time": {"start": "2026-11-25T08:00:00Z", "end": "2026-11-25T12:00:00Z"}`,
		`"time": "2026-11-22T10:00:00Z", "exception": "DAMAGED"`,
		`"time": "2026-11-22T11:00:00Z", "alert": "ALERT_DELIVERY_ATTEMPT_FAILED"`,
		`"time": "2026-11-22T12:00:00Z", "step": "STEP_DELIVERED_TO_PICKUP_POINT"`,
	} {
		e.post(t, "/parcel.event", `{"tracking_number": "TN1", `+ev+`}`)
	}
	e.post(t, "/order.lines_cancelled", `{"order_id": "ORD-F", "lines": [{"sku": "MUG", "cancelled_quantity": 1}]}`)

	orders := e.getJSON(t, "/orders?external_id=ORD-F&locale=sv-SE", 200)
	o := dig(orders, "orders", 0)
	p := dig(o, "parcels", 0)
	mug := dig(o, "cart", "items", 0)
	carrierLink := "https://np.example/track?n=TN1&zip=111+57&lang=sv-SE"
	checks := []struct {
		name string
		got  any
		want any
	}{
		{"merchant link", dig(o, "tracking_links", "links", 1), map[string]any{"type": "MERCHANT_PROVIDED_LINK", "url": "https://shop.example/orders/ORD-F"}},
		{"carrier_link", dig(p, "carrier_link"), carrierLink},
		{"tracking_link (deprecated)", dig(p, "tracking_link"), carrierLink},
		{"carrier_logo_pattern", dig(p, "carrier_logo_pattern"), "https://cdn.example/np/{size}.svg"},
		{"exceptions", dig(p, "exceptions"), []any{
			map[string]any{"created_at": "2026-11-22T10:00:00Z", "status": "DAMAGED"},
			map[string]any{"created_at": "2026-11-22T11:00:00Z", "status": "DELIVERY_ATTEMPT_FAILED"},
		}},
		{"pickup_instructions", dig(p, "location", "pickup_instructions"), "Ask at the tobacco counter; bring an ID."},
		{"free_text", dig(p, "location", "operational_hours", "free_text"), []any{"Closes at 18:00 on the eve of public holidays."}},
		{"alerts: the payload, and no estimate update", dig(p, "alerts"), []any{
			map[string]any{"type": "ALERT_AWAITING_SUPPLIER", "created_at": "2026-11-22T09:30:00Z", "awaiting_supplier": map[string]any{
				"estimated_time":       map[string]any{"earliest": "2026-11-25T08:00:00Z", "latest": "2026-11-25T12:00:00Z"},
				"estimated_time_range": map[string]any{"start": "2026-11-25T08:00:00Z", "end": "2026-11-25T12:00:00Z"}}},
			map[string]any{"type": "ALERT_DELIVERY_ATTEMPT_FAILED", "created_at": "2026-11-22T11:00:00Z", "delivery_attempt_failed": map[string]any{}},
		}},
		{"estimated_delivery_time is the promise", dig(p, "estimated_delivery_time"), map[string]any{"start": "2026-11-23T08:00:00Z", "end": "2026-11-23T18:00:00Z"}},
		{"variant", dig(mug, "variant"), map[string]any{"color": "red", "size": "L"}},
		{"attributes", dig(mug, "attributes"), map[string]any{"color": "red", "size": "L", "glaze": "matte"}},
		{"display_attributes", dig(mug, "display_attributes"), []any{
			map[string]any{"key": "color", "label": "Färg", "value": "red"},
			map[string]any{"key": "glaze", "label": "glaze", "value": "matte"},
			map[string]any{"key": "size", "label": "Storlek", "value": "L"},
		}},
		{"quantity (not cancelled)", dig(mug, "quantity"), 1.0},
		{"total_price (not cancelled)", dig(mug, "total_price"), 9900.0},
		{"cancelled_quantity", dig(mug, "cancelled_quantity"), 1.0},
		{"cancelled_total_price", dig(mug, "cancelled_total_price"), 9900.0},
	}
	for _, c := range checks {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("GET /orders %s (-want +got):\n%s", c.name, diff)
		}
	}

	// GET /parcels: the history newest first, current_progress its first
	// element, the destination with the catalog's texts.
	parcels := e.getJSON(t, "/parcels?tracking_number=TN1", 200)
	tp := dig(parcels, "parcels", 0)
	newest := map[string]any{"step": "STEP_DELIVERED_TO_PICKUP_POINT", "time": "2026-11-22T12:00:00Z"}
	if diff := cmp.Diff([]any{newest, map[string]any{"step": "STEP_SUBMITTED_TO_CARRIER", "time": "2026-11-22T09:00:00Z"}}, dig(tp, "progress_history")); diff != "" {
		t.Errorf("progress_history (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(newest, dig(tp, "current_progress")); diff != "" {
		t.Errorf("current_progress (-want +got):\n%s", diff)
	}
	if got := str(tp, "destination", "pickup_instructions"); got != "Ask at the tobacco counter; bring an ID." {
		t.Errorf("destination.pickup_instructions = %q", got)
	}

	// A link asked for by tracking number preselects that parcel.
	link := str(e.post(t, "/generate_tracking_page_link", `{"tracking_number": "TN2", "locale": "sv-SE"}`), "tracking_link")
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Path[strings.LastIndex(u.Path, "/")+1:]
	byToken := e.getJSON(t, "/orders?token="+token+"&tracking_number="+u.Query().Get("tracking_number"), 200)
	if got := dig(byToken, "orders", 0, "preselected_parcel_index"); got != "1" {
		t.Errorf("preselected_parcel_index = %v, want \"1\"", got)
	}
	e.getJSON(t, "/orders?token=tt_unknown", 404)

	// Notifications: the pickup point step moved the parcel on before
	// the earlier ones were sent (CANCELLED); SMS fails for good after its
	// one attempt (FAILED); two days at the pickup point bring a reminder.
	ctx := t.Context()
	if _, err := e.notify.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC))
	if n, err := e.notify.RemindPickups(ctx, e.clock.Now()); n != 1 || err != nil {
		t.Fatalf("RemindPickups = %d, %v; want 1", n, err)
	}
	if _, err := e.notify.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, n := range dig(e.getJSON(t, "/notifications?tracking_number=TN1", 200), "notifications").([]any) {
		got = append(got, str(n, "name")+" "+str(n, "channel")+" "+str(n, "status"))
	}
	want := []string{
		"SUBMITTED_TO_CARRIER EMAIL CANCELLED", "SUBMITTED_TO_CARRIER SMS CANCELLED",
		"DELIVERY_ATTEMPT_FAILED EMAIL CANCELLED", "DELIVERY_ATTEMPT_FAILED SMS CANCELLED",
		"READY_FOR_PICKUP EMAIL TRIGGERED", "READY_FOR_PICKUP SMS FAILED",
		"PICKUP_REMINDER EMAIL TRIGGERED", "PICKUP_REMINDER SMS FAILED",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GET /notifications?tracking_number (-want +got):\n%s", diff)
	}
	if n := dig(e.getJSON(t, "/notifications?tracking_number=TN2", 200), "notifications").([]any); len(n) != 0 {
		t.Errorf("TN2 has notifications: %v", n)
	}
	for _, q := range []struct{ query, field string }{
		{"external_id=ORD-F&tracking_number=TN1", "external_id"},
		{"", "external_id"},
	} {
		body := e.getJSON(t, "/notifications?"+q.query, 400)
		if f := str(body, "details", 0, "field"); f != q.field {
			t.Errorf("GET /notifications?%s: details %v, want the field %s", q.query, body["details"], q.field)
		}
	}
}
