package validation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

type listLine struct {
	Lines []string `json:"lines" validate:"max=2"`
}

type listRequest struct {
	Items  []capItem         `json:"items" validate:"max=3,dive"`
	Tags   []string          `json:"tags" validate:"omitempty,max=3,dive,max_code"`
	Props  map[string]string `json:"props" validate:"max=2,dive,keys,max_id,endkeys,max_name"`
	Nested []listLine        `json:"nested" validate:"max=5,dive"`
	Groups map[string][]int  `json:"groups" validate:"max=5,dive,keys,max_id,endkeys,max=2"`
	Free   map[string]any    `json:"free" validate:"max=50,dive,keys,max_id,endkeys,omitempty,jsonsize=1000"`
	Open   []string          `json:"open" validate:"dive,max_code"`
}

func TestCheckJSONLists(t *testing.T) {
	over := func(field string, n string) deliverykit.FieldViolation {
		return deliverykit.FieldViolation{Field: field, Rule: "max", Message: "must have at most " + n}
	}
	tests := []struct {
		name string
		body string
		want []deliverykit.FieldViolation
	}{
		{"within", `{"items": [{}, {}, {}], "tags": ["a"], "props": {"a": "1", "b": "2"}, "nested": [{"lines": ["x", "y"]}]}`, nil},
		{"a list over", `{"items": [{}, {}, {}, {}]}`, []deliverykit.FieldViolation{over("items", "3 entries")}},
		{"a nested list over", `{"nested": [{"lines": []}, {"lines": ["a", "b", "c"]}]}`, []deliverykit.FieldViolation{over("nested[1].lines", "2 entries")}},
		{"a map over", `{"props": {"a": "", "b": "", "c": ""}}`, []deliverykit.FieldViolation{over("props", "2 entries")}},
		{"a list in a map over", `{"groups": {"k": [1, 2, 3]}}`, []deliverykit.FieldViolation{over("groups[k]", "2 entries")}},
		{"nothing inside a list over its limit", `{"nested": [{"lines": [1, 2, 3]}, {}, {}, {}, {}, {}]}`, []deliverykit.FieldViolation{over("nested", "5 entries")}},
		{"several, in path order", `{"tags": ["a", "b", "c", "d"], "items": [{}, {}, {}, {}]}`, []deliverykit.FieldViolation{over("items", "3 entries"), over("tags", "3 entries")}},
		{"member names match as in encoding/json", `{"ITEMS": [{}, {}, {}, {}], "\u0074ags": [1, 2, 3, 4]}`, []deliverykit.FieldViolation{over("items", "3 entries"), over("tags", "3 entries")}},
		{"unknown members are skipped", `{"x": [[[[{}]]], [1, 2, 3, 4, 5]], "y": "]}", "items": []}`, nil},
		{"a list without a limit", `{"open": ["a", "b", "c", "d", "e"]}`, nil},
		{"free-form values are skipped", `{"free": {"a": [1, 2, 3, 4, 5, 6], "b": {"c": [[], {}]}}}`, nil},
		{"the wrong kind of value", `{"items": {"a": 1}, "tags": "x", "props": [1, 2, 3]}`, nil},
		{"strings with brackets and escapes", `{"items": [{"sku": "]\"}["}, {"name": "\\"}, {}, {}]}`, []deliverykit.FieldViolation{over("items", "3 entries")}},
		{"not an object", `[1, 2, 3]`, nil},
		{"malformed", `{"items": [{}, {}, {}, {}`, nil},
		{"malformed after a list over", `{"items": [{}, {}, {}, {}], "x": }`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := deliverykit.ViolationsOf(CheckJSONLists([]byte(tt.body), reflect.TypeFor[listRequest]()))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckJSONLists (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckJSONListsAllocatesNothingPerEntry: a megabyte of empty objects
// costs a handful of allocations, not one per entry.
func TestCheckJSONListsAllocatesNothingPerEntry(t *testing.T) {
	body := []byte(`{"items": [` + strings.Repeat(`{},`, 350_000) + `{}], "nested": [` + strings.Repeat(`{"lines": []},`, 5) + `{}]}`)
	typ := reflect.TypeFor[listRequest]()
	want := []deliverykit.FieldViolation{{Field: "items", Rule: "max", Message: "must have at most 3 entries"}, {Field: "nested", Rule: "max", Message: "must have at most 5 entries"}}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(CheckJSONLists(body, typ))); diff != "" {
		t.Errorf("CheckJSONLists (-want +got):\n%s", diff)
	}
	if allocs := testing.AllocsPerRun(3, func() { CheckJSONLists(body, typ) }); allocs > 50 {
		t.Errorf("%v allocations for a megabyte", allocs)
	}
}

// FuzzCheckJSONLists: on any body the scan ends without a panic; on a
// body encoding/json decodes, written again canonically, the scan reports
// exactly the list and map violations the validator reports.
func FuzzCheckJSONLists(f *testing.F) {
	f.Add([]byte(`{"items": [{}, {}, {}, {}], "nested": [{"lines": ["a", "b", "c"]}], "groups": {"k": [1, 2, 3]}}`))
	f.Add([]byte(`{"props": {"a": "", "b": "", "c": ""}, "tags": ["\u003c"], "free": {"x": [[]]}}`))
	f.Add([]byte(`{"x": [[[[`))
	v := New()
	typ := reflect.TypeFor[listRequest]()
	f.Fuzz(func(t *testing.T, body []byte) {
		CheckJSONLists(body, typ)
		var r listRequest
		if json.Unmarshal(body, &r) != nil {
			return
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			return
		}
		got := deliverykit.ViolationsOf(CheckJSONLists(buf.Bytes(), typ))
		all, err := v.Violations("", &r)
		if err != nil {
			t.Fatal(err)
		}
		var want []deliverykit.FieldViolation
		for _, x := range all {
			if x.Rule == "max" && strings.Contains(x.Message, "entr") {
				want = append(want, x)
			}
		}
		sortViolations(want)
		want = Cap(want)
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("on %s (-validator +scan):\n%s", buf.Bytes(), diff)
		}
	})
}
