package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

// TestErrorBodiesAreCapped: an error holding thousands of violations, and
// violations and paths as long as a request, still make an error body of a
// few KiB in every area's shape, listing the first 20 violations and
// counting the rest in the same last entry.
func TestErrorBodiesAreCapped(t *testing.T) {
	s := newServer(Options{})
	many := make([]deliverykit.FieldViolation, 100_000)
	for i := range many {
		many[i] = deliverykit.FieldViolation{Field: fmt.Sprintf("items[%d].sku", i), Rule: "required", Message: "is required"}
	}
	huge := strings.Repeat("<", 1<<20)
	cases := []struct {
		name string
		err  error
	}{
		{"many violations", deliverykit.Invalid(many...)},
		{"long violations", deliverykit.Invalid(append([]deliverykit.FieldViolation{{Field: "attributes[" + huge + "]", Rule: "max", Message: huge}}, many[:30]...)...)},
		{"a long message", deliverykit.E(deliverykit.KindConflict, "etag "+huge+" does not match")},
	}
	for _, c := range cases {
		for _, st := range []struct {
			name  string
			style errorStyle
		}{{"rest", styleREST}, {"rpc", styleRPC}, {"spring", styleSpring}} {
			t.Run(c.name+"/"+st.name, func(t *testing.T) {
				rec := httptest.NewRecorder()
				s.writeError(rec, httptest.NewRequest("POST", "/x/"+huge, nil), st.style, c.err)
				if n := rec.Body.Len(); n > 8<<10 {
					t.Errorf("body of %d bytes", n)
				}
				var body struct {
					Details []json.RawMessage `json:"details"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
					t.Fatal(err)
				}
				if c.name == "many violations" && st.style == styleREST {
					var last deliverykit.FieldViolation
					json.Unmarshal(body.Details[len(body.Details)-1], &last)
					if diff := cmp.Diff(21, len(body.Details)); diff != "" {
						t.Errorf("details (-want +got):\n%s", diff)
					}
					if diff := cmp.Diff(deliverykit.FieldViolation{Rule: "truncated", Message: "and 99980 more violations"}, last); diff != "" {
						t.Errorf("last detail (-want +got):\n%s", diff)
					}
				}
				if c.name == "many violations" && !strings.Contains(rec.Body.String(), "and 99980 more violations") {
					t.Errorf("the count of the rest is missing: %.300s", rec.Body)
				}
			})
		}
	}
}
