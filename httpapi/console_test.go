package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Options.Console is served under /console/ with its own page policy,
// which always forbids framing; without it, /console/ is not served.
func TestConsoleMounted(t *testing.T) {
	console := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'")
		w.Write([]byte("console " + r.URL.Path))
	})
	tests := []struct {
		name    string
		console http.Handler
		want    []string // status, body, CSP, X-Frame-Options
	}{
		{"served", console, []string{"200", "console /console/overview", "default-src 'none'; style-src 'self'; frame-ancestors 'none'", "DENY"}},
		{"off", nil, []string{"404"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := New(Options{Console: tt.console})
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/console/overview", nil))
			got := []string{strconv.Itoa(w.Code)}
			if w.Code == http.StatusOK {
				got = append(got, w.Body.String(), w.Header().Get("Content-Security-Policy"), w.Header().Get("X-Frame-Options"))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
