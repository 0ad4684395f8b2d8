package webhook

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/google/go-cmp/cmp"
)

func TestDeliveriesPages(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}, "s2": {endpoint("erp", rc.URL)}}, nil)
	for i := range 5 {
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_%d", i), "s1", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
	}
	e.handle(t, parcelEvent(t, "evt_other", "s2", "CP9", "IN_TRANSIT"))
	var pages [][]string
	before := ""
	for {
		page, err := e.svc.Deliveries(t.Context(), "s1", "erp", DeliveriesQuery{Limit: 2, Before: before})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range page.Deliveries {
			ids = append(ids, d.EventID)
		}
		pages = append(pages, ids)
		if page.NextBefore == "" {
			break
		}
		before = page.NextBefore
	}
	want := [][]string{{"evt_4", "evt_3"}, {"evt_2", "evt_1"}, {"evt_0"}}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}

	errs := []struct {
		name, site, endpoint string
		q                    DeliveriesQuery
		want                 deliverykit.Kind
	}{
		{"negative limit", "s1", "erp", DeliveriesQuery{Limit: -1}, deliverykit.KindInvalidArgument},
		{"malformed before", "s1", "erp", DeliveriesQuery{Before: "12"}, deliverykit.KindInvalidArgument},
		{"unknown endpoint", "s1", "nope", DeliveriesQuery{}, deliverykit.KindNotFound},
		{"no site", "", "erp", DeliveriesQuery{}, deliverykit.KindNotFound},
		{"site without webhooks", "s3", "erp", DeliveriesQuery{}, deliverykit.KindNotFound},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Deliveries(t.Context(), tt.site, tt.endpoint, tt.q)
			if err == nil || deliverykit.KindOf(err) != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
	// Another site's deliveries to an endpoint of the same id are its own.
	page, err := e.svc.Deliveries(t.Context(), "s2", "erp", DeliveriesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Deliveries) != 1 || page.Deliveries[0].EventID != "evt_other" {
		t.Errorf("s2 sees %+v", page.Deliveries)
	}
	// A limit above the maximum is the maximum.
	page, err = e.svc.Deliveries(t.Context(), "s1", "erp", DeliveriesQuery{Limit: MaxPageSize + 1})
	if err != nil || len(page.Deliveries) != 5 {
		t.Errorf("Deliveries = %d entries, %v", len(page.Deliveries), err)
	}
}

