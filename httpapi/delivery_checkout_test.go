package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
)

// dcStack is checkout (both generations) and tracking on one store,
// connected as wiring connects them: a completed session's event reaches
// tracking through the outbox as the completion commits.
type dcStack struct {
	handler http.Handler
	store   storage.Store
}

// newDCStack builds the stack with the widget served from base.
func newDCStack(t *testing.T, base string, rates RateLimits) *dcStack {
	t.Helper()
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	clock := deliverykit.NewManualClock(siwNow)
	cats := config.Demo().Catalogs()
	d := outbox.New(store, outbox.Options{Clock: clock})
	ts, err := tracking.New(d.Store(), tracking.Options{Products: tracking.CatalogProducts(cats), Clock: clock, PortalURL: "http://portal.test"})
	if err != nil {
		t.Fatal(err)
	}
	d.Handle(event.TypeOrderCompleted, "tracking", ts.HandleOrderCompleted)
	engines, err := checkout.NewEngines(cats, options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := checkout.New(d.Store(), checkout.Options{Engines: engines, Orders: ts, Clock: clock, WidgetBaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newTestServer(t, Options{Checkout: svc, Tracking: ts, RateLimits: rates})
	return &dcStack{handler: s.handler, store: store}
}

// dcCall is one request to the stack; its answer is checked against the
// document of the path's API generation (the widget's against /v1/siw's).
type dcCall struct {
	method, path, body string
	header             map[string]string
}

func (st *dcStack) do(t *testing.T, c dcCall) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	st.handler.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Result().Body)
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		t.Fatalf("%s %s: %d %s", c.method, c.path, rec.Code, raw)
	}
	doc := checkoutAPI(t)
	if strings.HasPrefix(c.path, areaDeliveryCheckout.base) {
		doc = deliveryCheckoutAPI(t)
	}
	if err := doc.check(req, rec.Code, rec.Header(), raw); err != nil {
		t.Errorf("%s %s: the answer does not match %s: %v\n%s", c.method, c.path, doc.name, err, raw)
	}
	return rec.Code, body
}

// ok is do for a call that must answer 200.
func (st *dcStack) ok(t *testing.T, c dcCall) map[string]any {
	t.Helper()
	if c.header == nil {
		c.header = siwKey
	}
	code, body := st.do(t, c)
	if code != http.StatusOK {
		t.Fatalf("%s %s: %d %v", c.method, c.path, code, body)
	}
	return body
}

