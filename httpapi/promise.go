package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/promise"
)

// registerPromises serves the promise accuracy report under
// /v1/delivery_tracking, with the tracking area's key and error shape.
func (s *server) registerPromises(svc *promise.Service) {
	h := promiseHandlers{svc}
	a, base := areaTracking, areaTracking.base
	s.route(a, base+"/promise_accuracy", get(h.accuracy))
}

// promiseHandlers are the promise report's endpoints.
type promiseHandlers struct{ svc *promise.Service }

// maxDateParam bounds a from or to parameter before it is parsed: an RFC
// 3339 time with nanoseconds and an offset is 35 bytes.
const maxDateParam = 40

func (h promiseHandlers) accuracy(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	req := promise.ReportRequest{GroupBy: q.Get("group_by")}
	var err error
	if req.From, err = dateParam("from", q.Get("from")); err != nil {
		return err
	}
	if req.To, err = dateParam("to", q.Get("to")); err != nil {
		return err
	}
	return respond(w, r, site, q.Get("site_id"), req, func(ctx context.Context, site string, req promise.ReportRequest) (*promise.Report, error) {
		return h.svc.Report(ctx, site, req)
	})
}

// dateParam parses a date ("2026-11-01", UTC) or an RFC 3339 time; empty
// is the zero time (the report's default).
func dateParam(field, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if len(v) <= maxDateParam {
		if t, err := time.Parse(time.DateOnly, v); err == nil {
			return t, nil
		}
		if t, err := time.Parse(time.RFC3339, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, deliverykit.InvalidField(field, "date", "must be a date like 2026-11-01 or an RFC 3339 time")
}
