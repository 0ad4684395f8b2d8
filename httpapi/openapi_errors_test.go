package httpapi

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
)

// The 4xx answers of the generated documents (tracking, shipment,
// webhooks). Each is a response of components/responses with the area's
// Error schema and an example body made by the code that writes errors
// (toWire, tooManyRequests, checkSite), so an example says what the server
// says; TestOpenAPIErrorExamplesAreAnswers compares the fixed ones with
// real answers.

// restErrors are the 4xx answers of the areas with the {"error",
// "trace_id", "details"} shape: the status, the name in
// components/responses and what it means.
var restErrors = []struct{ status, name, description string }{
	{"400", "BadRequest", "Invalid argument (details name the fields), or failed precondition: the record's state does not allow the call."},
	{"401", "Unauthorized", "Missing or invalid API key."},
	{"403", "Forbidden", "site_id names another site than the API key's."},
	{"404", "NotFound", "No such record of the site (another site's records are not found either)."},
	{"409", "Conflict", "A concurrent call changed the record (repeat the call), an external id is already used with other content, or a request with the same Idempotency-Key is still being processed (repeat it after Retry-After seconds to get its answer)."},
	{"422", "IdempotencyKeyReused", "The Idempotency-Key was used before with a different request (another body, path or method)."},
	{"413", "PayloadTooLarge", "The request body is over the limit (1 MiB unless the server is configured otherwise)."},
	{"429", "TooManyRequests", "Over a rate limit of the key's site, the widget token or the client address; wait Retry-After seconds."},
}

// exampleTraceID is the trace id of the examples.
const exampleTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"

// errorStatuses are the 4xx statuses op answers: 400 when it takes input
// and a key, 401 when it takes a key, 403 when it names a site_id, the
// statuses it lists in fails, 413 when it takes a body, and 429 always
// (every route is rate limited).
func (op openAPIOp) errorStatuses() []string {
	var out []string
	input := op.request != nil || len(op.query) > 0 || openAPIPathParam.MatchString(op.path)
	if input && !op.public {
		out = append(out, "400")
	}
	if !op.public {
		out = append(out, "401")
	}
	if slices.Contains(op.query, "site_id") || hasJSONField(op.request, "site_id") {
		out = append(out, "403")
	}
	out = append(out, op.fails...)
	if op.request != nil {
		out = append(out, "413")
	}
	out = append(out, "429")
	if (op.method == "post" || op.method == "patch") && !op.keyless {
		// Idempotency-Key: in flight, or reused with another request.
		out = append(out, "409", "422")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// hasJSONField reports whether v is a struct with a field of that JSON name.
func hasJSONField(v any, name string) bool {
	if v == nil {
		return false
	}
	t := reflect.TypeOf(v)
	if t.Kind() != reflect.Struct {
		return false
	}
	for _, f := range reflect.VisibleFields(t) {
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return true
		}
	}
	return false
}

// restErrorResponse is the response of components/responses for status,
// with its example from examples.
func restErrorResponse(status string, examples map[string]any) (string, map[string]any, error) {
	i := slices.IndexFunc(restErrors, func(e struct{ status, name, description string }) bool { return e.status == status })
	if i < 0 {
		return "", nil, fmt.Errorf("no error response for status %s", status)
	}
	example, ok := examples[status]
	if !ok {
		return "", nil, fmt.Errorf("no example for status %s", status)
	}
	r := map[string]any{
		"description": restErrors[i].description,
		"content": map[string]any{"application/json": map[string]any{
			"schema":  map[string]any{"$ref": "#/components/schemas/Error"},
			"example": example,
		}},
	}
	if status == "409" {
		r["headers"] = map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait before repeating a request whose Idempotency-Key is still being processed.", "schema": map[string]any{"type": "integer"}}}
	}
	if status == "429" {
		r["headers"] = map[string]any{"Retry-After": map[string]any{"description": "Seconds to wait before trying again.", "schema": map[string]any{"type": "integer"}}}
	}
	return restErrors[i].name, r, nil
}

// restExample is the body the REST areas write for we.
func restExample(we wireError) restBody {
	return restBody{Error: we.kind + ": " + we.message, TraceID: exampleTraceID, Details: we.violations}
}

// restErrorExamples are an area's error bodies by status: bad, notFound
// and conflict are errors the area's services return (conflict nil when
// no operation answers 409); the others are the same in every area.
func restErrorExamples(bad, notFound, conflict error) map[string]any {
	return errorExamplesAs(func(we wireError) any { return restExample(we) }, bad, notFound, conflict)
}

// errorExamplesAs is restErrorExamples with the bodies example writes.
func errorExamplesAs(example func(wireError) any, bad, notFound, conflict error) map[string]any {
	m := map[string]any{
		"400": example(toWire(bad)),
		"401": example(toWire(deliverykit.E(deliverykit.KindUnauthenticated, "missing or invalid API key"))),
		"403": example(toWire(checkSite("demo-site", "other-site"))),
		"404": example(toWire(notFound)),
		"413": example(toWire(fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, DefaultMaxBodyBytes))),
		"429": example(tooManyRequests(time.Second)),
	}
	m["409"] = example(idempotencyWire(idempotency.ErrInFlight))
	if conflict != nil {
		m["409"] = example(toWire(conflict))
	}
	m["422"] = example(idempotencyWire(idempotency.ErrKeyReused))
	return m
}

// htmlContent is a customer page's media type, with an example.
func htmlContent(example string) map[string]any {
	return map[string]any{"text/html": map[string]any{"schema": map[string]any{"type": "string"}, "example": example}}
}
