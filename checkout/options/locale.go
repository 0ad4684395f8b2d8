package options

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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
	// chosen remembers the display locale of valid preference lists:
	// checking a list (a regular expression and language.Parse per
	// locale) and matching it cost as much as the rest of an options
	// computation, and checkouts send a few dozen distinct lists.
	chosen *boundedCache[string]
}

// boundedCache is a concurrent map that stops growing at max entries, so
// that a flood of made-up keys cannot grow it without limit; entries are
// never evicted, so a key once cached stays cheap.
type boundedCache[V any] struct {
	m   sync.Map
	n   atomic.Int64
	max int64
}

func (c *boundedCache[V]) get(k string) (V, bool) {
	v, ok := c.m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

func (c *boundedCache[V]) put(k string, v V) {
	if c.n.Load() >= c.max {
		return
	}
	if _, loaded := c.m.LoadOrStore(k, v); !loaded {
		c.n.Add(1)
	}
}

// maxChosen bounds localizer.chosen and the cache of valid locales.
const maxChosen = 4096

// chooseFor checks a request's preferences and returns its display locale.
func (l localizer) chooseFor(field string, locales []string) (string, error) {
	// Valid locales have no NUL, so the joined key of a valid list is
	// never the key of another list; a list with a NUL in a locale is
	// invalid and must not find the entry of the valid list it spells,
	// nor [""] that of the empty list.
	key := strings.Join(locales, "\x00")
	cacheable := len(locales) > 0 && strings.Count(key, "\x00") == len(locales)-1
	if cacheable {
		if loc, ok := l.chosen.get(key); ok {
			return loc, nil
		}
	}
	prefs, err := ParseLocales(field, locales)
	if err != nil {
		return "", err
	}
	loc := l.choose(prefs)
	if cacheable {
		l.chosen.put(key, loc)
	}
	return loc, nil
}

func newLocalizer(locales []string) localizer {
	tags := make([]language.Tag, len(locales))
	for i, l := range locales {
		tags[i] = language.Make(l)
	}
	return localizer{supported: locales, matcher: language.NewMatcher(tags), chosen: &boundedCache[string]{max: maxChosen}}
}

// ParseLocales checks locales of the lc-CC form and reports the first bad
// one under field (e.g. "locales"), as "locales[2]".
func ParseLocales(field string, locales []string) ([]language.Tag, error) {
	tags := make([]language.Tag, len(locales))
	for i, l := range locales {
		if t, ok := validLocales.get(l); ok {
			tags[i] = t
			continue
		}
		t, err := language.Parse(l)
		if _, conf := t.Region(); err != nil || conf != language.Exact || !localeForm.MatchString(l) {
			return nil, deliverykit.InvalidField(fmt.Sprintf("%s[%d]", field, i), "locale",
				fmt.Sprintf("%q is not a locale like sv-SE (language-COUNTRY)", l))
		}
		validLocales.put(l, t)
		tags[i] = t
	}
	return tags, nil
}

// validLocales remembers the tags of locales that passed the check: the
// regular expression and language.Parse are most of a request's
// validation, and requests carry the same few locales again and again.
var validLocales = &boundedCache[language.Tag]{max: maxChosen}

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
