package catalog

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

func TestReturnReasonsValidate(t *testing.T) {
	name := func(s string) map[string]string { return map[string]string{"en-US": s} }
	tests := []struct {
		name   string
		policy ReturnPolicy
		want   []string // fields
	}{
		{name: "valid", policy: ReturnPolicy{
			ReturnReasons:    []ReturnReason{{ID: "size", DisplayName: name("Size"), SubReasons: []SubReason{{ID: "small", DisplayName: name("Small")}}}},
			ComplaintReasons: []ComplaintReason{{ID: "damaged", DisplayName: name("Damaged")}}}},
		{name: "bad and duplicate ids", policy: ReturnPolicy{
			ReturnReasons: []ReturnReason{{ID: "Size!", DisplayName: name("a")}, {ID: "x", DisplayName: name("b")}, {ID: "x", DisplayName: name("c")}, {DisplayName: name("d")}}},
			want: []string{"return_policy.return_reasons[0].id", "return_policy.return_reasons[2].id", "return_policy.return_reasons[3].id"}},
		{name: "sub-reason duplicate and missing name", policy: ReturnPolicy{
			ReturnReasons: []ReturnReason{{ID: "size", DisplayName: name("Size"), SubReasons: []SubReason{{ID: "s", DisplayName: name("S")}, {ID: "s"}}}}},
			want: []string{"return_policy.return_reasons[0].sub_reasons[1].display_name", "return_policy.return_reasons[0].sub_reasons[1].id"}},
		{name: "no default locale text, unknown locale", policy: ReturnPolicy{
			ComplaintReasons: []ComplaintReason{{ID: "damaged", DisplayName: map[string]string{"xx-YY": "Kaputt"}}}},
			want: []string{"return_policy.complaint_reasons[0].display_name.en-US", "return_policy.complaint_reasons[0].display_name.xx-YY"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var v validator
			d := declared{locales: map[string]bool{"en-US": true, "sv-SE": true}, defaultLocale: "en-US"}
			validateReasons(&v, &tc.policy, &d)
			var got []string
			for _, f := range deliverykit.ViolationsOf(deliverykit.Invalid(v.Violations...)) {
				got = append(got, f.Field)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%v", diff, v.Violations)
			}
		})
	}
}

func TestLocalName(t *testing.T) {
	names := map[string]string{"en-US": "Wrong size", "sv-SE": "Fel storlek"}
	locales := []string{"en-US", "sv-SE", "de-DE"}
	for _, tc := range []struct{ locale, want string }{
		{"sv-SE", "Fel storlek"}, {"sv-FI", "Fel storlek"}, {"sv", "Fel storlek"}, {"de-DE", "Wrong size"}, {"", "Wrong size"}, {"%%", "Wrong size"},
	} {
		if got := LocalName(names, tc.locale, locales); got != tc.want {
			t.Errorf("LocalName(%q) = %q, want %q", tc.locale, got, tc.want)
		}
	}
}
