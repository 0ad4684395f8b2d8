package httpapi

import (
	"bytes"
	"flag"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
)

// The OpenAPI document of the checkout API's newer generation
// (openapi/delivery_checkout.json) is generated from its wire types:
//
//	go test ./httpapi -run TestDeliveryCheckoutOpenAPIUpToDate -update-delivery-checkout-openapi
var updateDeliveryCheckoutOpenAPI = flag.Bool("update-delivery-checkout-openapi", false, "rewrite openapi/delivery_checkout.json")

const deliveryCheckoutOpenAPIFile = "openapi/delivery_checkout.json"

var deliveryCheckoutAPI = lazyAPIDoc("delivery_checkout.json", func() []byte { return deliveryCheckoutOpenAPI }, "Error")

var deliveryCheckoutEnums = map[reflect.Type][]string{
	reflect.TypeFor[checkout.Status]():             {string(checkout.StatusUnknown), string(checkout.StatusActive), string(checkout.StatusComplete)},
	reflect.TypeFor[checkout.GroupSelection]():     groupSelections(),
	reflect.TypeFor[checkout.PriceComponentType](): {"PRICE_COMPONENT_TYPE_UNDEFINED", "PRICE_COMPONENT_TYPE_SHIPPING", "PRICE_COMPONENT_TYPE_ADDON", "PRICE_COMPONENT_TYPE_RETURN"},
}

func groupSelections() []string {
	var out []string
	for _, s := range checkout.GroupSelections {
		out = append(out, string(s))
	}
	return out
}

var deliveryCheckoutSchemaNames = map[reflect.Type]string{
	reflect.TypeFor[checkout.CheckoutCreateRequest]():   "CreateSessionRequest",
	reflect.TypeFor[checkout.CheckoutUpdateRequest]():   "UpdateSessionRequest",
	reflect.TypeFor[checkout.CheckoutCompleteRequest](): "CompleteSessionRequest",
	reflect.TypeFor[deliveryCheckoutCreateResponse]():   "CreateSessionResponse",
	reflect.TypeFor[deliveryCheckoutViewResponse]():     "SessionResponse",
	reflect.TypeFor[checkout.CheckoutCompleted]():       "CompleteSessionResponse",
	reflect.TypeFor[checkout.CheckoutSummary]():         "SessionsSummariesResponse",
	reflect.TypeFor[checkout.SummaryResult]():           "SessionSummaryResult",
	reflect.TypeFor[checkout.GroupCategory]():           "Category",
	reflect.TypeFor[checkout.GroupPricing]():            "Pricing",
	reflect.TypeFor[checkout.GroupPriceComponent]():     "PriceComponent",
	reflect.TypeFor[checkout.GroupSupports]():           "Supports",
	reflect.TypeFor[checkout.CheckoutCart]():            "Cart",
	reflect.TypeFor[checkout.CheckoutItem]():            "CartItem",
	reflect.TypeFor[checkout.Location]():                "PickupLocation",
	reflect.TypeFor[checkout.LocationAddress]():         "LocationAddress",
	reflect.TypeFor[checkout.GroupCustomer]():           "Customer",
	reflect.TypeFor[checkout.GroupShipping]():           "Shipping",
	reflect.TypeFor[checkout.GroupAddresses]():          "Addresses",
	reflect.TypeFor[checkout.GroupItem]():               "DeliveryGroupItem",
	reflect.TypeFor[checkout.CheckoutSession]():         "Session",
	reflect.TypeFor[checkout.DeliveryTime]():            "DeliveryTime",
	reflect.TypeFor[checkout.Window]():                  "DeliveryPromise",
}

