package validation

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/deliverykit/deliverykit"
)

// CheckJSONLists reads a JSON request body as a value of type t would be
// decoded and refuses it when a list or map holds more entries than the
// maximum its tag gives (max=, lte= or an alias of them, before the
// dive), with the violation the validator would report ("items", "max",
// "must have at most 500 entries"). It returns nil otherwise, also for
// malformed JSON, which the decoder reports.
//
// It exists because decoding costs memory in proportion to what the body
// holds, not to what is valid: a megabyte of [{},{},…] becomes 350,000
// structs before the validator can refuse the list. The scan allocates
// nothing per entry, so an adapter can run it on large bodies before
// decoding them. Members are matched to fields as encoding/json matches
// them (exact name, else case-insensitively); unknown members and
// entries past a limit are skipped without a look inside.
func CheckJSONLists(body []byte, t reflect.Type) error {
	s := listScanner{body: body}
	s.value(t, nil, 0)
	if len(s.vs) == 0 || s.bad {
		return nil
	}
	return Join(s.vs...)
}

// listScanner walks JSON text alongside a Go type. bad is set on text
// that is not JSON; the scan then stops and reports nothing.
type listScanner struct {
	body []byte
	i    int
	bad  bool
	path []pathSeg
	vs   []deliverykit.FieldViolation
}

// pathSeg is one step of the path to the current value: a member (name),
// an index of a list, or a key of a map (raw, as the member name).
type pathSeg struct {
	name  string
	index int
	kind  byte // 'm' member, 'i' index, 'k' key
}

// where writes the path as the validator names fields:
// items[2].properties[color].
func (s *listScanner) where() string {
	var b strings.Builder
	for _, p := range s.path {
		switch p.kind {
		case 'i':
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(p.index))
			b.WriteByte(']')
		case 'k':
			b.WriteByte('[')
			b.WriteString(p.name)
			b.WriteByte(']')
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p.name)
		}
	}
	return b.String()
}

// maxTypeDepth bounds how deep the scan follows the Go type; request
// types are a few levels deep, and deeper text is skipped.
const maxTypeDepth = 32

