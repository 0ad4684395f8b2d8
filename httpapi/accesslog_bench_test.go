package httpapi

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/deliverykit/deliverykit/internal/httpbench"
)

// BenchmarkAccessLog is the fixed cost of a request outside its handler
// (the middleware, routing, authentication, the security headers) with
// the access log formatted by a text handler at INFO, as the example
// server's, and discarded; "off" logs at WARN, so the difference is the
// access log's own cost.
func BenchmarkAccessLog(b *testing.B) {
	for _, bb := range []struct {
		name  string
		level slog.Level
	}{{"info", slog.LevelInfo}, {"off", slog.LevelWarn}} {
		b.Run(bb.name, func(b *testing.B) {
			s := newLoggedServer(b, slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: bb.level})))
			req := httptest.NewRequest("GET", "/v1/delivery_tracking/logged", nil)
			req.Header.Set("Authorization", bearer("demo-key"))
			httpbench.Serve(b, s.handler, req)
		})
	}
}
