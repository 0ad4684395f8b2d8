package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// This file checks the HTTP answers of the tests against the areas'
// OpenAPI documents (openapi/*.json, as embedded in the binary), so that a
// document cannot drift from the code. The checking is kin-openapi's: its
// loader resolves the document and validates it, its router finds the
// operation a request names, and openapi3filter.ValidateResponse checks the
// status (undocumented statuses fail), the Content-Type and the body.
//
// One rule is added on top of the library: a schema that lists properties
// and says nothing about additionalProperties is treated as if it said
// additionalProperties: false, so a property the code sends but the
// document does not list is an error. The documents themselves stay open,
// so that clients generated from them accept properties added later; only
// the tests hold the code to the documented set.

// The pages and scripts the areas serve are checked for their documented
// media type; their body is a plain string.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/javascript", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("application/pdf", openapi3filter.FileBodyDecoder)
}

// apiDoc is one area's OpenAPI document, loaded, validated and closed.
type apiDoc struct {
	name   string
	doc    *openapi3.T
	router routers.Router
	// errorSchema is the area's error body. The catch-all (unknown path or
	// method) and the authentication middleware answer requests no
	// operation is documented for; their 401, 404 and 405 bodies are
	// checked against it.
	errorSchema *openapi3.Schema
}

// The areas' documents, each loaded once per test binary.
var (
	checkoutAPI = lazyAPIDoc("checkout.json", func() []byte { return checkoutOpenAPI }, "Error")
	trackingAPI = lazyAPIDoc("tracking.json", func() []byte { return trackingOpenAPI }, "Error")
	sessionAPI  = lazyAPIDoc("session.json", func() []byte { return sessionOpenAPI }, "Status")
	returnsAPI  = lazyAPIDoc("returns.json", func() []byte { return returnsOpenAPI }, "Error")
)

// apiDocLoader returns an area's document, loading it on first use.
type apiDocLoader func(t testing.TB) *apiDoc

func lazyAPIDoc(name string, raw func() []byte, errorSchema string) apiDocLoader {
	load := sync.OnceValues(func() (*apiDoc, error) { return loadAPIDoc(name, raw(), errorSchema) })
	return func(t testing.TB) *apiDoc {
		t.Helper()
		d, err := load()
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}

// loadAPIDoc parses and validates a document as written, then closes its
// object schemas and builds the router.
func loadAPIDoc(name string, raw []byte, errorSchema string) (*apiDoc, error) {
	ctx := context.Background()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI document: %w", name, err)
	}
	closeObjectSchemas(doc)
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	es := doc.Components.Schemas[errorSchema]
	if es == nil || es.Value == nil {
		return nil, fmt.Errorf("%s: no error schema %s", name, errorSchema)
	}
	return &apiDoc{name: name, doc: doc, router: router, errorSchema: es.Value}, nil
}

// closeObjectSchemas gives every schema of doc that lists properties (even
// none) and has no additionalProperties keyword additionalProperties:
// false. Schemas without a properties keyword stay free-form, as do those
// whose additionalProperties is a schema or true.
func closeObjectSchemas(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(*openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		if s.Properties != nil && s.AdditionalProperties.Has == nil && s.AdditionalProperties.Schema == nil {
			s.AdditionalProperties.Has = openapi3.Ptr(false)
		}
		for _, p := range s.Properties {
			walk(p)
		}
		walk(s.Items)
		walk(s.AdditionalProperties.Schema)
		walk(s.Not)
		for _, list := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
			for _, r := range list {
				walk(r)
			}
		}
	}
	for _, r := range doc.Components.Schemas {
		walk(r)
	}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			for _, resp := range op.Responses.Map() {
				if resp.Value == nil {
					continue
				}
				for _, mt := range resp.Value.Content {
					walk(mt.Schema)
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				for _, mt := range op.RequestBody.Value.Content {
					walk(mt.Schema)
				}
			}
		}
	}
}

// check validates the response a request received: its operation must be
// documented, with this status (or a default response), this Content-Type
// and a body matching the schema. Requests no operation is documented for
// may only be answered 401, 404 or 405 with the area's error body.
func (d *apiDoc) check(req *http.Request, status int, header http.Header, body []byte) error {
	route, _, err := d.router.FindRoute(req)
	if err != nil {
		if !errors.Is(err, routers.ErrPathNotFound) && !errors.Is(err, routers.ErrMethodNotAllowed) {
			return fmt.Errorf("%s: %w", d.name, err)
		}
		switch status {
		case http.StatusUnauthorized, http.StatusNotFound, http.StatusMethodNotAllowed:
			return d.checkError(header, body)
		}
		return fmt.Errorf("%s %s answered %d: %w in %s", req.Method, req.URL.Path, status, err, d.name)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(req.Context(), in); err != nil {
		return fmt.Errorf("%s %s (%s %s): %w", req.Method, req.URL.Path, route.Method, route.Path, err)
	}
	return nil
}

// checkError validates an answer of the catch-all or of the
// authentication middleware against the area's error schema.
func (d *apiDoc) checkError(header http.Header, body []byte) error {
	if ct := header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return fmt.Errorf("error answer has Content-Type %q, want application/json", ct)
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("error answer is not JSON: %w", err)
	}
	if err := d.errorSchema.VisitJSON(v, openapi3.VisitAsResponse()); err != nil {
		return fmt.Errorf("error answer does not match the error schema of %s: %w", d.name, err)
	}
	return nil
}

