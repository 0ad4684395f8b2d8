// Package webhooktest is the webhook service's suite for a storage
// backend: deliveries recorded and sent by several services on one
// database (several servers on one PostgreSQL) reach the receiver once
// each, in order per subject.
//
//	func TestWebhooks(t *testing.T) {
//		webhooktest.Run(t, func(t *testing.T) (storage.Store, storage.Store) {
//			s := memory.New()
//			return s, s // an embedded store is shared; a server store opens twice
//		})
//	}
package webhooktest

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/google/go-cmp/cmp"
)

// Open returns two stores on one database; both may be the same store.
type Open func(t *testing.T) (storage.Store, storage.Store)

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

var start = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// Run runs the suite, each test on fresh stores from open.
func Run(t *testing.T, open Open) {
	t.Run("TwoSendersDeliverEachOnceInOrder", func(t *testing.T) { testTwoSenders(t, open) })
	t.Run("ConcurrentHandleRecordsOnce", func(t *testing.T) { testConcurrentHandle(t, open) })
}

// receiver records the webhook-id of each request by subject.
type receiver struct {
	mu        sync.Mutex
	bySubject map[string][]string
	total     int
}

func newReceiver(t *testing.T) (*receiver, string) {
	rc := &receiver{bySubject: map[string][]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if err := webhook.Verify(b, r.Header, start, secret); err != nil {
			t.Errorf("a delivery does not verify: %v", err)
		}
		var body struct {
			Data struct {
				Subject string `json:"subject"`
			} `json:"data"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("a delivery is not JSON: %v", err)
		}
		rc.mu.Lock()
		rc.bySubject[body.Data.Subject] = append(rc.bySubject[body.Data.Subject], r.Header.Get(webhook.HeaderID))
		rc.total++
		rc.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return rc, srv.URL
}

func (rc *receiver) count() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.total
}

func newService(t *testing.T, store storage.Store, url string) *webhook.Service {
	t.Helper()
	svc, err := webhook.New(store, webhook.Options{
		Endpoints: map[string][]webhook.Endpoint{"s1": {{ID: "erp", URL: url, Secrets: []string{secret}, Events: event.Types}}},
		Clock:     deliverykit.NewManualClock(start),
		Logger:    slog.New(slog.DiscardHandler),
		// Small batches, so the two senders interleave.
		Batch: 3, Concurrency: 2, AllowPrivate: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func parcelEvent(t *testing.T, id, subject string) event.Event {
	t.Helper()
	ev, err := event.New(id, "s1", subject, start, event.ParcelChanged{TrackingNumber: subject, Step: "IN_TRANSIT", Time: start})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// testTwoSenders hands every event to both services (as two dispatchers
// of one outbox may) and lets both send at once: each event reaches the
// receiver once, and each subject's events in order.
func testTwoSenders(t *testing.T, open Open) {
	s1, s2 := open(t)
	rc, url := newReceiver(t)
	a, b := newService(t, s1, url), newService(t, s2, url)
	const subjects, perSubject = 5, 4
	want := map[string][]string{}
	var evs []event.Event
	for i := range perSubject {
		for s := range subjects {
			subj := fmt.Sprintf("CP%d", s)
			id := fmt.Sprintf("evt_%s_%d", subj, i)
			evs = append(evs, parcelEvent(t, id, subj))
			want[subj] = append(want[subj], id)
		}
	}
	var wg sync.WaitGroup
	for _, svc := range []*webhook.Service{a, b} {
		wg.Go(func() {
			for _, ev := range evs {
				if err := svc.Handle(t.Context(), ev); err != nil {
					t.Errorf("Handle: %v", err)
				}
			}
		})
	}
	wg.Wait()
	// Each round lets both senders dispatch at once; every round
	// delivers at least the heads of the subjects, so perSubject rounds
	// (and a few for the interleaving) deliver everything.
	for round := 0; round < 4*perSubject && rc.count() < len(evs); round++ {
		for _, svc := range []*webhook.Service{a, b} {
			wg.Go(func() {
				if _, err := svc.Dispatch(t.Context()); err != nil {
					t.Errorf("Dispatch: %v", err)
				}
			})
		}
		wg.Wait()
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if diff := cmp.Diff(want, rc.bySubject); diff != "" {
		t.Errorf("requests per subject (-want +got):\n%s", diff)
	}
}

// testConcurrentHandle hands one event to both services at once, many
// times: one delivery is recorded.
func testConcurrentHandle(t *testing.T, open Open) {
	s1, s2 := open(t)
	_, url := newReceiver(t)
	a, b := newService(t, s1, url), newService(t, s2, url)
	ev := parcelEvent(t, "evt_1", "CP1")
	var wg sync.WaitGroup
	for i := range 8 {
		svc := a
		if i%2 == 1 {
			svc = b
		}
		wg.Go(func() {
			if err := svc.Handle(t.Context(), ev); err != nil {
				t.Errorf("Handle: %v", err)
			}
		})
	}
	wg.Wait()
	page, err := a.Deliveries(t.Context(), "s1", "erp", webhook.DeliveriesQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Deliveries) != 1 {
		t.Errorf("%d deliveries recorded, want 1: %+v", len(page.Deliveries), page.Deliveries)
	}
}
