package idempotency

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/deliverykit/deliverykit"
)

// Call runs fn under the key WithKey put in ctx, for a Go caller of a
// service: the first call runs fn in a unit of work, and a repeat with the
// same key, site, operation and request returns the stored result without
// running it. Results and the caller's errors (invalid argument, not
// found, failed precondition, permission denied, already exists) are
// stored; conflicts, unavailable and internal errors are not, so a retry
// may succeed. A replayed result is the first one as JSON gives it back.
// Without a key in ctx, Call is fn(ctx).
//
// The services fn calls must be built on stores wrapped by k.Store
// (wiring does this).
func Call[T any](ctx context.Context, k *Keeper, site, operation string, req any, fn func(context.Context) (T, error)) (T, error) {
	var zero T
	key, ok := KeyFrom(ctx)
	if !ok {
		return fn(ctx)
	}
	body, err := json.Marshal(req)
	if err != nil {
		return zero, deliverykit.Errorf(deliverykit.KindInvalidArgument, "idempotency: request of %s: %w", operation, err)
	}
	var direct struct {
		res T
		err error
	}
	a, replayed, err := k.Do(ctx, key, Request{Site: site, Operation: operation, Body: body}, func(ctx context.Context) (Answer, error) {
		direct.res, direct.err = fn(ctx)
		if direct.err != nil {
			status, stored := errorStatus(direct.err)
			if !stored {
				return Answer{Status: status}, nil
			}
			var de *deliverykit.Error
			errors.As(direct.err, &de) // stored errors are *deliverykit.Error (errorStatus)
			b, err := json.Marshal(storedError{Kind: deliverykit.KindOf(direct.err), Message: de.Message,
				Violations: deliverykit.ViolationsOf(direct.err)})
			return Answer{Status: status, Body: b}, err
		}
		b, err := json.Marshal(direct.res)
		return Answer{Status: http.StatusOK, Body: b}, err
	})
	if err != nil {
		return zero, err
	}
	if !replayed {
		return direct.res, direct.err
	}
	if a.Status != http.StatusOK {
		var se storedError
		if err := json.Unmarshal(a.Body, &se); err != nil {
			return zero, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: stored error of %s: %w", operation, err)
		}
		return zero, &deliverykit.Error{Kind: se.Kind, Message: se.Message, Violations: se.Violations}
	}
	var res T
	if err := json.Unmarshal(a.Body, &res); err != nil {
		return zero, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: stored result of %s: %w", operation, err)
	}
	return res, nil
}

// storedError is a caller's error as Call stores it: its kind, message
// and violations, which the replay's *deliverykit.Error has again (the
// text of wrappers around it is not kept).
type storedError struct {
	Kind       deliverykit.Kind             `json:"kind"`
	Message    string                       `json:"message"`
	Violations []deliverykit.FieldViolation `json:"violations,omitempty"`
}

// errorStatus is the HTTP status standing for err in a stored answer,
// and whether it is stored.
func errorStatus(err error) (int, bool) {
	var de *deliverykit.Error
	if !errors.As(err, &de) {
		return http.StatusInternalServerError, false
	}
	switch deliverykit.KindOf(err) {
	case deliverykit.KindInvalidArgument:
		return http.StatusBadRequest, true
	case deliverykit.KindNotFound:
		return http.StatusNotFound, true
	case deliverykit.KindFailedPrecondition:
		return http.StatusPreconditionFailed, true
	case deliverykit.KindPermissionDenied:
		return http.StatusForbidden, true
	case deliverykit.KindAlreadyExists:
		return http.StatusUnprocessableEntity, true
	case deliverykit.KindConflict:
		return http.StatusConflict, false
	}
	return http.StatusInternalServerError, false
}
