// Package queuetest is the conformance suite of package queue on a
// storage backend: every shipped store's tests run it, so that the
// queue's guarantees (the due index in time order, one claimer per lease,
// a settle after a lost lease changing nothing, retries after their
// backoff, order per subject) hold on each.
//
//	func TestQueue(t *testing.T) {
//		queuetest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
//			s := memory.New()
//			return s, s
//		})
//	}
package queuetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
)

// NewStores returns two handles on one fresh, empty database: the same
// store twice where a backend has one handle per database, two connections
// where it can have more (two servers on one PostgreSQL database).
type NewStores func(t *testing.T) (storage.Store, storage.Store)

// Run runs the suite.
func Run(t *testing.T, newStores NewStores) {
	t.Run("DueInTimeOrder", func(t *testing.T) { testDue(t, newStores) })
	t.Run("StoredKeysOfBefore", func(t *testing.T) { testStoredKeys(t, newStores) })
	t.Run("ClaimLeases", func(t *testing.T) { testClaimLeases(t, newStores) })
	t.Run("OneClaimerEach", func(t *testing.T) { testOneClaimer(t, newStores) })
	t.Run("SettleAfterLostLease", func(t *testing.T) { testLostLease(t, newStores) })
	t.Run("RetryAfterBackoff", func(t *testing.T) { testRetry(t, newStores) })
	t.Run("ReleaseLeases", func(t *testing.T) { testReleaseLeases(t, newStores) })
	t.Run("OrderPerSubject", func(t *testing.T) { testOrder(t, newStores) })
	t.Run("EnqueueWaitsBehind", func(t *testing.T) { testEnqueue(t, newStores) })
	t.Run("Take", func(t *testing.T) { testTake(t, newStores) })
	t.Run("TakeOneClaimerNoError", func(t *testing.T) { testTakeConcurrent(t, newStores) })
	t.Run("HolderDiesLeaseRunsOut", func(t *testing.T) { testHolderDies(t, newStores) })
	t.Run("SettleGoneItem", func(t *testing.T) { testSettleGone(t, newStores) })
	t.Run("Drain", func(t *testing.T) { testDrain(t, newStores) })
}

var start = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// item is a user's record, as the outbox and webhook deliveries keep
// theirs: its own fields, and the queue's state among them.
type item struct {
	Seq         uint64    `json:"seq"`
	Attempts    int       `json:"attempts,omitempty"`
	NextAttempt time.Time `json:"next_attempt"`
	Dead        bool      `json:"dead,omitempty"`
	// Subject and Waiting: for the queue with order (orderedQueue).
	Subject string `json:"subject,omitempty"`
	Waiting bool   `json:"waiting,omitempty"`
}

// orderedQueue is newQueue keeping each subject's items in order.
func orderedQueue() *queue.Queue[item, uint64] {
	q := newQueue()
	slot := q.Slot
	q.Slot = func(r *item) queue.Slot[uint64] {
		s := slot(r)
		s.Waiting = &r.Waiting
		return s
	}
	q.Order = queue.NewOrder("queuetest.subjects")
	q.Subject = func(r *item) (string, uint64) {
		if r.Subject == "" {
			return "", 0
		}
		return storage.KeyPrefix(r.Subject), r.Seq
	}
	q.At = func(_ *item, seq uint64) string { return storage.Uint64Key(seq) }
	return q
}

func newQueue() *queue.Queue[item, uint64] {
	return &queue.Queue[item, uint64]{
		Items:  storage.Collection[item]{Name: "queuetest.items"},
		Index:  queue.NewIndex[uint64]("queuetest.due"),
		Policy: queue.Policy{Lease: time.Minute, RetryBase: time.Second, RetryMax: 10 * time.Second, MaxAttempts: 3, Jitter: func() float64 { return 0 }},
		Slot: func(r *item) queue.Slot[uint64] {
			k := storage.Uint64Key(r.Seq)
			return queue.Slot[uint64]{Key: k, ID: k, Ref: r.Seq, Next: &r.NextAttempt}
		},
	}
}

func key(e queue.Entry[uint64]) string { return storage.Uint64Key(e.Value) }

