package jsonshape_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/jsonshape"
)

// date decodes itself: an object {day} or a "YYYY-MM-DD" string.
type date struct {
	Day int `json:"day"`
}

func (d *date) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		t, err := time.Parse(time.DateOnly, s)
		d.Day = t.Day()
		return err
	}
	type plain date
	return json.Unmarshal(b, (*plain)(d))
}

type Base struct {
	ID string `json:"id"`
}

type order struct {
	Base
	Lines  []line            `json:"lines"`
	Meta   map[string]string `json:"meta"`
	Total  int32             `json:"total"`
	Big    int64             `json:"big,string"`
	At     time.Time         `json:"at"`
	Ship   *date             `json:"ship"`
	Any    any               `json:"any"`
	Ignore string            `json:"-"`
}

type line struct {
	SKU   string  `json:"sku"`
	Qty   uint    `json:"qty"`
	Price float64 `json:"price"`
	Gift  bool    `json:"gift"`
}

func TestCheck(t *testing.T) {
	typ := reflect.TypeFor[order]()
	v := func(field, rule, msg string) deliverykit.FieldViolation {
		return deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg}
	}
	tests := []struct {
		name string
		doc  string
		opts jsonshape.Options
		want []deliverykit.FieldViolation
	}{
		{"well formed", `{"id":"o1","lines":[{"sku":"a","qty":2,"price":1.5,"gift":true}],"meta":{"k":"v"},"total":3,
			"big":"12","at":"2026-11-26T10:00:00Z","ship":"2026-11-27","any":[1,"x"],"unknown":{"deep":[1]}}`, jsonshape.Options{}, nil},
		{"nulls are zero values", `{"id":null,"lines":null,"lines":[null],"ship":null,"big":null}`, jsonshape.Options{}, nil},
		{"an index in the path", `{"lines":[{"sku":"a"},{"sku":"b","qty":"two"}]}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("lines[1].qty", "type", `expected an integer, got string "two"`)}},
		{"every problem, in document order", `{"total":1.5,"meta":{"a":1},"lines":{}}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("total", "type", "expected an integer in range, got 1.5"),
				v("meta.a", "type", "expected a string, got number"), v("lines", "type", "expected an array, got object")}},
		{"at most Max", `{"total":"a","meta":1,"lines":2}`, jsonshape.Options{Max: 2},
			[]deliverykit.FieldViolation{v("total", "type", `expected an integer, got string "a"`), v("meta", "type", "expected an object, got number")}},
		{"out of range", `{"total":3000000000,"lines":[{"qty":-1}]}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("total", "type", "expected an integer in range, got 3000000000"),
				v("lines[0].qty", "type", "expected a non-negative integer in range, got -1")}},
		{"embedded and case-folded names", `{"ID":5,"Lines":[{"SKU":true}]}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("ID", "type", "expected a string, got number"), v("Lines[0].SKU", "type", "expected a string, got boolean")}},
		{"a ,string field", `{"big":12}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("big", "type", "expected an integer in a string, got number")}},
		{"a ,string field's content", `{"big":"twelve"}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("big", "type", `expected an integer in a string, got string "twelve"`)}},
		{"a timestamp", `{"at":"tomorrow"}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("at", "type", `expected an RFC 3339 timestamp string, got string "tomorrow"`)}},
		{"a type that decodes itself, refusing a number", `{"ship":7}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("ship", "type", "expected an object, got number")}},
		{"a type that decodes itself, refusing a string", `{"ship":"soon"}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("ship", "type", `has an invalid value: string "soon"`)}},
		{"a member of a type that decodes itself", `{"ship":{"day":"first"}}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("ship.day", "type", `expected an integer, got string "first"`)}},
		{"the document itself", `[1]`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("(body)", "type", "expected an object, got array")}},
		{"unknown members, when asked", `{"idd":"x","lines":[{"skew":1}],"meta":{"free":"x"}}`, jsonshape.Options{Unknown: true},
			[]deliverykit.FieldViolation{v("idd", "unknown", "unknown field (check its spelling)"), v("lines[0].skew", "unknown", "unknown field (check its spelling)")}},
		{"a long string is not repeated", `{"id":"x","total":"` + strings.Repeat("9", 40) + `"}`, jsonshape.Options{},
			[]deliverykit.FieldViolation{v("total", "type", "expected an integer, got string of 40 bytes")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jsonshape.Check([]byte(tt.doc), typ, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// A document that is not one JSON value is an error, not a problem list.
func TestCheckSyntax(t *testing.T) {
	for _, doc := range []string{`{"id":`, `{"id":"x"} {}`, `{"id" "x"}`, ``} {
		_, err := jsonshape.Check([]byte(doc), reflect.TypeFor[order](), jsonshape.Options{})
		var syn *json.SyntaxError
		if !errors.As(err, &syn) && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%q: %v, want a syntax error", doc, err)
		}
	}
}

// Deeply nested self-decoding values are walked to a bound, not without
// end.
func TestCheckDeepSelfDecoding(t *testing.T) {
	type node struct {
		Ship *date `json:"ship"`
	}
	doc := strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000)
	if _, err := jsonshape.Check([]byte(doc), reflect.TypeFor[[]any](), jsonshape.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := jsonshape.Check([]byte(`{"ship":{"day":{}}}`), reflect.TypeFor[node](), jsonshape.Options{})
	if err != nil || len(got) != 1 || got[0].Field != "ship.day" {
		t.Errorf("got %v, %v", got, err)
	}
}

func ExampleCheck() {
	type item struct {
		SKU      string `json:"sku"`
		Quantity int    `json:"quantity"`
	}
	type cart struct {
		Items []item `json:"items"`
	}
	problems, err := jsonshape.Check([]byte(`{"items":[{"sku":"tent","quantity":1},{"sku":"pegs","quantity":"two"}]}`),
		reflect.TypeFor[cart](), jsonshape.Options{})
	if err != nil {
		panic(err)
	}
	for _, p := range problems {
		fmt.Printf("%s: %s\n", p.Field, p.Message)
	}
	// Output: items[1].quantity: expected an integer, got string "two"
}
