package reliability

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// ack is one acknowledged write and how to check it after a crash.
type ack struct {
	what  string
	check func(ctx context.Context, p *proc) error
}

// ledger collects acknowledged writes from concurrent writers.
// When the count reaches killAt, reached is closed: the kill point.
type ledger struct {
	mu      sync.Mutex
	acks    []ack
	killAt  int
	reached chan struct{}
}

func (l *ledger) add(what string, check func(context.Context, *proc) error) {
	l.mu.Lock()
	l.acks = append(l.acks, ack{what, check})
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

// errNoAnswer marks a write the server did not answer (it was killed):
// its fate is unknown and it is not checked.
var errNoAnswer = errors.New("no answer")

// writer runs one client's stream of writes across the areas (A, C, D, E, F) until the
// server stops answering, recording every 2xx in l. A refusal of a write
// the client expects to succeed fails the test.
func writer(ctx context.Context, t *testing.T, p *proc, l *ledger, rng *rand.Rand, prefix string) {
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
		case 0: // C: create, complete; completion becomes a tracking order
			var r resp
			if r, err = call("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "c-"+id), 200); err != nil {
				break
			}
			sid := str(r.body, "session", "id")
			l.add("checkout create "+sid, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/siw/session.get?id="+sid, site1.rest, "session", "id", sid)
			})
			if r, err = call("POST", "/v1/siw/session.complete", site1.rest, `{"id": "`+sid+`", "customer": `+checkoutCustomer+`}`, 200); err != nil {
				break
			}
			tos := str(r.body, "tos_id")
			l.add("checkout complete "+sid, func(ctx context.Context, p *proc) error {
				if err := expect(ctx, p, "GET", "/v1/siw/session.get?id="+sid, site1.rest, "session", "tos_id", tos); err != nil {
					return err
				}
				return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id=c-"+id, site1.rest, "orders", 0, "tos_id", tos)
			})
		case 1: // A: order, parcel, events
			var r resp
			if r, err = call("POST", "/v1/delivery_tracking/order", site1.rest, fmt.Sprintf(`{"external_id": "t-%s", "carrier_product_ref": "north-parcel-home",
				"sender": {"name": "Shop"}, "receiver": {"name": "Alva Berg"}, "destination": {"address": {"city": "Stockholm", "country": "SE"}},
				"delivery_type": "DELIVERY"}`, id), 200); err != nil {
				break
			}
			tos := str(r.body, "id")
			l.add("tracking order "+tos, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id=t-"+id, site1.rest, "orders", 0, "tos_id", tos)
			})
			tn := "TN-" + id
			if _, err = call("POST", "/v1/delivery_tracking/parcel", site1.rest, `{"tos_id": "`+tos+`", "tracking_number": "`+tn+`",
				"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`, 200); err != nil {
				break
			}
			l.add("parcel "+tn, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "tos_id", tos)
			})
			for i, step := range []string{"STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE"} {
				at := fmt.Sprintf("2026-11-2%dT10:00:00Z", 2+i)
				if _, err = call("POST", "/v1/delivery_tracking/parcel.event", site1.rest, `{"tracking_number": "`+tn+`", "time": "`+at+`", "step": "`+step+`"}`, 200); err != nil {
					break
				}
				l.add("event "+tn+" "+step, func(ctx context.Context, p *proc) error {
					return expect(ctx, p, "GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "parcels", 0, "progress_history", i, "step", step)
				})
			}
		case 2: // D: create, complete; the delivery becomes a tracking order
			var r resp
			if r, err = call("POST", "/delivery/v1/sessions", site1.rpc, sessionCreate, 200); err != nil {
				break
			}
			name := str(r.body, "name")
			l.add("delivery session "+name, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/delivery/v1/"+name, site1.rpc, "name", name)
			})
			if _, err = call("POST", "/delivery/v1/"+name+":complete", site1.rpc, fmt.Sprintf(sessionComplete, "d-"+id), 200); err != nil {
				break
			}
			l.add("delivery session complete "+name, func(ctx context.Context, p *proc) error {
				if err := expect(ctx, p, "GET", "/delivery/v1/"+name, site1.rpc, "state", "COMPLETED"); err != nil {
					return err
				}
				return expect(ctx, p, "GET", "/v1/delivery_tracking/orders?external_id=d-"+id, site1.rest, "orders", 0, "external_id", "d-"+id)
			})
		case 3: // E: import an order, a customer returns part of it
			var r resp
			if r, err = call("POST", "/returns/merchant/order", site1.spring, fmt.Sprintf(returnsOrder, "r-"+id, 1), 201); err != nil {
				break
			}
			oid := fmt.Sprint(get(r.body, "id"))
			l.add("returns order "+oid, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/returns/merchant/order/"+oid, site1.spring, "foreignId", "r-"+id)
			})
			if r, err = call("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "r-`+id+`", "email": "anna@example.com",
				"items": [{"foreignLineItemId": "L1", "quantity": 1}]}`, 201); err != nil {
				break
			}
			rid := fmt.Sprint(get(r.body, "id"))
			l.add("customer return "+rid, func(ctx context.Context, p *proc) error {
				return expect(ctx, p, "GET", "/returns/merchant/return/"+rid, site1.spring, "status", "AWAITING_RETURN")
			})
		case 4: // F: create and book a shipment; its delivery becomes a tracking parcel
			var r resp
			if r, err = call("POST", "/v1/som/shipments.createAndBook", site1.rest, fmt.Sprintf(shipmentCreate, "s-"+id, ", "+pickupWindow), 200); err != nil {
				break
			}
			sid, tn := str(r.body, "id"), str(r.body, "parcels", 0, "deliveries", 0, "tracking_number")
			l.add("shipment "+sid, func(ctx context.Context, p *proc) error {
				if err := expect(ctx, p, "GET", "/v1/som/shipments.get?id="+sid, site1.rest, "parcels", 0, "deliveries", 0, "tracking_number", tn); err != nil {
					return err
				}
				return expect(ctx, p, "GET", "/v1/delivery_tracking/parcels?tracking_number="+tn, site1.rest, "parcels", 0, "tracking_number", tn)
			})
		}
		if err != nil {
			return
		}
	}
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

// TestCrashSafety runs the example server on a bolt file, streams writes
// across the areas from several clients, SIGKILLs the server at seeded
// pseudo-random points (after a seeded number of acknowledged writes), restarts it, and checks after every restart that
// every write answered with a 2xx before any kill is present and
// consistent (a completed session is also a tracking order under the same
// tos_id), and finally that the file passes bbolt's consistency check.
// -reliability.kills (or DELIVERYKIT_RELIABILITY_KILLS) sets the number of
// kills, -reliability.seed the kill points.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dk.db")
	kills, seed := *flagKills, *flagSeed
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	t.Logf("kills %d, seed %d (rerun with -reliability.seed=%d)", kills, seed, seed)
	l := &ledger{}
	const writers = 4
	checked := 0
	for round := 0; round <= kills; round++ {
		// Four writers of one demo site go as fast as the server lets
		// them: rate limits would refuse most writes, not test them.
		p := startServer(t, db, "-rate-limits", "off")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		// Everything acknowledged before the last kill is still there.
		l.mu.Lock()
		acks := append([]ack(nil), l.acks...)
		l.mu.Unlock()
		for _, a := range acks {
			if err := a.check(ctx, p); err != nil {
				t.Errorf("round %d: acknowledged %s lost or inconsistent: %v", round, a.what, err)
			}
		}
		checked += len(acks)
		if round == kills {
			cancel()
			t.Logf("%d kills; %d acknowledged writes, %d checks of them across the restarts", kills, len(acks), checked)
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
			wg.Go(func() { writer(ctx, t, p, l, wrng, fmt.Sprintf("r%dw%d", round, w)) })
		}
		select {
		case <-reached:
		case <-ctx.Done():
			t.Fatalf("round %d: %d writes were not acknowledged in time", round, after)
		}
		p.kill(t)
		wg.Wait()
		cancel()
		l.mu.Lock()
		t.Logf("round %d: killed after %d more acknowledged writes; %d acknowledged so far", round, after, len(l.acks))
		l.mu.Unlock()
		// The access log of hundreds of authenticated requests holds no key.
		for _, k := range apiKeys {
			if strings.Contains(p.log.String(), k) {
				t.Errorf("round %d: the server log holds API key %q", round, k)
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
