// Package queue is the module's one work queue: the due index, claiming
// with a lease, settling, retries with backoff and jitter, dead items,
// lease release at start, order per subject and the wake-up of a loop.
// The outbox, webhook deliveries and notify's scheduled sends are its
// users; the carrier simulator and notify's pickup reminders keep their
// due times in its Index.
//
// The queue keeps no records of its own: a user stores its items in its
// own collection, in its own record shape, and tells the queue where an
// item's key, next attempt and index entry are (Slot). The queue moves
// the next attempt and the index entry together, inside the caller's
// transaction, so that the index lists every live item once, at its next
// attempt.
//
// A user's round of work is Drain over its index, and per item Take (the
// claim, in a transaction of its own), the work outside any transaction,
// then Settle: what stays the user's is what an item is and what working
// on it does.
//
// # Guarantees
//
// A claim moves an item's next attempt a lease ahead by a compare-and-set
// on the item's version: of several processes on one store, one claims
// it; when the holder dies, the lease runs out and the item is due again.
// A settle after the lease ran out (the item's version moved on) changes
// nothing. A retry waits Policy.Backoff; an item whose attempts reach
// Policy.MaxAttempts is for its user to make dead.
package queue

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/internal/retry"
	"github.com/deliverykit/deliverykit/storage"
)

// TimeLayout is the layout of the time in index keys: fixed-width UTC, so
// that keys sort in time order. Stored keys use it; it must not change.
const TimeLayout = "2006-01-02T15:04:05.000000000Z"

// TimeKey formats t for an index key.
func TimeKey(t time.Time) string { return t.UTC().Format(TimeLayout) }

// ParseTimeKey reads a time written by TimeKey.
func ParseTimeKey(s string) (time.Time, error) { return time.Parse(TimeLayout, s) }

// Policy is how a queue leases and retries.
type Policy struct {
	// Lease is how long a claimed item is left to its claimer.
	Lease time.Duration
	// RetryBase and RetryMax bound the backoff: the n-th failure waits
	// RetryBase × 2^(n−1), at most RetryMax, less a random part of up to
	// half of it.
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many failed attempts make an item dead.
	MaxAttempts int
	// Jitter returns a number in [0, 1); default math/rand/v2.Float64.
	Jitter func() float64
}

// Or returns p with each field that is zero or negative taken from def,
// and Jitter defaulting to math/rand/v2.Float64: the one way users set
// their defaults.
func (p Policy) Or(def Policy) Policy {
	p.Lease = Or(p.Lease, def.Lease)
	p.RetryBase = Or(p.RetryBase, def.RetryBase)
	p.RetryMax = Or(p.RetryMax, def.RetryMax)
	p.MaxAttempts = Or(p.MaxAttempts, def.MaxAttempts)
	if p.Jitter == nil {
		p.Jitter = def.Jitter
	}
	if p.Jitter == nil {
		p.Jitter = rand.Float64
	}
	return p
}

