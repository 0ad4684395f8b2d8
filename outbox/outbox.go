// Package outbox makes effects that cross areas durable. A producer writes
// an event.Event with Add inside the same storage transaction as the change
// it reports, so both commit or neither; a Dispatcher then hands every
// event to the consumers registered for its type, at least once, retrying
// failures with exponential backoff and jitter, and parks an event that
// keeps failing as dead, where it is listed and can be retried.
//
//	d := outbox.New(store, outbox.Options{Logger: log})
//	d.Handle(event.TypeOrderCompleted, "tracking", tracking.HandleOrderCompleted)
//	store = d.Store() // producers built on this store deliver right after commit
//	d.Step(ctx) // the rest (retries, a crash's leftovers) here: wiring.Services.Run calls it every second
//
// # Guarantees
//
// An event is delivered to each of its consumers until that consumer
// returns nil once; a consumer that succeeded is not called again for it
// unless the process dies between the call and the record of its success.
// Consumers are therefore idempotent by event id: Applied records, inside
// the consumer's own transaction, that it applied an event.
//
// A delivery is claimed first: the event's next attempt moves a lease
// ahead, by a compare-and-set, so of several dispatchers on one database
// (several servers on one PostgreSQL) one delivers it; when the holder
// dies the lease expires and another delivers it again.
//
// A handler error of kind InvalidArgument is permanent (the payload cannot
// be applied, however often it is tried): the event is dead at once. Other
// errors are retried until Options.MaxAttempts, then the event is dead.
// Every dead event is logged at level ERROR; Dead lists them per site and
// Retry queues one again.
//
// An event is delivered only after every earlier event of its site and
// subject is settled, that is applied by all its consumers or dead:
// consumers see one subject's events in the order they were written, also
// across backoffs, leases and restarts. A dead event does not hold its
// subject up; Retry makes it one to wait for again.
package outbox

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Defaults of Options.
const (
	DefaultBatch       = 100
	DefaultLease       = time.Minute
	DefaultRetryBase   = time.Second
	DefaultRetryMax    = time.Hour
	DefaultMaxAttempts = 15
)

// Options configures a Dispatcher. A zero field means its default.
type Options struct {
	// Clock defaults to the system clock.
	Clock deliverykit.Clock
	// Logger receives dead events and dispatch errors. Default:
	// slog.Default().
	Logger *slog.Logger
	// Batch is how many due events one Dispatch call delivers at most.
	Batch int
	// Lease is how long a claimed event is left to its dispatcher before
	// another may deliver it again; longer than the slowest consumer.
	Lease time.Duration
	// RetryBase and RetryMax bound the backoff: the n-th failure waits
	// RetryBase × 2^(n−1), at most RetryMax, of which a random part
	// (up to half) is taken off so retries of many events spread out.
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many failed deliveries make an event dead.
	MaxAttempts int
	// Jitter returns a number in [0, 1); default math/rand/v2.Float64.
	// Tests set it to make backoffs exact.
	Jitter func() float64
	// DeadRetention is how long a dead event is kept (Sweep). Default:
	// DefaultDeadRetention; retention.Never keeps them forever.
	DeadRetention time.Duration
}

// Handler applies one event. It must be idempotent by event id (see
// Applied) and must not keep e.Payload after it returns.
type Handler func(ctx context.Context, e event.Event) error

type consumer struct {
	name string
	h    Handler
}

// Dispatcher delivers the outbox's events to their consumers. It is safe
// for concurrent use; register every handler before the first Dispatch.
type Dispatcher struct {
	store    storage.Store
	opts     Options
	q        queue.Queue[record, uint64]
	mu       sync.RWMutex
	handlers map[event.Type][]consumer
	// held are the events this process is about to deliver right after
	// their commit (Store): Dispatch leaves them to that delivery, so that
	// the events of one cause go out in the order they were written.
	heldMu sync.Mutex
	held   map[uint64]int
	// busy are the events a Dispatch of this process is delivering, and
	// changed is closed when held or busy shrink (order.go).
	busy    map[uint64]int
	changed chan struct{}
	// backfilled: Sweep indexed the dead events stored before their time
	// index (retention.go).
	backfilled retention.Once
}

// New returns a Dispatcher of store's outbox.
func New(store storage.Store, opts Options) *Dispatcher {
	opts.Clock = cmp.Or[deliverykit.Clock](opts.Clock, deliverykit.SystemClock{})
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	opts.Batch = queue.Or(opts.Batch, DefaultBatch)
	q := eventQueue
	q.Policy = queue.Policy{Lease: opts.Lease, RetryBase: opts.RetryBase, RetryMax: opts.RetryMax, MaxAttempts: opts.MaxAttempts, Jitter: opts.Jitter}.
		Or(queue.Policy{Lease: DefaultLease, RetryBase: DefaultRetryBase, RetryMax: DefaultRetryMax, MaxAttempts: DefaultMaxAttempts})
	return &Dispatcher{store: store, opts: opts, q: q, handlers: map[event.Type][]consumer{}}
}

