// Package retentiontest checks, on any storage backend, that the areas'
// retention sweeps delete what is due with every index entry of it, keep
// the rest, and cost what they delete. Each backend's tests call Run.
package retentiontest

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage"
)

// NewStore returns an empty store for one test; the caller closes it in
// a cleanup.
type NewStore func(t *testing.T) storage.Store

// Run runs the suite on stores from newStore.
func Run(t *testing.T, newStore NewStore) {
	t.Run("checkout", func(t *testing.T) { testCheckout(t, newStore(t)) })
	t.Run("checkout/backfill", func(t *testing.T) { testCheckoutBackfill(t, newStore(t)) })
	t.Run("checkout/cost", func(t *testing.T) { testCheckoutCost(t, newStore) })
	t.Run("session", func(t *testing.T) { testSession(t, newStore(t)) })
	t.Run("tracking", func(t *testing.T) { testTracking(t, newStore(t)) })
	t.Run("tracking/backfill", func(t *testing.T) { testTrackingBackfill(t, newStore(t)) })
	t.Run("tracking/cost", func(t *testing.T) { testTrackingCost(t, newStore) })
	t.Run("notify", func(t *testing.T) { testNotify(t, newStore(t)) })
	t.Run("notify/backfill", func(t *testing.T) { testNotifyBackfill(t, newStore(t)) })
	t.Run("notify/cost", func(t *testing.T) { testNotifyCost(t, newStore) })
	t.Run("shipment", func(t *testing.T) { testShipment(t, newStore(t)) })
	t.Run("returns", func(t *testing.T) { testReturns(t, newStore(t)) })
	t.Run("returns/cost", func(t *testing.T) { testReturnsCost(t, newStore) })
	t.Run("webhook", func(t *testing.T) { testWebhook(t, newStore(t)) })
}

var start = time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)

const (
	site = "demo-site"
	ttl  = time.Hour
	day  = 24 * time.Hour
)

// policy keeps ACTIVE sessions a day after they expire and COMPLETED ones
// ten days after their completion.
var policy = retention.Policy{ActiveSessions: day, CompletedSessions: 10 * day}

type engines map[string]*options.Engine

func (e engines) Engine(s string) (*options.Engine, error) {
	if en, ok := e[s]; ok {
		return en, nil
	}
	return nil, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "site %q has no delivery catalog", s)
}

func demoEngines(t *testing.T, clock deliverykit.Clock) engines {
	t.Helper()
	out := engines{}
	for s, cat := range config.Demo().Catalogs() {
		e, err := options.New(cat, options.Options{Clock: clock})
		if err != nil {
			t.Fatal(err)
		}
		out[s] = e
	}
	return out
}

func newCheckout(t *testing.T, store storage.Store, clock deliverykit.Clock, ids deliverykit.IDSource) *checkout.Service {
	t.Helper()
	svc, err := checkout.New(store, checkout.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: ids, SessionTTL: ttl, Retention: policy})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func createRequest(cart string) checkout.CreateRequest {
	return checkout.CreateRequest{
		PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{CartID: cart, TotalValue: 40000, Items: []checkout.CartItem{
			{SKU: "tent-2p", Name: "Tent", Quantity: 1, Price: 40000},
		}},
		SearchAddress: &checkout.SearchAddress{PostalCode: "118 26"},
	}
}

var customer = &checkout.Customer{Email: "a@example.com", Phone: "+46701234567",
	Address: &checkout.CustomerAddress{Name: "Anna", AddressLines: []string{"Götgatan 45"}, City: "Stockholm", PostalCode: "118 26", Country: "SE"}}

// checkoutColls are the collections the checkout area keeps for its
// sessions: the records, then every index.
var checkoutColls = []string{"checkout.sessions", "checkout.expiry", "checkout.widget_tokens", "checkout.tos", "checkout.external_ids", "checkout.clones"}

func sweep(t *testing.T, svc retention.Sweepable, now time.Time) int {
	t.Helper()
	n, err := svc.Sweep(t.Context(), now, 0)
	if err != nil {
		t.Fatalf("sweep at %s: %v", now, err)
	}
	return n
}

