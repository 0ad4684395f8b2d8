package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// errorStyle is the shape of an area's error body. The areas of the service
// this package implements grew up separately and their existing clients parse
// different bodies; each area keeps its own.
type errorStyle uint8

const (
	// styleREST is areas A, B, C and F:
	// {"error": "<kind>: <message>", "trace_id": "…", "details": [violations]}.
	styleREST errorStyle = iota
	// styleRPC is area D, the resource-style API:
	// {"code": <rpc code>, "message": "…", "details": [{"@type": "…", …}]}.
	styleRPC
	// styleSpring is area E, a Java-style service:
	// {"timestamp", "status", "error", "message", "path"}.
	styleSpring
	// styleCheckout2 is area C's newer generation (/v1/delivery_checkout):
	// styleREST whose "details" is one object naming the first violation,
	// {"msg", "cause", "source", "cause_text"}, the model its generated
	// clients decode; the full list travels in "violations".
	styleCheckout2
)

// wireError is an error ready to be written: the status, the kind text and
// the caller-safe message. Internal details never reach it.
type wireError struct {
	status     int
	kind       string // "not found", "invalid argument", … ; the prefix of styleREST's "error"
	rpcCode    int    // canonical RPC code for styleRPC
	message    string
	violations []deliverykit.FieldViolation
	// retryAfter, when positive, is sent as Retry-After in whole seconds
	// (rounded up): on 429 and 503, when the caller may try again.
	retryAfter time.Duration
}

// Canonical RPC codes (the numbering every RPC client library knows).
const (
	rpcInvalidArgument    = 3
	rpcNotFound           = 5
	rpcAlreadyExists      = 6
	rpcPermissionDenied   = 7
	rpcResourceExhausted  = 8
	rpcFailedPrecondition = 9
	rpcAborted            = 10
	rpcUnimplemented      = 12
	rpcInternal           = 13
	rpcUnavailable        = 14
	rpcUnauthenticated    = 16
)

// unavailableRetryAfter is the Retry-After of a 503: a full disk is not
// fixed in a second, and clients retrying at once would only add load.
const unavailableRetryAfter = 30 * time.Second

// kindStatus is the one table from error kind to HTTP status and RPC code.
// FailedPrecondition is 400, not 409: 409 tells checkout clients that a
// concurrent call won and the same call should be repeated, which would loop
// forever on a completed session. AlreadyExists is 409 too, as the REST
// areas always answered a taken order number, but RPC clients tell it
// (code 6) from a stale etag (code 10, ABORTED).
var kindStatus = map[deliverykit.Kind]struct{ status, rpc int }{
	deliverykit.KindNotFound:           {http.StatusNotFound, rpcNotFound},
	deliverykit.KindInvalidArgument:    {http.StatusBadRequest, rpcInvalidArgument},
	deliverykit.KindConflict:           {http.StatusConflict, rpcAborted},
	deliverykit.KindAlreadyExists:      {http.StatusConflict, rpcAlreadyExists},
	deliverykit.KindFailedPrecondition: {http.StatusBadRequest, rpcFailedPrecondition},
	deliverykit.KindPermissionDenied:   {http.StatusForbidden, rpcPermissionDenied},
	deliverykit.KindUnauthenticated:    {http.StatusUnauthorized, rpcUnauthenticated},
	deliverykit.KindInternal:           {http.StatusInternalServerError, rpcInternal},
	deliverykit.KindUnavailable:        {http.StatusServiceUnavailable, rpcUnavailable},
	deliverykit.KindResourceExhausted:  {http.StatusTooManyRequests, rpcResourceExhausted},
}

// errBodyTooLarge is returned by decodeJSON when the body passes the limit.
var errBodyTooLarge = errors.New("request body too large")

// toWire classifies err.
func toWire(err error) wireError {
	if errors.Is(err, errBodyTooLarge) {
		return wireError{status: http.StatusRequestEntityTooLarge, kind: "request too large", rpcCode: rpcResourceExhausted, message: err.Error()}
	}
	k := deliverykit.KindOf(err)
	m := kindStatus[k]
	// The violations are capped (validation.Cap) before the message,
	// which lists them too, is built: an error that somehow holds
	// thousands of them is still a small body.
	// Message hides the text of internal and unavailable errors by the
	// kind given here, which is err's.
	vs := validation.Cap(deliverykit.ViolationsOf(err))
	var message string
	if de := (*deliverykit.Error)(nil); errors.As(err, &de) {
		message = deliverykit.Message(&deliverykit.Error{Kind: k, Message: de.Message, Violations: vs})
	} else {
		message = deliverykit.Message(err)
	}
	we := wireError{
		status:     m.status,
		kind:       k.String(),
		rpcCode:    m.rpc,
		message:    message,
		violations: vs,
	}
	if k == deliverykit.KindUnavailable {
		we.retryAfter = unavailableRetryAfter
	}
	return we
}

// maxWireText bounds the message and the path an error body repeats, in
// bytes of JSON. Violations are capped on their own (validation.Cap); a
// message lists at most those and fits, so it is clipped only when a text
// in it names a long value (an unknown path, a malformed etag).
const maxWireText = 3 << 10

// tooManyRequests is the answer to a request over its rate limit.
func tooManyRequests(retryAfter time.Duration) wireError {
	return wireError{
		status:     http.StatusTooManyRequests,
		kind:       "too many requests",
		rpcCode:    rpcResourceExhausted,
		message:    "rate limit exceeded; retry after " + strconv.FormatInt(retrySeconds(retryAfter), 10) + " s",
		retryAfter: retryAfter,
	}
}

