package catalog

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidPostalCode(t *testing.T) {
	for _, tc := range []struct {
		country, code string
		want          bool
	}{
		{"SE", "111 57", true}, {"se", "11157", true}, {"SE", "1115", false}, {"SE", "111-57", false},
		{"DE", "10115", true}, {"DE", "1011", false}, {"NO", "0150", true}, {"NO", "ABCD", false},
		{"NL", "1012 ab", true}, {"GB", "SW1A 1AA", true}, {"GB", "12345", false},
		{"US", "95014-1234", true}, {"CA", "K1A 0B1", true}, {"PL", "00-950", true}, {"PL", "00950", false},
		{"XK", "10000", true}, {"XK", "", false}, {"XK", "<script>", false},
		{"SE", "  111 57 ", true}, {"SE", "11157111571115711157", false},
	} {
		if got := ValidPostalCode(tc.country, tc.code); got != tc.want {
			t.Errorf("ValidPostalCode(%q, %q) = %v", tc.country, tc.code, got)
		}
	}
}

// Every format's example is valid for it, and its pattern reads the same
// in a browser: only anchors, classes, counts, groups and "?" are used.
func TestPostalFormats(t *testing.T) {
	portable := regexp.MustCompile(`^\^[\\0-9A-Za-z\[\]{}(),?| -]+\$$`)
	for _, f := range postalFormats {
		if !ValidPostalCode(f.Country, f.Example) {
			t.Errorf("%s: example %q is not valid", f.Country, f.Example)
		}
		if !portable.MatchString(f.Pattern) {
			t.Errorf("%s: pattern %q uses more than the portable syntax", f.Country, f.Pattern)
		}
		if got := PostalFormatOf(f.Country); got != f {
			t.Errorf("PostalFormatOf(%s) = %+v", f.Country, got)
		}
	}
	if diff := cmp.Diff(PostalFormat{Country: "XK", Pattern: genericPostal.Pattern}, PostalFormatOf("xk")); diff != "" {
		t.Errorf("unknown country (-want +got):\n%s", diff)
	}
}
