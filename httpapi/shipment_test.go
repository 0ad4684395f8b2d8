package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/google/go-cmp/cmp"
)

type shipmentEnv struct {
	s     *server
	h     http.Handler // s.handler, every answer checked against openapi/shipment.json
	demo  *carrier.Demo
	track *tracking.Service
}

func newShipmentEnv(t *testing.T) *shipmentEnv { return newShipmentEnvOrders(t, nil) }

// newShipmentEnvOrders is newShipmentEnv whose shipments may name orders.
func newShipmentEnvOrders(t *testing.T, orders shipment.Orders) *shipmentEnv {
	t.Helper()
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	clock := deliverykit.NewManualClock(testTime)
	ids := &deliverykit.SequentialIDs{}
	// Booked parcels reach tracking the way wiring connects them: through
	// the outbox, delivered as the booking commits.
	d := outbox.New(store, outbox.Options{Clock: clock})
	ts, err := tracking.New(d.Store(), tracking.Options{
		Products: tracking.StaticProducts{
			"np-home":  {Ref: "np-home", CarrierID: "north", CarrierName: "North Parcel", DeliveryType: tracking.DeliveryDelivery},
			"np-point": {Ref: "np-point", CarrierID: "north", CarrierName: "North Parcel", DeliveryType: tracking.DeliveryPickup},
		},
		Clock: clock, IDs: ids, PortalURL: "http://portal.test",
	})
	if err != nil {
		t.Fatal(err)
	}
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d.Handle(event.TypeParcelBooked, "tracking", ts.HandleParcelBooked)
	svc, err := shipment.New(d.Store(), shipment.Options{
		Products: shipment.StaticProducts{
			"np-home":  {Ref: "np-home", CarrierID: "north", CarrierName: "North Parcel", Name: "Home Delivery", DeliveryType: shipment.DeliveryDelivery},
			"np-point": {Ref: "np-point", CarrierID: "north", CarrierName: "North Parcel", Name: "Service Point", DeliveryType: shipment.DeliveryPickup},
		},
		DefaultCarrier: demo,
		TrackingLink:   func(token string) string { return ts.PortalLink(token, "en-US") },
		LabelBaseURL:   "http://api.test",
		Orders:         orders,
		Boxes:          testBoxes,
		Clock:          clock, IDs: ids,
	})
	if err != nil {
		t.Fatal(err)
	}
	env := &shipmentEnv{demo: demo, track: ts}
	env.s, _ = newTestServer(t, Options{Shipment: svc, Tracking: ts})
	env.h = shipmentAPIDoc(t).handler(t, env.s.handler)
	return env
}

// shipmentAPIDoc is area F's document for the response checks of
// openapi_test.go: every answer of these tests must match it.
var shipmentAPIDoc = lazyAPIDoc("shipment.json", func() []byte { return shipmentOpenAPI }, "Error")

// ZPL labels are text for the printer; the checks compare the media type.
func init() {
	openapi3filter.RegisterBodyDecoder("application/zpl", openapi3filter.PlainBodyDecoder)
}

const shipmentBody = `{
  "external_id": "ORD-77", "reference": "ORD-77",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"street": "Storgatan", "street_number": "5", "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100},
    "line_items": [{"sku": "TENT-2", "name": "Tent", "quantity": 1, "price": 129900, "currency": "SEK"}],
    "deliveries": [{"carrier_product_ref": "np-home"}]}],
  "some_future_field": {"ignored": true}
}`

func som(method, path, key, body string) call {
	c := call{method: method, path: "/v1/som" + path, body: body}
	if key != "" {
		c.header = authed(key)
	}
	return c
}

// str digs a string out of a decoded JSON body: str(b, "parcels", 0, "id").
func str(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}

