package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkExampleCreate is the siw.create request of the load run through
// the example server's handler in process: wiring.New with the demo
// configuration, every middleware, the access log formatted at INFO and
// discarded, the memory store. It is the server's CPU per create without
// the sockets, for profiling (-cpuprofile) and comparing changes.
func BenchmarkExampleCreate(b *testing.B) {
	store := memory.New()
	defer store.Close()
	h, err := exampleHandler(b.Context(), store, 0)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(siwCreateBody)
	header := jsonHeader(bearerHeader())
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/siw/session.create", bytes.NewReader(body))
		req.Header = header.Clone()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
