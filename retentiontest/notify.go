package retentiontest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// notifyColls are the collections notify keeps for its notifications and
// parcels: the records, then every index.
var notifyColls = []string{"notify.notifications", "notify.parcels", "notify.by_order", "notify.by_parcel", "notify.due", "notify.dedup", "notify.expiry"}

// newNotify sends e-mails and fails every SMS; a notification is tried
// twice; one Dispatch sends every due one.
func newNotify(t *testing.T, store storage.Store, clock deliverykit.Clock, ids deliverykit.IDSource) *notify.Service {
	t.Helper()
	ok := notify.SenderFunc(func(context.Context, notify.Message) error { return nil })
	fail := notify.SenderFunc(func(context.Context, notify.Message) error { return errors.New("no SMS gateway") })
	svc, err := notify.New(store, notify.Options{
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: ok, notify.ChannelSMS: fail}, MaxAttempts: 2, Batch: 1000,
		PickupReminder: func(string) time.Duration { return 0 },
		Clock:          clock, IDs: ids, Retention: retention.Policy{Tracking: trackingKeep},
	})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func observe(t *testing.T, svc *notify.Service, ext, number, trigger string, at time.Time, phone string) {
	t.Helper()
	err := svc.Observe(t.Context(), notify.Event{Site: site, ExternalID: ext, TrackingNumber: number, Trigger: trigger, Time: at,
		Email: "a@example.com", Phone: phone, ReceiverName: "Alva"})
	if err != nil {
		t.Fatal(err)
	}
}

func dispatch(t *testing.T, svc *notify.Service) {
	t.Helper()
	if _, err := svc.Dispatch(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// testNotify: notifications go Keep after they settled (sent, cancelled,
// failed for good) with every index entry; one still being retried
// stays; a parcel's state goes Keep after its last superseding step.
func testNotify(t *testing.T, store storage.Store) {
	clock := deliverykit.NewManualClock(start)
	svc := newNotify(t, store, clock, &deliverykit.SequentialIDs{})
	observe(t, svc, "ext-1", "TN1", "STEP_SUBMITTED_TO_CARRIER", start, "+46701234567")
	observe(t, svc, "ext-2", "TN2", "STEP_DELIVERED_TO_PICKUP_POINT", start, "")
	clock.Set(start.Add(time.Hour))
	// Delivered: the pickup notice is cancelled, the parcel moved on.
	observe(t, svc, "ext-2", "TN2", "STEP_DELIVERED_TO_CONSUMER", start.Add(time.Hour), "")
	dispatch(t, svc) // TN1's e-mail and TN2's delivery sent; TN1's SMS failed once
	checkNotifyIndexes(t, store)

	clock.Set(start.Add(2 * day))
	dispatch(t, svc) // TN1's SMS failed for good
	checkNotifyIndexes(t, store)

	if n := sweep(t, svc, start.Add(time.Hour+trackingKeep-time.Minute)); n != 0 {
		t.Errorf("sweep before anything is due deleted %d", n)
	}
	// TN1's e-mail, TN2's two notifications and its parcel state.
	if n := sweep(t, svc, start.Add(time.Hour+trackingKeep+time.Minute)); n != 4 {
		t.Errorf("sweep Keep after they settled deleted %d records, want 4", n)
	}
	list := func(ext string) []notify.Name {
		res, err := svc.List(t.Context(), site, ext)
		if err != nil {
			t.Fatal(err)
		}
		var names []notify.Name
		for _, n := range res.Notifications {
			names = append(names, n.Name+"/"+notify.Name(n.Channel))
		}
		return names
	}
	if diff := cmp.Diff([]notify.Name{"SUBMITTED_TO_CARRIER/SMS"}, list("ext-1")); diff != "" {
		t.Errorf("notifications of ext-1 (-want +got):\n%s", diff)
	}
	if got := list("ext-2"); len(got) != 0 {
		t.Errorf("notifications of ext-2 after the sweep: %v", got)
	}
	checkNotifyIndexes(t, store)
	if n := sweep(t, svc, start.Add(2*day+trackingKeep+time.Minute)); n != 1 {
		t.Errorf("last sweep deleted %d, want 1", n)
	}
	for _, coll := range notifyColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q after every notification was swept", coll, keys)
		}
	}
}

