package httpapi

import (
	"encoding/json"
	"flag"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
)

// The shipment OpenAPI document (openapi/shipment.json) is generated from
// the wire types by this file, so it cannot drift from the code:
//
//	go test ./httpapi -run TestShipmentOpenAPIUpToDate -update-shipment-openapi
//
// Paths and descriptions are written here; schemas, required fields and
// constraints come from the Go types' json and validate tags.
var updateShipmentOpenAPI = flag.Bool("update-shipment-openapi", false, "rewrite openapi/shipment.json")

const shipmentOpenAPIFile = "openapi/shipment.json"

var shipmentEnums = map[reflect.Type][]string{
	reflect.TypeFor[shipment.DirectionType]():      {"OUTBOUND", "RETURN"},
	reflect.TypeFor[shipment.DeliveryType]():       {"UNKNOWN", "DELIVERY", "PICKUP", "MAILBOX", "INSTORE", "INWAREHOUSE"},
	reflect.TypeFor[shipment.PickupLocationType](): {"UNKNOWN_PICKUP_LOCATION_TYPE", "LOCKER", "STORE", "POSTOFFICE", "MANNED", "AGE_VERIFICATION", "INDOOR"},
	reflect.TypeFor[shipment.ShipmentState]():      {"CREATED", "BOOKED", "PICKUP_BOOKED", "PICKED_UP", "CANCELLED"},
	reflect.TypeFor[shipment.DeliveryState]():      {"CREATED", "BOOKED", "PICKUP_BOOKED", "PICKED_UP", "CANCELLED"},
	reflect.TypeFor[shipment.ContentsType]():       {"sale", "gift", "documents", "return", "sample"},
	reflect.TypeFor[shipment.Incoterm]():           {"DAP", "DDP"},
	reflect.TypeFor[shipment.DocumentKind]():       {"cn22", "cn23", "commercial_invoice"},
}

// shipmentResponses are types the service writes: their fields without
// omitempty are always present.
var shipmentResponses = map[reflect.Type]bool{
	reflect.TypeFor[shipment.Shipment](): true, reflect.TypeFor[shipment.Parcel](): true,
	reflect.TypeFor[shipment.Delivery](): true, reflect.TypeFor[shipment.Label](): true, reflect.TypeFor[shipment.TimeSpan](): true,
	reflect.TypeFor[shipment.Document](): true, reflect.TypeFor[shipment.Manifest](): true,
	reflect.TypeFor[shipment.ManifestParcel](): true, reflect.TypeFor[shipment.ManifestTotals](): true,
}

