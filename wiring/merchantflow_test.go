package wiring_test

import (
	"encoding/base64"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

func newDemoEnv(t *testing.T) env {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	svcs, err := wiring.New(memory.New(), cfg, wiring.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "http://shop.test/"})
	if err != nil {
		t.Fatal(err)
	}
	return env{t: t, h: svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet})}
}

var demoBearer = map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}

// TestMerchantCheckoutFlow drives area C the way the merchant clients of
// this API do: create with vouchers and an order number, the shopper's
// choice in the widget, a new search address, complete with a full customer
// address, get. Then the merchant takes result.shipping.shipping_method and
// registers a tracking order and a shipment with it, and finds the order of
// the checkout by its order number.
func TestMerchantCheckoutFlow(t *testing.T) {
	e := newDemoEnv(t)
	status, body := e.do("POST", "/v1/siw/session.create", demoBearer, `{"purchase_country": "SE", "purchase_currency": "SEK",
		"locales": ["sv-SE"], "external_id": "web-5001", "meta": {"channel": "web"},
		"cart": {"cart_id": "cart-5001", "total_value": 45000, "vouchers": ["FREESHIP"], "voucher": "Welcome",
		         "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000, "weight": 2400,
		                    "dimensions": {"height": 200, "length": 500, "width": 200},
		                    "shipping_date": {"start": "2026-11-24T00:00:00.000Z", "end": "2026-11-24T23:59:59.999Z",
		                                      "category_tags": [{"name": "express", "shipping_date": {"start": "2026-11-23T00:00:00.000Z"}}]}}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`)
	if status != 200 {
		t.Fatalf("session.create: %d %v", status, body)
	}
	id, token := get(body, "session", "id").(string), body["token"].(string)
	want := map[string]any{
		"session.external_id":   "web-5001",
		"session.meta.channel":  "web",
		"session.cart.vouchers": []any{"freeship", "welcome"},
		"session.cart.voucher":  nil,
		// Free through the voucher: zero is a value, present as 0.
		"session.shipping_price":                                  float64(0),
		"session.selected_shipping_option.price":                  float64(0),
		"session.result.pricing.price":                            float64(0),
		"session.result.pricing.net_price":                        float64(0),
		"session.result.pricing.price_components.0.value":         float64(0),
		"session.result.pricing.price_components.0.vat":           float64(0),
		"session.cart.items.0.discount":                           float64(0),
		"session.cart.items.0.out_of_stock":                       false,
		"session.cart.pre_order":                                  false,
		"session.cart.items.0.shipping_date.start":                "2026-11-24T00:00:00Z",
		"session.cart.items.0.shipping_date.category_tags.0.name": "express",
		// The goods ship on the 24th: the merchant hands them over then.
		"session.result.delivery_time.pickup_from_merchant.earliest": "2026-11-24T15:00:00+01:00",
		"session.result.shipping.delivery_type":                      "pickup",
		"session.result.shipping.shipping_method":                    "north-parcel-point",
		"session.result.shipping.external_method_id":                 "NP-PP",
		"session.result.selection":                                   "PRESELECTED_CHOICE",
		"session.result.pricing.price_components.0.type":             "PRICE_COMPONENT_TYPE_SHIPPING",
	}
	checkPaths(t, "create", body, want)

	// The shopper picks home delivery with carry-in in the widget.
	status, body = e.do("POST", "/v1/siw/_/widget/select", map[string]string{"X-Widget-Token": token},
		`{"option_id": "home/north-parcel-home", "addon_ids": ["carry-in"]}`)
	if status != 200 {
		t.Fatalf("widget select: %d %v", status, body)
	}

	// The merchant moves the search address to Uppsala; the choice survives.
	status, body = e.do("POST", "/v1/siw/session.update", demoBearer, `{"id": "`+id+`",
		"search_address": {"postal_code": "753 20", "country": "SE", "city": "Uppsala", "coordinates": {"lat": 59.8586, "lng": 17.6389}}}`)
	if status != 200 {
		t.Fatalf("session.update: %d %v", status, body)
	}
	checkPaths(t, "update", body, map[string]any{
		"session.search_address.coordinates.lat":  59.8586,
		"session.search_address.city":             "Uppsala",
		"session.result.shipping.shipping_method": "north-parcel-home",
		"session.result.selection":                "USER_CHOICE",
	})

	status, body = e.do("POST", "/v1/siw/session.complete", demoBearer, `{"id": "`+id+`", "external_id": "web-5001",
		"customer": {"email": "alva@example.com", "phone": "+46701234567", "address": {"name": "Alva Berg",
		"address_lines": ["Storgatan 5 lgh 1102"], "street": "Storgatan", "street_number": "5", "apartment_number": "1102",
		"city": "Uppsala", "postal_code": "753 20", "region": "Uppsala län", "country": "SE", "care_of": "Berg",
		"attn": "Alva", "door_code": "1234", "coordinates": {"lat": 59.8586, "lng": 17.6389}}}}`)
	if status != 200 {
		t.Fatalf("session.complete: %d %v", status, body)
	}
	tos := body["tos_id"].(string)

	status, body = e.do("GET", "/v1/siw/session.get?id="+id, demoBearer, "")
	if status != 200 {
		t.Fatalf("session.get: %d %v", status, body)
	}
	checkPaths(t, "get", body, map[string]any{
		"session.status":                                              "COMPLETE",
		"session.tos_id":                                              tos,
		"session.external_id":                                         "web-5001",
		"session.customer.address.door_code":                          "1234",
		"session.customer.address.street_number":                      "5",
		"session.result.shipping.shipping_method":                     "north-parcel-home",
		"session.result.shipping.external_method_id":                  "NP-HD",
		"session.result.shipping.delivery_type":                       "delivery",
		"session.result.shipping.delivery_time.id":                    "home/north-parcel-home",
		"session.result.shipping.supports.door_code":                  true,
		"session.result.shipping.addons.0.code":                       "carry-in",
		"session.result.shipping.delivery_addons.0.external_addon_id": "ADD-CI",
		"session.result.category.id":                                  "home",
		"session.result.pricing.price":                                float64(19900), // the voucher frees shipping; carry-in costs
		"session.result.pricing.net_price":                            float64(19900 - 3980),
		"session.result.pricing.price_components.1.type":              "PRICE_COMPONENT_TYPE_ADDON",
		"session.result.pricing.price_components.1.value":             float64(19900),
		"session.result.pricing.price_components.1.vat":               float64(3980),
		"session.result.pricing.price_components.1.vat_rate":          float64(2500),
		"session.selected_shipping_option.time_slot.id":               "home/north-parcel-home",
	})
	method := get(body, "session", "result", "shipping", "shipping_method").(string)

	// The checkout's order is found by the merchant's order number (the
	// receiver's address fields are checked in TestTrackingOrderReceiver:
	// the order's wire shows no receiver).
	status, body = e.do("GET", "/v1/delivery_tracking/orders?external_id=web-5001", demoBearer, "")
	if status != 200 {
		t.Fatalf("orders: %d %v", status, body)
	}
	checkPaths(t, "tracking order", body, map[string]any{
		"orders.0.tos_id":      tos,
		"orders.0.external_id": "web-5001",
	})

	// shipping_method as a tracking order's carrier_product_ref …
	status, body = e.do("POST", "/v1/delivery_tracking/order", demoBearer, `{"site_id": "demo-site", "external_id": "web-5002",
		"carrier_product_ref": "`+method+`", "delivery_type": "DELIVERY",
		"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Alva Berg"}, "destination": {"address": {"country": "SE", "postal_code": "753 20"}}}`)
	if status != 200 {
		t.Fatalf("tracking order with the checkout's shipping_method: %d %v", status, body)
	}
	// … and as a shipment's shipping_method.
	status, body = e.do("POST", "/v1/som/shipments.create", demoBearer, `{"external_id": "web-5001", "shipping_method": "`+method+`",
		"sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
		"receiver": {"name": "Alva Berg", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
		"parcels": [{"weight": 2400}]}`)
	if status != 200 {
		t.Fatalf("shipment with the checkout's shipping_method: %d %v", status, body)
	}
	if got := get(body, "parcels", 0, "deliveries", 0, "carrier_product_ref"); got != method {
		t.Errorf("shipment delivery carrier_product_ref = %v, want %s", got, method)
	}

	// A second checkout with the same order number is refused before it
	// freezes: 409 naming external_id, the session still ACTIVE.
	status, body = e.do("POST", "/v1/siw/session.create", demoBearer, `{"purchase_country": "SE", "purchase_currency": "SEK",
		"locales": ["sv-SE"], "cart": {"cart_id": "cart-5003", "total_value": 100, "items": [{"sku": "pegs", "quantity": 1, "price": 100}]}}`)
	if status != 200 {
		t.Fatalf("second create: %d %v", status, body)
	}
	id2 := get(body, "session", "id").(string)
	for _, ext := range []string{"web-5001", "web-5002"} { // a checkout's order, a tracking order registered directly
		status, body = e.do("POST", "/v1/siw/session.complete", demoBearer, `{"id": "`+id2+`", "external_id": "`+ext+`",
			"customer": {"address": {"name": "Erik", "postal_code": "111 57", "country": "SE"}}}`)
		if status != 409 || get(body, "details", 0, "field") != "external_id" {
			t.Errorf("complete with taken external_id %s: %d %v", ext, status, body)
		}
	}
	status, body = e.do("GET", "/v1/siw/session.get?id="+id2, demoBearer, "")
	if get(body, "session", "status") != "ACTIVE" || get(body, "session", "tos_id") != nil {
		t.Errorf("after the refused completes: %d %v", status, body)
	}

	// Clone by tos_id, and list the order's sessions.
	status, body = e.do("POST", "/v1/siw/session.createFromOrder", demoBearer, `{"tos_id": "`+tos+`", "external_id": "web-5001-b", "locales": ["de-DE"]}`)
	if status != 200 || get(body, "session", "status") != "ACTIVE" || body["html_snippet"] == nil {
		t.Fatalf("createFromOrder: %d %v", status, body)
	}
	clone := get(body, "session", "id")
	status, body = e.do("GET", "/v1/siw/sessions_summaries.list?tos_id="+tos, demoBearer, "")
	if status != 200 || get(body, "results", 0, "session_id") != id || get(body, "results", 1, "session_id") != clone ||
		get(body, "results", 0, "result", "shipping", "shipping_method") != "north-parcel-home" {
		t.Errorf("sessions_summaries.list: %d %v", status, body)
	}
}

