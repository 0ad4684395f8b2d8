package checkout

import (
	"crypto/sha256"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Snippet's spliced markup is byte for byte what the template renders, for
// plain tokens and for tokens and bases the template has to escape.
func TestSnippetMatchesTemplate(t *testing.T) {
	for _, tc := range []struct{ base, token string }{
		{"/v1/siw/_/", "wt_000002"},
		{"/v1/siw/_/", "wt_AbC-9"},
		{"https://shop.example/v1/siw/_/", "wt_000002"},
		{`https://x.example/"><script>`, "wt_1"},
		{"javascript:alert(1)//", "wt_1"},
		{"/v1/siw/_/", `t"><b>`},
		{"/v1/siw/_/", "wt 1"},
		{"/v1/siw/_/", ""},
		{"/" + snippetPlaceholder + "/", "wt_1"},
	} {
		for range 2 { // the second call is served from the cache
			if diff := cmp.Diff(renderSnippet(tc.base, tc.token), Snippet(tc.base, tc.token)); diff != "" {
				t.Errorf("Snippet(%q, %q) (-template +got):\n%s", tc.base, tc.token, diff)
			}
		}
	}
}

// The snippet is the container front-ends look up, with the token and base,
// and one inline script whose text (hence its CSP hash) is the same for
// every session and base.
func TestSnippetContract(t *testing.T) {
	for _, tc := range []struct{ base, token string }{
		{"https://shop.example/v1/siw/_/", "wt_000002"},
		{"/v1/siw/_/", "wt_other"},
	} {
		sn := Snippet(tc.base, tc.token)
		for _, want := range []string{`<div id="shipwallet-container"`, `data-deliverykit-token="` + tc.token + `"`,
			`data-deliverykit-base="` + tc.base + `"`, `class="dk-skeleton"`, "<noscript>"} {
			if !strings.Contains(sn, want) {
				t.Errorf("snippet lacks %s: %s", want, sn)
			}
		}
		_, rest, _ := strings.Cut(sn, "<script>")
		script, _, ok := strings.Cut(rest, "</script>")
		if !ok || strings.Count(sn, "<script") != 1 {
			t.Fatalf("snippet has no single inline script: %s", sn)
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
