// Package httpbench serves one request to a handler over and over in a
// benchmark, without a connection: the request is built once and the
// answer discarded as a server's connection sends it on, so what is
// measured is the handler's own work per request.
package httpbench

import (
	"net/http"
	"testing"
)

// Serve runs h on req for every iteration of b, failing unless each
// answer is 200 with a body.
func Serve(b *testing.B, h http.Handler, req *http.Request) {
	b.Helper()
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK || w.n == 0 {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
}

// discardWriter is a ResponseWriter that keeps the status and counts the
// body.
type discardWriter struct {
	header http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.header }

func (w *discardWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += len(p)
	return len(p), nil
}