// deliveryCheckoutResponses are the types the service writes: their
// fields without omitempty are always present.
var deliveryCheckoutResponses = map[reflect.Type]bool{
	reflect.TypeFor[deliveryCheckoutCreateResponse](): true, reflect.TypeFor[deliveryCheckoutViewResponse](): true,
	reflect.TypeFor[checkout.CheckoutCompleted](): true, reflect.TypeFor[checkout.SummaryResult](): true,
	reflect.TypeFor[checkout.CheckoutSummary](): true, reflect.TypeFor[checkout.CheckoutSession](): true,
	reflect.TypeFor[checkout.DeliveryGroup](): true, reflect.TypeFor[checkout.GroupShipping](): true,
	reflect.TypeFor[checkout.GroupItem](): true, reflect.TypeFor[checkout.GroupCategory](): true,
	reflect.TypeFor[checkout.GroupPricing](): true, reflect.TypeFor[checkout.GroupPriceComponent](): true,
	reflect.TypeFor[checkout.GroupSupports](): true,
	reflect.TypeFor[checkout.Window]():        true, reflect.TypeFor[checkout.Location](): true,
	reflect.TypeFor[checkout.Addon](): true, reflect.TypeFor[checkout.DeliveryAddon](): true,
	reflect.TypeFor[checkout.CategoryTag](): true, reflect.TypeFor[checkout.DistanceValue](): true,
}

var deliveryCheckoutFieldDocs = map[string]string{
	"CheckoutSession.delivery_groups":           "Exactly one delivery group: a session ships as one delivery.",
	"CheckoutSession.updated_at":                "The session's last change.",
	"DeliveryGroup.group_id":                    "Always \"1\": the session's one group.",
	"DeliveryGroup.selection":                   "How the option was chosen; DELIVERY_GROUP_SELECTION_UNDEFINED when the group has no option (no carrier serves the address and the catalog has no fallback).",
	"DeliveryGroup.tos_id":                      "The order's id once the session is completed.",
	"DeliveryGroup.external_id":                 "The merchant's order number.",
	"GroupShipping.carrier_product_id":          "The merchant's id for the carrier product when the catalog has one, else the carrier product reference (the value tracking orders and shipments accept).",
	"GroupShipping.delivery_type":               "Lower case: delivery, pickup, mailbox or instore.",
	"GroupAddresses.delivery_address":           "What the shopper entered in the widget's address form; absent until then.",
	"GroupAddresses.billing_address":            "The shopper's billing address: the delivery address unless the shopper gave another.",
	"GroupAddresses.customer":                   "The order's receiver: the merchant's customer (session.complete's customer) if given, else the shopper's delivery address.",
	"GroupAddresses.location":                   "The chosen pickup point (pickup and instore).",
	"GroupPricing.net_price":                    "price less VAT; always present, 0 when free.",
	"GroupPricing.price":                        "Minor units, VAT included; always present, 0 when free (read net_price ?? price).",
	"CheckoutCart.vouchers":                     "Lower-cased voucher codes; they price through the catalog's voucher rules.",
	"CheckoutCart.total_value":                  "Minor units, tax included, shipping excluded.",
	"CheckoutCart.attributes":                   "The cart's attributes, echoed as sent; with the items' they drive the catalog's filter and price rules.",
	"CheckoutItem.image_url":                    "The item's image, echoed as sent.",
	"ShippingDate.start":                        "The earliest moment the goods can be handed to a carrier (e.g. 00:00 of the handling day); the promises start from the latest start of the cart's and items' dates.",
	"ShippingDate.end":                          "The latest moment of the shipping day (e.g. 23:59:59.999).",
	"ShippingDate.category_tags":                "Other shipping dates for the categories carrying a tag.",
	"DeliveryGroup.header":                      "The merchant's data for the group: the session's meta; an empty object when it has none.",
	"GroupShipping.meta":                        "The catalog product's meta and the session's (the session's wins a key both have); an empty object when neither has any.",
	"GroupShipping.route":                       "The way the goods take: origin (the warehouse id), carrier (its id) and product (the carrier product reference).",
	"CheckoutSummary.result":                    "The choice of the session completed with this tos_id.",
	"CheckoutCompleteRequest.customer":          "Optional: without it the order goes to the delivery address the shopper entered in the widget (400 naming delivery_address when there is none).",
	"CheckoutCompleteRequest.external_id":       "The merchant's order number: the tracking order's external id. Another completed session's number is 409.",
	"CheckoutCreateRequest.locales":             "The shopper's locales, best first (sv-SE); at least one.",
	"CheckoutCreateRequest.search_address":      "Where options are searched until the shopper enters a delivery address.",
	"CheckoutUpdateRequest.checkout_session_id": "The session to change: any of cart, search_address, external_id, meta and snippet_configuration must be given.",

	// The widget's names on the merchant's page.
	"CheckoutCreateRequest.snippet_configuration": "Renames html_snippet's container and global for this session (a page with two widgets gives each its own); kept with the session and used in every html_snippet it answers.",
	"CheckoutUpdateRequest.snippet_configuration": "Replaces the session's snippet_configuration.",
	"SnippetConfiguration.container_id":           "The id of html_snippet's container element (default shipwallet-container). 400 naming snippet_configuration.container_id otherwise.",
	"SnippetConfiguration.object_id":              "The global function the front-end calls, window[object_id](function (api) { … }) (default _sw): a JavaScript identifier that is not a reserved word, a browser global (window, document, eval, fetch, …), an object's own property (constructor, __proto__, …) or an event handler property (onload, …). 400 naming snippet_configuration.object_id otherwise.",
}