// Handle registers h as consumer name of events of type t. Names identify
// a consumer in an event's record of who has applied it, so they must
// stay the same across releases. Registering a name twice for one type
// panics.
func (d *Dispatcher) Handle(t event.Type, name string, h Handler) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.handlers[t] {
		if c.name == name {
			panic("outbox: consumer " + name + " registered twice for " + string(t))
		}
	}
	d.handlers[t] = append(d.handlers[t], consumer{name, h})
}

func (d *Dispatcher) consumers(t event.Type) []consumer {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.handlers[t]
}

// record is an event as the outbox keeps it.
type record struct {
	Event       event.Event `json:"event"`
	Seq         uint64      `json:"seq"`
	Attempts    int         `json:"attempts,omitempty"`
	NextAttempt time.Time   `json:"next_attempt"`
	// Done lists the consumers that applied the event.
	Done      []string  `json:"done,omitempty"`
	LastError string    `json:"last_error,omitempty"`
	DeadAt    time.Time `json:"dead_at,omitzero"`
	// Waiting: queued behind an earlier event of its subject (order.go).
	Waiting bool `json:"behind,omitempty"`
}

var (
	events = storage.Collection[record]{Name: "outbox.events"}
	// due holds a key per live event: its next attempt, then its seq.
	due = queue.NewIndex[uint64]("outbox.due")
	// ids finds an event's seq by site and id.
	ids = storage.Collection[uint64]{Name: "outbox.ids"}
	// dead lists dead events by site, in seq order.
	dead = storage.Collection[uint64]{Name: "outbox.dead"}
	// applied holds the marks of Applied.
	applied = storage.Collection[struct{}]{Name: "outbox.applied"}
)

// eventQueue is the outbox's queue of events, in order per subject
// (order.go); a Dispatcher's copy adds its policy.
var eventQueue = queue.Queue[record, uint64]{Items: events, Index: due, Order: subjects, Subject: subjectOf,
	Slot: func(r *record) queue.Slot[uint64] {
		k := storage.Uint64Key(r.Seq)
		return queue.Slot[uint64]{Key: k, ID: k, Ref: r.Seq, Next: &r.NextAttempt, Waiting: &r.Waiting}
	},
	At: func(_ *record, seq uint64) string { return storage.Uint64Key(seq) },
}

// Add writes e to the outbox inside tx: it is delivered once tx commits,
// and never if tx rolls back. e.Type and e.Site are required. An empty
// e.ID is given a random one that sorts by creation time ("evt_" and 36
// characters, as deliverykit.RandomIDs): it tells a receiver nothing about
// how many events this or another site had, and the ids one process makes
// grow in the order it makes them, so a subject's events sort by id in
// the order they were written. A given ID must be unique within the site.
// Delivery follows the order of writing, kept by the outbox's own
// sequence.
func Add(tx storage.Tx, e event.Event) error {
	if e.Type == "" || e.Site == "" {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "outbox: event type and site are required")
	}
	seq, err := events.NextSequence(tx)
	if err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	if e.ID == "" {
		// Not the sequence: that one counts every site's events, and
		// ids go to the sites' receivers (webhook-id).
		e.ID = newEventID(e.Site, e.Subject, time.Now())
	}
	// Due at once: the zero time sorts before every retry.
	r := record{Event: e, Seq: seq}
	if _, err := ids.Put(tx, storage.Key(e.Site, e.ID), seq, storage.MustNotExist()); err != nil {
		return fmt.Errorf("outbox: event %s: %w", e.ID, err)
	}
	if _, err := eventQueue.Enqueue(tx, &r, r.NextAttempt, storage.MustNotExist()); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	// The delivering store's transaction may be wrapped (an
	// idempotency unit's nested Update): look through the wrappers.
	for t := tx; t != nil; {
		if dt, ok := t.(*deliveringTx); ok {
			dt.d.mark(&dt.d.held, 1, seq)
			dt.added = append(dt.added, seq)
			break
		}
		w, ok := t.(interface{ Unwrap() storage.Tx })
		if !ok {
			break
		}
		t = w.Unwrap()
	}
	return nil
}

