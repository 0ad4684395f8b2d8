package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// newFixtureWith is newFixture with options changed by opt.
func newFixtureWith(t *testing.T, opt func(*Options)) *fixture {
	t.Helper()
	f := &fixture{clock: deliverykit.NewManualClock(t0), sender: &flakySender{}}
	o := Options{Senders: map[Channel]Sender{ChannelEmail: f.sender}, Clock: f.clock, IDs: &deliverykit.SequentialIDs{}}
	opt(&o)
	svc, err := New(memory.New(), o)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

// states lists the notifications of ORD-1 as "NAME STATUS".
func (f *fixture) states(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, n := range f.list(t, "site-a") {
		out = append(out, string(n.Name)+" "+string(n.Status))
	}
	return out
}

// A notification of a parcel that moved on before it was sent is
// CANCELLED: when the step that moves it on arrives, and when its own
// event arrives only after that step.
func TestCancelledWhenTheParcelMovedOn(t *testing.T) {
	tests := []struct {
		name   string
		events []Event
		want   []string
	}{
		{"out for delivery, then delivered before the send", []Event{
			event("ALERT_OUT_FOR_DELIVERY", t0),
			event("STEP_DELIVERED_TO_CONSUMER", t0.Add(time.Hour)),
		}, []string{"OUT_FOR_DELIVERY CANCELLED", "DELIVERED_TO_CONSUMER PENDING"}},
		{"out for delivery reported after the delivery", []Event{
			event("STEP_DELIVERED_TO_CONSUMER", t0.Add(time.Hour)),
			event("ALERT_OUT_FOR_DELIVERY", t0),
		}, []string{"OUT_FOR_DELIVERY CANCELLED", "DELIVERED_TO_CONSUMER PENDING"}},
		{"a step that does not move the parcel on", []Event{
			event("STEP_CONFIRMED_BY_MERCHANT", t0),
			event("STEP_SUBMITTED_TO_CARRIER", t0.Add(time.Hour)),
		}, []string{"CONFIRMED_BY_MERCHANT PENDING", "SUBMITTED_TO_CARRIER PENDING"}},
		{"another parcel of the order moved on", []Event{
			event("ALERT_OUT_FOR_DELIVERY", t0),
			func() Event {
				e := event("STEP_DELIVERED_TO_CONSUMER", t0.Add(time.Hour))
				e.TrackingNumber = "TN2"
				return e
			}(),
		}, []string{"OUT_FOR_DELIVERY PENDING", "DELIVERED_TO_CONSUMER PENDING"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(*Options) {})
			for _, e := range tt.events {
				if err := f.svc.Observe(t.Context(), e); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, f.states(t)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}

// A channel failure is retried with backoff; after the last attempt the
// notification stays FAILED and Dispatch leaves it alone.
func TestFailedAfterRetries(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.MaxAttempts = 3 })
	ctx := t.Context()
	f.sender.setFail(true)
	if err := f.svc.Observe(ctx, event("ALERT_OUT_FOR_DELIVERY", t0)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, wait := range []time.Duration{0, time.Minute, 2 * time.Minute, 24 * time.Hour} {
		f.clock.Advance(wait)
		if _, err := f.svc.Dispatch(ctx); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join(f.states(t), ","))
	}
	want := []string{"OUT_FOR_DELIVERY FAILED", "OUT_FOR_DELIVERY FAILED", "OUT_FOR_DELIVERY FAILED", "OUT_FOR_DELIVERY FAILED"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
	f.sender.setFail(false)
	f.clock.Advance(24 * time.Hour)
	if n, _ := f.svc.Dispatch(ctx); n != 0 {
		t.Errorf("Dispatch sent %d notifications after the last attempt, want 0", n)
	}
	// A retrigger sends it again.
	if _, err := f.svc.Retrigger(ctx, "site-a", f.list(t, "site-a")[0].ID); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"OUT_FOR_DELIVERY FAILED", "OUT_FOR_DELIVERY TRIGGERED"}, f.states(t)); diff != "" {
		t.Errorf("after retrigger (-want +got):\n%s", diff)
	}
}

// GET /notifications takes exactly one of external_id and
// tracking_number.
func TestListNotificationsQuery(t *testing.T) {
	f := newFixtureWith(t, func(*Options) {})
	ctx := t.Context()
	for _, e := range []Event{event("ALERT_OUT_FOR_DELIVERY", t0), func() Event {
		e := event("ALERT_OUT_FOR_DELIVERY", t0.Add(time.Hour))
		e.TrackingNumber = "TN2"
		return e
	}()} {
		if err := f.svc.Observe(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		q          ListQuery
		wantNumber []string
		wantFields []string
	}{
		{"by order", ListQuery{ExternalID: "ORD-1"}, []string{"TN1", "TN2"}, nil},
		{"by parcel", ListQuery{TrackingNumber: "TN2"}, []string{"TN2"}, nil},
		{"unknown parcel", ListQuery{TrackingNumber: "TN9"}, nil, nil},
		{"both", ListQuery{ExternalID: "ORD-1", TrackingNumber: "TN1"}, nil, []string{"external_id excluded_with", "tracking_number excluded_with"}},
		{"neither", ListQuery{}, nil, []string{"external_id required_without"}},
		{"too long", ListQuery{TrackingNumber: strings.Repeat("9", 200)}, nil, []string{"tracking_number max"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := f.svc.ListNotifications(ctx, "site-a", tt.q)
			if tt.wantFields != nil {
				var got []string
				for _, v := range deliverykit.ViolationsOf(err) {
					got = append(got, v.Field+" "+v.Rule)
				}
				if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
					t.Fatalf("err = %v, want InvalidArgument", err)
				}
				if diff := cmp.Diff(tt.wantFields, got); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range res.Notifications {
				got = append(got, n.TrackingNumber)
			}
			if diff := cmp.Diff(tt.wantNumber, got); diff != "" {
				t.Errorf("tracking numbers (-want +got):\n%s", diff)
			}
		})
	}
	if res, err := f.svc.ListNotifications(ctx, "site-b", ListQuery{TrackingNumber: "TN1"}); err != nil || len(res.Notifications) != 0 {
		t.Errorf("another site's parcel: %v, %v; want none", res, err)
	}
}

// The pickup reminder waits the catalog's days for the site, and none is
// made for a parcel collected in time.
func TestRemindPickupsCatalogDays(t *testing.T) {
	cats := map[string]*catalog.Catalog{"site-a": {Notifications: &catalog.Notifications{PickupReminderDays: 5}}}
	tests := []struct {
		name      string
		collected time.Duration // after arrival; 0: never
		at        time.Duration
		want      []string
	}{
		{"not yet", 0, 5*24*time.Hour - time.Minute, []string{"READY_FOR_PICKUP TRIGGERED"}},
		{"after five days", 0, 5 * 24 * time.Hour, []string{"READY_FOR_PICKUP TRIGGERED", "PICKUP_REMINDER TRIGGERED"}},
		{"collected in time", 2 * 24 * time.Hour, 6 * 24 * time.Hour, []string{"READY_FOR_PICKUP TRIGGERED", "DELIVERED_TO_CONSUMER TRIGGERED"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixtureWith(t, func(o *Options) { o.PickupReminder = CatalogPickupReminders(cats) })
			ctx := t.Context()
			if got := f.svc.PickupReminderAfter("site-a"); got != 5*24*time.Hour {
				t.Fatalf("PickupReminderAfter = %v", got)
			}
			if got := f.svc.PickupReminderAfter("site-z"); got != DefaultPickupReminderDelay {
				t.Fatalf("PickupReminderAfter(no catalog) = %v", got)
			}
			run := func() {
				t.Helper()
				if _, err := f.svc.RemindPickups(ctx, f.clock.Now()); err != nil {
					t.Fatal(err)
				}
				if _, err := f.svc.Dispatch(ctx); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.svc.Observe(ctx, event("STEP_DELIVERED_TO_PICKUP_POINT", t0)); err != nil {
				t.Fatal(err)
			}
			run()
			if tt.collected > 0 {
				f.clock.Advance(tt.collected)
				if err := f.svc.Observe(ctx, event("STEP_DELIVERED_TO_CONSUMER", t0.Add(tt.collected))); err != nil {
					t.Fatal(err)
				}
				run()
			}
			f.clock.Set(t0.Add(tt.at))
			run()
			if diff := cmp.Diff(tt.want, f.states(t)); diff != "" {
				t.Errorf("notifications (-want +got):\n%s", diff)
			}
		})
	}
}

// An arrival at a pickup point reported after the parcel was delivered
// starts no wait: no reminder follows, and its READY_FOR_PICKUP is
// CANCELLED. A step without rules of a parcel not waiting writes nothing.
func TestLateArrivalAtPickupPoint(t *testing.T) {
	f := newFixtureWith(t, func(*Options) {})
	ctx := t.Context()
	for _, e := range []Event{
		event("STEP_DELIVERED_TO_CONSUMER", t0.Add(time.Hour)),
		event("STEP_DELIVERED_TO_PICKUP_POINT", t0),
		event("STEP_ON_ROUTE", t0.Add(-time.Hour)),
	} {
		if err := f.svc.Observe(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.Set(t0.Add(30 * 24 * time.Hour))
	if n, err := f.svc.RemindPickups(ctx, f.clock.Now()); n != 0 || err != nil {
		t.Errorf("RemindPickups = %d, %v; want no reminder", n, err)
	}
	if diff := cmp.Diff([]string{"READY_FOR_PICKUP CANCELLED", "DELIVERED_TO_CONSUMER PENDING"}, f.states(t)); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}