// shipmentFieldDocs describe fields whose meaning the name does not carry.
var shipmentFieldDocs = map[string]string{
	"Shipment.state":                             "Follows the deliveries: the state of the least advanced live delivery; CANCELLED when none is live.",
	"ParcelInput.weight":                         "Grams, > 0.",
	"Parcel.weight":                              "Grams.",
	"Dimensions.length":                          "Millimetres, > 0.",
	"Dimensions.width":                           "Millimetres, > 0.",
	"Dimensions.height":                          "Millimetres, > 0.",
	"LineItem.price":                             "One item in minor units of currency, discounts applied.",
	"LineItem.discount":                          "Discount on one item, minor units.",
	"CreateShipmentRequest.external_id":          "The merchant's shipment id, unique per site: the same request again returns the first shipment; other content is 409.",
	"CreateShipmentRequest.pickup_window":        "shipments.createAndBook only: book the pickup of every delivery for this window.",
	"CreateShipmentRequest.tos_id":               "The order (a tracking order's tos_id) the shipment ships: receiver, sender, shipping_method, reference, the pickup point and a one-parcel shipment's line_items default to the order's; request fields win. Another site's or an unknown order is 404 naming tos_id.",
	"CreateShipmentRequest.sender":               "Required; with tos_id the order's sender (when the order has its address) is the default.",
	"CreateShipmentRequest.receiver":             "Required; with tos_id the order's receiver is the default (at home: not a pickup point's address).",
	"Shipment.tos_id":                            "The order the shipment was made for; its booked parcels are tracked with that order.",
	"CreateShipmentRequest.outbound_shipment_id": "Connects a RETURN shipment to its outbound shipment; parcels added to the outbound one are added here too.",
	"DeliveryInput.delivery_type":                "Default: the carrier product's. PICKUP requires pickup.",
	"DeliveryInput.sender":                       "Overrides the shipment's sender for this leg (a last mile starting at a warehouse).",
	"DeliveryInput.receiver":                     "Overrides the shipment's receiver for this leg (a warehouse leg ends at the warehouse).",
	"Delivery.tracking_link":                     "The customer tracking page when tracking registered the delivery, else the carrier's page.",
	"Delivery.id":                                "`<shipment id>-P<parcel>-D<leg>`; names the delivery before it has a tracking number.",
	"BookPickupRequest.address":                  "Where the carrier collects. Default: the sender's address.",
	"BookPickupRequest.manifest":                 "The pickup collects the day's manifest: the parcels of the booked deliveries' carriers that wait for a manifest are manifested for the window's day (UTC) first and can no longer be cancelled. Default: false, a pickup of the deliveries alone.",
	"AddParcelRequest.parcel":                    "Default: a duplicate of the shipment's first parcel (weight, dimensions, deliveries), without its external_id and line_items.",
	"UpdateShipmentRequest.attributes":           "Replaces all attributes. May change in every state but CANCELLED.",
	"UpdateShipmentRequest.sender":               "CREATED only; once booked, sending a different value is 400 failed precondition.",
	"UpdateShipmentRequest.receiver":             "CREATED only; once booked, sending a different value is 400 failed precondition. A receiver across a customs border from a shipment without customs is 400 naming receiver.address.country.",
	"UpdateShipmentRequest.reference":            "CREATED only (printed on labels).",
	"AddParcelRequest.return_parcel":             "The parcel added to the connected return shipment; default: a copy carried by the return shipment's first parcel's products.",
	"ConfirmPickupRequest.picked_up_at":          "When the carrier scanned the parcel. Default: now.",
	"CreateManifestRequest.carrier":              "A carrier id: the catalog carrier of the products booked.",
	"CreateManifestRequest.pickup_date":          "The day the carrier collects the parcels, YYYY-MM-DD, at most 7 days back and 30 days ahead.",
	"ManifestParcel.weight":                      "Grams.",
	"ManifestTotals.weight":                      "Grams.",
	"Delivery.manifest_id":                       "The manifest that handed the delivery over to its carrier; it can no longer be cancelled.",
	"DeliveryInput.meta":                         "Your own data about the delivery, kept and shown with it: at most 16 entries, keys of up to 64 characters, values of up to 256. On a test site, `test_scenario` names the journey (or fault) the test carrier plays for it, and an unknown code is 400 naming parcels[i].deliveries[j].meta.test_scenario; on a live site it means nothing.",
	"Delivery.meta":                              "The delivery's meta, as sent.",
	"Label.routing_code":                         "The carrier's sorting code printed on the label.",
	"CreateShipmentRequest.customs":              "Customs declaration, required when sender and receiver are in different customs territories (EU, CH with LI, GB, NO, and special territories such as Åland and the Canary Islands). Left out, it defaults from the line items; missing data is 400 naming each field (customs.items[0].hs_code).",
	"Shipment.customs":                           "The customs declaration, with its defaults filled in.",
	"Shipment.documents":                         "The customs documents, decided at booking: CN22 (postal items up to 300 SDR and 2 kg), CN23 (above), commercial invoice (courier parcels, and sales on a CN23). A MAILBOX or PICKUP delivery is a postal item, other deliveries are courier parcels.",
	"CustomsDeclaration.contents_type":           "Default: sale, or return for a RETURN shipment.",
	"CustomsDeclaration.incoterm":                "DAP (default): the receiver pays duties and import VAT; DDP: the sender does.",
	"CustomsDeclaration.invoice_number":          "Required for a sale. Default: the shipment's reference.",
	"CustomsDeclaration.items":                   "Default: one item per line item of the parcels.",
	"CustomsDeclaration.exporter":                "A sale requires exporter.eori.",
	"CustomsItem.sku":                            "A line item's SKU: description, quantity, value and currency default from it.",
	"CustomsItem.hs_code":                        "Harmonized System code, 6 to 10 digits.",
	"CustomsItem.net_weight":                     "Grams, without packaging.",
	"CustomsItem.value":                          "The line's value (all its quantity), minor units of currency; every item has items[0]'s currency.",
}

