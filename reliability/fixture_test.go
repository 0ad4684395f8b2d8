package reliability

import (
	"fmt"
	"strings"

	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/tracking"
)

// fixture is one demo-site of every kind of record, made over HTTP, with
// the ids, tokens and links another site must not reach.
type fixture struct {
	checkoutID     string // an ACTIVE checkout session
	widgetToken    string // its widget token
	completedID    string // a COMPLETE checkout session
	tosID          string // its order id, also a tracking order
	trackingNumber string // a delivered parcel of that order
	openParcel     string // a parcel of that order with no events yet
	trackingToken  string // the token of the order's tracking page link
	notificationID string // a notification of that parcel
	sessionName    string // an ACTIVE delivery session
	sessionEtag    string
	doneSession    string // a COMPLETED delivery session
	returnsOrderID string // an imported returns order
	returnID       string // a customer return of it
	statusToken    string // its status page token
	refundID       string // the refund transaction of its inspection
	shipmentID     string // a CREATED shipment
	deliveryID     string // its delivery
	bookedID       string // a BOOKED shipment
	bookedTN       string // the tracking number of its delivery
}

// secrets are values of demo-site's records that no answer to another
// site may contain.
var secrets = []string{"Lagervägen", "Uppsala", "anna@example.com", "Anna Svensson", "Sergels torg", "erik@example.com", "Götgatan", "Demo Outdoor Store", "JACKET-M", "tent-2p"}

