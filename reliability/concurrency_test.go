package reliability

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// The concurrency tests below race many HTTP clients on one record through
// every layer (handler, service, cross-area recorders, store), on both
// stores. What the area packages already prove at the service level is not
// repeated here (see doc.go).

const clients = 24

// stores are the backends the races run on.
func stores(t *testing.T) map[string]func() storage.Store {
	return map[string]func() storage.Store{
		"memory": func() storage.Store { return memory.New() },
		"bolt": func() storage.Store {
			s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

func newEnvOn(t *testing.T, s storage.Store) *env {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(start)
	buf := &syncBuffer{}
	logger := newLogger(buf)
	store := &countingStore{Store: s}
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: deliverykit.RandomIDs{}, PublicURL: "http://shop.test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: logger})
	return &env{t: t, h: h, svcs: svcs, store: store, clock: clock, log: buf}
}

// race runs fn(i) for i in [0, n) at once and returns the answers.
func race(n int, fn func(i int) resp) []resp {
	out := make([]resp, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			out[i] = fn(i)
		}()
	}
	close(gate)
	wg.Wait()
	return out
}

func statuses(rs []resp) map[int]int {
	m := map[int]int{}
	for _, r := range rs {
		m[r.status]++
	}
	return m
}

// TestRaceCheckoutSession: clients update, read and complete one checkout
// session at once. Every answer is a success, 409 "repeat the call", or 403
// once the session is completed; exactly one completion wins and every
// successful completion names the same tos_id; the completed session holds
// the cart of an acknowledged update; and the completion became exactly one
// tracking order and one returnable order.
func TestRaceCheckoutSession(t *testing.T) {
	for name, mk := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnvOn(t, mk())
			r := e.do("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "race-cart"))
			id := str(r.body, "session", "id")
			rs := race(clients, func(i int) resp {
				switch i % 3 {
				case 0:
					return e.do("POST", "/v1/siw/session.complete", site1.rest, `{"id": "`+id+`", "customer": `+checkoutCustomer+`}`)
				case 1:
					return e.do("POST", "/v1/siw/session.update", site1.rest, `{"id": "`+id+`", "cart": {"cart_id": "race-cart", "total_value": 45000,
						"items": [{"sku": "tent-2p", "name": "Tent `+fmt.Sprint(i)+`", "quantity": 1, "price": 45000}]}}`)
				default:
					return e.do("GET", "/v1/siw/session.get?id="+id, site1.rest, "")
				}
			})
			tos := map[string]bool{}
			acked := map[string]bool{"Tent": true} // the created cart
			for i, r := range rs {
				switch {
				case r.status == 200 && i%3 == 0:
					tos[str(r.body, "tos_id")] = true
				case r.status == 200 && i%3 == 1:
					acked[str(r.body, "session", "cart", "items", 0, "name")] = true
				case r.status == 200:
				case r.status == 409 && strings.Contains(string(r.raw), "repeat the call"):
				case r.status == 403 && i%3 != 2 && strings.Contains(string(r.raw), "completed"):
				default:
					t.Errorf("client %d: %d %s", i, r.status, r.raw)
				}
			}
			t.Logf("answers: %v", statuses(rs))
			if len(tos) > 1 {
				t.Errorf("completions returned different tos_ids: %v", tos)
			}
			final := e.do("GET", "/v1/siw/session.get?id="+id, site1.rest, "")
			if len(tos) == 1 {
				if st := str(final.body, "session", "status"); st != "COMPLETE" {
					t.Fatalf("a completion was acknowledged, the session is %s", st)
				}
				for k := range tos {
					if got := str(final.body, "session", "tos_id"); got != k {
						t.Errorf("session tos_id %s, acknowledged %s", got, k)
					}
				}
			}
			if name := str(final.body, "session", "cart", "items", 0, "name"); !acked[name] {
				t.Errorf("final cart item %q is from no acknowledged write", name)
			}
			if len(tos) == 0 {
				// Every completion lost a race: one more must win now.
				r := e.do("POST", "/v1/siw/session.complete", site1.rest, `{"id": "`+id+`", "customer": `+checkoutCustomer+`}`)
				if r.status != 200 {
					t.Fatalf("completion after the race: %d %s", r.status, r.raw)
				}
			}
			orders := e.do("GET", "/v1/delivery_tracking/orders?external_id=race-cart", site1.rest, "")
			if n := len(get(orders.body, "orders").([]any)); n != 1 {
				t.Errorf("%d tracking orders for the session, want 1: %s", n, orders.raw)
			}
			ro := e.do("GET", "/returns/merchant/order/race-cart?idType=FOREIGN_ID", site1.spring, "")
			if ro.status != 200 {
				t.Errorf("returnable order: %d %s", ro.status, ro.raw)
			}
			if list := e.do("GET", "/returns/merchant/order?size=100", site1.spring, ""); get(list.body, "totalElements") != float64(1) {
				t.Errorf("returnable orders: %s", list.raw)
			}
		})
	}
}

