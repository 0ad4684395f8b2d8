package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/tracking"
)

// The tracking OpenAPI document (openapi/tracking.json) is generated from
// the wire types by this file, so it cannot drift from the code:
//
//	go test ./httpapi -run TestTrackingOpenAPIUpToDate -update-tracking-openapi
//
// Paths, enums and descriptions are written here; schemas come from the Go
// types' JSON tags.
var updateTrackingOpenAPI = flag.Bool("update-tracking-openapi", false, "rewrite openapi/tracking.json")

const trackingOpenAPIFile = "openapi/tracking.json"

// trackingEnums lists the values of every enumerated type of areas A and B.
var trackingEnums = map[reflect.Type][]string{
	reflect.TypeFor[tracking.AlertType]():          {"ALERT_UNDEFINED", "ALERT_DELIVERY_DELAYED", "ALERT_ESTIMATED_DELIVERY_TIME_UPDATED", "ALERT_DELIVERY_ATTEMPT_FAILED", "ALERT_OUT_FOR_DELIVERY", "ALERT_SUBMISSION_DELAYED", "ALERT_DELIVERY_DELAYED_FROM_CARRIER", "ALERT_AWAITING_SUPPLIER", "ALERT_LINEHAUL_TO_CARRIER"},
	reflect.TypeFor[tracking.OrderDeliveryType]():  {"UNKNOWN", "DELIVERY", "PICKUP", "INSTORE"},
	reflect.TypeFor[tracking.DeliveryType]():       {"UNKNOWN", "DELIVERY", "PICKUP", "MAILBOX", "INSTORE", "INWAREHOUSE"},
	reflect.TypeFor[tracking.DirectionType]():      {"UNKNOWN_DIRECTION_TYPE", "OUTBOUND", "RETURN", "UNSPECIFIED"},
	reflect.TypeFor[tracking.PickupLocationType](): {"UNKNOWN_PICKUP_LOCATION_TYPE", "LOCKER", "STORE", "POSTOFFICE", "MANNED", "AGE_VERIFICATION", "INDOOR"},
	reflect.TypeFor[tracking.Step]():               {"STEP_UNKNOWN", "STEP_CONFIRMED_BY_MERCHANT", "STEP_PREPARED_BY_MERCHANT", "STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE", "STEP_DELIVERED_TO_PICKUP_POINT", "STEP_DELIVERED_TO_CONSUMER", "STEP_TERMINATED", "STEP_SENT_BACK", "STEP_RETURN_REQUESTED", "STEP_DELIVERED_TO_MERCHANT", "STEP_AWAITING_SUPPLIER", "STEP_LINEHAUL_TO_CARRIER", "STEP_RETURN_APPROVED", "STEP_RETURN_DECLINED", "STEP_RETURN_COMPLETED", "STEP_REPLACEMENT_SENT", "STEP_RETURN_CANCELLED"},
	reflect.TypeFor[tracking.LinkType]():           {"UNKNOWN_LINK_TYPE", "SERVICE_PORTAL_LINK", "MERCHANT_PROVIDED_LINK"},
	reflect.TypeFor[tracking.ExceptionStatus]():    {"DELIVERY_ATTEMPT_FAILED", "ADDRESS_PROBLEM", "DAMAGED", "LOST", "REFUSED_BY_RECEIVER", "HELD_AT_CUSTOMS", "NOT_COLLECTED", "RETURNED_TO_SENDER"},
	reflect.TypeFor[notify.Status]():               {"PENDING", "TRIGGERED", "CANCELLED", "FAILED"},
	reflect.TypeFor[notify.Channel]():              {"EMAIL", "SMS", "CEP_CHANNEL"},
	reflect.TypeFor[notify.Origin]():               {"SYSTEM", "RETRIGGER"},
}