// dig is the value at a path of keys and indices of a decoded JSON body;
// nil where the path ends early.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// TestShipmentJourney is the spec's call order over HTTP: create, book
// parcels, book pickup; the booked delivery is a tracking parcel; its
// label is printable; the carrier's pickup scan ends cancellability.
func TestShipmentJourney(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h

	resp, created := som("POST", "/shipments.create", "demo-key", shipmentBody).do(t, h)
	if resp.StatusCode != 200 || created["state"] != "CREATED" || str(created, "parcels", 0, "deliveries", 0, "state") != "CREATED" {
		t.Fatalf("create: %d %v", resp.StatusCode, created)
	}
	id := str(created, "id")
	if _, again := som("POST", "/shipments.create", "demo-key", shipmentBody).do(t, h); again["id"] != id {
		t.Errorf("repeated create: %v, want %s", again["id"], id)
	}

	resp, bookedBody := som("POST", "/shipments.bookParcels", "demo-key", `{"shipment_id":"`+id+`"}`).do(t, h)
	// The answer wraps the shipment, as shipment clients read it.
	if diff := cmp.Diff([]string{"shipment"}, keysOf(bookedBody)); diff != "" {
		t.Errorf("bookParcels members (-want +got):\n%s", diff)
	}
	booked, _ := bookedBody["shipment"].(map[string]any)
	tn := str(booked, "parcels", 0, "deliveries", 0, "tracking_number")
	if resp.StatusCode != 200 || booked["state"] != "BOOKED" || carrier.CheckS10(tn) != nil {
		t.Fatalf("bookParcels: %d %v", resp.StatusCode, booked)
	}
	d := booked["parcels"].([]any)[0].(map[string]any)["deliveries"].([]any)[0].(map[string]any)
	if !strings.HasPrefix(str(d, "tracking_link"), "http://portal.test/v1/delivery_tracking/_/page/") {
		t.Errorf("tracking_link %q is not the tracking page", str(d, "tracking_link"))
	}
	if str(d, "label", "pdf_url") != "http://api.test/v1/som/labels/"+tn+"?format=pdf" {
		t.Errorf("label %v", d["label"])
	}

	// The booked delivery is a tracking parcel.
	_, parcels := call{method: "GET", path: "/v1/delivery_tracking/parcels?tracking_number=" + tn, header: authed("demo-key")}.do(t, trackingAPI(t).handler(t, env.s.handler))
	if parcels["external_id"] != "ORD-77" || len(parcels["parcels"].([]any)) != 1 {
		t.Errorf("tracking parcels: %v", parcels)
	}

	// Booked by tracking number, the answer is {"delivery": …}; by
	// shipment id (the extension), {"shipment": …}.
	resp, pickedOne := som("POST", "/deliveries.bookPickup", "demo-key",
		`{"tracking_number":"`+tn+`","pickup_window":{"start":"2026-11-23T09:00:00+01:00","end":"2026-11-23T12:00:00+01:00"}}`).do(t, h)
	if resp.StatusCode != 200 || str(pickedOne, "delivery", "tracking_number") != tn || str(pickedOne, "delivery", "state") != "PICKUP_BOOKED" ||
		str(pickedOne, "delivery", "pickup_window", "start") != "2026-11-23T08:00:00Z" || pickedOne["shipment"] != nil {
		t.Fatalf("bookPickup by tracking number: %d %v", resp.StatusCode, pickedOne)
	}
	resp, pickedBody := som("POST", "/deliveries.bookPickup", "demo-key",
		`{"shipment_id":"`+id+`","pickup_window":{"start":"2026-11-23T09:00:00+01:00","end":"2026-11-23T12:00:00+01:00"}}`).do(t, h)
	picked, _ := pickedBody["shipment"].(map[string]any)
	if resp.StatusCode != 200 || pickedBody["delivery"] != nil || picked["state"] != "PICKUP_BOOKED" || str(picked, "parcels", 0, "deliveries", 0, "pickup_window", "start") != "2026-11-23T08:00:00Z" {
		t.Fatalf("bookPickup: %d %v", resp.StatusCode, pickedBody)
	}
	if b, err := env.demo.Lookup(context.Background(), tn); err != nil || b.Pickup == nil {
		t.Errorf("the carrier was not notified: %+v %v", b, err)
	}

	for _, q := range []string{"id=" + id, "external_id=ORD-77", "tracking_number=" + tn} {
		if resp, got := som("GET", "/shipments.get?"+q, "demo-key", "").do(t, h); resp.StatusCode != 200 || got["id"] != id {
			t.Errorf("shipments.get?%s: %d %v", q, resp.StatusCode, got)
		}
	}
	if resp, got := som("GET", "/deliveries.get?tracking_number="+tn, "demo-key", "").do(t, h); resp.StatusCode != 200 || got["state"] != "PICKUP_BOOKED" || got["shipment_id"] != id {
		t.Errorf("deliveries.get: %d %v", resp.StatusCode, got)
	}

	// Labels.
	for format, ctype := range map[string]string{"": "application/pdf", "pdf": "application/pdf", "zpl": "application/zpl; charset=utf-8"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/v1/som/labels/"+tn+"?format="+format, nil)
		req.Header.Set("Authorization", bearer("demo-key"))
		h.ServeHTTP(rec, req)
		body, _ := io.ReadAll(rec.Result().Body)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != ctype || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("label %q: %d %q", format, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if ctype == "application/pdf" {
			if err := labeltest.CheckPDF(body); err != nil {
				t.Errorf("label PDF: %v", err)
			}
			if codes, err := labeltest.PDFBarcodes(body); err != nil || cmp.Diff([]string{tn}, codes) != "" {
				t.Errorf("label barcode: %v %v", codes, err)
			}
		} else if !strings.Contains(string(body), "^FD"+tn+"^FS") {
			t.Errorf("ZPL lacks the barcode:\n%s", body)
		}
	}

	// The carrier picks it up: it can no longer be cancelled.
	if resp, got := som("POST", "/deliveries.confirmPickup", "demo-key", `{"tracking_number":"`+tn+`"}`).do(t, h); resp.StatusCode != 200 || got["state"] != "PICKED_UP" {
		t.Fatalf("confirmPickup: %d %v", resp.StatusCode, got)
	}
	resp, body := som("POST", "/deliveries.cancel", "demo-key", `{"tracking_number":"`+tn+`"}`).do(t, h)
	if resp.StatusCode != 400 || !strings.HasPrefix(str(body, "error"), "failed precondition: delivery "+tn+" is PICKED_UP") {
		t.Errorf("cancel after pickup: %d %v", resp.StatusCode, body)
	}
	resp, body = som("POST", "/shipments.cancel", "demo-key", `{"shipment_id":"`+id+`"}`).do(t, h)
	if resp.StatusCode != 400 || !strings.Contains(str(body, "error"), "is PICKED_UP") {
		t.Errorf("shipment cancel after pickup: %d %v", resp.StatusCode, body)
	}
}

func TestShipmentCreateAndBookUpdateAddCancel(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h
	body := strings.Replace(shipmentBody, `"external_id": "ORD-77"`, `"external_id": "ORD-78", "pickup_window": {"start":"2026-11-23T09:00:00Z","end":"2026-11-23T12:00:00Z"}`, 1)
	resp, sh := som("POST", "/shipments.createAndBook", "demo-key", body).do(t, h)
	if resp.StatusCode != 200 || sh["state"] != "PICKUP_BOOKED" {
		t.Fatalf("createAndBook: %d %v", resp.StatusCode, sh)
	}
	id := str(sh, "id")
	tn := str(sh, "parcels", 0, "deliveries", 0, "tracking_number")
	if _, again := som("POST", "/shipments.createAndBook", "demo-key", body).do(t, h); str(again, "parcels", 0, "deliveries", 0, "tracking_number") != tn {
		t.Errorf("repeated createAndBook assigned %v", again)
	}

	// Only attributes may change once booked.
	resp, upd := som("POST", "/shipments.update", "demo-key", `{"shipment_id":"`+id+`","attributes":{"gift":"yes"}}`).do(t, h)
	if resp.StatusCode != 200 || str(upd, "attributes", "gift") != "yes" {
		t.Errorf("update attributes: %d %v", resp.StatusCode, upd)
	}
	resp, upd = som("POST", "/shipments.update", "demo-key", `{"shipment_id":"`+id+`","reference":"other"}`).do(t, h)
	if resp.StatusCode != 400 || str(upd, "details", 0, "field") != "reference" || !strings.Contains(str(upd, "error"), "is PICKUP_BOOKED") {
		t.Errorf("update reference when booked: %d %v", resp.StatusCode, upd)
	}
	// A parcel cannot join a shipment whose pickup is booked.
	parcel := `{"shipment_id":"` + id + `","parcel":{"weight":500,"deliveries":[{"carrier_product_ref":"np-home"}]}}`
	if resp, got := som("POST", "/shipments.addParcel", "demo-key", parcel).do(t, h); resp.StatusCode != 400 || !strings.Contains(str(got, "error"), "is PICKUP_BOOKED") {
		t.Errorf("addParcel when PICKUP_BOOKED: %d %v", resp.StatusCode, got)
	}
	resp, c := som("POST", "/deliveries.cancel", "demo-key", `{"tracking_number":"`+tn+`"}`).do(t, h)
	if resp.StatusCode != 200 || c["state"] != "CANCELLED" || str(c, "parcels", 0, "deliveries", 0, "state") != "CANCELLED" {
		t.Errorf("cancel delivery: %d %v", resp.StatusCode, c)
	}
	if resp, got := som("POST", "/shipments.cancel", "demo-key", `{"shipment_id":"`+id+`"}`).do(t, h); resp.StatusCode != 400 || !strings.Contains(str(got, "error"), "is CANCELLED") {
		t.Errorf("cancel a cancelled shipment: %d %v", resp.StatusCode, got)
	}

	// A fresh shipment: add a parcel before booking, cancel the whole.
	_, fresh := som("POST", "/shipments.create", "demo-key", strings.Replace(shipmentBody, "ORD-77", "ORD-79", 1)).do(t, h)
	fid := str(fresh, "id")
	parcel = strings.Replace(parcel, id, fid, 1)
	if resp, got := som("POST", "/shipments.addParcel", "demo-key", parcel).do(t, h); resp.StatusCode != 200 || str(got, "parcels", 1, "id") != fid+"-P2" {
		t.Errorf("addParcel: %d %v", resp.StatusCode, got)
	}
	if resp, got := som("POST", "/shipments.cancel", "demo-key", `{"shipment_id":"`+fid+`"}`).do(t, h); resp.StatusCode != 200 || got["state"] != "CANCELLED" {
		t.Errorf("shipments.cancel: %d %v", resp.StatusCode, got)
	}
}

func TestShipmentErrors(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h
	_, sh := som("POST", "/shipments.createAndBook", "demo-key", shipmentBody).do(t, h)
	id := str(sh, "id")
	tn := str(sh, "parcels", 0, "deliveries", 0, "tracking_number")
	cases := []struct {
		name   string
		c      call
		status int
		prefix string
		field  string
	}{
		{"no key", som("POST", "/shipments.create", "", shipmentBody), 401, "unauthenticated", ""},
		{"wrong method", som("GET", "/shipments.create", "demo-key", ""), 405, "method not allowed", ""},
		{"unknown endpoint", som("POST", "/shipments.explode", "demo-key", "{}"), 404, "not found", ""},
		{"wrong type", som("POST", "/shipments.create", "demo-key", `{"parcels":[{"weight":"heavy"}]}`), 400, "invalid argument", "parcels[0].weight"},
		{"validation", som("POST", "/shipments.create", "demo-key", `{"receiver":{"name":"A","address":{}},"parcels":[{"weight":0,"deliveries":[{"carrier_product_ref":"np-home"}]}]}`), 400, "invalid argument", "parcels[0].weight"},
		{"other site id", som("POST", "/shipments.create", "demo-key", `{"site_id":"demo-site-2"}`), 403, "permission denied", "site_id"},
		{"other site id in query", som("GET", "/shipments.get?id="+id+"&site_id=demo-site-2", "demo-key", ""), 403, "permission denied", "site_id"},
		{"other tenant get", som("GET", "/shipments.get?id="+id, "demo-key-2", ""), 404, "not found", "id"},
		{"other tenant delivery", som("GET", "/deliveries.get?tracking_number="+tn, "demo-key-2", ""), 404, "not found", "tracking_number"},
		{"other tenant label", som("GET", "/labels/"+tn, "demo-key-2", ""), 404, "not found", "tracking_number"},
		{"other tenant book", som("POST", "/shipments.bookParcels", "demo-key-2", `{"shipment_id":"`+id+`"}`), 404, "not found", "shipment_id"},
		{"other tenant cancel", som("POST", "/deliveries.cancel", "demo-key-2", `{"tracking_number":"`+tn+`"}`), 404, "not found", "tracking_number"},
		{"bad S10", som("GET", "/deliveries.get?tracking_number=CP000000015SE", "demo-key", ""), 400, "invalid argument", "tracking_number"},
		{"get without selector", som("GET", "/shipments.get", "demo-key", ""), 400, "invalid argument", "id|external_id|tracking_number"},
		{"label format", som("GET", "/labels/"+tn+"?format=png", "demo-key", ""), 400, "invalid argument", "format"},
		{"pickup window backwards", som("POST", "/deliveries.bookPickup", "demo-key", `{"tracking_number":"`+tn+`","pickup_window":{"start":"2026-11-23T12:00:00Z","end":"2026-11-23T09:00:00Z"}}`), 400, "invalid argument", "pickup_window.end"},
		{"external id reused", som("POST", "/shipments.create", "demo-key", strings.Replace(shipmentBody, `"reference": "ORD-77"`, `"reference": "X"`, 1)), 409, "conflict", "external_id"},
		{"unknown delivery id", som("POST", "/deliveries.cancel", "demo-key", `{"delivery_id":"shp_nope-P1-D1"}`), 404, "not found", "delivery_id"},
	}
	for _, tc := range cases {
		resp, body := tc.c.do(t, h)
		if resp.StatusCode != tc.status || !strings.HasPrefix(str(body, "error"), tc.prefix+": ") || body["trace_id"] == nil {
			t.Errorf("%s: %d %v, want %d %s", tc.name, resp.StatusCode, body, tc.status, tc.prefix)
			continue
		}
		if tc.field != "" && str(body, "details", 0, "field") != tc.field {
			t.Errorf("%s: details %v, want field %s", tc.name, body["details"], tc.field)
		}
	}
}

func TestShipmentOpenAPIServed(t *testing.T) {
	env := newShipmentEnv(t)
	resp, doc := call{method: "GET", path: "/v1/som/openapi.json"}.do(t, env.h)
	if resp.StatusCode != 200 || doc["openapi"] != "3.0.3" {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, doc["openapi"])
	}
	// Every registered operation is documented.
	paths, _ := doc["paths"].(map[string]any)
	for _, p := range []string{"/shipments.create", "/shipments.createAndBook", "/shipments.bookParcels", "/shipments.get", "/shipments.update",
		"/shipments.cancel", "/shipments.addParcel", "/deliveries.bookPickup", "/deliveries.get", "/deliveries.cancel",
		"/deliveries.confirmPickup", "/labels/{tracking_number}", "/documents/{shipment_id}/{kind}", "/manifests", "/manifests/{id}"} {
		if paths[p] == nil {
			t.Errorf("openapi.json lacks %s", p)
		}
	}
}

