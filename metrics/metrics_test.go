package metrics_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/metrics"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// TestRegisterCountsNotifications: with an outbox, Register counts the
// notifications its events report, by channel and outcome, and shows the
// outbox's queue.
func TestRegisterCountsNotifications(t *testing.T) {
	ctx := t.Context()
	store := memory.New()
	at := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	d := outbox.New(store, outbox.Options{Clock: deliverykit.NewManualClock(at)})
	reg := prometheus.NewPedanticRegistry()
	if err := metrics.Register(reg, metrics.Sources{Outbox: d, Now: func() time.Time { return at }}); err != nil {
		t.Fatal(err)
	}
	payloads := []event.Payload{
		event.NotificationSent{NotificationID: "n1", Channel: "EMAIL", Attempts: 1},
		event.NotificationSent{NotificationID: "n2", Channel: "EMAIL", Attempts: 1},
		event.NotificationFailed{NotificationID: "n3", Channel: "SMS", Attempts: 1, Error: "gateway down"},
	}
	if err := store.Update(ctx, func(tx storage.Tx) error {
		for _, p := range payloads {
			ev, err := event.New("", "site-a", "TN1", at, p)
			if err != nil {
				return err
			}
			if err := outbox.Add(tx, ev); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := d.Dispatch(ctx); err != nil || n != 3 {
		t.Fatalf("Dispatch = %d, %v; want 3 delivered", n, err)
	}
	want := `
# HELP deliverykit_notifications_total Customer notification send attempts by channel and outcome (sent, failed).
# TYPE deliverykit_notifications_total counter
deliverykit_notifications_total{channel="EMAIL",outcome="sent"} 2
deliverykit_notifications_total{channel="SMS",outcome="failed"} 1
# HELP deliverykit_outbox_pending_events Events waiting for delivery or a retry (counted up to 10000).
# TYPE deliverykit_outbox_pending_events gauge
deliverykit_outbox_pending_events 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "deliverykit_notifications_total", "deliverykit_outbox_pending_events"); err != nil {
		t.Error(err)
	}
}

// viewCount is how many transactions the instrumented store timed as
// views.
func viewCount(t *testing.T, reg prometheus.Gatherer) uint64 {
	t.Helper()
	return kindCount(t, reg, "view")
}

// kindCount is how many transactions of kind the instrumented store
// timed.
func kindCount(t *testing.T, reg prometheus.Gatherer, kind string) uint64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != metrics.Namespace+"_store_transaction_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "kind" && l.GetValue() == kind {
					return m.GetHistogram().GetSampleCount()
				}
			}
		}
	}
	return 0
}

// TestStoreTimesGetAsView: storage.Get through the instrumented store
// reaches the store's own Get (one statement on PostgreSQL) and is timed
// as the view it is, found or not.
func TestStoreTimesGetAsView(t *testing.T) {
	base := storagetest.Getting(memory.New())
	reg := prometheus.NewPedanticRegistry()
	s, err := metrics.Store(base, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "k", []byte("v"), storage.AnyVersion)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		key     string
		wantErr error
	}{
		{"k", nil},
		{"missing", storage.ErrNotFound},
	} {
		rec, err := storage.Get(t.Context(), s, "c", tc.key)
		if !errors.Is(err, tc.wantErr) || (err == nil && string(rec.Value) != "v") {
			t.Errorf("storage.Get(%q) = %+v, %v; want %v", tc.key, rec, err, tc.wantErr)
		}
		if got, want := base.Gets(), int64(i+1); got != want {
			t.Errorf("after reading %q the store's Get ran %d times; want %d", tc.key, got, want)
		}
		if got, want := viewCount(t, reg), uint64(i+1); got != want {
			t.Errorf("after reading %q %d views were timed; want %d", tc.key, got, want)
		}
	}
}

// TestStoreTimesHeldAsUpdate: a transaction held through the instrumented
// store (storage.Beginner) is timed as one update when it ends, committed
// or rolled back, and its writes are the wrapped store's.
func TestStoreTimesHeldAsUpdate(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	s, err := metrics.Store(memory.New(), reg)
	if err != nil {
		t.Fatal(err)
	}
	for i, commit := range []bool{true, false} {
		h, err := storage.Begin(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.Put("c", strconv.FormatBool(commit), []byte("v"), storage.AnyVersion); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = h.Commit()
		} else {
			h.Rollback()
		}
		h.Rollback() // ended: neither timed nor an error
		if err != nil {
			t.Fatal(err)
		}
		if got, want := kindCount(t, reg, "update"), uint64(i+1); got != want {
			t.Errorf("after %d held transactions %d updates were timed; want %d", i+1, got, want)
		}
	}
	if _, err := storage.Get(t.Context(), s, "c", "true"); err != nil {
		t.Errorf("the committed write: %v", err)
	}
	if _, err := storage.Get(t.Context(), s, "c", "false"); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("the rolled back write: %v; want ErrNotFound", err)
	}
}

// TestStoreShared: the instrumented store passes the wrapped store's
// shared values on (storage.Owner).
func TestStoreShared(t *testing.T) {
	type key struct{}
	base := memory.New()
	s, err := metrics.Store(base, prometheus.NewPedanticRegistry())
	if err != nil {
		t.Fatal(err)
	}
	want, _ := storage.Shared(base, key{}, func() any { return new(int) })
	if got, ok := storage.Shared(s, key{}, func() any { return new(int) }); !ok || got != want {
		t.Errorf("Shared through the instrumented store = %v, %v; want the memory store's %v", got, ok, want)
	}
}
