package postgres_test

import (
	"encoding/base64"
	"testing"
)

// TestTestSitesTwoServers: a test site made on one server is served by
// the other, with the same clock: a parcel booked on one for the LOST
// scenario, the clock advanced six days on the other, and the exception
// read back on the first. The demo site sees none of it.
func TestTestSitesTwoServers(t *testing.T) {
	ins := newInstances(t, 2)
	a, b := ins[0], ins[1]
	st, site := a.do(t, "POST", "/v1/test/sites", bearer, `{}`)
	if st != 200 {
		t.Fatalf("create: %d %v", st, site)
	}
	key, _ := site["api_key"].(string)
	test := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte(key))}
	lost := `{"external_id": "SO-LOST-1",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home", "meta": {"test_scenario": "LOST"}}]}]}`
	if st, body := b.do(t, "POST", "/v1/som/shipments.createAndBook", test, lost); st != 200 {
		t.Fatalf("book on the second: %d %v", st, body)
	}
	if st, body := a.do(t, "POST", "/v1/test/clock:advance", test, `{"duration": "144h"}`); st != 200 {
		t.Fatalf("advance on the first: %d %v", st, body)
	}
	st, clock := b.do(t, "GET", "/v1/test/clock", test, "")
	if st != 200 || clock["now"] != "2026-11-29T09:00:00Z" {
		t.Errorf("the second's clock: %d %v", st, clock)
	}
	st, orders := b.do(t, "GET", "/v1/delivery_tracking/orders?external_id=SO-LOST-1", test, "")
	if st != 200 {
		t.Fatalf("orders: %d %v", st, orders)
	}
	p := orders["orders"].([]any)[0].(map[string]any)["parcels"].([]any)[0].(map[string]any)
	if ex, _ := p["exceptions"].([]any); len(ex) != 1 || ex[0].(map[string]any)["status"] != "LOST" {
		t.Errorf("exceptions on the second: %v", p["exceptions"])
	}
	if st, orders := a.do(t, "GET", "/v1/delivery_tracking/orders?external_id=SO-LOST-1", bearer, ""); st != 404 && (st != 200 || len(orders["orders"].([]any)) != 0) {
		t.Errorf("the demo site sees the test site's order: %d %v", st, orders)
	}
}
