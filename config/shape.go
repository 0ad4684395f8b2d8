package config

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	"github.com/deliverykit/deliverykit"
)

// maxShapeProblems bounds the problems checkShape reports: a file of
// another format would otherwise list every one of its fields.
const maxShapeProblems = 20

// checkShape walks the JSON document against the Go type of Config before
// it is decoded, and reports every unknown field and every value of the
// wrong JSON type with its full path ("sites[0].catalog.products[3].colour"),
// and a syntax error with its line and column. encoding/json stops at the
// first problem and names an unknown field without its path; a
// configuration file's author needs all of them, located.
func checkShape(data []byte) error {
	w := shapeWalker{dec: json.NewDecoder(bytes.NewReader(data)), data: data}
	w.dec.UseNumber()
	err := w.value(reflect.TypeFor[Config](), "")
	if err != nil {
		return w.syntaxError(err)
	}
	if len(w.vs) > 0 {
		return deliverykit.Invalid(w.vs...)
	}
	return nil
}

type shapeWalker struct {
	dec  *json.Decoder
	data []byte
	vs   []deliverykit.FieldViolation
}

func (w *shapeWalker) add(field, rule, msg string) {
	if len(w.vs) < maxShapeProblems {
		w.vs = append(w.vs, deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg})
	}
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// value reads one JSON value and checks it against t (nil: anything).
func (w *shapeWalker) value(t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	// A type that decodes itself says what it accepts when it is decoded.
	if t != nil && (reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) && t.Kind() != reflect.String) {
		t = nil
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch tok := tok.(type) {
	case json.Delim:
		if tok == '{' {
			return w.object(t, path)
		}
		return w.array(t, path)
	case nil:
		return nil // null is every type's zero value
	case string:
		w.expect(t, path, "a string", reflect.String)
	case json.Number:
		w.expect(t, path, "a number", reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64)
		if t != nil && isInt(t.Kind()) {
			if _, err := strconv.ParseInt(tok.String(), 10, 64); err != nil {
				w.add(path, "type", fmt.Sprintf("expected a whole number, got %s", tok))
			}
		}
	case bool:
		w.expect(t, path, "true or false", reflect.Bool)
	}
	return nil
}

func isInt(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Uint64
}

// expect reports a value of JSON type got where t wants none of kinds.
func (w *shapeWalker) expect(t reflect.Type, path, got string, kinds ...reflect.Kind) {
	if t == nil || t.Kind() == reflect.Interface {
		return
	}
	for _, k := range kinds {
		if t.Kind() == k {
			return
		}
	}
	w.add(path, "type", fmt.Sprintf("expected %s, got %s", describe(t), got))
}

// describe names what a Go type takes in JSON.
func describe(t reflect.Type) string {
	switch k := t.Kind(); {
	case k == reflect.String:
		return "a string"
	case k == reflect.Bool:
		return "true or false"
	case isInt(k):
		return "a whole number"
	case k == reflect.Float32 || k == reflect.Float64:
		return "a number"
	case k == reflect.Slice || k == reflect.Array:
		return "a list"
	}
	return "an object"
}

func (w *shapeWalker) object(t reflect.Type, path string) error {
	if t != nil && t.Kind() != reflect.Struct && t.Kind() != reflect.Map && t.Kind() != reflect.Interface {
		w.add(path, "type", fmt.Sprintf("expected %s, got an object", describe(t)))
		t = nil
	}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		var elem reflect.Type
		switch {
		case t == nil || t.Kind() == reflect.Interface:
		case t.Kind() == reflect.Map:
			elem = t.Elem()
		default:
			f, ok := field(t, key)
			if !ok {
				w.add(join(path, key), "unknown", "unknown field (check its spelling)")
			}
			elem = f
		}
		if err := w.value(elem, join(path, key)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

func (w *shapeWalker) array(t reflect.Type, path string) error {
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			elem = t.Elem()
		case reflect.Interface:
		default:
			w.add(path, "type", fmt.Sprintf("expected %s, got a list", describe(t)))
		}
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // ']'
	return err
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// field finds the field of struct t that JSON key names, as encoding/json
// does: by its tag or name, exactly, else ignoring case; embedded structs'
// fields count as t's.
func field(t reflect.Type, key string) (reflect.Type, bool) {
	var fold reflect.Type
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Type.Kind() == reflect.Struct {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if name == key {
			return f.Type, true
		}
		if fold == nil && strings.EqualFold(name, key) {
			fold = f.Type
		}
	}
	return fold, fold != nil
}

// syntaxError locates a syntax error by line and column.
func (w *shapeWalker) syntaxError(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := position(w.data, syn.Offset)
		return deliverykit.InvalidField("", "json", fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, syn))
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(w.data)) == 0:
		return deliverykit.InvalidField("", "required", "configuration is empty")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(w.data, int64(len(w.data)))
		return deliverykit.InvalidField("", "json", fmt.Sprintf("malformed JSON: the file ends at line %d, column %d, inside a value", line, col))
	}
	return deliverykit.InvalidField("", "json", err.Error())
}

// position is the 1-based line and column (in bytes) of offset in data.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