// trackingSchemaNames renames types whose Go name is too short on its own.
var trackingSchemaNames = map[reflect.Type]string{
	reflect.TypeFor[notify.ListResponse]():      "GetNotificationsResponse",
	reflect.TypeFor[notify.RetriggerRequest]():  "RetriggerNotificationRequest",
	reflect.TypeFor[notify.RetriggerResponse](): "RetriggerNotificationResponse",
	reflect.TypeFor[tracking.Event]():           "ParcelEventRequest",
	reflect.TypeFor[struct{}]():                 "Empty",
	reflect.TypeFor[promise.Report]():           "PromiseAccuracyReport",
	reflect.TypeFor[promise.ReportRow]():        "PromiseAccuracyRow",
}

var trackingSpec = openAPISpec{
	info: map[string]any{
		"title":       "deliverykit delivery tracking and notifications API (areas A and B)",
		"version":     "1.0",
		"description": "Tracking orders, parcels, progress steps, alerts, tracking links and customer notifications. Amounts are integers in minor units. site_id may be omitted (it is the API key's site); another site's id is 403, another site's records are 404. Paths marked x-extension are not in the interface specification; they drive the flows end to end.",
	},
	server:      areaTracking.base,
	security:    "bearer",
	securityDoc: "`Authorization: Bearer <base64(API key)>`",
	errorSchema: map[string]any{
		"type":        "object",
		"description": "Every failure of areas A and B (status 400, 401, 403, 404, 405, 409, 413, 429, 500, 503; 429 and 503 carry Retry-After in seconds). error is `<kind>: <message>`; details name the offending fields. At most 20 field violations are listed, in field order; when there are more, a last one with an empty field and the rule \"truncated\" says how many were left out (\"and 12 more violations\").",
		"required":    []string{"error", "trace_id"},
		"properties": map[string]any{
			"error":    map[string]any{"type": "string", "example": "invalid argument: invalid request: carrier_product_ref: is not a carrier product of the site's catalog"},
			"trace_id": map[string]any{"type": "string", "description": "also in the X-Trace-Id header"},
			"details": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []string{"field", "rule", "message"},
				"properties": map[string]any{"field": map[string]any{"type": "string"}, "rule": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}},
			}},
		},
	},
	okDescription: "success",
	errorExamples: restErrorExamples(
		deliverykit.Invalid(deliverykit.FieldViolation{Field: "carrier_product_ref", Rule: "required", Message: "is required"},
			deliverykit.FieldViolation{Field: "external_id", Rule: "required", Message: "is required"}),
		&deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "tracking order not found",
			Violations: []deliverykit.FieldViolation{{Field: "tos_id", Rule: "exists", Message: "names no tracking order of the site"}}},
		deliverykit.Errorf(deliverykit.KindConflict, "external_id %q is already registered with different content", "order-1001")),
	types: openAPISchemas{
		enums: trackingEnums,
		names: trackingSchemaNames,
		// The JSON names that hold RFC 3339 timestamps.
		dateTimeFields: map[string]bool{"start": true, "end": true, "earliest": true, "latest": true, "time": true, "created_at": true, "scheduled_at": true, "triggered_at": true, "expires_at": true},
	},
	ops: trackingOps,
}

// trackingHTML is the body of the customer tracking page.
var trackingHTML = map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}}}

const trackingPageSummary = "Extension: the customer tracking page (HTML) the portal link opens; the token is the credential. " +
	"Its language (English, Swedish, Norwegian Bokmål, Danish, Finnish or German) is the query's locale (e.g. sv-SE), else the order's locale, else Accept-Language's; " +
	"times are in the delivery's time zone (the order's time_zone), and alerts are shown while they are current."

var trackingPageErrors = map[string]any{
	"404": map[string]any{"description": "unknown token (an HTML page)", "content": htmlContent(
		`<!DOCTYPE html><html lang="en"><head><title>Tracking link not found</title>…</head><body><main><h1>Tracking link not found</h1><p>This tracking link is not valid.</p></main></body></html>`)},
	"410": map[string]any{"description": "expired or replaced token: an HTML page asking the customer to get a new link from the shop", "content": htmlContent(
		`<!DOCTYPE html><html lang="en"><head><title>Tracking link expired</title>…</head><body><main><h1>Tracking link expired</h1><p>This tracking link has expired. Please ask the shop you ordered from for a new link.</p></main></body></html>`)},
}

