package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/google/go-cmp/cmp"
)

// redocSHA256 is the SHA-256 of reference/redoc.standalone.js as npm ships
// it in redoc 2.5.4 (bundles/redoc.standalone.js); the file is not edited.
const redocSHA256 = "dcaf76612bc4a3fbcc923a8966dee2f6146a5f32e5ce1b6f02dd60cbbf89500b"

// docsTestServices are the services of every area, enough to serve their
// routes and every document of apiDocuments.
func docsTestServices(t *testing.T) Options {
	t.Helper()
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	clock := deliverykit.NewManualClock(testTime)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	must(err)
	var o Options
	o.Tracking, err = tracking.New(store, tracking.Options{Products: tracking.StaticProducts{}, Clock: clock})
	must(err)
	o.Notify, err = notify.New(store, notify.Options{Clock: clock})
	must(err)
	o.Checkout, err = checkout.New(store, checkout.Options{Engines: engines, Clock: clock})
	must(err)
	o.Session, err = session.New(store, session.Options{Engines: engines, Clock: clock})
	must(err)
	o.Returns = returns.New(store, returns.Options{Clock: clock})
	demo, err := carrier.NewDemo(store, carrier.DemoOptions{})
	must(err)
	o.Shipment, err = shipment.New(store, shipment.Options{Products: shipment.StaticProducts{}, DefaultCarrier: demo, Clock: clock})
	must(err)
	o.Webhooks, err = webhook.New(store, webhook.Options{Clock: clock})
	must(err)
	o.Outbox = outbox.New(store, outbox.Options{Clock: clock})
	o.TestSites, err = testmode.New(testmode.Options{Store: store, Clock: clock, Parents: func(string) bool { return true },
		Build: func(context.Context, testmode.Build) (testmode.Sandbox, error) {
			return nil, errors.New("no test sites here")
		}})
	must(err)
	o.ConfigSchema = config.JSONSchema()
	for _, d := range apiDocuments {
		if !d.served(&o) {
			t.Fatalf("docsTestServices does not serve the %s document: add its service here", d.name)
		}
	}
	return o
}

