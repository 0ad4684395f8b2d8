package httpapi

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/tracking"
)

func TestNegotiate(t *testing.T) {
	tests := []struct {
		accept string
		want   coding
	}{
		{"", identity},
		{"identity", identity},
		{"gzip", codingGzip},
		{"GZIP", codingGzip},
		{"x-gzip", codingGzip},
		{"gzip;q=0.5", codingGzip},
		{"gzip;q=0", identity},
		{"gzip; q=0.000", identity},
		{"br", codingBrotli},
		{"gzip, deflate, br, zstd", codingBrotli},
		{"br;q=0, gzip", codingGzip},
		{"br;q=0, gzip;q=0", identity},
		{"deflate, *;q=0.5", codingBrotli},
		{"*;q=0", identity},
		{"br;q=0, *", codingGzip},
		{"deflate", identity},
		{"gzip;q=banana", codingGzip},
	}
	for _, tt := range tests {
		if got := negotiate(tt.accept); got != tt.want {
			t.Errorf("negotiate(%q) = %v, want %v", tt.accept, got, tt.want)
		}
	}
}

// decode undoes a Content-Encoding this package sends.
func decode(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	var r io.Reader = resp.Body
	switch ce := resp.Header.Get("Content-Encoding"); ce {
	case "":
	case "gzip":
		zr, err := gzip.NewReader(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(resp.Body)
	default:
		t.Fatalf("Content-Encoding %q", ce)
	}
	return readAll(t, r)
}

// TestStaticAssets: the widget script and the reference pages' scripts
// are the embedded files, in the coding the browser takes best, each
// variant with its own ETag and revalidated to a 304 by it; the widget's
// content-addressed URL may be cached for good.
func TestStaticAssets(t *testing.T) {
	redoc, err := os.ReadFile("reference/redoc.standalone.js")
	if err != nil {
		t.Fatal(err)
	}
	reference, err := os.ReadFile("reference/reference.js")
	if err != nil {
		t.Fatal(err)
	}
	handler := newSiwEnv(t).handler
	tests := []struct {
		path  string
		want  []byte
		cache string
	}{
		{"/openapi/assets/redoc-2.5.4.standalone.js", redoc, "public, max-age=31536000, immutable"},
		{"/openapi/assets/reference.js", reference, "no-cache"},
		{"/v1/siw/_/widget.js", checkout.WidgetJS, "public, max-age=300"},
		{"/v1/siw/_/" + checkout.WidgetScriptName, checkout.WidgetJS, "public, max-age=31536000, immutable"},
	}
	codings := []struct{ accept, encoding string }{
		{"", ""},
		{"gzip, deflate", "gzip"},
		{"gzip, deflate, br, zstd", "br"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			etags := map[string]bool{}
			for _, c := range codings {
				resp := docsGet(t, handler, tt.path, map[string]string{"Accept-Encoding": c.accept})
				got := map[string]string{
					"Content-Type":     resp.Header.Get("Content-Type"),
					"Cache-Control":    resp.Header.Get("Cache-Control"),
					"Content-Encoding": resp.Header.Get("Content-Encoding"),
					"Vary":             resp.Header.Get("Vary"),
				}
				want := map[string]string{
					"Content-Type":     "text/javascript; charset=utf-8",
					"Cache-Control":    tt.cache,
					"Content-Encoding": c.encoding,
					"Vary":             "Accept-Encoding",
				}
				if diff := cmp.Diff(want, got); resp.StatusCode != 200 || diff != "" {
					t.Fatalf("Accept-Encoding %q: %d, headers (-want +got):\n%s", c.accept, resp.StatusCode, diff)
				}
				if body := decode(t, resp); !bytes.Equal(body, tt.want) {
					t.Fatalf("Accept-Encoding %q: the body is not the file", c.accept)
				}
				etag := resp.Header.Get("ETag")
				if etags[etag] {
					t.Errorf("Accept-Encoding %q: ETag %s is another coding's", c.accept, etag)
				}
				etags[etag] = true
				again := docsGet(t, handler, tt.path, map[string]string{"Accept-Encoding": c.accept, "If-None-Match": etag})
				if again.StatusCode != http.StatusNotModified || len(readAll(t, again.Body)) != 0 {
					t.Errorf("Accept-Encoding %q, If-None-Match %s: %d", c.accept, etag, again.StatusCode)
				}
			}
		})
	}
}

// TestWidgetScriptBudget: what a shopper's browser downloads for the
// widget stays within 10 KB, brotli or gzip.
func TestWidgetScriptBudget(t *testing.T) {
	const budget = 10 << 10
	for _, accept := range []string{"br", "gzip"} {
		body, _ := widgetScriptHashed.variants[negotiate(accept)]()
		n := len(body)
		t.Logf("widget script: %d bytes, %s %d bytes", len(checkout.WidgetJS), accept, n)
		if n > budget {
			t.Errorf("widget script, %s: %d bytes, budget %d", accept, n, budget)
		}
	}
}

