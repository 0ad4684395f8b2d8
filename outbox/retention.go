package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// DefaultDeadRetention is how long a dead event is kept for Dead and
// Retry: 30 days.
const DefaultDeadRetention = 30 * 24 * time.Hour

// expiry is the time index of dead events (package retention): class
// "dead" at the time the event died. A delivered event is deleted when it
// is acknowledged and needs none; Retry takes the entry off.
var expiry = retention.Index{Name: "outbox.expiry"}

const classDead = "dead"

func deadEntry(r *record) retention.Entry {
	if r.DeadAt.IsZero() {
		return retention.Entry{}
	}
	return retention.Entry{Class: classDead, At: r.DeadAt}
}

// Sweep deletes, at most limit (≤ 0: no limit), the events dead for
// longer than Options.DeadRetention at now, with their id and dead-list
// entries, retention.Batch per transaction, and returns how many it
// deleted. The first Sweep of a store whose dead events have no time
// index entry indexes them first (retention.Index.Backfill).
func (d *Dispatcher) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := d.backfilled.Do(ctx, d.backfill); err != nil {
		return 0, fmt.Errorf("outbox: indexing dead events: %w", err)
	}
	keep := retention.Resolve(d.opts.DeadRetention, DefaultDeadRetention)
	n, err := expiry.SweepClasses(ctx, d.store, now, limit, []retention.Class{{Name: classDead, Keep: keep}}, deleteDead)
	if err != nil {
		return n, fmt.Errorf("outbox: %w", err)
	}
	return n, nil
}

func (d *Dispatcher) backfill(ctx context.Context) error {
	return expiry.Backfill(ctx, d.store, events.Name, retention.EntryOf(events, func(r record) retention.Entry { return deadEntry(&r) }))
}

// deleteDead deletes the dead event at key found by its entry e, unless it
// was retried since.
func deleteDead(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, ok, err := retention.Current(tx, events, key, e, func(r record) retention.Entry { return deadEntry(&r) })
	if !ok {
		return false, err
	}
	r := it.Value
	if err := dead.Delete(tx, storage.Key(r.Event.Site, storage.Uint64Key(r.Seq)), storage.AnyVersion); err != nil {
		return false, err
	}
	if err := ids.DeleteIf(tx, storage.Key(r.Event.Site, r.Event.ID), func(seq uint64) bool { return seq == r.Seq }); err != nil {
		return false, err
	}
	if err := forgetApplied(tx, &r); err != nil {
		return false, err
	}
	return true, events.Delete(tx, key, storage.VersionIs(it.Version))
}

// forgetApplied deletes the Applied marks of r's event by the consumers
// that applied it (r.Done, under their registered names), inside the
// transaction that deletes the event: a deleted event is never delivered
// again, so its marks would only grow the store.
func forgetApplied(tx storage.Tx, r *record) error {
	for _, c := range r.Done {
		if err := applied.Delete(tx, storage.Key(c, r.Event.ID), storage.AnyVersion); err != nil {
			return err
		}
	}
	return nil
}