// TestRaceDeliverySessionComplete: clients complete one delivery session
// with the etag they all read. Exactly one wins; the others are ABORTED
// (code 10) or, having read the completed session, FAILED_PRECONDITION; the
// delivery became one tracking order.
func TestRaceDeliverySessionComplete(t *testing.T) {
	for name, mk := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnvOn(t, mk())
			r := e.do("POST", "/delivery/v1/sessions", site1.rpc, sessionCreate)
			sess, etag := str(r.body, "name"), str(r.body, "etag")
			rs := race(clients, func(i int) resp {
				body := fmt.Sprintf(`{"etag": %q, "delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "external_id": "race-web"}]}`, etag)
				if i%2 == 1 {
					// Half race without an etag: read-and-swap in one
					// transaction, refused only because the session is
					// completed by then.
					body = fmt.Sprintf(sessionComplete, "race-web")
				}
				return e.do("POST", "/delivery/v1/"+sess+":complete", site1.rpc, body)
			})
			won := 0
			for i, r := range rs {
				code, _ := get(r.body, "code").(float64)
				switch {
				case r.status == 200:
					won++
				case r.status == 409 && code == 10:
				case r.status == 400 && code == 9:
				default:
					t.Errorf("client %d: %d %s", i, r.status, r.raw)
				}
			}
			t.Logf("answers: %v", statuses(rs))
			if won != 1 {
				t.Errorf("%d completions won, want 1", won)
			}
			orders := e.do("GET", "/v1/delivery_tracking/orders?external_id=race-web", site1.rest, "")
			if n := len(get(orders.body, "orders").([]any)); n != 1 {
				t.Errorf("%d tracking orders, want 1: %s", n, orders.raw)
			}
		})
	}
}

// TestRaceMarkRefunded: clients mark one refund transaction refunded at
// once; it is marked once, the others are told it already is.
func TestRaceMarkRefunded(t *testing.T) {
	for name, mk := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnvOn(t, mk())
			f := seed(e)
			before := e.store.writes.Load()
			rs := race(clients, func(int) resp {
				return e.do("POST", "/returns/merchant/refund/transaction/"+f.refundID+"/refunded", site1.spring, "")
			})
			won := 0
			for i, r := range rs {
				switch {
				case r.status == 200 && get(r.body, "status") == "REFUNDED":
					won++
				case r.status == 400 && strings.Contains(str(r.body, "message"), "already REFUNDED"):
				case r.status == 409:
				default:
					t.Errorf("client %d: %d %s", i, r.status, r.raw)
				}
			}
			t.Logf("answers: %v, %d writes", statuses(rs), e.store.writes.Load()-before)
			if won != 1 {
				t.Errorf("marked %d times, want once", won)
			}
			list := e.do("GET", "/returns/merchant/refund/transaction?status=AWAITING_EXTERNAL_REFUND", site1.spring, "")
			if get(list.body, "totalElements") != float64(0) {
				t.Errorf("still awaiting: %s", list.raw)
			}
		})
	}
}

