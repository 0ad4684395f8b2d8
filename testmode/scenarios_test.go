package testmode_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/deliverykit/deliverykit/wiring"
)

var printJourneys = flag.Bool("print-journeys", false, "print the journeys the scenario table observes")

// journey is what a merchant sees of one parcel once its scenario has
// played: the steps and alerts in the order they happened, the
// exceptions, the fallback flag, the notifications (name:status) and the
// parcel's webhook events (type:step or type:alert, in delivery order).
type journey struct {
	Progress      []string
	Alerts        []string
	Exceptions    []string
	Fallback      bool
	Notifications []string
	Webhooks      []string
}

// scenarioTable is every scenario of the catalogue, booked as a merchant
// would: a shipment delivery naming it in meta.test_scenario, or, for
// "tracking", a parcel registered in area A under TEST<code>.
var scenarioTable = []struct {
	code string
	via  string // "shipment" or "tracking"
	want journey
}{
	{code: "DELIVERED", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_CONSUMER"},
		Alerts:        []string{"ALERT_OUT_FOR_DELIVERY"},
		Exceptions:    nil,
		Fallback:      false,
		Notifications: []string{"DELIVERED_TO_CONSUMER:EMAIL:TRIGGERED", "DELIVERED_TO_CONSUMER:SMS:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:STEP_DELIVERED_TO_CONSUMER", "parcel.changed:STEP_DELIVERED_TO_CONSUMER", "notification.sent", "notification.sent"},
	}},
	{code: "PICKUP_POINT", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_DELIVERED_TO_CONSUMER"},
		Alerts:        nil,
		Exceptions:    nil,
		Fallback:      false,
		Notifications: []string{"DELIVERED_TO_CONSUMER:EMAIL:TRIGGERED", "DELIVERED_TO_CONSUMER:SMS:TRIGGERED", "READY_FOR_PICKUP:EMAIL:TRIGGERED", "READY_FOR_PICKUP:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:STEP_DELIVERED_TO_PICKUP_POINT", "parcel.changed:STEP_DELIVERED_TO_PICKUP_POINT", "notification.sent", "notification.sent", "carrier.event_reported:STEP_DELIVERED_TO_CONSUMER", "parcel.changed:STEP_DELIVERED_TO_CONSUMER", "notification.sent", "notification.sent"},
	}},
	{code: "NOT_COLLECTED", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_SENT_BACK", "STEP_DELIVERED_TO_MERCHANT"},
		Alerts:        nil,
		Exceptions:    []string{"NOT_COLLECTED", "RETURNED_TO_SENDER"},
		Fallback:      false,
		Notifications: []string{"PICKUP_REMINDER:EMAIL:TRIGGERED", "PICKUP_REMINDER:SMS:TRIGGERED", "READY_FOR_PICKUP:EMAIL:TRIGGERED", "READY_FOR_PICKUP:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:STEP_DELIVERED_TO_PICKUP_POINT", "parcel.changed:STEP_DELIVERED_TO_PICKUP_POINT", "notification.sent", "notification.sent", "notification.sent", "notification.sent", "carrier.event_reported:STEP_SENT_BACK", "parcel.changed:STEP_SENT_BACK", "carrier.event_reported:STEP_DELIVERED_TO_MERCHANT", "parcel.changed:STEP_DELIVERED_TO_MERCHANT"},
	}},
	{code: "FAILED_ATTEMPT", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_CONSUMER"},
		Alerts:        []string{"ALERT_OUT_FOR_DELIVERY", "ALERT_DELIVERY_ATTEMPT_FAILED", "ALERT_OUT_FOR_DELIVERY"},
		Exceptions:    []string{"DELIVERY_ATTEMPT_FAILED"},
		Fallback:      false,
		Notifications: []string{"DELIVERED_TO_CONSUMER:EMAIL:TRIGGERED", "DELIVERED_TO_CONSUMER:SMS:TRIGGERED", "DELIVERY_ATTEMPT_FAILED:EMAIL:TRIGGERED", "DELIVERY_ATTEMPT_FAILED:SMS:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:ALERT_DELIVERY_ATTEMPT_FAILED", "parcel.changed:ALERT_DELIVERY_ATTEMPT_FAILED", "notification.sent", "notification.sent", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:STEP_DELIVERED_TO_CONSUMER", "parcel.changed:STEP_DELIVERED_TO_CONSUMER", "notification.sent", "notification.sent"},
	}},
	{code: "DELAYED", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_CONSUMER"},
		Alerts:        []string{"ALERT_DELIVERY_DELAYED_FROM_CARRIER", "ALERT_DELIVERY_DELAYED", "ALERT_OUT_FOR_DELIVERY"},
		Exceptions:    nil,
		Fallback:      false,
		Notifications: []string{"DELIVERED_TO_CONSUMER:EMAIL:TRIGGERED", "DELIVERED_TO_CONSUMER:SMS:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:ALERT_DELIVERY_DELAYED_FROM_CARRIER", "parcel.changed:ALERT_DELIVERY_DELAYED_FROM_CARRIER", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:STEP_DELIVERED_TO_CONSUMER", "parcel.changed:STEP_DELIVERED_TO_CONSUMER", "notification.sent", "notification.sent"},
	}},
	{code: "LOST", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_TERMINATED"},
		Alerts:        nil,
		Exceptions:    []string{"LOST"},
		Fallback:      false,
		Notifications: []string{"SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:STEP_TERMINATED", "parcel.changed:STEP_TERMINATED"},
	}},
	{code: "RETURN_TO_SENDER", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_SENT_BACK", "STEP_DELIVERED_TO_MERCHANT"},
		Alerts:        []string{"ALERT_OUT_FOR_DELIVERY", "ALERT_DELIVERY_ATTEMPT_FAILED", "ALERT_OUT_FOR_DELIVERY", "ALERT_DELIVERY_ATTEMPT_FAILED"},
		Exceptions:    []string{"DELIVERY_ATTEMPT_FAILED", "DELIVERY_ATTEMPT_FAILED", "RETURNED_TO_SENDER"},
		Fallback:      false,
		Notifications: []string{"DELIVERY_ATTEMPT_FAILED:EMAIL:TRIGGERED", "DELIVERY_ATTEMPT_FAILED:EMAIL:TRIGGERED", "DELIVERY_ATTEMPT_FAILED:SMS:TRIGGERED", "DELIVERY_ATTEMPT_FAILED:SMS:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:EMAIL:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "OUT_FOR_DELIVERY:SMS:TRIGGERED", "SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED", "SUBMITTED_TO_CARRIER:SMS:TRIGGERED"},
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "notification.sent", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:ALERT_DELIVERY_ATTEMPT_FAILED", "parcel.changed:ALERT_DELIVERY_ATTEMPT_FAILED", "notification.sent", "notification.sent", "carrier.event_reported:ALERT_OUT_FOR_DELIVERY", "parcel.changed:ALERT_OUT_FOR_DELIVERY", "notification.sent", "notification.sent", "carrier.event_reported:ALERT_DELIVERY_ATTEMPT_FAILED", "parcel.changed:ALERT_DELIVERY_ATTEMPT_FAILED", "notification.sent", "notification.sent", "carrier.event_reported:STEP_SENT_BACK", "parcel.changed:STEP_SENT_BACK", "carrier.event_reported:STEP_DELIVERED_TO_MERCHANT", "parcel.changed:STEP_DELIVERED_TO_MERCHANT"},
	}},
	{code: "NO_UPDATES", via: "shipment", want: journey{
		Progress:      nil,
		Alerts:        nil,
		Exceptions:    nil,
		Fallback:      true,
		Notifications: nil,
		Webhooks:      []string{"parcel.booked"},
	}},
	{code: "RETURN_DROPPED_OFF", via: "shipment", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_MERCHANT"},
		Alerts:        nil,
		Exceptions:    nil,
		Fallback:      false,
		Notifications: nil,
		Webhooks:      []string{"parcel.booked", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "delivery.picked_up", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:STEP_DELIVERED_TO_MERCHANT", "parcel.changed:STEP_DELIVERED_TO_MERCHANT"},
	}},
	{code: "LOST", via: "tracking", want: journey{
		Progress:      []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_TERMINATED"},
		Alerts:        nil,
		Exceptions:    []string{"LOST"},
		Fallback:      false,
		Notifications: []string{"SUBMITTED_TO_CARRIER:EMAIL:TRIGGERED"},
		Webhooks:      []string{"parcel.registered", "carrier.event_reported:STEP_SUBMITTED_TO_CARRIER", "parcel.changed:STEP_SUBMITTED_TO_CARRIER", "notification.sent", "carrier.event_reported:STEP_ON_ROUTE", "parcel.changed:STEP_ON_ROUTE", "carrier.event_reported:STEP_TERMINATED", "parcel.changed:STEP_TERMINATED"},
	}},
}

