package validation

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Rule is a tag an area adds to the shared vocabulary, such as tracking's
// "hhmmss". Func reports whether a field is valid (it sees the field, its
// parent and the tag's parameter through validator.FieldLevel); Message is
// the sentence every violation of the tag carries, worded like the shared
// table ("must be a time of day HH:MM:SS").
//
// A Rule with Alias instead makes Tag a name for other tags ("max=100"):
// that is how a limit is named once, as a Go constant, and referred to by
// name in tags (see Max). Violations then report the tag that failed
// ("max"), worded by the shared table.
type Rule struct {
	Tag     string
	Func    validator.Func
	Message string
	Alias   string
}

// Validator validates structs by their `validate` tags and reports
// violations with JSON paths and the shared messages. It is safe for
// concurrent use; build one per area at package initialisation.
type Validator struct {
	v      *validator.Validate
	custom map[string]string // tag → message of the area's own Rules
}

// New returns a Validator with required-struct checking, JSON field names
// and the given rules registered.
//
// A rule without a tag, function or message, or one the validator refuses,
// is a programming error found the first time the package is loaded: New
// panics, like regexp.MustCompile, because areas call it in a package
// variable's initialiser where there is nobody to return an error to.
func New(rules ...Rule) *Validator {
	v := validator.New(validator.WithRequiredStructEnabled(), validator.WithTagNameFuncBlankOmit())
	v.RegisterTagNameFunc(jsonName)
	// keysafe is every area's: ids that become parts of storage keys must
	// not hold the key separator, or one id could pose as the prefix of
	// another.
	if err := v.RegisterValidation("keysafe", func(fl validator.FieldLevel) bool {
		return !strings.Contains(fl.Field().String(), storage.KeySep)
	}); err != nil {
		panic(fmt.Sprintf("validation: registering keysafe: %v", err))
	}
	// httpsurl and jsonsize are every area's too; their sentences are in
	// the shared table.
	for tag, fn := range map[string]validator.Func{"httpsurl": isHTTPSURL, "jsonsize": jsonSizeAtMost} {
		if err := v.RegisterValidation(tag, fn); err != nil {
			panic(fmt.Sprintf("validation: registering %s: %v", tag, err))
		}
	}
	custom := make(map[string]string, len(rules))
	seen := map[string]bool{}
	for _, r := range append(slices.Clone(shared), rules...) {
		if r.Alias != "" {
			if r.Tag == "" || r.Func != nil || r.Message != "" {
				panic(fmt.Sprintf("validation: alias %q needs a tag and nothing but the tags it stands for", r.Tag))
			}
			if seen[r.Tag] || builtIn[r.Tag] {
				panic(fmt.Sprintf("validation: rule %q is registered twice", r.Tag))
			}
			seen[r.Tag] = true
			v.RegisterAlias(r.Tag, r.Alias)
			registerAlias(r.Tag, r.Alias)
			continue
		}
		if r.Tag == "" || r.Func == nil || r.Message == "" {
			panic(fmt.Sprintf("validation: rule %q needs a tag, a function and a message", r.Tag))
		}
		if seen[r.Tag] || builtIn[r.Tag] {
			panic(fmt.Sprintf("validation: rule %q is registered twice", r.Tag))
		}
		seen[r.Tag] = true
		if err := v.RegisterValidation(r.Tag, r.Func); err != nil {
			panic(fmt.Sprintf("validation: registering rule %q: %v", r.Tag, err))
		}
		custom[r.Tag] = r.Message
	}
	return &Validator{v: v, custom: custom}
}

// builtIn are the tags New registers on every Validator itself.
var builtIn = map[string]bool{"keysafe": true, "httpsurl": true, "jsonsize": true}

// jsonName names a field in violations the way encoding/json names it on
// the wire: the json tag's name, the Go name when the tag gives none, and
// nothing for an embedded struct without a name, whose fields
// encoding/json lifts into the parent (WithTagNameFuncBlankOmit then leaves
// it out of the path). A field hidden from JSON ("-") keeps its Go name: a
// violation there is the area's own doing, and the Go name finds it.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case name == "-":
		return f.Name
	case name != "":
		return name
	case f.Anonymous && indirect(f.Type).Kind() == reflect.Struct:
		return ""
	}
	return f.Name
}

