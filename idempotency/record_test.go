package idempotency

import (
	"bytes"
	"encoding/binary"
	"strings"
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

// TestRecordCompression: an answer from compressAbove bytes is stored
// compressed and reads back byte for byte; records stored whole (below the
// threshold, or by a release before compression) read as they are; a
// stored body that does not decode, or claims too much, is an error, not
// an answer.
func TestRecordCompression(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	large := []byte(`{"html_snippet":"` + strings.Repeat(`<div class=\"option\">Home delivery</div>`, 60) + `"}`)
	small := large[:compressAbove-1]
	for _, tc := range []struct {
		name           string
		body           []byte
		wantCompressed bool
	}{
		{"below the threshold", small, false},
		{"at the threshold", large[:compressAbove], true},
		{"large", large, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := record{Hash: "h", Status: 201, At: at, body: tc.body}.encode()
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(b, []byte(`"enc":"s2"`)); got != tc.wantCompressed {
				t.Errorf("compressed %v; want %v", got, tc.wantCompressed)
			}
			if tc.wantCompressed && len(b) >= len(tc.body) {
				t.Errorf("stored %d bytes for a body of %d", len(b), len(tc.body))
			}
			got, err := decodeRecord(b)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.body, tc.body) || got.Enc != "" {
				t.Errorf("body read back differs (enc %q)", got.Enc)
			}
		})
	}
	head := `{"hash":"h","status":201,"at":"2026-03-01T12:00:00Z"`
	stored := func(enc string, body []byte) []byte {
		if enc != "" {
			return append([]byte(head+`,"enc":"`+enc+`"}`+"\n"), body...)
		}
		return append([]byte(head+"}\n"), body...)
	}
	if got, err := decodeRecord(stored("", large)); err != nil || !bytes.Equal(got.body, large) {
		t.Errorf("a large body stored whole by an earlier release: %v", err)
	}
	huge := binary.AppendUvarint(nil, maxStoredBody+1) // an S2 block's length, then nothing
	for name, v := range map[string][]byte{
		"corrupt":          stored("s2", []byte("not s2 at all")),
		"claims too much":  stored("s2", huge),
		"unknown encoding": stored("zz", large),
	} {
		if _, err := decodeRecord(v); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
}
