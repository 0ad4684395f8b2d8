// Package jsonshape checks a JSON document against the Go type it is to be
// decoded into, and names every value of the wrong JSON type by its full
// path ("cart.items[0].shipping_date", "sites[0].catalog.products[3]").
//
// encoding/json stops at the first problem and names a field without its
// list indices, or not at all inside a type that decodes itself (a
// timestamp, a shipping date); a client or a configuration file's author
// must be told which value to fix. Check follows encoding/json's rules:
// member names match a field's JSON name exactly or else without regard to
// case, embedded structs' fields count as their parent's, null is every
// type's zero value, a field tagged ",string" holds its number or boolean
// in a string, and a type with an UnmarshalJSON or UnmarshalText method is
// asked whether it takes the value.
package jsonshape

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
)

// Options say what Check reports.
type Options struct {
	// Unknown reports members no field of their struct takes, with the
	// rule "unknown" (encoding/json ignores them; a configuration file's
	// author wants to know of a misspelt field).
	Unknown bool
	// Max bounds the problems reported; zero means DefaultMax.
	Max int
}

// DefaultMax is Options.Max when it is zero.
const DefaultMax = 20

// maxDepth bounds how deep Check follows a document into types that
// decode themselves (each level is a nested decode); deeper values are
// taken as they are.
const maxDepth = 32

// Check walks data beside t. It returns the problems found, in document
// order (rule "type", or "unknown" with Options.Unknown), and an error
// when data is not one well-formed JSON value (a *json.SyntaxError, or
// io.EOF / io.ErrUnexpectedEOF for a document that ends early).
func Check(data []byte, t reflect.Type, o Options) ([]deliverykit.FieldViolation, error) {
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	w := walker{opts: o}
	if err := w.document(data, t, "", false, 0); err != nil {
		return nil, err
	}
	return w.found, nil
}

type walker struct {
	opts  Options
	found []deliverykit.FieldViolation
}

func (w *walker) add(path, rule, msg string) {
	if path == "" {
		path = "(body)"
	}
	if len(w.found) < w.opts.Max {
		w.found = append(w.found, deliverykit.FieldViolation{Field: path, Rule: rule, Message: msg})
	}
}

func (w *walker) full() bool { return len(w.found) >= w.opts.Max }

// document walks one JSON document (the whole body, or a value a
// self-decoding struct refused) beside t; plain skips t's own decoding
// method, which has already refused it.
func (w *walker) document(data []byte, t reflect.Type, path string, plain bool, depth int) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := w.value(dec, t, path, plain, false, depth); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return &json.SyntaxError{Offset: dec.InputOffset()} // a second value after the first
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// value reads one JSON value from dec and checks it against t (nil:
// anything). quoted is a field tagged ",string".
func (w *walker) value(dec *json.Decoder, t reflect.Type, path string, plain, quoted bool, depth int) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (quoted || !plain && decodesItself(t)) {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		return w.self(raw, t, path, quoted, depth)
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			return w.object(dec, t, path, depth)
		}
		return w.array(dec, t, path, depth)
	case nil:
		return nil // null is every type's zero value
	case string:
		w.expect(t, path, "string "+short(tok), reflect.String)
	case json.Number:
		w.number(t, path, tok)
	case bool:
		w.expect(t, path, "boolean", reflect.Bool)
	}
	return nil
}

func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(jsonUnmarshaler) || p.Implements(textUnmarshaler) && t.Kind() != reflect.String
}

// self checks a value of a type that decodes itself, or of a ",string"
// field, by decoding it.
func (w *walker) self(raw json.RawMessage, t reflect.Type, path string, quoted bool, depth int) error {
	got := kindOf(raw)
	if got == "null" {
		return nil
	}
	switch {
	case quoted:
		var inner string
		if got != "string" || json.Unmarshal(raw, &inner) != nil {
			w.add(path, "type", "expected "+Describe(t)+" in a string, got "+got)
			return nil
		}
		if t.Kind() == reflect.String {
			return nil
		}
		if err := json.Unmarshal([]byte(inner), reflect.New(t).Interface()); err != nil || inner == "" {
			w.add(path, "type", "expected "+Describe(t)+" in a string, got string "+short(inner))
		}
		return nil
	case t == timeType:
		if got != "string" || json.Unmarshal(raw, new(time.Time)) != nil {
			w.add(path, "type", "expected an RFC 3339 timestamp string, got "+describeRaw(raw))
		}
		return nil
	}
	err := json.Unmarshal(raw, reflect.New(t).Interface())
	if err == nil {
		return nil
	}
	// A struct that refuses an object: find the member at fault.
	if t.Kind() == reflect.Struct && got == "object" && depth < maxDepth {
		before := len(w.found)
		if err := w.document(raw, t, path, true, depth+1); err != nil {
			return err
		}
		if len(w.found) > before || w.full() {
			return nil
		}
	}
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typ) && typ.Field != "":
		w.add(path, "type", "expected "+Describe(typ.Type)+" at "+typ.Field+", got "+typ.Value)
	case errors.As(err, &typ):
		w.add(path, "type", "expected "+Describe(typ.Type)+", got "+describeRaw(raw))
	default:
		w.add(path, "type", "has an invalid value: "+describeRaw(raw))
	}
	return nil
}