// TestRaceTrackingRegistration: clients register the same tracking order,
// then the same parcel, then send distinct carrier events for it, all at
// once. One order and one parcel exist, every caller got the order's id,
// and every acknowledged event is in the parcel's history.
func TestRaceTrackingRegistration(t *testing.T) {
	for name, mk := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnvOn(t, mk())
			order := `{"external_id": "race-order", "carrier_product_ref": "north-parcel-home",
				"sender": {"name": "Shop"}, "receiver": {"name": "Alva Berg", "email": "alva@example.com"},
				"destination": {"address": {"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}`
			rs := race(clients, func(int) resp { return e.do("POST", "/v1/delivery_tracking/order", site1.rest, order) })
			ids := map[string]bool{}
			for i, r := range rs {
				if r.status != 200 {
					t.Fatalf("client %d: %d %s", i, r.status, r.raw)
				}
				ids[str(r.body, "id")] = true
			}
			if len(ids) != 1 {
				t.Errorf("callers got %d ids: %v", len(ids), ids)
			}
			orders := e.do("GET", "/v1/delivery_tracking/orders?external_id=race-order", site1.rest, "")
			if n := len(get(orders.body, "orders").([]any)); n != 1 {
				t.Errorf("%d orders, want 1", n)
			}
			parcel := `{"external_id": "race-order", "tos_id": "` + str(rs[0].body, "id") + `", "tracking_number": "NP-RACE-1",
				"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`
			rs = race(clients, func(int) resp { return e.do("POST", "/v1/delivery_tracking/parcel", site1.rest, parcel) })
			for i, r := range rs {
				if r.status != 200 && r.status != 409 {
					t.Errorf("parcel client %d: %d %s", i, r.status, r.raw)
				}
			}
			p := e.do("GET", "/v1/delivery_tracking/parcels?tracking_number=NP-RACE-1", site1.rest, "")
			if n := len(get(p.body, "parcels").([]any)); p.status != 200 || n != 1 {
				t.Fatalf("parcels: %d %s", p.status, p.raw)
			}
			rs = race(clients, func(i int) resp {
				return e.do("POST", "/v1/delivery_tracking/parcel.event", site1.rest, fmt.Sprintf(`{"tracking_number": "NP-RACE-1",
					"time": "2026-11-23T%02d:%02d:00Z", "step": "STEP_ON_ROUTE"}`, 8-i/60, 59-i%60))
			})
			var ackTimes []string
			for i, r := range rs {
				switch r.status {
				case 200:
					ackTimes = append(ackTimes, fmt.Sprintf("2026-11-23T%02d:%02d:00Z", 8-i/60, 59-i%60))
				case 409:
				default:
					t.Errorf("event client %d: %d %s", i, r.status, r.raw)
				}
			}
			p = e.do("GET", "/v1/delivery_tracking/parcels?tracking_number=NP-RACE-1", site1.rest, "")
			history := map[string]bool{}
			for _, h := range get(p.body, "parcels", 0, "progress_history").([]any) {
				history[str(h, "time")] = true
			}
			sort.Strings(ackTimes)
			for _, at := range ackTimes {
				if !history[at] {
					t.Errorf("acknowledged event at %s is not in the history: %s", at, p.raw)
				}
			}
			t.Logf("%d of %d events acknowledged", len(ackTimes), clients)
		})
	}
}

// TestRaceShipmentBooking: clients book the parcels of one shipment at
// once, through HTTP and the wiring that makes each booked delivery a
// tracking parcel. The delivery gets one tracking number, every successful
// answer shows that number, and tracking holds exactly one parcel for it.
// (shipment.TestConcurrentBookParcelsAssignOneNumber proves the service
// alone.)
func TestRaceShipmentBooking(t *testing.T) {
	for name, mk := range stores(t) {
		t.Run(name, func(t *testing.T) {
			e := newEnvOn(t, mk())
			r := e.do("POST", "/v1/som/shipments.create", site1.rest, fmt.Sprintf(shipmentCreate, "race-ship", ""))
			id := str(r.body, "id")
			rs := race(clients, func(int) resp {
				return e.do("POST", "/v1/som/shipments.bookParcels", site1.rest, `{"shipment_id": "`+id+`"}`)
			})
			numbers := map[string]bool{}
			for i, r := range rs {
				switch {
				case r.status == 200:
					numbers[str(r.body, "shipment", "parcels", 0, "deliveries", 0, "tracking_number")] = true
				case r.status == 409, r.status == 400 && strings.Contains(string(r.raw), "BOOKED"):
				default:
					t.Errorf("client %d: %d %s", i, r.status, r.raw)
				}
			}
			t.Logf("answers: %v", statuses(rs))
			g := e.do("GET", "/v1/som/shipments.get?id="+id, site1.rest, "")
			tn := str(g.body, "parcels", 0, "deliveries", 0, "tracking_number")
			if tn == "" || len(numbers) != 1 || !numbers[tn] {
				t.Fatalf("tracking numbers answered %v, stored %q", numbers, tn)
			}
			p := e.do("GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "")
			if n := len(get(p.body, "parcels").([]any)); p.status != 200 || n != 1 {
				t.Errorf("tracking parcels for %s: %d %s", tn, p.status, p.raw)
			}
		})
	}
}
