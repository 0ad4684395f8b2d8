package reliability

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
)

// keyedCall is one call a retrying client makes with an Idempotency-Key:
// it sends it until it is answered, across kills and restarts.
type keyedCall struct {
	key, kind, path string
	header          map[string]string
	body            string
	status          int    // of the acknowledgement; 0 while unanswered
	answer          []byte // the acknowledged body
}

// keyedEffects is where a call's effect is found: the collection holding
// the records that name the key (a shipment's reference, a return line's
// reason).
var keyedEffects = map[string]string{"book": "shipment.shipments", "return": "returns.returns"}

func keyedBook(key string) string {
	return `{"reference": "` + key + `",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`
}

func keyedReturn(order, key string) string {
	return `{"siteId": "demo-site", "foreignOrderId": "` + order + `", "email": "anna@example.com",
  "items": [{"foreignLineItemId": "L1", "quantity": 1, "reason": "` + key + `"}]}`
}

// countEffects counts, in the bolt file of a stopped server, the records
// of each call's collection that name its key.
func countEffects(t *testing.T, db string, calls []*keyedCall) map[string]int {
	t.Helper()
	s, err := bolt.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	counts := map[string]int{}
	err = s.View(t.Context(), func(tx storage.Tx) error {
		for _, coll := range keyedEffects {
			for r, err := range tx.Scan(coll, storage.Range{}) {
				if err != nil {
					return err
				}
				for _, c := range calls {
					if keyedEffects[c.kind] == coll && bytes.Contains(r.Value, []byte(`"`+c.key+`"`)) {
						counts[c.key]++
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return counts
}

// TestCrashIdempotencyKeys kills the server (bolt, SIGKILL) at seeded
// points while writers book shipments without an external_id and create
// customer returns, each call with an Idempotency-Key, and restarts it. A
// client that retries every unanswered call with its key ends with exactly
// one effect per key: after every kill, each acknowledged call has one
// shipment (with its one set of labels) or one return and each unanswered
// one at most one; after the restart the unanswered calls are retried to
// an answer and the answered ones are sent again and replayed byte for
// byte. -reliability.kills sets the number of kills (the long run's
// flag), -reliability.seed the kill points.
func TestCrashIdempotencyKeys(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "dk.db")
	kills, seed := *flagKills, *flagSeed
	rng := rand.New(rand.NewPCG(uint64(seed), 0x1de))
	var (
		mu    sync.Mutex
		calls []*keyedCall
		acked int
	)
	send := func(ctx context.Context, p *proc, c *keyedCall) bool {
		for ctx.Err() == nil {
			r, err := p.call(ctx, "POST", c.path, c.header, c.body)
			if err != nil {
				return false // killed: the call stays unanswered
			}
			if r.status == 409 && r.header.Get("Retry-After") != "" {
				continue // in flight: the retry gets the answer
			}
			if r.status >= 500 {
				t.Errorf("%s: %d %s", c.key, r.status, r.raw)
				return false
			}
			mu.Lock()
			c.status, c.answer = r.status, r.raw
			acked++
			mu.Unlock()
			return true
		}
		return false
	}
	const writers = 3
	for round := 0; round <= kills; round++ {
		if round > 0 {
			mu.Lock()
			snapshot := slices.Clone(calls)
			mu.Unlock()
			counts := countEffects(t, db, snapshot)
			for _, c := range snapshot {
				want := 0
				if c.status/100 == 2 {
					want = 1
				}
				if n := counts[c.key]; n != want && (c.status != 0 || n > 1) {
					t.Errorf("after kill %d: %s (%s, answered %d) has %d effects, want %d", round, c.key, c.kind, c.status, n, want)
				}
			}
		}
		p := startServer(t, db, "-rate-limits", "off")
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		// The client retries what went unanswered and sends the answered
		// calls again: the replay is the answer, byte for byte.
		mu.Lock()
		pending := slices.Clone(calls)
		mu.Unlock()
		replayed := 0
		for _, c := range pending {
			if c.status == 0 {
				if !send(ctx, p, c) {
					t.Fatalf("round %d: retrying %s got no answer", round, c.key)
				}
				continue
			}
			r, err := p.call(ctx, "POST", c.path, c.header, c.body)
			if err != nil || r.status != c.status || !bytes.Equal(r.raw, c.answer) || r.header.Get(idempotency.ReplayedHeader) != "true" {
				t.Errorf("round %d: %s again: %d %s (%v), want the replay of %d %s", round, c.key, r.status, r.raw, err, c.status, c.answer)
			}
			replayed++
		}
		if round == kills {
			cancel()
			p.cmd.Process.Signal(syscall.SIGTERM)
			<-p.done
			break
		}
		mu.Lock()
		killAt := acked + 10 + rng.IntN(60)
		mu.Unlock()
		reached := make(chan struct{})
		var once sync.Once
		var wg sync.WaitGroup
		for w := range writers {
			wrng := rand.New(rand.NewPCG(rng.Uint64(), uint64(w)))
			prefix := fmt.Sprintf("r%dw%d", round, w)
			wg.Go(func() {
				order := "IK-" + prefix
				r, err := p.call(ctx, "POST", "/returns/merchant/order", site1.spring, fmt.Sprintf(keyedOrder, order))
				if err != nil {
					return
				}
				if r.status != 201 {
					t.Errorf("%s: importing the order: %d %s", prefix, r.status, r.raw)
					return
				}
				for i := 0; ctx.Err() == nil; i++ {
					c := &keyedCall{key: fmt.Sprintf("ik-%s-%d", prefix, i), kind: "book", path: "/v1/som/shipments.createAndBook"}
					c.header = map[string]string{idempotency.Header: c.key}
					if wrng.IntN(2) == 0 {
						c.kind, c.path, c.body = "return", "/returns/customer/return", keyedReturn(order, c.key)
					} else {
						for k, v := range site1.rest {
							c.header[k] = v
						}
						c.body = keyedBook(c.key)
					}
					mu.Lock()
					calls = append(calls, c)
					mu.Unlock()
					if !send(ctx, p, c) {
						return
					}
					mu.Lock()
					if acked >= killAt {
						once.Do(func() { close(reached) })
					}
					mu.Unlock()
				}
			})
		}
		select {
		case <-reached:
		case <-ctx.Done():
			t.Fatalf("round %d: the kill point was not reached in time", round)
		}
		p.kill(t)
		wg.Wait()
		cancel()
		mu.Lock()
		unanswered := 0
		for _, c := range calls {
			if c.status == 0 {
				unanswered++
			}
		}
		t.Logf("round %d: %d replays checked; killed with %d calls, %d unanswered", round, replayed, len(calls), unanswered)
		mu.Unlock()
		if t.Failed() {
			t.Logf("server log:\n%s", lastLines(p.log.String(), 40))
			return
		}
	}
	counts := countEffects(t, db, calls)
	kinds := map[string]int{}
	for _, c := range calls {
		kinds[fmt.Sprintf("%s %d", c.kind, c.status)]++
		if want := map[bool]int{true: 1, false: 0}[c.status/100 == 2]; counts[c.key] != want {
			t.Errorf("in the end: %s (%s, answered %d) has %d effects, want %d", c.key, c.kind, c.status, counts[c.key], want)
		}
	}
	t.Logf("%d kills; %d keyed calls by kind and answer: %v", kills, len(calls), kinds)
	for _, kind := range []string{"book 0", "return 0"} {
		if kinds[kind] > 0 {
			t.Errorf("%d calls left unanswered (%s)", kinds[kind], kind)
		}
	}
}

// keyedOrder is a returns order with enough of line L1 for every return
// a writer makes in a round.
const keyedOrder = `{"foreignId": "%s", "foreignName": "#IK", "foreignNumber": 1, "currencyCode": "SEK", "email": "anna@example.com",
  "items": [{"foreignLineItemId": "L1", "sku": "JACKET-M", "productTitle": "Jacket", "quantity": 1000, "purchasePriceAmount": {"amount": 1299.90, "itemTax": 259.98}}]}`
