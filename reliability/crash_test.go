package reliability

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
)

// effectDeadline bounds how long, after a restart, the effects of the
// causes acknowledged before the kill may take to appear: the outbox's
// retry loop (every second) and the webhook sender (every
// -webhook-interval) deliver what the kill interrupted once the claims of
// the killed process have run out (-outbox-lease, -webhook-lease).
const effectDeadline = 10 * time.Second

// crashLease is the outbox's and the webhook sender's lease in the crash
// test: how long a delivery the killed process had claimed waits before
// the restarted one delivers it again. The defaults (a minute and more)
// are right for production, where a lease must outlast the slowest
// consumer; here they would hold the test for a minute after a kill that
// lands between a claim and its delivery.
const crashLease = "2s"

// effect is one consequence of an acknowledged cause in another area (or
// at the merchant's webhook receiver), and how to check it.
type effect struct {
	kind  string
	check func(ctx context.Context, p *proc) error
}

// ack is one acknowledged write: how to check that it is there after a
// crash, and the effects it must have had.
type ack struct {
	kind, what string
	check      func(ctx context.Context, p *proc) error
	effects    []effect
}

// ledger collects acknowledged writes from concurrent writers.
// When the count reaches killAt, reached is closed: the kill point.
type ledger struct {
	mu      sync.Mutex
	acks    []ack
	killAt  int
	reached chan struct{}
}

func (l *ledger) add(a ack) {
	l.mu.Lock()
	l.acks = append(l.acks, a)
	if len(l.acks) == l.killAt {
		close(l.reached)
	}
	l.mu.Unlock()
}

// arm sets the kill point n acknowledged writes from now.
func (l *ledger) arm(n int) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.killAt, l.reached = len(l.acks)+n, make(chan struct{})
	return l.reached
}

func (l *ledger) snapshot() []ack {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.acks)
}

// errNoAnswer marks a write the server did not answer (it was killed):
// its fate is unknown and it is not checked.
var errNoAnswer = errors.New("no answer")

