package reliability

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
)

// style is an area's error body shape.
type style int

const (
	styleREST   style = iota // A, B, C: {error, trace_id, details}
	styleRPC                 // D: {code, message, details}
	styleSpring              // E: {timestamp, status, error, message, path}
)

// bodyEndpoint is an endpoint that takes a JSON body, with a body it
// accepts.
type bodyEndpoint struct {
	name   string
	method string
	path   string
	header map[string]string
	style  style
	valid  string
}

func bodyEndpoints(f fixture) []bodyEndpoint {
	widget := map[string]string{"X-Widget-Token": f.widgetToken}
	return []bodyEndpoint{
		{"A order", "POST", "/v1/delivery_tracking/order", site1.rest, styleREST, `{"site_id": "demo-site", "external_id": "bad-1", "carrier_product_ref": "north-parcel-home",
			"sender": {"name": "Demo Outdoor Store", "address": {"city": "Stockholm", "country": "SE"}}, "receiver": {"name": "Alva Berg", "email": "alva@example.com"},
			"destination": {"address": {"address_lines": ["Storgatan 1"], "city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY",
			"cart": {"items": [{"sku": "s1", "name": "Sock", "quantity": 2, "price": 100, "discount": 0}], "total": 200, "discount": 0, "currency": "SEK"}}`},
		{"A parcel", "POST", "/v1/delivery_tracking/parcel", site1.rest, styleREST, `{"tos_id": "` + f.tosID + `", "tracking_number": "NP555", "carrier_product_ref": "north-parcel-point",
			"direction_type": "OUTBOUND", "line_items": [{"sku": "tent-2p", "quantity": 1, "price": 45000, "currency": "SEK"}]}`},
		{"A link", "POST", "/v1/delivery_tracking/generate_tracking_page_link", site1.rest, styleREST, `{"order_id": "order-1002", "locale": "sv-SE"}`},
		{"A event", "POST", "/v1/delivery_tracking/parcel.event", site1.rest, styleREST, `{"tracking_number": "` + f.openParcel + `", "time": "2026-11-23T10:30:00Z", "step": "STEP_ON_ROUTE"}`},
		{"B retrigger", "POST", "/v1/delivery_tracking/notification.retrigger", site1.rest, styleREST, `{"notification_id": "` + f.notificationID + `"}`},
		{"C create", "POST", "/v1/siw/session.create", site1.rest, styleREST, fmt.Sprintf(checkoutCreate, "bad-cart")},
		{"C update", "POST", "/v1/siw/session.update", site1.rest, styleREST, `{"id": "` + f.checkoutID + `", "cart": {"cart_id": "c2", "total_value": 100,
			"items": [{"sku": "s", "name": "S", "quantity": 1, "price": 100}]}, "customer": ` + checkoutCustomer + `}`},
		{"C complete", "POST", "/v1/siw/session.complete", site1.rest, styleREST, `{"id": "` + f.checkoutID + `", "customer": ` + checkoutCustomer + `}`},
		{"C widget select", "POST", "/v1/siw/_/widget/select", widget, styleREST, `{"option_id": "home/north-parcel-home", "addon_ids": []}`},
		{"C2 create", "POST", "/v1/delivery_checkout/session.create", site1.rest, styleREST, fmt.Sprintf(checkoutCreate, "bad-cart-2")},
		{"C2 update", "POST", "/v1/delivery_checkout/session.update", site1.rest, styleREST, `{"checkout_session_id": "` + f.checkoutID + `",
			"cart": {"cart_id": "c2", "total_value": 100, "items": [{"sku": "s", "name": "S", "quantity": 1, "price": 100}]}}`},
		{"D create", "POST", "/delivery/v1/sessions", site1.rpc, styleRPC, sessionCreate},
		{"D patch", "PATCH", "/delivery/v1/" + f.sessionName, site1.rpc, styleRPC, sessionCreate},
		{"D complete", "POST", "/delivery/v1/" + f.sessionName + ":complete", site1.rpc, styleRPC, fmt.Sprintf(sessionComplete, "web-7")},
		{"F create", "POST", "/v1/som/shipments.create", site1.rest, styleREST, fmt.Sprintf(shipmentCreate, "S-9", `, "reference": "r-1", "attributes": {"gift": "yes"}`)},
		{"F create and book", "POST", "/v1/som/shipments.createAndBook", site1.rest, styleREST, fmt.Sprintf(shipmentCreate, "S-10", ", "+pickupWindow)},
		{"F book parcels", "POST", "/v1/som/shipments.bookParcels", site1.rest, styleREST, `{"shipment_id": "` + f.shipmentID + `"}`},
		{"F update", "POST", "/v1/som/shipments.update", site1.rest, styleREST, `{"shipment_id": "` + f.shipmentID + `", "reference": "r-2",
			"receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 7"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}}}`},
		{"F add parcel", "POST", "/v1/som/shipments.addParcel", site1.rest, styleREST, `{"shipment_id": "` + f.shipmentID + `",
			"parcel": {"weight": 500, "dimensions": {"length": 100, "width": 100, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}}`},
		{"F book pickup", "POST", "/v1/som/deliveries.bookPickup", site1.rest, styleREST, `{"tracking_number": "` + f.bookedTN + `", ` + pickupWindow + `, "instructions": "gate 2"}`},
		{"F cancel delivery", "POST", "/v1/som/deliveries.cancel", site1.rest, styleREST, `{"delivery_id": "` + f.deliveryID + `"}`},
		{"F cancel", "POST", "/v1/som/shipments.cancel", site1.rest, styleREST, `{"shipment_id": "` + f.shipmentID + `"}`},
		{"F confirm pickup", "POST", "/v1/som/deliveries.confirmPickup", site1.rest, styleREST, `{"tracking_number": "` + f.bookedTN + `", "picked_up_at": "2026-11-23T09:00:00Z"}`},
		{"E import order", "POST", "/returns/merchant/order", site1.spring, styleSpring, fmt.Sprintf(returnsOrder, "B-1", 2001)},
		{"E items returned", "POST", "/returns/merchant/items/returned", site1.spring, styleSpring, `{"foreignOrderId": "A-1", "items": [{"sku": "JACKET-M", "quantity": 1, "approved": true, "comment": "ok"}]}`},
		{"E customer return", "POST", "/returns/customer/return", nil, styleSpring, `{"siteId": "demo-site", "foreignOrderId": "A-1", "email": "anna@example.com",
			"items": [{"foreignLineItemId": "L1", "quantity": 1, "reason": "too small"}]}`},
	}
}

