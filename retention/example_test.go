package retention_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// notes is an area that keeps notes for a day after they were written,
// with a time index written in the same transaction as each note.
type notes struct{ store storage.Store }

var noteIndex = retention.Index{Name: "notes.expiry"}

func (n notes) add(ctx context.Context, id string, at time.Time) error {
	return n.store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Put("notes", id, []byte(`"…"`), storage.MustNotExist()); err != nil {
			return err
		}
		return noteIndex.Move(tx, id, retention.Entry{}, retention.Entry{Class: "written", At: at})
	})
}

func (n notes) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	return noteIndex.SweepClasses(ctx, n.store, now, limit, []retention.Class{{Name: "written", Keep: 24 * time.Hour}},
		func(tx storage.Tx, id string, _ retention.Entry) (bool, error) {
			return true, tx.Delete("notes", id, storage.AnyVersion)
		})
}

func Example() {
	ctx := context.Background()
	start := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	area := notes{store: memory.New()}
	_ = area.add(ctx, "old", start)
	_ = area.add(ctx, "new", start.Add(12*time.Hour))

	sw := retention.NewSweeper([]retention.Area{{Name: "notes", Sweep: area}},
		retention.Options{Clock: clock, Logger: slog.New(slog.DiscardHandler)})
	clock.Advance(25 * time.Hour)
	deleted, err := sw.SweepOnce(ctx) // Run(ctx) does this every Options.Interval
	fmt.Println(deleted, err)
	// Output: map[notes:1] <nil>
}

// An area that adds an index to records it stored before runs Backfill
// once before relying on it: here, notes get a time index.
func ExampleBackfill() {
	ctx := context.Background()
	store := memory.New()
	start := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	_ = store.Update(ctx, func(tx storage.Tx) error { // an older release's notes, without entries
		_, err := tx.Put("notes", "old", []byte(`"…"`), storage.MustNotExist())
		return err
	})
	err := retention.Backfill(ctx, store, "notes.expiry", "notes", func(tx storage.Tx, rec storage.Record) error {
		return noteIndex.Move(tx, rec.Key, retention.Entry{}, retention.Entry{Class: "written", At: start})
	})
	fmt.Println(err)
	n, err := notes{store: store}.Sweep(ctx, start.Add(25*time.Hour), 0)
	fmt.Println(n, err)
	// Output:
	// <nil>
	// 1 <nil>
}