func TestRedeliver(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}, "s2": {endpoint("erp", rc.URL)}}, nil)
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
	e.dispatch(t)
	e.clock.Advance(time.Minute)
	d, err := e.svc.Redeliver(t.Context(), "s1", "erp", "evt_1")
	if err != nil {
		t.Fatal(err)
	}
	next := e.clock.Now()
	want := Delivery{ID: d.ID, EventID: "evt_1", EventType: event.TypeParcelChanged, Subject: "CP1", Status: StatusPending, Redelivery: true,
		CreatedAt: next, NextAttemptAt: &next}
	if diff := cmp.Diff(want, d); diff != "" {
		t.Errorf("Redeliver (-want +got):\n%s", diff)
	}
	e.dispatch(t)
	hits := rc.got()
	if len(hits) != 2 || string(hits[0].Body) != string(hits[1].Body) || hits[1].Header.Get(HeaderID) != "evt_1" {
		t.Fatalf("requests %+v, want the same body and id twice", hits)
	}
	if err := Verify(hits[1].Body, hits[1].Header, e.clock.Now(), secretA); err != nil {
		t.Errorf("the redelivery does not verify: %v", err)
	}
	if diff := cmp.Diff([]string{"evt_1:delivered", "evt_1:delivered"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}

	errs := []struct {
		name, site, endpoint, event string
		want                        deliverykit.Kind
	}{
		{"unknown event", "s1", "erp", "evt_9", deliverykit.KindNotFound},
		{"empty event", "s1", "erp", "", deliverykit.KindNotFound},
		{"key separator", "s1", "erp", "evt_1\x00", deliverykit.KindNotFound},
		{"unknown endpoint", "s1", "nope", "evt_1", deliverykit.KindNotFound},
		{"another site's event", "s2", "erp", "evt_1", deliverykit.KindNotFound},
	}
	for _, tt := range errs {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.Redeliver(t.Context(), tt.site, tt.endpoint, tt.event)
			if err == nil || deliverykit.KindOf(err) != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

// TestRetention: settled deliveries are deleted by Sweep Retention after
// they settled, not before; pending ones are kept, and sending does not
// delete anything.
func TestRetention(t *testing.T) {
	rc := newReceiver(t, func(h hit) (int, string) {
		if h.Header.Get(HeaderID) == "evt_2" {
			return http.StatusInternalServerError, "no"
		}
		return http.StatusOK, "ok"
	})
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) {
		o.Retention = 24 * time.Hour
		o.RetryMax = time.Hour
		o.MaxAttempts = 1000
	})
	e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"), parcelEvent(t, "evt_2", "s1", "CP2", "IN_TRANSIT"))
	e.dispatch(t)
	e.clock.Advance(24*time.Hour - time.Second)
	e.dispatch(t)
	if n := e.sweep(t); n != 0 {
		t.Errorf("swept %d deliveries before the retention ends", n)
	}
	if diff := cmp.Diff([]string{"evt_1:delivered", "evt_2:retrying"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("before the retention ends (-want +got):\n%s", diff)
	}
	e.clock.Advance(time.Second)
	e.dispatch(t)
	if diff := cmp.Diff([]string{"evt_1:delivered", "evt_2:retrying"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("dispatched after the retention ended (-want +got):\n%s", diff)
	}
	if n := e.sweep(t); n != 1 {
		t.Errorf("swept %d deliveries after the retention ended, want 1", n)
	}
	if diff := cmp.Diff([]string{"evt_2:retrying"}, e.statuses(t, "s1", "erp")); diff != "" {
		t.Errorf("after (-want +got):\n%s", diff)
	}
	if _, err := e.svc.Redeliver(t.Context(), "s1", "erp", "evt_1"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("Redeliver of an expired delivery: %v, want not found", err)
	}
}

func TestEndpoints(t *testing.T) {
	a := endpoint("b-second", "https://erp.example.com/b", secretA, secretB)
	a.Events = []event.Type{event.TypeRefundChanged}
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {a, endpoint("a-first", "https://erp.example.com/a")}}, nil)
	got, err := e.svc.Endpoints(t.Context(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	want := []EndpointView{
		{ID: "a-first", URL: "https://erp.example.com/a", Events: event.Types, Secrets: 1, Enabled: true},
		{ID: "b-second", URL: "https://erp.example.com/b", Events: []event.Type{event.TypeRefundChanged}, Secrets: 2, Enabled: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Endpoints (-want +got):\n%s", diff)
	}
	if got, err := e.svc.Endpoints(t.Context(), "s2"); err != nil || len(got) != 0 {
		t.Errorf("another site's endpoints: %+v, %v", got, err)
	}
	if _, err := e.svc.Endpoint(t.Context(), "s2", "a-first"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("another site's endpoint: %v", err)
	}
	if _, err := e.svc.Enable(t.Context(), "s2", "a-first"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("enabling another site's endpoint: %v", err)
	}
}

// TestDeliveryIDs: delivery ids are random (a site cannot count other
// sites' deliveries by them), they page the list, and the ids of
// deliveries stored before ids were random (their seq) still do.
func TestDeliveryIDs(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}, "s2": {endpoint("erp", rc.URL)}}, nil)
	for i := range 3 {
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_a%d", i), "s1", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_b%d", i), "s2", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
	}
	all := append(e.deliveries(t, "s1", "erp"), e.deliveries(t, "s2", "erp")...)
	format := regexp.MustCompile(`^dlv_[2-7a-z]{36}$`)
	seen := map[string]bool{}
	for _, d := range all {
		if !format.MatchString(d.ID) || seen[d.ID] {
			t.Errorf("id %q: want a fresh dlv_ and 36 characters of [2-7a-z]", d.ID)
		}
		seen[d.ID] = true
	}
	// The oldest delivery of s1 as an older release stored it: no id, no
	// index entry; its seq is its id.
	legacy := all[0]
	err := e.store.Update(t.Context(), func(tx storage.Tx) error {
		seq, err := deliveryIDs.Get(tx, storage.Key("s1", "erp", legacy.ID))
		if err != nil {
			return err
		}
		if err := deliveryIDs.Delete(tx, storage.Key("s1", "erp", legacy.ID), storage.AnyVersion); err != nil {
			return err
		}
		it, err := deliveries.Get(tx, deliveryKey("s1", "erp", seq.Value))
		if err != nil {
			return err
		}
		r := it.Value
		r.ID = ""
		_, err = deliveries.Put(tx, it.Key, r, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	list := e.deliveries(t, "s1", "erp")
	if id := list[0].ID; len(id) != len(storage.Uint64Key(0)) {
		t.Fatalf("legacy delivery shows id %q, want its seq", id)
	}
	var pages [][]string
	for _, before := range []string{list[2].ID, list[1].ID, list[0].ID} {
		page, err := e.svc.Deliveries(t.Context(), "s1", "erp", DeliveriesQuery{Before: before})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, d := range page.Deliveries {
			ids = append(ids, d.EventID)
		}
		pages = append(pages, ids)
	}
	want := [][]string{{"evt_a1", "evt_a0"}, {"evt_a0"}, nil}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages before each id (-want +got):\n%s", diff)
	}
	// An id of another site's endpoint is no cursor here.
	other := e.deliveries(t, "s2", "erp")[0].ID
	if _, err := e.svc.Deliveries(t.Context(), "s1", "erp", DeliveriesQuery{Before: other}); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("before another site's id: err = %v, want invalid argument", err)
	}
}