var deliveryCheckoutSpec = openAPISpec{
	info: map[string]any{
		"title":   "deliverykit checkout API, newer generation (/v1/delivery_checkout)",
		"version": "1.0",
		"description": "The checkout shipping session of area C in the API's newer generation: the same sessions as /v1/siw (a session created in one generation is read, updated and completed in the other), " +
			"shown as a session with one delivery group. The widget of html_snippet collects the shopper's delivery and billing addresses, so session.complete needs no customer. " +
			"Amounts are integers in minor units; empty values are omitted.",
	},
	server:      areaDeliveryCheckout.base,
	security:    "bearer",
	securityDoc: "`Authorization: Bearer <base64(API key)>`",
	errorSchema: map[string]any{
		"type": "object",
		"description": "Every failure (status 400, 401, 403, 404, 405, 409, 413, 429, 500, 503; 429 and 503 carry Retry-After in seconds). error is `<kind>: <message>`; " +
			"details is one object naming the first problem (the model generated clients of this generation decode); violations lists every field problem (at most 20, as in the other areas).",
		"required": []string{"error", "trace_id", "details"},
		"properties": map[string]any{
			"error":    map[string]any{"type": "string", "example": "invalid argument: invalid request: cart.items[0].shipping_date: expected an object, got number"},
			"trace_id": map[string]any{"type": "string", "description": "also in the X-Trace-Id header"},
			"details": map[string]any{"type": "object", "required": []string{"msg", "cause", "cause_text"},
				"properties": map[string]any{
					"msg":        map[string]any{"type": "string", "description": "the first violation's message, else the error's"},
					"cause":      map[string]any{"type": "integer", "description": "the canonical RPC code of the error (3 invalid argument, 5 not found, 10 a concurrent change, …)"},
					"source":     map[string]any{"type": "string", "description": "the JSON path of the first offending field, when a field is at fault"},
					"cause_text": map[string]any{"type": "string", "description": "the code's name, e.g. INVALID_ARGUMENT"},
				}},
			"violations": trackingSpec.errorSchema["properties"].(map[string]any)["details"],
		},
	},
	okDescription: "success",
	errorExamples: errorExamplesAs(func(we wireError) any { return checkout2Body(we, exampleTraceID) },
		deliverykit.InvalidField("delivery_address", "required", "the shopper has not entered a delivery address in the widget yet"),
		&deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "no such session",
			Violations: []deliverykit.FieldViolation{{Field: "checkout_session_id", Rule: "exists", Message: `no session has id "dcs_2al2q"`}}},
		deliverykit.E(deliverykit.KindConflict, "the session was changed by a concurrent call; repeat the call")),
	types: openAPISchemas{
		enums:       deliveryCheckoutEnums,
		names:       deliveryCheckoutSchemaNames,
		fieldDocs:   deliveryCheckoutFieldDocs,
		responses:   deliveryCheckoutResponses,
		constraints: true,
	},
	ops: deliveryCheckoutOps,
}

