package httpapi

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/getkin/kin-openapi/openapi3"
)

// TestEveryMutatingRouteIsDocumented: every POST and PATCH route the
// handler registers is an operation of a served OpenAPI document, which
// declares the Idempotency-Key header and its 409 and 422 answers. The
// reliability tests walk the documents' operations, so a new route cannot
// escape them.
func TestEveryMutatingRouteIsDocumented(t *testing.T) {
	s, _ := newTestServer(t, docsTestServices(t))
	// canonical writes every {name} as {} and drops a custom method
	// (":complete"): the mux routes "{name}" and the handler tells the
	// methods apart.
	params := regexp.MustCompile(`\{[^}]+\}(:[A-Za-z]+)?`)
	canonical := func(method, path string) string { return method + " " + params.ReplaceAllString(path, "{}") }
	documented := map[string]bool{}
	for _, d := range apiDocuments {
		api, err := loadAPIDoc(d.name, d.body, docErrorSchema(d.name))
		if err != nil {
			t.Fatal(err)
		}
		base := api.doc.Servers[0].URL
		for _, path := range api.doc.Paths.InMatchingOrder() {
			for method, o := range api.doc.Paths.Value(path).Operations() {
				if method != http.MethodPost && method != http.MethodPatch {
					continue
				}
				documented[canonical(method, base+path)] = true
				if o.Extensions["x-keyless"] == true {
					continue // test mode's controls take no key (area.keyless)
				}
				if !slices.ContainsFunc(o.Parameters, func(p *openapi3.ParameterRef) bool {
					return p.Value != nil && p.Value.In == "header" && p.Value.Name == idempotency.Header
				}) {
					t.Errorf("%s: %s %s does not declare the %s header", d.name, method, path, idempotency.Header)
				}
				for _, status := range []string{"409", "422"} {
					if o.Responses.Value(status) == nil {
						t.Errorf("%s: %s %s has no %s answer", d.name, method, path, status)
					}
				}
			}
		}
	}
	n := 0
	for _, route := range s.routes {
		method, pattern, _ := strings.Cut(route, " ")
		if method != http.MethodPost && method != http.MethodPatch {
			continue
		}
		n++
		if !documented[canonical(method, pattern)] {
			t.Errorf("%s: no OpenAPI document has this operation", route)
		}
	}
	if n < 40 {
		t.Errorf("only %d POST and PATCH routes registered: %v", n, s.routes)
	}
}

// TestIdempotencyKeyBounds: a key that is empty, too long, not printable
// ASCII or sent twice is a 400 naming the header, in the area's error
// shape, before the body is read or the store touched.
func TestIdempotencyKeyBounds(t *testing.T) {
	opts := docsTestServices(t)
	opts.Idempotency = idempotency.New(idempotency.Options{}) // never opened: nothing may reach it
	s, _ := newTestServer(t, opts)
	areas := []struct {
		name, path string
		header     map[string]string
	}{
		{"tracking", "/v1/delivery_tracking/order", authed("demo-key")},
		{"session", "/delivery/v1/sessions", map[string]string{"Authorization": "demo-key"}},
		{"returns", "/returns/merchant/order", map[string]string{"X-Api-Key": "demo-key"}},
		{"delivery checkout", "/v1/delivery_checkout/session.create", authed("demo-key")},
		{"customer return", "/returns/customer/return", nil},
	}
	keys := []struct {
		name   string
		values []string
	}{
		{"empty", []string{""}},
		{"too long", []string{strings.Repeat("k", idempotency.MaxKeyLen+1)}},
		{"not ASCII", []string{"clé"}},
		{"control character", []string{"a\tb"}},
		{"twice", []string{"a", "b"}},
	}
	for _, a := range areas {
		for _, k := range keys {
			t.Run(a.name+"/"+k.name, func(t *testing.T) {
				req := httptest.NewRequest(http.MethodPost, a.path, strings.NewReader(`{}`))
				for h, v := range a.header {
					req.Header.Set(h, v)
				}
				req.Header[idempotency.Header] = k.values
				rec := httptest.NewRecorder()
				s.handler.ServeHTTP(rec, req)
				if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), idempotency.Header) {
					t.Errorf("%d %s, want 400 naming %s", rec.Code, rec.Body, idempotency.Header)
				}
			})
		}
	}
	// At the limit, the key is taken (and reaches the keeper, which was
	// not opened: an internal error, proving the bounds let it through).
	req := httptest.NewRequest(http.MethodPost, "/v1/delivery_tracking/order", strings.NewReader(`{}`))
	for h, v := range authed("demo-key") {
		req.Header.Set(h, v)
	}
	req.Header.Set(idempotency.Header, strings.Repeat("~", idempotency.MaxKeyLen))
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("a key of %d characters: %d %s, want it to reach the keeper", idempotency.MaxKeyLen, rec.Code, rec.Body)
	}
}
