// Package jsonwrite appends JSON values exactly as encoding/json writes
// them with its default HTML escaping (json.Marshal): strings and
// float64s. It is the base of the answers that encode themselves field by
// field (session.Session.AppendJSON) instead of by the codec's
// reflection.
package jsonwrite

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain are the bytes a JSON string holds as they are, with HTML
// escaping: ASCII from 0x20 but " \\ < > &. A byte from 0x80 starts a
// character String decodes.
var plain = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// plainPrefix is the length of s's leading bytes that String copies as
// they are. A lookup per byte: on an answer's strings (ids, names, hours,
// URLs) it measured faster than testing eight bytes at a time.
func plainPrefix(s string) int {
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	return i
}

// String appends s quoted as encoding/json does with HTML escaping: <, >
// and & as \u003c, \u003e and \u0026, U+2028 and U+2029 escaped, each byte
// of invalid UTF-8 as \ufffd.
func String(b []byte, s string) []byte {
	b = append(b, '"')
	i := plainPrefix(s)
	start := 0
	for i < len(s) {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // below 0x20, or < > &
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// Float appends f as encoding/json writes a float64: the shortest decimal,
// in exponent form below 1e-6 and from 1e21, with a one-digit negative
// exponent ("1e-7"). NaN and the infinities are the error encoding/json
// returns, and b is returned unchanged.
func Float(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
