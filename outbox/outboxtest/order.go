package outboxtest

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// runOrder runs the cases of order per subject: an event is delivered only
// after every earlier event of its site and subject is settled.
func runOrder(t *testing.T, newStores NewStores) {
	t.Run("OrderAfterBackoff", func(t *testing.T) { testOrderAfterBackoff(t, newStores) })
	t.Run("OrderAfterLeaseElsewhere", func(t *testing.T) { testOrderAfterLeaseElsewhere(t, newStores) })
	t.Run("OrderWaitsForOwnDelivery", func(t *testing.T) { testOrderWaitsForOwnDelivery(t, newStores) })
	t.Run("OrderDeadSettles", func(t *testing.T) { testOrderDeadSettles(t, newStores) })
	t.Run("OrderHeldUpDoNotStarve", func(t *testing.T) { testOrderNoStarving(t, newStores) })
	t.Run("OrderConsumerWritesDoNotWait", func(t *testing.T) { testOrderNested(t, newStores) })
	t.Run("OrderConsumerWritesSameSubject", func(t *testing.T) { testOrderChain(t, newStores) })
}

// addOnCtx writes one event about subject with ctx (a consumer's).
func addOnCtx(ctx context.Context, s storage.Store, site, subject, id string) error {
	return s.Update(ctx, func(tx storage.Tx) error {
		ev, err := event.New(id, site, subject, start, event.ParcelChanged{TrackingNumber: subject})
		if err != nil {
			return err
		}
		return outbox.Add(tx, ev)
	})
}

// addOn writes one event per id, all about subject, in one transaction.
func addOn(t *testing.T, s storage.Store, site, subject string, ids ...string) {
	t.Helper()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		for _, id := range ids {
			ev, err := event.New(id, site, subject, start, event.ParcelChanged{TrackingNumber: subject})
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

// testOrderAfterBackoff: the first event of a subject fails once and waits
// for its retry; a later event of that subject, written through
// Dispatcher.Store(), is not delivered on commit but after the first,
// while other subjects (and other sites with the same subject) go on.
func testOrderAfterBackoff(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{RetryBase: time.Second})
	ok := f.idempotent("a")
	failOnce := true
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_1" && failOnce {
			failOnce = false
			return errors.New("unavailable")
		}
		return ok(ctx, e)
	})
	addOn(t, f.d.Store(), "site1", "TN1", "evt_1") // fails: retried in 1s
	addOn(t, f.d.Store(), "site1", "TN1", "evt_2")
	addOn(t, f.d.Store(), "site1", "TN2", "evt_3")
	addOn(t, f.d.Store(), "site2", "TN1", "evt_4")
	if diff := cmp.Diff([]string{"evt_3", "evt_4"}, f.applied("a")); diff != "" {
		t.Errorf("on commit, with evt_1 backing off (-want +got):\n%s", diff)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("Dispatch before evt_1's retry delivered %d", n)
	}
	f.clock.Advance(time.Second)
	if n := dispatch(t, f.d); n != 2 {
		t.Errorf("Dispatch at evt_1's retry delivered %d, want 2", n)
	}
	if diff := cmp.Diff([]string{"evt_3", "evt_4", "evt_1", "evt_2"}, f.applied("a")); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// testOrderAfterLeaseElsewhere is a crash: the previous process claimed
// evt_1 and hangs (or died); this process writes evt_2 of the same
// subject. evt_2 waits until evt_1 is settled, by the lease's holder or
// after ReleaseLeases, and goes out at once when it is.
func testOrderAfterLeaseElsewhere(t *testing.T, newStores NewStores) {
	for _, settle := range []string{"holder succeeds", "lease released"} {
		t.Run(settle, func(t *testing.T) {
			a, b := newStores(t)
			clock := deliverykit.NewManualClock(start)
			opts := outbox.Options{Lease: time.Hour, Clock: clock, Jitter: func() float64 { return 0 }, Logger: slog.New(slog.DiscardHandler)}
			prev := outbox.New(a, opts)
			effects := &fixture{store: b, effects: map[string][]string{}}
			entered, release := make(chan struct{}), make(chan struct{})
			prevEffect := effects.idempotent("a")
			prev.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
				if e.ID != "evt_1" {
					return prevEffect(ctx, e)
				}
				close(entered)
				<-release
				if settle == "holder succeeds" {
					return prevEffect(ctx, e)
				}
				return errors.New("the process died")
			})
			addOn(t, a, "site1", "TN1", "evt_1")
			done := make(chan struct{})
			go func() {
				defer close(done)
				prev.Dispatch(context.Background())
			}()
			<-entered

			next := outbox.New(b, opts)
			next.Handle(event.TypeParcelChanged, "a", effects.idempotent("a"))
			addOn(t, next.Store(), "site1", "TN1", "evt_2")
			if got := effects.applied("a"); len(got) != 0 {
				t.Errorf("on commit, with evt_1 under another's lease: applied %v", got)
			}
			if n := dispatch(t, next); n != 0 {
				t.Errorf("Dispatch under evt_1's lease delivered %d", n)
			}
			// Settling evt_1 makes evt_2 due at once: the holder's Dispatch
			// delivers it right after evt_1; after a release, this one's.
			want := 0
			if settle == "holder succeeds" {
				close(release)
				<-done
			} else {
				if n, err := next.ReleaseLeases(t.Context()); err != nil || n != 1 {
					t.Fatalf("ReleaseLeases = %d, %v; want 1 (evt_1's lease; evt_2 waits without one)", n, err)
				}
				want = 2
			}
			// No clock advance.
			if n := dispatch(t, next); n != want {
				t.Errorf("Dispatch after evt_1 settled delivered %d, want %d", n, want)
			}
			if diff := cmp.Diff([]string{"evt_1", "evt_2"}, effects.applied("a")); diff != "" {
				t.Errorf("effects (-want +got):\n%s", diff)
			}
			if settle != "holder succeeds" {
				close(release)
				<-done
			}
		})
	}
}