// played is how long the table's parcels travel: past the longest
// journey (a parcel never collected goes back after a week).
const played = 21 * 24 * time.Hour

// hookReceiver is a merchant's webhook endpoint: it keeps every delivery
// by the site in its data.
type hookReceiver struct {
	mu  sync.Mutex
	got map[string][]receivedHook
}

type receivedHook struct {
	Type event.Type
	Data map[string]any
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var body struct {
		Type event.Type     `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err != nil || json.Unmarshal(b, &body) != nil {
		http.Error(w, "bad body", http.StatusBadRequest)
		return
	}
	site, _ := body.Data["site"].(string)
	h.mu.Lock()
	h.got[site] = append(h.got[site], receivedHook{body.Type, body.Data})
	h.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// parcelHooks are site's webhook events about the parcel tn.
func (h *hookReceiver) parcelHooks(site, tn string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, d := range h.got[site] {
		if d.Data["tracking_number"] != tn {
			continue
		}
		out = append(out, hookLabel(d.Type, d.Data))
	}
	return out
}

// hookLabel is a delivery as a journey lists it: its type, and its step
// or alert when it has one.
func hookLabel(t event.Type, data map[string]any) string {
	s := string(t)
	for _, k := range []string{"step", "alert"} {
		if v, _ := data[k].(string); v != "" {
			s += ":" + v
		}
	}
	return s
}

// newHookedServer is newServer whose demo site sends every event to a
// receiver in process.
func newHookedServer(t *testing.T) (*server, *hookReceiver) {
	cfg := config.Demo()
	hooks := &hookReceiver{got: map[string][]receivedHook{}}
	cfg.Sites[0].Webhooks = append(slices.Clone(cfg.Sites[0].Webhooks), webhook.Endpoint{ID: "erp", URL: "https://erp.shop.test/hooks",
		Secrets: []string{"whsec_c2NlbmFyaW8gdGFibGUgd2ViaG9vayBzZWNyZXQhIQ=="}, Events: event.Types},
		webhook.Endpoint{ID: "broken", URL: "https://" + wiring.FailHost + "/hooks",
			Secrets: []string{"whsec_c2NlbmFyaW8gdGFibGUgd2ViaG9vayBzZWNyZXQhIQ=="}, Events: []event.Type{event.TypeParcelChanged}})
	clock := deliverykit.NewManualClock(start)
	quiet := slog.New(slog.DiscardHandler)
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, PublicURL: "http://shop.test", Logger: quiet,
		Webhooks: webhook.Options{Transport: &httpapi.Transport{Handler: hooks}, Concurrency: 1, Jitter: func() float64 { return 0 }}})
	if err != nil {
		t.Fatal(err)
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet,
		RateLimits: httpapi.RateLimits{Site: httpapi.NoRateLimit, WidgetToken: httpapi.NoRateLimit, Address: httpapi.NoRateLimit}})
	return &server{t: t, h: h, clock: clock, svcs: svcs}, hooks
}

// booking is what a merchant sends to book row i's parcel: a shipment
// (area F) whose delivery names the scenario, or a tracking order and a
// parcel under TEST<code> (area A).
type booking struct {
	order    string
	shipment map[string]any
	tracking map[string]any
	parcel   func(tos string) map[string]any
	tn       string // the area A parcel's
}

func bookingOf(i int, code, via string) booking {
	b := booking{order: fmt.Sprintf("SO-%d-%s", i, code)}
	if via == "tracking" {
		b.tn = fmt.Sprintf("TEST%s%d", code, i)
		b.tracking = map[string]any{"external_id": b.order, "carrier_product_ref": "north-parcel-home",
			"sender": map[string]any{"name": "Shop"}, "receiver": map[string]any{"name": "Alva Berg", "email": "alva@example.com", "phone": "+46701234567"},
			"destination": map[string]any{"address": map[string]any{"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}
		b.parcel = func(tos string) map[string]any {
			return map[string]any{"tos_id": tos, "tracking_number": b.tn, "carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}
		}
		return b
	}
	direction := "OUTBOUND"
	if code == string(carrier.ScenarioReturnDroppedOff) {
		direction = "RETURN" // the customer's parcel, to the warehouse
	}
	b.shipment = map[string]any{"external_id": b.order, "direction_type": direction,
		"sender":   map[string]any{"name": "Demo Outdoor Warehouse", "address": map[string]any{"address_lines": []string{"Lagervägen 1"}, "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
		"receiver": map[string]any{"name": "Alva Berg", "email": "alva@example.com", "phone_number": "+46701234567", "address": map[string]any{"street": "Storgatan", "street_number": "5", "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
		"parcels": []any{map[string]any{"weight": 1250, "deliveries": []any{map[string]any{"carrier_product_ref": "north-parcel-home",
			"meta": map[string]string{"test_scenario": code}}}}}}
	return b
}

// book books row i's parcel in the test site of key, over HTTP, and
// returns its order number and tracking number.
func (s *server) book(key string, i int, code, via string) (string, string) {
	s.t.Helper()
	b := bookingOf(i, code, via)
	if b.tracking != nil {
		var o struct {
			ID string `json:"id"`
		}
		if st := s.do("POST", "/v1/delivery_tracking/order", key, b.tracking, &o); st != 200 {
			s.t.Fatalf("order %s: %d", b.order, st)
		}
		if st := s.do("POST", "/v1/delivery_tracking/parcel", key, b.parcel(o.ID), nil); st != 200 {
			s.t.Fatalf("parcel %s: %d", b.tn, st)
		}
		return b.order, b.tn
	}
	var sh struct {
		Parcels []struct {
			Deliveries []struct {
				TrackingNumber string `json:"tracking_number"`
			} `json:"deliveries"`
		} `json:"parcels"`
	}
	if st := s.do("POST", "/v1/som/shipments.createAndBook", key, b.shipment, &sh); st != 200 || len(sh.Parcels) != 1 {
		s.t.Fatalf("shipment %s: %d", b.order, st)
	}
	return b.order, sh.Parcels[0].Deliveries[0].TrackingNumber
}

// bookGo books row i's parcel in the kit's test site in Go, with the
// requests book sends, as the services' own types.
func bookGo(t *testing.T, site *deliverykittest.Kit, i int, code, via string) (string, string) {
	t.Helper()
	ctx := t.Context()
	b := bookingOf(i, code, via)
	as := func(v any, out any) {
		raw, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(raw, out)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if b.tracking != nil {
		var o tracking.CreateTrackingOrderRequest
		as(b.tracking, &o)
		tos, err := site.Services.Tracking.CreateOrder(ctx, site.Site, o)
		if err != nil {
			t.Fatal(err)
		}
		var p tracking.CreateParcelRequest
		as(b.parcel(tos), &p)
		if err := site.Services.Tracking.CreateParcel(ctx, site.Site, p); err != nil {
			t.Fatal(err)
		}
		return b.order, b.tn
	}
	var req shipment.CreateShipmentRequest
	as(b.shipment, &req)
	sh, err := site.Services.Shipment.CreateAndBook(ctx, site.Site, req)
	if err != nil {
		t.Fatal(err)
	}
	return b.order, sh.Parcels[0].Deliveries[0].TrackingNumber
}

// observe reads over HTTP what the merchant sees of a parcel.
func (s *server) observe(key, site, order, tn string, hooks *hookReceiver) journey {
	s.t.Helper()
	var orders struct {
		Orders []struct {
			Parcels []tracking.PrivateParcel `json:"parcels"`
		} `json:"orders"`
	}
	if st := s.do("GET", "/v1/delivery_tracking/orders?external_id="+order, key, nil, &orders); st != 200 || len(orders.Orders) != 1 || len(orders.Orders[0].Parcels) != 1 {
		s.t.Fatalf("orders %s: %d %+v", order, st, orders)
	}
	var notes struct {
		Notifications []notify.Notification `json:"notifications"`
	}
	if st := s.do("GET", "/v1/delivery_tracking/notifications?tracking_number="+tn, key, nil, &notes); st != 200 {
		s.t.Fatalf("notifications %s: %d", tn, st)
	}
	j := seen(orders.Orders[0].Parcels[0], notes.Notifications)
	j.Webhooks = hooks.parcelHooks(site, tn)
	return j
}

// seen is a parcel's journey from its merchant view and notifications.
func seen(p tracking.PrivateParcel, notes []notify.Notification) journey {
	var j journey
	for _, it := range p.Progress {
		j.Progress = append(j.Progress, string(it.Step))
	}
	for _, a := range p.Alerts {
		j.Alerts = append(j.Alerts, string(a.Type))
	}
	for _, e := range p.Exceptions {
		j.Exceptions = append(j.Exceptions, string(e.Status))
	}
	j.Fallback = p.CarrierFallbackEnabled
	// Notifications as a set: two made at one instant have ids in
	// random order.
	for _, n := range notes {
		j.Notifications = append(j.Notifications, string(n.Name)+":"+string(n.Channel)+":"+string(n.Status))
	}
	slices.Sort(j.Notifications)
	return j
}

// TestScenariosOverHTTP plays every scenario of the catalogue on two test
// sites at once, each advancing its own clock, and checks what each
// merchant sees: the same journeys in both, nothing of the other's.
func TestScenariosOverHTTP(t *testing.T) {
	s, hooks := newHookedServer(t)
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			st := *s
			st.t = t
			site := st.newSite("demo-key")
			type booked struct{ order, tn string }
			var parcels []booked
			for i, row := range scenarioTable {
				o, tn := st.book(site.APIKey, i, row.code, row.via)
				parcels = append(parcels, booked{o, tn})
			}
			var adv struct {
				Now time.Time    `json:"now"`
				Ran testmode.Ran `json:"ran"`
			}
			if code := st.do("POST", "/v1/test/clock:advance", site.APIKey, map[string]string{"duration": played.String()}, &adv); code != 200 || !adv.Now.Equal(start.Add(played)) {
				t.Fatalf("advance: %d %+v", code, adv)
			}
			if adv.Ran.CarrierEvents == 0 || adv.Ran.Notifications == 0 || adv.Ran.Webhooks == 0 {
				t.Errorf("ran %+v", adv.Ran)
			}
			for i, row := range scenarioTable {
				got := st.observe(site.APIKey, site.SiteID, parcels[i].order, parcels[i].tn, hooks)
				if *printJourneys {
					t.Logf("%s via %s: %#v", row.code, row.via, got)
				}
				if diff := cmp.Diff(row.want, got); diff != "" {
					t.Errorf("%s via %s (-want +got):\n%s", row.code, row.via, diff)
				}
			}
			// No cross-talk: the site's deliveries are about its parcels.
			mine := map[string]bool{}
			for _, p := range parcels {
				mine[p.tn] = true
			}
			hooks.mu.Lock()
			for _, d := range hooks.got[site.SiteID] {
				if tn, ok := d.Data["tracking_number"].(string); ok && !mine[tn] {
					t.Errorf("site %s received %s about parcel %s of another site", site.SiteID, d.Type, tn)
				}
			}
			if n := len(hooks.got["demo-site"]); n != 0 {
				t.Errorf("the parent site received %d deliveries", n)
			}
			hooks.mu.Unlock()
		})
	}
}

// TestScenariosInGo plays the same table through the kit: a test site's
// kit ships each order for its scenario.
func TestScenariosInGo(t *testing.T) {
	ctx := t.Context()
	k := deliverykittest.Start(t, deliverykittest.Options{})
	site, err := k.NewSite(ctx)
	if err != nil {
		t.Fatal(err)
	}
	type booked struct{ order, tn string }
	var parcels []booked
	for i, row := range scenarioTable {
		o, tn := bookGo(t, site, i, row.code, row.via)
		parcels = append(parcels, booked{o, tn})
	}
	ran, err := site.AdvanceSite(ctx, played)
	if err != nil {
		t.Fatal(err)
	}
	if ran.CarrierEvents == 0 || ran.Notifications == 0 || ran.Webhooks == 0 {
		t.Errorf("ran %+v", ran)
	}
	for i, row := range scenarioTable {
		res, err := site.Services.Tracking.Orders(ctx, site.Site, tracking.OrdersQuery{ExternalID: parcels[i].order})
		if err != nil || len(res.Orders) != 1 || len(res.Orders[0].Parcels) != 1 {
			t.Fatalf("orders %d: %+v %v", i, res, err)
		}
		notes, err := site.Services.Notify.ListNotifications(ctx, site.Site, notify.ListQuery{TrackingNumber: parcels[i].tn})
		if err != nil {
			t.Fatal(err)
		}
		got := seen(res.Orders[0].Parcels[0], notes.Notifications)
		for _, d := range site.Webhooks() {
			var data map[string]any
			if json.Unmarshal(d.Data, &data) != nil || data["tracking_number"] != parcels[i].tn {
				continue
			}
			got.Webhooks = append(got.Webhooks, hookLabel(d.Type, data))
		}
		if *printJourneys {
			t.Logf("%s: %#v", row.code, got)
		}
		if diff := cmp.Diff(row.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", row.code, diff)
		}
	}
}

// TestFaults: a test site's carrier faults refuse or fail its bookings
// until cleared; a notification to an address at fail.invalid ends
// FAILED; a webhook endpoint at fail.invalid answers 500, so its
// deliveries are retried and end dead.
func TestFaults(t *testing.T) {
	s, _ := newHookedServer(t)
	site := s.newSite("demo-key")
	key := site.APIKey
	shipment := func(i int, code string, email string) (int, map[string]any) {
		b := bookingOf(i, code, "shipment")
		if code == "" {
			delete(b.shipment["parcels"].([]any)[0].(map[string]any)["deliveries"].([]any)[0].(map[string]any), "meta")
		}
		if email != "" {
			b.shipment["receiver"].(map[string]any)["email"] = email
		}
		var out map[string]any
		return s.do("POST", "/v1/som/shipments.createAndBook", key, b.shipment, &out), out
	}
	setFaults := func(faults ...string) {
		t.Helper()
		var out testmode.Faults
		if st := s.do("POST", "/v1/test/faults", key, map[string]any{"faults": append([]string{}, faults...)}, &out); st != 200 || !slices.Equal(out.Faults, faults) && len(faults) > 0 {
			t.Fatalf("faults %v: %d %+v", faults, st, out)
		}
	}
	for i, c := range []struct {
		fault string
		want  int
	}{{"BOOKING_REJECTED", 400}, {"CARRIER_UNAVAILABLE", 503}, {"LABEL_TIMEOUT", 503}} {
		setFaults(c.fault)
		if st, out := shipment(i, "", ""); st != c.want {
			t.Errorf("%s on the site: %d %v, want %d", c.fault, st, out, c.want)
		}
		setFaults()
		if st, out := shipment(10+i, c.fault, ""); st != c.want {
			t.Errorf("%s in meta.test_scenario: %d %v, want %d", c.fault, st, out, c.want)
		}
	}
	if st, out := shipment(20, "", ""); st != 200 {
		t.Errorf("after the faults cleared: %d %v", st, out)
	}
	if st := s.do("POST", "/v1/test/faults", key, map[string]any{"faults": []string{"FLOOD"}}, nil); st != 400 {
		t.Errorf("an unknown fault: %d, want 400", st)
	}

	// A failing address and a failing endpoint, seen after a day.
	st, out := shipment(30, "DELIVERED", "alva@"+wiring.FailHost)
	if st != 200 {
		t.Fatalf("shipment: %d %v", st, out)
	}
	if st := s.do("POST", "/v1/test/clock:advance", key, map[string]string{"duration": "72h"}, nil); st != 200 {
		t.Fatalf("advance: %d", st)
	}
	var notes struct {
		Notifications []notify.Notification `json:"notifications"`
	}
	s.do("GET", "/v1/delivery_tracking/notifications?external_id="+bookingOf(30, "DELIVERED", "shipment").order, key, nil, &notes)
	// None is sent; those not cancelled by a later one fail.
	failed := 0
	for _, n := range notes.Notifications {
		if n.Channel == notify.ChannelEmail {
			if n.Status == notify.StatusTriggered {
				t.Errorf("e-mail %s to fail.invalid: %s", n.Name, n.Status)
			}
			if n.Status == notify.StatusFailed {
				failed++
			}
		}
	}
	if failed == 0 {
		t.Errorf("no e-mail failed: %+v", notes)
	}
	var page struct {
		Deliveries []webhook.Delivery `json:"deliveries"`
	}
	if st := s.do("GET", "/v1/webhooks/endpoints/broken/deliveries", key, nil, &page); st != 200 || len(page.Deliveries) == 0 {
		t.Fatalf("deliveries of the broken endpoint: %d %+v", st, page)
	}
	// Every delivery was tried and failed with 500, or waits, untried,
	// behind an earlier one of its subject that is still being retried
	// (the simulator's event times vary, so which happens is not fixed).
	retrying := map[string]bool{}
	for _, d := range page.Deliveries {
		if d.Status == webhook.StatusRetrying {
			retrying[d.Subject] = true
		}
	}
	for _, d := range page.Deliveries {
		switch {
		case d.Status == webhook.StatusPending && d.Attempts == 0 && d.NextAttemptAt == nil && retrying[d.Subject]:
		case d.Status != webhook.StatusDead && d.Status != webhook.StatusRetrying || d.LastResponseCode != 500:
			t.Errorf("delivery %s: %s %v", d.ID, d.Status, d.LastResponseCode)
		}
	}
}

// TestREADMEListsTheCatalogue: the README's scenario table is the
// simulator's (carrier.Scenarios), row for row.
func TestREADMEListsTheCatalogue(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range carrier.Scenarios() {
		row := fmt.Sprintf("| `%s` | %s |", s.Code, s.Summary)
		if !strings.Contains(string(readme), row+"\n") {
			t.Errorf("README.md lacks the row\n%s", row)
		}
	}
}