var shipmentSpec = openAPISpec{
	info: map[string]any{
		"title":   "Shipment order management API",
		"version": "1.0",
		"description": "Area F: shipments → parcels → deliveries (carrier legs), booking (tracking numbers, labels, tracking links), carrier pickups. " +
			"Call order: shipments.create, shipments.bookParcels, deliveries.bookPickup (or shipments.createAndBook). " +
			"JSON names are snake_case; times RFC 3339; weights grams, dimensions millimetres; money minor units; addresses and contacts have the tracking API's shapes. " +
			"Unknown request fields are ignored. Delivery states: CREATED → BOOKED → PICKUP_BOOKED → PICKED_UP, or CANCELLED before pickup; a call in the wrong state is 400 failed precondition naming the state. " +
			"Operations marked x-extension are not part of the original interface.",
	},
	server:      "/v1/som",
	security:    "bearerApiToken",
	securityDoc: "`Authorization: Bearer <base64(API token)>`",
	errorSchema: map[string]any{
		"type":        "object",
		"description": "Every failure (status 400, 401, 403, 404, 405, 409, 413, 429, 500, 503; 429 and 503 carry Retry-After in seconds). error is `<kind>: <message>`; a wrong state is 400 `failed precondition: … is <STATE> …`; 409 means a concurrent call won: repeat the call. At most 20 field violations are listed, in field order; when there are more, a last one with an empty field and the rule \"truncated\" says how many were left out (\"and 12 more violations\").",
		"required":    []string{"error", "trace_id"},
		"properties": map[string]any{
			"error":    map[string]any{"type": "string", "example": "failed precondition: delivery CP000000014SE is PICKED_UP: cancelling is not allowed"},
			"trace_id": map[string]any{"type": "string", "description": "also in the X-Trace-Id header"},
			"details": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []string{"field", "rule", "message"},
				"properties": map[string]any{"field": map[string]any{"type": "string", "description": "JSON path, e.g. parcels[0].deliveries[1].pickup.id"}, "rule": map[string]any{"type": "string"}, "message": map[string]any{"type": "string"}},
			}},
		},
	},
	okDescription: "OK",
	errorExamples: restErrorExamples(
		deliverykit.Invalid(deliverykit.FieldViolation{Field: "parcels", Rule: "required", Message: "is required"},
			deliverykit.FieldViolation{Field: "receiver", Rule: "required", Message: "is required"}),
		&deliverykit.Error{Kind: deliverykit.KindNotFound, Message: "shipment not found",
			Violations: []deliverykit.FieldViolation{{Field: "shipment_id", Rule: "exists", Message: "names no shipment of the site"}}},
		deliverykit.E(deliverykit.KindConflict, "the shipment changed concurrently; repeat the call")),
	querySchemas: map[string]any{"format": map[string]any{"type": "string", "enum": []string{"pdf", "zpl"}, "default": "pdf"}},
	types: openAPISchemas{
		enums:          shipmentEnums,
		dateTimeFields: map[string]bool{"start": true, "end": true, "picked_up_at": true},
		fieldDocs:      shipmentFieldDocs,
		responses:      shipmentResponses,
		constraints:    true,
	},
	ops: somOps,
}

