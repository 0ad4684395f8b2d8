// Package outboxtest is the conformance suite of package outbox on a
// storage backend: every backend's tests run it, so that the outbox's
// guarantees (an event commits with its cause, every event reaches every
// consumer, a lease shares the work between dispatchers) hold on each.
//
//	func TestOutbox(t *testing.T) {
//		outboxtest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
//			s := memory.New()
//			return s, s
//		})
//	}
package outboxtest

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// NewStores returns two handles on one fresh, empty database: the same
// store twice where a backend has one handle per database, two connections
// where it can have more (two servers on one PostgreSQL database).
type NewStores func(t *testing.T) (storage.Store, storage.Store)

var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// Run runs the suite.
func Run(t *testing.T, newStores NewStores) {
	t.Run("RolledBackCauseHasNoEffect", func(t *testing.T) { testRollback(t, newStores) })
	t.Run("EveryConsumerOnce", func(t *testing.T) { testEveryConsumer(t, newStores) })
	t.Run("RetriesWithBackoff", func(t *testing.T) { testRetries(t, newStores) })
	t.Run("DeadAndRetry", func(t *testing.T) { testDead(t, newStores) })
	t.Run("DeliveredOnCommit", func(t *testing.T) { testInline(t, newStores) })
	t.Run("LeaseExpiry", func(t *testing.T) { testLease(t, newStores) })
	t.Run("TwoDispatchers", func(t *testing.T) { testTwoDispatchers(t, newStores) })
	t.Run("ReleaseLeases", func(t *testing.T) { testReleaseLeases(t, newStores) })
	t.Run("DeadEventsSwept", func(t *testing.T) { testDeadSweep(t, newStores) })
	runOrder(t, newStores)
}

type fixture struct {
	store storage.Store
	clock *deliverykit.ManualClock
	d     *outbox.Dispatcher
	// effects counts applied events per consumer, through Applied.
	mu      sync.Mutex
	effects map[string][]string
}

func newFixture(t *testing.T, store storage.Store, opts outbox.Options) *fixture {
	f := &fixture{store: store, clock: deliverykit.NewManualClock(start), effects: map[string][]string{}}
	opts.Clock = f.clock
	if opts.Jitter == nil {
		opts.Jitter = func() float64 { return 0 }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f.d = outbox.New(store, opts)
	return f
}

// idempotent returns a consumer that records the event as applied in its
// own transaction and counts each effect once.
func (f *fixture) idempotent(name string) outbox.Handler {
	return func(ctx context.Context, e event.Event) error {
		first := false
		err := f.store.Update(ctx, func(tx storage.Tx) error {
			again, err := outbox.Applied(tx, name, e.ID)
			first = !again
			return err
		})
		if err == nil && first {
			f.mu.Lock()
			f.effects[name] = append(f.effects[name], e.ID)
			f.mu.Unlock()
		}
		return err
	}
}

func (f *fixture) applied(name string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.effects[name]...)
}

func add(t *testing.T, s storage.Store, ids ...string) {
	t.Helper()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		for _, id := range ids {
			ev, err := event.New(id, "site1", "tos_"+id, start, event.ParcelChanged{TrackingNumber: id})
			if err != nil {
				return err
			}
			if err := outbox.Add(tx, ev); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("adding %v: %v", ids, err)
	}
}

func dispatch(t *testing.T, d *outbox.Dispatcher) int {
	t.Helper()
	n, err := d.Dispatch(t.Context())
	if err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return n
}

func testRollback(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{})
	f.d.Handle(event.TypeParcelChanged, "a", f.idempotent("a"))
	boom := errors.New("the cause fails")
	err := store.Update(t.Context(), func(tx storage.Tx) error {
		ev, _ := event.New("evt_1", "site1", "x", start, event.ParcelChanged{})
		if err := outbox.Add(tx, ev); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v, want the cause's error", err)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("Dispatch delivered %d events of a rolled-back transaction", n)
	}
	if got := f.applied("a"); len(got) != 0 {
		t.Errorf("applied %v", got)
	}
}

func testEveryConsumer(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{})
	f.d.Handle(event.TypeParcelChanged, "a", f.idempotent("a"))
	f.d.Handle(event.TypeParcelChanged, "b", f.idempotent("b"))
	f.d.Handle(event.TypeOrderCompleted, "c", f.idempotent("c"))
	add(t, store, "evt_1", "evt_2", "evt_3")
	if n := dispatch(t, f.d); n != 3 {
		t.Errorf("Dispatch = %d, want 3", n)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("second Dispatch = %d, want 0: delivered events stay delivered", n)
	}
	want := map[string][]string{"a": {"evt_1", "evt_2", "evt_3"}, "b": {"evt_1", "evt_2", "evt_3"}}
	if diff := cmp.Diff(want, f.effects); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	st, err := f.d.Stats(t.Context(), 100)
	if err != nil || st.Pending != 0 {
		t.Errorf("Stats = %+v, %v; want nothing pending", st, err)
	}
}

