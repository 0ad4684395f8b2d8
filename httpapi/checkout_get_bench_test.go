package httpapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkCheckoutGetHandler is session.get through the whole handler,
// like BenchmarkCheckoutGetHTTP, without what that benchmark spends on the
// test's side: building the request (httptest.NewRequest parses it) and
// recording the answer (httptest.ResponseRecorder copies the headers and
// grows a buffer to the body's size). The request is built once and the
// answer discarded, as a server's connection would send it: what is left
// is the server's own work per request.
func BenchmarkCheckoutGetHandler(b *testing.B) {
	s := newBenchCheckoutServer(b)
	req := httptest.NewRequest("GET", "/v1/siw/session.get?id="+benchSessionID(b, s), nil)
	req.Header.Set("Authorization", siwKey["Authorization"])
	w := &discardWriter{header: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.header)
		w.status, w.n = 0, 0
		s.handler.ServeHTTP(w, req)
		if w.status != 200 || w.n == 0 {
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
