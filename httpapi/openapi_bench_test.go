package httpapi

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
)

// BenchmarkOpenAPICheckCheckoutCreate measures what validating one answer
// adds to a test: a full session.create response (session, options,
// pricing) checked against openapi/checkout.json. Compare with
// BenchmarkCheckoutCreateHTTP, the cost of producing it.
func BenchmarkOpenAPICheckCheckoutCreate(b *testing.B) {
	svc := newCheckoutService(b, deliverykit.SystemClock{}, nil)
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	s := newServer(Options{Keys: &keys, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Checkout: svc})
	req := httptest.NewRequest("POST", "/v1/siw/session.create", strings.NewReader(siwCreate))
	req.Header.Set("Authorization", siwKey["Authorization"])
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	if rec.Code != 200 {
		b.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	d := checkoutAPI(b)
	body := rec.Body.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.check(req, rec.Code, rec.Header(), body); err != nil {
			b.Fatal(err)
		}
	}
}