// retrySeconds is d in whole seconds, rounded up, at least 1: Retry-After
// takes an integer, and 0 would invite an immediate retry that fails again.
func retrySeconds(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	return max(s, 1)
}

// writeError writes err in the area's style. Internal and unavailable
// errors are logged with the trace id and shown to the caller only as
// "internal error" or "service unavailable".
func (s *server) writeError(w http.ResponseWriter, r *http.Request, style errorStyle, err error) {
	we := toWire(err)
	switch we.status {
	case http.StatusInternalServerError:
		s.log.ErrorContext(r.Context(), "internal error", "trace_id", traceID(r.Context()), "method", r.Method, "path", logPath(r.URL.Path), "err", err)
	case http.StatusServiceUnavailable:
		s.log.ErrorContext(r.Context(), "service unavailable", "trace_id", traceID(r.Context()), "method", r.Method, "path", logPath(r.URL.Path), "err", err)
	}
	s.writeWire(w, r, style, we)
}

func (s *server) writeWire(w http.ResponseWriter, r *http.Request, style errorStyle, we wireError) {
	we.message = validation.Clip(we.message, maxWireText)
	we.violations = validation.Cap(we.violations)
	if we.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.FormatInt(retrySeconds(we.retryAfter), 10))
	}
	switch style {
	case styleRPC:
		writeJSON(w, we.status, rpcBody(we))
	case styleCheckout2:
		writeJSON(w, we.status, checkout2Body(we, traceID(r.Context())))
	case styleSpring:
		writeJSON(w, we.status, springBody{
			Timestamp: s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
			Status:    we.status,
			Error:     http.StatusText(we.status),
			Message:   we.message,
			Path:      validation.Clip(r.URL.Path, maxWireText),
		})
	default:
		writeJSON(w, we.status, restBody{
			Error:   we.kind + ": " + we.message,
			TraceID: traceID(r.Context()),
			Details: we.violations,
		})
	}
}

type restBody struct {
	Error   string                       `json:"error"`
	TraceID string                       `json:"trace_id"`
	Details []deliverykit.FieldViolation `json:"details,omitempty"`
}

// checkout2Body is we as the newer checkout generation writes it.
func checkout2Body(we wireError, trace string) checkout2ErrorBody {
	b := checkout2ErrorBody{Error: we.kind + ": " + we.message, TraceID: trace, Violations: we.violations,
		Details: checkout2Details{Msg: we.message, Cause: we.rpcCode, CauseText: rpcCodeNames[we.rpcCode]}}
	if len(we.violations) > 0 {
		b.Details.Source, b.Details.Msg = we.violations[0].Field, we.violations[0].Message
	}
	return b
}

type checkout2ErrorBody struct {
	Error   string           `json:"error"`
	TraceID string           `json:"trace_id"`
	Details checkout2Details `json:"details"`
	// Violations are every field problem; clients of this generation
	// read details and ignore this member.
	Violations []deliverykit.FieldViolation `json:"violations,omitempty"`
}

// checkout2Details names the first problem: source is its field's JSON
// path (empty when no field is at fault), msg its message, cause the
// canonical RPC code of the error's kind and cause_text that code's name.
type checkout2Details struct {
	Msg       string `json:"msg"`
	Cause     int    `json:"cause"`
	Source    string `json:"source,omitempty"`
	CauseText string `json:"cause_text"`
}

// rpcCodeNames are the names of the canonical RPC codes.
var rpcCodeNames = map[int]string{
	0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED", 5: "NOT_FOUND", 6: "ALREADY_EXISTS",
	7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE",
	12: "UNIMPLEMENTED", 13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
}

type springBody struct {
	Timestamp string `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Message   string `json:"message"`
	Path      string `json:"path"`
}

type rpcErrorBody struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Details []map[string]any `json:"details"`
}

// rpcBody follows the RPC status convention: field problems travel as a
// BadRequest detail with fieldViolations (protobuf JSON names), the shape generated RPC clients
// decode.
func rpcBody(we wireError) rpcErrorBody {
	b := rpcErrorBody{Code: we.rpcCode, Message: we.message, Details: []map[string]any{}}
	if len(we.violations) > 0 {
		fv := make([]map[string]string, len(we.violations))
		for i, v := range we.violations {
			fv[i] = map[string]string{"field": v.Field, "description": v.Message, "reason": v.Rule}
		}
		b.Details = append(b.Details, map[string]any{
			"@type":           "type.googleapis.com/google.rpc.BadRequest",
			"fieldViolations": fv,
		})
	}
	return b
}

// logAttrs is shared by the access log and the panic log: the first five
// of buf, whose sixth is room for the site the access log adds. buf is
// the caller's, on its stack: slog copies what it is given into the
// record it hands the handler, so the attributes need no allocation of
// their own. The duration is duration_ms, milliseconds to the
// microsecond, a number in every handler: slog.Duration writes "1.5ms" in
// text and nanoseconds in JSON, so a query over either read it wrong.
func logAttrs(buf *[6]slog.Attr, r *http.Request, status int, d time.Duration) []slog.Attr {
	attrs := buf[:5]
	attrs[0] = slog.String("trace_id", traceID(r.Context()))
	attrs[1] = slog.String("method", r.Method)
	attrs[2] = slog.String("path", logPath(r.URL.Path))
	attrs[3] = slog.Int("status", status)
	attrs[4] = slog.Float64("duration_ms", milliseconds(d))
	return attrs
}

// milliseconds is d in milliseconds, to the microsecond.
func milliseconds(d time.Duration) float64 {
	return float64(d.Microseconds()) / 1000
}
