package idempotency

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// withCanonical calls f with body decoded and encoded again: members
// sorted, white space dropped, numbers as written. A body that is not one
// JSON object or array is itself.
//
// The usual body (strings without escapes, members named once) is
// rewritten in place of decoding it (canon), to the same bytes;
// any other goes through go-json, whose result is the definition. Both
// must agree: stored answers carry the hash, and a repeat hashed another
// way would be refused as another request.
//
// f must not keep its argument: it is the pool's memory on the fast path.
func withCanonical(body []byte, f func([]byte)) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		f(body)
		return
	}
	c := canonPool.Get().(*canon)
	defer func() {
		// The odd large body does not pin its memory in the pool.
		if cap(c.out)+cap(c.scratch) <= maxPooledCanon {
			canonPool.Put(c)
		}
	}()
	if out, ok := c.run(trimmed); ok {
		f(out)
		return
	}
	f(slowCanonical(body, trimmed))
}

// slowCanonical decodes the body with go-json and encodes it again.
func slowCanonical(body, trimmed []byte) []byte {
	dec := gojson.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return body
	}
	out, err := gojson.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// canon rewrites a JSON document canonically without decoding it. It
// gives up (ok false) on anything whose encoding by go-json it does not
// reproduce byte for byte: escapes, control characters and invalid UTF-8
// in strings, a member named twice, deep nesting, invalid JSON.
type canon struct {
	out     []byte
	scratch []byte
	members []member
}

// member is an object member's key and canonical value, as offsets in
// canon.out.
type member struct{ key, keyEnd, val, end int }

var canonPool = sync.Pool{New: func() any { return new(canon) }}

// maxPooledCanon is the most memory a pooled canon keeps.
const maxPooledCanon = 64 << 10

// maxCanonDepth bounds the nesting the fast path follows.
const maxCanonDepth = 32

// run returns the canonical form of src, in c's memory.
func (c *canon) run(src []byte) ([]byte, bool) {
	c.out, c.members = c.out[:0], c.members[:0]
	i, ok := c.value(src, 0, 0)
	if !ok || skipSpace(src, i) != len(src) {
		return nil, false
	}
	return c.out, true
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// value appends the value at src[i:] (after white space) and returns the
// offset after it.
func (c *canon) value(src []byte, i, depth int) (int, bool) {
	i = skipSpace(src, i)
	if i >= len(src) {
		return 0, false
	}
	switch b := src[i]; {
	case b == '{':
		return c.object(src, i+1, depth+1)
	case b == '[':
		return c.array(src, i+1, depth+1)
	case b == '"':
		return c.str(src, i)
	case b == '-' || (b >= '0' && b <= '9'):
		return c.number(src, i)
	}
	for _, lit := range [...]string{"true", "false", "null"} {
		if bytes.HasPrefix(src[i:], []byte(lit)) {
			c.out = append(c.out, lit...)
			return i + len(lit), true
		}
	}
	return 0, false
}

func (c *canon) array(src []byte, i, depth int) (int, bool) {
	if depth > maxCanonDepth {
		return 0, false
	}
	c.out = append(c.out, '[')
	i = skipSpace(src, i)
	if i < len(src) && src[i] == ']' {
		c.out = append(c.out, ']')
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = c.value(src, i, depth); !ok {
			return 0, false
		}
		i = skipSpace(src, i)
		if i >= len(src) {
			return 0, false
		}
		switch src[i] {
		case ',':
			c.out = append(c.out, ',')
			i++
		case ']':
			c.out = append(c.out, ']')
			return i + 1, true
		default:
			return 0, false
		}
	}
}

func (c *canon) object(src []byte, i, depth int) (int, bool) {
	if depth > maxCanonDepth {
		return 0, false
	}
	start := len(c.out)
	base := len(c.members)
	i = skipSpace(src, i)
	if i < len(src) && src[i] == '}' {
		c.out = append(c.out, "{}"...)
		return i + 1, true
	}
	for {
		i = skipSpace(src, i)
		if i >= len(src) || src[i] != '"' {
			return 0, false
		}
		m := member{key: len(c.out)}
		var ok bool
		if i, ok = c.str(src, i); !ok {
			return 0, false
		}
		m.keyEnd = len(c.out)
		if bytes.IndexByte(c.out[m.key:m.keyEnd], '\\') >= 0 {
			// An escaped <, > or &: go-json sorts by the key itself,
			// which would sort otherwise than its escaped form.
			return 0, false
		}
		i = skipSpace(src, i)
		if i >= len(src) || src[i] != ':' {
			return 0, false
		}
		m.val = len(c.out)
		if i, ok = c.value(src, i+1, depth); !ok {
			return 0, false
		}
		m.end = len(c.out)
		c.members = append(c.members, m)
		i = skipSpace(src, i)
		if i >= len(src) {
			return 0, false
		}
		if src[i] == ',' {
			i++
			continue
		}
		if src[i] != '}' {
			return 0, false
		}
		i++
		break
	}
	// The members were appended as they came: sort them by key (without
	// escapes, their bytes between the quotes are the key) and write them
	// again.
	ms := c.members[base:]
	key := func(m member) []byte { return c.out[m.key+1 : m.keyEnd-1] }
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(key(a), key(b)) })
	for j := 1; j < len(ms); j++ {
		if bytes.Equal(key(ms[j-1]), key(ms[j])) {
			return 0, false // go-json keeps the last one
		}
	}
	c.scratch = append(c.scratch[:0], '{')
	for j, m := range ms {
		if j > 0 {
			c.scratch = append(c.scratch, ',')
		}
		c.scratch = append(c.scratch, c.out[m.key:m.keyEnd]...)
		c.scratch = append(c.scratch, ':')
		c.scratch = append(c.scratch, c.out[m.val:m.end]...)
	}
	c.scratch = append(c.scratch, '}')
	c.out = append(c.out[:start], c.scratch...)
	c.members = c.members[:base]
	return i, true
}