// badCase is one bad request; field, when set, must be named in the
// answer.
type badCase struct {
	endpoint string
	method   string
	target   string
	header   map[string]string
	style    style
	body     string
	field    string
	parent   string // a member of a free-form map may be named by its map
	want     int    // 0: any 4xx; unlimited: see below
}

// unlimited marks input for which neither the published API nor the area
// sets a limit: the body limit bounds it.
// Such a request may succeed; it must still never be a 5xx or a panic, and
// a refusal must be a proper 4xx that writes nothing.
const unlimited = -1

// mutations derives bad bodies from a valid one: malformed JSON, bodies
// that are not objects, an empty object (required fields missing), a body
// past the size limit, and for every member of the valid body at any depth
// a value of the wrong type.
func mutations(ep bodyEndpoint) []badCase {
	mk := func(body, field string, want int) badCase {
		return badCase{endpoint: ep.name, method: ep.method, target: ep.path, header: ep.header, style: ep.style, body: body, field: field, want: want}
	}
	cases := []badCase{
		mk(`{`, "", 400),
		mk(ep.valid[:len(ep.valid)/2], "", 400),
		mk(ep.valid+`}`, "", 400),
		mk(`{"a": 1,}`, "", 400),
		mk("\xff\xfe{}", "", 400),
		mk(`[]`, "", 400),
		mk(`"text"`, "", 400),
		mk(`42`, "", 400),
		mk(`true`, "", 400),
		mk(`{}`, "", 400),
		mk(`{"`+strings.Repeat("x", 2<<20)+`": 1}`, "", http.StatusRequestEntityTooLarge),
	}
	var doc any
	if err := json.Unmarshal([]byte(ep.valid), &doc); err != nil {
		panic(ep.name + ": " + err.Error())
	}
	walk(doc, nil, func(path []any, v any) {
		key, ok := path[len(path)-1].(string)
		if !ok {
			return // array elements are covered through their members
		}
		var wrong any
		switch v.(type) {
		case string:
			wrong = map[string]any{"x": 1}
		case float64:
			wrong = "twelve"
		case bool:
			wrong = "yes"
		case []any:
			wrong = map[string]any{"x": 1}
		case map[string]any:
			wrong = []any{1}
		default:
			return
		}
		c := mk(replaceAt(doc, path, wrong), key, 400)
		if len(path) > 1 {
			c.parent, _ = path[len(path)-2].(string)
		}
		cases = append(cases, c)
	})
	return cases
}

