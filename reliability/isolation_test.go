package reliability

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/tracking"
)

// isoCase is one request of demo-site-2 (or an anonymous customer) aimed at
// demo-site's records.
type isoCase struct {
	name   string
	method string
	target string
	header map[string]string
	body   string
	// want lists the acceptable statuses: not found or permission denied,
	// or 200 for a list that must then be empty (empty says how).
	want  []int
	empty func(r resp) bool
}

func isolationCases(f fixture) []isoCase {
	nf := []int{http.StatusNotFound}
	denied := []int{http.StatusForbidden}
	noOrders := func(r resp) bool { a, _ := get(r.body, "orders").([]any); return len(a) == 0 }
	noNotifications := func(r resp) bool { a, _ := get(r.body, "notifications").([]any); return len(a) == 0 }
	noContent := func(r resp) bool { return get(r.body, "totalElements") == float64(0) }
	sess := "/delivery/v1/" + f.sessionName
	return []isoCase{
		// A: tracking.
		{"A orders by external id", "GET", "/v1/delivery_tracking/orders?external_id=order-1002", site2.rest, "", []int{200}, noOrders},
		{"A orders by email", "GET", "/v1/delivery_tracking/orders?email=anna@example.com", site2.rest, "", []int{200}, noOrders},
		{"A orders naming site 1", "GET", "/v1/delivery_tracking/orders?site_id=demo-site", site2.rest, "", denied, nil},
		{"A parcels by tracking number", "GET", "/v1/delivery_tracking/parcels?tracking_number=" + f.trackingNumber, site2.rest, "", nf, nil},
		{"A parcels by external id", "GET", "/v1/delivery_tracking/parcels?external_id=order-1002", site2.rest, "", nf, nil},
		{"A parcels by site 1's token", "GET", "/v1/delivery_tracking/parcels?token=" + f.trackingToken, site2.rest, "", nf, nil},
		{"A parcels naming site 1", "GET", "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number=" + f.trackingNumber, site2.rest, "", denied, nil},
		{"A parcel on site 1's order", "POST", "/v1/delivery_tracking/parcel", site2.rest,
			`{"tos_id": "` + f.tosID + `", "tracking_number": "NP999", "carrier_product_ref": "north-parcel-home", "direction_type": "OUTBOUND"}`, nf, nil},
		{"A order naming site 1", "POST", "/v1/delivery_tracking/order", site2.rest, `{"site_id": "demo-site", "external_id": "x"}`, denied, nil},
		{"A link by tos id", "POST", "/v1/delivery_tracking/generate_tracking_page_link", site2.rest, `{"order_id": "` + f.tosID + `", "locale": "sv-SE"}`, nf, nil},
		{"A link by external id", "POST", "/v1/delivery_tracking/generate_tracking_page_link", site2.rest, `{"order_id": "order-1002", "locale": "sv-SE"}`, nf, nil},
		{"A link by tracking number", "POST", "/v1/delivery_tracking/generate_tracking_page_link", site2.rest, `{"tracking_number": "` + f.trackingNumber + `", "locale": "sv-SE"}`, nf, nil},
		{"A event on site 1's parcel", "POST", "/v1/delivery_tracking/parcel.event", site2.rest,
			`{"tracking_number": "` + f.trackingNumber + `", "time": "2026-11-23T11:00:00Z", "step": "STEP_SENT_BACK"}`, nf, nil},
		{"A event naming site 1", "POST", "/v1/delivery_tracking/parcel.event", site2.rest,
			`{"site_id": "demo-site", "tracking_number": "` + f.trackingNumber + `", "time": "2026-11-23T11:00:00Z", "step": "STEP_SENT_BACK"}`, denied, nil},
		// B: notifications.
		{"B notifications", "GET", "/v1/delivery_tracking/notifications?external_id=order-1002", site2.rest, "", []int{200}, noNotifications},
		{"B notifications naming site 1", "GET", "/v1/delivery_tracking/notifications?site_id=demo-site&external_id=order-1002", site2.rest, "", denied, nil},
		{"B retrigger", "POST", "/v1/delivery_tracking/notification.retrigger", site2.rest, `{"notification_id": "` + f.notificationID + `"}`, nf, nil},
		{"B retrigger naming site 1", "POST", "/v1/delivery_tracking/notification.retrigger", site2.rest, `{"site_id": "demo-site", "notification_id": "` + f.notificationID + `"}`, denied, nil},
		// C: checkout.
		{"C get", "GET", "/v1/siw/session.get?id=" + f.checkoutID, site2.rest, "", nf, nil},
		{"C get completed", "GET", "/v1/siw/session.get?id=" + f.completedID, site2.rest, "", nf, nil},
		{"C update", "POST", "/v1/siw/session.update", site2.rest, `{"id": "` + f.checkoutID + `", "customer": ` + checkoutCustomer + `}`, nf, nil},
		{"C complete", "POST", "/v1/siw/session.complete", site2.rest, `{"id": "` + f.checkoutID + `", "customer": ` + checkoutCustomer + `}`, nf, nil},
		// D: delivery session.
		{"D get", "GET", sess, site2.rpc, "", nf, nil},
		{"D get completed", "GET", "/delivery/v1/" + f.doneSession, site2.rpc, "", nf, nil},
		{"D patch", "PATCH", sess, site2.rpc, sessionCreate, nf, nil},
		{"D patch with etag", "PATCH", sess, site2.rpc, strings.Replace(sessionCreate, "{\n", `{"etag": `+fmt.Sprintf("%q", f.sessionEtag)+",\n", 1), nf, nil},
		{"D complete", "POST", sess + ":complete", site2.rpc, fmt.Sprintf(sessionComplete, "web-9"), nf, nil},
		{"D convert", "POST", sess + ":convert?format=AGENTIC_CHECKOUT", site2.rpc, "", nf, nil},
		// E: returns.
		{"E order by id", "GET", "/returns/merchant/order/" + f.returnsOrderID, site2.spring, "", nf, nil},
		{"E order by foreign id", "GET", "/returns/merchant/order/A-1?idType=FOREIGN_ID", site2.spring, "", nf, nil},
		{"E order by foreign number", "GET", "/returns/merchant/order/1001?idType=FOREIGN_NUMBER", site2.spring, "", nf, nil},
		{"E order by foreign name", "GET", "/returns/merchant/order/" + url.PathEscape("#1001") + "?idType=FOREIGN_NAME", site2.spring, "", nf, nil},
		{"E orders", "GET", "/returns/merchant/order?size=50", site2.spring, "", []int{200}, noContent},
		{"E return by id", "GET", "/returns/merchant/return/" + f.returnID, site2.spring, "", nf, nil},
		{"E returns", "GET", "/returns/merchant/return?size=50", site2.spring, "", []int{200}, noContent},
		{"E items returned by return id", "POST", "/returns/merchant/items/returned", site2.spring,
			`{"returnId": ` + f.returnID + `, "items": [{"sku": "JACKET-M", "quantity": 1, "approved": true}]}`, nf, nil},
		{"E items returned by order", "POST", "/returns/merchant/items/returned", site2.spring,
			`{"foreignOrderId": "A-1", "items": [{"sku": "JACKET-M", "quantity": 1, "approved": true}]}`, nf, nil},
		{"E refunds", "GET", "/returns/merchant/refund/transaction", site2.spring, "", []int{200}, noContent},
		{"E mark refunded", "POST", "/returns/merchant/refund/transaction/" + f.refundID + "/refunded", site2.spring, "", nf, nil},
		{"E customer return under site 2", "POST", "/returns/customer/return", nil,
			`{"siteId": "demo-site-2", "foreignOrderId": "A-1", "email": "anna@example.com", "items": [{"foreignLineItemId": "L1", "quantity": 1}]}`, nf, nil},
		{"E customer return with a wrong e-mail", "POST", "/returns/customer/return", nil,
			`{"siteId": "demo-site", "foreignOrderId": "A-1", "email": "eve@example.com", "items": [{"foreignLineItemId": "L1", "quantity": 1}]}`, nf, nil},
		// F: shipments.
		{"F get by id", "GET", "/v1/som/shipments.get?id=" + f.shipmentID, site2.rest, "", nf, nil},
		{"F get by external id", "GET", "/v1/som/shipments.get?external_id=S-1", site2.rest, "", nf, nil},
		{"F get by tracking number", "GET", "/v1/som/shipments.get?tracking_number=" + f.bookedTN, site2.rest, "", nf, nil},
		{"F get naming site 1", "GET", "/v1/som/shipments.get?site_id=demo-site&id=" + f.shipmentID, site2.rest, "", denied, nil},
		{"F delivery", "GET", "/v1/som/deliveries.get?tracking_number=" + f.bookedTN, site2.rest, "", nf, nil},
		{"F label", "GET", "/v1/som/labels/" + f.bookedTN + "?format=pdf", site2.rest, "", nf, nil},
		{"F label naming site 1", "GET", "/v1/som/labels/" + f.bookedTN + "?site_id=demo-site", site2.rest, "", denied, nil},
		{"F create naming site 1", "POST", "/v1/som/shipments.create", site2.rest, `{"site_id": "demo-site"}`, denied, nil},
		{"F book parcels", "POST", "/v1/som/shipments.bookParcels", site2.rest, `{"shipment_id": "` + f.shipmentID + `"}`, nf, nil},
		{"F update", "POST", "/v1/som/shipments.update", site2.rest, `{"shipment_id": "` + f.shipmentID + `", "reference": "mine"}`, nf, nil},
		{"F cancel", "POST", "/v1/som/shipments.cancel", site2.rest, `{"shipment_id": "` + f.shipmentID + `"}`, nf, nil},
		{"F add parcel", "POST", "/v1/som/shipments.addParcel", site2.rest, `{"shipment_id": "` + f.bookedID + `",
			"parcel": {"weight": 500, "dimensions": {"length": 100, "width": 100, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}}`, nf, nil},
		{"F book pickup by tracking number", "POST", "/v1/som/deliveries.bookPickup", site2.rest, `{"tracking_number": "` + f.bookedTN + `", ` + pickupWindow + `}`, nf, nil},
		{"F book pickup by shipment", "POST", "/v1/som/deliveries.bookPickup", site2.rest, `{"shipment_id": "` + f.bookedID + `", ` + pickupWindow + `}`, nf, nil},
		{"F cancel delivery by tracking number", "POST", "/v1/som/deliveries.cancel", site2.rest, `{"tracking_number": "` + f.bookedTN + `"}`, nf, nil},
		{"F cancel delivery by id", "POST", "/v1/som/deliveries.cancel", site2.rest, `{"delivery_id": "` + f.deliveryID + `"}`, nf, nil},
		{"F confirm pickup", "POST", "/v1/som/deliveries.confirmPickup", site2.rest, `{"tracking_number": "` + f.bookedTN + `"}`, nf, nil},
		// Keys of one area do not open another area of the same site in
		// another header form, nor does site 2's key in site 1's form.
		{"A with the raw key", "GET", "/v1/delivery_tracking/orders", map[string]string{"Authorization": "Bearer demo-key"}, "", []int{401}, nil},
		{"E with a Bearer header", "GET", "/returns/merchant/return", site1.rest, "", []int{401}, nil},
		{"D with x-api-key", "GET", sess, site1.spring, "", []int{401}, nil},
	}
}