// testOrderWaitsForOwnDelivery: evt_1 is being delivered by this process
// (the dispatcher's loop) when a request writes evt_2 of the same subject
// through Dispatcher.Store(): the request waits for evt_1, so evt_2 is
// still applied before its Update returns, and after evt_1. evt_1 is let
// go only once the request has tried to claim evt_2, so the test takes
// the waiting path every time.
func testOrderWaitsForOwnDelivery(t *testing.T, newStores NewStores) {
	raw, _ := newStores(t)
	store := &countingStore{Store: raw}
	f := newFixture(t, store, outbox.Options{})
	ok := f.idempotent("a")
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_1" {
			once.Do(func() { close(entered) })
			<-release
		}
		return ok(ctx, e)
	})
	addOn(t, store, "site1", "TN1", "evt_1")
	dispatched := make(chan int)
	go func() {
		n, _ := f.d.Dispatch(context.Background())
		dispatched <- n
	}()
	<-entered
	// The request's Updates: its own commit, then the claim of evt_2.
	claimed := store.after(2)
	written := make(chan []string)
	go func() {
		addOn(t, f.d.Store(), "site1", "TN1", "evt_2")
		written <- f.applied("a")
	}()
	<-claimed
	close(release)
	if diff := cmp.Diff([]string{"evt_1", "evt_2"}, <-written); diff != "" {
		t.Errorf("when the Update of evt_2 returned (-want +got):\n%s", diff)
	}
	if n := <-dispatched; n != 1 {
		t.Errorf("Dispatch delivered %d, want 1", n)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("Dispatch found %d events left", n)
	}
}

// countingStore closes a channel once a given number of Updates returned.
type countingStore struct {
	storage.Store
	mu     sync.Mutex
	left   int
	notify chan struct{}
}

// after returns a channel closed when n more Updates have returned.
func (s *countingStore) after(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.left, s.notify = n, make(chan struct{})
	return s.notify
}

func (s *countingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.notify != nil {
		if s.left--; s.left == 0 {
			close(s.notify)
			s.notify = nil
		}
	}
	return err
}

// testOrderDeadSettles: a dead event does not hold up its subject; a
// retried one is delivered, and the events written after it wait for it
// again.
func testOrderDeadSettles(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{RetryBase: time.Second})
	ok := f.idempotent("a")
	broken := true
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_1" && broken {
			return deliverykit.InvalidField("payload", "valid", "cannot be applied")
		}
		if e.ID == "evt_3" && broken {
			return errors.New("unavailable")
		}
		return ok(ctx, e)
	})
	addOn(t, f.d.Store(), "site1", "TN1", "evt_1") // dead at once
	addOn(t, f.d.Store(), "site1", "TN1", "evt_2")
	if diff := cmp.Diff([]string{"evt_2"}, f.applied("a")); diff != "" {
		t.Errorf("after evt_1 died (-want +got):\n%s", diff)
	}
	broken = false
	if err := f.d.Retry(t.Context(), "site1", "evt_1"); err != nil {
		t.Fatal(err)
	}
	addOn(t, f.d.Store(), "site1", "TN1", "evt_3")
	if diff := cmp.Diff([]string{"evt_2"}, f.applied("a")); diff != "" {
		t.Errorf("evt_3 overtook the retried evt_1 (-want +got):\n%s", diff)
	}
	if n := dispatch(t, f.d); n != 2 {
		t.Errorf("Dispatch delivered %d, want 2", n)
	}
	if diff := cmp.Diff([]string{"evt_2", "evt_1", "evt_3"}, f.applied("a")); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
}

