package httpapi

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"
)

// The rules the documents follow beyond being valid OpenAPI, checked on
// every document of apiDocuments (so a new one is checked as soon as it is
// listed). They are those of the linter CI runs where npm is available
// (.ci/run: redocly lint with its recommended rules) that matter to a
// client, plus this module's: every 4xx answer in the area's error shape
// with an example.

// docErrorSchemas names each document's error schema in
// components/schemas when it is not "Error".
var docErrorSchemas = map[string]string{"session": "Status"}

func docErrorSchema(name string) string {
	if s := docErrorSchemas[name]; s != "" {
		return s
	}
	return "Error"
}

// maxSummary bounds a summary: it is the operation's name in menus.
const maxSummary = 80

// markupInText finds what Markdown renderers take for an HTML tag, which
// they drop from a description: `<kind>` must be in a code span.
var markupInText = regexp.MustCompile("<[A-Za-z/][^>]*>")

func TestOpenAPIDocumentsLint(t *testing.T) {
	for _, d := range apiDocuments {
		t.Run(d.name, func(t *testing.T) {
			errorSchema := docErrorSchema(d.name)
			// Loading validates the document, its examples included.
			api, err := loadAPIDoc(d.name, d.body, errorSchema)
			if err != nil {
				t.Fatal(err)
			}
			doc := api.doc
			if doc.Info.Title == "" || doc.Info.Version == "" || doc.Info.Description == "" {
				t.Errorf("info needs a title, a version and a description")
			}
			// The module's licence (LICENSE), as the generated documents
			// name it (openAPILicense).
			if l := doc.Info.License; l == nil || l.Name != openAPILicense["name"] || l.URL != openAPILicense["url"] {
				t.Errorf("info.license is %+v, want %v", l, openAPILicense)
			}
			if len(doc.Servers) != 1 || !strings.HasPrefix(d.path, doc.Servers[0].URL+"/") {
				t.Errorf("servers must be the one base of %s", d.path)
			}
			for _, p := range lintText(d.body) {
				t.Error(p)
			}
			ids := map[string]string{}
			errRef := "#/components/schemas/" + errorSchema
			paths := doc.Paths.InMatchingOrder()
			sort.Strings(paths)
			for _, path := range paths {
				item := doc.Paths.Value(path)
				for method, op := range item.Operations() {
					at := method + " " + path
					checkOperationNames(t, at, op, ids)
					var fours []string
					for status := range op.Responses.Map() {
						if strings.HasPrefix(status, "4") {
							fours = append(fours, status)
						}
					}
					if len(fours) == 0 {
						t.Errorf("%s: no 4xx response", at)
					}
					slices.Sort(fours)
					for _, status := range fours {
						checkErrorResponse(t, at+" "+status, op.Responses.Value(status), errRef, api.errorSchema)
					}
				}
			}
			// The webhooks a receiver implements: named as operations
			// are, their answers are the receiver's.
			if hooks, ok := doc.Extensions["x-webhooks"].(map[string]any); ok {
				for name, h := range hooks {
					post, _ := h.(map[string]any)["post"].(map[string]any)
					id, _ := post["operationId"].(string)
					summary, _ := post["summary"].(string)
					checkOperationNames(t, "webhook "+name, &openapi3.Operation{OperationID: id, Summary: summary}, ids)
				}
			}
		})
	}
}

func checkOperationNames(t *testing.T, at string, op *openapi3.Operation, ids map[string]string) {
	t.Helper()
	switch {
	case op.OperationID == "":
		t.Errorf("%s: no operationId", at)
	case ids[op.OperationID] != "":
		t.Errorf("%s: operationId %s is also %s's", at, op.OperationID, ids[op.OperationID])
	}
	ids[op.OperationID] = at
	if op.Summary == "" || len(op.Summary) > maxSummary {
		t.Errorf("%s: the summary %q is empty or longer than %d bytes (say the rest in the description)", at, op.Summary, maxSummary)
	}
}

// checkErrorResponse: a 4xx answer is the area's error schema with an
// example that matches it; a customer page's is HTML with an example.
func checkErrorResponse(t *testing.T, at string, ref *openapi3.ResponseRef, errRef string, errorSchema *openapi3.Schema) {
	t.Helper()
	if ref == nil || ref.Value == nil || len(ref.Value.Content) == 0 {
		t.Errorf("%s: no content", at)
		return
	}
	if ref.Value.Description == nil || *ref.Value.Description == "" {
		t.Errorf("%s: no description", at)
	}
	for media, mt := range ref.Value.Content {
		examples := exampleValues(mt)
		if len(examples) == 0 {
			t.Errorf("%s %s: no example", at, media)
		}
		switch media {
		case "application/json":
			if mt.Schema == nil || mt.Schema.Ref != errRef {
				t.Errorf("%s: the schema is not %s", at, errRef)
				continue
			}
			for _, ex := range examples {
				if err := errorSchema.VisitJSON(ex, openapi3.VisitAsResponse()); err != nil {
					t.Errorf("%s: the example does not match %s: %v", at, errRef, err)
				}
			}
		case "text/html":
			for _, ex := range examples {
				if s, ok := ex.(string); !ok || !strings.HasPrefix(s, "<!DOCTYPE html>") {
					t.Errorf("%s: the example is not a page", at)
				}
			}
		default:
			t.Errorf("%s: an error answer in %s", at, media)
		}
	}
}

