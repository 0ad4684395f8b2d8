package console

import (
	"regexp"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var verb = regexp.MustCompile(`%[dsv]`)

// Every language has every English text, with the same verbs in the same
// order, and no text more.
func TestTexts(t *testing.T) {
	for _, lang := range []string{"sv", "de"} {
		for key, en := range texts["en"] {
			tr, ok := texts[lang][key]
			if !ok {
				t.Errorf("%s: no %q", lang, key)
				continue
			}
			if diff := cmp.Diff(verb.FindAllString(en, -1), verb.FindAllString(tr, -1)); diff != "" {
				t.Errorf("%s %q verbs (-en +%s):\n%s", lang, key, lang, diff)
			}
		}
		for key := range texts[lang] {
			if _, ok := texts["en"][key]; !ok {
				t.Errorf("%s: %q is not an English text", lang, key)
			}
		}
	}
	for _, tag := range locales {
		if l := newLocalizer(tag); !slices.Contains([]string{"en", "sv", "de"}, baseOf(l)) {
			t.Errorf("%v has no texts", tag)
		}
	}
}

func baseOf(l localizer) string {
	b, _ := l.tag.Base()
	return b.String()
}
