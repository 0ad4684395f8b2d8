package retentiontest

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/webhook"
)

// webhookColls are the collections of the webhook sender's deliveries:
// the records, then every index.
var webhookColls = []string{"webhook.deliveries", "webhook.retention", "webhook.events", "webhook.delivery_ids", "webhook.queues", "webhook.due"}

// accepting is a receiver in process that answers 204 to everything.
type accepting struct{}

func (accepting) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
}

// testWebhook: settled deliveries go a day after they settled, with every
// index entry; a pending one has none and stays.
func testWebhook(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	svc, err := webhook.New(store, webhook.Options{Clock: clock, Transport: accepting{}, Retention: day,
		Endpoints: map[string][]webhook.Endpoint{site: {{ID: "erp", URL: "https://erp.example.com/hooks", Secrets: []string{secret}, Events: event.Types}}}})
	if err != nil {
		t.Fatal(err)
	}
	for i, subject := range []string{"CP1", "CP2", "CP3"} {
		ev, err := event.New("evt_"+subject, site, subject, clock.Now(), event.ParcelChanged{TrackingNumber: subject, Step: "STEP_IN_TRANSIT", Time: clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
		if i < 2 {
			if _, err := svc.Dispatch(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tt := range []struct {
		at   time.Time
		want int
	}{
		{start.Add(day - time.Minute), 0},
		{start.Add(day), 2},
	} {
		if n := sweep(t, svc, tt.at); n != tt.want {
			t.Errorf("sweep at %s deleted %d, want %d", tt.at, n, tt.want)
		}
	}
	// The third, never sent, is left with its queue entries.
	for coll, want := range map[string]int{"webhook.deliveries": 1, "webhook.retention": 0, "webhook.events": 1, "webhook.delivery_ids": 1,
		"webhook.queues": 1, "webhook.due": 1} {
		if got := len(scanKeys(t, store, coll)); got != want {
			t.Errorf("%s has %d entries after the sweep, want %d", coll, got, want)
		}
	}
	clock.Set(start.Add(day))
	if _, err := svc.Dispatch(ctx); err != nil {
		t.Fatal(err)
	}
	if n := sweep(t, svc, start.Add(2*day)); n != 1 {
		t.Errorf("last sweep deleted %d, want 1", n)
	}
	for _, coll := range webhookColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s after every delivery was swept: %q", coll, keys)
		}
	}
}
