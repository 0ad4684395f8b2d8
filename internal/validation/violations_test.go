package validation

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

func TestViolationsCollect(t *testing.T) {
	v := New(hhmm)
	tests := []struct {
		name    string
		collect func(vs *Violations) error
		want    []deliverykit.FieldViolation // the error's; nil: no error
	}{
		{
			name:    "none",
			collect: func(*Violations) error { return nil },
		},
		{
			name: "code and tags, sorted like Check",
			collect: func(vs *Violations) error {
				vs.Add("ranges[10].end", "after", "must be after start")
				vs.Addf("ranges[2].end", "order", "must not be before ranges[%d]", 1)
				return vs.Tags(v, "ranges[2].", &opening{Start: "9"})
			},
			want: []deliverykit.FieldViolation{
				{Field: "ranges[2].end", Rule: "order", Message: "must not be before ranges[1]"},
				{Field: "ranges[2].end", Rule: "required", Message: "is required"},
				{Field: "ranges[2].start", Rule: "hhmm", Message: "must be a time of day HH:MM"},
				{Field: "ranges[10].end", Rule: "after", Message: "must be after start"},
			},
		},
		{
			name: "a value with valid tags adds nothing",
			collect: func(vs *Violations) error {
				vs.Add("name", "required", "is required")
				return vs.Tags(v, "", &opening{Start: "08:00", End: "09:00"})
			},
			want: []deliverykit.FieldViolation{{Field: "name", Rule: "required", Message: "is required"}},
		},
		{
			name: "capped like Join",
			collect: func(vs *Violations) error {
				for i := range MaxViolations + 3 {
					vs.Add(fmt.Sprintf("items[%d]", i), "required", "is required")
				}
				return nil
			},
			want: func() []deliverykit.FieldViolation {
				var want []deliverykit.FieldViolation
				for i := range MaxViolations {
					want = append(want, deliverykit.FieldViolation{Field: fmt.Sprintf("items[%d]", i), Rule: "required", Message: "is required"})
				}
				return append(want, Truncated(3))
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var vs Violations
			if err := tt.collect(&vs); err != nil {
				t.Fatalf("collecting: %v", err)
			}
			before := append(Violations(nil), vs...)
			err := vs.Err()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Err() = %v, want nil", err)
				}
				return
			}
			if got := deliverykit.KindOf(err); got != deliverykit.KindInvalidArgument {
				t.Fatalf("Err() kind = %v, want InvalidArgument (err %v)", got, err)
			}
			if diff := cmp.Diff(tt.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("Err() violations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, vs); diff != "" {
				t.Errorf("Err() changed the collection (-before +after):\n%s", diff)
			}
		})
	}
}

func TestViolationsTagsInternalError(t *testing.T) {
	var vs Violations
	err := vs.Tags(New(), "", 42)
	if got := deliverykit.KindOf(err); got != deliverykit.KindInternal {
		t.Errorf("Tags(42) kind = %v, want Internal (err %v)", got, err)
	}
	if len(vs) != 0 {
		t.Errorf("Tags(42) added %v, want nothing", vs)
	}
}

func TestSiteRule(t *testing.T) {
	rule := SiteRule{Field: "site_id", Message: "not yours", Violation: "is not your site"}
	required := rule
	required.Required = true
	denied := &deliverykit.Error{
		Kind:       deliverykit.KindPermissionDenied,
		Message:    "not yours",
		Violations: []deliverykit.FieldViolation{{Field: "site_id", Rule: "site", Message: "is not your site"}},
	}
	tests := []struct {
		name        string
		rule        SiteRule
		site, given string
		want        *deliverykit.Error // nil: allowed
		wantFilled  string             // *given after Fill, when allowed
	}{
		{name: "empty means the caller's", rule: rule, site: "a", given: "", wantFilled: "a"},
		{name: "the caller's", rule: rule, site: "a", given: "a", wantFilled: "a"},
		{name: "another site", rule: rule, site: "a", given: "b", want: denied},
		{name: "no caller's site, none named", rule: rule, site: "", given: "", wantFilled: ""},
		{name: "no caller's site, one named", rule: rule, site: "", given: "b", want: denied},
		{name: "required, present", rule: required, site: "a", given: "", wantFilled: "a"},
		{name: "required, another site", rule: required, site: "a", given: "b", want: denied},
		{
			name: "required, missing", rule: required, site: "", given: "b",
			want: deliverykit.InvalidField("site_id", "required", "the caller's site is required"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check := tt.rule.Check(tt.site, tt.given)
			given := tt.given
			fill := tt.rule.Fill(tt.site, &given)
			for _, got := range []struct {
				name string
				err  error
			}{{"Check", check}, {"Fill", fill}} {
				if tt.want == nil {
					if got.err != nil {
						t.Errorf("%s = %v, want nil", got.name, got.err)
					}
					continue
				}
				var de *deliverykit.Error
				if !errors.As(got.err, &de) {
					t.Fatalf("%s = %v, want %v", got.name, got.err, tt.want)
				}
				if diff := cmp.Diff(tt.want, de); diff != "" {
					t.Errorf("%s (-want +got):\n%s", got.name, diff)
				}
			}
			want := tt.given
			if tt.want == nil {
				want = tt.wantFilled
			}
			if given != want {
				t.Errorf("Fill left site_id %q, want %q", given, want)
			}
		})
	}
}