func testRetries(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{RetryBase: time.Second, RetryMax: 3 * time.Second, Lease: time.Minute})
	var calls atomic.Int32
	f.d.Handle(event.TypeParcelChanged, "ok", f.idempotent("ok"))
	f.d.Handle(event.TypeParcelChanged, "flaky", func(ctx context.Context, e event.Event) error {
		if calls.Add(1) <= 3 {
			return errors.New("unavailable")
		}
		return nil
	})
	add(t, store, "evt_1")
	// Fails at once, then after 1s, 2s: the backoff doubles.
	steps := []struct {
		advance   time.Duration
		delivered int
		calls     int32
	}{
		{0, 0, 1},
		{999 * time.Millisecond, 0, 1},
		{time.Millisecond, 0, 2},
		{2*time.Second - time.Millisecond, 0, 2},
		{time.Millisecond, 0, 3},
		{3 * time.Second, 1, 4}, // capped at RetryMax
	}
	for i, s := range steps {
		f.clock.Advance(s.advance)
		if n := dispatch(t, f.d); n != s.delivered {
			t.Errorf("step %d: delivered %d, want %d", i, n, s.delivered)
		}
		if c := calls.Load(); c != s.calls {
			t.Errorf("step %d: flaky consumer called %d times, want %d", i, c, s.calls)
		}
	}
	if diff := cmp.Diff([]string{"evt_1"}, f.applied("ok")); diff != "" {
		t.Errorf("the consumer that succeeded first was called again (-want +got):\n%s", diff)
	}
}

func testDead(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{MaxAttempts: 2, RetryBase: time.Second})
	failing := atomic.Bool{}
	failing.Store(true)
	f.d.Handle(event.TypeParcelChanged, "a", f.idempotent("a"))
	f.d.Handle(event.TypeParcelChanged, "b", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_bad" {
			return deliverykit.InvalidField("payload", "valid", "cannot be applied")
		}
		if failing.Load() {
			return errors.New("down")
		}
		return f.idempotent("b")(ctx, e)
	})
	add(t, store, "evt_1", "evt_bad")
	dispatch(t, f.d) // evt_1 fails once; evt_bad is dead at once
	f.clock.Advance(time.Second)
	dispatch(t, f.d) // evt_1 fails twice: dead
	got, err := f.d.Dead(t.Context(), "site1", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID       string
		Attempts int
		Done     []string
		Err      string
	}
	var rows []row
	for _, d := range got {
		rows = append(rows, row{d.Event.ID, d.Attempts, d.Done, d.LastError})
	}
	want := []row{
		{"evt_1", 2, []string{"a"}, "consumer b: down"},
		{"evt_bad", 1, []string{"a"}, "consumer b: invalid request: payload: cannot be applied"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("Dead (-want +got):\n%s", diff)
	}
	if other, _ := f.d.Dead(t.Context(), "site2", "", 0); len(other) != 0 {
		t.Errorf("site2 sees site1's dead events: %v", other)
	}
	if page, _ := f.d.Dead(t.Context(), "site1", "evt_1", 0); len(page) != 1 || page[0].Event.ID != "evt_bad" {
		t.Errorf("Dead after evt_1 = %+v, want evt_bad", page)
	}
	f.clock.Advance(time.Hour)
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("dead events were retried by Dispatch: %d", n)
	}
	failing.Store(false)
	if err := f.d.Retry(t.Context(), "site1", "evt_1"); err != nil {
		t.Fatal(err)
	}
	if err := f.d.Retry(t.Context(), "site1", "evt_1"); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("Retry of an event no longer dead = %v, want NotFound", err)
	}
	if n := dispatch(t, f.d); n != 1 {
		t.Errorf("retried event: delivered %d, want 1", n)
	}
	if diff := cmp.Diff([]string{"evt_1", "evt_bad"}, f.applied("a")); diff != "" {
		t.Errorf("consumer a (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"evt_1"}, f.applied("b")); diff != "" {
		t.Errorf("consumer b (-want +got):\n%s", diff)
	}
}

func testInline(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{})
	f.d.Handle(event.TypeParcelChanged, "a", f.idempotent("a"))
	add(t, f.d.Store(), "evt_1")
	if diff := cmp.Diff([]string{"evt_1"}, f.applied("a")); diff != "" {
		t.Errorf("after the committing Update returned (-want +got):\n%s", diff)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("Dispatch found %d events left after delivery on commit", n)
	}
}

