package httpapi

import (
	"net/http/httptest"
	"testing"

	"github.com/deliverykit/deliverykit/internal/httpbench"
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
	httpbench.Serve(b, s.handler, req)
}
