package httpapi

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"net/http"
	"testing"
)

// TestTestKeyInEveryCredential: a test site's key is found in each area's
// credential, whatever its first characters; other keys never are.
func TestTestKeyInEveryCredential(t *testing.T) {
	for range 200 {
		var b [20]byte
		rand.Read(b[:])
		key := "dk_test_" + base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:])
		for name, h := range map[string][2]string{
			"bearer base64":  {"Authorization", "Bearer " + base64.StdEncoding.EncodeToString([]byte(key))},
			"raw base64":     {"Authorization", "Bearer " + base64.RawURLEncoding.EncodeToString([]byte(key))},
			"authorization":  {"Authorization", key},
			"bearer raw key": {"Authorization", "bearer " + key},
			"x-api-key":      {"X-Api-Key", key},
		} {
			r, _ := http.NewRequest("GET", "/v1/som/shipments", nil)
			r.Header.Set(h[0], h[1])
			if got, ok := testKey(r); !ok || got != key {
				t.Fatalf("%s %q: got %q %v", name, h[1], got, ok)
			}
		}
	}
	for _, h := range []string{"Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key")), "demo-key", "Bearer ZGtfdGVzdF", ""} {
		r, _ := http.NewRequest("GET", "/v1/som/shipments", nil)
		r.Header.Set("Authorization", h)
		if got, ok := testKey(r); ok {
			t.Errorf("%q is a test key %q", h, got)
		}
	}
}

// BenchmarkTestKeyLive is what routing costs a live request: the test
// key is looked for in its headers and not found.
func BenchmarkTestKeyLive(b *testing.B) {
	r, _ := http.NewRequest("GET", "/v1/som/shipments", nil)
	r.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte("demo-key")))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := testKey(r); ok {
			b.Fatal("a live key is a test key")
		}
	}
}
