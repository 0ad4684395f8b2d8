package httpapi

import (
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// A value of the wrong JSON type is a 400 naming the field by its full
// path, list indices included, whatever the area and however the field's
// type decodes (itself, like a timestamp, or by its fields).
func TestWrongTypeNamesTheFullPath(t *testing.T) {
	tests := []struct {
		name string
		into any
		body string
		want deliverykit.FieldViolation
	}{
		{"connector's shipping date as a number", &checkout.CreateRequest{},
			`{"cart":{"items":[{"sku":"a"},{"sku":"b","shipping_date":12}]}}`,
			deliverykit.FieldViolation{Field: "cart.items[1].shipping_date", Rule: "type", Message: "expected an object, got number"}},
		{"a shipping date's start", &checkout.CheckoutCreateRequest{},
			`{"cart":{"items":[{"sku":"a","shipping_date":{"start":"monday"}}]}}`,
			deliverykit.FieldViolation{Field: "cart.items[0].shipping_date.start", Rule: "type", Message: `expected an RFC 3339 timestamp string, got string "monday"`}},
		{"a category tag's date", &checkout.CreateRequest{},
			`{"cart":{"shipping_date":{"category_tags":[{"name":"x","shipping_date":{"end":5}}]}}}`,
			deliverykit.FieldViolation{Field: "cart.shipping_date.category_tags[0].shipping_date.end", Rule: "type", Message: "expected an RFC 3339 timestamp string, got number"}},
		{"a price as a string", &checkout.CreateRequest{},
			`{"cart":{"items":[{"sku":"a","price":"12"}]}}`,
			deliverykit.FieldViolation{Field: "cart.items[0].price", Rule: "type", Message: `expected an integer, got string "12"`}},
		{"a fraction for an integer", &checkout.CreateRequest{},
			`{"cart":{"total_value":1.5}}`,
			deliverykit.FieldViolation{Field: "cart.total_value", Rule: "type", Message: "expected an integer in range, got 1.5"}},
		{"member names match in any case", &checkout.CreateRequest{},
			`{"CART":{"Items":[{"sku":"a","Quantity":true}]}}`,
			deliverykit.FieldViolation{Field: "CART.Items[0].Quantity", Rule: "type", Message: "expected an integer, got boolean"}},
		{"a list that is an object", &checkout.CreateRequest{},
			`{"locales":{"a":1}}`,
			deliverykit.FieldViolation{Field: "locales", Rule: "type", Message: "expected an array, got object"}},
		{"a map's value", &checkout.CreateRequest{},
			`{"meta":{"ok":"x","bad":1}}`,
			deliverykit.FieldViolation{Field: "meta.bad", Rule: "type", Message: "expected a string, got number"}},
		{"the body itself", &checkout.CreateRequest{}, `[1]`,
			deliverykit.FieldViolation{Field: "(body)", Rule: "type", Message: "expected an object, got array"}},
		{"delivery session: a line item's quantity", &session.Session{},
			`{"deliveries":[{"id":"d","line_items":[{"sku":"a","quantity":"two"}]}]}`,
			deliverykit.FieldViolation{Field: "deliveries[0].line_items[0].quantity", Rule: "type", Message: `expected an integer, got string "two"`}},
		{"tracking: a cart item's price", &tracking.CreateTrackingOrderRequest{},
			`{"cart":{"items":[{"sku":"a","price":{}}]}}`,
			deliverykit.FieldViolation{Field: "cart.items[0].price", Rule: "type", Message: "expected an integer, got object"}},
		{"shipments: a parcel's weight", &shipment.CreateShipmentRequest{},
			`{"parcels":[{},{"weight":"heavy"}]}`,
			deliverykit.FieldViolation{Field: "parcels[1].weight", Rule: "type", Message: `expected an integer, got string "heavy"`}},
		{"returns: an item's quantity", &returns.ReturnedItemsInput{},
			`{"items":[{"sku":"a","quantity":[]}]}`,
			deliverykit.FieldViolation{Field: "items[0].quantity", Rule: "type", Message: "expected an integer, got array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := unmarshalJSON([]byte(tt.body), tt.into)
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("error %v, want InvalidArgument", err)
			}
			if diff := cmp.Diff([]deliverykit.FieldViolation{tt.want}, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

// goNames are what a message must not show a client: Go types, methods
// and packages.
var goNames = regexp.MustCompile(`UnmarshalJSON|UnmarshalText|Go (struct|value)|\btime\.|\bint64\b|\*?[a-z]+\.[A-Z]\w+`)

// Across every request type, a value of the wrong type in any member is
// reported at a named field, with a message free of Go names.
func TestWrongTypeEveryRequest(t *testing.T) {
	values := []string{`12`, `"x"`, `true`, `[]`, `{}`, `1.5`, `[{}]`, `{"a":1}`}
	for _, v := range requestTypes {
		typ := reflect.TypeOf(v)
		for _, f := range reflect.VisibleFields(typ) {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "" || name == "-" {
				continue
			}
			for _, bad := range values {
				body := `{"` + name + `":` + bad + `}`
				err := unmarshalJSON([]byte(body), reflect.New(typ).Interface())
				if err == nil {
					continue
				}
				var e *deliverykit.Error
				if !errors.As(err, &e) || e.Kind != deliverykit.KindInvalidArgument || len(e.Violations) == 0 {
					t.Errorf("%s %s: %v, want InvalidArgument naming a field", typ, body, err)
					continue
				}
				if f := e.Violations[0].Field; f == "" {
					t.Errorf("%s %s: the violation names no field: %v", typ, body, err)
				}
				if m := e.Violations[0].Message; goNames.MatchString(m) {
					t.Errorf("%s %s: the message shows Go names: %q", typ, body, m)
				}
			}
		}
	}
}

// A body past walkTypesUpTo is not walked: its type error names the field
// as encoding/json does, without list indices, and costs no copies.
func TestWrongTypeInALargeBody(t *testing.T) {
	pad := strings.Repeat("x", walkTypesUpTo)
	body := `{"cart":{"cart_id":"` + pad + `","items":[{"sku":"a","price":"12"}]}}`
	err := unmarshalJSON([]byte(body), &checkout.CreateRequest{})
	if diff := cmp.Diff([]deliverykit.FieldViolation{{Field: "cart.items.price", Rule: "type", Message: "expected an integer, got string"}},
		deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
}
