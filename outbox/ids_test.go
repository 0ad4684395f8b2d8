package outbox

import (
	"context"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestGeneratedIDs: ids the outbox gives are random, not a count one
// site's receiver could read another site's volume from, and events are
// still delivered in the order written, whatever their ids.
func TestGeneratedIDs(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	store := memory.New()
	d := New(store, Options{Clock: deliverykit.NewManualClock(at), Logger: slog.New(slog.DiscardHandler)})
	type got struct{ Site, Step string }
	var order []got
	var ids []string
	d.Handle(event.TypeParcelChanged, "a", func(ctx context.Context, e event.Event) error {
		p, err := event.Decode[event.ParcelChanged](e)
		if err != nil {
			return err
		}
		order = append(order, got{e.Site, p.Step})
		ids = append(ids, e.ID)
		return nil
	})
	var want []got
	err := store.Update(t.Context(), func(tx storage.Tx) error {
		for i := range 6 {
			site := []string{"site1", "site2"}[i%2]
			step := string(rune('a' + i))
			ev, err := event.New("", site, "TN1", at, event.ParcelChanged{TrackingNumber: "TN1", Step: step})
			if err != nil {
				return err
			}
			if err := Add(tx, ev); err != nil {
				return err
			}
			want = append(want, got{site, step})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := d.Dispatch(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("delivery order (-written +delivered):\n%s", diff)
	}
	format := regexp.MustCompile(`^evt_[2-7a-z]{36}$`)
	for i, id := range ids {
		if !format.MatchString(id) {
			t.Errorf("id %q: want evt_ and 36 characters of [2-7a-z]", id)
		}
		// The last 26 characters are random bits: ids of the other
		// site's subject share almost none of them; ids of the same
		// site's subject grow in the order of writing (a receiver orders
		// by them), counting on from the last.
		for j, other := range ids[:i] {
			if j%2 != i%2 {
				if same := samePositions(id[len(id)-26:], other[len(other)-26:]); same > 10 {
					t.Errorf("ids %s and %s of two sites share %d of 26 random characters", other, id, same)
				}
			} else if other >= id {
				t.Errorf("id %s of the same subject written after %s sorts before it", id, other)
			}
		}
	}
}

func samePositions(a, b string) int {
	n := 0
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}