var trackingOps = []openAPIOp{
	{method: "post", path: "/generate_tracking_page_link", summary: "Generate a tracking page link",
		description: "Generate a customer tracking page link for an order (order_id: tos_id or external_id) or a parcel (tracking_number). Extensions: the link works until expires_at (the call extends it); rotate: true gives the order a new token, and links handed out before stop working.",
		request:     tracking.GenerateTrackingPageLinkRequest{}, response: tracking.GenerateTrackingPageLinkResponse{}, fails: []string{"404"}},
	{method: "post", path: "/order", summary: "Register a tracking order",
		description: "Register a tracking order. The same external_id with identical content returns the same id; with different content it is 409.",
		request:     tracking.CreateTrackingOrderRequest{}, response: tracking.CreateTrackingOrderResponse{}, fails: []string{"409"}},
	{method: "get", path: "/orders", summary: "List tracking orders",
		description: "Read the site's tracking orders, filtered by external_id or email; locale translates cart names. Extension: token reads the order a customer link names, with preselected_parcel_index the parcel the link points at (tracking_number, the link's parameter, when the token names none).",
		query:       []string{"site_id", "email", "locale", "external_id", "token", "tracking_number"}, response: tracking.GetTrackingOrdersResponse{}, fails: []string{"404"}},
	{method: "post", path: "/parcel", summary: "Register a parcel",
		description: "Register a parcel of a tracking order (tos_id). Tracking numbers are unique per site and carrier.",
		request:     tracking.CreateParcelRequest{}, response: struct{}{}, fails: []string{"404", "409"}},
	{method: "get", path: "/parcels", summary: "Read parcels",
		description: "Read parcels: token wins and names the order; otherwise exactly one of tracking_number and external_id (both is 400).",
		query:       []string{"site_id", "external_id", "tracking_number", "token"}, response: tracking.GetTrackingParcelsResponse{}, fails: []string{"404"}},
	{method: "post", path: "/parcel.event", summary: "Record a carrier event (extension)",
		description: "Extension: record a carrier event (a step, an alert, an exception, or several). Unknown steps, alerts or exceptions are 400; a step sequence the parcel's direction or final step forbids is 400 failed precondition; a repeated event is ignored.",
		request:     tracking.Event{}, response: struct{}{}, extension: true, fails: []string{"404"}},
	{method: "post", path: "/order.lines_cancelled", summary: "Record cancelled order items (extension)",
		description: "Extension: record how many items of each SKU of an order's cart (order_id: tos_id or external_id) the merchant cancelled so far. Orders then show cancelled_quantity and cancelled_total_price, and quantity and total_price of what is still coming. Absolute, not incremental: the same lines again change nothing; 0 takes a cancellation back. A SKU not in the cart or more than its quantity is 400 naming the line.",
		request:     tracking.CancelOrderLinesRequest{}, response: struct{}{}, extension: true, fails: []string{"404"}},
	{method: "get", path: "/notifications", summary: "List an order's notifications",
		description: "List the notifications of an order (external_id) or of a parcel (tracking_number): exactly one of them, else 400 naming the field. Statuses: PENDING, TRIGGERED, CANCELLED (the parcel moved on before it was sent), FAILED (retried with backoff; final after the last attempt).",
		query:       []string{"site_id", "external_id", "tracking_number"}, response: notify.ListResponse{}},
	{method: "post", path: "/notification.retrigger", summary: "Send a notification again",
		description: "Send a notification again: creates a new notification (origin RETRIGGER) and sends it. Unknown id is 404.",
		request:     notify.RetriggerRequest{}, response: notify.RetriggerResponse{}, fails: []string{"404"}},
	{method: "get", path: "/promise_accuracy", summary: "Promise accuracy report (extension)",
		description: "Extension: how well delivery promises were kept, for the outbound parcels delivered from from to to (dates, UTC, to included; default the 30 days up to today; at most 400 days), grouped by group_by: product (carrier product ref), zone (country and postal-code prefix, e.g. SE:11), origin (warehouse id) or week (ISO week of the delivery, e.g. 2026-W48). " +
			"A parcel is on time when delivered inside the window the shopper was promised, early before it, late after it; lateness is hours after the window's end (negative: before its start; 0 inside it). promise_source is configured, learned or blend (mixed when a group has several). " +
			"At most 1000 rows, by key; truncated says when groups were left out. A bad group_by, from or to is 400 naming it.",
		query: []string{"site_id", "from", "to", "group_by"}, response: promise.Report{}, extension: true},
	{method: "get", path: "/_/page/{token}", summary: "Customer tracking page (extension)",
		description: trackingPageSummary,
		query:       []string{"locale", "tracking_number"}, extension: true, public: true, content: trackingHTML, errors: trackingPageErrors},
	{method: "head", path: "/_/page/{token}", summary: "Customer tracking page headers (extension)",
		description: "Extension: the headers of the customer tracking page, without its body.",
		query:       []string{"locale"}, extension: true, public: true, content: trackingHTML, errors: trackingPageErrors},
	{method: "get", path: "/_/openapi.json", summary: "This document (extension)",
		description: "Extension: this document.", extension: true, public: true, errors: map[string]any{}},
}