func docsGet(t *testing.T, h http.Handler, target string, header map[string]string) *http.Response {
	t.Helper()
	req := httptest.NewRequest("GET", target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Result()
}

func readAll(t *testing.T, r io.Reader) []byte {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDocsIndex: /openapi lists the documents of the areas the handler
// serves, in the order of apiDocuments, with each one's title and
// version, and each listed path serves that document; it names the
// configuration schema only when Options.ConfigSchema is given.
func TestDocsIndex(t *testing.T) {
	all := docsTestServices(t)
	var names []string
	for _, d := range apiDocuments {
		names = append(names, d.name)
	}
	tests := []struct {
		name string
		opts Options
		want []string
	}{
		{"every area", all, names},
		{"none", Options{}, []string{}},
		{"the configuration schema only", Options{ConfigSchema: all.ConfigSchema}, []string{}},
		{"tracking and notifications", Options{Tracking: all.Tracking, Notify: all.Notify}, []string{"tracking"}},
		{"checkout, both generations", Options{Checkout: all.Checkout}, []string{"checkout", "delivery_checkout"}},
		{"delivery session and returns", Options{Session: all.Session, Returns: all.Returns}, []string{"session", "returns"}},
		{"shipments", Options{Shipment: all.Shipment}, []string{"shipment"}},
		{"dead events only", Options{Outbox: all.Outbox}, []string{"webhooks"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, tt.opts)
			resp := docsGet(t, s.handler, "/openapi", nil)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("GET /openapi: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			var index docsIndex
			if err := json.NewDecoder(resp.Body).Decode(&index); err != nil {
				t.Fatal(err)
			}
			var want []docsIndexEntry
			for _, name := range tt.want {
				d := apiDocuments[slices.IndexFunc(apiDocuments, func(d apiDocument) bool { return d.name == name })]
				var doc struct{ Info openAPIInfo }
				if err := json.Unmarshal(d.body, &doc); err != nil {
					t.Fatal(err)
				}
				want = append(want, docsIndexEntry{Name: name, Title: doc.Info.Title, Version: doc.Info.Version, Path: d.path, Reference: "/openapi/reference/" + name})
			}
			if want == nil {
				want = []docsIndexEntry{}
			}
			wantIndex := docsIndex{Documents: want, Reference: "/openapi/reference"}
			if tt.opts.ConfigSchema != nil {
				wantIndex.ConfigSchema = "/openapi/config.schema.json"
			}
			if diff := cmp.Diff(wantIndex, index); diff != "" {
				t.Errorf("index (-want +got):\n%s", diff)
			}
			for _, e := range index.Documents {
				if e.Title == "" || e.Version == "" {
					t.Errorf("%s: no title or version", e.Name)
				}
				resp := docsGet(t, s.handler, e.Path, nil)
				body := readAll(t, resp.Body)
				d := apiDocuments[slices.IndexFunc(apiDocuments, func(d apiDocument) bool { return d.name == e.Name })]
				if resp.StatusCode != 200 || !bytes.Equal(body, d.body) {
					t.Errorf("GET %s: %d, the document: %v", e.Path, resp.StatusCode, bytes.Equal(body, d.body))
				}
			}
		})
	}
}

// TestDocsIndexListsEveryDocument: every OpenAPI document in openapi/ is a
// line of apiDocuments, so a new one cannot be served unlisted.
func TestDocsIndexListsEveryDocument(t *testing.T) {
	files, err := filepath.Glob("openapi/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no documents in openapi/: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, d := range apiDocuments {
			if bytes.Equal(d.body, b) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is %d entries of apiDocuments (docs.go), want 1: add its line", f, n)
		}
	}
	seen := map[string]bool{}
	for _, d := range apiDocuments {
		if seen[d.name] || seen[d.path] {
			t.Errorf("%s (%s) is listed twice", d.name, d.path)
		}
		seen[d.name], seen[d.path] = true, true
		if !regexp.MustCompile(`^[a-z][a-z0-9_]*$`).MatchString(d.name) || d.label == "" {
			t.Errorf("%q: a name is lower-case letters, digits and _, and a label is required", d.name)
		}
	}
}

// TestDocsPages: the list and every reference page are HTML under the
// reference pages' policy, name the scripts and the document, and an
// unknown document is 404 in the REST error shape.
func TestDocsPages(t *testing.T) {
	s, _ := newTestServer(t, docsTestServices(t))
	resp := docsGet(t, s.handler, "/openapi/reference", nil)
	body := string(readAll(t, resp.Body))
	checkDocsPage(t, resp, body)
	for _, d := range apiDocuments {
		if !strings.Contains(body, `href="/openapi/reference/`+d.name+`"`) || !strings.Contains(body, `href="`+d.path+`"`) {
			t.Errorf("the list does not link %s", d.name)
		}
	}
	if !strings.Contains(body, `href="/openapi/config.schema.json"`) {
		t.Error("the list does not link the configuration schema")
	}
	for _, d := range apiDocuments {
		t.Run(d.name, func(t *testing.T) {
			resp := docsGet(t, s.handler, "/openapi/reference/"+d.name, nil)
			body := string(readAll(t, resp.Body))
			checkDocsPage(t, resp, body)
			for _, want := range []string{
				`<div id="redoc" data-spec-url="` + d.path + `">`,
				`<script src="/openapi/assets/redoc-2.5.4.standalone.js"></script>`,
				`<script src="/openapi/assets/reference.js"></script>`,
				`aria-current="page">` + d.label + `</a>`,
			} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
		})
	}
	for _, path := range []string{"/openapi", "/openapi/reference", "/openapi/reference/tracking", "/openapi/config.schema.json", "/openapi/assets/reference.js"} {
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, httptest.NewRequest("HEAD", path, nil))
		if rec.Code != 200 || rec.Header().Get("Content-Type") == "" {
			t.Errorf("HEAD %s: %d %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
	}
	resp = docsGet(t, s.handler, "/openapi/reference/nope", nil)
	var e restBody
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil || resp.StatusCode != 404 || e.Error != "not found: no such API document" {
		t.Errorf("unknown document: %d %+v %v", resp.StatusCode, e, err)
	}
}

func checkDocsPage(t *testing.T, resp *http.Response, body string) {
	t.Helper()
	want := map[string]string{
		"Content-Type":            "text/html; charset=utf-8",
		"Content-Security-Policy": docsPageCSP,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "no-referrer",
	}
	got := map[string]string{}
	for k := range want {
		got[k] = resp.Header.Get(k)
	}
	if diff := cmp.Diff(want, got); resp.StatusCode != 200 || diff != "" {
		t.Errorf("status %d, headers (-want +got):\n%s", resp.StatusCode, diff)
	}
	if !strings.HasPrefix(body, "<!DOCTYPE html>") || strings.Contains(body, "<script>") {
		t.Errorf("not a page without inline scripts:\n%.300s", body)
	}
}

// TestDocsAssets: the Redoc bundle is the one npm ships (how it is served
// is TestStaticAssets').
func TestDocsAssets(t *testing.T) {
	b, err := os.ReadFile("reference/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != redocSHA256 {
		t.Errorf("reference/redoc.standalone.js is not redoc %s's bundle", redocVersion)
	}
}

// TestConfigSchemaServed: /openapi/config.schema.json is the schema
// Options.ConfigSchema holds, whatever areas are served; without one the
// path is 404 and no page links it.
func TestConfigSchemaServed(t *testing.T) {
	schema := config.JSONSchema()
	tests := []struct {
		name     string
		schema   []byte
		wantCode int
		wantBody []byte
		wantLink bool
	}{
		{"given", schema, 200, schema, true},
		{"not given", nil, 404, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := newTestServer(t, Options{ConfigSchema: tt.schema})
			resp := docsGet(t, s.handler, "/openapi/config.schema.json", nil)
			got := readAll(t, resp.Body)
			if resp.StatusCode != tt.wantCode {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.wantCode)
			}
			if tt.wantBody != nil && (resp.Header.Get("Content-Type") != "application/json" || !bytes.Equal(got, tt.wantBody)) {
				t.Errorf("%s: the body is not the schema given", resp.Header.Get("Content-Type"))
			}
			page := string(readAll(t, docsGet(t, s.handler, "/openapi/reference", nil).Body))
			if linked := strings.Contains(page, "config.schema.json"); linked != tt.wantLink {
				t.Errorf("the list links the schema: %v, want %v", linked, tt.wantLink)
			}
		})
	}
}