func testLease(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	fa := newFixture(t, a, outbox.Options{Lease: time.Minute})
	fb := newFixture(t, b, outbox.Options{Lease: time.Minute})
	fb.clock = fa.clock
	fb.d = outbox.New(b, outbox.Options{Lease: time.Minute, Clock: fa.clock, Jitter: func() float64 { return 0 }, Logger: slog.New(slog.DiscardHandler)})
	// A's consumer dies mid-delivery: it blocks until released, as if the
	// process hung; B must not take the event before the lease expires.
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fa.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		once.Do(func() { close(entered) })
		<-release
		return errors.New("the process died")
	})
	effects := fixture{store: b, effects: map[string][]string{}}
	fb.d.Handle(event.TypeParcelChanged, "a", effects.idempotent("a"))
	add(t, a, "evt_1")
	done := make(chan int)
	go func() {
		n, _ := fa.d.Dispatch(context.Background())
		done <- n
	}()
	<-entered
	if n := dispatch(t, fb.d); n != 0 {
		t.Errorf("B delivered an event A holds the lease of: %d", n)
	}
	fa.clock.Advance(time.Minute)
	if n := dispatch(t, fb.d); n != 1 {
		t.Errorf("after the lease expired B delivered %d, want 1", n)
	}
	close(release)
	if n := <-done; n != 0 {
		t.Errorf("A settled an event whose lease it lost: %d", n)
	}
	fa.clock.Advance(time.Hour)
	if n := dispatch(t, fb.d); n != 0 {
		t.Errorf("A's late failure queued the event again: %d", n)
	}
	if diff := cmp.Diff([]string{"evt_1"}, effects.applied("a")); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

func testTwoDispatchers(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	const n = 60
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("evt_%03d", i))
	}
	counts := fixture{store: a, effects: map[string][]string{}}
	var calls atomic.Int32
	var ds []*outbox.Dispatcher
	clock := deliverykit.NewManualClock(start)
	for _, s := range []storage.Store{a, b} {
		d := outbox.New(s, outbox.Options{Clock: clock, Batch: 7, Logger: slog.New(slog.DiscardHandler)})
		h := counts.idempotent("count")
		d.Handle(event.TypeParcelChanged, "count", func(ctx context.Context, e event.Event) error {
			calls.Add(1)
			return h(ctx, e)
		})
		ds = append(ds, d)
	}
	for i := 0; i < n; i += 10 {
		add(t, a, ids[i:i+10]...)
	}
	var wg sync.WaitGroup
	for _, d := range ds {
		wg.Go(func() {
			for {
				got, err := d.Dispatch(t.Context())
				if err != nil {
					t.Errorf("Dispatch: %v", err)
					return
				}
				if got == 0 {
					st, err := d.Stats(t.Context(), n)
					if err != nil || st.Pending == 0 {
						return
					}
				}
			}
		})
	}
	wg.Wait()
	if diff := cmp.Diff(ids, sortStrings(counts.applied("count"))); diff != "" {
		t.Errorf("applied (-want +got):\n%s", diff)
	}
	// Without a lease expiry no event is delivered twice.
	if c := calls.Load(); c != n {
		t.Errorf("consumer called %d times for %d events", c, n)
	}
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// testReleaseLeases: a process that owns its store frees, at start, the
// leases its dead predecessor held, so their events go out at once.
func testReleaseLeases(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{Lease: time.Hour})
	entered := make(chan struct{})
	block := make(chan struct{})
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		close(entered)
		<-block
		return nil
	})
	add(t, store, "evt_1")
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.d.Dispatch(context.Background())
	}()
	<-entered // claimed: the "previous process" holds the lease
	next := newFixture(t, store, outbox.Options{Lease: time.Hour})
	next.clock = f.clock
	next.d = outbox.New(store, outbox.Options{Lease: time.Hour, Clock: f.clock, Logger: slog.New(slog.DiscardHandler), Jitter: func() float64 { return 0 }})
	next.d.Handle(event.TypeParcelChanged, "a", next.idempotent("a"))
	if n := dispatch(t, next.d); n != 0 {
		t.Fatalf("delivered %d events under another's lease", n)
	}
	if n, err := next.d.ReleaseLeases(t.Context()); err != nil || n != 1 {
		t.Fatalf("ReleaseLeases = %d, %v; want 1", n, err)
	}
	if n := dispatch(t, next.d); n != 1 {
		t.Errorf("after ReleaseLeases delivered %d, want 1", n)
	}
	close(block)
	<-done
}