// A delivery session's carrier.product_id is the reference tracking orders
// accept as carrier_product_ref.
func TestDeliverySessionProductIDRegistersATrackingOrder(t *testing.T) {
	e := newDemoEnv(t)
	key := map[string]string{"authorization": "demo-key"}
	status, body := e.do("POST", "/delivery/v1/sessions", key, `{
		"purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
		"deliveries": [{"id": "d1", "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
		  "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
		  "recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm"}}}]}`)
	if status != 200 {
		t.Fatalf("delivery session: %d %v", status, body)
	}
	var refs []string
	for _, c := range get(body, "deliveries", 0, "delivery_categories").([]any) {
		for _, o := range get(c, "delivery_options").([]any) {
			if ref := get(o, "carrier", "product_id").(string); !slices.Contains(refs, ref) {
				refs = append(refs, ref)
			}
		}
	}
	if len(refs) == 0 {
		t.Fatalf("no options: %v", body)
	}
	for i, ref := range refs {
		ext := "d-order-" + string(rune('a'+i))
		status, body := e.do("POST", "/v1/delivery_tracking/order", demoBearer, `{"site_id": "demo-site", "external_id": "`+ext+`",
			"carrier_product_ref": "`+ref+`", "delivery_type": "DELIVERY",
			"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Erik"}, "destination": {"address": {"country": "SE"}}}`)
		if status != 200 {
			t.Errorf("tracking order with product_id %q: %d %v", ref, status, body)
		}
	}
}