// dcCreate is the connector's session.create: a cart with a voucher.
const dcCreate = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
  "cart": {"cart_id": "c-77", "total_value": 45000, "vouchers": ["WELCOME10"],
    "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000, "attributes": ["small"]}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}, "external_id": "order-77"}`

// dcAddress is what the widget's address form sends.
const dcAddress = `{"delivery_address": {"first_name": "Anna", "last_name": "Berg", "street": "Götgatan", "street_number": "45",
  "postal_code": "118 26", "city": "Stockholm", "country": "SE", "email": "anna@example.com", "phone": "+46701234567"}}`

// The connector's flow over HTTP without a browser: create with a voucher,
// the widget's address call, update, pull, get, complete without a
// customer; the order is tracked with the shopper as its receiver.
func TestDeliveryCheckoutHTTPFlow(t *testing.T) {
	st := newDCStack(t, "http://example.com/v1/siw/_/", RateLimits{})
	created := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.create", body: dcCreate})
	id, _ := jsonPath(created, "session.checkout_session_id").(string)
	token, _ := created["token"].(string)
	if id == "" || token == "" || jsonPath(created, "session.status") != "ACTIVE" || jsonPath(created, "session.cart.vouchers.0") != "welcome10" ||
		!strings.Contains(created["html_snippet"].(string), `id="shipwallet-container"`) {
		t.Fatalf("create: %v", created)
	}
	g := jsonPath(created, "session.delivery_groups.0").(map[string]any)
	if g["group_id"] != "1" || jsonPath(g, "shipping.carrier_product_id") != "NP-PP" || jsonPath(g, "shipping.delivery_type") != "pickup" ||
		jsonPath(g, "addresses.location.external_id") == nil || jsonPath(g, "addresses.delivery_address") != nil ||
		jsonPath(g, "pricing.currency") != "SEK" || jsonPath(g, "selection") != "PRESELECTED_CHOICE" {
		t.Errorf("delivery group before the address: %v", g)
	}

	// Complete before the shopper entered an address: 400 naming it.
	code, body := st.do(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.complete", header: siwKey,
		body: `{"checkout_session_id": "` + id + `"}`})
	if code != 400 || jsonPath(body, "details.source") != "delivery_address" || jsonPath(body, "details.cause_text") != "INVALID_ARGUMENT" ||
		jsonPath(body, "violations.0.field") != "delivery_address" {
		t.Errorf("complete without an address: %d %v", code, body)
	}

	widget := map[string]string{widgetTokenHeader: token}
	state := st.ok(t, dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: widget, body: dcAddress})
	if jsonPath(state, "summary.delivery_address.first_name") != "Anna" || jsonPath(state, "summary.search_address.postal_code") != "118 26" ||
		jsonPath(state, "address_form.countries.0.country") != "SE" {
		t.Errorf("widget state after the address: %v", state)
	}

	cart := `{"checkout_session_id": "` + id + `", "cart": {"cart_id": "c-77", "total_value": 150000, "vouchers": ["welcome10"],
	  "items": [{"sku": "tent", "name": "Tent", "quantity": 3, "price": 50000}]}}`
	updated := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", body: cart})
	if jsonPath(updated, "session.cart.total_value") != float64(150000) || jsonPath(updated, "token") != nil {
		t.Errorf("update: %v", updated)
	}
	pulled := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.pull?checkout_session_id=" + id})
	got := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id})
	if diff := cmp.Diff(pulled["session"], got["session"]); diff != "" {
		t.Errorf("get after pull (-pull +get):\n%s", diff)
	}
	a := jsonPath(got, "session.delivery_groups.0.addresses").(map[string]any)
	if jsonPath(a, "delivery_address.street") != "Götgatan" || jsonPath(a, "billing_address.last_name") != "Berg" ||
		jsonPath(a, "customer.name") != "Anna Berg" || jsonPath(a, "search_address.postal_code") != "118 26" {
		t.Errorf("addresses: %v", a)
	}

	done := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.complete", body: `{"checkout_session_id": "` + id + `"}`})
	tos, _ := jsonPath(done, "session.delivery_groups.0.tos_id").(string)
	if jsonPath(done, "session.status") != "COMPLETE" || tos == "" || len(done) != 1 {
		t.Fatalf("complete: %v", done)
	}
	checkTrackedReceiver(t, st, tos, "Anna Berg", "118 26")

	// Frozen: the widget and update are refused, get and pull read it.
	if code, _ := st.do(t, dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: widget, body: dcAddress}); code != 403 {
		t.Errorf("address after completion: %d", code)
	}
	if code, _ := st.do(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", header: siwKey, body: cart}); code != 403 {
		t.Errorf("update after completion: %d", code)
	}
	if p := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.pull?checkout_session_id=" + id}); jsonPath(p, "session.status") != "COMPLETE" {
		t.Errorf("pull after completion: %v", p)
	}
	sums := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/sessions_summaries.list?tos_id=" + tos})
	// One summary of the order, not a list.
	if jsonPath(sums, "tos_id") != tos || jsonPath(sums, "external_id") == nil || jsonPath(sums, "result.shipping.carrier_product_id") == nil ||
		jsonPath(sums, "result.pricing.price") == nil || sums["results"] != nil {
		t.Errorf("summaries: %v", sums)
	}
}

// checkTrackedReceiver reads the tracking order of tos as tracking stored
// it and checks its receiver; the order is also found by the receiver's
// e-mail over HTTP.
func checkTrackedReceiver(t *testing.T, st *dcStack, tos, name, postal string) {
	t.Helper()
	var rec struct {
		Request struct {
			Receiver struct {
				Name    string `json:"name"`
				Email   string `json:"email"`
				Address struct {
					PostalCode string `json:"postal_code"`
					Street     string `json:"street"`
					Country    string `json:"country"`
				} `json:"address"`
			} `json:"receiver"`
		} `json:"request"`
	}
	err := st.store.View(t.Context(), func(tx storage.Tx) error {
		raw, err := tx.Get("tracking.orders", storage.Key("demo-site", tos))
		if err != nil {
			return err
		}
		return json.Unmarshal(raw.Value, &rec)
	})
	if err != nil {
		t.Fatalf("the tracking order %s: %v", tos, err)
	}
	r := rec.Request.Receiver
	if r.Name != name || r.Email != "anna@example.com" || r.Address.PostalCode != postal || r.Address.Street != "Götgatan" || r.Address.Country != "SE" {
		t.Errorf("tracking order's receiver: %+v", r)
	}
	orders := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/v1/delivery_tracking/orders?email=anna@example.com", nil)
	req.Header.Set("Authorization", siwKey["Authorization"])
	st.handler.ServeHTTP(orders, req)
	if !strings.Contains(orders.Body.String(), `"tos_id":"`+tos+`"`) {
		t.Errorf("orders of the shopper's e-mail: %d %s", orders.Code, orders.Body)
	}
}

