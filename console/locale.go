package console

import (
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// locales are the console's languages, the first the fallback; their
// dates, numbers and amounts are written by the shared formatter
// (internal/i18n), the console's own texts are in texts.go.
var locales = []language.Tag{language.MustParse("en-US"), language.MustParse("sv-SE"), language.MustParse("de-DE")}

var localeMatcher = language.NewMatcher(locales)

// localizer writes one page's texts, numbers and dates in its language.
type localizer struct {
	tag   language.Tag
	lang  string
	texts map[string]string
	p     *message.Printer
}

// localize picks the language of r: ?lang=, else Accept-Language.
func localize(r *http.Request) localizer {
	prefs := []string{r.URL.Query().Get("lang"), r.Header.Get("Accept-Language")}
	var tags []language.Tag
	for _, p := range prefs {
		if p == "" || len(p) > 256 {
			continue
		}
		t, _, err := language.ParseAcceptLanguage(p)
		if err == nil {
			tags = append(tags, t...)
		}
	}
	_, i, _ := localeMatcher.Match(tags...)
	return newLocalizer(locales[i])
}

func newLocalizer(tag language.Tag) localizer {
	base, _ := tag.Base()
	t, ok := texts[base.String()]
	if !ok {
		t = texts["en"]
	}
	return localizer{tag: tag, lang: tag.String(), texts: t, p: message.NewPrinter(tag)}
}

// Lang is the page's language, for the html element.
func (l localizer) Lang() string { return l.lang }

// T is the text of key, formatted with args; a missing key shows as
// itself, so a gap is visible rather than blank.
func (l localizer) T(key string, args ...any) string {
	s, ok := l.texts[key]
	if !ok {
		s, ok = texts["en"][key]
	}
	if !ok {
		return key
	}
	if len(args) == 0 {
		return s
	}
	return l.p.Sprintf(s, args...)
}

func (l localizer) has(key string) bool {
	_, ok := l.texts[key]
	return ok
}

// Num writes n with the language's digit grouping.
func (l localizer) Num(n int64) string { return l.p.Sprintf("%d", n) }

// Pct writes part of whole as a percentage with one decimal, or a dash
// when whole is zero.
func (l localizer) Pct(part, whole int64) string {
	if whole <= 0 {
		return "–"
	}
	return l.p.Sprintf("%.1f\u00a0%%", float64(part)*100/float64(whole))
}

// Hours writes a number of hours with one decimal (negative: early).
func (l localizer) Hours(h float64) string { return l.T("unit.hours", l.p.Sprintf("%.1f", h)) }

// Money writes an amount in minor units of an ISO 4217 currency.
func (l localizer) Money(minor int64, currency string) string {
	return i18n.Money(l.tag, minor, currency)
}

// Date writes t's day; DateTime its day and time, in UTC: staff of one
// site may sit in several zones, and the events are stamped in UTC.
func (l localizer) Date(t time.Time) string { return i18n.Date(l.tag, t, time.UTC) }

func (l localizer) DateTime(t time.Time) string {
	if t.IsZero() {
		return "–"
	}
	return i18n.DateTime(l.tag, t, time.UTC)
}

// Stamp writes an RFC 3339 time as DateTime does, or the text as given
// when it does not parse.
func (l localizer) Stamp(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return l.DateTime(t)
}