var deliveryCheckoutOps = []openAPIOp{
	{method: "post", path: "/session.create", summary: "Open a checkout session",
		description: "Open a session for a cart: its options are computed and one is preselected. Answers the widget's html_snippet and token.",
		request:     checkout.CheckoutCreateRequest{}, response: deliveryCheckoutCreateResponse{}},
	{method: "get", path: "/session.get", summary: "Read a checkout session",
		description: "Read a session (another site's or an unknown checkout_session_id is 404).",
		query:       []string{"checkout_session_id"}, response: deliveryCheckoutViewResponse{}, fails: []string{"404"}},
	{method: "get", path: "/session.pull", summary: "Read a session with fresh options",
		description: "Read a session with its options computed afresh (prices, estimates and expiry as of now; the choice is kept while offered). A completed or expired session is answered as session.get answers it.",
		query:       []string{"checkout_session_id"}, response: deliveryCheckoutViewResponse{}, fails: []string{"404", "409"}},
	{method: "post", path: "/session.update", summary: "Update a checkout session",
		description: "Change an active session's cart, search address, order number or meta; options are computed again when the cart changes. A completed session is 403; a concurrent change 409 (repeat the call).",
		request:     checkout.CheckoutUpdateRequest{}, response: deliveryCheckoutViewResponse{}, fails: []string{"404", "409"}},
	{method: "post", path: "/session.complete", summary: "Complete a checkout session",
		description: "Complete the session with the addresses the shopper entered in the widget (or the customer sent here): status COMPLETE, and delivery_groups[0].tos_id names the order, which is tracked with the delivery address as its receiver.",
		request:     checkout.CheckoutCompleteRequest{}, response: checkout.CheckoutCompleted{}, fails: []string{"404", "409"}},
	{method: "get", path: "/sessions_summaries.list", summary: "List the sessions of an order",
		description: "The sessions of an order: the completed session with this tos_id and the sessions created from it, oldest first.",
		query:       []string{"tos_id"}, response: checkout.CheckoutSummary{}},
	{method: "get", path: "/_/swagger.json", summary: "This document", description: "This document.", public: true},
}

func TestDeliveryCheckoutOpenAPIUpToDate(t *testing.T) {
	if !checkOpenAPIFile(t, deliveryCheckoutSpec, deliveryCheckoutOpenAPIFile, deliveryCheckoutOpenAPI, *updateDeliveryCheckoutOpenAPI,
		"go test ./httpapi -run TestDeliveryCheckoutOpenAPIUpToDate -update-delivery-checkout-openapi") {
		return
	}
	e := newSiwEnv(t)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/delivery_checkout/_/swagger.json", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), deliveryCheckoutOpenAPI) || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("served document: %d %v", rec.Code, rec.Header())
	}
	// Every documented operation is routed.
	for _, op := range deliveryCheckoutOps {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(strings.ToUpper(op.method), areaDeliveryCheckout.base+op.path, nil)
		req.Header.Set("Authorization", bearer("demo-key"))
		e.handler.ServeHTTP(rec, req)
		if rec.Code == http.StatusMethodNotAllowed || strings.Contains(rec.Body.String(), "no such endpoint") {
			t.Errorf("%s %s is documented but not served: %d", op.method, op.path, rec.Code)
		}
	}
	if d := deliveryCheckoutAPI(t); d.doc.Paths.Len() != len(deliveryCheckoutOps) {
		t.Errorf("%d paths documented, %d operations", d.doc.Paths.Len(), len(deliveryCheckoutOps))
	}
}