// walk calls fn for every value below v with its path (strings for object
// members, ints for array elements), parents first, in a stable order.
func walk(v any, path []any, fn func([]any, any)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := append(append([]any{}, path...), k)
			fn(p, x[k])
			walk(x[k], p, fn)
		}
	case []any:
		for i, e := range x {
			p := append(append([]any{}, path...), i)
			fn(p, e)
			walk(e, p, fn)
		}
	}
}

// replaceAt returns doc, encoded, with the value at path replaced.
func replaceAt(doc any, path []any, val any) string {
	var cp any
	b, _ := json.Marshal(doc)
	json.Unmarshal(b, &cp)
	parent := cp
	for _, p := range path[:len(path)-1] {
		parent = get(parent, p)
	}
	switch x := parent.(type) {
	case map[string]any:
		x[path[len(path)-1].(string)] = val
	case []any:
		x[path[len(path)-1].(int)] = val
	}
	out, _ := json.Marshal(cp)
	return string(out)
}

// ruleCases are the rules the wire type cannot express: out-of-range
// numbers, unknown enum values, bad formats, cross-field rules and bad
// query parameters.
func ruleCases(f fixture) []badCase {
	eps := map[string]bodyEndpoint{}
	for _, ep := range bodyEndpoints(f) {
		eps[ep.name] = ep
	}
	set := func(name string, field string, val any, path ...any) badCase {
		ep := eps[name]
		var doc any
		json.Unmarshal([]byte(ep.valid), &doc)
		return badCase{endpoint: ep.name, method: ep.method, target: ep.path, header: ep.header, style: ep.style, body: replaceAt(doc, path, val), field: field, want: 400}
	}
	body := func(name, field, b string) badCase {
		ep := eps[name]
		return badCase{endpoint: ep.name, method: ep.method, target: ep.path, header: ep.header, style: ep.style, body: b, field: field, want: 400}
	}
	query := func(name, target string, hd map[string]string, st style, field string) badCase {
		return badCase{endpoint: name, method: "GET", target: target, header: hd, style: st, field: field, want: 400}
	}
	huge := strings.Repeat("ä", 300_000) // 600 KB: under the body limit
	lenient := func(c badCase) badCase { c.want = unlimited; return c }
	anyClient := func(c badCase) badCase { c.want = 0; return c }
	// A stale or malformed etag is ABORTED (409), not a field error.
	conflict := func(c badCase) badCase { c.want, c.field = http.StatusConflict, "etag"; return c }
	return []badCase{
		// A
		set("A order", "delivery_type", "TELEPORT", "delivery_type"),
		set("A order", "country", "Sweden", "destination", "address", "country"),
		set("A order", "quantity", 1<<40, "cart", "items", 0, "quantity"),
		set("A order", "total", 1e300, "cart", "total"),
		set("A order", "currency", "KRONOR", "cart", "currency"),
		set("A order", "email", "not-an-address", "receiver", "email"),
		set("A order", "carrier_product_ref", "no-such-product", "carrier_product_ref"),
		lenient(set("A order", "external_id", huge, "external_id")),
		lenient(set("A order", "name", huge, "receiver", "name")),
		set("A order", "external_id", "", "external_id"),
		set("A parcel", "direction_type", "SIDEWAYS", "direction_type"),
		set("A parcel", "delivery_type", "TELEPORT", "delivery_type"),
		lenient(set("A parcel", "tracking_number", huge, "tracking_number")),
		set("A parcel", "quantity", -1, "line_items", 0, "quantity"),
		set("A link", "locale", "swedish", "locale"),
		anyClient(set("A link", "locale", huge, "locale")),
		body("A link", "order_id", `{"locale": "sv-SE"}`),
		set("A event", "step", "STEP_TELEPORTED", "step"),
		set("A event", "time", "yesterday", "time"),
		set("A event", "time", "2026-13-45T99:00:00Z", "time"),
		body("A event", "alert", `{"tracking_number": "`+f.trackingNumber+`", "time": "2026-11-23T10:30:00Z", "alert": "ALERT_ALIENS"}`),
		anyClient(set("B retrigger", "notification_id", huge, "notification_id")),
		// C
		set("C create", "purchase_country", "XX", "purchase_country"),
		set("C create", "purchase_currency", "XYZ", "purchase_currency"),
		set("C create", "locales", []any{"klingon"}, "locales"),
		set("C create", "total_value", -5, "cart", "total_value"),
		lenient(set("C create", "quantity", 1<<40, "cart", "items", 0, "quantity")),
		set("C create", "quantity", -1, "cart", "items", 0, "quantity"),
		set("C create", "price", 1e30, "cart", "items", 0, "price"),
		lenient(set("C create", "sku", huge, "cart", "items", 0, "sku")),
		set("C create", "country", "ZZ", "search_address", "country"),
		set("C update", "email", "nope", "customer", "email"),
		set("C update", "country", "Sweden", "customer", "address", "country"),
		lenient(set("C complete", "name", huge, "customer", "address", "name")),
		set("C widget select", "option_id", "no/such/option", "option_id"),
		// D
		set("D create", "country_code", "SWE", "purchase", "country_code"),
		set("D create", "currency_code", "kr", "purchase", "currency_code"),
		set("D create", "total_value", "-1", "purchase", "total_value"),
		set("D create", "total_value", "12abc", "purchase", "total_value"),
		set("D create", "total_value", "99999999999999999999999", "purchase", "total_value"),
		set("D create", "locales", []any{"xx"}, "purchase", "locales"),
		set("D create", "weight", 0, "deliveries", 0, "line_items", 0, "weight"),
		set("D create", "weight", -3, "deliveries", 0, "line_items", 0, "weight"),
		set("D create", "quantity", 1<<40, "deliveries", 0, "line_items", 0, "quantity"),
		set("D create", "dimensions", map[string]any{"height": 0, "length": 1, "width": 1}, "deliveries", 0, "line_items", 0, "dimensions"),
		lenient(set("D create", "title", huge, "deliveries", 0, "line_items", 0, "title")),
		set("D create", "lat", 91, "deliveries", 0, "recipient_contact", "address", "coordinates"),
		set("D create", "earliest_time", "soon", "deliveries", 0, "fulfillments", 0, "readiness", "earliest_time"),
		conflict(set("D patch", "etag", `"zz9"`, "etag")),
		set("D complete", "option_id", "no/such/option", "delivery_choices", 0, "option_id"),
		set("D complete", "delivery_id", "d9", "delivery_choices", 0, "delivery_id"),
		lenient(set("D complete", "external_id", huge, "delivery_choices", 0, "external_id")),
		// F
		set("F create", "weight", 0, "parcels", 0, "weight"),
		set("F create", "weight", -5, "parcels", 0, "weight"),
		set("F create", "weight", 1<<40, "parcels", 0, "weight"),
		set("F create", "height", 0, "parcels", 0, "dimensions", "height"),
		set("F create", "carrier_product_ref", "no-such-product", "parcels", 0, "deliveries", 0, "carrier_product_ref"),
		set("F create", "direction_type", "SIDEWAYS", "direction_type"),
		set("F create", "country", "Sweden", "receiver", "address", "country"),
		set("F create", "email", "nope", "receiver", "email"),
		set("F create", "reference", strings.Repeat("r", 65), "reference"),
		set("F create", "external_id", huge, "external_id"),
		set("F create", "parcels", []any{}, "parcels"),
		set("F create", "name", huge, "receiver", "name"),
		set("F create and book", "end", "2026-11-23T08:00:00Z", "pickup_window", "end"),
		set("F create and book", "start", "noon", "pickup_window", "start"),
		set("F update", "reference", strings.Repeat("r", 65), "reference"),
		anyClient(set("F update", "shipment_id", huge, "shipment_id")),
		set("F add parcel", "weight", 0, "parcel", "weight"),
		// Without a parcel, addParcel duplicates the first parcel: no error.
		body("F add parcel", "shipment_id", `{"parcel": {"weight": 100}}`),
		set("F book pickup", "pickup_window", map[string]any{"start": "2026-11-23T13:00:00Z"}, "pickup_window"),
		set("F book pickup", "instructions", strings.Repeat("i", 513), "instructions"),
		body("F book pickup", "tracking_number", `{`+pickupWindow+`}`),
		body("F cancel delivery", "tracking_number", `{}`),
		set("F confirm pickup", "picked_up_at", "yesterday", "picked_up_at"),
		query("F get none", "/v1/som/shipments.get", site1.rest, styleREST, ""),
		query("F get two", "/v1/som/shipments.get?id="+f.shipmentID+"&external_id=S-1", site1.rest, styleREST, ""),
		query("F delivery none", "/v1/som/deliveries.get", site1.rest, styleREST, "tracking_number"),
		query("F label format", "/v1/som/labels/"+f.bookedTN+"?format=bmp", site1.rest, styleREST, "format"),
		// E
		set("E import order", "currencyCode", "XYZ", "currencyCode"),
		set("E import order", "email", "nope", "email"),
		set("E import order", "quantity", 0, "items", 0, "quantity"),
		set("E import order", "amount", -1, "items", 0, "purchasePriceAmount", "amount"),
		set("E import order", "amount", 1.001, "items", 0, "purchasePriceAmount", "amount"),
		set("E import order", "amount", 1e300, "items", 0, "purchasePriceAmount", "amount"),
		set("E import order", "foreignNumber", -1, "foreignNumber"),
		set("E import order", "foreignId", huge, "foreignId"),
		body("E items returned", "returnId", `{"returnId": 1, "foreignOrderId": "A-1", "items": [{"sku": "JACKET-M", "quantity": 1}]}`),
		set("E items returned", "quantity", 0, "items", 0, "quantity"),
		set("E items returned", "comment", huge, "items", 0, "comment"),
		set("E customer return", "quantity", 100000, "items", 0, "quantity"),
		set("E customer return", "reason", huge, "items", 0, "reason"),
		// Query parameters.
		query("A parcels both", "/v1/delivery_tracking/parcels?external_id=order-1002&tracking_number="+f.trackingNumber, site1.rest, styleREST, "tracking_number"),
		query("A parcels neither", "/v1/delivery_tracking/parcels", site1.rest, styleREST, ""),
		query("A orders locale", "/v1/delivery_tracking/orders?locale=klingon-language", site1.rest, styleREST, "locale"),
		query("A promise accuracy group_by", "/v1/delivery_tracking/promise_accuracy?group_by=carrier", site1.rest, styleREST, "group_by"),
		query("A promise accuracy from", "/v1/delivery_tracking/promise_accuracy?group_by=week&from=2020-01-01&to=2026-01-01", site1.rest, styleREST, "from"),
		query("C get no id", "/v1/siw/session.get", site1.rest, styleREST, "id"),
		query("B notifications no external id", "/v1/delivery_tracking/notifications", site1.rest, styleREST, "external_id"),
		query("E order number not a number", "/returns/merchant/order/abc?idType=FOREIGN_NUMBER", site1.spring, styleSpring, "orderId"),
		{endpoint: "C widget without token", method: "GET", target: "/v1/siw/_/widget/state", style: styleREST, want: 401},
		// GET serves one custom method, :order; another is unknown, as an
		// unknown verb on POST is.
		{endpoint: "D name with a verb on GET", method: "GET", target: "/delivery/v1/" + f.sessionName + ":convert", header: site1.rpc, style: styleRPC, want: 404},
		{endpoint: "D wrong method", method: "PUT", target: "/delivery/v1/" + f.sessionName, header: site1.rpc, style: styleRPC, body: sessionCreate, want: 405},
		{endpoint: "C wrong method", method: "DELETE", target: "/v1/siw/session.get", header: site1.rest, style: styleREST, want: 405},
		{endpoint: "E wrong method", method: "DELETE", target: "/returns/merchant/return/1", header: site1.spring, style: styleSpring, want: 405},
		{endpoint: "F wrong method", method: "GET", target: "/v1/som/shipments.create", header: site1.rest, style: styleREST, want: 405},
		{endpoint: "D convert format", method: "POST", target: "/delivery/v1/" + f.sessionName + ":convert?format=PDF", header: site1.rpc, style: styleRPC, field: "format", want: 400},
		{endpoint: "D unknown verb", method: "POST", target: "/delivery/v1/" + f.sessionName + ":explode", header: site1.rpc, style: styleRPC, want: 404},
		query("E orders page", "/returns/merchant/order?page=-1", site1.spring, styleSpring, "page"),
		query("E orders size", "/returns/merchant/order?size=lots", site1.spring, styleSpring, "size"),
		query("E orders size overflow", "/returns/merchant/order?size=99999999999999", site1.spring, styleSpring, "size"),
		query("E orders sort field", "/returns/merchant/order?sort=password,asc", site1.spring, styleSpring, "password"),
		query("E orders sort empty", "/returns/merchant/order?sort=,desc", site1.spring, styleSpring, "sort"),
		query("E returns afterId", "/returns/merchant/return?afterId=-4", site1.spring, styleSpring, "afterId"),
		query("E returns afterDate", "/returns/merchant/return?afterDate=yesterday", site1.spring, styleSpring, "afterDate"),
		query("E order idType", "/returns/merchant/order/A-1?idType=EMAIL", site1.spring, styleSpring, "idType"),
		query("E return id", "/returns/merchant/return/abc", site1.spring, styleSpring, "returnId"),
		query("E refund status", "/returns/merchant/refund/transaction?status=MAYBE", site1.spring, styleSpring, "status"),
		{endpoint: "E refunded id", method: "POST", target: "/returns/merchant/refund/transaction/-1/refunded", header: site1.spring, style: styleSpring, field: "refundTransactionId", want: 400},
	}
}

