package outboxtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// testDeadSweep: a dead event is deleted DeadRetention after it died, with
// its id, dead-list and time index entries; one retried before is not;
// events not dead are never touched.
func testDeadSweep(t *testing.T, newStores NewStores) {
	store, _ := newStores(t)
	const keep = 24 * time.Hour
	f := newFixture(t, store, outbox.Options{MaxAttempts: 1, DeadRetention: keep})
	f.d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		return errors.New("down")
	})
	add(t, store, "evt_dead", "evt_retried")
	dispatch(t, f.d) // both die
	if err := f.d.Retry(t.Context(), "site1", "evt_retried"); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(time.Minute)
	add(t, store, "evt_pending")
	sweep := func(at time.Time) int {
		t.Helper()
		n, err := f.d.Sweep(t.Context(), at, 0)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := sweep(start.Add(keep - time.Second)); n != 0 {
		t.Errorf("sweep before the retention ended deleted %d", n)
	}
	if n := sweep(start.Add(keep + time.Second)); n != 1 {
		t.Errorf("sweep after the retention deleted %d, want 1", n)
	}
	if dead, err := f.d.Dead(t.Context(), "site1", "", 0); err != nil || len(dead) != 0 {
		t.Errorf("Dead after the sweep = %v, %v; want none", dead, err)
	}
	if err := f.d.Retry(t.Context(), "site1", "evt_dead"); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("Retry of a swept event = %v, want NotFound", err)
	}
	// Left: the retried event, not dispatched since, and the pending
	// one, with their id entries; nothing of the swept one.
	want := map[string]int{"outbox.events": 2, "outbox.ids": 2, "outbox.dead": 0, "outbox.expiry": 0}
	got := map[string]int{}
	err := store.View(t.Context(), func(tx storage.Tx) error {
		for coll := range want {
			got[coll] = 0
			for _, err := range tx.Scan(coll, storage.Range{}) {
				if err != nil {
					return err
				}
				got[coll]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records left per collection (-want +got):\n%s", diff)
	}
}
