package httpapi

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkSessionCreateHTTP is POST /delivery/v1/sessions through the
// whole handler: middleware, authentication, decoding, the options engine,
// the memory store and encoding.
func BenchmarkSessionCreateHTTP(b *testing.B) {
	clock := deliverykit.NewManualClock(sessNow)
	engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	svc, err := session.New(memory.New(), session.Options{Engines: engines, Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	s := newServer(Options{Keys: &keys, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Session: svc, RateLimits: noRateLimits})
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/delivery/v1/sessions", strings.NewReader(sessBody))
		req.Header.Set("authorization", "demo-key")
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