// exampleValues are a media type's example and examples, as JSON values.
func exampleValues(mt *openapi3.MediaType) []any {
	var out []any
	if mt.Example != nil {
		out = append(out, normalizeJSON(mt.Example))
	}
	names := make([]string, 0, len(mt.Examples))
	for name := range mt.Examples {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if ex := mt.Examples[name]; ex != nil && ex.Value != nil && ex.Value.Value != nil {
			out = append(out, normalizeJSON(ex.Value.Value))
		}
	}
	return out
}

// normalizeJSON turns a value into what encoding/json decodes it to.
func normalizeJSON(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

// lintText checks every summary and description of a document: Markdown
// renderers drop what looks like an HTML tag.
func lintText(body []byte) []string {
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "example" || k == "examples" {
					continue
				}
				if s, ok := x.(string); ok && (k == "description" || k == "summary") {
					if m := markupInText.FindString(stripCodeSpans(s)); m != "" {
						problems = append(problems, fmt.Sprintf("%s/%s: %q reads as markup; put it in `backticks`", at, k, m))
					}
				}
				walk(x, at+"/"+k)
			}
		case []any:
			for i, x := range v {
				walk(x, fmt.Sprintf("%s/%d", at, i))
			}
		}
	}
	walk(doc, "#")
	sort.Strings(problems)
	return problems
}

func stripCodeSpans(s string) string {
	parts := strings.Split(s, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
		}
	}
	return b.String()
}

// docCredentials are the headers carrying the demo key in each document's
// area.
func docCredentials(name string) map[string]string {
	switch name {
	case "session":
		return map[string]string{"Authorization": "demo-key"}
	case "returns":
		return map[string]string{"X-Api-Key": "demo-key"}
	}
	return map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
}

// errorProbeBodies are request bodies that get past decoding to the check
// a probe is for, by "<document> <method> <path>".
var errorProbeBodies = map[string]string{
	// The widget reads its choice before its token.
	"checkout POST /_/widget/select": `{"option_id": "home/north-parcel-home"}`,
}

// TestOpenAPIErrorExamplesAreAnswers sends every documented operation the
// requests that make its fixed 4xx answers (no credentials: 401; a body
// over the limit: 413; over a rate limit: 429) and compares what the
// server answers with the document's example of that status, apart from
// the trace id, the time and the path. Examples of the other statuses
// name records, and are checked against the schema only.
func TestOpenAPIErrorExamplesAreAnswers(t *testing.T) {
	open := docsTestServices(t)
	open.RateLimits = RateLimits{Site: NoRateLimit, WidgetToken: NoRateLimit, Address: NoRateLimit}
	openServer, _ := newTestServer(t, open)
	tight := docsTestServices(t)
	one := RateLimit{PerSecond: 1, Burst: 1}
	tight.RateLimits = RateLimits{Site: one, WidgetToken: one, Address: one}
	tightServer, _ := newTestServer(t, tight)

	checked := map[string]int{}
	for _, d := range apiDocuments {
		api, err := loadAPIDoc(d.name, d.body, docErrorSchema(d.name))
		if err != nil {
			t.Fatal(err)
		}
		base := api.doc.Servers[0].URL
		for _, path := range api.doc.Paths.InMatchingOrder() {
			target := base + regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(path, "1")
			for method, op := range api.doc.Paths.Value(path).Operations() {
				at := d.name + " " + method + " " + path
				public := op.Security != nil && len(*op.Security) == 0
				send := func(h http.Handler, header map[string]string, body string) *httptest.ResponseRecorder {
					req := httptest.NewRequest(method, target, strings.NewReader(body))
					for k, v := range header {
						req.Header.Set(k, v)
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					return rec
				}
				compare := func(status string, rec *httptest.ResponseRecorder) {
					t.Helper()
					if fmt.Sprint(rec.Code) != status {
						t.Errorf("%s: answered %d, want %s: %s", at, rec.Code, status, rec.Body)
						return
					}
					var got any
					if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
						t.Errorf("%s %s: %v", at, status, err)
						return
					}
					mt := op.Responses.Value(status).Value.Content.Get("application/json")
					want := exampleValues(mt)
					if len(want) == 0 {
						t.Errorf("%s %s: no example", at, status)
						return
					}
					// Fields that differ per request.
					ignore := cmpIgnoreKeys("trace_id", "timestamp", "path")
					if !slices.ContainsFunc(want, func(w any) bool { return cmp.Equal(w, got, ignore) }) {
						t.Errorf("%s %s: the examples are not the answer (-example +answer):\n%s", at, status, cmp.Diff(want[0], got, ignore))
					}
					checked[status]++
				}
				if r := op.Responses.Value("401"); r != nil {
					compare("401", send(openServer.handler, nil, errorProbeBodies[at]))
				}
				creds := docCredentials(d.name)
				if public {
					creds = nil
				}
				if r := op.Responses.Value("413"); r != nil && op.RequestBody != nil {
					compare("413", send(openServer.handler, creds, strings.Repeat(" ", DefaultMaxBodyBytes+1)))
				}
				if r := op.Responses.Value("429"); r != nil {
					send(tightServer.handler, creds, "")
					compare("429", send(tightServer.handler, creds, ""))
				}
			}
		}
	}
	if checked["401"] == 0 || checked["413"] == 0 || checked["429"] == 0 {
		t.Errorf("checked %v", checked)
	}
	t.Logf("answers compared with their examples, by status: %v", checked)
}

// cmpIgnoreKeys ignores these members of JSON objects.
func cmpIgnoreKeys(keys ...string) cmp.Option {
	return cmp.FilterPath(func(p cmp.Path) bool {
		mi, ok := p.Last().(cmp.MapIndex)
		return ok && slices.Contains(keys, mi.Key().String())
	}, cmp.Ignore())
}
