package notify

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkObserveAndDispatch measures the path every parcel event takes:
// a rule fires, a notification is stored, Dispatch claims, sends and
// settles it.
func BenchmarkObserveAndDispatch(b *testing.B) {
	clock := deliverykit.NewManualClock(t0)
	svc, err := New(memory.New(), Options{
		Senders: map[Channel]Sender{ChannelEmail: SenderFunc(func(context.Context, Message) error { return nil })},
		Clock:   clock,
		IDs:     &deliverykit.SequentialIDs{},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	i := 0
	for b.Loop() {
		i++
		ev := event("ALERT_OUT_FOR_DELIVERY", t0.Add(time.Duration(i)*time.Second))
		ev.ExternalID = fmt.Sprintf("ORD-%d", i)
		ev.Phone = ""
		clock.Set(ev.Time)
		if err := svc.Observe(ctx, ev); err != nil {
			b.Fatal(err)
		}
		if n, err := svc.Dispatch(ctx); err != nil || n != 1 {
			b.Fatalf("dispatch = %d, %v", n, err)
		}
	}
}

// BenchmarkList measures GET /notifications for an order with 10
// notifications among 10,000 orders.
func BenchmarkList(b *testing.B) {
	svc, err := New(memory.New(), Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{},
		Senders: map[Channel]Sender{ChannelEmail: SenderFunc(func(context.Context, Message) error { return nil })}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	triggers := []string{"STEP_CONFIRMED_BY_MERCHANT", "STEP_SUBMITTED_TO_CARRIER", "ALERT_OUT_FOR_DELIVERY", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_DELIVERED_TO_CONSUMER"}
	for o := 0; o < 10_000; o++ {
		for k, tr := range triggers {
			ev := event(tr, t0.Add(time.Duration(k)*time.Hour))
			ev.ExternalID = fmt.Sprintf("ORD-%d", o)
			ev.Phone = ""
			if err := svc.Observe(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
	}
	i := 0
	for b.Loop() {
		i++
		if _, err := svc.List(ctx, "site-a", fmt.Sprintf("ORD-%d", i%10_000)); err != nil {
			b.Fatal(err)
		}
	}
}