func (w *walker) number(t reflect.Type, path string, n json.Number) {
	if t == nil || t.Kind() == reflect.Interface {
		return
	}
	k := t.Kind()
	switch {
	case k >= reflect.Int && k <= reflect.Int64:
		if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			w.add(path, "type", "expected an integer in range, got "+n.String())
		}
	case k >= reflect.Uint && k <= reflect.Uint64:
		if _, err := strconv.ParseUint(n.String(), 10, t.Bits()); err != nil {
			w.add(path, "type", "expected a non-negative integer in range, got "+n.String())
		}
	case k == reflect.Float32 || k == reflect.Float64:
	default:
		w.add(path, "type", "expected "+Describe(t)+", got number")
	}
}

// expect reports a value of JSON type got where t wants none of kinds.
func (w *walker) expect(t reflect.Type, path, got string, kinds ...reflect.Kind) {
	if t == nil || t.Kind() == reflect.Interface || slices.Contains(kinds, t.Kind()) {
		return
	}
	w.add(path, "type", "expected "+Describe(t)+", got "+got)
}

func (w *walker) object(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	if t != nil && t.Kind() != reflect.Struct && t.Kind() != reflect.Map && t.Kind() != reflect.Interface {
		w.add(path, "type", "expected "+Describe(t)+", got object")
		t = nil
	}
	var fs fields
	if t != nil && t.Kind() == reflect.Struct {
		fs = fieldsOf(t)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var elem reflect.Type
		quoted := false
		switch {
		case t == nil || t.Kind() == reflect.Interface:
		case t.Kind() == reflect.Map:
			elem = t.Elem()
		default:
			f, ok := fs.lookup(key)
			if !ok && w.opts.Unknown {
				w.add(join(path, key), "unknown", "unknown field (check its spelling)")
			}
			elem, quoted = f.typ, f.quoted
		}
		if err := w.value(dec, elem, join(path, key), false, quoted, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

func (w *walker) array(dec *json.Decoder, t reflect.Type, path string, depth int) error {
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			elem = t.Elem()
		case reflect.Interface:
		default:
			w.add(path, "type", "expected "+Describe(t)+", got array")
		}
	}
	for i := 0; dec.More(); i++ {
		if err := w.value(dec, elem, path+"["+strconv.Itoa(i)+"]", false, false, depth); err != nil {
			return err
		}
	}
	_, err := dec.Token() // ']'
	return err
}

// Describe names what a Go type takes in JSON: "a string", "an integer".
func Describe(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch k := t.Kind(); {
	case t == timeType:
		return "an RFC 3339 timestamp string"
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "a boolean"
	case k >= reflect.Int && k <= reflect.Uint64:
		return "an integer"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		return "a base64 string"
	case k == reflect.Slice || k == reflect.Array:
		return "an array"
	}
	return "an object"
}

// kindOf is the JSON type of a raw value.
func kindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// describeRaw is a raw value's JSON type, with a short string's value.
func describeRaw(raw []byte) string {
	if k := kindOf(raw); k != "string" {
		return k
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "string"
	}
	return "string " + short(s)
}

// short quotes s, or says how long it is when it is too long to repeat.
func short(s string) string {
	if len(s) > 32 {
		return "of " + strconv.Itoa(len(s)) + " bytes"
	}
	return strconv.Quote(s)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field is a struct field as encoding/json decodes it.
type field struct {
	name   string
	typ    reflect.Type
	quoted bool // tagged ",string"
}

type fields []field

// fieldsOf lists t's fields by JSON name, those of embedded structs
// included, as encoding/json sees them, in the struct's order.
func fieldsOf(t reflect.Type) fields {
	var out fields
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct && f.Tag.Get("json") == "" {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !slices.ContainsFunc(out, func(g field) bool { return g.name == name }) {
			out = append(out, field{name, f.Type, slices.Contains(strings.Split(opts, ","), "string")})
		}
	}
	return out
}

// lookup finds the field key names: exactly, else the first without
// regard to case.
func (fs fields) lookup(key string) (field, bool) {
	if i := slices.IndexFunc(fs, func(f field) bool { return f.name == key }); i >= 0 {
		return fs[i], true
	}
	if i := slices.IndexFunc(fs, func(f field) bool { return strings.EqualFold(f.name, key) }); i >= 0 {
		return fs[i], true
	}
	return field{}, false
}
