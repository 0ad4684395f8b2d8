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
	// maxViolationText bounds the bytes of Field and Message of one
	// listed violation each; longer ones are cut at a character boundary
	// and end in "…". Paths through map keys and messages that name a
	// value may otherwise be as long as the request.
	maxViolationText = 200
	// maxListedText bounds the Field and Message bytes of all listed
	// violations together: past it the rest are counted, not listed.
	maxListedText = 3 << 10
)

// Cap returns vs, in the order given, with at most MaxViolations entries
// and at most maxListedText bytes of text listed, each field and message
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
		if len(out) == MaxViolations || text+len(v.Field)+len(v.Message) > maxListedText {
			more++
			continue
		}
		text += len(v.Field) + len(v.Message)
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
		if len(v.Field) > maxViolationText || len(v.Message) > maxViolationText {
			return false
		}
		listed++
		text += len(v.Field) + len(v.Message)
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

// clip cuts s to maxViolationText bytes at a character boundary.
func clip(s string) string {
	if len(s) <= maxViolationText {
		return s
	}
	const ellipsis = "…"
	cut := maxViolationText - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + ellipsis
}