// TestSnippetNamesHashedScript: the snippet names the content-addressed
// script, and the handler serves it there.
func TestSnippetNamesHashedScript(t *testing.T) {
	snippet := checkout.Snippet("https://shop.example/v1/siw/_/", "tok")
	if !strings.Contains(snippet, `data-deliverykit-script="`+checkout.WidgetScriptName+`"`) {
		t.Errorf("the snippet does not name %s:\n%s", checkout.WidgetScriptName, snippet)
	}
	if !strings.HasPrefix(checkout.WidgetScriptName, "widget.") || len(checkout.WidgetScriptName) != len("widget.0123456789abcdef.js") {
		t.Errorf("WidgetScriptName = %q", checkout.WidgetScriptName)
	}
}

// TestCustomerPagesCompressed: the tracking page and the return status
// page reach the browser compressed when it takes it, with an ETag of the
// bytes sent that makes a reload of an unchanged page a 304 without a
// body; the customer's browser may keep a page (private, no-cache), a
// not-found page is not kept.
func TestCustomerPagesCompressed(t *testing.T) {
	e := newTrackingEnv(t)
	e.mustOrder(t)
	_, body := call{method: "POST", path: "/v1/delivery_tracking/generate_tracking_page_link", header: authed("demo-key"),
		body: `{"order_id": "ORD-1", "locale": "sv-SE"}`}.do(t, e.h(t))
	page := strings.TrimPrefix(body["tracking_link"].(string), "http://portal.test")
	h := e.h(t)
	get := func(accept, ifNoneMatch string) *http.Response {
		return docsGet(t, h, page, map[string]string{"Accept-Encoding": accept, "If-None-Match": ifNoneMatch})
	}
	plain := get("", "")
	want := readAll(t, plain.Body)
	if plain.StatusCode != 200 || plain.Header.Get("Content-Encoding") != "" || !bytes.Contains(want, []byte("Beställning ORD-1")) {
		t.Fatalf("plain page: %d %v", plain.StatusCode, plain.Header)
	}
	tests := []struct{ accept, encoding string }{
		{"", ""},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "br"},
	}
	etags := map[string]string{}
	for _, tt := range tests {
		resp := get(tt.accept, "")
		got := map[string]string{
			"Content-Encoding": resp.Header.Get("Content-Encoding"),
			"Cache-Control":    resp.Header.Get("Cache-Control"),
			"Vary":             strings.Join(resp.Header.Values("Vary"), ", "),
		}
		wantHeaders := map[string]string{"Content-Encoding": tt.encoding, "Cache-Control": "private, no-cache", "Vary": "Accept-Encoding"}
		if diff := cmp.Diff(wantHeaders, got); resp.StatusCode != 200 || diff != "" {
			t.Fatalf("Accept-Encoding %q: %d (-want +got):\n%s", tt.accept, resp.StatusCode, diff)
		}
		if resp.Header.Get("Content-Length") == "" {
			t.Errorf("Accept-Encoding %q: no Content-Length", tt.accept)
		}
		if got := decode(t, resp); !bytes.Equal(got, want) {
			t.Errorf("Accept-Encoding %q: the decoded page differs from the plain one", tt.accept)
		}
		etag := resp.Header.Get("ETag")
		if other, ok := etags[etag]; ok || etag == "" {
			t.Errorf("Accept-Encoding %q: ETag %q (also %q's)", tt.accept, etag, other)
		}
		etags[etag] = tt.accept
		again := get(tt.accept, etag)
		if again.StatusCode != http.StatusNotModified || len(readAll(t, again.Body)) != 0 || again.Header.Get("ETag") != etag {
			t.Errorf("Accept-Encoding %q, If-None-Match: %d", tt.accept, again.StatusCode)
		}
		if stale := get(tt.accept, `"0123"`); stale.StatusCode != 200 {
			t.Errorf("Accept-Encoding %q, another ETag: %d", tt.accept, stale.StatusCode)
		}
	}
	gz := get("gzip", "")
	t.Logf("tracking page: %d bytes, gzip %s, brotli %s", len(want), gz.Header.Get("Content-Length"), get("br", "").Header.Get("Content-Length"))

	missing := docsGet(t, h, tracking.PagePath+"tt_unknown", map[string]string{"Accept-Encoding": "br"})
	if missing.StatusCode != 404 || missing.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("unknown token: %d, Cache-Control %q", missing.StatusCode, missing.Header.Get("Cache-Control"))
	}
}
