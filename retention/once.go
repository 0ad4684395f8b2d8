package retention

import (
	"context"
	"sync/atomic"
)

// Once runs an area's backfill (Backfill, Index.Backfill) before the
// first sweep of a process, and again only if it failed. Backfills are
// idempotent and remember their progress in the store, so two sweeps
// racing through a first backfill cost a little twice, never wrong
// entries: Once is a flag, not a lock. The zero value is ready.
type Once struct{ done atomic.Bool }

// Do runs backfill unless it has already succeeded.
func (o *Once) Do(ctx context.Context, backfill func(context.Context) error) error {
	if o.done.Load() {
		return nil
	}
	if err := backfill(ctx); err != nil {
		return err
	}
	o.done.Store(true)
	return nil
}
