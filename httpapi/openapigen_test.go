package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/internal/validation"
)

// This file generates the areas' OpenAPI documents (openapi/*.json) from
// the Go wire types, so that a document cannot drift from the code. Each
// area's *_openapi_test.go file describes its document as data (an
// openAPISpec: paths, enums, field docs, which types are responses); the
// schemas come from the types' json and validate tags.

// openAPILicense is info.license of every document: the module's licence
// (LICENSE). OpenAPI 3.0 has no SPDX identifier field, so the name is the
// SPDX identifier and the url the licence's text.
var openAPILicense = map[string]any{"name": "Apache-2.0", "url": "https://www.apache.org/licenses/LICENSE-2.0"}

// idempotencyKeyParameter is the Idempotency-Key header every POST and
// PATCH takes (README, "Idempotency keys").
var idempotencyKeyParameter = map[string]any{
	"name": "Idempotency-Key", "in": "header", "required": false,
	"description": "A key of the client's choosing (1 to 255 printable ASCII characters) that makes the request safe to repeat: " +
		"a repeat with the same key, method, path and body within 24 hours gets the first answer again, byte for byte, with `Idempotent-Replayed: true`, " +
		"and does nothing more. The same key with another request is 422; while the first request is still being processed, 409 with Retry-After. " +
		"Keys are scoped by site. Server errors, 409 and 429 are not kept: repeat the request.",
	"schema": map[string]any{"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[ -~]+$"},
}

// openAPISchemas turns Go types into the schemas of components/schemas.
type openAPISchemas struct {
	// enums lists the values of every enumerated type.
	enums map[reflect.Type][]string
	// names renames types whose Go name is too short on its own.
	names map[reflect.Type]string
	// dateTimeFields are the JSON names of string fields that hold RFC 3339
	// timestamps.
	dateTimeFields map[string]bool
	// fieldDocs describe fields by "<Go type name>.<json name>".
	fieldDocs map[string]string
	// responses are types the service writes: their fields without
	// omitempty are always present, so required.
	responses map[reflect.Type]bool
	// constraints turns validate rules into JSON Schema keywords (see
	// constrain); without it only "required" is read.
	constraints bool

	schemas map[string]any
}