// unnamedFields are reported gaps: a wrong-typed value the answer does not
// name the field of, mapped to what the answer says instead. An entry
// fails the test once its gap is closed, so it is removed with the fix.
// (The decimal amounts of area E were one, until returns.Decimal reported
// its own type errors.)
var unnamedFields = map[string]string{}

// TestBadInput sends every bad request and checks the answer: a 4xx in
// the area's error shape, naming the field when there is one, never a 5xx
// or a panic, and no committed write.
func TestBadInput(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	f := seed(e)
	var cases []badCase
	for _, ep := range bodyEndpoints(f) {
		acceptsValid(t, ep.name)
		cases = append(cases, mutations(ep)...)
	}
	cases = append(cases, ruleCases(f)...)
	var accepted []string
	knownGapsSeen := map[string]bool{}
	for i, c := range cases {
		label := fmt.Sprintf("#%d %s %s %.120s", i, c.endpoint, c.method, c.body)
		env := e
		if c.want == unlimited {
			// It may succeed and change state: a fresh world of its own.
			env = newEnv(t, nil)
			ff := seed(env)
			c.body = strings.NewReplacer(f.checkoutID, ff.checkoutID, f.sessionName, ff.sessionName, f.tosID, ff.tosID).Replace(c.body)
			c.target = strings.NewReplacer(f.sessionName, ff.sessionName).Replace(c.target)
		}
		before := env.store.writes.Load()
		r := env.do(c.method, c.target, c.header, c.body)
		switch {
		case c.want == unlimited && r.status/100 == 2:
			accepted = append(accepted, fmt.Sprintf("%s %s (%d)", c.endpoint, c.field, r.status))
			continue
		case r.status/100 != 4 || (c.want > 0 && r.status != c.want):
			t.Errorf("%s: %d %.300s, want %d", label, r.status, r.raw, c.want)
			continue
		}
		checkShape(t, label, c.style, c.target, r)
		named := strings.Contains(string(r.raw), c.field) || c.parent != "" && strings.Contains(string(r.raw), `"`+c.parent+`"`)
		if c.field != "" && !named {
			if gap, known := unnamedFields[c.endpoint+" "+c.field]; known && strings.Contains(string(r.raw), gap) {
				knownGapsSeen[c.endpoint+" "+c.field] = true
			} else {
				t.Errorf("%s: the answer does not name %q: %s", label, c.field, r.raw)
			}
		}
		if n := env.store.writes.Load() - before; n != 0 {
			t.Errorf("%s: %d writes committed", label, n)
		}
	}
	for k := range unnamedFields {
		if !knownGapsSeen[k] {
			t.Errorf("%s: the known gap is gone: remove it from unnamedFields", k)
		}
	}
	t.Logf("accepted without a declared limit: %s", strings.Join(accepted, "; "))
	t.Logf("%d bad requests over %d endpoints with a body and the query endpoints", len(cases), len(bodyEndpoints(f)))
	if strings.Contains(e.log.String(), "panic") {
		t.Errorf("a handler panicked:\n%s", e.log.String())
	}
}