func testCheckout(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	svc := newCheckout(t, store, clock, &deliverykit.SequentialIDs{})
	create := func(cart string) *checkout.View {
		t.Helper()
		v, err := svc.Create(ctx, site, createRequest(cart))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	extended, expired, completed := create("cart-a"), create("cart-b"), create("cart-c")
	done, err := svc.Complete(ctx, site, checkout.CompleteRequest{ID: completed.Session.ID, Customer: customer})
	if err != nil {
		t.Fatal(err)
	}
	clone, err := svc.CreateFromOrder(ctx, site, checkout.CreateFromOrderRequest{TosID: done.TosID, ExternalID: "web-2"})
	if err != nil {
		t.Fatal(err)
	}
	checkCheckoutIndexes(t, store)

	// Just before it expires the first session is changed, which moves
	// its expiry; the others stay where they were.
	clock.Set(start.Add(ttl - time.Minute))
	if _, err := svc.Update(ctx, site, checkout.UpdateRequest{ID: extended.Session.ID, Customer: customer}); err != nil {
		t.Fatal(err)
	}
	checkCheckoutIndexes(t, store)
	clock.Set(start.Add(ttl + day - time.Minute))
	if n := sweep(t, svc, clock.Now()); n != 0 {
		t.Errorf("sweep within the grace period deleted %d sessions, want 0", n)
	}
	// Expired but not swept: reads work as before.
	if _, err := svc.Get(ctx, site, expired.Session.ID); err != nil {
		t.Errorf("get an expired session in its grace period: %v", err)
	}

	clock.Advance(2 * time.Minute)
	if n := sweep(t, svc, clock.Now()); n != 2 {
		t.Errorf("sweep after the grace period deleted %d sessions, want 2 (the expired one and the clone)", n)
	}
	for _, id := range []string{expired.Session.ID, clone.Session.ID} {
		if _, err := svc.Get(ctx, site, id); !errors.Is(err, deliverykit.ErrNotFound) {
			t.Errorf("get swept session %s: %v, want NotFound", id, err)
		}
	}
	if _, err := svc.WidgetState(ctx, expired.Token); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("widget state of a swept session: %v, want NotFound", err)
	}
	for _, id := range []string{extended.Session.ID, completed.Session.ID} {
		if _, err := svc.Get(ctx, site, id); err != nil {
			t.Errorf("get kept session %s: %v", id, err)
		}
	}
	checkCheckoutIndexes(t, store)

	// Ten days after the completion both remaining sessions are due.
	clock.Set(start.Add(10*day + time.Minute))
	if n := sweep(t, svc, clock.Now()); n != 2 {
		t.Errorf("last sweep deleted %d sessions, want 2", n)
	}
	checkCheckoutIndexes(t, store)
	for _, coll := range checkoutColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q after every session was swept", coll, keys)
		}
	}
	if n := sweep(t, svc, clock.Now().Add(365*day)); n != 0 {
		t.Errorf("sweep of an empty store deleted %d", n)
	}
}

