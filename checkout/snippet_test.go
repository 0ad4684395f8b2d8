package checkout

import (
	"crypto/sha256"
	"encoding/base64"
	"github.com/deliverykit/deliverykit/internal/i18n"
	"golang.org/x/text/language"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Snippet's spliced markup is byte for byte what the template renders, for
// plain tokens and names and for tokens, names and bases the template has
// to escape.
func TestSnippetMatchesTemplate(t *testing.T) {
	two := SnippetConfiguration{ContainerID: "widget-container-2", ObjectID: "$widget_2"}
	for _, tc := range []struct {
		base, token string
		cfg         SnippetConfiguration
	}{
		{"/v1/siw/_/", "wt_000002", SnippetConfiguration{}},
		{"/v1/siw/_/", "wt_AbC-9", SnippetConfiguration{}},
		{"/v1/siw/_/", "wt_AbC-9", two},
		{"/v1/siw/_/", "wt_AbC-9", SnippetConfiguration{ObjectID: "widget_1"}},
		{"https://shop.example/v1/siw/_/", "wt_000002", two},
		{`https://x.example/"><script>`, "wt_1", SnippetConfiguration{}},
		{"javascript:alert(1)//", "wt_1", two},
		{"/v1/siw/_/", `t"><b>`, two},
		{"/v1/siw/_/", "wt 1", SnippetConfiguration{}},
		{"/v1/siw/_/", "", SnippetConfiguration{}},
		{"/v1/siw/_/", "wt_1", SnippetConfiguration{ContainerID: `a"><script>`, ObjectID: "x y"}},
		{"/" + tokenPlaceholder + "/", "wt_1", SnippetConfiguration{}},
		{"/" + containerPlaceholder + "/", "wt_1", two},
	} {
		container, object := tc.cfg.names()
		for range 2 { // the second call is served from the cache
			if diff := cmp.Diff(renderSnippet(english, tc.base, container, object, tc.token), SnippetFor(language.English, tc.base, tc.token, tc.cfg)); diff != "" {
				t.Errorf("SnippetFor(%q, %q, %+v) (-template +got):\n%s", tc.base, tc.token, tc.cfg, diff)
			}
		}
	}
}

var english, _ = language.English.Base()

// The snippet's texts are in the session's language.
func TestSnippetLanguage(t *testing.T) {
	for _, tc := range []struct{ locale, loading string }{
		{"sv-SE", "Laddar leveransalternativ…"},
		{"de-DE", "Lieferoptionen werden geladen…"},
		{"fi-FI", "Ladataan toimitusvaihtoehtoja…"},
		{"pl-PL", "Loading delivery options…"},
	} {
		sn := SnippetIn(i18n.Match(tc.locale), "/v1/siw/_/", "wt_1")
		if !strings.Contains(sn, tc.loading) {
			t.Errorf("%s: %s", tc.locale, sn)
		}
	}
}

// The snippet is the container front-ends look up, with the token, base
// and global name, holding one inline script whose text (hence its CSP
// hash) is the same for every session, configuration and base.
func TestSnippetContract(t *testing.T) {
	for _, tc := range []struct {
		base, token       string
		cfg               SnippetConfiguration
		container, object string
	}{
		{"https://shop.example/v1/siw/_/", "wt_000002", SnippetConfiguration{}, "shipwallet-container", "_sw"},
		{"/v1/siw/_/", "wt_other", SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}, "widget-container-1", "widget_1"},
		{"/v1/siw/_/", "wt_other", SnippetConfiguration{ObjectID: "widget_1"}, "shipwallet-container", "widget_1"},
	} {
		sn := SnippetFor(language.English, tc.base, tc.token, tc.cfg)
		for _, want := range []string{`<div id="` + tc.container + `"`, `data-deliverykit-object="` + tc.object + `"`,
			`data-deliverykit-token="` + tc.token + `"`, `data-deliverykit-base="` + tc.base + `"`, `class="dk-skeleton"`, "<noscript>"} {
			if !strings.Contains(sn, want) {
				t.Errorf("snippet lacks %s: %s", want, sn)
			}
		}
		_, rest, _ := strings.Cut(sn, "<script>")
		script, after, ok := strings.Cut(rest, "</script>")
		if !ok || strings.Count(sn, "<script") != 1 {
			t.Fatalf("snippet has no single inline script: %s", sn)
		}
		// Inside the container: its closing tag is the snippet's last.
		if after != "</div>" {
			t.Errorf("the script is not the container's last child: %s", sn)
		}
		sum := sha256.Sum256([]byte(script))
		if got := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; got != BootstrapScriptHash || script != BootstrapScript {
			t.Errorf("inline script hash %s, want %s", got, BootstrapScriptHash)
		}
	}
}

func BenchmarkSnippet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Snippet("/v1/siw/_/", "wt_0123456789abcdef")
	}
}

func BenchmarkSnippetConfigured(b *testing.B) {
	cfg := SnippetConfiguration{ContainerID: "widget-container-1", ObjectID: "widget_1"}
	b.ReportAllocs()
	for b.Loop() {
		SnippetFor(language.English, "/v1/siw/_/", "wt_0123456789abcdef", cfg)
	}
}

// The README tells merchants the CSP hash of the inline script: it must be
// this release's.
func TestREADMEHasBootstrapHash(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if h := strings.Trim(BootstrapScriptHash, "'"); !strings.Contains(string(b), h) {
		t.Errorf("README.md does not give the bootstrap script's hash %s", BootstrapScriptHash)
	}
}
