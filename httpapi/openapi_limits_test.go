package httpapi

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
)

// The tracking and shipment documents are generated from the Go types,
// limits included (openapigen_test.go). The session and returns documents
// are written by hand; this test holds their request schemas to the same
// limits: every string's maxLength, every list's maxItems and every map's
// maxProperties must be the one the Go type's tags give (aliases such as
// max_id expanded), and an https URL field must say so. The checkout
// document is held the same way.
var handWrittenRequests = []struct {
	doc   apiDocLoader
	roots map[string]reflect.Type // component schema → Go request type
}{
	{sessionAPI, map[string]reflect.Type{
		"Session":         reflect.TypeFor[session.Session](),
		"CompleteRequest": reflect.TypeFor[session.CompleteRequest](),
	}},
	{checkoutAPI, map[string]reflect.Type{
		"CreateRequest":          reflect.TypeFor[checkout.CreateRequest](),
		"UpdateRequest":          reflect.TypeFor[checkout.UpdateRequest](),
		"CompleteRequest":        reflect.TypeFor[checkout.CompleteRequest](),
		"CreateFromOrderRequest": reflect.TypeFor[checkout.CreateFromOrderRequest](),
		"SelectRequest":          reflect.TypeFor[checkout.SelectRequest](),
		"AddressRequest":         reflect.TypeFor[checkout.AddressRequest](),
	}},
	{returnsAPI, map[string]reflect.Type{
		"OrderInput":          reflect.TypeFor[returns.OrderInput](),
		"CustomerReturnInput": reflect.TypeFor[returns.CustomerReturnInput](),
		"ReturnedItemsInput":  reflect.TypeFor[returns.ReturnedItemsInput](),
	}},
}

func TestHandWrittenOpenAPILimits(t *testing.T) {
	for _, hw := range handWrittenRequests {
		d := hw.doc(t)
		t.Run(d.name, func(t *testing.T) {
			var diffs []string
			seen := map[*openapi3.Schema]bool{}
			for name, typ := range hw.roots {
				ref := d.doc.Components.Schemas[name]
				if ref == nil || ref.Value == nil {
					t.Fatalf("no schema %s", name)
				}
				diffs = append(diffs, documentedLimits(name, ref.Value, typ, nil, seen)...)
			}
			slices.Sort(diffs)
			if len(diffs) > 0 {
				t.Errorf("%d limits of the document differ from the Go tags':\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}

// documentedLimits compares the limits of schema s with those of tags (a
// field's validate tag, expanded and split, or what follows its dive) on a
// value of type typ, and walks on into struct fields, list entries and
// map values. It returns one line per difference, naming the schema path
// ("Session.deliveries[].id"), the keyword, the document's value and the
// tags' value.
func documentedLimits(path string, s *openapi3.Schema, typ reflect.Type, tags []string, seen map[*openapi3.Schema]bool) []string {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	head, rest := tags, []string(nil)
	if i := slices.Index(tags, "dive"); i >= 0 {
		head, rest = tags[:i], tags[i+1:]
	}
	var max *uint64
	https := false
	for _, tag := range head {
		k, v, _ := strings.Cut(tag, "=")
		switch k {
		case "max", "lte":
			if n, err := strconv.ParseUint(v, 10, 64); err == nil {
				max = &n
			}
		case "httpsurl":
			https = true
			n := uint64(validation.MaxURLLength)
			max = &n
		}
	}
	var out []string
	compare := func(keyword string, doc *uint64) {
		if !cmp.Equal(doc, max) {
			out = append(out, fmt.Sprintf("%s: %s %s, tags %s", path, keyword, show(doc), show(max)))
		}
	}
	switch typ.Kind() {
	case reflect.String:
		if s.Type.Is("string") {
			compare("maxLength", s.MaxLength)
		}
		if https != (s.Pattern == "^https://") {
			out = append(out, fmt.Sprintf("%s: pattern %q, tags https %v", path, s.Pattern, https))
		}
	case reflect.Slice, reflect.Array:
		compare("maxItems", s.MaxItems)
		if s.Items != nil && s.Items.Value != nil {
			out = append(out, documentedLimits(path+"[]", s.Items.Value, typ.Elem(), rest, seen)...)
		}
	case reflect.Map:
		compare("maxProperties", s.MaxProps)
		if len(rest) > 0 && rest[0] == "keys" {
			rest = rest[slices.Index(rest, "endkeys")+1:]
		}
		if as := s.AdditionalProperties.Schema; as != nil && as.Value != nil {
			out = append(out, documentedLimits(path+"{}", as.Value, typ.Elem(), rest, seen)...)
		}
	case reflect.Struct:
		if seen[s] {
			return nil
		}
		seen[s] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			tag := f.Tag.Get("validate")
			p := s.Properties[name]
			if name == "" || name == "-" || tag == "-" || p == nil || p.Value == nil {
				continue
			}
			out = append(out, documentedLimits(path+"."+name, p.Value, f.Type, strings.Split(validation.ExpandTag(tag), ","), seen)...)
		}
	}
	return out
}

func show(n *uint64) string {
	if n == nil {
		return "none"
	}
	return strconv.FormatUint(*n, 10)
}