// TestRedeliverLimitAndDedup: a redelivery asked for again while it is
// pending is answered, not queued twice; an endpoint takes at most
// RedeliverLimit redeliveries per RedeliverWindow, others are not held to
// its count.
func TestRedeliverLimitAndDedup(t *testing.T) {
	rc := newReceiver(t, nil)
	e := newEnv(t, nil, map[string][]Endpoint{"s1": {endpoint("erp", rc.URL), endpoint("crm", rc.URL)}}, nil)
	for i := range RedeliverLimit + 2 {
		e.handle(t, parcelEvent(t, fmt.Sprintf("evt_%d", i), "s1", fmt.Sprintf("CP%d", i), "IN_TRANSIT"))
	}
	e.dispatch(t)
	redeliver := func(endpoint, eventID string) (Delivery, error) {
		return e.svc.Redeliver(t.Context(), "s1", endpoint, eventID)
	}
	first, err := redeliver("erp", "evt_0")
	if err != nil {
		t.Fatal(err)
	}
	again, err := redeliver("erp", "evt_0")
	if err != nil || again.ID != first.ID {
		t.Errorf("asked again while pending: %+v, %v; want the pending %s", again, err, first.ID)
	}
	for i := 1; i < RedeliverLimit; i++ {
		if _, err := redeliver("erp", fmt.Sprintf("evt_%d", i)); err != nil {
			t.Fatalf("redelivery %d: %v", i+1, err)
		}
	}
	_, err = redeliver("erp", fmt.Sprintf("evt_%d", RedeliverLimit))
	if deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition || !strings.Contains(err.Error(), "try again in 1m0s") {
		t.Errorf("redelivery over the limit: %v, want failed precondition saying when to try again", err)
	}
	// Still answered at the limit: nothing new is queued.
	if d, err := redeliver("erp", "evt_0"); err != nil || d.ID != first.ID {
		t.Errorf("a pending one at the limit: %+v, %v", d, err)
	}
	if _, err := redeliver("crm", "evt_0"); err != nil {
		t.Errorf("another endpoint: %v", err)
	}
	wantQueued := RedeliverLimit
	if n := len(e.deliveries(t, "s1", "erp")) - (RedeliverLimit + 2); n != wantQueued {
		t.Errorf("%d redeliveries queued to erp, want %d", n, wantQueued)
	}
	e.clock.Advance(RedeliverWindow)
	if _, err := redeliver("erp", fmt.Sprintf("evt_%d", RedeliverLimit)); err != nil {
		t.Errorf("in the next window: %v", err)
	}
	// Once the pending one is sent, asking again is a new redelivery.
	e.dispatch(t)
	if d, err := redeliver("erp", "evt_0"); err != nil || d.ID == first.ID || d.Status != StatusPending {
		t.Errorf("after the redelivery was sent: %+v, %v; want a new pending one", d, err)
	}
}

// TestRetentionBackfill: deliveries settled before settled deliveries had
// their retention entry (they had one in the former expiry index) are
// indexed by the first Sweep and deleted on time; the former index goes.
func TestRetentionBackfill(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			rc := newReceiver(t, nil)
			e := newEnv(t, b.open(t), map[string][]Endpoint{"s1": {endpoint("erp", rc.URL)}}, func(o *Options) { o.Retention = 24 * time.Hour })
			e.handle(t, parcelEvent(t, "evt_1", "s1", "CP1", "IN_TRANSIT"))
			e.dispatch(t)
			// As a store written before: no entry, one in the old index.
			err := e.store.Update(t.Context(), func(tx storage.Tx) error {
				it, err := deliveries.Get(tx, deliveryKey("s1", "erp", 1))
				if err != nil {
					return err
				}
				if err := expiry.Remove(tx, it.Key, settledEntry(it.Value)); err != nil {
					return err
				}
				_, err = oldExpiry.Put(tx, storage.Key(timeKey(it.Value.SettledAt.Add(24*time.Hour)), storage.Uint64Key(1)),
					ref{"s1", "erp", 1}, storage.AnyVersion)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			e.clock.Advance(24*time.Hour - time.Second)
			if n := e.sweep(t); n != 0 {
				t.Errorf("swept %d before the retention ends", n)
			}
			e.clock.Advance(time.Second)
			if n := e.sweep(t); n != 1 {
				t.Errorf("swept %d after the retention ended, want 1", n)
			}
			left := map[string]int{}
			err = e.store.View(t.Context(), func(tx storage.Tx) error {
				for _, c := range []string{deliveries.Name, oldExpiry.Name, expiry.Name, deliveryIDs.Name, byEvent.Name} {
					for _, err := range tx.Scan(c, storage.Range{}) {
						if err != nil {
							return err
						}
						left[c]++
					}
				}
				return nil
			})
			if err != nil || len(left) != 0 {
				t.Errorf("left after the sweep: %v, %v", left, err)
			}
		})
	}
}