// str appends the string at src[i] (a quote): printable ASCII and valid
// UTF-8 without escapes, with <, > and & escaped as go-json escapes them.
// A run of bytes that stay as they are is appended at once.
func (c *canon) str(src []byte, i int) (int, bool) {
	c.out = append(c.out, '"')
	i++
	for i < len(src) {
		j := i
		for j < len(src) && asIs[src[j]] {
			j++
		}
		c.out = append(c.out, src[i:j]...)
		if i = j; i >= len(src) {
			break
		}
		switch b := src[i]; {
		case b == '"':
			c.out = append(c.out, '"')
			return i + 1, true
		case b >= utf8.RuneSelf:
			// Valid UTF-8 stays as it is, but for the two line
			// separators go-json escapes.
			r, n := utf8.DecodeRune(src[i:])
			if (r == utf8.RuneError && n == 1) || r == '\u2028' || r == '\u2029' {
				return 0, false
			}
			c.out = append(c.out, src[i:i+n]...)
			i += n
		case b == '<':
			c.out = append(c.out, `\u003c`...)
			i++
		case b == '>':
			c.out = append(c.out, `\u003e`...)
			i++
		case b == '&':
			c.out = append(c.out, `\u0026`...)
			i++
		default: // an escape, a control character
			return 0, false
		}
	}
	return 0, false
}

// asIs marks the bytes a string keeps as they are: printable ASCII but
// the quote, the backslash and the three go-json escapes.
var asIs = func() (t [256]bool) {
	for b := 0x20; b < 0x7f; b++ {
		t[b] = true
	}
	for _, b := range `"\<>&` {
		t[b] = false
	}
	return t
}()

// number appends the number at src[i] as written, if it is one by JSON's
// grammar.
func (c *canon) number(src []byte, i int) (int, bool) {
	start := i
	if src[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(src) && src[i] >= '0' && src[i] <= '9' {
			i++
			n++
		}
		return n
	}
	switch {
	case i < len(src) && src[i] == '0':
		i++
	case digits() == 0:
		return 0, false
	}
	if i < len(src) && src[i] == '.' {
		i++
		if digits() == 0 {
			return 0, false
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if digits() == 0 {
			return 0, false
		}
	}
	c.out = append(c.out, src[start:i]...)
	return i, true
}