// checkJSON validates a JSON body given as a Go value, as if the handler
// had answered method target with it.
func (d *apiDoc) checkJSON(method, target string, status int, body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return d.check(httptest.NewRequest(method, target, nil), status, http.Header{"Content-Type": {"application/json"}}, b)
}

// checkRecorded validates what a handler wrote for req.
func (d *apiDoc) checkRecorded(req *http.Request, rec *httptest.ResponseRecorder) error {
	return d.check(req, rec.Code, rec.Header(), rec.Body.Bytes())
}

// handler wraps h so that every answer it gives is validated against the
// document; a mismatch fails t.
func (d *apiDoc) handler(t *testing.T, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if err := d.checkRecorded(r, rec); err != nil {
			t.Errorf("%s %s → %d: response does not match the OpenAPI document: %v", r.Method, r.URL, rec.Code, err)
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// TestOpenAPIDocuments loads every area's document (which validates it)
// and checks the rules the helpers above add to the library.
func TestOpenAPIDocuments(t *testing.T) {
	for _, load := range []apiDocLoader{checkoutAPI, trackingAPI, sessionAPI, returnsAPI} {
		d := load(t)
		if d.doc.Paths.Len() == 0 {
			t.Errorf("%s documents no path", d.name)
		}
	}

	// A schema listing properties is closed; one without is free-form; an
	// explicit additionalProperties schema is kept.
	d, err := loadAPIDoc("test.json", []byte(`{
  "openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "servers": [{"url": "/t"}],
  "paths": {"/x": {"get": {"responses": {
    "200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/X"}}}},
    "default": {"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}}},
  "components": {"schemas": {
    "X": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}, "free": {"type": "object"},
      "empty": {"type": "object", "properties": {}}, "counts": {"type": "object", "additionalProperties": {"type": "integer"}}}},
    "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}}}}`), "Error")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		method string
		target string
		status int
		body   string
		ok     bool
	}{
		{"listed properties", "GET", "/t/x", 200, `{"a": "x", "empty": {}, "counts": {"k": 1}, "free": {"anything": [1]}}`, true},
		{"unlisted property", "GET", "/t/x", 200, `{"a": "x", "b": 1}`, false},
		{"property in an empty object", "GET", "/t/x", 200, `{"a": "x", "empty": {"b": 1}}`, false},
		{"additionalProperties schema", "GET", "/t/x", 200, `{"a": "x", "counts": {"k": "one"}}`, false},
		{"missing required", "GET", "/t/x", 200, `{}`, false},
		{"default response", "GET", "/t/x", 400, `{"error": "e"}`, true},
		{"default response, wrong body", "GET", "/t/x", 400, `{"error": "e", "extra": 1}`, false},
		{"catch-all 404", "GET", "/t/nothing", 404, `{"error": "e"}`, true},
		{"catch-all 405", "POST", "/t/x", 405, `{"error": "e"}`, true},
		{"catch-all, wrong body", "GET", "/t/nothing", 404, `{"message": "e"}`, false},
		{"undocumented path answered 200", "GET", "/t/nothing", 200, `{"a": "x"}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.body), &v); err != nil {
				t.Fatal(err)
			}
			err := d.checkJSON(tt.method, tt.target, tt.status, v)
			if (err == nil) != tt.ok {
				t.Errorf("err = %v, want ok %v", err, tt.ok)
			}
		})
	}
	req := httptest.NewRequest("GET", "/t/x", nil)
	if err := d.check(req, 200, http.Header{"Content-Type": {"text/plain"}}, []byte(`{"a": "x"}`)); err == nil {
		t.Error("undocumented Content-Type accepted")
	}
	if err := d.check(req, 200, http.Header{"Content-Type": {"application/json; charset=utf-8"}}, []byte(`{"a": "x"}`)); err != nil {
		t.Errorf("media type with parameters refused: %v", err)
	}
	if _, err := loadAPIDoc("broken.json", []byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Nope"}}}}}}}}}`), "Error"); err == nil {
		t.Error("a document with an unresolved $ref loaded")
	}
	if _, err := loadAPIDoc("invalid.json", []byte(`{"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
  "paths": {"/x": {"get": {"responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "strnig"}}}}}}}}}`), "Error"); err == nil {
		t.Error("a document with an unknown type loaded")
	}
}