const checkoutCreate = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
  "cart": {"cart_id": "%s", "total_value": 45000, "items": [{"sku": "tent-2p", "name": "Tent", "quantity": 1, "price": 45000}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}}`

const checkoutCustomer = `{"email": "anna@example.com", "phone": "+46701234567",
  "address": {"name": "Anna Svensson", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}`

const sessionCreate = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
  "deliveries": [{"id": "d1",
    "line_items": [{"sku": "tent-2p", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
    "recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE",
      "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}`

const sessionComplete = `{"delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "external_id": "%s"}]}`

const returnsOrder = `{"foreignId": "%s", "foreignName": "#1001", "foreignNumber": %d, "currencyCode": "SEK", "email": "anna@example.com",
  "items": [{"foreignLineItemId": "L1", "sku": "JACKET-M", "productTitle": "Jacket", "quantity": 3, "purchasePriceAmount": {"amount": 1299.90, "itemTax": 259.98}}]}`

const shipmentCreate = `{"external_id": "%s",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100}, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]%s}`

const pickupWindow = `"pickup_window": {"start": "2026-11-23T13:00:00Z", "end": "2026-11-23T16:00:00Z"}`

// seed writes the fixture for demo-site, failing the test on any refusal.
func seed(e *env) fixture {
	e.t.Helper()
	var f fixture
	must := func(r resp, want int, what string) resp {
		e.t.Helper()
		if r.status != want {
			e.t.Fatalf("seed %s: %d %s", what, r.status, r.raw)
		}
		return r
	}
	r := must(e.do("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "order-1001")), 200, "checkout create")
	f.checkoutID, f.widgetToken = str(r.body, "session", "id"), str(r.body, "token")

	r = must(e.do("POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "order-1002")), 200, "checkout create")
	f.completedID = str(r.body, "session", "id")
	r = must(e.do("POST", "/v1/siw/session.complete", site1.rest, `{"id": "`+f.completedID+`", "customer": `+checkoutCustomer+`}`), 200, "checkout complete")
	f.tosID = str(r.body, "tos_id")

	f.trackingNumber = "NP100200300SE"
	must(e.do("POST", "/v1/delivery_tracking/parcel", site1.rest, `{"tos_id": "`+f.tosID+`", "tracking_number": "`+f.trackingNumber+`",
		"carrier_product_ref": "north-parcel-point", "direction_type": "OUTBOUND"}`), 200, "parcel")
	f.openParcel = "NP200300400SE"
	must(e.do("POST", "/v1/delivery_tracking/parcel", site1.rest, `{"tos_id": "`+f.tosID+`", "tracking_number": "`+f.openParcel+`",
		"carrier_product_ref": "north-parcel-point", "direction_type": "OUTBOUND"}`), 200, "parcel")
	must(e.do("POST", "/v1/delivery_tracking/parcel.event", site1.rest, `{"tracking_number": "`+f.trackingNumber+`",
		"time": "2026-11-23T10:00:00Z", "step": "STEP_DELIVERED_TO_CONSUMER"}`), 200, "parcel event")
	r = must(e.do("POST", "/v1/delivery_tracking/generate_tracking_page_link", site1.rest, `{"order_id": "order-1002", "locale": "sv-SE"}`), 200, "link")
	link := str(r.body, "tracking_link")
	_, tok, ok := strings.Cut(link, tracking.PagePath)
	if !ok {
		e.t.Fatalf("tracking link %q lacks %s", link, tracking.PagePath)
	}
	f.trackingToken, _, _ = strings.Cut(tok, "?")
	r = must(e.do("GET", "/v1/delivery_tracking/notifications?external_id=order-1002", site1.rest, ""), 200, "notifications")
	if f.notificationID = str(r.body, "notifications", 0, "id"); f.notificationID == "" {
		e.t.Fatalf("seed: no notification: %s", r.raw)
	}

	r = must(e.do("POST", "/delivery/v1/sessions", site1.rpc, sessionCreate), 200, "session create")
	f.sessionName, f.sessionEtag = str(r.body, "name"), str(r.body, "etag")
	r = must(e.do("POST", "/delivery/v1/sessions", site1.rpc, sessionCreate), 200, "session create")
	f.doneSession = str(r.body, "name")
	must(e.do("POST", "/delivery/v1/"+f.doneSession+":complete", site1.rpc, fmt.Sprintf(sessionComplete, "web-5001")), 200, "session complete")

	r = must(e.do("POST", "/returns/merchant/order", site1.spring, fmt.Sprintf(returnsOrder, "A-1", 1001)), 201, "returns order")
	f.returnsOrderID = fmt.Sprint(get(r.body, "id"))
	r = must(e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "A-1", "email": "anna@example.com",
		"items": [{"foreignLineItemId": "L1", "quantity": 1, "reason": "too small"}]}`), 201, "customer return")
	f.returnID = fmt.Sprint(get(r.body, "id"))
	_, f.statusToken, ok = strings.Cut(str(r.body, "statusUrl"), returns.StatusPagePath)
	if !ok {
		e.t.Fatalf("statusUrl %q lacks %s", str(r.body, "statusUrl"), returns.StatusPagePath)
	}
	// A second return, left open, so that items/returned by order has
	// something to find.
	must(e.do("POST", "/returns/customer/return", nil, `{"siteId": "demo-site", "foreignOrderId": "A-1", "email": "anna@example.com",
		"items": [{"foreignLineItemId": "L1", "quantity": 1}]}`), 201, "customer return")
	r = must(e.do("POST", "/returns/merchant/items/returned", site1.spring, `{"returnId": `+f.returnID+`, "items": [{"sku": "JACKET-M", "quantity": 1, "approved": true}]}`), 200, "items returned")
	f.refundID = fmt.Sprint(get(r.body, "refundTransactions", 0, "refundId"))
	if f.refundID == "<nil>" {
		e.t.Fatalf("seed: no refund transaction: %s", r.raw)
	}

	r = must(e.do("POST", "/v1/som/shipments.create", site1.rest, fmt.Sprintf(shipmentCreate, "S-1", "")), 200, "shipment create")
	f.shipmentID, f.deliveryID = str(r.body, "id"), str(r.body, "parcels", 0, "deliveries", 0, "id")
	r = must(e.do("POST", "/v1/som/shipments.create", site1.rest, fmt.Sprintf(shipmentCreate, "S-2", "")), 200, "shipment create")
	f.bookedID = str(r.body, "id")
	r = must(e.do("POST", "/v1/som/shipments.bookParcels", site1.rest, `{"shipment_id": "`+f.bookedID+`"}`), 200, "book parcels")
	if f.bookedTN = str(r.body, "shipment", "parcels", 0, "deliveries", 0, "tracking_number"); f.bookedTN == "" {
		e.t.Fatalf("seed: booking gave no tracking number: %s", r.raw)
	}
	return f
}