// mark adds delta to the count of each of seqs in *m: d.held (delivered
// by its producer's Update) or d.busy (claimed by a Dispatch). A count
// that falls wakes the waiters of waitLocal.
func (d *Dispatcher) mark(m *map[uint64]int, delta int, seqs ...uint64) {
	d.heldMu.Lock()
	defer d.heldMu.Unlock()
	if *m == nil {
		*m = map[uint64]int{}
	}
	for _, seq := range seqs {
		if (*m)[seq] += delta; (*m)[seq] <= 0 {
			delete(*m, seq)
		}
	}
	if delta < 0 && d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

func (d *Dispatcher) isHeld(seq uint64) bool {
	d.heldMu.Lock()
	defer d.heldMu.Unlock()
	return d.held[seq] > 0
}

// isLocal reports whether this process is delivering seq now: held for a
// producer's Update, or claimed by a Dispatch.
func (d *Dispatcher) isLocal(seq uint64) bool {
	d.heldMu.Lock()
	defer d.heldMu.Unlock()
	return d.held[seq] > 0 || d.busy[seq] > 0
}

// Applied records, inside the consumer's transaction, that consumer applied
// the event with id; it reports true when it had been recorded before, in
// which case the consumer skips the event and its transaction writes
// nothing else.
func Applied(tx storage.Tx, consumer, id string) (bool, error) {
	_, err := applied.Put(tx, storage.Key(consumer, id), struct{}{}, storage.MustNotExist())
	if errors.Is(err, deliverykit.ErrConflict) {
		return true, nil
	}
	return false, err
}

// Dispatch delivers the events due at the clock's time, at most
// Options.Batch of them, then the events of their subjects that settling
// them made due, so that a subject's backlog goes out in one call. It
// returns how many were delivered to all their consumers. Consumer
// failures are not errors of Dispatch: they are retried later. Its error
// is the store's.
func (d *Dispatcher) Dispatch(ctx context.Context) (int, error) {
	var promoted []uint64
	run := func(seq uint64) (int, error) {
		if d.isHeld(seq) {
			return 0, nil // its producer delivers it
		}
		ok, next, err := d.deliver(ctx, seq, nil)
		if next != 0 {
			promoted = append(promoted, next)
		}
		return queue.One(ok, err)
	}
	n, err := queue.Drain(ctx, d.store, due, d.opts.Clock.Now().UTC(), d.opts.Batch,
		func(e queue.Entry[uint64]) (uint64, bool) { return e.Value, !d.isHeld(e.Value) }, run)
	for i := 0; err == nil && i < len(promoted); i++ {
		var m int
		m, err = run(promoted[i])
		n += m
	}
	return n, err
}

// Step is Dispatch: one round of the background work that
// wiring.Services.Run runs every interval, retrying what failed and what
// a crash left leased.
func (d *Dispatcher) Step(ctx context.Context) (int, error) { return d.Dispatch(ctx) }

// deliver claims, delivers and settles one event. It reports whether the
// event was delivered to all its consumers; an event not due (claimed by
// another dispatcher, settled meanwhile, or waiting behind an earlier
// event of its subject: order.go) is skipped, unless the event it waits
// for is being delivered by this process and wait is not nil: then
// deliver waits, until wait ends, for it to settle.
// It also returns the event of the subject that settling this one made
// due, or 0.
func (d *Dispatcher) deliver(ctx context.Context, seq uint64, wait context.Context) (bool, uint64, error) {
	for {
		ok, blocker, next, err := d.deliverOnce(ctx, seq, wait != nil)
		if err != nil || blocker == 0 {
			return ok, next, err
		}
		if blocker != seq && !d.waitLocal(wait, blocker) {
			wait = nil // no longer ours to wait for: leave it, or deliver it
		}
	}
}

// deliverOnce is one try of deliver. It returns the seq of the earlier
// event of the subject, being delivered by this process, that the event
// waits for (only when mayWait).
func (d *Dispatcher) deliverOnce(ctx context.Context, seq uint64, mayWait bool) (ok bool, blocker, next uint64, err error) {
	now := d.opts.Clock.Now().UTC()
	key := storage.Uint64Key(seq)
	claimed, version, ok, err := d.q.Take(ctx, d.store, key, now, func(_ storage.Tx, r *record, _ uint64) (bool, error) {
		return r.DeadAt.IsZero(), nil
	})
	if err != nil || !ok {
		if err == nil && mayWait {
			blocker, err = d.blockerOf(ctx, seq)
		}
		return false, blocker, 0, err
	}
	d.mark(&d.busy, 1, seq)
	defer d.mark(&d.busy, -1, seq)
	cctx, followers := withinDelivery(ctx)
	done, failure := d.apply(cctx, &claimed)
	// Settle with a fresh context: the consumers ran, so what they did is
	// recorded even when the caller's context ended meanwhile.
	var promoted *record
	held, err := d.q.Settle(ctx, d.store, key, version, func(tx storage.Tx, r *record, v uint64) (err error) {
		r.Done = done
		if failure != nil {
			promoted, err = d.fail(ctx, tx, r, v, failure, now)
		} else {
			promoted, err = remove(tx, r, d.opts.Clock.Now().UTC())
		}
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		err = nil
	}
	if err == nil {
		d.deliverFollowers(ctx, followers.take())
	}
	if held && promoted != nil {
		next = promoted.Seq
	}
	return held && failure == nil, 0, next, err
}

// deliverFollowers delivers, now that the event they waited for is
// settled, the events its consumers wrote: a chain of effects (a carrier
// event, the parcel change it makes) is applied before the first Update
// returns, as without order. Those still held up wait for Run.
func (d *Dispatcher) deliverFollowers(ctx context.Context, seqs []uint64) {
	for _, seq := range seqs {
		if _, _, err := d.deliver(ctx, seq, nil); err != nil {
			d.opts.Logger.WarnContext(ctx, "outbox: delivering a consumer's event failed; the dispatcher retries", "err", err)
			return
		}
	}
}

// apply calls the consumers that have not applied the event yet, in
// registration order; one consumer's failure does not hold up the others.
func (d *Dispatcher) apply(ctx context.Context, r *record) (done []string, failure error) {
	done = slices.Clone(r.Done)
	var errs []error
	for _, c := range d.consumers(r.Event.Type) {
		if slices.Contains(done, c.name) {
			continue
		}
		if err := safeCall(ctx, c, r.Event); err != nil {
			errs = append(errs, fmt.Errorf("consumer %s: %w", c.name, err))
			continue
		}
		done = append(done, c.name)
	}
	return done, errors.Join(errs...)
}

// permanent reports whether every consumer failure of a delivery is of
// kind InvalidArgument: the event can never be applied.
func permanent(failure error) bool {
	j, ok := failure.(interface{ Unwrap() []error })
	if !ok {
		return deliverykit.KindOf(failure) == deliverykit.KindInvalidArgument
	}
	for _, err := range j.Unwrap() {
		if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
			return false
		}
	}
	return true
}

// safeCall turns a consumer's panic into its error: one bad event must not
// take the dispatcher down.
func safeCall(ctx context.Context, c consumer, e event.Event) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return c.h(ctx, e)
}