// writer runs one client's stream of writes across the areas (A, C, D, E, F) until the
// server stops answering, recording every 2xx in l with the effects it
// must have: in other areas and as webhooks at h. A refusal of a write
// the client expects to succeed fails the test.
func writer(ctx context.Context, t *testing.T, p *proc, l *ledger, h *hookReceiver, rng *rand.Rand, prefix string) {
	call := func(method, path string, hd map[string]string, body string, want int) (resp, error) {
		r, err := p.call(ctx, method, path, hd, body)
		if err != nil {
			return r, errNoAnswer
		}
		if r.status != want {
			t.Errorf("%s %s: %d %s", method, path, r.status, r.raw)
			return r, errNoAnswer
		}
		return r, nil
	}
	for k := 0; ; k++ {
		id := fmt.Sprintf("%s-%d", prefix, k)
		var err error
		switch rng.IntN(5) {
		case 0: // C: create, complete; completion becomes a tracking order and a returnable order
			var r resp
			if r, err = call("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "c-"+id), 200); err != nil {
				break
			}
			sid := str(r.body, "session", "id")
			l.add(ack{kind: "checkout create", what: "checkout create " + sid, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/siw/session.get?id="+sid, site1.rest, "session", "id", sid)
			}})
			if r, err = call("POST", "/v1/siw/session.complete", site1.rest, `{"id": "`+sid+`", "customer": `+checkoutCustomer+`}`, 200); err != nil {
				break
			}
			tos := str(r.body, "tos_id")
			l.add(ack{kind: "checkout complete", what: "checkout complete " + sid, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/siw/session.get?id="+sid, site1.rest, "session", "tos_id", tos)
			}, effects: []effect{
				trackingOrder("c-"+id, tos),
				returnableOrder("c-" + id),
				h.expect(event.TypeOrderCompleted, "tos_id", tos),
			}})
		case 1: // A: order, parcel, events; an event becomes notifications
			var r resp
			if r, err = call("POST", "/v1/delivery_tracking/order", site1.rest, fmt.Sprintf(`{"external_id": "t-%s", "carrier_product_ref": "north-parcel-home",
				"sender": {"name": "Shop"}, "receiver": {"name": "Alva Berg", "email": "alva@example.com", "phone": "+46701234567"},
				"destination": {"address": {"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}`, id), 200); err != nil {
				break
			}
			tos := str(r.body, "id")
			l.add(ack{kind: "tracking order", what: "tracking order " + tos, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id=t-"+id, site1.rest, "orders", 0, "tos_id", tos)
			}})
			tn := "TN-" + id
			if _, err = call("POST", "/v1/delivery_tracking/parcel", site1.rest, `{"tos_id": "`+tos+`", "tracking_number": "`+tn+`",
				"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`, 200); err != nil {
				break
			}
			l.add(ack{kind: "tracking parcel", what: "parcel " + tn, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "tos_id", tos)
			}, effects: h.expectIfEmitted(event.TypeParcelRegistered, "tracking_number", tn)})
			for i, step := range []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE"} {
				at := fmt.Sprintf("2026-11-2%dT10:00:00Z", 2+i)
				if _, err = call("POST", "/v1/delivery_tracking/parcel.event", site1.rest, `{"tracking_number": "`+tn+`", "time": "`+at+`", "step": "`+step+`"}`, 200); err != nil {
					break
				}
				effects := []effect{h.expect(event.TypeParcelChanged, "tracking_number", tn, "step", step)}
				if step == "STEP_SUBMITTED_TO_CARRIER" {
					// The default rules notify the receiver (by e-mail
					// and SMS) of this step; ON_ROUTE notifies nobody.
					effects = append(effects, notifications("t-"+id, tn, "SUBMITTED_TO_CARRIER"))
					effects = append(effects, h.expectSentNotifications("t-"+id, tn)...)
				}
				l.add(ack{kind: "parcel event", what: "event " + tn + " " + step, check: func(ctx context.Context, p *proc) error {
					// GET /orders lists a parcel's progress oldest first
					// (progress_history of GET /parcels is newest first).
					return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id=t-"+id, site1.rest, "orders", 0, "parcels", 0, "progress", i, "step", step)
				}, effects: effects})
			}
		case 2: // D: create, complete; the delivery becomes a tracking order and a returnable order
			var r resp
			if r, err = call("POST", "/delivery/v1/sessions", site1.rpc, sessionCreate, 200); err != nil {
				break
			}
			name := str(r.body, "name")
			l.add(ack{kind: "delivery session create", what: "delivery session " + name, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/delivery/v1/"+name, site1.rpc, "name", name)
			}})
			if r, err = call("POST", "/delivery/v1/"+name+":complete", site1.rpc, fmt.Sprintf(sessionComplete, "d-"+id), 200); err != nil {
				break
			}
			tos := str(r.body, "session", "deliveries", 0, "tos_id")
			l.add(ack{kind: "delivery session complete", what: "delivery session complete " + name, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/delivery/v1/"+name, site1.rpc, "state", "COMPLETED")
			}, effects: []effect{
				trackingOrder("d-"+id, tos),
				returnableOrder("d-" + id),
				h.expect(event.TypeOrderCompleted, "tos_id", tos),
			}})
		case 3: // E: import an order, a customer returns part of it
			var r resp
			if r, err = call("POST", "/returns/merchant/order", site1.spring, fmt.Sprintf(returnsOrder, "r-"+id, 1), 201); err != nil {
				break
			}
			oid := fmt.Sprint(get(r.body, "id"))
			l.add(ack{kind: "returns order", what: "returns order " + oid, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/returns/merchant/order/"+oid, site1.spring, "foreignId", "r-"+id)
			}})
			if r, err = call("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "r-`+id+`", "email": "anna@example.com",
				"items": [{"foreignLineItemId": "L1", "quantity": 1}]}`, 201); err != nil {
				break
			}
			rid := fmt.Sprint(get(r.body, "id"))
			l.add(ack{kind: "customer return", what: "customer return " + rid, check: func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/returns/merchant/return/"+rid, site1.spring, "status", "AWAITING_RETURN")
			}, effects: h.expectIfEmitted(event.TypeReturnCreated, "return_id", rid)})
		case 4: // F: create and book a shipment; its delivery becomes a tracking parcel with a customer page
			var r resp
			if r, err = call("POST", "/v1/som/shipments.createAndBook", site1.rest, fmt.Sprintf(shipmentCreate, "s-"+id, ", "+pickupWindow), 200); err != nil {
				break
			}
			sid := str(r.body, "id")
			tn, link := str(r.body, "parcels", 0, "deliveries", 0, "tracking_number"), str(r.body, "parcels", 0, "deliveries", 0, "tracking_link")
			l.add(ack{kind: "shipment booked", what: "shipment " + sid, check: func(ctx context.Context, p *proc) error {
				if err := expect(ctx, p, "GET", "/v1/som/shipments.get?id="+sid, site1.rest, "parcels", 0, "deliveries", 0, "tracking_number", tn); err != nil {
					return err
				}
				return expect(ctx, p, "GET", "/v1/som/shipments.get?id="+sid, site1.rest, "parcels", 0, "deliveries", 0, "tracking_link", link)
			}, effects: []effect{
				{"tracking parcel", func(ctx context.Context, p *proc) error {
					return expect(ctx, p, "GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "parcels", 0, "tracking_number", tn)
				}},
				trackingPage(link, tn),
				h.expect(event.TypeParcelBooked, "tracking_number", tn),
			}})
		}
		if err != nil {
			return
		}
	}
}

// trackingOrder: a completed session is a tracking order under its tos_id.
func trackingOrder(externalID, tos string) effect {
	return effect{"tracking order", func(ctx context.Context, p *proc) error {
		if tos == "" {
			return errors.New("the completion answered no tos_id")
		}
		return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id="+url.QueryEscape(externalID), site1.rest, "orders", 0, "tos_id", tos)
	}}
}

// returnableOrder: a completed session whose customer gave an e-mail
// address is an order the customer can return items of.
func returnableOrder(externalID string) effect {
	return effect{"returnable order", func(ctx context.Context, p *proc) error {
		return expect(ctx, p, "GET", "/returns/merchant/order/"+url.PathEscape(externalID)+"?idType=FOREIGN_ID", site1.spring, "foreignId", externalID)
	}}
}

// trackingPage: a booked delivery's tracking_link opens the customer's
// tracking page of its parcel. The link names the server's address at
// booking time; the restarted server listens elsewhere, so only its path
// and query are sent.
func trackingPage(link, tn string) effect {
	return effect{"tracking link page", func(ctx context.Context, p *proc) error {
		u, err := url.Parse(link)
		if err != nil || !strings.HasPrefix(u.Path, tracking.PagePath) {
			return fmt.Errorf("tracking_link %q is not a customer page link", link)
		}
		r, err := p.call(ctx, "GET", u.RequestURI(), nil, "")
		if err != nil {
			return err
		}
		if r.status != 200 || !strings.Contains(string(r.raw), tn) {
			return fmt.Errorf("GET %s: %d, page without %s: %.300s", u.RequestURI(), r.status, tn, r.raw)
		}
		return nil
	}}
}

// notifications: a parcel event the rules notify of is listed as
// notifications of the order.
func notifications(externalID, tn, name string) effect {
	return effect{"notifications", func(ctx context.Context, p *proc) error {
		ns, err := listNotifications(ctx, p, externalID)
		if err != nil {
			return err
		}
		for _, n := range ns {
			if n.TrackingNumber == tn && n.Name == name {
				return nil
			}
		}
		return fmt.Errorf("order %s: no %s notification of %s in %+v", externalID, name, tn, ns)
	}}
}

type listedNotification struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	Name           string `json:"name"`
	TrackingNumber string `json:"tracking_number"`
}

func listNotifications(ctx context.Context, p *proc, externalID string) ([]listedNotification, error) {
	r, err := p.call(ctx, "GET", "/v1/delivery_tracking/notifications?external_id="+url.QueryEscape(externalID), site1.rest, "")
	if err != nil {
		return nil, err
	}
	var body struct {
		Notifications []listedNotification `json:"notifications"`
	}
	if r.status != 200 || json.Unmarshal(r.raw, &body) != nil {
		return nil, fmt.Errorf("notifications of %s: %d %.300s", externalID, r.status, r.raw)
	}
	return body.Notifications, nil
}

// expect GETs path and checks that the value at path equals want.
func expect(ctx context.Context, p *proc, method, target string, hd map[string]string, pathAndWant ...any) error {
	r, err := p.call(ctx, method, target, hd, "")
	if err != nil {
		return err
	}
	path, want := pathAndWant[:len(pathAndWant)-1], pathAndWant[len(pathAndWant)-1]
	if r.status != 200 || get(r.body, path...) != want {
		return fmt.Errorf("%s %s: %d, %v at %v, want %v: %.400s", method, target, r.status, get(r.body, path...), path, want, r.raw)
	}
	return nil
}

// hookReceiver is the merchant's webhook endpoint, in the test process. It
// verifies every delivery's signature as a merchant would (webhook.Verify)
// and keeps what the valid ones were about.
type hookReceiver struct {
	secret string
	srv    *httptest.Server
	mu     sync.Mutex
	posts  int             // requests received
	bad    []string        // deliveries that failed verification
	seen   map[string]int  // webhook-id → valid deliveries of it
	about  map[string]bool // hookKey of every valid delivery
	// last is the latest webhook-id first received per subject; order
	// lists the subjects whose events came out of order.
	last  map[string]string
	order []string
}

const hookEndpoint = "crash"

// emitted are the event types the areas produce whose causes the writers
// make: the test expects a webhook of each such cause. checkDeliveries
// fails when the server delivers a type not listed here, so that a new
// producer's expectation is switched on.
var emitted = map[event.Type]bool{
	event.TypeOrderCompleted: true, event.TypeParcelBooked: true, event.TypeParcelChanged: true,
	event.TypeNotificationSent: true, event.TypeNotificationFailed: true,
	event.TypeReturnCreated: true, event.TypeReturnStatusChanged: true, event.TypeReturnItemsReceived: true, event.TypeRefundChanged: true,
	event.TypeDeliveryPickedUp: true, event.TypeParcelRegistered: true,
}

// hookFields are the payload members a delivery is found by.
var hookFields = []string{"subject", "tos_id", "tracking_number", "return_id", "notification_id", "external_id"}

func newHookReceiver(t *testing.T) *hookReceiver {
	h := &hookReceiver{
		secret: "whsec_" + base64.StdEncoding.EncodeToString([]byte("crash-test-webhook-secret-32byte")),
		seen:   map[string]int{},
		about:  map[string]bool{},
		last:   map[string]string{},
	}
	h.srv = httptest.NewServer(h)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	h.mu.Lock()
	defer h.mu.Unlock()
	h.posts++
	id := r.Header.Get(webhook.HeaderID)
	if err == nil {
		err = webhook.Verify(body, r.Header, time.Now(), h.secret)
	}
	var msg struct {
		Type event.Type     `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err == nil {
		err = json.Unmarshal(body, &msg)
	}
	if err != nil {
		h.bad = append(h.bad, fmt.Sprintf("%s %s: %v", r.Method, id, err))
		http.Error(w, "bad delivery", http.StatusUnauthorized)
		return
	}
	h.seen[id]++
	for _, f := range hookFields {
		if v := str(msg.Data, f); v != "" {
			h.about[hookKey(msg.Type, f, v)] = true
		}
	}
	if msg.Type == event.TypeParcelChanged {
		h.about[hookKey(msg.Type, "tracking_number", str(msg.Data, "tracking_number"), "step", str(msg.Data, "step"))] = true
	}
	// A subject's event ids grow in the order its events were written
	// (outbox's ids count on per subject), and an endpoint
	// gets a subject's events one at a time in that order: first
	// receipts of a subject come in id order (repeats may come later).
	if subject := str(msg.Data, "subject"); h.seen[id] == 1 {
		if prev := h.last[subject]; id < prev {
			h.order = append(h.order, fmt.Sprintf("%s: %s after %s", subject, id, prev))
		} else {
			h.last[subject] = id
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// hookKey names a delivery by its type and payload members, as "type
// field=value field=value".
func hookKey(typ event.Type, fieldsAndValues ...string) string {
	var b strings.Builder
	b.WriteString(string(typ))
	for i := 0; i+1 < len(fieldsAndValues); i += 2 {
		fmt.Fprintf(&b, " %s=%s", fieldsAndValues[i], fieldsAndValues[i+1])
	}
	return b.String()
}

// expect is the effect "a validly signed webhook of type typ whose payload
// has these members reached the receiver".
func (h *hookReceiver) expect(typ event.Type, fieldsAndValues ...string) effect {
	key := hookKey(typ, fieldsAndValues...)
	return effect{"webhook " + string(typ), func(context.Context, *proc) error {
		h.mu.Lock()
		defer h.mu.Unlock()
		if !h.about[key] {
			return fmt.Errorf("no validly signed webhook %q received", key)
		}
		return nil
	}}
}

// expectIfEmitted is expect as a list, empty while typ is not emitted.
func (h *hookReceiver) expectIfEmitted(typ event.Type, fieldsAndValues ...string) []effect {
	if !emitted[typ] {
		return nil
	}
	return []effect{h.expect(typ, fieldsAndValues...)}
}

// expectSentNotifications is the effect "every notification of the
// parcel that was sent has reached the receiver as notification.sent".
// Notifications still pending are checked again after the next restart.
func (h *hookReceiver) expectSentNotifications(externalID, tn string) []effect {
	if !emitted[event.TypeNotificationSent] {
		return nil
	}
	return []effect{{"webhook " + string(event.TypeNotificationSent), func(ctx context.Context, p *proc) error {
		ns, err := listNotifications(ctx, p, externalID)
		if err != nil {
			return err
		}
		for _, n := range ns {
			if n.TrackingNumber != tn || n.Status != "TRIGGERED" {
				continue
			}
			if err := h.expect(event.TypeNotificationSent, "notification_id", n.ID).check(ctx, p); err != nil {
				return err
			}
		}
		return nil
	}}}
}

// stats are how many deliveries arrived, of how many webhook-ids, and how
// many were repeats of an id already received.
func (h *hookReceiver) stats() (posts, ids, duplicates int, bad, order []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range h.seen {
		duplicates += n - 1
	}
	return h.posts, len(h.seen), duplicates, slices.Clone(h.bad), slices.Clone(h.order)
}

func (h *hookReceiver) received(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.seen[id] > 0
}

// crashConfig writes the demo configuration with one webhook endpoint of
// demo-site, at h, for every event type, and returns its path.
func crashConfig(t *testing.T, h *hookReceiver) string {
	t.Helper()
	cfg := config.Demo()
	cfg.Sites[0].Webhooks = []webhook.Endpoint{{ID: hookEndpoint, URL: h.srv.URL + "/hooks", Secrets: []string{h.secret}, Events: event.Types}}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(path); err != nil {
		t.Fatalf("the crash test's configuration: %v", err)
	}
	return path
}

// report counts what the crash test proved.
type report struct {
	kills      int
	causes     map[string]int // acknowledged writes by kind, at the end
	effects    map[string]int // effect checks that held, by kind, across the restarts
	late       int            // effects that appeared only after the restart (the retry loops)
	deliveries int            // webhook deliveries the server recorded
	types      map[string]int // of which, by event type
	missing    []string
}

// checkAcks checks, on the freshly restarted server, that every
// acknowledged write is there at once, and polls until each of its
// effects is there too, or effectDeadline has passed.
func checkAcks(ctx context.Context, t *testing.T, p *proc, round int, acks []ack, rep *report) {
	type pending struct {
		a   *ack
		e   effect
		err error
	}
	var waiting []pending
	for i := range acks {
		a := &acks[i]
		if err := a.check(ctx, p); err != nil {
			t.Errorf("round %d: acknowledged %s lost or inconsistent: %v", round, a.what, err)
		}
		for _, e := range a.effects {
			waiting = append(waiting, pending{a: a, e: e})
		}
	}
	deadline := time.Now().Add(effectDeadline)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for pass := 0; ; pass++ {
		left := waiting[:0]
		for _, pd := range waiting {
			if pd.err = pd.e.check(ctx, p); pd.err != nil {
				left = append(left, pd)
				continue
			}
			rep.effects[pd.e.kind]++
			if pass > 0 {
				rep.late++
			}
		}
		waiting = left
		if len(waiting) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	for _, pd := range waiting {
		m := fmt.Sprintf("round %d: %s of acknowledged %s: %v", round, pd.e.kind, pd.a.what, pd.err)
		rep.missing = append(rep.missing, m)
		t.Errorf("missing after %v: %s", effectDeadline, m)
	}
}

// checkDeliveries polls until every webhook delivery the server recorded
// for the endpoint is delivered and was received with a valid signature.
func checkDeliveries(ctx context.Context, t *testing.T, p *proc, h *hookReceiver, rep *report) {
	deadline := time.Now().Add(effectDeadline)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var problems []string
	unexpected := map[string]bool{}
	for {
		problems = problems[:0]
		total := 0
		clear(rep.types)
		for before := ""; ; {
			target := "/v1/webhooks/endpoints/" + hookEndpoint + "/deliveries?limit=100"
			if before != "" {
				target += "&before=" + before
			}
			r, err := p.call(ctx, "GET", target, site1.rest, "")
			if err != nil || r.status != 200 {
				t.Fatalf("GET %s: %v %d %.300s", target, err, r.status, r.raw)
			}
			var page struct {
				Deliveries []struct {
					EventID   string `json:"event_id"`
					EventType string `json:"event_type"`
					Subject   string `json:"subject"`
					Status    string `json:"status"`
					Attempts  int    `json:"attempts"`
					LastError string `json:"last_error"`
				} `json:"deliveries"`
				NextBefore string `json:"next_before"`
			}
			if err := json.Unmarshal(r.raw, &page); err != nil {
				t.Fatalf("deliveries: %v: %.300s", err, r.raw)
			}
			for _, d := range page.Deliveries {
				total++
				rep.types[d.EventType]++
				if !emitted[event.Type(d.EventType)] && !unexpected[d.EventType] {
					unexpected[d.EventType] = true
					t.Errorf("the server delivered a %s webhook (%s): add %s to emitted, and the causes' expectations", d.EventType, d.Subject, d.EventType)
				}
				if d.Status != string(webhook.StatusDelivered) || !h.received(d.EventID) {
					problems = append(problems, fmt.Sprintf("%s %s %s: %s after %d attempts (%s), received: %v",
						d.EventID, d.EventType, d.Subject, d.Status, d.Attempts, d.LastError, h.received(d.EventID)))
				}
			}
			if before = page.NextBefore; before == "" {
				break
			}
		}
		rep.deliveries = total
		if len(problems) == 0 || time.Now().After(deadline) {
			break
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	}
	for _, m := range problems {
		rep.missing = append(rep.missing, "webhook delivery "+m)
		t.Errorf("webhook delivery not delivered after %v: %s", effectDeadline, m)
	}
}

// TestCrashSafety runs the example server on a bolt file, streams writes
// across the areas from several clients, SIGKILLs the server at seeded
// pseudo-random points (after a seeded number of acknowledged writes),
// restarts it, and checks after every restart that every write answered
// with a 2xx before any kill is present and consistent, and that every
// effect it has in another area arrived, at once or by the outbox's retry
// loop after the restart: a completed checkout or delivery session is a
// tracking order under the same tos_id and a returnable order; a booked
// shipment's delivery is a tracking parcel under its tracking number whose
// tracking_link opens the customer page; a parcel event is the
// notifications it calls for. A webhook receiver in the test process,
// subscribed to every event type, must have received each of these causes
// (and each notification sent) with a valid signature, and in the end
// every delivery the server recorded. Last, the file passes bbolt's
// consistency check. -reliability.kills (or DELIVERYKIT_RELIABILITY_KILLS)
// sets the number of kills, -reliability.seed the kill points.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dk.db")
	hooks := newHookReceiver(t)
	cfg := crashConfig(t, hooks)
	kills, seed := *flagKills, *flagSeed
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	t.Logf("kills %d, seed %d (rerun with -reliability.seed=%d)", kills, seed, seed)
	l := &ledger{}
	const writers = 4
	rep := &report{kills: kills, causes: map[string]int{}, effects: map[string]int{}, types: map[string]int{}}
	checked := 0
	for round := 0; round <= kills; round++ {
		// Four writers of one demo site go as fast as the server lets
		// them: rate limits would refuse most writes, not test them.
		// Notifications and webhooks are sent at once.
		p := startServer(t, db, "-rate-limits", "off", "-config", cfg, "-dev",
			"-webhooks-allow-private", "-webhook-interval", "200ms", "-notify-interval", "200ms",
			"-outbox-lease", crashLease, "-webhook-lease", crashLease)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second+2*effectDeadline)
		// Everything acknowledged before the last kill is still there,
		// with all its effects.
		acks := l.snapshot()
		late := rep.late
		checkAcks(ctx, t, p, round, acks, rep)
		checked += len(acks)
		if round > 0 {
			t.Logf("round %d: after the restart, %d acknowledged writes checked; %d effects arrived while polling", round, len(acks), rep.late-late)
		}
		if round == kills {
			checkDeliveries(ctx, t, p, hooks, rep)
			cancel()
			for _, a := range acks {
				rep.causes[a.kind]++
			}
			t.Logf("%d kills; %d acknowledged writes, %d checks of them across the restarts", kills, len(acks), checked)
			logReport(t, rep, hooks)
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
			break
		}
		// The kill point: after a seeded number of acknowledged writes,
		// with the writers in the middle of their next ones.
		after := 10 + rng.IntN(200)
		reached := l.arm(after)
		var wg sync.WaitGroup
		for w := range writers {
			wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
			wg.Go(func() { writer(ctx, t, p, l, hooks, wrng, fmt.Sprintf("r%dw%d", round, w)) })
		}
		select {
		case <-reached:
		case <-ctx.Done():
			t.Fatalf("round %d: %d writes were not acknowledged in time", round, after)
		}
		p.kill(t)
		wg.Wait()
		cancel()
		t.Logf("round %d: killed after %d more acknowledged writes; %d acknowledged so far", round, after, len(l.snapshot()))
		// The access log of hundreds of authenticated requests holds no
		// key, and no webhook secret.
		for _, k := range append(slices.Clone(apiKeys), hooks.secret, strings.TrimPrefix(hooks.secret, "whsec_")) {
			if strings.Contains(p.log.String(), k) {
				t.Errorf("round %d: the server log holds the secret %q", round, k)
			}
		}
		if t.Failed() {
			t.Logf("server log:\n%s", lastLines(p.log.String(), 40))
			return
		}
	}
	// The file opens and passes bbolt's page-level consistency check.
	bdb, err := bbolt.Open(db, 0o600, &bbolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		t.Fatalf("open after the last run: %v", err)
	}
	defer bdb.Close()
	if err := bdb.View(func(tx *bbolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	}); err != nil {
		t.Errorf("consistency check: %v", err)
	}
}

// logReport logs what the crash test did and found.
func logReport(t *testing.T, rep *report, h *hookReceiver) {
	posts, ids, dups, bad, order := h.stats()
	var b strings.Builder
	fmt.Fprintf(&b, "crash report: %d kills\n", rep.kills)
	fmt.Fprintf(&b, "  acknowledged causes:\n")
	for _, k := range slices.Sorted(maps.Keys(rep.causes)) {
		fmt.Fprintf(&b, "    %-26s %6d\n", k, rep.causes[k])
	}
	fmt.Fprintf(&b, "  effects checked (held, summed over the restarts; %d arrived only while polling after a restart):\n", rep.late)
	for _, k := range slices.Sorted(maps.Keys(rep.effects)) {
		fmt.Fprintf(&b, "    %-26s %6d\n", k, rep.effects[k])
	}
	fmt.Fprintf(&b, "  webhooks: %d deliveries recorded by the server %v; %d requests received, %d webhook-ids, %d duplicates (same webhook-id again), %d with a bad signature, %d out of order\n",
		rep.deliveries, rep.types, posts, ids, dups, len(bad), len(order))
	problems := slices.Concat(rep.missing, bad, order)
	fmt.Fprintf(&b, "  missing or wrong: %d", len(problems))
	for _, m := range problems {
		fmt.Fprintf(&b, "\n    %s", m)
	}
	t.Log(b.String())
	if len(bad) > 0 {
		t.Errorf("%d webhook deliveries failed verification: %v", len(bad), bad)
	}
	if len(order) > 0 {
		t.Errorf("%d webhooks arrived before an earlier event of their subject: %v", len(order), order)
	}
}
