package recordtest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

const module = "github.com/deliverykit/deliverykit"

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	unmarshalerType   = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	timeType          = reflect.TypeFor[time.Time]()
	rawType           = reflect.TypeFor[json.RawMessage]()
)

// CheckOwnNames fails the test when a stored record type does not own its
// JSON: every struct reachable from typ must be an unexported type of the
// module whose fields all carry a json tag (no embedded structs, whose
// fields would be promoted under the embedded type's names), and no type
// of the module reachable from it may encode itself (a MarshalJSON of a
// wire type decides stored bytes as much as its tags). Named string and
// number types of the module without an encoding of their own, such as
// enums, are allowed: they are stored as their values. So are time.Time,
// json.RawMessage and free JSON (any).
func CheckOwnNames(t testing.TB, typ reflect.Type) {
	t.Helper()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type, string)
	walk = func(ty reflect.Type, path string) {
		if seen[ty] {
			return
		}
		seen[ty] = true
		if ty == timeType || ty == rawType {
			return
		}
		ownModule := ty.PkgPath() == module || strings.HasPrefix(ty.PkgPath(), module+"/")
		if ownModule && ty.Name() != "" {
			for _, m := range []reflect.Type{marshalerType, unmarshalerType, textMarshalerType} {
				if ty.Implements(m) || reflect.PointerTo(ty).Implements(m) {
					if ty.Kind() == reflect.Struct || isExported(ty.Name()) {
						t.Errorf("%s: %s.%s encodes itself (%s); a stored record must not depend on it", path, ty.PkgPath(), ty.Name(), m)
					}
				}
			}
		}
		switch ty.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array:
			walk(ty.Elem(), path+"[]")
		case reflect.Map:
			walk(ty.Key(), path+"{key}")
			walk(ty.Elem(), path+"{}")
		case reflect.Struct:
			// internal/stored's record types (a stored address) are
			// records by purpose: no user or wire type can be them.
			storedRecord := ty.PkgPath() == module+"/internal/stored"
			if ty.Name() == "" || !ownModule || isExported(ty.Name()) && !storedRecord {
				t.Errorf("%s: %s is not an unexported struct of the module: its JSON names are not the record's own", path, ty)
				return
			}
			for i := range ty.NumField() {
				f := ty.Field(i)
				if f.Anonymous {
					t.Errorf("%s.%s: embedded field; a record names every stored field itself", path, f.Name)
				}
				if !f.IsExported() {
					continue
				}
				tag := f.Tag.Get("json")
				if tag == "" {
					t.Errorf("%s.%s: stored field without a json tag", path, f.Name)
				}
				if tag == "-" {
					continue
				}
				walk(f.Type, path+"."+f.Name)
			}
		}
	}
	walk(typ, typ.Name())
}

func isExported(name string) bool { return name != "" && strings.ToUpper(name[:1]) == name[:1] }