// reachOverHTTP makes a one-delivery shipment in state st over HTTP and
// returns its id, delivery id and tracking number.
func reachOverHTTP(t *testing.T, h http.Handler, st string) (id, did, tn string) {
	t.Helper()
	_, sh := som("POST", "/shipments.create", "demo-key", shipmentBody).do(t, h)
	id, did = str(sh, "id"), str(sh, "parcels", 0, "deliveries", 0, "id")
	step := func(path, body string) {
		t.Helper()
		resp, got := som("POST", path, "demo-key", body).do(t, h)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, resp.StatusCode, got)
		}
		sh = unwrapShipment(got)
	}
	if st != "CREATED" {
		step("/shipments.bookParcels", `{"shipment_id":"`+id+`"}`)
		tn = str(sh, "parcels", 0, "deliveries", 0, "tracking_number")
	}
	switch st {
	case "PICKUP_BOOKED", "PICKED_UP":
		step("/deliveries.bookPickup", `{"tracking_number":"`+tn+`","pickup_window":{"start":"2026-11-23T09:00:00Z","end":"2026-11-23T12:00:00Z"}}`)
		if st == "PICKED_UP" {
			step("/deliveries.confirmPickup", `{"tracking_number":"`+tn+`"}`)
		}
	case "CANCELLED":
		step("/deliveries.cancel", `{"tracking_number":"`+tn+`"}`)
	}
	if got := str(sh, "parcels", 0, "deliveries", 0, "state"); got != st {
		t.Fatalf("reached %s, want %s", got, st)
	}
	return id, did, tn
}

