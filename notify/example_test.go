package notify_test

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// An out-for-delivery alert becomes an e-mail notification, which Dispatch
// sends when it is due.
func Example() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 21, 7, 0, 0, 0, time.UTC))
	mail := notify.SenderFunc(func(_ context.Context, m notify.Message) error {
		fmt.Printf("to %s: %s\n", m.Recipient, m.Subject)
		return nil
	})
	svc, err := notify.New(memory.New(), notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: mail},
		Clock:   clock,
		IDs:     &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}
	err = svc.Observe(ctx, notify.Event{
		Site: "my-site", ExternalID: "ORD-1", TrackingNumber: "FP123",
		Trigger: "ALERT_OUT_FOR_DELIVERY", Time: clock.Now(), Email: "alva@example.com",
	})
	if err != nil {
		panic(err)
	}
	if _, err := svc.Dispatch(ctx); err != nil {
		panic(err)
	}
	list, _ := svc.List(ctx, "my-site", "ORD-1")
	for _, n := range list.Notifications {
		fmt.Println(n.Name, n.Channel, n.Status, n.TriggeredAt)
	}
	// Output:
	// to alva@example.com: Your parcel is out for delivery
	// OUT_FOR_DELIVERY EMAIL TRIGGERED 2026-11-21T07:00:00Z
}

// A failing sender leaves the notification FAILED and due again after the
// backoff; it is never dropped.
func ExampleService_Dispatch_retry() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 21, 7, 0, 0, 0, time.UTC))
	down := true
	sms := notify.SenderFunc(func(context.Context, notify.Message) error {
		if down {
			return fmt.Errorf("gateway unavailable")
		}
		return nil
	})
	svc, _ := notify.New(memory.New(), notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelSMS: sms}, Clock: clock, IDs: &deliverykit.SequentialIDs{},
	})
	svc.Observe(ctx, notify.Event{Site: "s", ExternalID: "O", TrackingNumber: "T", Trigger: "STEP_DELIVERED_TO_CONSUMER", Time: clock.Now(), Phone: "+46700000000"})
	status := func() notify.Status {
		l, _ := svc.List(ctx, "s", "O")
		return l.Notifications[0].Status
	}
	svc.Dispatch(ctx)
	fmt.Println(status())
	down = false
	clock.Advance(notify.DefaultRetryBase)
	svc.Dispatch(ctx)
	fmt.Println(status())
	// Output:
	// FAILED
	// TRIGGERED
}

// A parcel waits at a pickup point: after the catalog's two days,
// RemindPickups makes a PICKUP_REMINDER, which Dispatch sends. The parcel
// of the next order is collected in time and gets none.
func ExampleService_RemindPickups() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	catalogs := map[string]*catalog.Catalog{"my-site": {Notifications: &catalog.Notifications{PickupReminderDays: 2}}}
	svc, err := notify.New(memory.New(), notify.Options{
		Senders:        map[notify.Channel]notify.Sender{notify.ChannelEmail: notify.NewLogSender(slog.New(slog.DiscardHandler))},
		PickupReminder: notify.CatalogPickupReminders(catalogs),
		Clock:          clock, IDs: &deliverykit.SequentialIDs{},
	})
	if err != nil {
		panic(err)
	}
	for _, ev := range []notify.Event{
		{Site: "my-site", ExternalID: "ORD-1", TrackingNumber: "FP1", Trigger: "STEP_DELIVERED_TO_PICKUP_POINT", Time: clock.Now(), Email: "alva@example.com"},
		{Site: "my-site", ExternalID: "ORD-2", TrackingNumber: "FP2", Trigger: "STEP_DELIVERED_TO_PICKUP_POINT", Time: clock.Now(), Email: "bo@example.com"},
		{Site: "my-site", ExternalID: "ORD-2", TrackingNumber: "FP2", Trigger: "STEP_DELIVERED_TO_CONSUMER", Time: clock.Now().Add(time.Hour), Email: "bo@example.com"},
	} {
		if err := svc.Observe(ctx, ev); err != nil {
			panic(err)
		}
	}
	clock.Advance(48 * time.Hour)
	n, _ := svc.RemindPickups(ctx, clock.Now())
	fmt.Println("reminded:", n)
	if _, err := svc.Dispatch(ctx); err != nil {
		panic(err)
	}
	list, _ := svc.ListNotifications(ctx, "my-site", notify.ListQuery{TrackingNumber: "FP1"})
	for _, x := range list.Notifications {
		fmt.Println(x.Name, x.Status, x.ScheduledAt)
	}
	// Output:
	// reminded: 1
	// READY_FOR_PICKUP TRIGGERED 2026-11-21T12:00:00Z
	// PICKUP_REMINDER TRIGGERED 2026-11-23T12:00:00Z
}

// Sweep deletes a notification the configured time after it was sent
// (or failed for good, or was cancelled); one still to be sent stays.
func ExampleService_Sweep() {
	ctx := context.Background()
	start := time.Date(2026, 11, 21, 7, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	quiet := notify.SenderFunc(func(context.Context, notify.Message) error { return nil })
	svc, err := notify.New(memory.New(), notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: quiet},
		Clock:   clock, IDs: &deliverykit.SequentialIDs{},
		Retention: retention.Policy{Tracking: 30 * 24 * time.Hour},
	})
	if err != nil {
		panic(err)
	}
	err = svc.Observe(ctx, notify.Event{Site: "my-site", ExternalID: "ORD-1", TrackingNumber: "FP123",
		Trigger: "ALERT_OUT_FOR_DELIVERY", Time: clock.Now(), Email: "alva@example.com"})
	if err != nil {
		panic(err)
	}
	if _, err := svc.Dispatch(ctx); err != nil { // sent at start
		panic(err)
	}
	for _, days := range []int{29, 31} {
		n, err := svc.Sweep(ctx, start.Add(time.Duration(days)*24*time.Hour), 0)
		fmt.Printf("day %d: %d deleted, %v\n", days, n, err)
	}
	// Output:
	// day 29: 0 deleted, <nil>
	// day 31: 1 deleted, <nil>
}
