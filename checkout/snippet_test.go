package checkout

import (
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

func BenchmarkSnippet(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Snippet("/v1/siw/_/", "wt_0123456789abcdef")
	}
}