// fail records a failed delivery: a retry after the backoff, or death,
// which makes the next event of the subject due (returned).
func (d *Dispatcher) fail(ctx context.Context, tx storage.Tx, r *record, version uint64, failure error, now time.Time) (*record, error) {
	r.Attempts++
	r.LastError = validation.TruncateBytes(failure.Error(), 1000)
	if !d.q.Policy.Exhausted(r.Attempts) && !permanent(failure) {
		return nil, d.q.Retry(tx, r, version, r.Attempts, now)
	}
	r.DeadAt = now
	// Dead counts as settled: the subject's later events go on.
	next, err := d.q.Dequeue(tx, r, now)
	if err != nil {
		return nil, err
	}
	if _, err := dead.Put(tx, storage.Key(r.Event.Site, storage.Uint64Key(r.Seq)), r.Seq, storage.AnyVersion); err != nil {
		return nil, err
	}
	if err := expiry.Move(tx, storage.Uint64Key(r.Seq), retention.Entry{}, deadEntry(r)); err != nil {
		return nil, err
	}
	if _, err := d.q.Save(tx, r, storage.VersionIs(version)); err != nil {
		return nil, err
	}
	d.opts.Logger.ErrorContext(ctx, "outbox event is dead", "site", r.Event.Site, "event_id", r.Event.ID,
		"type", string(r.Event.Type), "attempts", r.Attempts, "err", r.LastError)
	return next, nil
}

// remove deletes a delivered event and its index entries, and makes the
// next event of its subject due at now.
func remove(tx storage.Tx, r *record, now time.Time) (*record, error) {
	next, err := eventQueue.Dequeue(tx, r, now)
	if err != nil {
		return nil, err
	}
	if err := ids.Delete(tx, storage.Key(r.Event.Site, r.Event.ID), storage.AnyVersion); err != nil {
		return nil, err
	}
	if err := forgetApplied(tx, r); err != nil {
		return nil, err
	}
	return next, events.Delete(tx, storage.Uint64Key(r.Seq), storage.AnyVersion)
}

// NextDue returns when the next event waiting for a retry falls due;
// false when none waits. A test clock is moved to it.
func (d *Dispatcher) NextDue(ctx context.Context) (time.Time, bool, error) {
	return queue.NextDue(ctx, d.store, due)
}