var somOps = []openAPIOp{
	{method: "post", path: "/shipments.create", summary: "Create a shipment",
		description: "Create a shipment with its parcels and deliveries, all CREATED. Idempotent by external_id.",
		request:     shipment.CreateShipmentRequest{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "post", path: "/shipments.bookParcels", summary: "Book a shipment's parcels",
		description: "Book every CREATED delivery: tracking number, label, tracking link each; the shipment becomes BOOKED. Repeating the call books nothing again and never assigns a second tracking number. The answer wraps the shipment: {\"shipment\": …}.",
		request:     shipment.ShipmentRef{}, response: shipment.BookParcelsResponse{}, fails: []string{"404", "409"}},
	{method: "post", path: "/deliveries.bookPickup", summary: "Book a carrier pickup",
		description: "Book the carrier pickup of one delivery (tracking_number) or, as an extension, of every booked delivery of a shipment (shipment_id), and notify the carrier. The same window again changes nothing; another window replaces it. The answer is {\"delivery\": …} for a tracking_number, {\"shipment\": …} for a shipment_id.",
		request:     shipment.BookPickupRequest{}, response: shipment.BookPickupResponse{}, fails: []string{"404", "409"}},
	{method: "get", path: "/deliveries.get", summary: "Read a delivery",
		description: "Read one delivery by tracking number (checked by the carriers, e.g. S10).",
		query:       []string{"site_id", "tracking_number"}, response: shipment.Delivery{}, fails: []string{"404"}},
	{method: "post", path: "/shipments.createAndBook", summary: "Create and book a shipment",
		description: "Create, book and (with pickup_window) book the pickup in one atomic call: on any failure the carrier bookings of the attempt are cancelled and nothing is stored. Repeating it with the same external_id continues with the stored shipment.",
		request:     shipment.CreateShipmentRequest{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "get", path: "/shipments.get", summary: "Read a shipment",
		description: "Read a shipment by exactly one of id, external_id, tracking_number.",
		query:       []string{"site_id", "id", "external_id", "tracking_number"}, response: shipment.Shipment{}, fails: []string{"404"}},
	{method: "post", path: "/deliveries.cancel", summary: "Cancel a delivery",
		description: "Cancel one delivery (tracking_number, or delivery_id before booking) before the carrier picks it up. Cancelling the last live delivery cancels the shipment.",
		request:     shipment.DeliveryRef{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "post", path: "/shipments.update", summary: "Change a shipment",
		description: "Change a shipment. CREATED: sender, receiver, reference, attributes. BOOKED, PICKUP_BOOKED, PICKED_UP: attributes only. CANCELLED: nothing.",
		request:     shipment.UpdateShipmentRequest{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "post", path: "/shipments.cancel", summary: "Cancel a shipment",
		description: "Cancel a shipment and every live delivery at the carriers; refused once any delivery is picked up.",
		request:     shipment.ShipmentRef{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "post", path: "/shipments.addParcel", summary: "Add a parcel",
		description: "Add a parcel (shipment CREATED or BOOKED); booked and labelled at once when the shipment is BOOKED; also added to a connected return shipment.",
		request:     shipment.AddParcelRequest{}, response: shipment.Shipment{}, fails: []string{"404", "409"}},
	{method: "post", path: "/deliveries.confirmPickup", summary: "Confirm a pickup (extension)",
		description: "Extension: a carrier integration reports that it collected a delivery (PICKED_UP); it can no longer be cancelled.",
		request:     shipment.ConfirmPickupRequest{}, response: shipment.Shipment{}, extension: true, fails: []string{"404", "409"}},
	{method: "get", path: "/labels/{tracking_number}", summary: "Print a label (extension)",
		description: "Extension: the printable label of a booked delivery: an A6 PDF (format=pdf, default) or ZPL for thermal printers (format=zpl), with the tracking number as a Code 128 barcode. A cancelled delivery's label is 400 failed precondition.",
		query:       []string{"site_id", "format"}, extension: true, content: map[string]any{
			"application/pdf": map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}},
			"application/zpl": map[string]any{"schema": map[string]any{"type": "string"}},
		}, fails: []string{"404"}},
	{method: "get", path: "/documents/{shipment_id}/{kind}", summary: "Print a customs document (extension)",
		description: "Extension: a customs document the shipment lists in documents (kind cn22, cn23 or commercial_invoice), rendered from the stored declaration as a PDF (format=pdf, the default): a CN22 is A6, the label's size; a CN23 and a commercial invoice are A4. A kind the shipment does not list is 404 naming kind; a cancelled shipment's documents are 400 failed precondition.",
		query:       []string{"site_id", "format"}, extension: true, content: map[string]any{
			"application/pdf": map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}},
		}, fails: []string{"404"}},
	{method: "post", path: "/manifests", summary: "Close the day for a carrier",
		description: "The end-of-day manifest: every booked (BOOKED or PICKUP_BOOKED) delivery of the carrier that is in no manifest yet goes into one new manifest, at most 500; the rest, and parcels booked later, go into the next one. The deliveries then name it (manifest_id) and can no longer be cancelled (409 naming tracking_number). Two concurrent closes never share a parcel. With nothing to manifest the answer is 409 naming carrier.",
		request:     shipment.CreateManifestRequest{}, response: shipment.Manifest{}, fails: []string{"409"}},
	{method: "get", path: "/manifests/{id}", summary: "Read or print a manifest",
		description: "A manifest of the site as JSON (format=json, the default), or as the A4 PDF the driver signs (format=pdf): carrier, pickup date, totals and every parcel with its tracking number as a Code 128 barcode. Another site's manifest is 404.",
		query:       []string{"site_id", "format"}, content: map[string]any{
			"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Manifest"}},
			"application/pdf":  map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}},
		}, fails: []string{"404"}},
	{method: "get", path: "/openapi.json", summary: "This document (extension)",
		description: "Extension: this document.", extension: true, public: true},
}

func TestShipmentOpenAPIUpToDate(t *testing.T) {
	checkOpenAPIFile(t, shipmentSpec, shipmentOpenAPIFile, shipmentOpenAPI, *updateShipmentOpenAPI,
		"go test ./httpapi -run TestShipmentOpenAPIUpToDate -update-shipment-openapi")
}

// TestShipmentOpenAPIRefsResolve checks that every $ref names a schema or
// a response of the document's components.
func TestShipmentOpenAPIRefsResolve(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(shipmentOpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	components := doc["components"].(map[string]any)
	var refs []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				refs = append(refs, r)
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	sort.Strings(refs)
	if len(refs) == 0 {
		t.Fatal("no $ref at all")
	}
	for _, r := range refs {
		kind, name, _ := strings.Cut(strings.TrimPrefix(r, "#/components/"), "/")
		if set, _ := components[kind].(map[string]any); set[name] == nil {
			t.Errorf("%s does not resolve", r)
		}
	}
}