// Or returns v, or def when v is zero or negative.
func Or[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Backoff is the wait after the attempts-th failure: RetryBase ×
// 2^(attempts−1), at most RetryMax, less a random part of up to half.
func (p Policy) Backoff(attempts int) time.Duration {
	return retry.Jittered(retry.Backoff(p.RetryBase, p.RetryMax, attempts), p.Jitter())
}

// Exhausted reports whether attempts failed attempts make an item dead.
func (p Policy) Exhausted(attempts int) bool { return attempts >= p.MaxAttempts }

// Index is a due index: one entry per item, keyed by a time and the
// item's id, so that a scan meets them in time order.
// Its Put and Delete take the time and id; the collection's own methods
// (Scan, Name) read it as it is stored.
type Index[V any] struct{ storage.Collection[V] }

// NewIndex returns the index stored in the collection name.
func NewIndex[V any](name string) Index[V] {
	return Index[V]{storage.Collection[V]{Name: name}}
}

// Key is the index key of id at at: the time, then id (one or more key
// parts).
func Key(at time.Time, id ...string) string {
	k := TimeKey(at)
	for _, p := range id {
		k += storage.KeySep + p
	}
	return k
}

// Put adds the entry of id at at.
func (x Index[V]) Put(tx storage.Tx, at time.Time, id string, v V) error {
	_, err := x.Collection.Put(tx, Key(at, id), v, storage.AnyVersion)
	return err
}

// Delete removes the entry of id at at.
func (x Index[V]) Delete(tx storage.Tx, at time.Time, id string) error {
	return x.Collection.Delete(tx, Key(at, id), storage.AnyVersion)
}

// Entry is an index entry met by a scan.
type Entry[V any] struct {
	// Key is the entry's key; ID its part after the time.
	Key, ID string
	Value   V
}

// Due yields the entries due at now (time not after it), in time order,
// reading at most limit entries (0: no limit). It stops at the first
// entry that is not due.
func (x Index[V]) Due(tx storage.Tx, now time.Time, limit int) iter.Seq2[Entry[V], error] {
	bound := TimeKey(now)
	return func(yield func(Entry[V], error) bool) {
		for it, err := range x.Collection.Scan(tx, storage.Range{Limit: limit}) {
			if err != nil {
				yield(Entry[V]{}, err)
				return
			}
			at, id, _ := strings.Cut(it.Key, storage.KeySep)
			if at > bound {
				return
			}
			if !yield(Entry[V]{Key: it.Key, ID: id, Value: it.Value}, nil) {
				return
			}
		}
	}
}

// Next returns the time of the index's first entry: when its next item
// falls due; false when the index is empty.
func (x Index[V]) Next(tx storage.Tx) (time.Time, bool, error) {
	for it, err := range x.Collection.Scan(tx, storage.Range{Limit: 1}) {
		if err != nil {
			return time.Time{}, false, err
		}
		k, _, _ := strings.Cut(it.Key, storage.KeySep)
		at, err := ParseTimeKey(k)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("queue: index %s: key %q: %w", x.Name, it.Key, err)
		}
		return at, true, nil
	}
	return time.Time{}, false, nil
}

// Nexter is a due index, whatever its entries hold.
type Nexter interface {
	Next(tx storage.Tx) (time.Time, bool, error)
}

// NextDue returns the earliest time one of the indexes in store has an
// item falling due at; false when all are empty. A test clock is moved to
// it, so that work runs exactly when it falls due.
func NextDue(ctx context.Context, store storage.Store, xs ...Nexter) (time.Time, bool, error) {
	var at time.Time
	found := false
	err := store.View(ctx, func(tx storage.Tx) error {
		for _, x := range xs {
			t, ok, err := x.Next(tx)
			if err != nil {
				return err
			}
			if ok && (!found || t.Before(at)) {
				at, found = t, true
			}
		}
		return nil
	})
	return at, found, err
}

// Slot is where an item's queue state is in its user's record.
type Slot[V any] struct {
	// Key is the record's key in Queue.Items.
	Key string
	// ID is its index entry's key after the time; Ref the entry's value.
	ID  string
	Ref V
	// Next points at the record's next attempt: the time of its entry.
	Next *time.Time
	// Waiting points at the record's flag of an item queued behind an
	// earlier one of its subject (Enqueue): it has no index entry, and
	// Claim leaves it. Nil in a queue without Order.
	Waiting *bool
}

// Queue is a user's items, its due index and its policy. R is the user's
// record; V the value of an index entry (what a scan needs to find the
// item).
type Queue[R any, V any] struct {
	Items  storage.Collection[R]
	Index  Index[V]
	Policy Policy
	// Slot tells where r's queue state is.
	Slot func(r *R) Slot[V]
	// Order, when Subject is set, keeps the items of each subject in
	// the order they were queued (Enqueue, Dequeue): Subject returns r's
	// subject, as a key prefix in Order ("" for an item of no subject),
	// and its place there (a sequence number); At returns the key in
	// Items of the item at place in r's subject.
	Order   Order
	Subject func(r *R) (prefix string, place uint64)
	At      func(r *R, place uint64) string
}