// A session created through /v1/siw reads through /v1/delivery_checkout,
// is updated there, and reads back through /v1/siw with the change; one
// created through /v1/delivery_checkout completes through /v1/siw.
func TestCheckoutGenerationsOverHTTP(t *testing.T) {
	st := newDCStack(t, "http://example.com/v1/siw/_/", RateLimits{})
	siw := st.ok(t, dcCall{method: "POST", path: "/v1/siw/session.create", body: siwCreate})
	id := jsonPath(siw, "session.id").(string)
	dc := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id})
	g := jsonPath(dc, "session.delivery_groups.0").(map[string]any)
	r := jsonPath(siw, "session.result").(map[string]any)
	for _, tc := range []struct{ dc, siw string }{
		{"shipping.delivery_type", "shipping.delivery_type"}, {"shipping.carrier", "shipping.carrier"},
		{"shipping.carrier_product_id", "shipping.external_method_id"}, {"category.name", "category.name"},
		{"pricing.price", "pricing.price"}, {"pricing.net_price", "pricing.net_price"}, {"selection", "selection"},
		{"addresses.location.external_id", "shipping.location.external_id"}, {"delivery_time", "delivery_time"},
	} {
		if diff := cmp.Diff(jsonPath(r, tc.siw), jsonPath(g, tc.dc)); diff != "" || jsonPath(g, tc.dc) == nil {
			t.Errorf("delivery_groups[0].%s vs result.%s (-siw +delivery_checkout):\n%s", tc.dc, tc.siw, diff)
		}
	}
	if dc["html_snippet"] != siw["html_snippet"] || jsonPath(dc, "session.checkout_session_id") != id {
		t.Errorf("the same session's snippet or id differ: %v", dc)
	}
	st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", body: `{"checkout_session_id": "` + id + `", "external_id": "order-88", "meta": {"channel": "app"}}`})
	back := st.ok(t, dcCall{method: "GET", path: "/v1/siw/session.get?id=" + id})
	if jsonPath(back, "session.external_id") != "order-88" || jsonPath(back, "session.meta.channel") != "app" {
		t.Errorf("/v1/siw after the /v1/delivery_checkout update: %v", back["session"])
	}

	created := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.create", body: dcCreate})
	id2 := jsonPath(created, "session.checkout_session_id").(string)
	st.ok(t, dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: map[string]string{widgetTokenHeader: created["token"].(string)}, body: dcAddress})
	done := st.ok(t, dcCall{method: "POST", path: "/v1/siw/session.complete", body: `{"id": "` + id2 + `", "customer": {"email": "anna@example.com",
	  "address": {"name": "Anna Berg", "street": "Götgatan", "postal_code": "118 26", "country": "SE"}}}`})
	read := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id2})
	if jsonPath(read, "session.status") != "COMPLETE" || jsonPath(read, "session.delivery_groups.0.tos_id") != done["tos_id"] ||
		jsonPath(read, "session.delivery_groups.0.addresses.delivery_address.first_name") != "Anna" {
		t.Errorf("completed through /v1/siw, read through /v1/delivery_checkout: %v", read["session"])
	}
}

