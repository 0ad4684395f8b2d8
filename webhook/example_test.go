package webhook_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
)

// A receiver verifies each delivery before it trusts the body.
func ExampleVerify() {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // the endpoint's secret, from the configuration
	handler := func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(body, r.Header, time.Now(), secret); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		// Apply the event once per webhook-id, then answer quickly.
		fmt.Println("verified", r.Header.Get(webhook.HeaderID))
		w.WriteHeader(http.StatusNoContent)
	}

	// What the service sends, signed now.
	body := []byte(`{"type":"parcel.changed","timestamp":"2025-03-14T09:30:00Z","data":{"site":"demo-site","subject":"CP000000014SE","step":"DELIVERED"}}`)
	now := time.Now()
	sig, _ := webhook.Sign([]string{secret}, "evt_1", now, body)
	for _, signature := range []string{sig, "v1,Zm9yZ2Vk"} {
		req := httptest.NewRequest(http.MethodPost, "/hooks/delivery", bytes.NewReader(body))
		req.Header.Set(webhook.HeaderID, "evt_1")
		req.Header.Set(webhook.HeaderTimestamp, fmt.Sprint(now.Unix()))
		req.Header.Set(webhook.HeaderSignature, signature)
		rec := httptest.NewRecorder()
		handler(rec, req)
		fmt.Println(rec.Code)
	}
	// Output:
	// verified evt_1
	// 204
	// 401
}

// The service as a platform wires it: Handle is the outbox's consumer of
// every event type, Dispatch (or Run) sends.
func ExampleService() {
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		err := webhook.Verify(body, r.Header, time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC), secret)
		fmt.Printf("received %s, signature ok: %v\n", body, err == nil)
	}))
	defer receiver.Close()

	ctx := context.Background()
	svc, err := webhook.New(memory.New(), webhook.Options{
		Endpoints: map[string][]webhook.Endpoint{"demo-site": {{
			ID: "erp", URL: receiver.URL + "/hooks", Secrets: []string{secret},
			Events: []event.Type{event.TypeParcelChanged},
		}}},
		Clock:        deliverykit.NewManualClock(time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)),
		AllowPrivate: true, // the receiver is on 127.0.0.1
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ev, _ := event.New("evt_1", "demo-site", "CP000000014SE", time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC),
		event.ParcelChanged{TrackingNumber: "CP000000014SE", Step: "DELIVERED", Time: time.Date(2025, 3, 14, 9, 29, 0, 0, time.UTC)})
	if err := svc.Handle(ctx, ev); err != nil { // what the outbox calls
		fmt.Println(err)
		return
	}
	n, err := svc.Dispatch(ctx) // once; Run sends continuously
	fmt.Println("delivered:", n, err)
	page, _ := svc.Deliveries(ctx, "demo-site", "erp", webhook.DeliveriesQuery{})
	d := page.Deliveries[0]
	fmt.Println(d.EventID, d.Status, d.Attempts, d.LastResponseCode)
	// Output:
	// received {"type":"parcel.changed","timestamp":"2025-03-14T09:30:00Z","data":{"site":"demo-site","subject":"CP000000014SE","tos_id":"","external_id":"","tracking_number":"CP000000014SE","step":"DELIVERED","time":"2025-03-14T09:29:00Z","receiver":{}}}, signature ok: true
	// delivered: 1 <nil>
	// evt_1 delivered 1 200
}