// Schedule sets r's next attempt to at and adds its index entry; r is not
// stored (Save).
func (q *Queue[R, V]) Schedule(tx storage.Tx, r *R, at time.Time) error {
	s := q.Slot(r)
	*s.Next = at
	return q.Index.Put(tx, at, s.ID, s.Ref)
}

// Unschedule removes r's index entry, at its next attempt.
func (q *Queue[R, V]) Unschedule(tx storage.Tx, r *R) error {
	s := q.Slot(r)
	return q.Index.Delete(tx, *s.Next, s.ID)
}

// Save stores r under cond and returns its new version.
func (q *Queue[R, V]) Save(tx storage.Tx, r *R, cond storage.Condition) (uint64, error) {
	return q.Items.Put(tx, q.Slot(r).Key, *r, cond)
}

// Move sets r's next attempt to at, moving its index entry, and stores r
// under cond.
func (q *Queue[R, V]) Move(tx storage.Tx, r *R, at time.Time, cond storage.Condition) (uint64, error) {
	s := q.Slot(r)
	if err := q.Index.Delete(tx, *s.Next, s.ID); err != nil {
		return 0, err
	}
	*s.Next = at
	v, err := q.Items.Put(tx, s.Key, *r, cond)
	if err != nil {
		return 0, err
	}
	return v, q.Index.Put(tx, at, s.ID, s.Ref)
}

// Claim takes the item stored at key for an attempt at now, inside tx: an
// item that is due and that check accepts gets its next attempt a lease
// ahead, by a compare-and-set on its version, and is returned with its
// new version. ok is false when the item is gone or not due, or check
// refused it (check may write: park or kill the item). A concurrent claim
// fails the transaction with storage.ErrConflict (ClaimedElsewhere tells).
func (q *Queue[R, V]) Claim(tx storage.Tx, key string, now time.Time, check func(tx storage.Tx, r *R, version uint64) (bool, error)) (claimed R, version uint64, ok bool, err error) {
	it, err := q.Items.Get(tx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return claimed, 0, false, nil
	}
	if err != nil {
		return claimed, 0, false, err
	}
	r := it.Value
	s := q.Slot(&r)
	if s.Next.After(now) || s.Waiting != nil && *s.Waiting {
		return claimed, 0, false, nil
	}
	if check != nil {
		if ok, err := check(tx, &r, it.Version); err != nil || !ok {
			return claimed, 0, false, err
		}
	}
	version, err = q.Move(tx, &r, now.Add(q.Policy.Lease), storage.VersionIs(it.Version))
	if err != nil {
		return claimed, 0, false, err
	}
	return r, version, true, nil
}

// ClaimedElsewhere reports whether err, of a transaction that claimed,
// says another claimer took the item first: not a failure, the item is
// simply not this one's.
func ClaimedElsewhere(err error) bool { return errors.Is(err, storage.ErrConflict) }

// Take claims the item stored at key (Claim) in a transaction of its own
// on store. ok is false when the item was not claimed, also when another
// claimer took it first. check runs on each try of the transaction but
// not when the item is gone or not due: a note it keeps outside the
// transaction is the committed try's only when ok is true.
func (q *Queue[R, V]) Take(ctx context.Context, store storage.Store, key string, now time.Time, check func(tx storage.Tx, r *R, version uint64) (bool, error)) (claimed R, version uint64, ok bool, err error) {
	err = store.Update(ctx, func(tx storage.Tx) error {
		claimed, version, ok, err = q.Claim(tx, key, now, check)
		return err
	})
	if ClaimedElsewhere(err) {
		err = nil // not a failure: the item is simply not this one's
	}
	if err != nil || !ok {
		var zero R
		return zero, 0, false, err
	}
	return claimed, version, true, nil
}

