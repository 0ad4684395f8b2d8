package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/google/go-cmp/cmp"
)

// TestAccessLogLine: every request is logged as one line at INFO, message
// "request", with trace_id, method, path (token paths redacted), status,
// duration_ms and, when a route named one, site, in that order, in the
// text and the JSON handler alike. The time and the duration, which the
// test cannot fix, are replaced by ReplaceAttr after their kinds are
// checked; everything else must match byte for byte.
func TestAccessLogLine(t *testing.T) {
	const pageToken = "0123456789abcdef0123456789abcdef"
	sum := sha256.Sum256([]byte(pageToken))
	tokenHash := hex.EncodeToString(sum[:4])
	tests := []struct {
		name, method, path string
		header             map[string]string
		wantText, wantJSON string
	}{
		{
			name: "a route's site", method: "GET", path: "/v1/delivery_tracking/logged?token=secret",
			header:   map[string]string{"Authorization": bearer("demo-key"), "X-Trace-Id": "trace-1"},
			wantText: `time=T level=INFO msg=request trace_id=trace-1 method=GET path=/v1/delivery_tracking/logged status=200 duration_ms=0.5 site=demo-site` + "\n",
			wantJSON: `{"time":"T","level":"INFO","msg":"request","trace_id":"trace-1","method":"GET","path":"/v1/delivery_tracking/logged","status":200,"duration_ms":0.5,"site":"demo-site"}` + "\n",
		},
		{
			name: "no key: no site", method: "GET", path: "/v1/delivery_tracking/logged",
			header:   map[string]string{"X-Trace-Id": "trace-2"},
			wantText: `time=T level=INFO msg=request trace_id=trace-2 method=GET path=/v1/delivery_tracking/logged status=401 duration_ms=0.5` + "\n",
			wantJSON: `{"time":"T","level":"INFO","msg":"request","trace_id":"trace-2","method":"GET","path":"/v1/delivery_tracking/logged","status":401,"duration_ms":0.5}` + "\n",
		},
		{
			name: "a page token redacted", method: "HEAD", path: tracking.PagePath + pageToken,
			header:   map[string]string{"X-Trace-Id": "trace-3"},
			wantText: `time=T level=INFO msg=request trace_id=trace-3 method=HEAD path=` + tracking.PagePath + `…` + tokenHash + ` status=401 duration_ms=0.5` + "\n",
			wantJSON: `{"time":"T","level":"INFO","msg":"request","trace_id":"trace-3","method":"HEAD","path":"` + tracking.PagePath + `…` + tokenHash + `","status":401,"duration_ms":0.5}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, format := range []string{"text", "json"} {
				var buf bytes.Buffer
				opts := &slog.HandlerOptions{ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
					switch a.Key {
					case slog.TimeKey:
						if a.Value.Kind() != slog.KindTime {
							t.Errorf("%s: time is a %s", format, a.Value.Kind())
						}
						return slog.String(slog.TimeKey, "T")
					case "duration_ms":
						if a.Value.Kind() != slog.KindFloat64 || a.Value.Float64() < 0 {
							t.Errorf("%s: duration_ms = %v", format, a.Value)
						}
						return slog.Float64("duration_ms", 0.5)
					}
					return a
				}}
				var h slog.Handler = slog.NewTextHandler(&buf, opts)
				want := tt.wantText
				if format == "json" {
					h, want = slog.NewJSONHandler(&buf, opts), tt.wantJSON
				}
				s := newLoggedServer(t, slog.New(h))
				req := httptest.NewRequest(tt.method, tt.path, nil)
				for k, v := range tt.header {
					req.Header.Set(k, v)
				}
				s.handler.ServeHTTP(httptest.NewRecorder(), req)
				if diff := cmp.Diff(want, buf.String()); diff != "" {
					t.Errorf("%s line (-want +got):\n%s", format, diff)
				}
			}
		})
	}
}

// TestAccessLogRecord: the access log's record carries the instant the
// request ended (between the request's start and the handler's return)
// and the access log's own line as its source, for handlers that add it.
func TestAccessLogRecord(t *testing.T) {
	rec := &recordingHandler{}
	s := newLoggedServer(t, slog.New(rec))
	req := httptest.NewRequest("GET", "/v1/delivery_tracking/logged", nil)
	req.Header.Set("Authorization", bearer("demo-key"))
	before := time.Now()
	s.handler.ServeHTTP(httptest.NewRecorder(), req)
	after := time.Now()
	if len(rec.records) != 1 {
		t.Fatalf("%d records, want 1", len(rec.records))
	}
	r := rec.records[0]
	if r.Time.Before(before) || r.Time.After(after) {
		t.Errorf("time %v, not within the request [%v, %v]", r.Time, before, after)
	}
	if r.Level != slog.LevelInfo || r.Message != "request" {
		t.Errorf("level %v, message %q; want INFO, request", r.Level, r.Message)
	}
	frame, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
	if filepath.Base(frame.File) != "middleware.go" || !strings.Contains(frame.Function, "/httpapi.") {
		t.Errorf("source %s (%s:%d), want the access log's line in httpapi's middleware.go", frame.Function, frame.File, frame.Line)
	}
	// Every request has the same source.
	s.handler.ServeHTTP(httptest.NewRecorder(), req)
	if len(rec.records) != 2 || rec.records[1].PC != r.PC {
		t.Errorf("the second request's source differs from the first's")
	}
}

// TestAccessLogDisabled: a logger above INFO gets no access log record.
func TestAccessLogDisabled(t *testing.T) {
	rec := &recordingHandler{level: slog.LevelWarn}
	s := newLoggedServer(t, slog.New(rec))
	req := httptest.NewRequest("GET", "/v1/delivery_tracking/logged", nil)
	req.Header.Set("Authorization", bearer("demo-key"))
	s.handler.ServeHTTP(httptest.NewRecorder(), req)
	if len(rec.records) != 0 {
		t.Errorf("%d records at WARN, want none", len(rec.records))
	}
}

// newLoggedServer is a server logging to log, with one route that answers
// 200 for the demo key, without rate limits (BenchmarkAccessLog sends
// one site's requests without pause).
func newLoggedServer(t testing.TB, log *slog.Logger) *server {
	t.Helper()
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	s := newServer(Options{Keys: &keys, Logger: log,
		RateLimits: RateLimits{Site: NoRateLimit, WidgetToken: NoRateLimit, Address: NoRateLimit}})
	s.route(areaTracking, "/v1/delivery_tracking/logged", map[string]endpoint{
		"GET": func(w http.ResponseWriter, r *http.Request, site string) error {
			writeJSON(w, 200, struct{}{})
			return nil
		},
	})
	return s
}

// recordingHandler keeps the records at or above level.
type recordingHandler struct {
	level   slog.Level
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordingHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *recordingHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}

func (h *recordingHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordingHandler) WithGroup(string) slog.Handler      { return h }
