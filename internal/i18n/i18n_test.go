package i18n

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"
)

// placeholders are the fmt verbs and {name} placeholders of a text, sorted.
var placeholders = regexp.MustCompile(`%[-+# 0]*[0-9]*(\.[0-9]+)?[a-zA-Z%]|\{[a-z_]+\}`)

func verbs(s string) []string {
	v := placeholders.FindAllString(s, -1)
	slices.Sort(v)
	return v
}

// Every language has exactly the English keys, no empty text, and the same
// verbs and placeholders in each text.
func TestEveryKeyInEveryLanguage(t *testing.T) {
	if len(tables) != len(Supported) {
		t.Fatalf("%d tables for %d languages", len(tables), len(Supported))
	}
	for i, table := range tables {
		lang := Supported[i].String()
		t.Run(lang, func(t *testing.T) {
			for key, text := range en {
				got, ok := table[key]
				switch {
				case !ok:
					t.Errorf("%s: missing", key)
				case got == "":
					t.Errorf("%s: empty", key)
				default:
					if diff := cmp.Diff(verbs(text), verbs(got)); diff != "" {
						t.Errorf("%s: placeholders differ from English (-en +%s):\n%s", key, lang, diff)
					}
				}
			}
			for key := range table {
				if _, ok := en[key]; !ok {
					t.Errorf("%s: not an English key", key)
				}
			}
		})
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		prefs []string
		want  string // base language
	}{
		{[]string{"sv-SE"}, "sv"},
		{[]string{"", "de-DE,de;q=0.9,en;q=0.5"}, "de"},
		{[]string{"nb-NO"}, "nb"},
		{[]string{"no"}, "nb"},
		{[]string{"fi-FI"}, "fi"},
		{[]string{"da"}, "da"},
		{[]string{"en-GB"}, "en"},
		{[]string{"pl-PL"}, "en"},
		{[]string{"pl-PL", "sv"}, "sv"},
		{[]string{"not a locale", "x;;;"}, "en"},
		{nil, "en"},
	}
	for _, tc := range tests {
		base, _ := Match(tc.prefs...).Base()
		if base.String() != tc.want {
			t.Errorf("Match(%q) = %s, want %s", tc.prefs, base, tc.want)
		}
	}
	if got := Match("sv-SE"); got != language.MustParse("sv-SE") && got.String() != "sv-u-rg-sezzzz" {
		t.Errorf("Match(sv-SE) = %s, want the region kept", got)
	}
}

func TestTextAndTexts(t *testing.T) {
	sv := Match("sv-SE")
	if got := Text(sv, "widget.no_options"); got != "Det finns inget leveransalternativ för den här adressen." {
		t.Errorf("Text(sv) = %q", got)
	}
	if got := Text(Match("pl"), "day.mon"); got != "Mon" {
		t.Errorf("a language without texts falls back to English: %q", got)
	}
	if got := Text(sv, "no.such.key"); got != "no.such.key" {
		t.Errorf("a missing key = %q, want the key", got)
	}
	w := Texts(Match("de"), "widget.")
	if w["widget.closed"] != "geschlossen" || w["day.mon"] != "" || len(w) != len(Texts(language.English, "widget.")) {
		t.Errorf("Texts(de, widget.) = %v", w)
	}
}

func ExampleText() {
	tag := Match("", "sv-SE,sv;q=0.9,en;q=0.8") // e.g. an Accept-Language header
	fmt.Println(Text(tag, "widget.opening_hours"))
	fmt.Println(Text(Match("de-DE"), "day.sat"))
	// Output:
	// Öppettider
	// Sa
}
