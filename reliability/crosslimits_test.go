package reliability

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/session"
)

// TestLimitsAgreeAcrossAreas: a delivery session with every recorded
// field at its limit (500 lines, a 500-character title, a 128-character SKU,
// a 254-character e-mail address, the longest phone number, ten address
// lines of 256 characters, a 256-character external id) is accepted,
// completed, and becomes a tracking order and a returnable order: no
// area refuses what another accepted and hands on.
func TestLimitsAgreeAcrossAreas(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	rep := func(c string, n int) string { return strings.Repeat(c, n) }
	email := rep("a", 64) + "@" + rep("b", 63) + "." + rep("c", 63) + "." + rep("d", 58) + ".se"
	if len(email) != validation.MaxEmailLength {
		t.Fatalf("the e-mail address has %d characters", len(email))
	}
	// All lines the limit allows; the first with every string at its
	// limit (all of them so would pass the body limit).
	lines := make([]map[string]any, session.MaxLineItems)
	for i := range lines {
		lines[i] = map[string]any{"sku": fmt.Sprint(i), "title": "t", "quantity": 1, "weight": 10, "price": "100"}
	}
	lines[0]["sku"] = rep("s", validation.MaxIDLength)
	lines[0]["title"] = rep("t", validation.MaxTitleLength)
	lines[0]["image_uri"] = "https://shop.example/" + rep("i", validation.MaxURLLength-len("https://shop.example/"))
	addressLines := make([]string, validation.MaxAddressLines)
	for i := range addressLines {
		addressLines[i] = rep("l", validation.MaxNameLength)
	}
	body, _ := json.Marshal(map[string]any{
		"purchase": map[string]any{"country_code": "SE", "currency_code": "SEK", "total_value": "50000", "locales": []string{"sv-SE"}},
		"deliveries": []any{map[string]any{
			"id":           "d1",
			"line_items":   lines,
			"fulfillments": []any{map[string]any{"readiness": map[string]any{"earliest_time": "2026-11-23T08:00:00Z"}}},
			"recipient_contact": map[string]any{
				"email":        email,
				"phone_number": map[string]any{"country_code": rep("4", session.MaxPhoneCountryCodeLength), "number": rep("7", session.MaxPhoneNumberLength)},
				"address": map[string]any{"country_code": "SE", "postal_code": "118 26", "city": rep("c", validation.MaxNameLength),
					"address_lines": addressLines},
			},
		}},
	})
	r := e.do("POST", "/delivery/v1/sessions", site1.rpc, string(body))
	if r.status != 200 {
		t.Fatalf("create: %d %.500s", r.status, r.raw)
	}
	name := str(r.body, "name")
	externalID := rep("x", validation.MaxRefLength)
	r = e.do("POST", "/delivery/v1/"+name+":complete", site1.rpc, fmt.Sprintf(sessionComplete, externalID))
	if r.status != 200 {
		t.Fatalf("complete: %d %.500s", r.status, r.raw)
	}
	if strings.Contains(e.log.String(), "failed") {
		t.Errorf("recording the completed delivery failed:\n%s", lastLines(e.log.String(), 10))
	}
	r = e.do("GET", "/v1/delivery_tracking/orders?external_id="+externalID, site1.rest, "")
	if orders, _ := get(r.body, "orders").([]any); r.status != 200 || len(orders) != 1 {
		t.Errorf("tracking order: %d %.300s", r.status, r.raw)
	}
	if items, _ := get(r.body, "orders", 0, "cart", "items").([]any); len(items) != session.MaxLineItems {
		t.Errorf("the tracking order's cart has %d items, want %d", len(items), session.MaxLineItems)
	}
	r = e.do("GET", "/returns/merchant/order/"+externalID+"?idType=FOREIGN_ID", site1.spring, "")
	if items, _ := get(r.body, "items").([]any); r.status != 200 || len(items) != session.MaxLineItems {
		t.Errorf("returnable order: %d, %d items: %.300s", r.status, len(items), r.raw)
	}
}
