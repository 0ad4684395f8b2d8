package httpapi

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
)

// BenchmarkCheckoutCreateHTTP is session.create through the whole handler:
// middleware, authentication, decoding, the service on the memory store,
// encoding.
func BenchmarkCheckoutCreateHTTP(b *testing.B) {
	s := newBenchCheckoutServer(b)
	b.ReportAllocs()
	for b.Loop() {
		benchCreate(b, s)
	}
}

// newBenchCheckoutServer is the handler the checkout benchmarks measure:
// the service on the memory store, the demo key, an access log that is
// formatted and discarded.
func newBenchCheckoutServer(b *testing.B) *server {
	svc := newCheckoutService(b, deliverykit.SystemClock{})
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	return newServer(Options{Keys: &keys, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Checkout: svc, RateLimits: noRateLimits})
}

// benchCreate sends a session.create and returns it with its answer.
func benchCreate(b *testing.B, s *server) (*http.Request, *httptest.ResponseRecorder) {
	req := httptest.NewRequest("POST", "/v1/siw/session.create", strings.NewReader(siwCreate))
	req.Header.Set("Authorization", siwKey["Authorization"])
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	return req, rec
}

// benchSessionID creates a session and returns its id.
func benchSessionID(b *testing.B, s *server) string {
	_, rec := benchCreate(b, s)
	var created struct {
		Session struct {
			ID string `json:"id"`
		} `json:"session"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil || created.Session.ID == "" {
		b.Fatalf("create: %v: %s", err, rec.Body)
	}
	return created.Session.ID
}

// BenchmarkCheckoutGetHTTP is session.get through the whole handler.
func BenchmarkCheckoutGetHTTP(b *testing.B) {
	s := newBenchCheckoutServer(b)
	url := "/v1/siw/session.get?id=" + benchSessionID(b, s)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("GET", url, nil)
		req.Header.Set("Authorization", siwKey["Authorization"])
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
