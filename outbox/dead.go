package outbox

import (
	"context"
	"errors"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
)

// MaxDeadPage is the most dead events one Dead call returns.
const MaxDeadPage = 100

// DeadEvent is an event no longer retried.
type DeadEvent struct {
	Event    event.Event `json:"event"`
	Attempts int         `json:"attempts"`
	// Done lists the consumers that applied it before it died; a retry
	// calls only the others.
	Done      []string  `json:"done,omitempty"`
	LastError string    `json:"last_error"`
	DeadAt    time.Time `json:"dead_at"`
}

// Dead lists the site's dead events in the order they were written,
// starting after the event with id after ("" from the first), at most limit
// (0 or more than MaxDeadPage: MaxDeadPage).
func (d *Dispatcher) Dead(ctx context.Context, site, after string, limit int) ([]DeadEvent, error) {
	if site == "" {
		return nil, deliverykit.InvalidField("site", "required", "is required")
	}
	if limit <= 0 || limit > MaxDeadPage {
		limit = MaxDeadPage
	}
	var out []DeadEvent
	err := d.store.View(ctx, func(tx storage.Tx) error {
		out = out[:0]
		r := storage.Range{Prefix: storage.KeyPrefix(site), Limit: limit}
		if after != "" {
			seq, err := ids.Get(tx, storage.Key(site, after))
			if errors.Is(err, storage.ErrNotFound) {
				return deliverykit.InvalidField("after", "known", "is not a dead event of the site")
			}
			if err != nil {
				return err
			}
			r.After = storage.Key(site, storage.Uint64Key(seq.Value))
		}
		for it, err := range dead.Scan(tx, r) {
			if err != nil {
				return err
			}
			ev, err := events.Get(tx, storage.Uint64Key(it.Value))
			if err != nil {
				return err
			}
			rec := ev.Value
			out = append(out, DeadEvent{Event: rec.Event, Attempts: rec.Attempts, Done: rec.Done, LastError: rec.LastError, DeadAt: rec.DeadAt})
		}
		return nil
	})
	return out, err
}

// Retry queues the site's dead event id again, due now, with its attempts
// counted afresh. An event that is not dead is NotFound.
func (d *Dispatcher) Retry(ctx context.Context, site, id string) error {
	now := d.opts.Clock.Now().UTC()
	return d.store.Update(ctx, func(tx storage.Tx) error {
		seq, err := ids.Get(tx, storage.Key(site, id))
		if errors.Is(err, storage.ErrNotFound) {
			return deliverykit.E(deliverykit.KindNotFound, "no such dead event")
		}
		if err != nil {
			return err
		}
		it, err := events.Get(tx, storage.Uint64Key(seq.Value))
		if err != nil {
			return err
		}
		r := it.Value
		if r.DeadAt.IsZero() {
			return deliverykit.E(deliverykit.KindNotFound, "no such dead event")
		}
		if err := dead.Delete(tx, storage.Key(site, storage.Uint64Key(r.Seq)), storage.AnyVersion); err != nil {
			return err
		}
		if err := expiry.Remove(tx, storage.Uint64Key(r.Seq), deadEntry(&r)); err != nil {
			return err
		}
		r.DeadAt, r.Attempts = time.Time{}, 0
		// Pending again: the subject's events written from now on wait for it.
		_, err = d.q.Enqueue(tx, &r, now, storage.VersionIs(it.Version))
		return err
	})
}

// Stats describe the outbox at one moment.
type Stats struct {
	// Pending is how many events wait for delivery (or a retry), up to
	// the limit Stats was given; Oldest is when the oldest of them was
	// written.
	Pending int
	Oldest  time.Time
	// Dead is how many of the events looked at are dead.
	Dead int
}

// Stats counts the pending and dead events, looking at up to limit of
// them (a bound on the cost of the count).
func (d *Dispatcher) Stats(ctx context.Context, limit int) (Stats, error) {
	var st Stats
	err := d.store.View(ctx, func(tx storage.Tx) error {
		st = Stats{}
		for it, err := range events.Scan(tx, storage.Range{Limit: limit}) {
			if err != nil {
				return err
			}
			if !it.Value.DeadAt.IsZero() {
				st.Dead++
				continue
			}
			if st.Pending == 0 {
				st.Oldest = it.Value.Event.Time
			}
			st.Pending++
		}
		return nil
	})
	return st, err
}

// Pending returns up to limit events of store's outbox that wait for
// delivery (or a retry), oldest first: for tests and inspection tools that
// look at what a change emitted without delivering it.
func Pending(ctx context.Context, store storage.Store, limit int) ([]event.Event, error) {
	var out []event.Event
	err := store.View(ctx, func(tx storage.Tx) error {
		out = out[:0]
		for it, err := range events.Scan(tx, storage.Range{Limit: limit}) {
			if err != nil {
				return err
			}
			if it.Value.DeadAt.IsZero() {
				out = append(out, it.Value.Event)
			}
		}
		return nil
	})
	return out, err
}

// ReleaseLeases makes every claimed or backing-off event due now, and
// returns how many it released. A process that is the only one using its
// store (a bolt file, which one process opens at a time) calls it at
// start: leases held when the previous process died are then stale, and
// their events need not wait for the lease to run out. Never call it on a
// store that other running dispatchers share (PostgreSQL): it would take
// their leases.
func (d *Dispatcher) ReleaseLeases(ctx context.Context) (int, error) {
	return d.q.ReleaseLeases(ctx, d.store, d.opts.Clock.Now().UTC(), func(e queue.Entry[uint64]) string {
		return storage.Uint64Key(e.Value)
	})
}
