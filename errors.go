package deliverykit

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// Kind classifies an error so that adapters can map it to a wire status
// without knowing which area produced it. The set is closed on purpose: an
// HTTP adapter has exactly one table from Kind to status code.
type Kind uint8

// The kinds of error every area returns. KindInternal is the zero value so
// that an unclassified error is never mistaken for the caller's fault.
const (
	KindInternal           Kind = iota // a bug or an unavailable dependency; details are not shown to callers
	KindNotFound                       // the addressed resource does not exist (or belongs to another tenant)
	KindInvalidArgument                // the request is malformed; Violations name the fields
	KindConflict                       // a concurrent change won; the caller may retry with fresh state
	KindFailedPrecondition             // the resource is in a state that does not allow the operation
	KindPermissionDenied               // the caller is known but may not do this
	KindUnauthenticated                // the caller could not be identified
	KindUnavailable                    // a dependency cannot take the request now (a full disk); the caller may retry later; details are not shown to callers
	KindAlreadyExists                  // what the request would create exists already (an order number taken); repeating the call cannot help; Violations name the field
	KindResourceExhausted              // the caller holds as many of something as it may (test sites); it may try again once it holds fewer
)

var kindNames = [...]string{
	KindInternal:           "internal",
	KindNotFound:           "not found",
	KindInvalidArgument:    "invalid argument",
	KindConflict:           "conflict",
	KindFailedPrecondition: "failed precondition",
	KindPermissionDenied:   "permission denied",
	KindUnauthenticated:    "unauthenticated",
	KindUnavailable:        "unavailable",
	KindAlreadyExists:      "already exists",
	KindResourceExhausted:  "resource exhausted",
}

// String returns the kind's lower-case name, as used in error messages.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// FieldViolation describes one problem with one field of a request.
type FieldViolation struct {
	// Field is the JSON path of the offending value, e.g.
	// "deliveries[0].line_items[2].weight".
	Field string `json:"field"`
	// Rule is a short machine-readable name of the broken rule, e.g.
	// "required", "gt", "iso3166_1_alpha2", "oneof".
	Rule string `json:"rule"`
	// Message is a human-readable sentence.
	Message string `json:"message"`
}

func (v FieldViolation) String() string {
	if v.Field == "" {
		return v.Message
	}
	return v.Field + ": " + v.Message
}

// Error is the error type of every deliverykit package. Build it with E,
// Errorf or Invalid; inspect it with KindOf, errors.Is and errors.As.
type Error struct {
	Kind Kind
	// Message is safe to show to the caller. For KindInternal it is never
	// shown on the wire.
	Message string
	// Violations lists field-level problems (KindInvalidArgument).
	Violations []FieldViolation
	// Err is the underlying cause, if any. It is reachable through
	// errors.Unwrap but is not part of Error() unless Message is empty:
	// Errorf already formats the cause into Message.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if len(e.Violations) > 0 {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		for i, v := range e.Violations {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(v.String())
		}
	}
	if b.Len() == 0 && e.Err != nil {
		return e.Err.Error()
	}
	return b.String()
}

// Unwrap returns the cause, so errors.Is and errors.As see through an Error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a kind sentinel (ErrNotFound, ErrConflict, …)
// of the same kind. This makes errors.Is(err, deliverykit.ErrNotFound) true
// for every not-found error, whatever package produced it.
func (e *Error) Is(target error) bool {
	s, ok := target.(*kindSentinel)
	return ok && s.kind == e.Kind
}

// kindSentinel is the type of the Err* values; it matches any Error of its kind.
type kindSentinel struct{ kind Kind }

func (s *kindSentinel) Error() string { return s.kind.String() }

// Kind sentinels for errors.Is. They match every *Error of that kind and every
// error wrapping one.
var (
	ErrNotFound           error = &kindSentinel{KindNotFound}
	ErrInvalidArgument    error = &kindSentinel{KindInvalidArgument}
	ErrConflict           error = &kindSentinel{KindConflict}
	ErrFailedPrecondition error = &kindSentinel{KindFailedPrecondition}
	ErrPermissionDenied   error = &kindSentinel{KindPermissionDenied}
	ErrUnauthenticated    error = &kindSentinel{KindUnauthenticated}
	ErrInternal           error = &kindSentinel{KindInternal}
	ErrUnavailable        error = &kindSentinel{KindUnavailable}
	ErrAlreadyExists      error = &kindSentinel{KindAlreadyExists}
	ErrResourceExhausted  error = &kindSentinel{KindResourceExhausted}
)

// E returns an error of the given kind with a caller-safe message.
func E(kind Kind, message string) *Error {
	return &Error{Kind: kind, Message: message}
}

// Errorf is E with formatting. A %w verb records the cause (Unwrap) while the
// kind stays the one given here.
func Errorf(kind Kind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Message: err.Error(), Err: errors.Unwrap(err)}
}

// Invalid returns a KindInvalidArgument error listing the violations.
func Invalid(violations ...FieldViolation) *Error {
	return &Error{Kind: KindInvalidArgument, Message: "invalid request", Violations: violations}
}

// InvalidField is a shorthand for an invalid-argument error about one field.
func InvalidField(field, rule, message string) *Error {
	return Invalid(FieldViolation{Field: field, Rule: rule, Message: message})
}

// KindOf returns the kind of the first *Error in err's chain, or
// KindInternal when there is none. An internal or foreign error caused by a
// full disk, an exhausted quota or a read-only file system is
// KindUnavailable: the request was fine and may succeed later, so callers
// get "try again" rather than "bug". A nil error has no kind; KindOf(nil)
// returns KindInternal and callers must check for nil first.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) && e.Kind != KindInternal {
		return e.Kind
	}
	if outOfSpace(err) {
		return KindUnavailable
	}
	return KindInternal
}

// outOfSpace reports whether err comes from storage that cannot take
// writes for now: no space left, quota exceeded, or a file system that was
// remounted read-only (what Linux does after an I/O error).
func outOfSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) || errors.Is(err, syscall.EROFS)
}

// ViolationsOf returns the field violations carried by err, if any.
func ViolationsOf(err error) []FieldViolation {
	var e *Error
	if errors.As(err, &e) {
		return e.Violations
	}
	return nil
}

// Message returns the caller-safe message of err: the message of its first
// *Error (without the wrapped cause, which may hold internals), or
// "internal error" for errors of KindInternal and foreign errors. Errors of
// KindUnavailable describe infrastructure (a disk, a file), so they all read
// "service unavailable, try again later".
func Message(err error) string {
	switch KindOf(err) {
	case KindInternal:
		return "internal error"
	case KindUnavailable:
		return "service unavailable, try again later"
	}
	var e *Error
	errors.As(err, &e)
	msg := e.Message
	if len(e.Violations) > 0 {
		parts := make([]string, len(e.Violations))
		for i, v := range e.Violations {
			parts[i] = v.String()
		}
		if msg != "" {
			msg += ": "
		}
		msg += strings.Join(parts, "; ")
	}
	return msg
}
