package i18n

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"
)

// The expected texts are what CLDR 48 (ICU 78's Intl) writes for the same
// values, except the symbols x/text's CLDR data spells differently (da
// "$" for USD where newer CLDR has "US$").
func TestMoney(t *testing.T) {
	type amount struct {
		minor int64
		code  string
	}
	amounts := []amount{{4900, "SEK"}, {490, "EUR"}, {4900, "NOK"}, {4900, "DKK"}, {490, "USD"}, {-123456750, "EUR"}, {500, "JPY"}, {1234, "XYZ"}}
	want := map[string][]string{
		"sv-SE": {"49,00\u00a0kr", "4,90\u00a0€", "49,00\u00a0Nkr", "49,00\u00a0Dkr", "4,90\u00a0US$", "−1\u00a0234\u00a0567,50\u00a0€", "500\u00a0JPY", "12,34\u00a0XYZ"},
		"de-DE": {"49,00\u00a0SEK", "4,90\u00a0€", "49,00\u00a0NOK", "49,00\u00a0DKK", "4,90\u00a0$", "-1.234.567,50\u00a0€", "500\u00a0¥", "12,34\u00a0XYZ"},
		"en-US": {"SEK\u00a049.00", "€4.90", "NOK\u00a049.00", "DKK\u00a049.00", "$4.90", "-€1,234,567.50", "¥500", "XYZ\u00a012.34"},
		"nb-NO": {"49,00\u00a0SEK", "4,90\u00a0€", "49,00\u00a0kr", "49,00\u00a0DKK", "4,90\u00a0USD", "−1\u00a0234\u00a0567,50\u00a0€", "500\u00a0JPY", "12,34\u00a0XYZ"},
		"da-DK": {"49,00\u00a0SEK", "4,90\u00a0€", "49,00\u00a0NOK", "49,00\u00a0kr.", "4,90\u00a0$", "-1.234.567,50\u00a0€", "500\u00a0JP¥", "12,34\u00a0XYZ"},
		"fi-FI": {"49,00\u00a0SEK", "4,90\u00a0€", "49,00\u00a0NOK", "49,00\u00a0DKK", "4,90\u00a0$", "−1\u00a0234\u00a0567,50\u00a0€", "500\u00a0¥", "12,34\u00a0XYZ"},
	}
	for locale, w := range want {
		tag := Match(locale)
		var got []string
		for _, a := range amounts {
			got = append(got, Money(tag, a.minor, a.code))
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("Money in %s (-want +got):\n%s", locale, diff)
		}
	}
}

func TestMoneyScale(t *testing.T) {
	tag := Match("sv-SE")
	for _, c := range []struct {
		minor int64
		scale int
		code  string
		want  string
	}{
		{450, 0, "SEK", "450,00\u00a0kr"},   // a whole amount still shows öre
		{45000, 2, "SEK", "450,00\u00a0kr"}, // the same amount in minor units
		{4505, 3, "EUR", "4,505\u00a0€"},    // a finer scale is kept
		{45, -1, "EUR", "45,00\u00a0€"},     // a scale out of range is bounded
	} {
		if got := MoneyScale(tag, c.minor, c.scale, c.code); got != c.want {
			t.Errorf("MoneyScale(%d, %d, %s) = %q, want %q", c.minor, c.scale, c.code, got, c.want)
		}
	}
}

