package validation

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
)

// The cap on the violations of one error. A request can be wrong in as
// many ways as it has fields; its answer lists the first MaxViolations in
// the package's order and then one more entry, Field "" and Rule
// RuleTruncated, whose Message counts the rest ("and 12345 more
// violations"). The text of the listed violations is bounded too, so an
// error body stays a few KiB whatever the request.
const (
	MaxViolations = 20
	// RuleTruncated is the Rule of the entry that counts the violations
	// left out.
	RuleTruncated = "truncated"
	// maxViolationText bounds the Field and the Message of one listed
	// violation, each, in bytes of JSON (see Clip); longer ones are cut
	// at a character boundary and end in "…". Paths through map keys and
	// messages that name a value may otherwise be as long as the request.
	maxViolationText = 200
	// maxListedText bounds the Field and Message bytes of all listed
	// violations together: past it the rest are counted, not listed.
	maxListedText = 2560
)

// Cap returns vs, in the order given, with at most MaxViolations entries
// and at most maxListedText bytes of JSON text listed, each field and message
// cut to maxViolationText bytes, and the entry counting the rest when any
// were left out. Counting entries already in vs (from an error that was
// capped before) are merged into that one entry. vs itself is not
// modified; a list within the caps is returned as it is.
func Cap(vs []deliverykit.FieldViolation) []deliverykit.FieldViolation {
	if fits(vs) {
		return vs
	}
	out := make([]deliverykit.FieldViolation, 0, MaxViolations+1)
	more, text := 0, 0
	for _, v := range vs {
		if n, ok := truncatedCount(v); ok {
			more += n
			continue
		}
		v.Field, v.Message = clip(v.Field), clip(v.Message)
		size := jsonLen(v.Field) + jsonLen(v.Message)
		if len(out) == MaxViolations || text+size > maxListedText {
			more++
			continue
		}
		text += size
		out = append(out, v)
	}
	if more > 0 {
		out = append(out, Truncated(more))
	}
	return out
}

// fits reports whether vs is within the caps and holds no counting entry
// except, possibly, as its last.
func fits(vs []deliverykit.FieldViolation) bool {
	text, listed := 0, 0
	for i, v := range vs {
		if _, ok := truncatedCount(v); ok {
			if i != len(vs)-1 {
				return false
			}
			continue
		}
		f, m := jsonLen(v.Field), jsonLen(v.Message)
		if f > maxViolationText || m > maxViolationText {
			return false
		}
		listed++
		text += f + m
	}
	return listed <= MaxViolations && text <= maxListedText
}

// Truncated is the entry that counts n violations left out of a list.
func Truncated(n int) deliverykit.FieldViolation {
	noun := "violations"
	if n == 1 {
		noun = "violation"
	}
	return deliverykit.FieldViolation{Rule: RuleTruncated, Message: "and " + strconv.Itoa(n) + " more " + noun}
}

// truncatedCount reads the count of an entry made by Truncated.
func truncatedCount(v deliverykit.FieldViolation) (int, bool) {
	if v.Rule != RuleTruncated || v.Field != "" {
		return 0, false
	}
	f := strings.Fields(v.Message)
	if len(f) < 2 {
		return 0, false
	}
	n, err := strconv.Atoi(f[1])
	return n, err == nil && n >= 0
}

// clip cuts s to maxViolationText bytes of JSON.
func clip(s string) string { return Clip(s, maxViolationText) }

// Clip returns s when it takes at most n bytes as a JSON string (without
// the quotes), and otherwise its longest prefix that, with "…" appended,
// does. Sizes are counted as an encoder that escapes HTML writes them
// ("<" takes 6 bytes), because the error bodies are what must stay small.
// Error messages that name a request's value or path are clipped so that
// their size does not follow the request's.
func Clip(s string, n int) string {
	if len(s) <= n/6 || jsonLen(s) <= n {
		return s
	}
	const ellipsis = "…"
	budget := n - len(ellipsis)
	size := 0
	for i, r := range s {
		c := runeJSONLen(r, s[i:])
		if size+c > budget {
			return s[:i] + ellipsis
		}
		size += c
	}
	return s
}

// jsonLen is the length of s as the body of a JSON string.
func jsonLen(s string) int {
	n := 0
	for i, r := range s {
		n += runeJSONLen(r, s[i:])
	}
	return n
}

// runeJSONLen is the encoded length of the rune r that starts rest:
// control characters, the HTML characters and the line separators are
// written as \u and four hex digits, quotes and backslashes with a
// backslash, invalid bytes as \ufffd.
func runeJSONLen(r rune, rest string) int {
	switch {
	case r == '"' || r == '\\':
		return 2
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	case r == utf8.RuneError:
		if _, size := utf8.DecodeRuneInString(rest); size == 1 {
			return 6
		}
	}
	return utf8.RuneLen(r)
}

// TruncateBytes cuts s to at most n bytes, dropping a rune cut in two.
func TruncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}

// ClipRunes cuts s to at most n characters.
func ClipRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
