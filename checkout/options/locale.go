package options

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/deliverykit/deliverykit"
	"golang.org/x/text/language"
)

// localeForm is the lc-CC shape with hyphens (BCP 47); "sv_SE", which
// some parsers accept, is refused so clients learn the documented form.
var localeForm = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})+$`)

// localizer picks the display locale of a request.
type localizer struct {
	supported []string
	matcher   language.Matcher
}

func newLocalizer(locales []string) localizer {
	tags := make([]language.Tag, len(locales))
	for i, l := range locales {
		tags[i] = language.Make(l)
	}
	return localizer{supported: locales, matcher: language.NewMatcher(tags)}
}

// ParseLocales checks locales of the lc-CC form and reports the first bad
// one under field (e.g. "locales"), as "locales[2]".
func ParseLocales(field string, locales []string) ([]language.Tag, error) {
	tags := make([]language.Tag, len(locales))
	for i, l := range locales {
		t, err := language.Parse(l)
		if _, conf := t.Region(); err != nil || conf != language.Exact || !localeForm.MatchString(l) {
			return nil, deliverykit.InvalidField(fmt.Sprintf("%s[%d]", field, i), "locale",
				fmt.Sprintf("%q is not a locale like sv-SE (language-COUNTRY)", l))
		}
		tags[i] = t
	}
	return tags, nil
}

// choose returns the catalog locale for the preferences: the first
// preference the catalog supports wins (a close match such as en-GB for
// en-US counts), as the spec says; with none, the catalog's default.
func (l localizer) choose(prefs []language.Tag) string {
	for _, p := range prefs {
		_, i, conf := l.matcher.Match(p)
		if conf >= language.High {
			return l.supported[i]
		}
	}
	return l.supported[0]
}

// name returns names[locale], else the default locale's name, else any
// name (the smallest locale key, for determinism).
func (l localizer) name(names map[string]string, locale string) string {
	if n, ok := names[locale]; ok {
		return n
	}
	if n, ok := names[l.supported[0]]; ok {
		return n
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return ""
	}
	return names[keys[0]]
}