// testOrderNoStarving: more events held up behind one subject's backoff
// than a Dispatch looks at do not keep the events of other subjects
// waiting: they wait without an entry in the due index, so Dispatch
// meets the other subjects' events first.
func testOrderNoStarving(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{Batch: 2, RetryBase: time.Hour})
	ok := f.idempotent("a")
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_1" {
			return errors.New("unavailable")
		}
		return ok(ctx, e)
	})
	addOn(t, f.d.Store(), "site1", "TN1", "evt_1") // backs off for an hour
	addOn(t, store, "site1", "TN1", "evt_2", "evt_3", "evt_4")
	addOn(t, store, "site1", "TN2", "evt_5")
	steps := []struct {
		delivered int
		applied   []string
	}{
		{1, []string{"evt_5"}}, // evt_1 backs off; evt_2…evt_4 wait behind it
		{0, []string{"evt_5"}}, // nothing due
	}
	for i, s := range steps {
		if n := dispatch(t, f.d); n != s.delivered {
			t.Errorf("Dispatch %d delivered %d, want %d", i, n, s.delivered)
		}
		if diff := cmp.Diff(s.applied, f.applied("a")); diff != "" {
			t.Errorf("after Dispatch %d (-want +got):\n%s", i, diff)
		}
	}
}

// testOrderConsumerWritesDoNotWait: two events of subjects Z and Y are
// being delivered at once in one process, and each one's consumer writes,
// through Dispatcher.Store(), an event of the other's subject. Those
// writes return without waiting for the other delivery (which waits for
// them: waiting would deadlock until a lease runs out); their events are
// delivered after the earlier events of their subjects settle.
func testOrderNested(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{Lease: time.Hour})
	ok := f.idempotent("a")
	enteredM, enteredQ := make(chan struct{}), make(chan struct{})
	var nested [2]error
	// Neither outer delivery settles before both writes returned.
	var writes sync.WaitGroup
	writes.Add(2)
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		switch e.ID {
		case "evt_M":
			close(enteredM)
			<-enteredQ
			nested[0] = addOnCtx(ctx, f.d.Store(), "site1", "Y", "evt_P")
			writes.Done()
			writes.Wait()
		case "evt_Q":
			close(enteredQ)
			<-enteredM
			nested[1] = addOnCtx(ctx, f.d.Store(), "site1", "Z", "evt_P2")
			writes.Done()
			writes.Wait()
		}
		return ok(ctx, e)
	})
	addOn(t, store, "site1", "Z", "evt_M")
	dispatched := make(chan int)
	go func() {
		n, _ := f.d.Dispatch(context.Background())
		dispatched <- n
	}()
	<-enteredM
	addOn(t, f.d.Store(), "site1", "Y", "evt_Q") // delivered in this goroutine
	// evt_M, and evt_P2 (its subject's next) unless evt_Q's delivery,
	// which wrote it, delivered it first.
	if n := <-dispatched; n != 1 && n != 2 {
		t.Errorf("Dispatch delivered %d, want 1 or 2 (evt_M, evt_P2)", n)
	}
	if diff := cmp.Diff([2]error{}, nested, cmpErrors); diff != "" {
		t.Errorf("consumers' writes (-want +got):\n%s", diff)
	}
	// evt_P and evt_P2 went out after their blockers settled, or are due.
	dispatch(t, f.d)
	got := f.applied("a")
	if diff := cmp.Diff([]string{"evt_M", "evt_P", "evt_P2", "evt_Q"}, sortStrings(slices.Clone(got))); diff != "" {
		t.Errorf("effects (-want +got):\n%s", diff)
	}
	if i, j := slices.Index(got, "evt_Q"), slices.Index(got, "evt_P"); i > j {
		t.Errorf("evt_P (subject Y) before evt_Q: %v", got)
	}
	if i, j := slices.Index(got, "evt_M"), slices.Index(got, "evt_P2"); i > j {
		t.Errorf("evt_P2 (subject Z) before evt_M: %v", got)
	}
}

// testOrderChain: a consumer of evt_1 writes evt_2 of the same subject
// through Dispatcher.Store() (tracking applying a carrier event makes a
// parcel change): evt_2 waits for evt_1, and is still applied, after it,
// before the Update that wrote evt_1 returns.
func testOrderChain(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	f := newFixture(t, store, outbox.Options{})
	ok := f.idempotent("a")
	var nested error
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		if e.ID == "evt_1" {
			nested = addOnCtx(ctx, f.d.Store(), "site1", "TN1", "evt_2")
		}
		return ok(ctx, e)
	})
	addOn(t, f.d.Store(), "site1", "TN1", "evt_1")
	if nested != nil {
		t.Fatalf("the consumer's write: %v", nested)
	}
	if diff := cmp.Diff([]string{"evt_1", "evt_2"}, f.applied("a")); diff != "" {
		t.Errorf("when the Update of evt_1 returned (-want +got):\n%s", diff)
	}
	if n := dispatch(t, f.d); n != 0 {
		t.Errorf("Dispatch found %d events left", n)
	}
}

var cmpErrors = cmp.Comparer(func(a, b error) bool { return errors.Is(a, b) || errors.Is(b, a) })