// Settle records the outcome of an attempt on the item stored at key and
// claimed at version, in a transaction that outlives ctx's cancellation
// (the attempt was made: its outcome is recorded). fn runs on each try of
// the transaction, so it starts its own notes afresh. held is false when
// the lease ran out and another claimer took the item (its version moved
// on): fn is not called and nothing is written. An item gone meanwhile is
// storage.ErrNotFound.
func (q *Queue[R, V]) Settle(ctx context.Context, store storage.Store, key string, version uint64, fn func(tx storage.Tx, r *R, version uint64) error) (held bool, err error) {
	err = store.Update(context.WithoutCancel(ctx), func(tx storage.Tx) error {
		it, err := q.Items.Get(tx, key)
		if held = err == nil && it.Version == version; !held {
			return err
		}
		r := it.Value
		return fn(tx, &r, it.Version)
	})
	return held && err == nil, err
}

// Drain runs the items due in x at now, in time order, at most limit of
// them (0: no limit): pick names the item of an entry (false: skip it),
// run works on it outside the scan's transaction and says how many it
// counts. It stops at the first error of run and returns the count so
// far: the loop of a user's Dispatch.
func Drain[V, K any](ctx context.Context, store storage.Store, x Index[V], now time.Time, limit int, pick func(Entry[V]) (K, bool), run func(K) (int, error)) (int, error) {
	var items []K
	err := store.View(ctx, func(tx storage.Tx) error {
		items = items[:0]
		for e, err := range x.Due(tx, now, limit) {
			if err != nil {
				return err
			}
			if k, ok := pick(e); ok {
				items = append(items, k)
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range items {
		m, err := run(k)
		if err != nil {
			return n, err
		}
		n += m
	}
	return n, nil
}

// One counts an attempt that succeeded as one, for Drain's run.
func One(ok bool, err error) (int, error) {
	if ok && err == nil {
		return 1, err
	}
	return 0, err
}

// Retry schedules r, stored at version, for its next attempt after the
// attempts-th failure at now: Policy.Backoff later.
func (q *Queue[R, V]) Retry(tx storage.Tx, r *R, version uint64, attempts int, now time.Time) error {
	_, err := q.Move(tx, r, now.Add(q.Policy.Backoff(attempts)), storage.VersionIs(version))
	return err
}

// ReleaseLeases makes every item leased or backing off due at now, and
// returns how many it moved. key finds an item from its index entry. Only
// a process that is the only one on its store calls it (at start): it
// takes every lease, the live ones of other processes too.
func (q *Queue[R, V]) ReleaseLeases(ctx context.Context, store storage.Store, now time.Time, key func(Entry[V]) string) (int, error) {
	n := 0
	bound := TimeKey(now)
	err := store.Update(ctx, func(tx storage.Tx) error {
		var later []string
		// The whole index: it runs once, at start, and a bound after now
		// would depend on how each store compares bytes past the time.
		for it, err := range q.Index.Collection.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			if at, id, _ := strings.Cut(it.Key, storage.KeySep); at > bound {
				later = append(later, key(Entry[V]{Key: it.Key, ID: id, Value: it.Value}))
			}
		}
		for _, k := range later {
			it, err := q.Items.Get(tx, k)
			if err != nil {
				return err
			}
			r := it.Value
			if _, err := q.Move(tx, &r, now, storage.VersionIs(it.Version)); err != nil {
				return err
			}
		}
		n = len(later)
		return nil
	})
	return n, err
}

// Enqueue stores r under cond at the end of its subject (Queue.Order):
// the only item of its subject, or an item of no subject, is scheduled at
// at; one queued behind others waits, without an index entry, until
// Dequeue of the one before it makes it due.
func (q *Queue[R, V]) Enqueue(tx storage.Tx, r *R, at time.Time, cond storage.Condition) (uint64, error) {
	s := q.Slot(r)
	if q.Subject != nil {
		if prefix, place := q.Subject(r); prefix != "" {
			_, pending, err := q.Order.First(tx, prefix)
			if err != nil {
				return 0, err
			}
			if err := q.Order.Add(tx, prefix, place, storage.MustNotExist()); err != nil {
				return 0, err
			}
			*s.Waiting = pending
		}
	}
	if s.Waiting == nil || !*s.Waiting {
		if err := q.Schedule(tx, r, at); err != nil {
			return 0, err
		}
	}
	return q.Items.Put(tx, s.Key, *r, cond)
}

// Dequeue takes r, settled, off the due index and its subject, without
// storing r, and makes the subject's next item due at now: it returns
// that item, stored, or nil when the subject has none waiting.
func (q *Queue[R, V]) Dequeue(tx storage.Tx, r *R, now time.Time) (*R, error) {
	s := q.Slot(r)
	if s.Waiting == nil || !*s.Waiting {
		if err := q.Index.Delete(tx, *s.Next, s.ID); err != nil {
			return nil, err
		}
	}
	if q.Subject == nil {
		return nil, nil
	}
	prefix, place := q.Subject(r)
	if prefix == "" {
		return nil, nil
	}
	if err := q.Order.Remove(tx, prefix, place); err != nil {
		return nil, err
	}
	it, ok, err := q.first(tx, r, prefix)
	if err != nil || !ok {
		return nil, err
	}
	n := it.Value
	ns := q.Slot(&n)
	if !*ns.Waiting {
		// Due already (queued again while another was due, or stored by
		// an earlier build, which kept no flag): unless it has no entry.
		_, err := q.Index.Collection.Get(tx, Key(*ns.Next, ns.ID))
		if !errors.Is(err, storage.ErrNotFound) {
			return nil, err
		}
	}
	*ns.Waiting = false
	*ns.Next = now
	if _, err := q.Items.Put(tx, ns.Key, n, storage.VersionIs(it.Version)); err != nil {
		return nil, err
	}
	return &n, q.Index.Put(tx, now, ns.ID, ns.Ref)
}

// first returns the first pending item of r's subject, at prefix in
// Order. An entry whose item is gone (not expected: they go together) is
// removed on the way, so that settling is not stopped by it.
func (q *Queue[R, V]) first(tx storage.Tx, r *R, prefix string) (storage.Item[R], bool, error) {
	for {
		place, ok, err := q.Order.First(tx, prefix)
		if err != nil || !ok {
			return storage.Item[R]{}, false, err
		}
		it, err := q.Items.Get(tx, q.At(r, place))
		if !errors.Is(err, storage.ErrNotFound) {
			return it, err == nil, err
		}
		if err := q.Order.Remove(tx, prefix, place); err != nil {
			return storage.Item[R]{}, false, err
		}
	}
}

// Order keeps the items of each subject in the order they were queued:
// one entry per pending item, by subject prefix and sequence number, so
// that the first entry of a subject is the item that goes first.
type Order struct{ storage.Collection[struct{}] }

// NewOrder returns the order stored in the collection name.
func NewOrder(name string) Order { return Order{storage.Collection[struct{}]{Name: name}} }

// Add lists seq as pending in the subject of prefix, under cond.
func (o Order) Add(tx storage.Tx, prefix string, seq uint64, cond storage.Condition) error {
	_, err := o.Collection.Put(tx, prefix+storage.Uint64Key(seq), struct{}{}, cond)
	return err
}

// Remove takes seq off the subject of prefix.
func (o Order) Remove(tx storage.Tx, prefix string, seq uint64) error {
	return o.Collection.Delete(tx, prefix+storage.Uint64Key(seq), storage.AnyVersion)
}

// First returns the first pending seq of the subject of prefix; ok is
// false when none is pending.
func (o Order) First(tx storage.Tx, prefix string) (seq uint64, ok bool, err error) {
	for it, err := range o.Collection.Scan(tx, storage.Range{Prefix: prefix, Limit: 1}) {
		if err != nil {
			return 0, false, err
		}
		seq, err := storage.ParseUint64Key(strings.TrimPrefix(it.Key, prefix))
		return seq, err == nil, err
	}
	return 0, false, nil
}

// Wake tells a loop that work was queued or settled, without waiting: one
// wake-up stands for any number of calls made before the loop looks.
type Wake chan struct{}

// NewWake returns a Wake.
func NewWake() Wake { return make(Wake, 1) }

// Signal wakes the loop, if it is not awake already.
func (w Wake) Signal() {
	select {
	case w <- struct{}{}:
	default:
	}
}