// storedCheckout is what checkCheckoutIndexes reads of a stored session.
type storedCheckout struct {
	ID          string    `json:"id"`
	Site        string    `json:"site"`
	Status      string    `json:"status"`
	Origin      string    `json:"origin"`
	TosID       string    `json:"tos_id"`
	WidgetToken string    `json:"widget_token"`
	UpdatedAt   time.Time `json:"updated_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	CompletedAt time.Time `json:"completed_at"`
}

// checkCheckoutIndexes checks that every index entry of the checkout area
// leads to a stored session and that every session has exactly one
// expiry entry, at the time its status says.
func checkCheckoutIndexes(t *testing.T, store storage.Store) {
	t.Helper()
	stored := map[string]storedCheckout{}
	for _, rec := range scan(t, store, "checkout.sessions") {
		var s storedCheckout
		if err := json.Unmarshal(rec.Value, &s); err != nil {
			t.Fatal(err)
		}
		stored[rec.Key] = s
	}
	var want, got []string
	for key, s := range stored {
		e := retention.Entry{Class: "active", At: s.ExpiresAt}
		if s.Status == string(checkout.StatusComplete) {
			e = retention.Entry{Class: "completed", At: s.CompletedAt}
		}
		want = append(want, retention.Index{Name: "checkout.expiry"}.Key(e, key))
	}
	for _, rec := range scan(t, store, "checkout.expiry") {
		got = append(got, rec.Key)
	}
	if diff := cmp.Diff(sorted(want), sorted(got)); diff != "" {
		t.Errorf("checkout.expiry (-want +got):\n%s", diff)
	}
	for _, rec := range scan(t, store, "checkout.widget_tokens") {
		var tok struct {
			Site      string `json:"site"`
			SessionID string `json:"session_id"`
		}
		if err := json.Unmarshal(rec.Value, &tok); err != nil {
			t.Fatal(err)
		}
		if s, ok := stored[storage.Key(tok.Site, tok.SessionID)]; !ok || s.WidgetToken != rec.Key {
			t.Errorf("dangling widget token %q → %s/%s", rec.Key, tok.Site, tok.SessionID)
		}
	}
	for _, coll := range []string{"checkout.tos", "checkout.external_ids"} {
		for _, rec := range scan(t, store, coll) {
			var id string
			if err := json.Unmarshal(rec.Value, &id); err != nil {
				t.Fatal(err)
			}
			s, _, _ := strings.Cut(rec.Key, storage.KeySep)
			if _, ok := stored[storage.Key(s, id)]; !ok {
				t.Errorf("dangling %s entry %q → %s", coll, rec.Key, id)
			}
		}
	}
	for _, rec := range scan(t, store, "checkout.clones") {
		parts := strings.Split(rec.Key, storage.KeySep)
		if s, ok := stored[storage.Key(parts[0], parts[len(parts)-1])]; !ok || s.Origin != parts[1] {
			t.Errorf("dangling clone entry %q", rec.Key)
		}
	}
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

func scan(t *testing.T, store storage.Store, coll string) []storage.Record {
	t.Helper()
	var out []storage.Record
	err := store.View(t.Context(), func(tx storage.Tx) error {
		out = out[:0]
		for rec, err := range tx.Scan(coll, storage.Range{}) {
			if err != nil {
				return err
			}
			out = append(out, rec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func scanKeys(t *testing.T, store storage.Store, coll string) []string {
	t.Helper()
	var keys []string
	for _, rec := range scan(t, store, coll) {
		keys = append(keys, rec.Key)
	}
	return keys
}

// testCheckoutBackfill: sessions stored before the time index existed
// (their entries removed here) are indexed by the first sweep and swept
// when due.
func testCheckoutBackfill(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	ids := &deliverykit.SequentialIDs{}
	svc := newCheckout(t, store, clock, ids)
	const n = retention.Batch + 3 // more than one backfill transaction
	for i := range n {
		if _, err := svc.Create(ctx, site, createRequest("cart-"+string(rune('a'+i%26)))); err != nil {
			t.Fatal(err)
		}
		if i == n/2 {
			clock.Advance(3 * day) // the second half expires later
		}
	}
	err := store.Update(ctx, func(tx storage.Tx) error {
		for _, key := range scanKeys(t, store, "checkout.expiry") {
			if err := tx.Delete("checkout.expiry", key, storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A new service, as after an upgrade.
	svc = newCheckout(t, store, clock, ids)
	if got := sweep(t, svc, start.Add(ttl+day+time.Minute)); got != n/2+1 {
		t.Errorf("first sweep deleted %d sessions, want %d", got, n/2+1)
	}
	checkCheckoutIndexes(t, store)
	if diff := cmp.Diff([]string{"checkout.expiry"}, scanKeys(t, store, "retention.backfills")); diff != "" {
		t.Errorf("backfill marks (-want +got):\n%s", diff)
	}
	if got := sweep(t, svc, clock.Now().Add(ttl+day+time.Minute)); got != n-n/2-1 {
		t.Errorf("second sweep deleted %d sessions, want %d", got, n-n/2-1)
	}
	if keys := scanKeys(t, store, "checkout.sessions"); len(keys) != 0 {
		t.Errorf("sessions left: %d", len(keys))
	}
}

// testCheckoutCost: a sweep touches as many records for 5 due sessions
// among 20 live ones as among 120, and a bounded number per deleted
// session.
func testCheckoutCost(t *testing.T, newStore NewStore) {
	const due = 5
	touched := func(live int) int64 {
		store := newStore(t)
		clock := deliverykit.NewManualClock(start)
		svc := newCheckout(t, store, clock, &deliverykit.SequentialIDs{})
		for i := range due + live {
			if i == due {
				clock.Advance(10 * day) // the live ones are created later
			}
			if _, err := svc.Create(t.Context(), site, createRequest("cart")); err != nil {
				t.Fatal(err)
			}
		}
		// The first sweep backfills (once); nothing is due yet.
		if got := sweep(t, svc, start); got != 0 {
			t.Fatalf("sweep before anything is due deleted %d", got)
		}
		counting := &Counting{Store: store}
		svc = newCheckout(t, counting, clock, &deliverykit.SequentialIDs{})
		counting.Touched.Store(0)
		if got := sweep(t, svc, start.Add(ttl+day+time.Minute)); got != due {
			t.Fatalf("sweep deleted %d sessions, want %d", got, due)
		}
		return counting.Touched.Load()
	}
	small, large := touched(20), touched(120)
	if small != large {
		t.Errorf("a sweep of %d sessions touched %d records among 20 live sessions and %d among 120: it should not depend on what is stored", due, small, large)
	}
	// Per deleted session: the index entry read twice and deleted, the
	// session read and deleted, its token read and deleted, plus the
	// backfill mark and the first entry past the cutoff, per class.
	if limit := int64(8*due + 8); large > limit {
		t.Errorf("a sweep of %d sessions touched %d records, want at most %d", due, large, limit)
	}
}

// Counting is a Store that counts the records its transactions touch:
// every Get, Put and Delete, and every record a Scan yields.
type Counting struct {
	storage.Store
	Touched atomic.Int64
}

// View counts the records fn touches.
func (c *Counting) View(ctx context.Context, fn func(storage.Tx) error) error {
	return c.Store.View(ctx, func(tx storage.Tx) error { return fn(&countingTx{tx, &c.Touched}) })
}

// Update counts the records fn touches.
func (c *Counting) Update(ctx context.Context, fn func(storage.Tx) error) error {
	return c.Store.Update(ctx, func(tx storage.Tx) error { return fn(&countingTx{tx, &c.Touched}) })
}

type countingTx struct {
	storage.Tx
	n *atomic.Int64
}

func (c *countingTx) Get(coll, key string) (storage.Record, error) {
	c.n.Add(1)
	return c.Tx.Get(coll, key)
}

func (c *countingTx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	c.n.Add(1)
	return c.Tx.Put(coll, key, val, cond)
}

func (c *countingTx) Delete(coll, key string, cond storage.Condition) error {
	c.n.Add(1)
	return c.Tx.Delete(coll, key, cond)
}

func (c *countingTx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return func(yield func(storage.Record, error) bool) {
		for rec, err := range c.Tx.Scan(coll, r) {
			c.n.Add(1)
			if !yield(rec, err) {
				return
			}
		}
	}
}

func testSession(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	svc, err := session.New(store, session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{}, Retention: policy})
	if err != nil {
		t.Fatal(err)
	}
	in := func() session.Session {
		var s session.Session
		if err := json.Unmarshal([]byte(sessionJSON), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	create := func() *session.Session {
		t.Helper()
		s, err := svc.Create(ctx, site, in())
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	patched, idle, completed := create(), create(), create()
	opt := completed.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].ID
	if _, err := svc.Complete(ctx, site, completed.Name, session.CompleteRequest{DeliveryChoices: []session.DeliveryChoice{{DeliveryID: "d1", OptionID: opt}}}); err != nil {
		t.Fatal(err)
	}
	checkSessionIndex(t, store)

	clock.Set(start.Add(day - time.Minute))
	p := in()
	p.Name = patched.Name
	if _, err := svc.Patch(ctx, site, p); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	if n := sweep(t, svc, clock.Now()); n != 1 {
		t.Errorf("sweep a day after the last change deleted %d sessions, want 1", n)
	}
	if _, err := svc.Get(ctx, site, idle.Name); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("get the swept session: %v, want NotFound", err)
	}
	for _, name := range []string{patched.Name, completed.Name} {
		if _, err := svc.Get(ctx, site, name); err != nil {
			t.Errorf("get kept session %s: %v", name, err)
		}
	}
	checkSessionIndex(t, store)
	clock.Set(start.Add(10*day + time.Minute))
	if n := sweep(t, svc, clock.Now()); n != 2 {
		t.Errorf("last sweep deleted %d sessions, want 2", n)
	}
	for _, coll := range []string{"session.sessions", "session.expiry"} {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q after every session was swept", coll, keys)
		}
	}
}

// checkSessionIndex checks that the delivery sessions and their time
// index entries match one to one.
func checkSessionIndex(t *testing.T, store storage.Store) {
	t.Helper()
	var want, got []string
	for _, rec := range scan(t, store, "session.sessions") {
		var s struct {
			State      string    `json:"state"`
			UpdateTime time.Time `json:"update_time"`
		}
		if err := json.Unmarshal(rec.Value, &s); err != nil {
			t.Fatal(err)
		}
		class := "active"
		if s.State == string(session.StateCompleted) {
			class = "completed"
		}
		want = append(want, retention.Index{Name: "session.expiry"}.Key(retention.Entry{Class: class, At: s.UpdateTime}, rec.Key))
	}
	for _, rec := range scan(t, store, "session.expiry") {
		got = append(got, rec.Key)
	}
	if diff := cmp.Diff(sorted(want), sorted(got)); diff != "" {
		t.Errorf("session.expiry (-want +got):\n%s", diff)
	}
}

const sessionJSON = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
  "deliveries": [{
    "id": "d1",
    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-19T08:00:00Z"}}],
    "recipient_contact": {
      "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]},
      "email": "anna@example.com"
    }
  }]
}`
