package validation

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
)

// FuzzCap: whatever violations an error holds, the capped list has at
// most MaxViolations entries and one counting entry, at most
// maxListedText bytes of JSON text, keeps the first entries in their
// order (clipped), counts exactly the ones it left out, and is a fixed
// point of Cap. The fuzzer's strings become fields and messages, split at
// NUL into violations; n adds that many plain ones.
func FuzzCap(f *testing.F) {
	f.Add("items[0].sku\x00is required", uint16(30))
	f.Add("<<<<\x00\xff\xfe\x00and 3 more violations", uint16(0))
	f.Fuzz(func(t *testing.T, text string, n uint16) {
		var in []deliverykit.FieldViolation
		for i, part := range strings.Split(text, "\x00") {
			rule := "r"
			if i%3 == 2 {
				rule = RuleTruncated
			}
			in = append(in, deliverykit.FieldViolation{Field: part, Rule: rule, Message: part})
		}
		for range n % 2000 {
			in = append(in, deliverykit.FieldViolation{Field: "f", Rule: "required", Message: "is required"})
		}
		out := Cap(in)
		total, listed, text2 := 0, 0, 0
		for _, v := range in {
			if c, ok := truncatedCount(v); ok {
				total += c
			} else {
				total++
			}
		}
		for i, v := range out {
			if c, ok := truncatedCount(v); ok {
				if i != len(out)-1 {
					t.Fatalf("a counting entry at %d of %d", i, len(out))
				}
				listed += c
				continue
			}
			listed++
			text2 += jsonLen(v.Field) + jsonLen(v.Message)
			if jsonLen(v.Field) > maxViolationText || jsonLen(v.Message) > maxViolationText {
				t.Fatalf("entry %d not clipped: %d, %d bytes", i, jsonLen(v.Field), jsonLen(v.Message))
			}
		}
		if listed != total {
			t.Fatalf("Cap lists and counts %d violations of %d", listed, total)
		}
		if len(out) > MaxViolations+1 || text2 > maxListedText {
			t.Fatalf("%d entries, %d bytes of text", len(out), text2)
		}
		again := Cap(out)
		if len(again) != len(out) {
			t.Fatalf("Cap(Cap(x)) has %d entries, Cap(x) %d", len(again), len(out))
		}
	})
}

// FuzzHTTPSURL: an accepted URL is https, absolute, has a host, no user
// information, no spaces or control characters and at most MaxURLLength
// characters; and "https://" with any host name of letters is accepted.
func FuzzHTTPSURL(f *testing.F) {
	f.Add("https://shop.example/a.png")
	f.Add("javascript:alert(1)")
	f.Add("https://a@b/")
	f.Fuzz(func(t *testing.T, s string) {
		if !IsHTTPSURL(s) {
			return
		}
		u, err := url.Parse(s)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Opaque != "" {
			t.Fatalf("IsHTTPSURL(%q) accepted %#v (%v)", s, u, err)
		}
		if utf8.RuneCountInString(s) > MaxURLLength || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("IsHTTPSURL(%q): too long or holds spaces", s)
		}
		if !strings.HasPrefix(strings.ToLower(s), "https://") {
			t.Fatalf("IsHTTPSURL(%q): not an https:// URL", s)
		}
	})
}
