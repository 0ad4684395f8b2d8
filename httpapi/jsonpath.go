package httpapi

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
)

// typeProblem is the first value of a request body whose JSON type the
// request's Go type cannot take, found by walking the two together: path
// is the value's full JSON path (cart.items[0].shipping_date) and msg says
// what was expected and what came. Decoders name a field without its list
// indices, or not at all when a type decodes itself (a timestamp, a
// shipping date), so a decode error alone cannot name the field a client
// must fix.
type typeProblem struct{ path, msg string }

// maxTypeWalkDepth bounds the walk; decodeJSON's body limit bounds its
// width. A body nested deeper is reported at the depth reached.
const maxTypeWalkDepth = 64

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType        = reflect.TypeFor[time.Time]()
)

// findTypeProblem walks body beside t. It reports false when it finds no
// problem (the decode error was of another kind).
func findTypeProblem(body []byte, t reflect.Type) (typeProblem, bool) {
	return walkType(json.RawMessage(bytes.TrimSpace(body)), t, "", 0)
}

func walkType(raw json.RawMessage, t reflect.Type, path string, depth int) (typeProblem, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return typeProblem{}, false // null leaves any value as it is
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if depth > maxTypeWalkDepth {
		return typeProblem{}, false
	}
	got := jsonKind(raw[0])
	if t == timeType {
		var v time.Time
		if got != "string" || json.Unmarshal(raw, &v) != nil {
			return typeProblem{path, "expected an RFC 3339 timestamp string, got " + describe(raw, got)}, true
		}
		return typeProblem{}, false
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		// A type that decodes itself: ask it. A struct that refuses an
		// object is walked for the member at fault.
		if err := json.Unmarshal(raw, reflect.New(t).Interface()); err == nil {
			return typeProblem{}, false
		} else if t.Kind() != reflect.Struct || got != "object" {
			return typeProblem{path, unmarshalMessage(err, raw, got)}, true
		}
	} else if reflect.PointerTo(t).Implements(textUnmarshaler) {
		if got != "string" || json.Unmarshal(raw, reflect.New(t).Interface()) != nil {
			return typeProblem{path, "expected a valid string, got " + describe(raw, got)}, true
		}
		return typeProblem{}, false
	}
	switch t.Kind() {
	case reflect.Interface:
		return typeProblem{}, false
	case reflect.String:
		return expect(path, raw, got, "string", "a string")
	case reflect.Bool:
		return expect(path, raw, got, "boolean", "a boolean")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if got == "number" {
			if _, err := strconv.ParseInt(string(raw), 10, t.Bits()); err != nil {
				return typeProblem{path, "expected an integer in range, got " + describe(raw, got)}, true
			}
			return typeProblem{}, false
		}
		return typeProblem{path, "expected an integer, got " + describe(raw, got)}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if got == "number" {
			if _, err := strconv.ParseUint(string(raw), 10, t.Bits()); err != nil {
				return typeProblem{path, "expected a non-negative integer in range, got " + describe(raw, got)}, true
			}
			return typeProblem{}, false
		}
		return typeProblem{path, "expected a non-negative integer, got " + describe(raw, got)}, true
	case reflect.Float32, reflect.Float64:
		return expect(path, raw, got, "number", "a number")
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return expect(path, raw, got, "string", "a base64 string")
		}
		if got != "array" {
			return typeProblem{path, "expected an array, got " + describe(raw, got)}, true
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			return typeProblem{}, false
		}
		for i, it := range items {
			if p, ok := walkType(it, t.Elem(), path+"["+strconv.Itoa(i)+"]", depth+1); ok {
				return p, true
			}
		}
		return typeProblem{}, false
	case reflect.Map:
		if got != "object" {
			return typeProblem{path, "expected an object, got " + describe(raw, got)}, true
		}
		members, ok := objectMembers(raw)
		if !ok {
			return typeProblem{}, false
		}
		for _, m := range members {
			if p, ok := walkType(m.value, t.Elem(), joinPath(path, m.key), depth+1); ok {
				return p, true
			}
		}
		return typeProblem{}, false
	case reflect.Struct:
		if got != "object" {
			return typeProblem{path, "expected an object, got " + describe(raw, got)}, true
		}
		members, ok := objectMembers(raw)
		if !ok {
			return typeProblem{}, false
		}
		fields := jsonFields(t)
		for _, m := range members {
			f, ok := fields[strings.ToLower(m.key)]
			if !ok {
				continue // unknown members are ignored
			}
			p, ok := typeProblem{}, false
			if f.quoted {
				p, ok = walkQuoted(m.value, f.typ, joinPath(path, m.key))
			} else {
				p, ok = walkType(m.value, f.typ, joinPath(path, m.key), depth+1)
			}
			if ok {
				return p, true
			}
		}
	}
	return typeProblem{}, false
}

// walkQuoted checks a field tagged ",string": a number or boolean written
// in a JSON string.
func walkQuoted(raw json.RawMessage, t reflect.Type, path string) (typeProblem, bool) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return typeProblem{}, false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var inner string
	if raw[0] != '"' || json.Unmarshal(raw, &inner) != nil {
		return typeProblem{path, "expected " + jsonTypeName(t.Kind().String()) + " in a string, got " + describe(raw, jsonKind(raw[0]))}, true
	}
	if t.Kind() == reflect.String {
		return walkType(json.RawMessage(inner), t, path, 0)
	}
	if _, bad := walkType(json.RawMessage(inner), t, path, 0); bad || inner == "" {
		return typeProblem{path, "expected " + jsonTypeName(t.Kind().String()) + " in a string, got " + describe(raw, "string")}, true
	}
	return typeProblem{}, false
}

func expect(path string, raw []byte, got, want, wantText string) (typeProblem, bool) {
	if got == want {
		return typeProblem{}, false
	}
	return typeProblem{path, "expected " + wantText + ", got " + describe(raw, got)}, true
}

// unmarshalMessage says what a self-decoding type refused, without the
// Go names its error may carry.
func unmarshalMessage(err error, raw []byte, got string) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		if typ.Field != "" {
			return "expected " + jsonTypeName(typ.Type.Kind().String()) + " at " + typ.Field + ", got " + typ.Value
		}
		return "expected " + jsonTypeName(typ.Type.Kind().String()) + ", got " + describe(raw, got)
	}
	return "has an invalid value: " + describe(raw, got)
}

// describe names the JSON type of raw, with a short string's value.
func describe(raw []byte, kind string) string {
	if kind == "string" && len(raw) <= 40 {
		return "string " + string(raw)
	}
	return kind
}

func jsonKind(c byte) string {
	switch c {
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

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

type member struct {
	key   string
	value json.RawMessage
}

// objectMembers lists an object's members in document order.
func objectMembers(raw []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key, v})
	}
	return out, true
}

// jsonField is a struct field as encoding/json decodes it: its type, and
// whether it is tagged ",string" (a number or boolean in a string).
type jsonField struct {
	typ    reflect.Type
	quoted bool
}

// jsonFields maps the lower-cased JSON names of t's fields (those of
// embedded structs included, as encoding/json sees them) to their types;
// encoding/json matches member names without regard to case.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for _, f := range reflect.VisibleFields(t) {
		if !f.IsExported() || f.Anonymous && f.Tag.Get("json") == "" {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, seen := out[strings.ToLower(name)]; !seen {
			out[strings.ToLower(name)] = jsonField{f.Type, slices.Contains(strings.Split(opts, ","), "string")}
		}
	}
	return out
}