// TestShipmentTransitionsOverHTTP runs the state tables of the shipment
// package doc over HTTP: every allowed transition answers 200 with the new
// state, every refused one 400 "failed precondition" naming the state.
func TestShipmentTransitionsOverHTTP(t *testing.T) {
	ops := map[string]func(id, did, tn string) (string, string){
		"bookParcels": func(id, _, _ string) (string, string) {
			return "/shipments.bookParcels", `{"shipment_id":"` + id + `"}`
		},
		"bookPickup(delivery)": func(id, _, tn string) (string, string) {
			return "/deliveries.bookPickup", `{"tracking_number":"` + tn + `","pickup_window":{"start":"2026-11-24T09:00:00Z","end":"2026-11-24T12:00:00Z"}}`
		},
		"bookPickup(shipment)": func(id, _, _ string) (string, string) {
			return "/deliveries.bookPickup", `{"shipment_id":"` + id + `","pickup_window":{"start":"2026-11-24T09:00:00Z","end":"2026-11-24T12:00:00Z"}}`
		},
		"cancelDelivery": func(_, did, tn string) (string, string) {
			if tn == "" {
				return "/deliveries.cancel", `{"delivery_id":"` + did + `"}`
			}
			return "/deliveries.cancel", `{"tracking_number":"` + tn + `"}`
		},
		"confirmPickup": func(_, _, tn string) (string, string) {
			return "/deliveries.confirmPickup", `{"tracking_number":"` + tn + `"}`
		},
		"addParcel": func(id, _, _ string) (string, string) {
			return "/shipments.addParcel", `{"shipment_id":"` + id + `","parcel":{"weight":500,"deliveries":[{"carrier_product_ref":"np-home"}]}}`
		},
		"update(attributes)": func(id, _, _ string) (string, string) {
			return "/shipments.update", `{"shipment_id":"` + id + `","attributes":{"k":"v"}}`
		},
		"update(receiver)": func(id, _, _ string) (string, string) {
			return "/shipments.update", `{"shipment_id":"` + id + `","receiver":{"name":"Someone Else","address":{"country":"SE"}}}`
		},
		"cancelShipment": func(id, _, _ string) (string, string) {
			return "/shipments.cancel", `{"shipment_id":"` + id + `"}`
		},
	}
	const fp = "400"
	// Expected shipment state afterwards (one delivery: the delivery's
	// too), or "400" for a refusal naming the state.
	want := map[string]map[string]string{
		"CREATED": {"bookParcels": "BOOKED", "bookPickup(shipment)": fp, "cancelDelivery": "CANCELLED",
			"addParcel": "CREATED", "update(attributes)": "CREATED", "update(receiver)": "CREATED", "cancelShipment": "CANCELLED"},
		"BOOKED": {"bookParcels": "BOOKED", "bookPickup(delivery)": "PICKUP_BOOKED", "bookPickup(shipment)": "PICKUP_BOOKED",
			"cancelDelivery": "CANCELLED", "confirmPickup": "PICKED_UP", "addParcel": "BOOKED",
			"update(attributes)": "BOOKED", "update(receiver)": fp, "cancelShipment": "CANCELLED"},
		"PICKUP_BOOKED": {"bookParcels": "PICKUP_BOOKED", "bookPickup(delivery)": "PICKUP_BOOKED", "bookPickup(shipment)": "PICKUP_BOOKED",
			"cancelDelivery": "CANCELLED", "confirmPickup": "PICKED_UP", "addParcel": fp,
			"update(attributes)": "PICKUP_BOOKED", "update(receiver)": fp, "cancelShipment": "CANCELLED"},
		"PICKED_UP": {"bookParcels": "PICKED_UP", "bookPickup(delivery)": fp, "bookPickup(shipment)": fp,
			"cancelDelivery": fp, "confirmPickup": "PICKED_UP", "addParcel": fp,
			"update(attributes)": "PICKED_UP", "update(receiver)": fp, "cancelShipment": fp},
		"CANCELLED": {"bookParcels": fp, "bookPickup(delivery)": fp, "bookPickup(shipment)": fp,
			"cancelDelivery": fp, "confirmPickup": fp, "addParcel": fp,
			"update(attributes)": fp, "update(receiver)": fp, "cancelShipment": fp},
	}
	for from, row := range want {
		for name, w := range row {
			t.Run(from+"/"+name, func(t *testing.T) {
				env := newShipmentEnv(t)
				h := env.h
				id, did, tn := reachOverHTTP(t, h, from)
				path, body := ops[name](id, did, tn)
				resp, got := som("POST", path, "demo-key", body).do(t, h)
				if w == fp {
					if resp.StatusCode != 400 || !strings.HasPrefix(str(got, "error"), "failed precondition: ") || !strings.Contains(str(got, "error"), " is "+from) {
						t.Errorf("%d %v, want 400 failed precondition naming %s", resp.StatusCode, got, from)
					}
					return
				}
				got = unwrapShipment(got)
				if resp.StatusCode != 200 || got["state"] != w {
					t.Errorf("%d state %v, want 200 %s: %v", resp.StatusCode, got["state"], w, got)
				}
			})
		}
	}
}

// unwrapShipment is the shipment of an answer of area F: the answer
// itself, the "shipment" member of a wrapped one, or, for a
// {"delivery": …} answer about a one-delivery shipment, that shipment's
// state and delivery.
func unwrapShipment(got map[string]any) map[string]any {
	if sh, ok := got["shipment"].(map[string]any); ok {
		return sh
	}
	if d, ok := got["delivery"].(map[string]any); ok {
		return map[string]any{"state": d["state"], "parcels": []any{map[string]any{"deliveries": []any{d}}}}
	}
	return got
}

// keysOf lists an object's members, sorted.
func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
