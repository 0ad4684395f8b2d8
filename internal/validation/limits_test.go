package validation

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

func violations(n int) []deliverykit.FieldViolation {
	vs := make([]deliverykit.FieldViolation, n)
	for i := range vs {
		vs[i] = deliverykit.FieldViolation{Field: fmt.Sprintf("items[%d].sku", i), Rule: "required", Message: "is required"}
	}
	return vs
}

func TestCap(t *testing.T) {
	long := strings.Repeat("ä", 150) // 300 bytes
	tests := []struct {
		name string
		in   []deliverykit.FieldViolation
		want []deliverykit.FieldViolation
	}{
		{"empty", nil, nil},
		{"within the cap", violations(20), violations(20)},
		{"one over", violations(21), append(violations(20), deliverykit.FieldViolation{Rule: "truncated", Message: "and 1 more violation"})},
		{"many over", violations(100_000), append(violations(20), deliverykit.FieldViolation{Rule: "truncated", Message: "and 99980 more violations"})},
		{"a long field and message are clipped at a character boundary",
			[]deliverykit.FieldViolation{{Field: "attributes[" + long + "]", Rule: "max", Message: long}},
			[]deliverykit.FieldViolation{{Field: "attributes[" + strings.Repeat("ä", 93) + "…", Rule: "max", Message: strings.Repeat("ä", 98) + "…"}}},
		{"the text budget lists fewer than 20",
			slicesRepeat(deliverykit.FieldViolation{Field: strings.Repeat("f", 150), Rule: "r", Message: strings.Repeat("m", 150)}, 15),
			append(slicesRepeat(deliverykit.FieldViolation{Field: strings.Repeat("f", 150), Rule: "r", Message: strings.Repeat("m", 150)}, 8),
				deliverykit.FieldViolation{Rule: "truncated", Message: "and 7 more violations"})},
		{"counts of a list capped before are merged",
			append(append(violations(2), deliverykit.FieldViolation{Rule: "truncated", Message: "and 7 more violations"}), violations(20)...),
			append(append(violations(2), violations(18)...), deliverykit.FieldViolation{Rule: "truncated", Message: "and 9 more violations"})},
		{"a capped list stays as it is",
			append(violations(3), deliverykit.FieldViolation{Rule: "truncated", Message: "and 7 more violations"}),
			append(violations(3), deliverykit.FieldViolation{Rule: "truncated", Message: "and 7 more violations"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Cap(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Cap (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(got, Cap(got)); diff != "" {
				t.Errorf("Cap of a capped list changed it (-want +got):\n%s", diff)
			}
		})
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"abcdefghijkl", 10, "abcdefg…"},
		{"ååååå", 8, "åå…"},       // 2 bytes each
		{"<<<<<", 15, "<<…"},      // \u003c: 6 bytes each
		{"a\"b\"c", 8, "a\"b\"c"}, // \" : 2 bytes each
		{"\xff\xffabc", 10, "\xff…"},
	}
	for _, tt := range tests {
		got := Clip(tt.in, tt.n)
		if got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
		if jsonLen(got) > tt.n {
			t.Errorf("Clip(%q, %d) = %q takes %d bytes of JSON", tt.in, tt.n, got, jsonLen(got))
		}
	}
}

func slicesRepeat(v deliverykit.FieldViolation, n int) []deliverykit.FieldViolation {
	out := make([]deliverykit.FieldViolation, n)
	for i := range out {
		out[i] = v
	}
	return out
}

type capItem struct {
	SKU  string `json:"sku" validate:"required,max_id"`
	Name string `json:"name" validate:"required"`
}

type capRequest struct {
	Items []capItem `json:"items" validate:"max_cap_items,dive"`
	Tags  []string  `json:"tags" validate:"max=3,dive,max_code"`
}

// TestMaxBeforeDive: a list over its maximum costs one violation, and the
// validator does not look at its elements at all (no allocation per
// element), so a huge list is as cheap to refuse as a short one.
func TestMaxBeforeDive(t *testing.T) {
	v := New(Max("max_cap_items", 100))
	huge := capRequest{Items: make([]capItem, 200_000), Tags: []string{"a", "b", "c", "d"}}
	err := v.Check(&huge)
	want := []deliverykit.FieldViolation{
		{Field: "items", Rule: "max", Message: "must have at most 100 entries"},
		{Field: "tags", Rule: "max", Message: "must have at most 3 entries"},
	}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	allocs := testing.AllocsPerRun(5, func() { v.Check(&huge) })
	if allocs > 100 {
		t.Errorf("refusing a list of 200,000 elements took %v allocations: the validator looked at the elements", allocs)
	}

	// Within the maximum, every element is checked and the answer capped.
	within := capRequest{Items: make([]capItem, 100)}
	got := deliverykit.ViolationsOf(v.Check(&within))
	if len(got) != MaxViolations+1 {
		t.Fatalf("%d violations, want %d", len(got), MaxViolations+1)
	}
	if diff := cmp.Diff(deliverykit.FieldViolation{Field: "items[0].name", Rule: "required", Message: "is required"}, got[0]); diff != "" {
		t.Errorf("first (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(deliverykit.FieldViolation{Rule: "truncated", Message: "and 180 more violations"}, got[MaxViolations]); diff != "" {
		t.Errorf("last (-want +got):\n%s", diff)
	}
}

func TestAliases(t *testing.T) {
	v := New(Max("max_cap_items", 100))
	long := capRequest{Items: []capItem{{SKU: strings.Repeat("s", MaxIDLength+1), Name: "n"}}, Tags: []string{strings.Repeat("t", MaxCodeLength+1)}}
	want := []deliverykit.FieldViolation{
		{Field: "items[0].sku", Rule: "max", Message: "must be at most 128 characters long"},
		{Field: "tags[0]", Rule: "max", Message: "must be at most 64 characters long"},
	}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(v.Check(&long))); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	for tag, want := range map[string]string{
		"required,max_id":                           "required,max=128",
		"max_cap_items,dive":                        "max=100,dive",
		"omitempty,max_address_lines,dive,max_name": "omitempty,max=10,dive,max=256",
		"-":            "-",
		"oneof=max_id": "oneof=max_id",
	} {
		if got := ExpandTag(tag); got != want {
			t.Errorf("ExpandTag(%q) = %q, want %q", tag, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a second meaning of an alias did not panic")
		}
	}()
	New(Max("max_cap_items", 5))
}

func TestHTTPSURL(t *testing.T) {
	tests := []struct {
		url  string
		want bool
	}{
		{"https://shop.example/img/tent.png", true},
		{"https://shop.example:8443/a?b=c#d", true},
		{"https://xn--shp-qla.example/", true},
		{"https://[2001:db8::1]/x.png", true},
		{"https://shop.example/" + strings.Repeat("a", MaxURLLength-len("https://shop.example/")), true},
		{"https://shop.example/" + strings.Repeat("a", MaxURLLength), false},
		{"http://shop.example/img.png", false},
		{"javascript:alert(1)", false},
		{"JavaScript://shop.example/%0aalert(1)", false},
		{"data:image/png;base64,iVBORw0KGgo=", false},
		{"/img/tent.png", false},
		{"//shop.example/img.png", false},
		{"https:///img.png", false},
		{"https:shop.example", false},
		{"https://user:pw@shop.example/", false},
		{"https://shop.example@evil.example/", false},
		{"https://shop.example/a b.png", false},
		{"https://shop.example/\x00", false},
		{" https://shop.example/", false},
		{"ftp://shop.example/", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsHTTPSURL(tt.url); got != tt.want {
			t.Errorf("IsHTTPSURL(%.60q) = %v, want %v", tt.url, got, tt.want)
		}
	}
	type withURL struct {
		Image string `json:"image" validate:"omitempty,httpsurl"`
	}
	err := New().Check(&withURL{Image: "javascript:alert(1)"})
	want := []deliverykit.FieldViolation{{Field: "image", Rule: "httpsurl", Message: "must be an absolute https URL with a host, at most 2048 characters long"}}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

func TestJSONSize(t *testing.T) {
	type free struct {
		Attributes map[string]any `json:"attributes" validate:"max=2,dive,keys,max_id,endkeys,omitempty,jsonsize=20"`
	}
	v := New()
	if err := v.Check(&free{Attributes: map[string]any{"a": []any{1.0, "x"}, "b": nil}}); err != nil {
		t.Errorf("small values: %v", err)
	}
	err := v.Check(&free{Attributes: map[string]any{"a": map[string]any{"deep": strings.Repeat("x", 30)}}})
	want := []deliverykit.FieldViolation{{Field: "attributes[a]", Rule: "jsonsize", Message: "must take at most 20 bytes as JSON"}}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}

type boundedAddress struct {
	Lines []string `json:"lines" validate:"max_address_lines,dive,max_name"`
	City  string   `json:"city" validate:"omitempty,max_name"`
	Code  string   `json:"code" validate:"hhmm"`
}

type unboundedRequest struct {
	ID        string            `json:"id" validate:"required"`
	Count     int               `json:"count"`
	Kind      string            `json:"kind" validate:"oneof=A B"`
	At        string            `json:"at" validate:"omitempty,datetime=2006-01-02"`
	Items     []capItem         `json:"items" validate:"dive"`
	Bounded   []capItem         `json:"bounded" validate:"max=3,dive"`
	Tags      []string          `json:"tags" validate:"max=3"`
	Props     map[string]string `json:"props" validate:"max=3,dive,keys,max_id,endkeys"`
	Free      map[string]any    `json:"free" validate:"max=3,dive,keys,max_id,endkeys,omitempty,jsonsize=100"`
	Address   *boundedAddress   `json:"address"`
	ReadOnly  []string          `json:"read_only" validate:"-"`
	Internal  string            `json:"-"`
	unexposed string
}

func TestUnbounded(t *testing.T) {
	got := Unbounded([]reflect.Type{reflect.TypeFor[unboundedRequest]()}, "hhmm")
	want := []string{
		"validation.capItem.Name (name): a string without a maximum length",
		"validation.unboundedRequest.ID (id): a string without a maximum length",
		"validation.unboundedRequest.Items (items): a list without a maximum number of entries before its dive",
		"validation.unboundedRequest.Props (props) entry: a string without a maximum length",
		"validation.unboundedRequest.Tags (tags) entry: a string without a maximum length",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Unbounded (-want +got):\n%s", diff)
	}
	if got := Unbounded([]reflect.Type{reflect.TypeFor[unboundedRequest]()}); !strings.Contains(strings.Join(got, "\n"), "boundedAddress.Code") {
		t.Errorf("without hhmm as a format, Code is bounded: %v", got)
	}
}
