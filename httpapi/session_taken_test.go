package httpapi

import (
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/google/go-cmp/cmp"
)

// TestSessionHTTPCompleteTakenOrder: completing with an external_id that
// is already a tracking order is ALREADY_EXISTS (code 6, HTTP 409) naming
// the choice's external_id, never ABORTED (code 10), which RPC clients
// take for a stale etag and answer by reading and repeating the call.
func TestSessionHTTPCompleteTakenOrder(t *testing.T) {
	clock := deliverykit.NewManualClock(sessNow)
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	cats := config.Demo().Catalogs()
	ts, err := tracking.New(store, tracking.Options{Products: tracking.CatalogProducts(cats), Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.CreateOrder(t.Context(), "demo-site", tracking.CreateTrackingOrderRequest{
		ExternalID: "order-1", CarrierProductRef: "north-parcel-home", Sender: &tracking.Sender{Name: "Shop"},
		Receiver: &tracking.Receiver{Name: "Alva"}, Destination: &tracking.Destination{Address: &tracking.Address{Country: "SE"}},
		DeliveryType: tracking.OrderDeliveryDelivery,
	}); err != nil {
		t.Fatal(err)
	}
	engines, err := checkout.NewEngines(cats, options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := session.New(store, session.Options{Engines: engines, Orders: ts, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, Options{Session: svc})
	e := &sessEnv{t: t, handler: s.handler, clock: clock, doc: sessionAPI(t)}
	r := e.do("POST", "/delivery/v1/sessions", sessKey, sessBody)
	url := "/delivery/v1/sessions/" + r.body["name"].(string)[len("sessions/"):]

	tests := []struct {
		name       string
		externalID string
		wantStatus int
		wantCode   float64
		wantFields []string
	}{
		{"taken", "order-1", 409, 6, []string{"delivery_choices[0].external_id"}},
		{"free", "order-2", 200, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := e.do("POST", url+":complete", sessKey, `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "external_id": "`+tt.externalID+`"}]}`)
			if r.status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %s", r.status, tt.wantStatus, r.raw)
			}
			code, fields := rpcFields(r.body)
			if code != tt.wantCode {
				t.Errorf("code = %v, want %v: %s", code, tt.wantCode, r.raw)
			}
			if diff := cmp.Diff(tt.wantFields, fields); diff != "" {
				t.Errorf("fieldViolations (-want +got):\n%s\n%s", diff, r.raw)
			}
		})
	}
}
