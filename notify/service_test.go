package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var t0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

// flakySender fails while fail is set and records what it sent.
type flakySender struct {
	mu   sync.Mutex
	fail bool
	sent []Message
}

func (f *flakySender) Send(_ context.Context, m Message) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return errors.New("mail server down")
	}
	f.sent = append(f.sent, m)
	return nil
}

func (f *flakySender) setFail(v bool) { f.mu.Lock(); f.fail = v; f.mu.Unlock() }

func (f *flakySender) names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, m := range f.sent {
		out = append(out, string(m.Name)+"/"+string(m.Channel)+"/"+m.Recipient)
	}
	return out
}

type fixture struct {
	svc    *Service
	clock  *deliverykit.ManualClock
	sender *flakySender
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{clock: deliverykit.NewManualClock(t0), sender: &flakySender{}}
	svc, err := New(memory.New(), Options{
		Senders: map[Channel]Sender{ChannelEmail: f.sender, ChannelSMS: f.sender},
		Clock:   f.clock,
		IDs:     &deliverykit.SequentialIDs{},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

func event(trigger string, at time.Time) Event {
	return Event{Site: "site-a", TosID: "tos_1", ExternalID: "ORD-1", TrackingNumber: "TN1", Trigger: trigger, Time: at,
		ReceiverName: "Alva", Email: "alva@example.com", Phone: "+46701234567", TrackingLink: "https://portal.example/p/tt_1"}
}

func (f *fixture) list(t *testing.T, site string) []Notification {
	t.Helper()
	res, err := f.svc.List(context.Background(), site, "ORD-1")
	if err != nil {
		t.Fatal(err)
	}
	return res.Notifications
}

func TestObserveAndDispatch(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	at := t0.Add(time.Hour)
	if err := f.svc.Observe(ctx, event("ALERT_OUT_FOR_DELIVERY", at)); err != nil {
		t.Fatal(err)
	}
	// The same event again makes nothing new; an unmapped one nothing.
	if err := f.svc.Observe(ctx, event("ALERT_OUT_FOR_DELIVERY", at)); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Observe(ctx, event("STEP_ON_ROUTE", at)); err != nil {
		t.Fatal(err)
	}
	want := []Notification{
		{ID: "ntf_000001", Status: StatusPending, Name: NameOutForDelivery, Channel: ChannelEmail, TrackingNumber: "TN1", ScheduledAt: "2026-11-20T09:00:00Z", Origin: OriginSystem},
		{ID: "ntf_000002", Status: StatusPending, Name: NameOutForDelivery, Channel: ChannelSMS, TrackingNumber: "TN1", ScheduledAt: "2026-11-20T09:00:00Z", Origin: OriginSystem},
	}
	if diff := cmp.Diff(want, f.list(t, "site-a")); diff != "" {
		t.Fatalf("pending (-want +got):\n%s", diff)
	}
	// Not due yet.
	if n, err := f.svc.Dispatch(ctx); n != 0 || err != nil {
		t.Fatalf("early dispatch = %d, %v", n, err)
	}
	f.clock.Set(at)
	if n, err := f.svc.Dispatch(ctx); n != 2 || err != nil {
		t.Fatalf("dispatch = %d, %v", n, err)
	}
	for i := range want {
		want[i].Status, want[i].TriggeredAt = StatusTriggered, "2026-11-20T09:00:00Z"
	}
	if diff := cmp.Diff(want, f.list(t, "site-a")); diff != "" {
		t.Errorf("triggered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"OUT_FOR_DELIVERY/EMAIL/alva@example.com", "OUT_FOR_DELIVERY/SMS/+46701234567"}, f.sender.names()); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
	if n, _ := f.svc.Dispatch(ctx); n != 0 {
		t.Errorf("second dispatch sent %d again", n)
	}
	if got := f.list(t, "site-b"); len(got) != 0 {
		t.Errorf("site-b sees %v", got)
	}
}

func TestChannelsFollowContacts(t *testing.T) {
	f := newFixture(t)
	ev := event("STEP_SUBMITTED_TO_CARRIER", t0)
	ev.Phone = ""
	if err := f.svc.Observe(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
	got := f.list(t, "site-a")
	if len(got) != 1 || got[0].Channel != ChannelEmail || got[0].Name != NameSubmittedToCarrier {
		t.Errorf("notifications = %+v", got)
	}
}

func TestFailureRetriedWithBackoff(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ev := event("STEP_DELIVERED_TO_CONSUMER", t0)
	ev.Phone = ""
	if err := f.svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	f.sender.setFail(true)
	steps := []struct {
		advance time.Duration
		sent    int
		status  Status
	}{
		{0, 0, StatusFailed},                // attempt 1 fails; retry after 1m
		{30 * time.Second, 0, StatusFailed}, // not due
		{30 * time.Second, 0, StatusFailed}, // attempt 2 fails; retry after 2m
		{time.Minute, 0, StatusFailed},      // not due
		{time.Minute, 0, StatusFailed},      // attempt 3 fails; retry after 4m
	}
	for i, st := range steps {
		f.clock.Advance(st.advance)
		n, err := f.svc.Dispatch(ctx)
		if err != nil || n != st.sent {
			t.Fatalf("step %d: dispatch = %d, %v", i, n, err)
		}
		if got := f.list(t, "site-a")[0].Status; got != st.status {
			t.Fatalf("step %d: status = %s, want %s", i, got, st.status)
		}
	}
	f.sender.setFail(false)
	f.clock.Advance(4 * time.Minute)
	if n, err := f.svc.Dispatch(ctx); n != 1 || err != nil {
		t.Fatalf("recovery dispatch = %d, %v", n, err)
	}
	got := f.list(t, "site-a")[0]
	if got.Status != StatusTriggered || got.TriggeredAt != "2026-11-20T08:07:00Z" {
		t.Errorf("after recovery = %+v", got)
	}
}

// TestQueuePolicy: notify's sends are leased for ClaimTimeout and retried
// without jitter, a shopper's notification due when the doc's table says
// (internal/queue tests the backoff the policy makes).
func TestQueuePolicy(t *testing.T) {
	s := &Service{opts: Options{RetryBase: time.Minute, RetryMax: time.Hour, ClaimTimeout: 3 * time.Minute, MaxAttempts: 4}}
	p := s.queue().Policy
	want := queue.Policy{Lease: 3 * time.Minute, RetryBase: time.Minute, RetryMax: time.Hour, MaxAttempts: 4}
	if diff := cmp.Diff(want, p, cmpopts.IgnoreFields(queue.Policy{}, "Jitter")); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	for range 3 {
		if j := p.Jitter(); j != 0 {
			t.Fatalf("jitter %v, want none", j)
		}
	}
	if got := p.Backoff(3); got != 4*time.Minute {
		t.Errorf("Backoff(3) = %s, want 4m", got)
	}
}

func TestPickupReminderCancelledOnDelivery(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ev := event("STEP_DELIVERED_TO_PICKUP_POINT", t0)
	ev.Phone = ""
	if err := f.svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if n, _ := f.svc.Dispatch(ctx); n != 1 {
		t.Fatalf("ready-for-pickup not sent (%d)", n)
	}
	ev = event("STEP_DELIVERED_TO_CONSUMER", t0.Add(24*time.Hour))
	ev.Phone = ""
	if err := f.svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(100 * time.Hour)
	// The parcel was collected before the reminder was due: none is made.
	if n, err := f.svc.RemindPickups(ctx, f.clock.Now()); n != 0 || err != nil {
		t.Fatalf("RemindPickups = %d, %v; want 0 reminders", n, err)
	}
	if n, _ := f.svc.Dispatch(ctx); n != 1 {
		t.Fatalf("delivered not sent (%d)", n)
	}
	var got []string
	for _, n := range f.list(t, "site-a") {
		got = append(got, string(n.Name)+" "+string(n.Status)+" "+n.ScheduledAt)
	}
	want := []string{
		"READY_FOR_PICKUP TRIGGERED 2026-11-20T08:00:00Z",
		"DELIVERED_TO_CONSUMER TRIGGERED 2026-11-21T08:00:00Z",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

func TestPickupReminderSentWhenWaiting(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ev := event("STEP_DELIVERED_TO_PICKUP_POINT", t0)
	ev.Phone = ""
	if err := f.svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	f.svc.Dispatch(ctx)
	f.clock.Advance(DefaultPickupReminderDelay - time.Second)
	if n, err := f.svc.RemindPickups(ctx, f.clock.Now()); n != 0 || err != nil {
		t.Fatalf("RemindPickups a second early = %d, %v; want 0", n, err)
	}
	f.clock.Advance(time.Second)
	for range 2 { // a second call reminds of nothing more
		if n, err := f.svc.RemindPickups(ctx, f.clock.Now()); err != nil {
			t.Fatal(err)
		} else if n > 1 {
			t.Fatalf("RemindPickups = %d, want one parcel reminded once", n)
		}
	}
	if n, _ := f.svc.Dispatch(ctx); n != 1 {
		t.Fatalf("reminder not sent (%d)", n)
	}
	if diff := cmp.Diff([]string{"READY_FOR_PICKUP/EMAIL/alva@example.com", "PICKUP_REMINDER/EMAIL/alva@example.com"}, f.sender.names()); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

func TestRetrigger(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	ev := event("ALERT_OUT_FOR_DELIVERY", t0)
	ev.Phone = ""
	if err := f.svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	f.svc.Dispatch(ctx)
	f.clock.Advance(time.Hour)
	id, err := f.svc.Retrigger(ctx, "site-a", "ntf_000001")
	if err != nil {
		t.Fatal(err)
	}
	want := []Notification{
		{ID: "ntf_000001", Status: StatusTriggered, Name: NameOutForDelivery, Channel: ChannelEmail, TrackingNumber: "TN1", ScheduledAt: "2026-11-20T08:00:00Z", TriggeredAt: "2026-11-20T08:00:00Z", Origin: OriginSystem},
		{ID: id, Status: StatusTriggered, Name: NameOutForDelivery, Channel: ChannelEmail, TrackingNumber: "TN1", ScheduledAt: "2026-11-20T09:00:00Z", TriggeredAt: "2026-11-20T09:00:00Z", Origin: OriginRetrigger},
	}
	if diff := cmp.Diff(want, f.list(t, "site-a")); diff != "" {
		t.Errorf("after retrigger (-want +got):\n%s", diff)
	}
	if id == "ntf_000001" || len(f.sender.names()) != 2 {
		t.Errorf("id = %s, sent = %v", id, f.sender.names())
	}
	for _, tt := range []struct {
		site, id string
		want     error
	}{
		{"site-a", "ntf_nope", deliverykit.ErrNotFound},
		{"site-b", "ntf_000001", deliverykit.ErrNotFound},
		{"site-a", "", deliverykit.ErrInvalidArgument},
	} {
		if _, err := f.svc.Retrigger(ctx, tt.site, tt.id); !errors.Is(err, tt.want) {
			t.Errorf("Retrigger(%s, %q) err = %v, want %v", tt.site, tt.id, err, tt.want)
		}
	}
	// A retrigger whose send fails is kept FAILED and retried.
	f.sender.setFail(true)
	id2, err := f.svc.Retrigger(ctx, "site-a", "ntf_000001")
	if err != nil {
		t.Fatal(err)
	}
	got := f.list(t, "site-a")
	if last := got[len(got)-1]; last.ID != id2 || last.Status != StatusFailed {
		t.Errorf("failed retrigger = %+v", last)
	}
}

func TestListRequiresExternalID(t *testing.T) {
	f := newFixture(t)
	if _, err := f.svc.List(context.Background(), "site-a", ""); !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("err = %v", err)
	}
}

// Step queues the pickup reminders due and sends what is due, the
// reminder among it; a second Step at the same time does nothing.
func TestStepRemindsAndSends(t *testing.T) {
	f := newFixture(t)
	sent := make(chan Message, 4)
	svc, err := New(memory.New(), Options{
		Senders: map[Channel]Sender{ChannelEmail: SenderFunc(func(_ context.Context, m Message) error { sent <- m; return nil })},
		Clock:   f.clock,
		IDs:     &deliverykit.SequentialIDs{},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ev := event("STEP_DELIVERED_TO_PICKUP_POINT", f.clock.Now())
	if err := svc.Observe(ctx, ev); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(DefaultPickupReminderDelay)
	var got []string
	for _, want := range []int{3, 0} { // one parcel reminded, two messages sent; then nothing
		n, err := svc.Step(ctx)
		if err != nil || n != want {
			t.Fatalf("Step = %d, %v; want %d", n, err, want)
		}
	}
	close(sent)
	for m := range sent {
		got = append(got, string(m.Name)+" "+m.Recipient)
	}
	want := []string{"READY_FOR_PICKUP alva@example.com", "PICKUP_REMINDER alva@example.com"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}

func TestLogSender(t *testing.T) {
	var buf syncBuffer
	ls := NewLogSender(slog.New(slog.NewTextHandler(&buf, nil)))
	if err := ls.Send(context.Background(), Message{NotificationID: "n1", Name: NameOutForDelivery, Channel: ChannelEmail, Recipient: "secret@example.com"}); err != nil {
		t.Fatal(err)
	}
	if len(ls.Sent()) != 1 {
		t.Errorf("sent = %v", ls.Sent())
	}
	if s := buf.String(); !contains(s, "OUT_FOR_DELIVERY") || contains(s, "secret@example.com") {
		t.Errorf("log = %q", s)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b = append(s.b, p...)
	return len(p), nil
}

func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return string(s.b) }

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestConcurrentDispatchSendsOnce runs two dispatchers over the same due
// notifications: the claim makes each notification go out once.
func TestConcurrentDispatchSendsOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for i := range 40 {
		ev := event("ALERT_OUT_FOR_DELIVERY", t0)
		ev.ExternalID = fmt.Sprintf("ORD-%d", i)
		ev.Phone = ""
		if err := f.svc.Observe(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for {
				n, err := f.svc.Dispatch(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
			}
		})
	}
	wg.Wait()
	if got := len(f.sender.names()); got != 40 {
		t.Errorf("sent %d messages, want 40", got)
	}
}
