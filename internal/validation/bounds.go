package validation

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// boundingFormats are shared tags that accept only short strings: a value
// that passes is a code from a fixed set or a short, fixed format, so the
// tag bounds the field as max= does.
var boundingFormats = []string{"oneof", "eq", "len", "iso3166_1_alpha2", "iso3166_1_alpha3", "iso4217", "datetime", "httpsurl", "uuid", "e164"}

// Unbounded walks the request types roots, and every struct type reachable
// from them through their fields, and returns one line for each field a
// hostile client could make as large as the body allows:
//
//   - a string without max=, lte=, lt=, len=, oneof= or a format that
//     accepts only short values (iso4217, datetime, httpsurl, …, plus
//     formats: the caller's own tags of that kind, such as "hhmmss");
//   - a slice or map without max=, lte=, lt= or len= before its dive, or
//     whose string elements, keys or values are unbounded by the tags
//     after it;
//   - a free-form value (any) without jsonsize=.
//
// Aliases (max_id, max_parcels) are expanded first. Fields tagged
// validate:"-" or json:"-" are skipped: they are read-only or not read
// from the wire. Struct elements are bounded by their own fields, walked
// in turn. The result is sorted; an empty result means every field is
// bounded.
func Unbounded(roots []reflect.Type, formats ...string) []string {
	w := walker{seen: map[reflect.Type]bool{}, formats: append(slices.Clone(boundingFormats), formats...)}
	for _, t := range roots {
		w.structType(t)
	}
	slices.Sort(w.out)
	return slices.Compact(w.out)
}

type walker struct {
	seen    map[reflect.Type]bool
	formats []string
	out     []string
}

func (w *walker) structType(t reflect.Type) {
	t = indirect(t)
	if t.Kind() != reflect.Struct || w.seen[t] {
		return
	}
	w.seen[t] = true
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("validate")
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || tag == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		where := fmt.Sprintf("%s.%s (%s)", t, f.Name, name)
		w.value(where, f.Type, strings.Split(ExpandTag(tag), ","))
	}
}

// value checks one value of type t under the tags that apply to it (a
// field's tag, or what follows a dive).
func (w *walker) value(where string, t reflect.Type, tags []string) {
	t = indirect(t)
	head, rest := tags, []string(nil)
	if i := slices.Index(tags, "dive"); i >= 0 {
		head, rest = tags[:i], tags[i+1:]
	}
	switch t.Kind() {
	case reflect.String:
		if !w.has(head, w.formats...) && !w.has(head, "max", "lte", "lt") {
			w.out = append(w.out, where+": a string without a maximum length")
		}
	case reflect.Interface:
		if !w.has(head, "jsonsize") {
			w.out = append(w.out, where+": a free-form value without jsonsize=")
		}
	case reflect.Struct:
		w.structType(t)
	case reflect.Slice, reflect.Map, reflect.Array:
		if t.Kind() != reflect.Array && !w.has(head, "max", "lte", "lt", "len") {
			w.out = append(w.out, where+": a list without a maximum number of entries before its dive")
		}
		if t.Kind() == reflect.Map {
			var keys []string
			if len(rest) > 0 && rest[0] == "keys" {
				end := slices.Index(rest, "endkeys")
				if end < 0 {
					end = len(rest)
				}
				keys, rest = rest[1:end], rest[min(end+1, len(rest)):]
			}
			w.value(where+" key", t.Key(), keys)
		}
		w.value(where+" entry", t.Elem(), rest)
	}
}

// has reports whether tags hold one of names, with or without a
// parameter, also among alternatives ("a|b").
func (w *walker) has(tags []string, names ...string) bool {
	for _, t := range tags {
		for _, alt := range strings.Split(t, "|") {
			name, _, _ := strings.Cut(alt, "=")
			if slices.Contains(names, name) {
				return true
			}
		}
	}
	return false
}