func TestTrackingOpenAPIUpToDate(t *testing.T) {
	if !checkOpenAPIFile(t, trackingSpec, trackingOpenAPIFile, trackingOpenAPI, *updateTrackingOpenAPI,
		"go test ./httpapi -run TestTrackingOpenAPIUpToDate -update-tracking-openapi") {
		return
	}
	// The served document is the file.
	e := newTrackingEnv(t)
	rec := httptest.NewRecorder()
	e.s.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/delivery_tracking/_/openapi.json", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), trackingOpenAPI) || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("served document: %d %s", rec.Code, rec.Header().Get("Content-Type"))
	}
	// Every documented operation is routed, and every enum is complete.
	for _, op := range trackingOps {
		path := strings.Replace(areaTracking.base+op.path, "{token}", "tt_x", 1)
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(strings.ToUpper(op.method), path, nil)
		req.Header.Set("Authorization", bearer("demo-key"))
		e.s.handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusMethodNotAllowed || strings.Contains(rec.Body.String(), "no such endpoint") {
			t.Errorf("%s %s is documented but not served: %d", op.method, path, rec.Code)
		}
	}
}

// h returns the server's handler wrapped so that every response of the
// tracking area is validated against the OpenAPI document (see
// openapi_test.go).
func (e *trackingEnv) h(t *testing.T) http.Handler {
	return trackingAPI(t).handler(t, e.s.handler)
}

// TestTrackingDocValidator makes sure the response validation catches what
// it must in this document.
func TestTrackingDocValidator(t *testing.T) {
	d := trackingAPI(t)
	tests := []struct {
		name string
		body string
		ok   bool
	}{
		{"good", `{"orders": [{"analytics_id": "a", "parcels": [{"tracking_number": "T", "progress": [{"step": "STEP_ON_ROUTE", "time": "2026-11-22T10:00:00Z"}]}]}]}`, true},
		{"undocumented property", `{"orders": [{"analytics_id": "a", "surprise": 1}]}`, false},
		{"bad enum", `{"orders": [{"analytics_id": "a", "parcels": [{"tracking_number": "T", "progress": [{"step": "STEP_OUT_FOR_DELIVERY", "time": "2026-11-22T10:00:00Z"}]}]}]}`, false},
		{"bad time", `{"orders": [{"analytics_id": "a", "parcels": [{"tracking_number": "T", "progress": [{"step": "STEP_ON_ROUTE", "time": "yesterday"}]}]}]}`, false},
		{"wrong type", `{"orders": [{"analytics_id": 5}]}`, false},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
			t.Fatal(err)
		}
		err := d.checkJSON("GET", "/v1/delivery_tracking/orders", 200, v)
		if (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
	if err := d.checkJSON("GET", "/v1/delivery_tracking/orders", 400, map[string]any{"error": "x", "trace_id": "y"}); err != nil {
		t.Errorf("error body: %v", err)
	}
}
