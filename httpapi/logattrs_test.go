package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestLogAttrsUnits: a request's duration is logged as duration_ms, a
// number of milliseconds to the microsecond, the same in the JSON and the
// text handler (slog.Duration is nanoseconds in one and "1.5ms" in the
// other).
func TestLogAttrsUnits(t *testing.T) {
	tests := []struct {
		d        time.Duration
		wantJSON float64
		wantText string
	}{
		{0, 0, "duration_ms=0"},
		{999 * time.Nanosecond, 0, "duration_ms=0"},
		{1500 * time.Microsecond, 1.5, "duration_ms=1.5"},
		{1234567 * time.Nanosecond, 1.234, "duration_ms=1.234"},
		{2 * time.Second, 2000, "duration_ms=2000"},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/healthz", nil)
		var buf [6]slog.Attr
		attrs := logAttrs(&buf, r, 200, tt.d)

		var js bytes.Buffer
		slog.New(slog.NewJSONHandler(&js, nil)).LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
		var line map[string]any
		if err := json.Unmarshal(js.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.wantJSON, line["duration_ms"]); diff != "" {
			t.Errorf("%v in JSON (-want +got):\n%s", tt.d, diff)
		}
		if _, ok := line["duration"]; ok {
			t.Errorf("%v: the JSON line still has duration without its unit: %s", tt.d, js.String())
		}

		var text bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).LogAttrs(context.Background(), slog.LevelInfo, "request", attrs...)
		if !strings.Contains(text.String(), " "+tt.wantText+" ") && !strings.HasSuffix(strings.TrimSpace(text.String()), " "+tt.wantText) {
			t.Errorf("%v in text: %s, want %s", tt.d, text.String(), tt.wantText)
		}
	}
}
