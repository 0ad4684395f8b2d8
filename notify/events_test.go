package notify_test

import (
	"context"
	"errors"
	"fmt"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

var evT0 = time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)

const (
	evEmail = "alva@example.com"
	evPhone = "+46701234567"
)

// emitted is an event of the outbox as the tests compare it.
type emitted struct {
	Type          event.Type
	Site, Subject string
	Time          time.Time
	Payload       event.NotificationSettled
}

// evFixture is a notify service whose sender answers with the error the
// test sets (nil: sent).
type evFixture struct {
	svc   *notify.Service
	store storage.Store
	clock *deliverykit.ManualClock
	mu    sync.Mutex
	err   error
	// during, when set, runs inside Send (outside any transaction).
	during func(m notify.Message)
}

func newEvFixture(t *testing.T, store storage.Store) *evFixture {
	t.Helper()
	f := &evFixture{store: store, clock: deliverykit.NewManualClock(evT0)}
	send := notify.SenderFunc(func(_ context.Context, m notify.Message) error {
		f.mu.Lock()
		err, during := f.err, f.during
		f.mu.Unlock()
		if during != nil {
			during(m)
		}
		return err
	})
	svc, err := notify.New(store, notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: send, notify.ChannelSMS: send},
		Clock:   f.clock, IDs: &deliverykit.SequentialIDs{},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	return f
}

func (f *evFixture) fail(err error) { f.mu.Lock(); f.err = err; f.mu.Unlock() }

func (f *evFixture) observe(t *testing.T, ev notify.Event) {
	t.Helper()
	if err := f.svc.Observe(t.Context(), ev); err != nil {
		t.Fatal(err)
	}
}