func TestDates(t *testing.T) {
	stockholm, err := time.LoadLocation("Europe/Stockholm")
	if err != nil {
		t.Fatal(err)
	}
	// 13:05 UTC is 14:05 in Stockholm (CET); 23:30 UTC is the next day there.
	at := time.Date(2026, 11, 27, 13, 5, 0, 0, time.UTC)
	late := time.Date(2026, 11, 27, 23, 30, 0, 0, time.UTC)
	day := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, stockholm) }
	type row struct {
		Date, WeekdayDate, Time, DateTime, Late, UTC    string
		WholeDays, OneDay, MidnightEnd, SameDay, Across string
	}
	want := map[string]row{
		"sv-SE": {"27 nov. 2026", "fre 27 nov.", "14:05", "27 nov. 2026 14:05", "28 nov. 2026 00:30", "27 nov. 2026 13:05",
			"27 nov. 2026–30 nov. 2026", "27 nov. 2026", "27 nov. 2026–28 nov. 2026", "27 nov. 2026 08:00–18:00", "27 nov. 2026 20:00–28 nov. 2026 09:30"},
		"de-DE": {"27. Nov. 2026", "Fr., 27. Nov.", "14:05", "27. Nov. 2026, 14:05", "28. Nov. 2026, 00:30", "27. Nov. 2026, 13:05",
			"27. Nov. 2026–30. Nov. 2026", "27. Nov. 2026", "27. Nov. 2026–28. Nov. 2026", "27. Nov. 2026, 08:00–18:00", "27. Nov. 2026, 20:00–28. Nov. 2026, 09:30"},
		"en-US": {"Nov 27, 2026", "Fri, Nov 27", "2:05\u00a0PM", "Nov 27, 2026, 2:05\u00a0PM", "Nov 28, 2026, 12:30\u00a0AM", "Nov 27, 2026, 1:05\u00a0PM",
			"Nov 27, 2026\u2009–\u2009Nov 30, 2026", "Nov 27, 2026", "Nov 27, 2026\u2009–\u2009Nov 28, 2026", "Nov 27, 2026, 8:00\u00a0AM\u2009–\u20096:00\u00a0PM", "Nov 27, 2026, 8:00\u00a0PM\u2009–\u2009Nov 28, 2026, 9:30\u00a0AM"},
		"nb-NO": {"27. nov. 2026", "fre. 27. nov.", "14:05", "27. nov. 2026, 14:05", "28. nov. 2026, 00:30", "27. nov. 2026, 13:05",
			"27. nov. 2026–30. nov. 2026", "27. nov. 2026", "27. nov. 2026–28. nov. 2026", "27. nov. 2026, 08:00–18:00", "27. nov. 2026, 20:00–28. nov. 2026, 09:30"},
		"da-DK": {"27. nov. 2026", "fre. 27. nov.", "14.05", "27. nov. 2026, 14.05", "28. nov. 2026, 00.30", "27. nov. 2026, 13.05",
			"27. nov. 2026–30. nov. 2026", "27. nov. 2026", "27. nov. 2026–28. nov. 2026", "27. nov. 2026, 08.00–18.00", "27. nov. 2026, 20.00–28. nov. 2026, 09.30"},
		"fi-FI": {"27.11.2026", "pe 27.11.", "14.05", "27.11.2026 klo 14.05", "28.11.2026 klo 0.30", "27.11.2026 klo 13.05",
			"27.11.2026–30.11.2026", "27.11.2026", "27.11.2026–28.11.2026", "27.11.2026 klo 8.00–18.00", "27.11.2026 klo 20.00–28.11.2026 klo 9.30"},
	}
	for locale, w := range want {
		tag := Match(locale)
		got := row{
			Date: Date(tag, at, stockholm), WeekdayDate: WeekdayDate(tag, at, stockholm), Time: Time(tag, at, stockholm),
			DateTime: DateTime(tag, at, stockholm), Late: DateTime(tag, late, stockholm), UTC: DateTime(tag, at, nil),
			WholeDays:   DateRange(tag, day(27, 0, 0), time.Date(2026, 11, 30, 23, 59, 59, 0, stockholm), stockholm),
			OneDay:      DateRange(tag, day(27, 0, 0), day(27, 23, 59), stockholm),
			MidnightEnd: DateRange(tag, day(27, 0, 0), day(29, 0, 0), stockholm),
			SameDay:     DateRange(tag, day(27, 8, 0), day(27, 18, 0), stockholm),
			Across:      DateRange(tag, day(27, 20, 0), day(28, 9, 30), stockholm),
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("dates in %s (-want +got):\n%s", locale, diff)
		}
	}
}

// DayRange writes a delivery window's days in their own zone: the
// window's end, 23:59 in Stockholm, is already the next day in UTC.
func TestDayRange(t *testing.T) {
	stockholm := Zone("Europe/Stockholm")
	first, last := time.Date(2026, 11, 27, 0, 0, 0, 0, stockholm), time.Date(2026, 11, 30, 23, 59, 59, 0, stockholm)
	want := map[string][2]string{
		"sv-SE": {"fre 27 nov.", "fre 27 nov.–mån 30 nov."},
		"de-DE": {"Fr., 27. Nov.", "Fr., 27. Nov.–Mo., 30. Nov."},
		"en-US": {"Fri, Nov 27", "Fri, Nov 27\u2009–\u2009Mon, Nov 30"},
		"nb-NO": {"fre. 27. nov.", "fre. 27. nov.–man. 30. nov."},
		"da-DK": {"fre. 27. nov.", "fre. 27. nov.–man. 30. nov."},
		"fi-FI": {"pe 27.11.", "pe 27.11.–ma 30.11."},
	}
	for locale, w := range want {
		tag := Match(locale)
		got := [2]string{DayRange(tag, first, first.Add(12*time.Hour)), DayRange(tag, first, last)}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("DayRange in %s (-want +got):\n%s", locale, diff)
		}
	}
}

// TestFormatsCoverSupported holds every supported language to a complete
// format: a language added to Supported without one would write blanks.
func TestFormatsCoverSupported(t *testing.T) {
	for _, tag := range Supported {
		base, _ := tag.Base()
		f, ok := formats[base.String()]
		if !ok || f.date == "" || f.weekdayDate == "" || f.clock == "" || f.dateTime == "" || f.rangeSep == "" {
			t.Errorf("%s: no complete format", base)
		}
		for i, w := range f.weekdays {
			if w == "" {
				t.Errorf("%s: weekday %d is empty", base, i)
			}
		}
	}
	// A language the catalog lacks is written as English.
	if got, want := Money(language.Japanese, 490, "USD"), "$4.90"; got != want {
		t.Errorf("Money in ja = %q, want %q", got, want)
	}
}

// BenchmarkMoney measures one amount written: the widget writes one per
// option and addon of a session.
func BenchmarkMoney(b *testing.B) {
	tag := Match("sv-SE")
	b.ReportAllocs()
	for b.Loop() {
		Money(tag, 4900, "SEK")
	}
}
