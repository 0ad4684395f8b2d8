package idempotency

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestRecordRoundTrip: a stored answer reads back as it was written,
// whatever its headers and body hold.
func TestRecordRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for _, r := range []record{
		{Hash: "abc", Status: 201, At: at, body: []byte(`{"id":"x"}`)},
		{Hash: "abc", Status: 204, At: at.In(time.FixedZone("CET", 3600))},
		{Hash: "h", Status: 400, At: at, body: []byte("line 1\nline 2\n"), Header: map[string][]string{
			"Content-Type": {"application/json"}, "Location": {"/v1/x?a=1&b=<2>"}, "X-Odd": {"quote \" back \\ tab \t nl \n", "é 日本"},
			"X-Empty": {}, "X-Nil": nil,
		}},
	} {
		b, err := r.encode()
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRecord(b)
		if err != nil {
			t.Fatalf("decoding %q: %v", b, err)
		}
		if diff := cmp.Diff(r, got, cmp.AllowUnexported(record{}), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) }), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("round trip of %q (-want +got):\n%s", b, diff)
		}
	}
}
