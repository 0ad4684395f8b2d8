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

// The locale caches hold what clients send, so every dimension is
// bounded: how long a list or a locale may be to be cached at all, and
// how many bytes a cache may hold. A request outside the bounds is
// answered exactly the same, only without the cache.
const (
	// MaxCachedPreferences is the longest preference list whose display
	// locale is cached; longer lists are checked and matched every time.
	// Browsers send a handful of languages.
	MaxCachedPreferences = 8
	// maxCachedLocaleBytes is the longest single locale cached, and
	// maxCachedListBytes the longest joined list: lc-CC is 5 bytes, the
	// longest usual tags (zh-Hant-TW) about 10.
	maxCachedLocaleBytes = 32
	maxCachedListBytes   = MaxCachedPreferences * (maxCachedLocaleBytes + 1)
	// LocaleCacheBytes is the memory budget of each engine's cache of
	// chosen display locales, and of the one process-wide cache of valid
	// locales: about 1,500 lists of three locales. When a cache reaches
	// its budget it is emptied and fills again, so a flood of made-up
	// lists costs at most the budget and cannot keep the lists real
	// customers send out for long.
	LocaleCacheBytes = 256 << 10
	// cacheEntryOverhead is what an entry costs besides its key's bytes:
	// the map's entry, the key's and value's headers and the boxed
	// value (measured with BenchmarkLocaleCacheFlood).
	cacheEntryOverhead = 160
)

// boundedCache is a concurrent map of at most budget bytes (keys plus
// cacheEntryOverhead per entry). Reaching the budget replaces the map by
// an empty one: simpler than tracking recency, and a cache of a few
// hundred kilobytes refills within a few thousand requests.
type boundedCache[V any] struct {
	gen    atomic.Pointer[cacheGen]
	budget int64
}

type cacheGen struct {
	m     sync.Map
	bytes atomic.Int64
}

func newBoundedCache[V any](budget int64) *boundedCache[V] {
	c := &boundedCache[V]{budget: budget}
	c.gen.Store(&cacheGen{})
	return c
}

func (c *boundedCache[V]) get(k string) (V, bool) {
	v, ok := c.gen.Load().m.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	return v.(V), true
}

// put stores a copy of k (a key may be a slice of a large request body,
// which must not stay reachable through the cache).
func (c *boundedCache[V]) put(k string, v V) {
	cost := int64(len(k)) + cacheEntryOverhead
	g := c.gen.Load()
	if _, ok := g.m.Load(k); ok {
		return
	}
	if g.bytes.Add(cost) > c.budget {
		// Whoever swaps starts the new generation; a put racing with the
		// swap may land in the old one, which is then garbage.
		fresh := &cacheGen{}
		if !c.gen.CompareAndSwap(g, fresh) {
			fresh = c.gen.Load()
		}
		g = fresh
		g.bytes.Add(cost)
	}
	if _, loaded := g.m.LoadOrStore(strings.Clone(k), v); loaded {
		g.bytes.Add(-cost)
	}
}

// bytes is the accounted size of the current generation.
func (c *boundedCache[V]) bytes() int64 { return c.gen.Load().bytes.Load() }

// chooseFor checks a request's preferences and returns its display locale.
func (l localizer) chooseFor(field string, locales []string) (string, error) {
	// Valid locales have no NUL, so the joined key of a valid list is
	// never the key of another list; a list with a NUL in a locale is
	// invalid and must not find the entry of the valid list it spells,
	// nor [""] that of the empty list.
	var key string
	cacheable := len(locales) > 0 && len(locales) <= MaxCachedPreferences
	if cacheable {
		key = strings.Join(locales, "\x00")
		cacheable = len(key) <= maxCachedListBytes && strings.Count(key, "\x00") == len(locales)-1
	}
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
	return localizer{supported: locales, matcher: language.NewMatcher(tags), chosen: newBoundedCache[string](LocaleCacheBytes)}
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
		if len(l) <= maxCachedLocaleBytes {
			validLocales.put(l, t)
		}
		tags[i] = t
	}
	return tags, nil
}

// validLocales remembers the tags of locales that passed the check: the
// regular expression and language.Parse are most of a request's
// validation, and requests carry the same few locales again and again.
var validLocales = newBoundedCache[language.Tag](LocaleCacheBytes)

// choose returns the catalog locale for the preferences: the first
// preference the catalog supports wins (a close match such as en-GB for
// en-US counts); with none, the catalog's default.
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