// storedNotification is what checkNotifyIndexes reads of a notification.
type storedNotification struct {
	ID             string    `json:"id"`
	Site           string    `json:"site"`
	Status         string    `json:"status"`
	Name           string    `json:"name"`
	Channel        string    `json:"channel"`
	TrackingNumber string    `json:"tracking_number"`
	ExternalID     string    `json:"external_id"`
	NextAttempt    time.Time `json:"next_attempt"`
	SettledAt      time.Time `json:"settled_at"`
}

// checkNotifyIndexes checks that the notifications and their index
// entries match one to one: by order, by parcel, due while open, in the
// time index at their settle time once settled, dedup entries of stored
// ones; and the parcel states and their time index entries.
func checkNotifyIndexes(t *testing.T, store storage.Store) {
	t.Helper()
	ix := retention.Index{Name: "notify.expiry"}
	ids := map[string]bool{}
	var want, got struct{ expiry, byOrder, byParcel, due []string }
	for _, rec := range scan(t, store, "notify.notifications") {
		var n storedNotification
		if err := json.Unmarshal(rec.Value, &n); err != nil {
			t.Fatal(err)
		}
		ids[n.ID] = true
		want.byOrder = append(want.byOrder, storage.Key(n.Site, n.ExternalID, n.ID))
		if n.TrackingNumber != "" {
			want.byParcel = append(want.byParcel, storage.Key(n.Site, n.TrackingNumber, n.ID))
		}
		if open := n.Status == "PENDING" || n.Status == "FAILED" && !n.NextAttempt.IsZero(); open {
			want.due = append(want.due, queue.Key(n.NextAttempt, n.Site, n.ID))
		} else {
			if n.SettledAt.IsZero() {
				t.Errorf("settled notification %s (%s) has no settled_at", n.ID, n.Status)
			}
			want.expiry = append(want.expiry, ix.Key(retention.Entry{Class: "settled", At: n.SettledAt}, rec.Key))
		}
	}
	for _, rec := range scan(t, store, "notify.parcels") {
		var p struct {
			MovedOnAt time.Time `json:"moved_on_at"`
		}
		if err := json.Unmarshal(rec.Value, &p); err != nil {
			t.Fatal(err)
		}
		want.expiry = append(want.expiry, ix.Key(retention.Entry{Class: "parcel", At: p.MovedOnAt}, rec.Key))
	}
	got.expiry, got.byOrder, got.byParcel, got.due = scanKeys(t, store, "notify.expiry"), scanKeys(t, store, "notify.by_order"),
		scanKeys(t, store, "notify.by_parcel"), scanKeys(t, store, "notify.due")
	for name, pair := range map[string][2][]string{
		"notify.expiry": {want.expiry, got.expiry}, "notify.by_order": {want.byOrder, got.byOrder},
		"notify.by_parcel": {want.byParcel, got.byParcel}, "notify.due": {want.due, got.due},
	} {
		if diff := cmp.Diff(sorted(pair[0]), sorted(pair[1])); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	for _, rec := range scan(t, store, "notify.dedup") {
		var d struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(rec.Value, &d); err != nil {
			t.Fatal(err)
		}
		if !ids[d.ID] {
			t.Errorf("dangling dedup entry %q → %s", strings.ReplaceAll(rec.Key, storage.KeySep, "/"), d.ID)
		}
	}
}

// testNotifyBackfill: notifications and parcel states stored before they
// had a time index (entries and settled_at removed here) are indexed by
// the first sweep, counting from when they were sent, and swept when due.
func testNotifyBackfill(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	ids := &deliverykit.SequentialIDs{}
	svc := newNotify(t, store, clock, ids)
	const n = retention.Batch + 3 // more than one backfill transaction
	for i := range n {
		observe(t, svc, "ext-"+storage.Uint64Key(uint64(i)), "TN", "STEP_DELIVERED_TO_CONSUMER", start, "")
	}
	dispatch(t, svc) // sent at start
	clock.Set(start.Add(day))
	observe(t, svc, "ext-late", "TN", "STEP_SUBMITTED_TO_CARRIER", start.Add(day), "")
	dispatch(t, svc) // sent a day later
	err := store.Update(ctx, func(tx storage.Tx) error {
		for _, key := range scanKeys(t, store, "notify.expiry") {
			if err := tx.Delete("notify.expiry", key, storage.AnyVersion); err != nil {
				return err
			}
		}
		for _, rec := range scan(t, store, "notify.notifications") {
			var o map[string]any
			if err := json.Unmarshal(rec.Value, &o); err != nil {
				return err
			}
			delete(o, "settled_at")
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if _, err := tx.Put("notify.notifications", rec.Key, b, storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	svc = newNotify(t, store, clock, ids) // as after an upgrade
	// n notifications and n parcel states.
	if got := sweep(t, svc, start.Add(trackingKeep+time.Minute)); got != 2*n {
		t.Errorf("first sweep deleted %d records, want %d", got, 2*n)
	}
	if diff := cmp.Diff([]string{"notify.expiry", "notify.expiry.parcels"}, scanKeys(t, store, "retention.backfills")); diff != "" {
		t.Errorf("backfill marks (-want +got):\n%s", diff)
	}
	if got := sweep(t, svc, start.Add(day+trackingKeep+time.Minute)); got != 1 {
		t.Errorf("second sweep deleted %d records, want 1", got)
	}
	for _, coll := range notifyColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %d records after every notification was swept", coll, len(keys))
		}
	}
}

// testNotifyCost: a sweep touches as many records for 5 due notifications
// among 20 live ones as among 120, and a bounded number per deletion.
func testNotifyCost(t *testing.T, newStore NewStore) {
	const due = 5
	touched := func(live int) int64 {
		store := newStore(t)
		clock := deliverykit.NewManualClock(start)
		svc := newNotify(t, store, clock, &deliverykit.SequentialIDs{})
		for i := range due + live {
			if i == due {
				dispatch(t, svc)
				clock.Advance(5 * day) // the live ones settle later
			}
			observe(t, svc, "ext-"+storage.Uint64Key(uint64(i)), "TN", "STEP_SUBMITTED_TO_CARRIER", clock.Now(), "")
		}
		dispatch(t, svc)
		if got := sweep(t, svc, start); got != 0 { // backfills, once
			t.Fatalf("sweep before anything is due deleted %d", got)
		}
		counting := &Counting{Store: store}
		svc = newNotify(t, counting, clock, &deliverykit.SequentialIDs{})
		counting.Touched.Store(0)
		if got := sweep(t, svc, start.Add(trackingKeep+time.Minute)); got != due {
			t.Fatalf("sweep deleted %d notifications, want %d", got, due)
		}
		return counting.Touched.Load()
	}
	small, large := touched(20), touched(120)
	if small != large {
		t.Errorf("a sweep of %d notifications touched %d records among 20 live ones and %d among 120: it should not depend on what is stored", due, small, large)
	}
	// Per deleted notification: its entry read twice and deleted, the
	// notification read and deleted, its order, parcel entries deleted,
	// its dedup entry read and deleted; plus the two backfill marks and
	// the first entry past the cutoff per class.
	if limit := int64(9*due + 4); large > limit {
		t.Errorf("a sweep of %d notifications touched %d records, want at most %d", due, large, limit)
	}
}
