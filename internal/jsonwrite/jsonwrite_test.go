package jsonwrite

import (
	"strings"

	"bytes"
	"encoding/json"
	gojson "github.com/goccy/go-json"
	"math"
	"testing"
)

// String quotes every byte as encoding/json does at every position of
// strings of 1 to 17 bytes, among bytes that need no escaping; and whole
// characters.
func TestStringIsEncodingJSON(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := String([]byte("x"), s); !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("String(%q) = %s; encoding/json writes %s", s, got, want)
		}
	}
	for c := range 256 {
		for n := 1; n <= 17; n++ {
			for at := range n {
				raw := bytes.Repeat([]byte("a"), n)
				raw[at] = byte(c)
				s := string(raw)
				check(s)
				plainOnly := c >= 0x20 && c < 0x80 && !bytes.ContainsAny([]byte{byte(c)}, `"\<>&`)
				want := at
				if plainOnly {
					want = n
				}
				if got := plainPrefix(s); got != want {
					t.Fatalf("plainPrefix(%q) = %d, want %d", s, got, want)
				}
			}
		}
	}
	for _, s := range []string{"", "Götgatan 1", "a\u2028b\u2029c", "\xe2\x82", "€\xc3", "\ufffd", "<script>&amp;</script>", "\x7f\x00", `<div id="widget-container" data-token="abc&def">Leverans till Götgatan 12, 118 46 Stockholm </div>`, "€€€€€€€€\xff\xfe<<<<<<<<<"} {
		check(s)
	}
}

func TestFloatIsEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1.5, 59.3293, 18.0686, 1e-6, 9.99e-7, 1e-7, 1.5e-10, 1e20, 1e21, -1e21, 123456789.123456, 0.1 + 0.2, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)} {
		want, wantErr := json.Marshal(f)
		got, err := Float([]byte("x"), f)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("Float(%v) error = %v; encoding/json's = %v", f, err, wantErr)
		}
		if err != nil {
			if string(got) != "x" {
				t.Fatalf("Float(%v) failed but appended %q", f, got)
			}
			continue
		}
		if !bytes.Equal(got[1:], want) {
			t.Fatalf("Float(%v) = %s; encoding/json writes %s", f, got[1:], want)
		}
	}
}

// BenchmarkString compares String with the codec on a plain id, a street
// name and an HTML snippet.
func BenchmarkString(b *testing.B) {
	snippet := strings.Repeat(`<div id="widget-container" data-token="abc&def"></div><script src="https://example.com/_/widget.js" async></script>`, 12)
	for _, s := range []string{"sessions/01JDX4Z8K6Q2", "Götgatan 12, 118 46 Stockholm", snippet} {
		name := s
		if len(name) > 12 {
			name = name[:12]
		}
		var out []byte
		b.Run("String/"+name, func(b *testing.B) {
			for b.Loop() {
				out = String(out[:0], s)
			}
		})
		b.Run("codec/"+name, func(b *testing.B) {
			for b.Loop() {
				out, _ = gojson.Marshal(s)
			}
		})
	}
}
