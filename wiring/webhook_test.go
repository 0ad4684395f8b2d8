package wiring_test

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/deliverykit/deliverykit/wiring"
)

// TestWebhooksOfAMerchantDay: a site's endpoint hears of the completed
// checkout and of its parcel's progress, each delivery signed so that the
// merchant's verification accepts it.
func TestWebhooksOfAMerchantDay(t *testing.T) {
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	type delivery struct {
		header http.Header
		body   []byte
	}
	var mu sync.Mutex
	var got []delivery
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, delivery{r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()

	cfg := config.Demo()
	cfg.Sites[0].Webhooks = []webhook.Endpoint{{ID: "orders", URL: receiver.URL + "/hooks", Secrets: []string{secret},
		Events: []event.Type{event.TypeOrderCompleted, event.TypeParcelChanged}}}
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: quiet,
		Webhooks: webhook.Options{AllowPrivate: true}}) // the receiver is on loopback
	if err != nil {
		t.Fatal(err)
	}
	e := &outboxEnv{env: env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}, svcs: svcs, clock: clock}
	status, body := e.checkout("web-9")
	if status != 200 {
		t.Fatalf("complete: %d %v", status, body)
	}
	tos := body["tos_id"].(string)
	if status, body := e.do("POST", "/v1/delivery_tracking/parcel", bearer, `{"tos_id": "`+tos+`", "tracking_number": "NP123456789SE",
		"carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`); status != 200 {
		t.Fatalf("parcel: %d %v", status, body)
	}
	if status, body := e.do("POST", "/v1/delivery_tracking/parcel.event", bearer,
		`{"tracking_number": "NP123456789SE", "time": "2026-11-23T10:00:00Z", "step": "STEP_SUBMITTED_TO_CARRIER"}`); status != 200 {
		t.Fatalf("parcel.event: %d %v", status, body)
	}
	for {
		n, err := svcs.Webhooks.Dispatch(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	var types []string
	for _, d := range got {
		if err := webhook.Verify(d.body, d.header, clock.Now(), secret); err != nil {
			t.Errorf("delivery %s: %v", d.header.Get("webhook-id"), err)
		}
		var msg struct {
			Type string `json:"type"`
			Data struct {
				Site    string `json:"site"`
				Subject string `json:"subject"`
			} `json:"data"`
		}
		if err := json.Unmarshal(d.body, &msg); err != nil {
			t.Fatal(err)
		}
		types = append(types, msg.Type+" "+msg.Data.Site+" "+msg.Data.Subject)
	}
	// Order holds per subject; these are two subjects.
	slices.Sort(types)
	want := []string{"order.completed demo-site " + tos, "parcel.changed demo-site NP123456789SE"}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("webhooks received (-want +got):\n%s", diff)
	}
}