// Bad input: unknown and other sites' ids are 404, a postal code that is
// not its country's is 400 naming the field, the widget's address call
// takes only the session's widget token, and a key is needed.
func TestDeliveryCheckoutBadInput(t *testing.T) {
	st := newDCStack(t, "http://example.com/v1/siw/_/", RateLimits{})
	created := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.create", body: dcCreate})
	id := jsonPath(created, "session.checkout_session_id").(string)
	token := created["token"].(string)
	other := map[string]string{"Authorization": bearer("demo-key-2")}
	for _, tc := range []struct {
		name   string
		call   dcCall
		status int
		field  string
	}{
		{"unknown id", dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=siw_nope", header: siwKey}, 404, "checkout_session_id"},
		{"another site's get", dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id, header: other}, 404, "checkout_session_id"},
		{"another site's pull", dcCall{method: "GET", path: "/v1/delivery_checkout/session.pull?checkout_session_id=" + id, header: other}, 404, "checkout_session_id"},
		{"another site's update", dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", header: other,
			body: `{"checkout_session_id": "` + id + `", "external_id": "x"}`}, 404, "checkout_session_id"},
		{"another site's complete", dcCall{method: "POST", path: "/v1/delivery_checkout/session.complete", header: other,
			body: `{"checkout_session_id": "` + id + `"}`}, 404, "checkout_session_id"},
		{"no id", dcCall{method: "GET", path: "/v1/delivery_checkout/session.get", header: siwKey}, 400, "checkout_session_id"},
		{"update with nothing", dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", header: siwKey,
			body: `{"checkout_session_id": "` + id + `"}`}, 400, "cart"},
		{"object id a reserved word", dcCall{method: "POST", path: "/v1/delivery_checkout/session.update", header: siwKey,
			body: `{"checkout_session_id": "` + id + `", "snippet_configuration": {"object_id": "class"}}`}, 400, "snippet_configuration.object_id"},
		{"container id too long", dcCall{method: "POST", path: "/v1/delivery_checkout/session.create", header: siwKey,
			body: strings.Replace(dcCreate, `"locales"`, `"snippet_configuration": {"container_id": "`+strings.Repeat("c", 65)+`"}, "locales"`, 1)}, 400, "snippet_configuration.container_id"},
		{"no key", dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id}, 401, ""},
		{"unknown path", dcCall{method: "GET", path: "/v1/delivery_checkout/session.nope", header: siwKey}, 404, ""},
		{"bad postal code", dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: map[string]string{widgetTokenHeader: token},
			body: strings.Replace(dcAddress, `"118 26"`, `"1182"`, 1)}, 400, "delivery_address.postal_code"},
		{"bad billing postal code", dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: map[string]string{widgetTokenHeader: token},
			body: `{"delivery_address": ` + jsonPath(mustJSON(dcAddress), "delivery_address_raw").(string) + `, "billing_address": {"first_name": "A", "last_name": "B",
			  "street": "Hauptstr. 1", "postal_code": "1011", "city": "Berlin", "country": "DE"}}`}, 400, "billing_address.postal_code"},
		{"no widget token", dcCall{method: "POST", path: "/v1/siw/_/widget/address", body: dcAddress}, 401, ""},
		{"unknown widget token", dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: map[string]string{widgetTokenHeader: "wt_guess"}, body: dcAddress}, 404, ""},
		{"an API key is no widget token", dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: siwKey, body: dcAddress}, 401, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := st.do(t, tc.call)
			if code != tc.status || tc.field != "" && errorField(body) != tc.field {
				t.Errorf("%d %v; want %d naming %q", code, body, tc.status, tc.field)
			}
		})
	}
	// Nothing of those changed the session.
	got := st.ok(t, dcCall{method: "GET", path: "/v1/delivery_checkout/session.get?checkout_session_id=" + id})
	if jsonPath(got, "session.delivery_groups.0.addresses.delivery_address") != nil || jsonPath(got, "session.delivery_groups.0.external_id") != "order-77" {
		t.Errorf("the session changed: %v", got["session"])
	}
}

// mustJSON decodes a request body of these tests and adds, for each
// top-level member, its raw text under "<name>_raw".
func mustJSON(s string) map[string]any {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		panic(err)
	}
	out := map[string]any{}
	for k, v := range raw {
		out[k+"_raw"] = string(v)
	}
	return out
}

// The widget's address call counts against the widget token's rate limit,
// as its other calls do.
func TestWidgetAddressRateLimit(t *testing.T) {
	st := newDCStack(t, "http://example.com/v1/siw/_/", RateLimits{WidgetToken: RateLimit{PerSecond: 1, Burst: 2}, Address: RateLimit{PerSecond: -1}})
	created := st.ok(t, dcCall{method: "POST", path: "/v1/delivery_checkout/session.create", body: dcCreate})
	widget := map[string]string{widgetTokenHeader: created["token"].(string)}
	var codes []int
	for range 4 {
		code, _ := st.do(t, dcCall{method: "POST", path: "/v1/siw/_/widget/address", header: widget, body: dcAddress})
		codes = append(codes, code)
	}
	if diff := cmp.Diff([]int{200, 200, 429, 429}, codes); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if code, _ := st.do(t, dcCall{method: "GET", path: "/v1/siw/_/widget/state", header: widget}); code != 429 {
		t.Errorf("widget state after the token's budget went on addresses: %d", code)
	}
}

// errorField is the field an error body names: details.source in the
// newer generation (details is an object), the first violation's field in
// area C's widget endpoints (details is a list).
func errorField(body map[string]any) any {
	if d, ok := body["details"].(map[string]any); ok {
		return d["source"]
	}
	return jsonPath(body, "details.0.field")
}