func (g *openAPISchemas) ref(t reflect.Type) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if vals, ok := g.enums[t]; ok {
		return map[string]any{"type": "string", "enum": vals}
	}
	if t == reflect.TypeFor[time.Time]() {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	if t == reflect.TypeFor[json.RawMessage]() {
		return map[string]any{"type": "object", "description": "free-form object"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Float64:
		return map[string]any{"type": "number", "format": "double"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.ref(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object", "description": "free-form object"}
		}
		return map[string]any{"type": "object", "additionalProperties": g.ref(t.Elem())}
	case reflect.Struct:
		name := g.names[t]
		if name == "" {
			name = t.Name()
		}
		if t.NumField() == 0 {
			name = "Empty"
		}
		if _, done := g.schemas[name]; !done {
			g.schemas[name] = nil // break cycles
			g.schemas[name] = g.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	panic("openapi: unsupported type " + t.String())
}

func (g *openAPISchemas) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		var p map[string]any
		switch {
		case strings.Contains(opts, "string") && f.Type.Kind() == reflect.Int64:
			p = map[string]any{"type": "string", "format": "int64"}
		case f.Type.Kind() == reflect.String && g.dateTimeFields[name]:
			p = map[string]any{"type": "string", "format": "date-time"}
		default:
			p = g.ref(f.Type)
		}
		_, isRef := p["$ref"]
		// Aliases name limits (max_id, max_parcels); the document
		// gives their numbers.
		rules := validation.ExpandTag(f.Tag.Get("validate"))
		if !isRef {
			constrain(p, f.Type, rules, g.constraints)
		}
		if doc := g.fieldDocs[t.Name()+"."+name]; doc != "" {
			if isRef {
				p = map[string]any{"allOf": []any{p}, "description": doc}
			} else {
				p["description"] = doc
			}
		}
		props[name] = p
		// With constraints, gt=0 on a number makes it required too: its
		// absence is 0.
		if strings.Contains(rules, "required") || (g.constraints && strings.HasPrefix(rules, "gt=")) ||
			(g.responses[t] && !strings.Contains(opts, "omitempty")) {
			required = append(required, name)
		}
	}
	s := map[string]any{"type": "object", "properties": props}
	if len(props) == 0 {
		s["description"] = "an empty object"
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// constrain turns validate rules into JSON Schema keywords. Limits (the
// maximum length of a string, the most entries of a list or a map, the
// form of an https URL) are always written, for the list's entries too
// (the rules after dive); the other rules only with all.
func constrain(p map[string]any, t reflect.Type, rules string, all bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	tags := strings.Split(rules, ",")
	head, rest := tags, []string(nil)
	if i := slices.Index(tags, "dive"); i >= 0 {
		head, rest = tags[:i], tags[i+1:]
	}
	for _, r := range head {
		k, v, _ := strings.Cut(r, "=")
		n, _ := strconv.ParseFloat(v, 64)
		limit := k == "max" || k == "lte"
		switch {
		case limit && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
			p["maxItems"] = n
		case limit && t.Kind() == reflect.Map:
			p["maxProperties"] = n
		case limit && t.Kind() == reflect.String:
			p["maxLength"] = n
		case k == "httpsurl":
			p["format"] = "uri"
			p["pattern"] = "^https://"
			p["maxLength"] = validation.MaxURLLength
		case !all:
		case k == "gt" && t.Kind() == reflect.Int32:
			p["minimum"] = n + 1
		case k == "gte":
			p["minimum"] = n
		case k == "lte":
			p["maximum"] = n
		case k == "min" && t.Kind() == reflect.Slice:
			p["minItems"] = n
		case k == "iso3166_1_alpha2":
			p["pattern"] = "^[A-Z]{2}$"
		case k == "iso4217":
			p["pattern"] = "^[A-Z]{3}$"
		case k == "email":
			p["format"] = "email"
		case k == "checkout_html_id": // checkout's SnippetConfiguration
			p["pattern"] = "^[A-Za-z][A-Za-z0-9_-]{0,63}$"
		case k == "checkout_js_name": // less the reserved words and globals the description names
			p["pattern"] = "^[A-Za-z_$][A-Za-z0-9_$]{0,63}$"
		}
	}
	if rest == nil {
		return
	}
	var elem map[string]any
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		elem, _ = p["items"].(map[string]any)
	case reflect.Map:
		// Keys cannot be constrained in OpenAPI 3.0; the values can.
		if len(rest) > 0 && rest[0] == "keys" {
			end := slices.Index(rest, "endkeys")
			if end < 0 {
				return
			}
			rest = rest[end+1:]
		}
		elem, _ = p["additionalProperties"].(map[string]any)
	}
	if _, isRef := elem["$ref"]; elem != nil && !isRef {
		constrain(elem, t.Elem(), strings.Join(rest, ","), all)
	}
}

// openAPIOp is one documented operation.
type openAPIOp struct {
	// summary names the operation in a few words; description says
	// the rest.
	method, path, summary, description string
	// query names the string query parameters; path parameters come from
	// the {name}s of path.
	query []string
	// request and response are the JSON bodies (nil: none; the 200 answer
	// is then a JSON object).
	request, response any
	extension, public bool
	// keyless marks a POST that takes no Idempotency-Key (x-keyless):
	// test mode's controls, whose answers must not be stored.
	keyless bool
	// content, when set, replaces the media types of the 200 answer.
	content map[string]any
	// errors, when set, replaces the default answer (the Error schema for
	// any other status) with these; the 4xx answers of errorStatuses are
	// added unless errors has the status.
	errors map[string]any
	// fails lists the 4xx statuses the operation answers besides those
	// its inputs imply (see errorStatuses): "404", "409".
	fails []string
}

// openAPISpec is an area's document as data.
type openAPISpec struct {
	info   map[string]any
	server string
	// security names the bearer scheme; securityDoc describes it.
	security, securityDoc string
	// errorSchema is components/schemas/Error.
	errorSchema map[string]any
	// okDescription describes every 200 answer.
	okDescription string
	// querySchemas overrides the schema of query parameters by name.
	querySchemas map[string]any
	// errorExamples are the area's error bodies by 4xx status, the
	// examples of components/responses (see restErrorExamples).
	errorExamples map[string]any
	ops           []openAPIOp
	types         openAPISchemas
}

var openAPIPathParam = regexp.MustCompile(`\{([^}]+)\}`)

// buildOpenAPI renders the document of spec as indented JSON.
func buildOpenAPI(spec openAPISpec) ([]byte, error) {
	g := spec.types
	g.schemas = map[string]any{"Error": spec.errorSchema}
	errResp := map[string]any{"description": "failure", "content": map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/Error"}}}}
	errResponses := map[string]any{}
	paths := map[string]any{}
	for _, op := range spec.ops {
		o := map[string]any{"summary": op.summary, "operationId": strings.Trim(strings.NewReplacer("/", "_", ".", "_", "{", "", "}", "").Replace(op.method+op.path), "_")}
		if op.description != "" {
			o["description"] = op.description
		}
		if op.extension {
			o["x-extension"] = true
		}
		if op.public {
			o["security"] = []any{}
		}
		var params []any
		for _, m := range openAPIPathParam.FindAllStringSubmatch(op.path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
		}
		for _, q := range op.query {
			schema, ok := spec.querySchemas[q]
			if !ok {
				schema = map[string]any{"type": "string"}
			}
			params = append(params, map[string]any{"name": q, "in": "query", "schema": schema})
		}
		if (op.method == "post" || op.method == "patch") && !op.keyless {
			params = append(params, idempotencyKeyParameter)
		}
		if op.keyless {
			o["x-keyless"] = true
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.request != nil {
			o["requestBody"] = map[string]any{"required": true, "content": map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(op.request))}}}
		}
		ok := map[string]any{"description": spec.okDescription}
		switch {
		case op.content != nil:
			ok["content"] = op.content
		case op.response != nil:
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": g.ref(reflect.TypeOf(op.response))}}
		default:
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"type": "object"}}}
		}
		responses := map[string]any{"200": ok}
		if op.errors == nil {
			responses["default"] = errResp
		}
		for status, r := range op.errors {
			responses[status] = r
		}
		for _, status := range op.errorStatuses() {
			if responses[status] != nil {
				continue
			}
			name, r, err := restErrorResponse(status, spec.errorExamples)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w", op.method, op.path, err)
			}
			errResponses[name] = r
			responses[status] = map[string]any{"$ref": "#/components/responses/" + name}
		}
		o["responses"] = responses
		if paths[op.path] == nil {
			paths[op.path] = map[string]any{}
		}
		paths[op.path].(map[string]any)[op.method] = o
	}
	info := maps.Clone(spec.info)
	info["license"] = openAPILicense
	doc := map[string]any{
		"openapi":  "3.0.3",
		"info":     info,
		"servers":  []any{map[string]any{"url": spec.server}},
		"security": []any{map[string]any{spec.security: []any{}}},
		"paths":    paths,
		"components": map[string]any{
			"responses":       errResponses,
			"schemas":         g.schemas,
			"securitySchemes": map[string]any{spec.security: map[string]any{"type": "http", "scheme": "bearer", "description": spec.securityDoc}},
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// checkOpenAPIFile builds spec's document and compares it with file and
// with the document compiled into the binary (embedded). With update it
// rewrites file instead and reports false: the binary still holds the old
// document until the next build.
func checkOpenAPIFile(t *testing.T, spec openAPISpec, file string, embedded []byte, update bool, rerun string) bool {
	t.Helper()
	want, err := buildOpenAPI(spec)
	if err != nil {
		t.Fatal(err)
	}
	if update {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return false
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !bytes.Equal(embedded, want) {
		t.Fatalf("%s is stale; run: %s", file, rerun)
	}
	return true
}
