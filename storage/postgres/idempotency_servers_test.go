package postgres_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage"
)

// bookNoExternalID books a shipment without an external_id: without a key,
// every repeat books another shipment with new tracking numbers.
const bookNoExternalID = `{
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`

// TestIdempotencyKeyTwoServers sends one createAndBook with one
// Idempotency-Key 50 times at once, alternately to two servers on one
// database: exactly one shipment is booked, and every answer is that
// booking (first or replayed) or a 409 with Retry-After: 1, after which
// the retry is the replay.
func TestIdempotencyKeyTwoServers(t *testing.T) {
	ins := newInstances(t, 2)
	const n = 50
	type answer struct {
		status   int
		replayed string
		retry    string
		body     []byte
	}
	answers := make([]answer, n)
	header := map[string]string{"Idempotency-Key": "book-7f3a", "Authorization": bearer["Authorization"]}
	send := func(in instance) answer {
		req := httptest.NewRequest("POST", "/v1/som/shipments.createAndBook", strings.NewReader(bookNoExternalID))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		in.h.ServeHTTP(rec, req)
		return answer{rec.Code, rec.Header().Get(idempotency.ReplayedHeader), rec.Header().Get("Retry-After"), rec.Body.Bytes()}
	}
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			answers[i] = send(ins[i%2])
		}()
	}
	close(gate)
	wg.Wait()

	var booked []byte
	counts := map[string]int{}
	for i, a := range answers {
		switch {
		case a.status == http.StatusOK:
			if booked == nil {
				booked = a.body
			}
			if !bytes.Equal(a.body, booked) {
				t.Errorf("answer %d is another booking: %s\nwant %s", i, a.body, booked)
			}
			counts[fmt.Sprintf("200 replayed=%q", a.replayed)]++
		case a.status == http.StatusConflict && a.retry == "1":
			counts["409 Retry-After: 1"]++
		default:
			t.Errorf("answer %d: %d (Retry-After %q) %s", i, a.status, a.retry, a.body)
		}
	}
	t.Logf("answers: %v", counts)
	if counts[`200 replayed=""`] != 1 {
		t.Errorf("%d first answers, want exactly 1", counts[`200 replayed=""`])
	}
	// The clients that got 409 retry: each now gets the replay.
	for i := range counts["409 Retry-After: 1"] {
		a := send(ins[i%2])
		if a.status != http.StatusOK || a.replayed != "true" || !bytes.Equal(a.body, booked) {
			t.Errorf("retry %d: %d replayed=%q %s", i, a.status, a.replayed, a.body)
		}
	}
	var shipments int
	err := ins[0].store.View(t.Context(), func(tx storage.Tx) error {
		for _, err := range tx.Scan("shipment.shipments", storage.Range{}) {
			if err != nil {
				return err
			}
			shipments++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if shipments != 1 {
		t.Errorf("%d shipments booked, want 1", shipments)
	}
}