func (s *listScanner) ws() {
	for s.i < len(s.body) {
		switch s.body[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// value scans one value, as type t under tags (a field's tag, split, or
// what follows its dive).
func (s *listScanner) value(t reflect.Type, tags []string, depth int) {
	s.ws()
	if s.bad || s.i >= len(s.body) {
		s.bad = true
		return
	}
	t = indirect(t)
	if depth > maxTypeDepth || t == nil {
		s.skip()
		return
	}
	head, rest := tags, []string(nil)
	for k, tag := range tags {
		if tag == "dive" {
			head, rest = tags[:k], tags[k+1:]
			break
		}
	}
	switch c := s.body[s.i]; {
	case c == '{' && t.Kind() == reflect.Struct:
		s.object(fieldsOf(t), depth)
	case c == '{' && t.Kind() == reflect.Map:
		keyTags := 0
		if len(rest) > 0 && rest[0] == "keys" {
			for k, tag := range rest {
				if tag == "endkeys" {
					keyTags = k + 1
				}
			}
		}
		s.entries('}', t.Elem(), rest[keyTags:], limitOf(head), depth)
	case c == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		s.entries(']', t.Elem(), rest, limitOf(head), depth)
	default:
		s.skip()
	}
}

// object scans the members of an object whose fields are fs.
func (s *listScanner) object(fs *fields, depth int) {
	s.i++ // {
	for first := true; ; first = false {
		s.ws()
		if s.i < len(s.body) && s.body[s.i] == '}' {
			s.i++
			return
		}
		if !first && !s.expect(',') {
			return
		}
		s.ws()
		key, ok := s.str()
		if !ok || !s.expect(':') {
			s.bad = true
			return
		}
		f := fs.match(key)
		if f == nil {
			s.skip()
		} else {
			s.path = append(s.path, pathSeg{name: f.name, kind: 'm'})
			s.value(f.typ, f.tags, depth+1)
			s.path = s.path[:len(s.path)-1]
		}
		if s.bad {
			return
		}
	}
}

// entries scans an array (end ']') or a map (end '}'): entries past max
// are a violation and are skipped; the others are scanned as elem.
func (s *listScanner) entries(end byte, elem reflect.Type, tags []string, max int, depth int) {
	s.i++ // [ or {
	n, mark := 0, len(s.vs)
	for {
		s.ws()
		if s.i < len(s.body) && s.body[s.i] == end {
			s.i++
			break
		}
		if n > 0 && !s.expect(',') {
			return
		}
		seg := pathSeg{index: n, kind: 'i'}
		if end == '}' {
			s.ws()
			key, ok := s.str()
			if !ok || !s.expect(':') {
				s.bad = true
				return
			}
			seg = pathSeg{kind: 'k'}
			if max < 0 || n < max {
				seg.name = unescape(key) // only for entries scanned further
			}
		}
		n++
		if max >= 0 && n > max {
			s.skip()
		} else {
			s.path = append(s.path, seg)
			s.value(elem, tags, depth+1)
			s.path = s.path[:len(s.path)-1]
		}
		if s.bad {
			return
		}
	}
	if max >= 0 && n > max {
		// As the validator, which does not dive into a list over its
		// limit, report the list and nothing inside it.
		s.vs = append(s.vs[:mark], deliverykit.FieldViolation{Field: s.where(), Rule: "max",
			Message: "must have at most " + count(strconv.Itoa(max), "entry", "entries")})
	}
}

func (s *listScanner) expect(c byte) bool {
	s.ws()
	if s.i < len(s.body) && s.body[s.i] == c {
		s.i++
		return true
	}
	s.bad = true
	return false
}

// str scans a string and returns its raw contents (escapes left as they
// are).
func (s *listScanner) str() ([]byte, bool) {
	if s.i >= len(s.body) || s.body[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for j := start; j < len(s.body); j++ {
		switch s.body[j] {
		case '\\':
			j++
		case '"':
			s.i = j + 1
			return s.body[start:j], true
		}
	}
	return nil, false
}

// skip passes over one value of any kind and depth without recursion.
// It checks only what it needs to find the value's end: the decoder
// reports malformed JSON.
func (s *listScanner) skip() {
	s.ws()
	if s.i >= len(s.body) {
		s.bad = true
		return
	}
	switch s.body[s.i] {
	case '"':
		if _, ok := s.str(); !ok {
			s.bad = true
		}
	case '{', '[':
		depth := 0
		for s.i < len(s.body) {
			switch s.body[s.i] {
			case '"':
				if _, ok := s.str(); !ok {
					s.bad = true
					return
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					s.i++
					return
				}
			}
			s.i++
		}
		s.bad = true
	default:
		start := s.i
		for s.i < len(s.body) {
			switch s.body[s.i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				s.bad = s.i == start // a member without a value
				return
			}
			s.i++
		}
	}
}

// unescape returns the text of a JSON string's raw contents.
func unescape(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	var out string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &out) != nil {
		return string(raw)
	}
	return out
}

// limitOf returns the entry limit of a list's tags before its dive, or
// -1.
func limitOf(head []string) int {
	for _, tag := range head {
		for _, alt := range strings.Split(tag, "|") {
			name, param, _ := strings.Cut(alt, "=")
			if name == "max" || name == "lte" {
				if n, err := strconv.Atoi(param); err == nil && n >= 0 {
					return n
				}
			}
		}
	}
	return -1
}

// fields is what the scan needs of a struct type: its members by JSON
// name, with their tags expanded.
type fields struct {
	byName map[string]*field
	list   []*field
}

type field struct {
	name string
	typ  reflect.Type
	tags []string
}

// match finds the field of a member name as encoding/json does: the exact
// name, else a case-insensitive match. A name with escapes is compared
// unescaped.
func (fs *fields) match(raw []byte) *field {
	if bytes.IndexByte(raw, '\\') >= 0 {
		raw = []byte(unescape(raw))
	}
	if f, ok := fs.byName[string(raw)]; ok {
		return f
	}
	for _, f := range fs.list {
		if bytes.EqualFold([]byte(f.name), raw) {
			return f
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type → *fields

func fieldsOf(t reflect.Type) *fields {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fields)
	}
	fs := &fields{byName: map[string]*field{}}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := range t.NumField() {
			sf := t.Field(i)
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			// An embedded struct without a name lends its fields, as
			// encoding/json lifts them.
			if sf.Anonymous && name == "" && indirect(sf.Type).Kind() == reflect.Struct {
				add(indirect(sf.Type))
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			tag := sf.Tag.Get("validate")
			var tags []string
			if tag != "-" {
				tags = strings.Split(ExpandTag(tag), ",")
			}
			f := &field{name: name, typ: sf.Type, tags: tags}
			if _, dup := fs.byName[name]; !dup {
				fs.byName[name] = f
				fs.list = append(fs.list, f)
			}
		}
	}
	add(t)
	actual, _ := fieldCache.LoadOrStore(t, fs)
	return actual.(*fields)
}
