package httpapi

import (
	"net/http"
	"strings"
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

// TestTraceparentIDMatchesSplit holds traceparentID to the reading it
// had when it split the header into a slice.
func TestTraceparentIDMatchesSplit(t *testing.T) {
	split := func(v string) (string, bool) {
		parts := strings.Split(v, "-")
		if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 ||
			parts[0] == "00" && len(parts) != 4 {
			return "", false
		}
		for _, p := range parts[:4] {
			if !isLowerHex(p) {
				return "", false
			}
		}
		if strings.Trim(parts[1], "0") == "" || strings.Trim(parts[2], "0") == "" {
			return "", false
		}
		return parts[1], true
	}
	const id, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, v := range []string{
		"", "-", "---", "----", "00", "00-" + id, "00-" + id + "-" + parent, "00-" + id + "-" + parent + "-",
		"00-" + id + "-" + parent + "-01", "00-" + id + "-" + parent + "-01-", "00-" + id + "-" + parent + "-01-x",
		"01-" + id + "-" + parent + "-01", "01-" + id + "-" + parent + "-01-x-y", "01-" + id + "-" + parent + "-0",
		"ff-" + id + "-" + parent + "-01", "0-" + id + "-" + parent + "-01", "00-" + id + "0-" + parent + "-01",
		"00-" + id + "-" + parent + "0-01", "00-" + strings.ToUpper(id) + "-" + parent + "-01", "0g-" + id + "-" + parent + "-01",
		"00-" + strings.Repeat("0", 32) + "-" + parent + "-01", "00-" + id + "-" + strings.Repeat("0", 16) + "-01",
		"00-" + id + "-" + parent + "-0x", "00--" + id + "-" + parent + "-01",
	} {
		gotID, gotOK := traceparentID(v)
		wantID, wantOK := split(v)
		if gotID != wantID || gotOK != wantOK {
			t.Errorf("traceparentID(%q) = %q, %v; splitting gives %q, %v", v, gotID, gotOK, wantID, wantOK)
		}
	}
}