func (f *evFixture) dispatch(t *testing.T) {
	t.Helper()
	if _, err := f.svc.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// emitted decodes what the service wrote to the outbox, in order. No
// payload may carry the receiver's address or phone number.
func (f *evFixture) emitted(t *testing.T) []emitted {
	t.Helper()
	evs, err := outbox.Pending(t.Context(), f.store, 1000)
	if err != nil {
		t.Fatal(err)
	}
	var out []emitted
	for _, ev := range evs {
		if s := string(ev.Payload); strings.Contains(s, evEmail) || strings.Contains(s, evPhone) {
			t.Errorf("event %s carries the recipient: %s", ev.ID, s)
		}
		var p event.NotificationSettled
		switch ev.Type {
		case event.TypeNotificationSent:
			v, err := event.Decode[event.NotificationSent](ev)
			if err != nil {
				t.Fatal(err)
			}
			p = event.NotificationSettled(v)
		case event.TypeNotificationFailed:
			v, err := event.Decode[event.NotificationFailed](ev)
			if err != nil {
				t.Fatal(err)
			}
			p = event.NotificationSettled(v)
		default:
			t.Fatalf("unexpected event type %s", ev.Type)
		}
		out = append(out, emitted{Type: ev.Type, Site: ev.Site, Subject: ev.Subject, Time: ev.Time, Payload: p})
	}
	return out
}

func parcelEvent(trigger string, at time.Time) notify.Event {
	return notify.Event{Site: "site-a", TosID: "tos_1", ExternalID: "ORD-1", TrackingNumber: "TN1", Trigger: trigger, Time: at,
		ReceiverName: "Alva", Email: evEmail, Phone: evPhone, Locale: "sv-SE"}
}

// settled is the event of notification id (OUT_FOR_DELIVERY of parcel
// TN1 unless changed by the caller).
func settled(typ event.Type, id string, ch notify.Channel, attempts int, reason string, at time.Time) emitted {
	return emitted{Type: typ, Site: "site-a", Subject: "TN1", Time: at, Payload: event.NotificationSettled{
		NotificationID: id, Name: string(notify.NameOutForDelivery), Channel: string(ch), ExternalID: "ORD-1",
		TrackingNumber: "TN1", Language: "sv", Attempts: attempts, Error: reason, At: at,
	}}
}

// TestSettleEvents: every settled send writes one event in the settling
// transaction — sent, or failed with the attempt count and a reason that
// quotes nothing of the sender's error — and a send that is not made, or
// whose notification changed meanwhile, writes none. Each case runs on a
// store whose transactions all run twice (the first rolled back): the
// events are the same, written once.
func TestSettleEvents(t *testing.T) {
	const sent, failed = event.TypeNotificationSent, event.TypeNotificationFailed
	at := evT0.Add(time.Hour)
	retry := at.Add(notify.DefaultRetryBase)
	generic := "the sender could not deliver the message"
	tests := []struct {
		name string
		run  func(t *testing.T, f *evFixture)
		want []emitted
	}{
		{
			name: "sent on both channels",
			run: func(t *testing.T, f *evFixture) {
				f.observe(t, parcelEvent("ALERT_OUT_FOR_DELIVERY", at))
				f.clock.Set(at)
				f.dispatch(t)
			},
			want: []emitted{
				settled(sent, "ntf_000001", notify.ChannelEmail, 1, "", at),
				settled(sent, "ntf_000002", notify.ChannelSMS, 1, "", at),
			},
		},
		{
			name: "failed, then sent on the retry",
			run: func(t *testing.T, f *evFixture) {
				f.observe(t, parcelEvent("ALERT_OUT_FOR_DELIVERY", at))
				f.clock.Set(at)
				f.fail(fmt.Errorf("dial smtp.internal:25 for %s: connection refused", evEmail))
				f.dispatch(t)
				f.clock.Set(retry)
				f.fail(nil)
				f.dispatch(t)
			},
			want: []emitted{
				settled(failed, "ntf_000001", notify.ChannelEmail, 1, generic, at),
				settled(failed, "ntf_000002", notify.ChannelSMS, 1, generic, at),
				settled(sent, "ntf_000001", notify.ChannelEmail, 2, "", retry),
				settled(sent, "ntf_000002", notify.ChannelSMS, 2, "", retry),
			},
		},
		{
			name: "failed twice",
			run: func(t *testing.T, f *evFixture) {
				f.observe(t, parcelEvent("ALERT_OUT_FOR_DELIVERY", at))
				f.clock.Set(at)
				f.fail(&textproto.Error{Code: 550, Msg: "5.1.1 <" + evEmail + ">: Recipient address rejected"})
				f.dispatch(t)
				f.clock.Set(retry)
				f.fail(&textproto.Error{Code: 451, Msg: "4.7.1 try again later"})
				f.dispatch(t)
			},
			want: []emitted{
				settled(failed, "ntf_000001", notify.ChannelEmail, 1, "the mail server refused the message (reply 550)", at),
				settled(failed, "ntf_000002", notify.ChannelSMS, 1, "the mail server refused the message (reply 550)", at),
				settled(failed, "ntf_000001", notify.ChannelEmail, 2, "the mail server deferred the message (reply 451)", retry),
				settled(failed, "ntf_000002", notify.ChannelSMS, 2, "the mail server deferred the message (reply 451)", retry),
			},
		},
		{
			name: "timed out",
			run: func(t *testing.T, f *evFixture) {
				f.observe(t, parcelEvent("ALERT_OUT_FOR_DELIVERY", at))
				f.clock.Set(at)
				f.fail(fmt.Errorf("sms gateway: %w", context.DeadlineExceeded))
				f.dispatch(t)
			},
			want: []emitted{
				settled(failed, "ntf_000001", notify.ChannelEmail, 1, "the send timed out", at),
				settled(failed, "ntf_000002", notify.ChannelSMS, 1, "the send timed out", at),
			},
		},
		{
			name: "no parcel: the order is the subject, English without a locale",
			run: func(t *testing.T, f *evFixture) {
				ev := parcelEvent("ALERT_OUT_FOR_DELIVERY", at)
				ev.TrackingNumber, ev.Phone, ev.Locale = "", "", ""
				f.observe(t, ev)
				f.clock.Set(at)
				f.dispatch(t)
			},
			want: func() []emitted {
				e := settled(sent, "ntf_000001", notify.ChannelEmail, 1, "", at)
				e.Subject, e.Payload.TrackingNumber, e.Payload.Language = "ORD-1", "", "en"
				return []emitted{e}
			}(),
		},
		{
			name: "retriggered",
			run: func(t *testing.T, f *evFixture) {
				ev := parcelEvent("ALERT_OUT_FOR_DELIVERY", at)
				ev.Phone = ""
				f.observe(t, ev)
				f.clock.Set(at)
				f.dispatch(t)
				f.clock.Set(retry)
				if _, err := f.svc.Retrigger(t.Context(), "site-a", "ntf_000001"); err != nil {
					t.Fatal(err)
				}
			},
			want: []emitted{
				settled(sent, "ntf_000001", notify.ChannelEmail, 1, "", at),
				settled(sent, "ntf_000002", notify.ChannelEmail, 1, "", retry),
			},
		},
		{
			name: "not due: nothing sent, nothing written",
			run: func(t *testing.T, f *evFixture) {
				f.observe(t, parcelEvent("ALERT_OUT_FOR_DELIVERY", at))
				f.dispatch(t)
			},
		},
		{
			name: "cancelled while being sent: not settled, nothing written",
			run: func(t *testing.T, f *evFixture) {
				ev := parcelEvent("STEP_DELIVERED_TO_PICKUP_POINT", at)
				ev.Phone = ""
				f.observe(t, ev) // READY_FOR_PICKUP now, PICKUP_REMINDER in 72 h
				f.clock.Set(at.Add(notify.DefaultPickupReminderDelay))
				if _, err := f.svc.RemindPickups(t.Context(), f.clock.Now()); err != nil {
					t.Fatal(err)
				}
				f.during = func(m notify.Message) {
					if m.Name == notify.NamePickupReminder {
						// The parcel is collected while its reminder is
						// being sent: the reminder is cancelled.
						f.observe(t, parcelEvent("STEP_DELIVERED_TO_CONSUMER", at.Add(time.Hour)))
					}
				}
				f.dispatch(t)
			},
			want: func() []emitted {
				e := settled(sent, "ntf_000001", notify.ChannelEmail, 1, "", at.Add(notify.DefaultPickupReminderDelay))
				e.Payload.Name = string(notify.NameReadyForPickup)
				return []emitted{e}
			}(),
		},
	}
	stores := []struct {
		name string
		open func() storage.Store
	}{
		{"memory", func() storage.Store { return memory.New() }},
		{"retried transactions", func() storage.Store { return storagetest.Retrying(memory.New()) }},
	}
	for _, st := range stores {
		for _, tc := range tests {
			t.Run(st.name+"/"+tc.name, func(t *testing.T) {
				f := newEvFixture(t, st.open())
				tc.run(t, f)
				if diff := cmp.Diff(tc.want, f.emitted(t)); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestSettleEventsRolledBack: a settle that fails writes neither the
// outcome nor its event; the send is retried and its outcome written then.
func TestSettleEventsRolledBack(t *testing.T) {
	at := evT0.Add(time.Hour)
	errDown := errors.New("store down")
	store := &failingStore{Store: memory.New()}
	f := newEvFixture(t, store)
	ev := parcelEvent("ALERT_OUT_FOR_DELIVERY", at)
	ev.Phone = ""
	f.observe(t, ev)
	f.clock.Set(at)
	// The claim commits; the settle after the send fails.
	f.during = func(notify.Message) { store.setFail(errDown) }
	if _, err := f.svc.Dispatch(t.Context()); !errors.Is(err, errDown) {
		t.Fatalf("Dispatch = %v, want %v", err, errDown)
	}
	store.setFail(nil)
	f.during = nil
	if diff := cmp.Diff([]emitted(nil), f.emitted(t)); diff != "" {
		t.Fatalf("events after the failed settle (-want +got):\n%s", diff)
	}
	// The claim expires and the send is made again.
	f.clock.Set(at.Add(notify.DefaultClaimTimeout))
	f.dispatch(t)
	want := []emitted{settled(event.TypeNotificationSent, "ntf_000001", notify.ChannelEmail, 1, "", at.Add(notify.DefaultClaimTimeout))}
	if diff := cmp.Diff(want, f.emitted(t)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// failingStore fails every Update while fail is set.
type failingStore struct {
	storage.Store
	mu   sync.Mutex
	fail error
}

func (s *failingStore) setFail(err error) { s.mu.Lock(); s.fail = err; s.mu.Unlock() }

func (s *failingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	s.mu.Lock()
	err := s.fail
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.Store.Update(ctx, fn)
}