// TestTenantIsolation: demo-site-2's key, aimed at every endpoint with
// demo-site's ids, tokens and links, gets not found or permission denied
// (or an empty list), sees none of demo-site's data, and changes nothing;
// demo-site itself still reads everything afterwards.
func TestTenantIsolation(t *testing.T) {
	e := newEnv(t, nil)
	f := seed(e)
	for _, c := range isolationCases(f) {
		t.Run(c.name, func(t *testing.T) {
			before := e.store.writes.Load()
			r := e.do(c.method, c.target, c.header, c.body)
			ok := false
			for _, w := range c.want {
				ok = ok || r.status == w
			}
			if !ok {
				t.Fatalf("%s %s: %d %s, want one of %v", c.method, c.target, r.status, r.raw, c.want)
			}
			if r.status == 200 && !c.empty(r) {
				t.Errorf("%s %s: site 1's data in %s", c.method, c.target, r.raw)
			}
			for _, s := range secrets {
				if strings.Contains(string(r.raw), s) && !strings.Contains(c.body+c.target, s) {
					t.Errorf("%s %s: answer holds %q: %s", c.method, c.target, s, r.raw)
				}
			}
			for _, s := range []string{f.trackingToken, f.widgetToken, f.statusToken, f.tosID} {
				if strings.Contains(string(r.raw), s) && !strings.Contains(c.body+c.target, s) {
					t.Errorf("%s %s: answer holds site 1's token %q", c.method, c.target, s)
				}
			}
			if r.body == nil {
				t.Errorf("%s %s: body is not a JSON object: %s", c.method, c.target, r.raw)
			}
			if n := e.store.writes.Load() - before; n != 0 {
				t.Errorf("%s %s: %d writes committed by a refused request", c.method, c.target, n)
			}
		})
	}
	// Site 1 is untouched: its active sessions are still active, its
	// refund is still open, and nothing was added to its parcel.
	if r := e.do("GET", "/v1/siw/session.get?id="+f.checkoutID, site1.rest, ""); r.status != 200 || str(r.body, "session", "status") != "ACTIVE" {
		t.Errorf("site 1's checkout after the matrix: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/delivery/v1/"+f.sessionName, site1.rpc, ""); r.status != 200 || str(r.body, "etag") != f.sessionEtag {
		t.Errorf("site 1's delivery session after the matrix: %d %s", r.status, r.raw)
	}
	if r := e.do("GET", "/returns/merchant/refund/transaction?status=AWAITING_EXTERNAL_REFUND", site1.spring, ""); r.status != 200 || get(r.body, "totalElements") != float64(1) {
		t.Errorf("site 1's open refunds after the matrix: %d %s", r.status, r.raw)
	}
	for id, state := range map[string]string{f.shipmentID: "CREATED", f.bookedID: "BOOKED"} {
		if r := e.do("GET", "/v1/som/shipments.get?id="+id, site1.rest, ""); r.status != 200 || str(r.body, "state") != state || str(r.body, "reference") != "" {
			t.Errorf("site 1's shipment after the matrix: %d %s", r.status, r.raw)
		}
	}
	if r := e.do("GET", "/v1/delivery_tracking/parcels?tracking_number="+f.trackingNumber, site1.rest, ""); r.status != 200 || strings.Contains(string(r.raw), "STEP_SENT_BACK") {
		t.Errorf("site 1's parcel after the matrix: %d %s", r.status, r.raw)
	}
}

// TestTokensAreSinglePurpose: each kind of customer token opens its own
// door only. A tracking token is no widget token or return status token and
// the other way round; ids that travel in merchant calls (session ids,
// tos ids) open no customer page; and every token carries 128 random bits.
func TestTokensAreSinglePurpose(t *testing.T) {
	e := newEnv(t, nil)
	f := seed(e)
	trackingPage := func(tok string) resp { return e.do("GET", tracking.PagePath+tok, nil, "") }
	statusPage := func(tok string) resp { return e.do("GET", returns.StatusPagePath+tok, nil, "") }
	widget := func(tok string) resp {
		return e.do("GET", "/v1/siw/_/widget/state", map[string]string{"X-Widget-Token": tok}, "")
	}
	// Each door opens with its own token…
	for name, r := range map[string]resp{
		"tracking page": trackingPage(f.trackingToken), "status page": statusPage(f.statusToken), "widget": widget(f.widgetToken),
	} {
		if r.status != 200 {
			t.Fatalf("%s with its own token: %d %s", name, r.status, r.raw)
		}
	}
	// …and with nothing else.
	others := map[string]string{
		"tracking token": f.trackingToken, "widget token": f.widgetToken, "status token": f.statusToken,
		"checkout session id": f.checkoutID, "tos id": f.tosID, "delivery session id": strings.TrimPrefix(f.sessionName, "sessions/"),
		"notification id": f.notificationID, "tracking number": f.trackingNumber,
	}
	doors := []struct {
		name string
		own  string
		open func(string) resp
	}{
		{"tracking page", f.trackingToken, trackingPage},
		{"status page", f.statusToken, statusPage},
		{"widget", f.widgetToken, widget},
	}
	for _, d := range doors {
		for name, tok := range others {
			if tok == d.own {
				continue
			}
			if r := d.open(tok); r.status != http.StatusNotFound {
				t.Errorf("%s opened with the %s: %d", d.name, name, r.status)
			}
			// A near miss is no better than a stranger.
			if r := d.open(d.own[:len(d.own)-1] + flip(d.own[len(d.own)-1])); r.status != http.StatusNotFound {
				t.Errorf("%s opened with its token's last character changed: %d", d.name, r.status)
			}
		}
	}
	// Merchant calls of the token's own site: a widget token is no
	// checkout session id, and only the tracking token is a parcels
	// query token.
	if r := e.do("GET", "/v1/siw/session.get?id="+f.widgetToken, site1.rest, ""); r.status != 404 {
		t.Errorf("session.get with the widget token: %d", r.status)
	}
	if r := e.do("GET", "/v1/delivery_tracking/parcels?token="+f.trackingToken, site1.rest, ""); r.status != 200 {
		t.Errorf("parcels with the tracking token: %d %s", r.status, r.raw)
	}
	for name, tok := range map[string]string{"widget token": f.widgetToken, "status token": f.statusToken, "tos id": f.tosID} {
		if r := e.do("GET", "/v1/delivery_tracking/parcels?token="+tok, site1.rest, ""); r.status != 404 {
			t.Errorf("parcels with the %s as token: %d", name, r.status)
		}
	}
	// Unguessable: 128 random bits, base32 after a short prefix.
	for name, tok := range map[string]string{"tracking": f.trackingToken, "widget": f.widgetToken, "status": f.statusToken, "checkout session": f.checkoutID} {
		_, rnd, ok := strings.Cut(tok, "_")
		if !ok || len(rnd) < 26 || strings.Trim(rnd, "abcdefghijklmnopqrstuvwxyz234567") != "" {
			t.Errorf("%s token %q does not carry 128 bits of base32", name, tok)
		}
	}
	// Fresh tokens never repeat.
	seen := map[string]bool{}
	for i := range 50 {
		r := e.do("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, fmt.Sprint("cart-", i)))
		tok := str(r.body, "token")
		if tok == "" || seen[tok] {
			t.Fatalf("widget token %d: %q repeats or is empty", i, tok)
		}
		seen[tok] = true
	}
}

func flip(c byte) string {
	if c == 'a' {
		return "b"
	}
	return "a"
}

// TestKeysNeverLoggedOrReturned runs the fixture, the isolation matrix and
// a few failing requests with a debug-level logger and checks that no API
// key, raw or base64, appears in any log line or any answer.
func TestKeysNeverLoggedOrReturned(t *testing.T) {
	e := newEnv(t, nil)
	f := seed(e)
	var answers []resp
	for _, c := range isolationCases(f) {
		answers = append(answers, e.do(c.method, c.target, c.header, c.body))
	}
	// Keys in the wrong place: a query string, a body, a malformed header.
	// Query strings and bodies are never logged.
	answers = append(answers,
		e.do("GET", "/v1/delivery_tracking/orders?api_key=demo-key", map[string]string{"Authorization": "Bearer demo-key"}, ""),
		e.do("GET", "/v1/siw/session.get?id=demo-key", site1.rest, ""),
		e.do("POST", "/v1/delivery_tracking/order", site1.rest, `{"external_id": "demo-key-2", "sender": 1}`),
		e.do("GET", "/returns/merchant/order?sort=demo-key", site1.spring, ""),
		e.do("GET", "/delivery/v1/sessions/x", map[string]string{"Authorization": "Bearer demo-key-2x"}, ""),
		e.do("POST", "/returns/customer/return", map[string]string{"X-Api-Key": "demo-key"}, `{"siteId": "demo-key"}`),
	)
	logs := e.log.String()
	if !strings.Contains(logs, `msg=request`) {
		t.Fatalf("the access log is not captured:\n%s", logs)
	}
	for _, k := range apiKeys {
		// The last answers echo what their client sent in a parameter;
		// they are checked in the log only.
		for i, r := range answers[:len(answers)-6] {
			if strings.Contains(string(r.raw), k) {
				t.Errorf("answer %d holds key %q: %s", i, k, r.raw)
			}
		}
		if strings.Contains(logs, k) {
			t.Errorf("the log holds key %q:\n%s", k, logs)
		}
	}
	// Authorization headers are never logged, whatever their content.
	if strings.Contains(logs, "Bearer") || strings.Contains(strings.ToLower(logs), "x-api-key") {
		t.Errorf("a credential header reached the log:\n%s", logs)
	}
}
