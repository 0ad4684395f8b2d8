package retentiontest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/tracking"
)

// trackingKeep is how long the tracking suite keeps orders and
// notifications after their last activity.
const trackingKeep = 10 * day

// trackingColls are the collections the tracking area keeps for its
// orders: the records, then every index.
var trackingColls = []string{"tracking.orders", "tracking.parcels", "tracking.tokens", "tracking.order_tokens",
	"tracking.orders_by_external_id", "tracking.orders_by_email", "tracking.expiry"}

func newTracking(t *testing.T, store storage.Store, clock deliverykit.Clock, ids deliverykit.IDSource) *tracking.Service {
	t.Helper()
	svc, err := tracking.New(store, tracking.Options{
		Products: tracking.StaticProducts{"home": {Ref: "home", CarrierID: "fastpost", CarrierName: "FastPost", DeliveryType: tracking.DeliveryDelivery}},
		Clock:    clock, IDs: ids, Retention: retention.Policy{Tracking: trackingKeep},
	})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func orderRequest(ext, email string) tracking.CreateTrackingOrderRequest {
	return tracking.CreateTrackingOrderRequest{
		ExternalID: ext, CarrierProductRef: "home", Sender: &tracking.Sender{Name: "Shop"},
		Receiver:     &tracking.Receiver{Name: "Alva Berg", Email: email},
		Destination:  &tracking.Destination{Address: &tracking.Address{City: "Uppsala", Country: "SE"}},
		DeliveryType: tracking.OrderDeliveryDelivery,
	}
}

// trackingFixture registers orders and parcels on one service.
type trackingFixture struct {
	t     *testing.T
	svc   *tracking.Service
	clock *deliverykit.ManualClock
}

func (f *trackingFixture) order(ext, email string) string {
	f.t.Helper()
	id, err := f.svc.CreateOrder(f.t.Context(), site, orderRequest(ext, email))
	if err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *trackingFixture) parcel(tos, number string) {
	f.t.Helper()
	err := f.svc.CreateParcel(f.t.Context(), site, tracking.CreateParcelRequest{TosID: tos, TrackingNumber: number,
		CarrierProductRef: "home", DirectionType: tracking.DirectionOutbound})
	if err != nil {
		f.t.Fatal(err)
	}
}

// event records a carrier event of the parcel at the clock's time.
func (f *trackingFixture) event(number string, step tracking.Step) {
	f.t.Helper()
	err := f.svc.RecordEvent(f.t.Context(), site, tracking.Event{TrackingNumber: number, Step: step,
		Time: f.clock.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *trackingFixture) rotate(tos string) string {
	f.t.Helper()
	res, err := f.svc.GenerateLink(f.t.Context(), site, tracking.GenerateTrackingPageLinkRequest{SiteID: site, Locale: "sv-SE", OrderID: tos, Rotate: true})
	if err != nil {
		f.t.Fatal(err)
	}
	return res.TrackingLink
}

// exists reports whether the order with the external id is found.
func (f *trackingFixture) exists(ext string) bool {
	f.t.Helper()
	res, err := f.svc.Orders(f.t.Context(), site, tracking.OrdersQuery{ExternalID: ext})
	if err != nil {
		f.t.Fatal(err)
	}
	return len(res.Orders) == 1
}

// testTracking: an idle order goes Keep after its registration with its
// tokens (a rotated one included) and index entries; an order whose
// parcel had events stays until Keep after the last one, also when the
// last event did not move its entry (less than a day later).
func testTracking(t *testing.T, store storage.Store) {
	clock := deliverykit.NewManualClock(start)
	f := &trackingFixture{t: t, svc: newTracking(t, store, clock, &deliverykit.SequentialIDs{}), clock: clock}
	f.parcel(f.order("ext-idle", "idle@example.com"), "TN-IDLE")
	f.rotate(f.order("ext-rotated", ""))
	f.parcel(f.order("ext-busy", "Busy@Example.com"), "TN-BUSY")
	checkTrackingIndexes(t, store)

	clock.Set(start.Add(5 * day))
	f.event("TN-BUSY", tracking.StepSubmittedToCarrier) // moves busy's entry
	clock.Set(start.Add(5*day + 2*time.Hour))
	f.event("TN-BUSY", tracking.StepOnRoute) // within a day: the entry stays
	checkTrackingIndexes(t, store)

	if n := sweep(t, f.svc, start.Add(trackingKeep-time.Minute)); n != 0 {
		t.Errorf("sweep before anything is due deleted %d orders", n)
	}
	if n := sweep(t, f.svc, start.Add(trackingKeep+time.Minute)); n != 2 {
		t.Errorf("sweep Keep after registration deleted %d orders, want 2", n)
	}
	for ext, want := range map[string]bool{"ext-idle": false, "ext-rotated": false, "ext-busy": true} {
		if got := f.exists(ext); got != want {
			t.Errorf("order %s exists: %v, want %v", ext, got, want)
		}
	}
	checkTrackingIndexes(t, store)

	// Keep after the entry but not after the last event: the order moves.
	if n := sweep(t, f.svc, start.Add(5*day+trackingKeep+time.Hour)); n != 0 {
		t.Errorf("sweep before Keep after the last event deleted %d orders", n)
	}
	if !f.exists("ext-busy") {
		t.Error("the order active 9 days and 23 hours ago was deleted")
	}
	checkTrackingIndexes(t, store)
	if n := sweep(t, f.svc, start.Add(5*day+trackingKeep+3*time.Hour)); n != 1 {
		t.Errorf("sweep Keep after the last event deleted %d orders, want 1", n)
	}
	for _, coll := range trackingColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q after every order was swept", coll, keys)
		}
	}
}

// storedOrder is what the checks read of a stored tracking order.
type storedOrder struct {
	TosID     string    `json:"tos_id"`
	CreatedAt time.Time `json:"created_at"`
	ActiveAt  time.Time `json:"active_at"`
	Request   struct {
		ExternalID string `json:"external_id"`
		Receiver   struct {
			Email string `json:"email"`
		} `json:"receiver"`
	} `json:"request"`
	Parcels []struct {
		TrackingNumber string `json:"tracking_number"`
		CarrierID      string `json:"carrier_id"`
	} `json:"parcels"`
}

// checkTrackingIndexes checks that every order has exactly one time index
// entry, at its last activity as stored, and that every index entry, token
// and parcel leads to a stored order that holds it.
func checkTrackingIndexes(t *testing.T, store storage.Store) {
	t.Helper()
	orders := checkTrackingExpiry(t, store)
	checkTrackingParcels(t, store, orders)
	checkTrackingTokens(t, store, orders)
	checkTrackingLookups(t, store, orders)
}

// checkTrackingExpiry checks every stored order has exactly its time
// index entry, and returns the orders by key.
func checkTrackingExpiry(t *testing.T, store storage.Store) map[string]storedOrder {
	t.Helper()
	orders := map[string]storedOrder{}
	var want, got []string
	for _, rec := range scan(t, store, "tracking.orders") {
		var o storedOrder
		if err := json.Unmarshal(rec.Value, &o); err != nil {
			t.Fatal(err)
		}
		orders[rec.Key] = o
		at := o.ActiveAt
		if at.IsZero() {
			at = o.CreatedAt
		}
		want = append(want, retention.Index{Name: "tracking.expiry"}.Key(retention.Entry{Class: "order", At: at}, rec.Key))
	}
	for _, rec := range scan(t, store, "tracking.expiry") {
		got = append(got, rec.Key)
	}
	if diff := cmp.Diff(sorted(want), sorted(got)); diff != "" {
		t.Errorf("tracking.expiry (-want +got):\n%s", diff)
	}
	return orders
}

// checkTrackingParcels checks parcels and orders point at each other.
func checkTrackingParcels(t *testing.T, store storage.Store, orders map[string]storedOrder) {
	t.Helper()
	parcels := map[string]bool{}
	for _, rec := range scan(t, store, "tracking.parcels") {
		var p struct {
			TosID string `json:"tos_id"`
		}
		if err := json.Unmarshal(rec.Value, &p); err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(rec.Key, storage.KeySep)
		if _, ok := orders[storage.Key(parts[0], p.TosID)]; !ok {
			t.Errorf("dangling parcel %q → order %s", rec.Key, p.TosID)
		}
		parcels[rec.Key] = true
	}
	for key, o := range orders {
		s, _, _ := strings.Cut(key, storage.KeySep)
		for _, ref := range o.Parcels {
			if !parcels[storage.Key(s, ref.TrackingNumber, ref.CarrierID)] {
				t.Errorf("order %s lists missing parcel %s", key, ref.TrackingNumber)
			}
		}
	}
}

// checkTrackingTokens checks every token has its order and its entry in
// the order's token list, and every list entry its order.
func checkTrackingTokens(t *testing.T, store storage.Store, orders map[string]storedOrder) {
	t.Helper()
	listed := map[string]bool{}
	for _, rec := range scan(t, store, "tracking.order_tokens") {
		parts := strings.Split(rec.Key, storage.KeySep)
		if _, ok := orders[storage.Key(parts[0], parts[1])]; !ok {
			t.Errorf("dangling order_tokens entry %q", rec.Key)
		}
		listed[parts[2]] = true
	}
	for _, rec := range scan(t, store, "tracking.tokens") {
		var tok struct {
			Site  string `json:"site"`
			TosID string `json:"tos_id"`
		}
		if err := json.Unmarshal(rec.Value, &tok); err != nil {
			t.Fatal(err)
		}
		if _, ok := orders[storage.Key(tok.Site, tok.TosID)]; !ok {
			t.Errorf("dangling token %q → %s", rec.Key, tok.TosID)
		}
		if !listed[rec.Key] {
			t.Errorf("token %q is not in tracking.order_tokens", rec.Key)
		}
	}
}

// checkTrackingLookups checks the lookups by external id and e-mail
// point at stored orders.
func checkTrackingLookups(t *testing.T, store storage.Store, orders map[string]storedOrder) {
	t.Helper()
	for _, coll := range []string{"tracking.orders_by_external_id", "tracking.orders_by_email"} {
		for _, rec := range scan(t, store, coll) {
			var id struct {
				TosID string `json:"tos_id"`
			}
			if err := json.Unmarshal(rec.Value, &id); err != nil {
				t.Fatal(err)
			}
			s, _, _ := strings.Cut(rec.Key, storage.KeySep)
			if _, ok := orders[storage.Key(s, id.TosID)]; !ok {
				t.Errorf("dangling %s entry %q → %s", coll, rec.Key, id.TosID)
			}
		}
	}
}

// testTrackingBackfill: orders, parcels and tokens stored before orders
// had a time index, an activity time or a token list (all removed here)
// are indexed by the first sweep and swept when due, an order with later
// parcel events only Keep after them.
func testTrackingBackfill(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	ids := &deliverykit.SequentialIDs{}
	f := &trackingFixture{t: t, svc: newTracking(t, store, clock, ids), clock: clock}
	const n = retention.Batch + 3 // more than one backfill transaction
	for i := range n {
		tos := f.order("ext-"+storage.Uint64Key(uint64(i)), "")
		if i%100 == 0 {
			f.rotate(tos)
		}
		if i == 0 {
			f.parcel(tos, "TN-BUSY")
		}
	}
	clock.Set(start.Add(3 * day))
	f.event("TN-BUSY", tracking.StepSubmittedToCarrier)
	// The store as an older release left it.
	err := store.Update(ctx, func(tx storage.Tx) error {
		for _, coll := range []string{"tracking.expiry", "tracking.order_tokens"} {
			for _, key := range scanKeys(t, store, coll) {
				if err := tx.Delete(coll, key, storage.AnyVersion); err != nil {
					return err
				}
			}
		}
		for _, rec := range scan(t, store, "tracking.orders") {
			var o map[string]any
			if err := json.Unmarshal(rec.Value, &o); err != nil {
				return err
			}
			delete(o, "active_at")
			b, err := json.Marshal(o)
			if err != nil {
				return err
			}
			if _, err := tx.Put("tracking.orders", rec.Key, b, storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = newTracking(t, store, clock, ids) // as after an upgrade
	if got := sweep(t, f.svc, start.Add(trackingKeep+time.Minute)); got != n-1 {
		t.Errorf("first sweep deleted %d orders, want %d", got, n-1)
	}
	checkTrackingIndexes(t, store)
	if diff := cmp.Diff([]string{"tracking.expiry", "tracking.order_tokens"}, scanKeys(t, store, "retention.backfills")); diff != "" {
		t.Errorf("backfill marks (-want +got):\n%s", diff)
	}
	if !f.exists("ext-" + storage.Uint64Key(0)) {
		t.Error("the order with a parcel event 3 days in was deleted")
	}
	if got := sweep(t, f.svc, start.Add(3*day+trackingKeep+time.Minute)); got != 1 {
		t.Errorf("second sweep deleted %d orders, want 1", got)
	}
	for _, coll := range trackingColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s keeps %d records after every order was swept", coll, len(keys))
		}
	}
}

// testTrackingCost: a sweep touches as many records for 5 due orders among
// 20 live ones as among 120, and a bounded number per deleted order.
func testTrackingCost(t *testing.T, newStore NewStore) {
	const due = 5
	touched := func(live int) int64 {
		store := newStore(t)
		clock := deliverykit.NewManualClock(start)
		f := &trackingFixture{t: t, svc: newTracking(t, store, clock, &deliverykit.SequentialIDs{}), clock: clock}
		for i := range due + live {
			if i == due {
				clock.Advance(5 * day) // the live ones are registered later
			}
			tos := f.order("ext-"+storage.Uint64Key(uint64(i)), "a@example.com")
			f.parcel(tos, "TN-"+storage.Uint64Key(uint64(i)))
		}
		if got := sweep(t, f.svc, start); got != 0 { // backfills, once
			t.Fatalf("sweep before anything is due deleted %d", got)
		}
		counting := &Counting{Store: store}
		f.svc = newTracking(t, counting, clock, &deliverykit.SequentialIDs{})
		counting.Touched.Store(0)
		if got := sweep(t, f.svc, start.Add(trackingKeep+time.Minute)); got != due {
			t.Fatalf("sweep deleted %d orders, want %d", got, due)
		}
		return counting.Touched.Load()
	}
	small, large := touched(20), touched(120)
	if small != large {
		t.Errorf("a sweep of %d orders touched %d records among 20 live orders and %d among 120: it should not depend on what is stored", due, small, large)
	}
	// Per deleted order: its entry read twice and deleted, the order, its
	// parcel, its external id and its token read and deleted, its e-mail
	// entry deleted, its token list scanned and deleted; plus the two
	// backfill marks and the first entry past the cutoff.
	if limit := int64(14*due + 4); large > limit {
		t.Errorf("a sweep of %d orders touched %d records, want at most %d", due, large, limit)
	}
}
