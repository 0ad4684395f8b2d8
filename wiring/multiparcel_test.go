package wiring_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// A shipment packed into three boxes is one tracking order of three
// parcels: each parcel's link opens the order's page, which counts them
// ("Parcel 1 of 3").
func TestPackedShipmentTrackedAsOneOrder(t *testing.T) {
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC))
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test"})
	if err != nil {
		t.Fatal(err)
	}
	e := env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
	bearer := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	// Three tents that only the large box holds: three parcels.
	status, body := e.do("POST", "/v1/som/shipments.createAndBook", bearer, `{"external_id": "ORD-901", "shipping_method": "north-parcel-home",
	  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
	  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
	  "items": [{"sku": "TENT-4", "name": "Tent", "quantity": 3, "price": 249900, "currency": "SEK", "weight": 2400,
	    "dimensions": {"length": 550, "width": 350, "height": 350}}]}`)
	if status != 200 {
		t.Fatalf("createAndBook: %d %v", status, body)
	}
	parcels, _ := get(body, "parcels").([]any)
	if len(parcels) != 3 {
		t.Fatalf("%d parcels, want 3: %v", len(parcels), body)
	}
	link, _ := get(body, "parcels", 1, "deliveries", 0, "tracking_link").(string)
	path, ok := strings.CutPrefix(link, "http://shop.test")
	if !ok {
		t.Fatalf("tracking link %q", link)
	}
	status, _, page := e.page(path, map[string]string{"Accept-Language": "en"})
	if status != 200 {
		t.Fatalf("tracking page: %d %.300s", status, page)
	}
	for _, want := range []string{"Parcel 1 of 3", "Parcel 2 of 3", "Parcel 3 of 3"} {
		if !strings.Contains(page, want) {
			t.Errorf("the tracking page does not say %q:\n%.2000s", want, page)
		}
	}
}
