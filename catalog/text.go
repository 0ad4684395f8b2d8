package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/text/language"
)

// Text is a text shoppers read (a product name, pickup instructions),
// written either once for every locale or per locale. In configuration it
// is a plain JSON string ("Home delivery") or an object of locales of
// Catalog.Locales to texts ({"sv-SE": "Hemleverans", "en-US": "Home
// delivery"}). A plain string is kept under the key "" and written back as
// a plain string, so a configuration or a stored catalog that used plain
// strings reads and writes as before.
type Text map[string]string

// PlainText is the text for every locale.
func PlainText(s string) Text {
	if s == "" {
		return nil
	}
	return Text{"": s}
}

// MaxTextEntries bounds the locales of a Text: more than a catalog can
// name is never useful, and each entry costs a lookup.
const MaxTextEntries = 32

// UnmarshalJSON reads a plain string or an object of locale → text.
func (t *Text) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		*t = nil
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = PlainText(s)
		return nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("a text is a string or an object of locale to string: %w", err)
	}
	if len(m) > MaxTextEntries {
		return fmt.Errorf("a text has at most %d locales, not %d", MaxTextEntries, len(m))
	}
	if _, ok := m[""]; ok {
		// "" is how a plain string is held; as a key it names no locale.
		return fmt.Errorf(`"" is not a locale like en-US`)
	}
	*t = m
	if len(m) == 0 {
		*t = nil
	}
	return nil
}

// MarshalJSON writes a plain text as a plain string, else an object.
func (t Text) MarshalJSON() ([]byte, error) {
	if s, ok := t.plain(); ok {
		return json.Marshal(s)
	}
	return json.Marshal(map[string]string(t))
}

// plain reports the text written once for every locale, or of none.
func (t Text) plain() (string, bool) {
	if len(t) == 0 {
		return "", true
	}
	if s, ok := t[""]; ok && len(t) == 1 {
		return s, true
	}
	return "", false
}

// In returns the text for a locale ("sv-SE"): the locale's own, else that
// of the closest locale the text has (same language: "sv-FI" reads
// "sv-SE"), else the fallback locale's (the catalog's default, Locales[0]),
// else the plain text, else that of the smallest locale, so a text always
// reads the same.
func (t Text) In(locale, fallback string) string {
	if s, ok := t.Lookup(locale); ok {
		return s
	}
	if s, ok := t[fallback]; ok {
		return s
	}
	if s, ok := t[""]; ok {
		return s
	}
	if keys := t.locales(); len(keys) > 0 {
		return t[keys[0]]
	}
	return ""
}

// Lookup returns the text written for a locale ("sv-SE", or a tag such as
// "sv" a page's language matcher gives): the locale's own, else that of
// the closest locale of the same language the text has. ok is false when
// the text has none for the locale's language (a plain text counts for
// none: the caller decides what to fall back to).
func (t Text) Lookup(locale string) (text string, ok bool) {
	if s, ok := t[locale]; ok && locale != "" {
		return s, true
	}
	want, err := language.Parse(locale)
	if err != nil || locale == "" {
		return "", false
	}
	keys := t.locales()
	tags := make([]language.Tag, 0, len(keys))
	valid := make([]string, 0, len(keys))
	for _, k := range keys {
		if tag, err := language.Parse(k); err == nil {
			tags = append(tags, tag)
			valid = append(valid, k)
		}
	}
	if len(tags) == 0 {
		return "", false
	}
	if _, i, conf := language.NewMatcher(tags).Match(want); conf >= language.High {
		return t[valid[i]], true
	}
	return "", false
}

// locales returns the text's locale keys, sorted.
func (t Text) locales() []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		if k != "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// String is the text in no particular locale: the plain text, else the
// smallest locale's. Prefer In.
func (t Text) String() string { return t.In("", "") }

// text checks a text's locales against the catalog's and its
// length against max bytes per entry.
func (v *validator) text(field string, t Text, locales map[string]bool, required bool, max int) {
	if len(t) == 0 {
		if required {
			v.Add(field, "required", "must not be empty")
		}
		return
	}
	if len(t) > MaxTextEntries {
		v.Addf(field, "max", "must have at most %d locales", MaxTextEntries)
	}
	for loc, s := range t {
		f := field
		if loc != "" {
			f += "." + loc
			if !locales[loc] {
				v.Addf(f, "locale", "%q is not one of the catalog's locales", loc)
			}
		}
		if required && strings.TrimSpace(s) == "" {
			v.Add(f, "required", "must not be empty")
		}
		if len(s) > max {
			v.Addf(f, "max", "must be at most %d bytes long", max)
		}
	}
}
