package notify

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

const day = 24 * time.Hour

// settledAt reads every notification's status and settle time, and the
// time index entries, as stored.
func settledAt(t *testing.T, f *fixture) (map[string]string, []string) {
	t.Helper()
	got := map[string]string{}
	var entries []string
	err := f.svc.store.View(t.Context(), func(tx storage.Tx) error {
		for it, err := range notifications.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			at := ""
			if !it.Value.SettledAt.IsZero() {
				at = it.Value.SettledAt.Sub(t0).String()
			}
			got[it.Value.ID] = string(it.Value.Status) + " " + at
		}
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
	return got, entries
}

// TestSettleTimes: a notification gets its settle time, and its time
// index entry, when it is sent, when it is cancelled, and when its last
// attempt fails; not while it is pending or retried.
func TestSettleTimes(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.MaxAttempts = 2; o.PickupReminder = func(string) time.Duration { return 0 } })
	ctx := context.Background()
	steps := []struct {
		name string
		do   func() error
		want map[string]string // by id: status and settle time after t0
	}{
		{"observed: pending", func() error {
			return f.svc.Observe(ctx, event("STEP_DELIVERED_TO_PICKUP_POINT", t0))
		}, map[string]string{"ntf_000001": "PENDING "}},
		{"an hour later the parcel is collected: cancelled", func() error {
			f.clock.Set(t0.Add(time.Hour))
			return f.svc.Observe(ctx, event("STEP_DELIVERED_TO_CONSUMER", t0.Add(time.Hour)))
		}, map[string]string{"ntf_000001": "CANCELLED 1h0m0s", "ntf_000002": "PENDING "}},
		{"first attempt fails: retried", func() error {
			f.sender.setFail(true)
			_, err := f.svc.Dispatch(ctx)
			return err
		}, map[string]string{"ntf_000001": "CANCELLED 1h0m0s", "ntf_000002": "FAILED "}},
		{"last attempt fails: settled", func() error {
			f.clock.Set(t0.Add(2 * time.Hour))
			_, err := f.svc.Dispatch(ctx)
			return err
		}, map[string]string{"ntf_000001": "CANCELLED 1h0m0s", "ntf_000002": "FAILED 2h0m0s"}},
		{"a retrigger sent: settled", func() error {
			f.sender.setFail(false)
			f.clock.Set(t0.Add(3 * time.Hour))
			_, err := f.svc.Retrigger(ctx, "site-a", "ntf_000002")
			return err
		}, map[string]string{"ntf_000001": "CANCELLED 1h0m0s", "ntf_000002": "FAILED 2h0m0s", "ntf_000003": "TRIGGERED 3h0m0s"}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, entries := settledAt(t, f)
		if diff := cmp.Diff(st.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", st.name, diff)
		}
		settled := 0
		for _, v := range got {
			if v[len(v)-1] != ' ' {
				settled++
			}
		}
		// The parcel's state (it moved on) has an entry too.
		if len(entries) != settled+1 {
			t.Errorf("%s: %d time index entries for %d settled notifications and a parcel", st.name, len(entries), settled)
		}
	}

	// A retention of a day: the cancelled and the failed ones go, with
	// the parcel state; the retrigger, sent later, stays, and leads to
	// no dedup entry when it goes.
	f.svc.opts.Retention = retention.Policy{Tracking: day}
	if n, err := f.svc.Sweep(ctx, t0.Add(2*time.Hour+day), 0); err != nil || n != 3 {
		t.Errorf("Sweep = %d, %v; want two notifications and the parcel state", n, err)
	}
	got, _ := settledAt(t, f)
	if diff := cmp.Diff(map[string]string{"ntf_000003": "TRIGGERED 3h0m0s"}, got); diff != "" {
		t.Errorf("after the sweep (-want +got):\n%s", diff)
	}
	if n, err := f.svc.Sweep(ctx, t0.Add(3*time.Hour+day), 0); err != nil || n != 1 {
		t.Errorf("Sweep = %d, %v; want the retrigger", n, err)
	}
}

// TestRetentionNever keeps notifications forever.
func TestRetentionNever(t *testing.T) {
	f := newFixtureWith(t, func(o *Options) { o.Retention = retention.Policy{Tracking: retention.Never} })
	ctx := context.Background()
	if err := f.svc.Observe(ctx, event("ALERT_OUT_FOR_DELIVERY", t0)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := f.svc.Sweep(ctx, t0.Add(100*365*day), 0); err != nil || n != 0 {
		t.Errorf("Sweep = %d, %v; want nothing deleted", n, err)
	}
	if got := f.list(t, "site-a"); len(got) != 1 {
		t.Errorf("notifications after the sweep: %v", got)
	}
}
