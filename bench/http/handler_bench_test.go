package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/deliverykit/deliverykit/storage/memory"
)

// BenchmarkExampleCreate is the siw.create request of the load run through
// the example server's handler in process: wiring.New with the demo
// configuration, every middleware, the access log formatted at INFO and
// discarded, the memory store. It is the server's CPU per create without
// the sockets, for profiling (-cpuprofile) and comparing changes.
func BenchmarkExampleCreate(b *testing.B) {
	b.Run("plain", func(b *testing.B) { benchmarkCreate(b, false) })
	// Each request with an Idempotency-Key of its own: the cost of the
	// unit and of the stored answer.
	b.Run("key", func(b *testing.B) { benchmarkCreate(b, true) })
}

func benchmarkCreate(b *testing.B, keyed bool) {
	store := memory.New()
	defer store.Close()
	h, err := exampleHandler(b.Context(), store, 0)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(siwCreateBody)
	header := jsonHeader(bearerHeader())
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/siw/session.create", bytes.NewReader(body))
		req.Header = header.Clone()
		if keyed {
			n++
			req.Header.Set("Idempotency-Key", "bench-"+strconv.Itoa(n))
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