func indirect(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// Check validates s, a struct or a pointer to one, and returns nil when
// neither its tags nor extra report a problem. Otherwise it returns a
// deliverykit.Invalid error listing every tag violation and every
// violation in extra (the rules the caller checked in code), in the
// package's order (see the package documentation).
//
// A value the validator cannot validate at all is an internal error.
func (v *Validator) Check(s any, extra ...deliverykit.FieldViolation) error {
	vs, err := v.Violations("", s)
	if err != nil {
		return err
	}
	if len(vs) == 0 && len(extra) == 0 {
		return nil
	}
	vs = append(vs, extra...)
	sortViolations(vs)
	return deliverykit.Invalid(Cap(vs)...)
}

// Violations returns the tag violations of s, unsorted, with prefix put in
// front of every field ("deliveries[3]." for a delivery validated on its
// own). It is for areas that validate a request in pieces; they pass the
// collected violations to Join. The error is non-nil only when s cannot be
// validated at all, and is then an internal error.
func (v *Validator) Violations(prefix string, s any) ([]deliverykit.FieldViolation, error) {
	err := v.v.Struct(s)
	if err == nil {
		return nil, nil
	}
	var fes validator.ValidationErrors
	if !errors.As(err, &fes) {
		return nil, deliverykit.Errorf(deliverykit.KindInternal, "validation: cannot validate a %T: %w", s, err)
	}
	// The namespace starts with the name of the validated type, which is no
	// part of the JSON path. Cutting it by its known length, rather than at
	// the first dot, also works for generic types, whose names hold dots.
	root := len(indirect(reflect.TypeOf(s)).Name()) + 1
	vs := make([]deliverykit.FieldViolation, len(fes))
	for i, fe := range fes {
		path := fe.Namespace()
		if len(path) >= root {
			path = path[root:]
		}
		// ActualTag is the tag that failed, also when the field's tag
		// names it through an alias ("max_id" → "max"): clients see the
		// rule, not the name of its limit.
		vs[i] = deliverykit.FieldViolation{Field: prefix + path, Rule: fe.ActualTag(), Message: v.message(fe)}
	}
	return vs, nil
}

// Join returns nil when vs is empty and otherwise a deliverykit.Invalid
// error listing vs in the package's order, capped like Check's. It sorts a
// copy: the caller's slice is left as it was.
func Join(vs ...deliverykit.FieldViolation) error {
	if len(vs) == 0 {
		return nil
	}
	vs = slices.Clone(vs)
	sortViolations(vs)
	return deliverykit.Invalid(Cap(vs)...)
}

// sortViolations puts vs in the package's order: by field, array indices
// as numbers; a stable sort keeps the order of violations of one field.
func sortViolations(vs []deliverykit.FieldViolation) {
	slices.SortStableFunc(vs, func(a, b deliverykit.FieldViolation) int {
		return comparePaths(a.Field, b.Field)
	})
}

// comparePaths orders JSON paths as violations are ordered: byte by byte,
// except that the digits of two indices at the same place are compared as
// numbers, so "items[2].sku" sorts before "items[10].sku". It returns -1,
// 0 or +1, and 0 only for equal paths.
func comparePaths(a, b string) int {
	for a != "" && b != "" {
		if a[0] == '[' && b[0] == '[' {
			da, db := leadingDigits(a[1:]), leadingDigits(b[1:])
			if da != "" && db != "" {
				// Without leading zeros, the shorter number is the smaller;
				// indices never have them, and for map keys that do this is
				// still a total order that is 0 only for equal digits.
				if c := cmp.Compare(len(da), len(db)); c != 0 {
					return c
				}
				if c := strings.Compare(da, db); c != 0 {
					return c
				}
				a, b = a[1+len(da):], b[1+len(db):]
				continue
			}
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return s[:i]
}