// add stores items with seqs 1, 2, … due at the given times.
func add(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], at ...time.Time) {
	t.Helper()
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		for i, a := range at {
			r := item{Seq: uint64(i + 1)}
			if err := q.Schedule(tx, &r, a); err != nil {
				return err
			}
			if _, err := q.Save(tx, &r, storage.MustNotExist()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func due(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], now time.Time, limit int) []uint64 {
	t.Helper()
	var got []uint64
	err := s.View(t.Context(), func(tx storage.Tx) error {
		got = nil
		for e, err := range q.Index.Due(tx, now, limit) {
			if err != nil {
				return err
			}
			got = append(got, e.Value)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// claim claims seq at now on s and reports whether it was this one's.
func claim(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], seq uint64, now time.Time) (item, uint64, bool) {
	t.Helper()
	var r item
	var v uint64
	ok := false
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		var err error
		r, v, ok, err = q.Claim(tx, storage.Uint64Key(seq), now, nil)
		return err
	})
	if queue.ClaimedElsewhere(err) {
		return item{}, 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return r, v, ok
}

func get(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], seq uint64) item {
	t.Helper()
	var r item
	err := s.View(t.Context(), func(tx storage.Tx) error {
		it, err := q.Items.Get(tx, storage.Uint64Key(seq))
		r = it.Value
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func testDue(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := newQueue()
	// Written out of time order: the index sorts them.
	add(t, s, q, start.Add(3*time.Second), start, start.Add(time.Second), start.Add(time.Hour))
	tests := []struct {
		name  string
		now   time.Time
		limit int
		want  []uint64
	}{
		{"before all", start.Add(-time.Nanosecond), 0, nil},
		{"at the first", start, 0, []uint64{2}},
		{"three due", start.Add(3 * time.Second), 0, []uint64{2, 3, 1}},
		{"limit", start.Add(3 * time.Second), 2, []uint64{2, 3}},
		{"all", start.Add(2 * time.Hour), 0, []uint64{2, 3, 1, 4}},
		// A time in another zone is the same instant.
		{"other zone", start.In(time.FixedZone("x", 3600)), 0, []uint64{2}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, due(t, s, q, tt.now, tt.limit)); diff != "" {
			t.Errorf("%s: due (-want +got):\n%s", tt.name, diff)
		}
	}
}

// testStoredKeys reads index entries as releases before the queue package
// wrote them: the key layout is stored data and must not change.
func testStoredKeys(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := newQueue()
	at := time.Date(2026, 3, 1, 9, 0, 0, 5, time.FixedZone("x", -3600))
	const stored = "2026-03-01T10:00:00.000000005Z\x0000000000000000000007"
	if got := queue.Key(at, storage.Uint64Key(7)); got != stored {
		t.Fatalf("Key = %q, want the stored layout %q", got, stored)
	}
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		if _, err := q.Items.Put(tx, storage.Uint64Key(7), item{Seq: 7, NextAttempt: at}, storage.MustNotExist()); err != nil {
			return err
		}
		_, err := q.Index.Collection.Put(tx, stored, 7, storage.MustNotExist())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]uint64{7}, due(t, s, q, at, 0)); diff != "" {
		t.Errorf("due (-want +got):\n%s", diff)
	}
	// Claiming moves the stored entry: none is left at the old key.
	if _, _, ok := claim(t, s, q, 7, at); !ok {
		t.Fatal("the stored item was not claimed")
	}
	var keys []string
	err = s.View(t.Context(), func(tx storage.Tx) error {
		for it, err := range q.Index.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, it.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2026-03-01T10:01:00.000000005Z\x0000000000000000000007"}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("index after the claim (-want +got):\n%s", diff)
	}
}

func testClaimLeases(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	q := newQueue()
	add(t, a, q, start, start.Add(time.Hour))
	if _, _, ok := claim(t, a, q, 2, start); ok {
		t.Error("an item not due yet was claimed")
	}
	if _, _, ok := claim(t, a, q, 9, start); ok {
		t.Error("a missing item was claimed")
	}
	r, _, ok := claim(t, a, q, 1, start)
	if !ok {
		t.Fatal("a due item was not claimed")
	}
	if want := start.Add(time.Minute); !r.NextAttempt.Equal(want) {
		t.Errorf("claimed next attempt = %s, want the lease's end %s", r.NextAttempt, want)
	}
	if diff := cmp.Diff([]uint64(nil), due(t, b, q, start.Add(time.Minute-time.Nanosecond), 0)); diff != "" {
		t.Errorf("due within the lease (-want +got):\n%s", diff)
	}
	if _, _, ok := claim(t, b, q, 1, start.Add(time.Minute-time.Nanosecond)); ok {
		t.Error("a leased item was claimed again within its lease")
	}
	if _, _, ok := claim(t, b, q, 1, start.Add(time.Minute)); !ok {
		t.Error("an item whose lease ran out was not claimed again")
	}
	// A check that refuses leaves the item as it was.
	err := a.Update(t.Context(), func(tx storage.Tx) error {
		_, _, ok, err := q.Claim(tx, storage.Uint64Key(2), start.Add(time.Hour), func(storage.Tx, *item, uint64) (bool, error) { return false, nil })
		if ok {
			t.Error("an item its check refused was claimed")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := get(t, a, q, 2); !got.NextAttempt.Equal(start.Add(time.Hour)) {
		t.Errorf("refused item's next attempt = %s, want unchanged %s", got.NextAttempt, start.Add(time.Hour))
	}
}

func testOneClaimer(t *testing.T, newStores NewStores) {
	concurrentClaims(t, newStores, func(s storage.Store, q *queue.Queue[item, uint64], seq uint64) (bool, error) {
		ok := false
		err := s.Update(context.Background(), func(tx storage.Tx) error {
			var err error
			_, _, ok, err = q.Claim(tx, storage.Uint64Key(seq), start, nil)
			return err
		})
		if queue.ClaimedElsewhere(err) {
			return false, nil
		}
		return ok && err == nil, err
	})
}

// concurrentClaims races four claimers, two per store, for the same 20
// due items: each item is claimed once in all.
func concurrentClaims(t *testing.T, newStores NewStores, claim func(s storage.Store, q *queue.Queue[item, uint64], seq uint64) (bool, error)) {
	a, b := newStores(t)
	q := newQueue()
	const n = 20
	at := make([]time.Time, n)
	for i := range at {
		at[i] = start
	}
	add(t, a, q, at...)
	claims := make([]int, n+1)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, s := range []storage.Store{a, b, a, b} {
		wg.Go(func() {
			for seq := uint64(1); seq <= n; seq++ {
				ok, err := claim(s, q, seq)
				if err != nil {
					t.Errorf("item %d: %v", seq, err)
					return
				}
				if ok {
					mu.Lock()
					claims[seq]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for seq := 1; seq <= n; seq++ {
		if claims[seq] != 1 {
			t.Errorf("item %d claimed %d times, want once", seq, claims[seq])
		}
	}
}

func testLostLease(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	q := newQueue()
	add(t, a, q, start)
	_, va, ok := claim(t, a, q, 1, start)
	if !ok {
		t.Fatal("not claimed")
	}
	later := start.Add(time.Minute)
	_, vb, ok := claim(t, b, q, 1, later)
	if !ok {
		t.Fatal("not claimed after the lease ran out")
	}
	settle := func(ctx context.Context, s storage.Store, v uint64) (held, called bool) {
		held, err := q.Settle(ctx, s, storage.Uint64Key(1), v, func(tx storage.Tx, r *item, v uint64) error {
			called = true
			r.Dead = true
			_, err := q.Save(tx, r, storage.VersionIs(v))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return held, called
	}
	if held, called := settle(t.Context(), a, va); held || called {
		t.Errorf("the first claimer's settle after it lost its lease: held %v, called %v; want neither", held, called)
	}
	if get(t, a, q, 1).Dead {
		t.Error("a settle after a lost lease wrote")
	}
	// A settle outlives its caller's context: the attempt was made.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if held, called := settle(ctx, b, vb); !held || !called {
		t.Errorf("the lease holder's settle with an ended context: held %v, called %v; want both", held, called)
	}
	if !get(t, a, q, 1).Dead {
		t.Error("the lease holder's settle was not recorded")
	}
}

func testRetry(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := newQueue()
	add(t, s, q, start)
	tests := []struct {
		attempts  int
		jitter    float64
		wait      time.Duration
		exhausted bool
	}{
		{1, 0, time.Second, false},
		{2, 0, 2 * time.Second, false},
		{2, 0.5, 1500 * time.Millisecond, false},
		{3, 0, 4 * time.Second, true},
		{5, 0, 10 * time.Second, true}, // at most RetryMax
		{5, 0.99, 10*time.Second - time.Duration(0.99*float64(5*time.Second)), true},
	}
	now := start
	for _, tt := range tests {
		q.Policy.Jitter = func() float64 { return tt.jitter }
		r, v, ok := claim(t, s, q, 1, now)
		if !ok {
			t.Fatalf("attempt %d: not claimed when due", tt.attempts)
		}
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			rr := r
			return q.Retry(tx, &rr, v, tt.attempts, now)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Policy.Exhausted(tt.attempts); got != tt.exhausted {
			t.Errorf("Exhausted(%d) = %v, want %v", tt.attempts, got, tt.exhausted)
		}
		next := now.Add(tt.wait)
		if got := get(t, s, q, 1).NextAttempt; !got.Equal(next) {
			t.Errorf("attempt %d, jitter %v: next attempt %s, want %s", tt.attempts, tt.jitter, got, next)
		}
		if diff := cmp.Diff([]uint64(nil), due(t, s, q, next.Add(-time.Nanosecond), 0)); diff != "" {
			t.Errorf("attempt %d: due before the backoff ended (-want +got):\n%s", tt.attempts, diff)
		}
		now = next
	}
}

func testReleaseLeases(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := newQueue()
	add(t, s, q, start, start, start.Add(-time.Hour), start.Add(time.Hour))
	claim(t, s, q, 1, start)
	r, v, _ := claim(t, s, q, 2, start)
	err := s.Update(t.Context(), func(tx storage.Tx) error { return q.Retry(tx, &r, v, 1, start) })
	if err != nil {
		t.Fatal(err)
	}
	n, err := q.ReleaseLeases(t.Context(), s, start, key)
	if err != nil {
		t.Fatal(err)
	}
	// The leased, the backing-off and the scheduled later: 3; the one due
	// already stays where it is.
	if n != 3 {
		t.Errorf("released %d, want 3", n)
	}
	if diff := cmp.Diff([]uint64{3, 1, 2, 4}, due(t, s, q, start, 0)); diff != "" {
		t.Errorf("due after release (-want +got):\n%s", diff)
	}
	if got := get(t, s, q, 1).NextAttempt; !got.Equal(start) {
		t.Errorf("released next attempt = %s, want %s", got, start)
	}
}

func testOrder(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	o := queue.NewOrder("queuetest.order")
	a, b := storage.KeyPrefix("site", "A"), storage.KeyPrefix("site", "AB")
	first := func() [2]uint64 {
		var got [2]uint64
		err := s.View(t.Context(), func(tx storage.Tx) error {
			for i, p := range []string{a, b} {
				seq, ok, err := o.First(tx, p)
				if err != nil {
					return err
				}
				if ok != (seq != 0) {
					t.Errorf("First(%q) = %d, %v", p, seq, ok)
				}
				got[i] = seq
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	steps := []struct {
		name string
		do   func(tx storage.Tx) error
		want [2]uint64
	}{
		{"empty", func(storage.Tx) error { return nil }, [2]uint64{0, 0}},
		{"queued", func(tx storage.Tx) error {
			for _, seq := range []uint64{12, 3, 10} {
				if err := o.Add(tx, a, seq, storage.MustNotExist()); err != nil {
					return err
				}
			}
			return o.Add(tx, b, 1, storage.MustNotExist())
		}, [2]uint64{3, 1}},
		{"first settled", func(tx storage.Tx) error { return o.Remove(tx, a, 3) }, [2]uint64{10, 1}},
		{"another subject settled", func(tx storage.Tx) error { return o.Remove(tx, b, 1) }, [2]uint64{10, 0}},
		{"rest settled", func(tx storage.Tx) error {
			if err := o.Remove(tx, a, 10); err != nil {
				return err
			}
			return o.Remove(tx, a, 12)
		}, [2]uint64{0, 0}},
	}
	for _, st := range steps {
		if err := s.Update(t.Context(), st.do); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := first(); got != st.want {
			t.Errorf("%s: first = %v, want %v", st.name, got, st.want)
		}
	}
}

// testEnqueue: of a subject's items only the first is due; settling it
// (Dequeue) makes the next due at that moment, and an item queued again
// with an earlier place than the pending ones waits for the one due now.
func testEnqueue(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := orderedQueue()
	update := func(name string, fn func(tx storage.Tx) error) {
		t.Helper()
		if err := s.Update(t.Context(), fn); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	update("enqueue", func(tx storage.Tx) error {
		for i, subject := range []string{"A", "B", "A", "", "A"} {
			r := item{Seq: uint64(i + 1), Subject: subject}
			if _, err := q.Enqueue(tx, &r, start, storage.MustNotExist()); err != nil {
				return err
			}
		}
		return nil
	})
	if diff := cmp.Diff([]uint64{1, 2, 4}, due(t, s, q, start, 0)); diff != "" {
		t.Errorf("due after enqueue: the heads and the item of no subject (-want +got):\n%s", diff)
	}
	if _, _, ok := claim(t, s, q, 3, start.Add(time.Hour)); ok {
		t.Error("claimed item 3, waiting behind item 1")
	}
	// settle claims seq and settles it at now, returning the item it made due.
	settle := func(seq uint64, now time.Time) uint64 {
		t.Helper()
		r, v, ok := claim(t, s, q, seq, now)
		if !ok {
			t.Fatalf("claim %d failed", seq)
		}
		var next *item
		update("settle", func(tx storage.Tx) (err error) {
			if next, err = q.Dequeue(tx, &r, now); err != nil {
				return err
			}
			r.Dead = true
			_, err = q.Save(tx, &r, storage.VersionIs(v))
			return err
		})
		if next == nil {
			return 0
		}
		if got := get(t, s, q, next.Seq); got.Waiting || !got.NextAttempt.Equal(now) {
			t.Errorf("item %d made due: stored waiting %v, next attempt %s; want due at %s", next.Seq, got.Waiting, got.NextAttempt, now)
		}
		return next.Seq
	}
	later := start.Add(time.Minute)
	if got := settle(1, later); got != 3 {
		t.Errorf("settling item 1 made %d due, want 3", got)
	}
	// Item 1 queued again (a dead event retried) while 3 is due: it waits
	// for 3, and 5 for it.
	update("enqueue again", func(tx storage.Tx) error {
		r := get(t, s, q, 1)
		_, err := q.Enqueue(tx, &r, later, storage.AnyVersion)
		return err
	})
	steps := []struct {
		settle, want uint64
	}{{3, 1}, {1, 5}, {5, 0}, {2, 0}, {4, 0}}
	for _, st := range steps {
		if got := settle(st.settle, later); got != st.want {
			t.Errorf("settling item %d made %d due, want %d", st.settle, got, st.want)
		}
	}
	if got := due(t, s, q, later.Add(time.Hour), 0); len(got) != 0 {
		t.Errorf("due after all settled: %v", got)
	}
	// Item 7 waits behind 6 as an earlier build stored it: no flag and no
	// entry. Settling 6 makes it due all the same.
	update("enqueue 6 and 7", func(tx storage.Tx) error {
		for _, seq := range []uint64{6, 7} {
			r := item{Seq: seq, Subject: "C"}
			if _, err := q.Enqueue(tx, &r, later, storage.MustNotExist()); err != nil {
				return err
			}
		}
		it, err := q.Items.Get(tx, storage.Uint64Key(7))
		if err != nil {
			return err
		}
		r := it.Value
		r.Waiting = false
		_, err = q.Save(tx, &r, storage.AnyVersion)
		return err
	})
	if got := settle(6, later); got != 7 {
		t.Errorf("settling item 6 made %d due, want 7 (stored without the flag)", got)
	}
	if diff := cmp.Diff([]uint64{7}, due(t, s, q, later, 0)); diff != "" {
		t.Errorf("due after settling 6 (-want +got):\n%s", diff)
	}
	// An entry whose item is gone does not stop a settle: settling 9
	// skips the entry of 10 and makes 11 due.
	update("orphan entry", func(tx storage.Tx) error {
		for _, seq := range []uint64{9, 10, 11} {
			r := item{Seq: seq, Subject: "D"}
			if _, err := q.Enqueue(tx, &r, later, storage.MustNotExist()); err != nil {
				return err
			}
		}
		return q.Items.Delete(tx, storage.Uint64Key(10), storage.AnyVersion)
	})
	if got := settle(9, later); got != 11 {
		t.Errorf("settling item 9 made %d due, want 11 (10's entry has no item)", got)
	}
}

// take takes seq at now on s (Queue.Take), failing the test on an error.
func take(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], seq uint64, now time.Time) (item, uint64, bool) {
	t.Helper()
	r, v, ok, err := q.Take(t.Context(), s, storage.Uint64Key(seq), now, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r, v, ok
}

// done settles seq, claimed at v, as delivered: it leaves the queue.
func done(t *testing.T, s storage.Store, q *queue.Queue[item, uint64], seq, v uint64) bool {
	t.Helper()
	held, err := q.Settle(t.Context(), s, storage.Uint64Key(seq), v, func(tx storage.Tx, r *item, _ uint64) error {
		if err := q.Unschedule(tx, r); err != nil {
			return err
		}
		return q.Items.Delete(tx, storage.Uint64Key(seq), storage.AnyVersion)
	})
	if err != nil {
		t.Fatal(err)
	}
	return held
}

func testTake(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	q := newQueue()
	add(t, a, q, start, start.Add(time.Hour))
	checked := 0
	check := func(storage.Tx, *item, uint64) (bool, error) { checked++; return false, nil }
	steps := []struct {
		name    string
		s       storage.Store
		seq     uint64
		at      time.Time
		check   func(storage.Tx, *item, uint64) (bool, error)
		ok      bool
		checked int
	}{
		{"missing", a, 9, start, check, false, 0},
		{"not due: not checked", a, 2, start, check, false, 0},
		{"refused by its check", a, 1, start, check, false, 1},
		{"due", a, 1, start, nil, true, 1},
		{"within the lease, elsewhere", b, 1, start.Add(time.Minute - time.Nanosecond), nil, false, 1},
		{"after the lease", b, 1, start.Add(time.Minute), nil, true, 1},
	}
	for _, st := range steps {
		r, v, ok, err := q.Take(t.Context(), st.s, storage.Uint64Key(st.seq), st.at, st.check)
		if err != nil || ok != st.ok || checked != st.checked {
			t.Errorf("%s: Take = %v, %v with %d checks; want %v, nil with %d", st.name, ok, err, checked, st.ok, st.checked)
		}
		if !ok {
			if v != 0 || r != (item{}) {
				t.Errorf("%s: not taken, but returned %+v at version %d", st.name, r, v)
			}
			continue
		}
		if want := st.at.Add(time.Minute); !r.NextAttempt.Equal(want) || get(t, a, q, st.seq).NextAttempt != r.NextAttempt {
			t.Errorf("%s: taken next attempt %s, stored %s; want the lease's end %s", st.name, r.NextAttempt, get(t, a, q, st.seq).NextAttempt, want)
		}
	}
	if got := get(t, a, q, 2).NextAttempt; !got.Equal(start.Add(time.Hour)) {
		t.Errorf("item not due: next attempt %s, want unchanged %s", got, start.Add(time.Hour))
	}
}

// testTakeConcurrent: claimers racing for the same items each take an item
// once in all, and a claim lost to another is no error.
func testTakeConcurrent(t *testing.T, newStores NewStores) {
	concurrentClaims(t, newStores, func(s storage.Store, q *queue.Queue[item, uint64], seq uint64) (bool, error) {
		_, _, ok, err := q.Take(context.Background(), s, storage.Uint64Key(seq), start, nil)
		return ok, err
	})
}

// testHolderDies is the lease's promise to its users (the outbox's and
// the webhook deliveries' lease expiry): an item whose holder dies is
// left alone for the lease, then taken elsewhere; the late holder's
// settles write nothing, and the item, settled by the other, is not due
// again.
func testHolderDies(t *testing.T, newStores NewStores) {
	a, b := newStores(t)
	q := newQueue()
	add(t, a, q, start)
	_, va, ok := take(t, a, q, 1, start)
	if !ok {
		t.Fatal("not taken when due")
	}
	if diff := cmp.Diff([]uint64(nil), due(t, b, q, start.Add(time.Minute-time.Nanosecond), 0)); diff != "" {
		t.Errorf("due elsewhere within the lease (-want +got):\n%s", diff)
	}
	if _, _, ok := take(t, b, q, 1, start.Add(time.Minute-time.Nanosecond)); ok {
		t.Fatal("taken elsewhere within the holder's lease")
	}
	_, vb, ok := take(t, b, q, 1, start.Add(time.Minute))
	if !ok {
		t.Fatal("not taken elsewhere after the lease ran out")
	}
	if done(t, a, q, 1, va) {
		t.Error("the dead holder's late settle held")
	}
	if got := get(t, b, q, 1).NextAttempt; !got.Equal(start.Add(2 * time.Minute)) {
		t.Errorf("next attempt after the late settle %s, want the new lease's end %s", got, start.Add(2*time.Minute))
	}
	if !done(t, b, q, 1, vb) {
		t.Fatal("the new holder's settle did not hold")
	}
	// Later still, the item is gone: that settle writes nothing either.
	if held, err := q.Settle(t.Context(), a, storage.Uint64Key(1), va, func(storage.Tx, *item, uint64) error {
		t.Error("a settle of a gone item ran")
		return nil
	}); held || !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the dead holder's settle after the item was settled: held %v, err %v; want false, ErrNotFound", held, err)
	}
	if diff := cmp.Diff([]uint64(nil), due(t, a, q, start.Add(24*time.Hour), 0)); diff != "" {
		t.Errorf("due after it was settled (-want +got):\n%s", diff)
	}
}

func testSettleGone(t *testing.T, newStores NewStores) {
	s, _ := newStores(t)
	q := newQueue()
	add(t, s, q, start)
	_, v, ok := take(t, s, q, 1, start)
	if !ok {
		t.Fatal("not taken when due")
	}
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		return q.Items.Delete(tx, storage.Uint64Key(1), storage.AnyVersion)
	})
	if err != nil {
		t.Fatal(err)
	}
	called := false
	held, err := q.Settle(t.Context(), s, storage.Uint64Key(1), v, func(storage.Tx, *item, uint64) error {
		called = true
		return nil
	})
	if held || called || !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Settle of a gone item: held %v, called %v, err %v; want false, false, ErrNotFound", held, called, err)
	}
}

func testDrain(t *testing.T, newStores NewStores) {
	errStop := errors.New("stop")
	tests := []struct {
		name  string
		limit int
		skip  uint64
		fail  uint64 // run fails on it
		count int    // what run counts per item taken
		ran   []uint64
		n     int
		err   error
	}{
		{"due ones in time order", 0, 0, 0, 1, []uint64{2, 3, 1}, 3, nil},
		{"a skipped one is not run", 0, 3, 0, 1, []uint64{2, 1}, 2, nil},
		{"limit bounds the entries read", 2, 3, 0, 1, []uint64{2}, 1, nil},
		{"counts add up", 0, 0, 0, 3, []uint64{2, 3, 1}, 9, nil},
		{"the first error stops it", 0, 0, 3, 1, []uint64{2, 3}, 1, errStop},
	}
	for _, tt := range tests {
		s, _ := newStores(t)
		q := newQueue()
		add(t, s, q, start.Add(2*time.Second), start, start.Add(time.Second), start.Add(time.Hour))
		var ran []uint64
		n, err := queue.Drain(t.Context(), s, q.Index, start.Add(2*time.Second), tt.limit,
			func(e queue.Entry[uint64]) (uint64, bool) { return e.Value, e.Value != tt.skip },
			func(seq uint64) (int, error) {
				ran = append(ran, seq)
				if seq == tt.fail {
					return 5, errStop
				}
				// run is outside the scan's transaction: it can take and
				// settle the item.
				_, v, ok := take(t, s, q, seq, start.Add(2*time.Second))
				if !ok || !done(t, s, q, seq, v) {
					return 0, fmt.Errorf("item %d not taken and settled", seq)
				}
				return tt.count, nil
			})
		if n != tt.n || !errors.Is(err, tt.err) {
			t.Errorf("%s: Drain = %d, %v; want %d, %v", tt.name, n, err, tt.n, tt.err)
		}
		if diff := cmp.Diff(tt.ran, ran); diff != "" {
			t.Errorf("%s: ran (-want +got):\n%s", tt.name, diff)
		}
	}
	if n, err := queue.One(true, nil); n != 1 || err != nil {
		t.Errorf("One(true, nil) = %d, %v; want 1, nil", n, err)
	}
	if n, err := queue.One(true, errStop); n != 0 || err != errStop {
		t.Errorf("One(true, err) = %d, %v; want 0, err", n, err)
	}
	if n, err := queue.One(false, nil); n != 0 || err != nil {
		t.Errorf("One(false, nil) = %d, %v; want 0, nil", n, err)
	}
}