// acceptsValid checks, in a world of its own, that the endpoint's valid
// body is accepted: the mutations of it test what they claim to.
func acceptsValid(t *testing.T, name string) {
	t.Helper()
	e := newEnv(t, nil)
	for _, ep := range bodyEndpoints(seed(e)) {
		if ep.name == name {
			if r := e.do(ep.method, ep.path, ep.header, ep.valid); r.status/100 != 2 {
				t.Errorf("%s: the valid body is refused: %d %s", ep.name, r.status, r.raw)
			}
		}
	}
}

// checkShape checks an error body against its area's shape.
func checkShape(t *testing.T, label string, st style, target string, r resp) {
	t.Helper()
	b := r.body
	if b == nil {
		t.Errorf("%s: the error body is not a JSON object: %s", label, r.raw)
		return
	}
	switch st {
	case styleREST:
		msg, _ := b["error"].(string)
		if msg == "" || !strings.Contains(msg, ": ") || b["trace_id"] != r.header.Get("X-Trace-Id") || b["trace_id"] == "" {
			t.Errorf("%s: not the {error, trace_id, details} shape: %s", label, r.raw)
		}
	case styleRPC:
		code, ok := b["code"].(float64)
		_, hasDetails := b["details"].([]any)
		if !ok || code == 0 || b["message"] == "" || !hasDetails {
			t.Errorf("%s: not the {code, message, details} shape: %s", label, r.raw)
		}
	case styleSpring:
		path, _, _ := strings.Cut(target, "?")
		if b["status"] != float64(r.status) || b["error"] != http.StatusText(r.status) || b["path"] != path || b["timestamp"] == nil || b["message"] == nil {
			t.Errorf("%s: not the {timestamp, status, error, message, path} shape: %s", label, r.raw)
		}
	}
}