// checkPaths compares values at dotted paths ("session.cart.vouchers",
// "orders.0.tos_id") of a decoded JSON body.
func checkPaths(t *testing.T, what string, body map[string]any, want map[string]any) {
	t.Helper()
	got := map[string]any{}
	for p := range want {
		var path []any
		for _, part := range splitPath(p) {
			path = append(path, part)
		}
		got[p] = get(body, path...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

func splitPath(p string) []any {
	var out []any
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '.' {
			part := p[start:i]
			n, isNum := 0, part != ""
			for _, c := range part {
				if c < '0' || c > '9' {
					isNum = false
					break
				}
				n = n*10 + int(c-'0')
			}
			if isNum {
				out = append(out, n)
			} else {
				out = append(out, part)
			}
			start = i + 1
		}
	}
	return out
}

// An address no category serves gets the catalog's fallback: in a delivery
// session a FALLBACK category with the estimate in words, in a checkout a
// result with a FALLBACK_ selection.
func TestFallbackInBothSessionStyles(t *testing.T) {
	e := newDemoEnv(t)
	status, body := e.do("POST", "/delivery/v1/sessions", map[string]string{"authorization": "demo-key"}, `{
		"purchase": {"country_code": "NO", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
		"deliveries": [{"id": "d1", "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
		  "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
		  "recipient_contact": {"address": {"country_code": "NO", "postal_code": "0150", "city": "Oslo"}}}]}`)
	if status != 200 {
		t.Fatalf("delivery session: %d %v", status, body)
	}
	checkPaths(t, "delivery session", body, map[string]any{
		"deliveries.0.delivery_categories.0.id":                                    "fallback",
		"deliveries.0.delivery_categories.0.options_source":                        "FALLBACK",
		"deliveries.0.delivery_categories.0.delivery_options.0.carrier.product_id": "north-parcel-home",
		"deliveries.0.delivery_categories.0.delivery_options.0.etd.custom.text":    "3–7 arbetsdagar",
		"deliveries.0.delivery_categories.0.delivery_options.0.price":              "14900",
		"deliveries.0.delivery_categories.1":                                       nil,
	})

	status, body = e.do("POST", "/v1/siw/session.create", demoBearer, `{"purchase_country": "NO", "purchase_currency": "SEK",
		"locales": ["sv-SE"], "cart": {"total_value": 45000, "items": [{"sku": "tent", "quantity": 1, "price": 45000}]},
		"search_address": {"postal_code": "0150", "country": "NO"}}`)
	if status != 200 {
		t.Fatalf("checkout: %d %v", status, body)
	}
	checkPaths(t, "checkout", body, map[string]any{
		"session.result.selection":                "FALLBACK_FROM_PRESELECTED_CHOICE",
		"session.result.category.id":              "fallback",
		"session.result.category.name":            "Standard shipping",
		"session.result.shipping.shipping_method": "north-parcel-home",
		"session.result.pricing.price":            float64(14900),
	})
}
