package httpapi

import (
	"net/http"
	"testing"
)

func TestRequestTraceID(t *testing.T) {
	const valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tests := []struct {
		name        string
		traceparent string
		xTraceID    string
		want        string // "" means a fresh one
	}{
		{"traceparent", valid, "", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"traceparent wins over X-Trace-Id", valid, "mine", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"a later version with more fields", "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra", "", "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"version 00 with more fields", valid + "-x", "mine", "mine"},
		{"version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "mine", "mine"},
		{"all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "mine", "mine"},
		{"all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "mine", "mine"},
		{"upper case", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "mine", "mine"},
		{"short", "00-4bf92f35-00f067aa0ba902b7-01", "", ""},
		{"X-Trace-Id", "", "abc-123", "abc-123"},
		{"bad X-Trace-Id", "", "a b", ""},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.traceparent != "" {
			h.Set("Traceparent", tc.traceparent)
		}
		if tc.xTraceID != "" {
			h.Set("X-Trace-Id", tc.xTraceID)
		}
		got := requestTraceID(h)
		switch {
		case tc.want == "" && (len(got) != 32 || got == tc.xTraceID):
			t.Errorf("%s: %q, want a fresh id", tc.name, got)
		case tc.want != "" && got != tc.want:
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
