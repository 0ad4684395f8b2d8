package tracking

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// storedActiveAt reads the order's activity time and its time index
// entries as stored.
func storedActiveAt(t *testing.T, f *fixture, tos string) (time.Time, []string) {
	t.Helper()
	var at time.Time
	var entries []string
	err := f.svc.store.View(t.Context(), func(tx storage.Tx) error {
		it, err := orders.Get(tx, storage.Key("site-a", tos))
		if err != nil {
			return err
		}
		at = it.Value.ActiveAt
		entries = entries[:0]
		for rec, err := range tx.Scan(expiry.Name, storage.Range{}) {
			if err != nil {
				return err
			}
			entries = append(entries, rec.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return at, entries
}

// TestActivityMovesTheOrder: registering a parcel moves the order's
// retention entry; a carrier event moves it when it is a day or more
// after the order's activity, else leaves it (the sweep finds the later
// event on the parcel).
func TestActivityMovesTheOrder(t *testing.T) {
	f := newFixture(t)
	tos := f.setup(t)
	tests := []struct {
		name  string
		after time.Duration // from t0, when the event arrives
		step  Step
		want  time.Duration // the order's ActiveAt, from t0
	}{
		{"registration", 0, "", 0},
		{"an event within a day leaves it", 23 * time.Hour, StepSubmittedToCarrier, 0},
		{"an event a day later moves it", 25 * time.Hour, StepOnRoute, 25 * time.Hour},
		{"an event that changes nothing leaves it", 3 * day, StepOnRoute, 25 * time.Hour},
		{"delivery moves it", 4 * day, StepDeliveredToPickupPoint, 4 * day},
	}
	for _, tt := range tests {
		f.clock.Set(t0.Add(tt.after))
		if tt.step != "" {
			ev := Event{TrackingNumber: "TN1", Step: tt.step, Time: t0.Add(tt.after).Format(time.RFC3339)}
			if tt.name == "an event that changes nothing leaves it" {
				ev.Time = t0.Add(25 * time.Hour).Format(time.RFC3339) // the same event again
			}
			if err := f.svc.RecordEvent(t.Context(), "site-a", ev); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
		}
		at, entries := storedActiveAt(t, f, tos)
		if !at.Equal(t0.Add(tt.want)) {
			t.Errorf("%s: active_at %s, want %s", tt.name, at, t0.Add(tt.want))
		}
		want := []string{expiry.Key(retention.Entry{Class: classOrder, At: t0.Add(tt.want)}, storage.Key("site-a", tos))}
		if diff := cmp.Diff(want, entries); diff != "" {
			t.Errorf("%s: time index (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestSweepDeletesEveryLinkToken: the order's own link, a rotated one and
// one handed out for a booked parcel are all listed under the order and
// go with it; the page of each says not found.
func TestSweepDeletesEveryLinkToken(t *testing.T) {
	f := newFixture(t)
	f.svc.opts.Retention = retention.Policy{Tracking: 30 * day}
	tos := f.setup(t)
	ctx := t.Context()
	if _, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{SiteID: "site-a", Locale: "sv-SE", OrderID: tos, Rotate: true}); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.addLinkToken(ctx, "site-a", tos, "tt_booked", "TN1"); err != nil {
		t.Fatal(err)
	}
	var listed, stored []string
	err := f.svc.store.View(ctx, func(tx storage.Tx) error {
		for rec, err := range tx.Scan(orderTokens.Name, storage.Range{}) {
			if err != nil {
				return err
			}
			listed = append(listed, rec.Key[strings.LastIndex(rec.Key, storage.KeySep)+1:])
		}
		for rec, err := range tx.Scan(tokens.Name, storage.Range{}) {
			if err != nil {
				return err
			}
			stored = append(stored, rec.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 3 {
		t.Fatalf("tokens %q, want the first link, the rotated one and the booked one", stored)
	}
	if diff := cmp.Diff(stored, listed); diff != "" {
		t.Errorf("tokens listed under the order (-stored +listed):\n%s", diff)
	}
	for _, tt := range []struct {
		at   time.Duration
		want int
	}{{30*day - time.Minute, 0}, {30*day + time.Minute, 1}} {
		if n, err := f.svc.Sweep(ctx, t0.Add(tt.at), 0); err != nil || n != tt.want {
			t.Errorf("Sweep at +%s = %d, %v; want %d", tt.at, n, err, tt.want)
		}
	}
	for _, token := range stored {
		if _, err := f.svc.OrderByToken(ctx, token, ""); !errors.Is(err, deliverykit.ErrNotFound) || errors.Is(err, ErrLinkExpired) {
			t.Errorf("page of swept token %s: %v, want NotFound", token, err)
		}
	}
	if res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{Email: "alva@example.com"}); err != nil || len(res.Orders) != 0 {
		t.Errorf("orders by e-mail after the sweep: %v, %v; want none", res, err)
	}
}

// TestRetentionNever keeps orders forever.
func TestRetentionNever(t *testing.T) {
	f := newFixture(t)
	f.svc.opts.Retention = retention.Policy{Tracking: retention.Never}
	f.setup(t)
	if n, err := f.svc.Sweep(t.Context(), t0.Add(100*365*day), 0); err != nil || n != 0 {
		t.Errorf("Sweep = %d, %v; want nothing deleted", n, err)
	}
}
