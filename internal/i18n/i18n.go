// Package i18n is the one message catalog of every text deliverykit shows
// to shoppers and customers: the checkout widget, the tracking and return
// pages and the notifications. Each text has a key ("widget.no_options",
// "day.mon") and a translation in every supported language; a test holds
// every language to the English key set and its formatting verbs.
//
// Look a text up for a request's language with Match and Text:
//
//	tag := i18n.Match("sv-SE", r.Header.Get("Accept-Language"))
//	title := i18n.Text(tag, "tracking.title")
//
// Texts with verbs are fmt formats, formatted by Text with the language's
// number conventions (golang.org/x/text/message). Money, dates and times
// are written by Money, Date, DateTime, Time, DateRange and DayRange, the
// same way on every customer page.
package i18n

import (
	"maps"
	"slices"
	"strings"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Supported lists the languages every text is translated to; English,
// the first, is the fallback.
var Supported = []language.Tag{
	language.English,
	language.Swedish,
	language.MustParse("nb"),
	language.Danish,
	language.Finnish,
	language.German,
}

// texts maps a language ("sv", as in Supported) to key → text. Each
// part of the catalog (the widget, the tracking page, …) is one texts value
// in its own file, listed in parts.
type texts map[string]map[string]string

// parts are the catalog's parts.
var parts = []texts{widgetTexts, trackingTexts, notifyTexts, returnsTexts, complaintsTexts}

// tables are the texts by language, parallel to Supported; en, the
// English table, has every key.
var (
	tables = merge()
	en     = tables[0]
)

func merge() []map[string]string {
	out := make([]map[string]string, len(Supported))
	for i, tag := range Supported {
		base, _ := tag.Base()
		out[i] = map[string]string{}
		for _, p := range parts {
			for key, text := range p[base.String()] {
				if _, dup := out[i][key]; dup {
					panic("i18n: " + key + " is in two parts")
				}
				out[i][key] = text
			}
		}
	}
	return out
}

var (
	matcher = language.NewMatcher(Supported)
	cat     = build()
)

func build() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for i, tag := range Supported {
		for key, text := range tables[i] {
			if err := b.SetString(tag, key, text); err != nil {
				panic("i18n: " + key + ": " + err.Error())
			}
		}
	}
	return b
}

// Match returns the language to speak to someone who prefers prefs, best
// first: each is a locale ("sv-SE") or an Accept-Language header value;
// empty and malformed ones are skipped. It keeps the region of the
// preference that matched ("sv-SE", "en-GB"), so numbers, dates and
// currencies follow it, and falls back to English.
func Match(prefs ...string) language.Tag {
	var tags []language.Tag
	for _, p := range prefs {
		if len(p) > 256 {
			p = p[:256] // a header is the client's: bound the parsing
		}
		if t, err := language.Parse(p); err == nil && !strings.Contains(p, ",") && !strings.Contains(p, ";") {
			tags = append(tags, t)
			continue
		}
		if ts, _, err := language.ParseAcceptLanguage(p); err == nil {
			tags = append(tags, ts...)
		}
	}
	if len(tags) > 16 {
		tags = tags[:16]
	}
	t, _, _ := matcher.Match(tags...)
	return t
}

// Text returns the text of key in the language of tag, formatted with args
// when it has verbs; a key without a text is returned as it is, so a
// missing text shows where it is missing instead of a blank.
func Text(tag language.Tag, key string, args ...any) string {
	return message.NewPrinter(tag, message.Catalog(cat)).Sprintf(key, args...)
}

// Texts returns every text whose key starts with prefix, unformatted, in
// the language of tag: what a client-side script (the checkout widget)
// formats itself.
func Texts(tag language.Tag, prefix string) map[string]string {
	table := tables[index(tag)]
	out := make(map[string]string)
	for key, text := range tables[0] {
		if strings.HasPrefix(key, prefix) {
			if t, ok := table[key]; ok {
				text = t
			}
			out[key] = text
		}
	}
	return out
}

// Keys returns every key, sorted.
func Keys() []string { return slices.Sorted(maps.Keys(en)) }

// index is the position in Supported of the language of tag.
func index(tag language.Tag) int {
	_, i, _ := matcher.Match(tag)
	return i
}
