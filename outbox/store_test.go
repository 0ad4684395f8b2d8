package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// afterCommit runs hook after each committed Update of the store it wraps.
type afterCommit struct {
	storage.Store
	hook func()
}

func (s *afterCommit) Update(ctx context.Context, fn func(storage.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	if err == nil && s.hook != nil {
		s.hook()
	}
	return err
}

// TestDispatchLeavesHeldEvents: between a producer's commit and the
// delivery that follows it in the producer's goroutine, the dispatcher's
// loop does not take the new events, so the events of one cause go out in
// the order they were written, by their producer.
func TestDispatchLeavesHeldEvents(t *testing.T) {
	store := &afterCommit{Store: memory.New()}
	d := outbox.New(store, outbox.Options{})
	var got []string
	d.Handle(event.TypeParcelChanged, "a", func(_ context.Context, e event.Event) error {
		got = append(got, e.Subject)
		return nil
	})
	var taken []int
	store.hook = func() {
		n, err := d.Dispatch(t.Context())
		if err != nil {
			t.Error(err)
		}
		taken = append(taken, n)
	}
	err := d.Store().Update(t.Context(), func(tx storage.Tx) error {
		for _, subject := range []string{"first", "second"} {
			ev, err := event.New("", "s", subject, time.Now(), event.ParcelChanged{})
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
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{0}, taken[:1]); diff != "" {
		t.Errorf("events the loop took between commit and delivery (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"first", "second"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
}
