package i18n

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/currency"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// Money, dates and times are written for people by the functions below,
// on every customer surface (the widget's state, the tracking page, the
// return page), so one amount or one date reads the same everywhere in a
// language. Currency symbols, decimal and group separators and the minus
// sign come from golang.org/x/text (CLDR data); where the symbol goes and
// the date and time patterns, which x/text does not carry, are the table
// formats below, written after CLDR's (yMMMd, MMMEd, Hm/hm skeletons).

// format is how one language writes money, dates and times.
type format struct {
	// symbolFirst puts the currency symbol before the number ("$4.90")
	// instead of after it ("4,90 €").
	symbolFirst bool
	months      [12]string // abbreviated, January first
	weekdays    [7]string  // abbreviated, Sunday first (time.Weekday)
	// date, weekdayDate and clock are patterns of {d} (day), {M} (month
	// number), {MMM} (month), {y} (year), {E} (weekday), {H} and {HH}
	// (hour 0–23, {HH} two digits), {h} (hour 1–12), {mm} (minute) and
	// {a} (AM or PM).
	date, weekdayDate, clock string
	// dateTime joins a date ({0}) and a time ({1}).
	dateTime string
	// rangeSep goes between the two ends of a range.
	rangeSep string
}

// formats are the formats by base language, one for each in Supported.
var formats = map[string]format{
	"en": {
		symbolFirst: true,
		months:      [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		weekdays:    [7]string{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
		date:        "{MMM} {d}, {y}", weekdayDate: "{E}, {MMM} {d}", clock: "{h}:{mm}\u00a0{a}", // no break before AM/PM
		dateTime: "{0}, {1}", rangeSep: "\u2009–\u2009",
	},
	"sv": {
		months:   [12]string{"jan.", "feb.", "mars", "apr.", "maj", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "dec."},
		weekdays: [7]string{"sön", "mån", "tis", "ons", "tors", "fre", "lör"},
		date:     "{d} {MMM} {y}", weekdayDate: "{E} {d} {MMM}", clock: "{HH}:{mm}",
		dateTime: "{0} {1}", rangeSep: "–",
	},
	"nb": {
		months:   [12]string{"jan.", "feb.", "mars", "apr.", "mai", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "des."},
		weekdays: [7]string{"søn.", "man.", "tir.", "ons.", "tor.", "fre.", "lør."},
		date:     "{d}. {MMM} {y}", weekdayDate: "{E} {d}. {MMM}", clock: "{HH}:{mm}",
		dateTime: "{0}, {1}", rangeSep: "–",
	},
	"da": {
		months:   [12]string{"jan.", "feb.", "mar.", "apr.", "maj", "jun.", "jul.", "aug.", "sep.", "okt.", "nov.", "dec."},
		weekdays: [7]string{"søn.", "man.", "tirs.", "ons.", "tors.", "fre.", "lør."},
		date:     "{d}. {MMM} {y}", weekdayDate: "{E} {d}. {MMM}", clock: "{HH}.{mm}",
		dateTime: "{0}, {1}", rangeSep: "–",
	},
	"fi": {
		// Finnish writes short dates with month numbers (CLDR yMMMd).
		weekdays: [7]string{"su", "ma", "ti", "ke", "to", "pe", "la"},
		date:     "{d}.{M}.{y}", weekdayDate: "{E} {d}.{M}.", clock: "{H}.{mm}",
		dateTime: "{0} klo {1}", rangeSep: "–",
	},
	"de": {
		months:   [12]string{"Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."},
		weekdays: [7]string{"So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."},
		date:     "{d}. {MMM} {y}", weekdayDate: "{E}, {d}. {MMM}", clock: "{HH}:{mm}",
		dateTime: "{0}, {1}", rangeSep: "–",
	},
}

// formatOf is the format of the language of tag; English for a language
// the catalog lacks.
func formatOf(tag language.Tag) format {
	base, _ := Supported[index(tag)].Base()
	return formats[base.String()]
}

// Money writes an amount of minor units (cents, öre) of the currency with
// ISO 4217 code in the language of tag: "49,00 kr" (sv), "4,90 €" (de,
// fi), "$4.90" and "SEK 49.00" (en), "49,00 kr." (da). A code x/text does
// not know is written in place of the symbol with two decimals.
func Money(tag language.Tag, minor int64, code string) string {
	scale := 2
	if u, err := currency.ParseISO(code); err == nil {
		scale, _ = currency.Standard.Rounding(u)
	}
	return MoneyScale(tag, minor, scale, code)
}

// MoneyScale is Money for an amount with its own scale: minor is the
// amount times 10^scale (scale 0 to 9).
func MoneyScale(tag language.Tag, minor int64, scale int, code string) string {
	scale = min(max(scale, 0), 9)
	p := message.NewPrinter(tag)
	symbol, shown := code, scale
	if u, err := currency.ParseISO(code); err == nil {
		symbol = p.Sprint(currency.Symbol(u))
		if s, _ := currency.Standard.Rounding(u); s > shown {
			shown = s // 49 SEK is "49,00 kr", not "49 kr"
		}
	}
	neg := minor < 0
	abs := float64(minor)
	if neg {
		abs = -abs
	}
	// Amounts are bounded well under 2^53 minor units, exact in a float64.
	n := p.Sprint(number.Decimal(abs/math.Pow10(scale), number.Scale(shown)))
	var s string
	if formatOf(tag).symbolFirst {
		sep := ""
		if r := []rune(symbol); unicode.IsLetter(r[len(r)-1]) {
			sep = "\u00a0" // "SEK 49.00", as CLDR spaces a symbol in letters
		}
		s = symbol + sep + n
	} else {
		s = n + "\u00a0" + symbol
	}
	if neg {
		s = minusSign(p) + s
	}
	return s
}

// minusSign is the language's minus sign: "−" (U+2212) in Swedish,
// Norwegian and Finnish, "-" elsewhere.
func minusSign(p *message.Printer) string {
	return strings.TrimSuffix(p.Sprint(number.Decimal(-1)), "1")
}

// Date writes the calendar date of t in loc (UTC when nil): "27 nov.
// 2026" (sv), "27. Nov. 2026" (de), "Nov 27, 2026" (en), "27.11.2026" (fi).
func Date(tag language.Tag, t time.Time, loc *time.Location) string {
	f := formatOf(tag)
	return f.apply(f.date, in(t, loc))
}

// WeekdayDate writes the weekday and date of t in loc, without the year:
// "fre 27 nov." (sv), "Fr., 27. Nov." (de), "Fri, Nov 27" (en).
func WeekdayDate(tag language.Tag, t time.Time, loc *time.Location) string {
	f := formatOf(tag)
	return f.apply(f.weekdayDate, in(t, loc))
}

// Time writes the time of day of t in loc: "14:05" (sv, de, nb), "14.05"
// (da, fi), "2:05 PM" (en, with a no-break space).
func Time(tag language.Tag, t time.Time, loc *time.Location) string {
	f := formatOf(tag)
	return f.apply(f.clock, in(t, loc))
}

// DateTime writes the date and time of t in loc: "27 nov. 2026 14:05"
// (sv), "27. Nov. 2026, 14:05" (de), "Nov 27, 2026, 2:05 PM" (en),
// "27.11.2026 klo 14.05" (fi).
func DateTime(tag language.Tag, t time.Time, loc *time.Location) string {
	f := formatOf(tag)
	t = in(t, loc)
	return f.join(f.apply(f.date, t), f.apply(f.clock, t))
}

// DateRange writes the window from start to end in loc: the dates alone
// when it is whole days ("27 nov. 2026–30 nov. 2026", or one date), the
// date once when both ends share it ("27 nov. 2026 08:00–18:00"), else
// both dates and times.
func DateRange(tag language.Tag, start, end time.Time, loc *time.Location) string {
	f := formatOf(tag)
	s, e := in(start, loc), in(end, loc)
	sameDay := s.Year() == e.Year() && s.YearDay() == e.YearDay()
	if midnight(s) && (endOfDay(e) || midnight(e) && e.After(s)) {
		if midnight(e) {
			e = e.Add(-time.Nanosecond) // an end at midnight ends the day before
		}
		if s.Year() == e.Year() && s.YearDay() == e.YearDay() {
			return f.apply(f.date, s)
		}
		return f.apply(f.date, s) + f.rangeSep + f.apply(f.date, e)
	}
	if sameDay {
		return f.join(f.apply(f.date, s), f.apply(f.clock, s)+f.rangeSep+f.apply(f.clock, e))
	}
	return f.join(f.apply(f.date, s), f.apply(f.clock, s)) + f.rangeSep + f.join(f.apply(f.date, e), f.apply(f.clock, e))
}

// DayRange writes the calendar days first to last, each in its own zone
// (a delivery window's days in the warehouse's zone), with weekdays and
// without the year: "fre 27 nov.", "fre 27 nov.–mån 30 nov.".
func DayRange(tag language.Tag, first, last time.Time) string {
	f := formatOf(tag)
	a, b := f.apply(f.weekdayDate, first), f.apply(f.weekdayDate, last)
	if a == b {
		return a
	}
	return a + f.rangeSep + b
}

func in(t time.Time, loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc)
}

func midnight(t time.Time) bool { return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 }

// endOfDay is 23:59 or later: windows are often given as "until 23:59"
// or "until 23:59:59.999".
func endOfDay(t time.Time) bool { return t.Hour() == 23 && t.Minute() == 59 }

func (f format) join(date, clock string) string {
	return strings.NewReplacer("{0}", date, "{1}", clock).Replace(f.dateTime)
}

func (f format) apply(pattern string, t time.Time) string {
	h12 := t.Hour() % 12
	if h12 == 0 {
		h12 = 12
	}
	ampm := "AM"
	if t.Hour() >= 12 {
		ampm = "PM"
	}
	return strings.NewReplacer(
		"{d}", itoa(t.Day()), "{MMM}", f.months[t.Month()-1], "{M}", itoa(int(t.Month())), "{y}", itoa(t.Year()),
		"{E}", f.weekdays[t.Weekday()], "{HH}", pad2(t.Hour()), "{H}", itoa(t.Hour()), "{h}", itoa(h12),
		"{mm}", pad2(t.Minute()), "{a}", ampm,
	).Replace(pattern)
}

func itoa(n int) string { return strconv.Itoa(n) }

func pad2(n int) string {
	if n < 10 {
		return "0" + itoa(n)
	}
	return itoa(n)
}

// maxZones bounds the cache of loaded zones. Zones come from the
// tracking service's country table and the sites' configuration, so a
// handful are in use; past the bound a zone is loaded on every use.
const maxZones = 64

var zones sync.Map // IANA name → *time.Location

// Zone returns the named IANA time zone ("Europe/Stockholm"), or UTC when
// the name is empty or unknown: the zone a site's pages write times in.
func Zone(name string) *time.Location {
	if name == "" {
		return time.UTC
	}
	if l, ok := zones.Load(name); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	n := 0
	zones.Range(func(any, any) bool { n++; return n < maxZones })
	if n < maxZones {
		zones.Store(name, l)
	}
	return l
}
