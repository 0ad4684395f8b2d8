package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"
)

// requestInfo travels in the request context: the trace id, and what the
// route learns (site, error style) so that the access log and the panic
// handler can use it.
type requestInfo struct {
	traceID string
	// area and route are the area's name and the route pattern that
	// served the request ("" when none did), for metrics.
	area, route string
	site        string
	style       errorStyle
	maxBody     int64        // the body limit, for refusing a declared length early
	headers     headerPolicy // the security headers of the route
}

type infoKey struct{}

func requestInfoFrom(ctx context.Context) *requestInfo {
	if ri, ok := ctx.Value(infoKey{}).(*requestInfo); ok {
		return ri
	}
	return &requestInfo{}
}

func traceID(ctx context.Context) string { return requestInfoFrom(ctx).traceID }

// TraceID returns the trace id of the request being served, for handlers
// that wrap this package's handler.
func TraceID(ctx context.Context) string { return traceID(ctx) }

// validTraceID accepts what is safe to echo in a header and a log line.
func validTraceID(s string) bool {
	if len(s) == 0 || len(s) > 128 {
		return false
	}
	for _, c := range []byte(s) {
		ok := c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '_' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// requestTraceID is the trace id a request carries: the trace-id of a W3C
// traceparent header (so the request's log lines join the caller's
// distributed trace), else a valid X-Trace-Id, else a new one.
func requestTraceID(h http.Header) string {
	if id, ok := traceparentID(h.Get("Traceparent")); ok {
		return id
	}
	if id := h.Get("X-Trace-Id"); validTraceID(id) {
		return id
	}
	return newTraceID()
}

// traceparentID reads the trace-id of a W3C Trace Context traceparent
// header, "version-traceid-parentid-flags": 32 lower-case hex digits, not
// all zero. Version ff is invalid; later versions may append fields.
//
// The four fields are cut into an array rather than split into a slice,
// which allocated on every request, with the header or without it; more
// says whether fields follow them.
func traceparentID(v string) (string, bool) {
	var parts [4]string
	rest, ok := v, false
	for i := range 3 {
		if parts[i], rest, ok = strings.Cut(rest, "-"); !ok {
			return "", false
		}
	}
	last, _, more := strings.Cut(rest, "-")
	parts[3] = last
	if len(parts[0]) != 2 || parts[0] == "ff" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 ||
		parts[0] == "00" && more {
		return "", false
	}
	for _, p := range parts {
		if !isLowerHex(p) {
			return "", false
		}
	}
	if strings.Trim(parts[1], "0") == "" || strings.Trim(parts[2], "0") == "" {
		return "", false
	}
	return parts[1], true
}

func isLowerHex(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func newTraceID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusWriter records the status for the access log and whether anything
// was written, so a panic after the header went out is not answered twice.
// It adds the route's security headers as the header goes out.
type statusWriter struct {
	http.ResponseWriter
	info   *requestInfo
	held   *coalescingConn // the connection holding the answer, if any
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.info.headers.apply(w.Header())
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// FlushError sends what the handler has written so far. A handler that
// flushes is streaming, so its connection is no longer held.
func (w *statusWriter) FlushError() error {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	err := http.NewResponseController(w.ResponseWriter).Flush()
	if w.held != nil {
		if rerr := w.held.release(); err == nil {
			err = rerr
		}
	}
	return err
}

// Flush is FlushError for handlers that use http.Flusher.
func (w *statusWriter) Flush() { w.FlushError() }

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestDone ends every request, its answer sent and logged; early
// reports whether the answer left from inside the handler (finishHeld).
// The client's next request may then already be waiting when net/http
// reads again: this goroutine would serve it without parking, and the
// next after it, ahead of the connections queued for the processor until
// the scheduler preempts it, 10 ms later. It yields, so that ready
// connections are served in turn (decision 0036).
func requestDone(early bool) {
	if early {
		runtime.Gosched()
	}
}

// middleware wraps every request: trace id, body limit, security headers,
// panic recovery and the access log. Query strings and headers are not
// logged: they may hold tokens, e-mail addresses and API keys; paths are
// logged with their page tokens redacted (logPath).
func (s *server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		// The request's info, its writer and its X-Trace-Id header's
		// value live as long as each other: one allocation for all.
		state := &struct {
			info    requestInfo
			sw      statusWriter
			traceID [1]string
		}{info: requestInfo{traceID: requestTraceID(r.Header), maxBody: s.bodyLimit(r)}}
		info := &state.info
		// As Header.Set would, without its slice (capacity 1: a
		// Header.Add copies it).
		state.traceID[0] = info.traceID
		w.Header()["X-Trace-Id"] = state.traceID[:]
		r = r.WithContext(context.WithValue(r.Context(), infoKey{}, info))
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, info.maxBody)
		}
		// The connection (when served through Listener) holds the answer
		// until it is whole; an abandoned request lets it go too.
		cc := heldConn(r)
		if cc != nil {
			cc.hold()
			defer cc.release()
		}
		sw := &state.sw
		*sw = statusWriter{ResponseWriter: w, info: info, held: cc}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(r.Context(), "panic serving request",
					"trace_id", info.traceID, "method", r.Method, "path", logPath(r.URL.Path),
					"panic", p, "stack", string(debug.Stack()))
				if sw.status == 0 {
					s.writeWire(sw, r, info.style, wireError{status: http.StatusInternalServerError, kind: "internal", rpcCode: rpcInternal, message: "internal error"})
				}
			}
			// An answer that left the net/http buffer goes out
			// before the access log is written.
			early := finishHeld(cc, sw)
			end := time.Now()
			s.accessLog(r, info, sw.status, end, end.Sub(start))
			s.metrics.observe(info, r.Method, sw.status, end.Sub(start))
			s.requestDone(early)
		}()
		next.ServeHTTP(sw, r)
	})
}

// accessLog writes a request's line: at INFO, message "request", the
// attributes of logAttrs and the route's site, at the instant end. It
// hands the logger's handler the record s.log.LogAttrs would, without
// what LogAttrs spends on every call besides: a walk of the stack for
// the record's source (runtime.Callers), which is this one line for every
// request, and a second reading of the clock: a fifth of the access
// log's CPU samples in bench/http's profile of the parcels read.
func (s *server) accessLog(r *http.Request, info *requestInfo, status int, end time.Time, d time.Duration) {
	ctx := r.Context()
	h := s.log.Handler()
	if !h.Enabled(ctx, slog.LevelInfo) {
		return
	}
	var buf [6]slog.Attr
	attrs := logAttrs(&buf, r, status, d)
	if info.site != "" {
		attrs = append(attrs, slog.String("site", info.site))
	}
	rec := slog.NewRecord(end, slog.LevelInfo, "request", accessLogPC())
	rec.AddAttrs(attrs...)
	// As LogAttrs does, a handler's error is not the request's.
	_ = h.Handle(ctx, rec)
}

// accessLogSource is the program counter of accessLog's call of
// accessLogPC, once known.
var accessLogSource atomic.Uintptr

// accessLogPC is the source of the access log's records: the line of
// accessLog that calls it, found once. A handler with AddSource shows it
// as LogAttrs's record showed its caller's line.
//
//go:noinline
func accessLogPC() uintptr {
	if pc := accessLogSource.Load(); pc != 0 {
		return pc
	}
	var pcs [1]uintptr
	runtime.Callers(2, pcs[:]) // skip runtime.Callers and accessLogPC
	accessLogSource.Store(pcs[0])
	return pcs[0]
}
