package httpapi

import (
	"context"
	"net/http"

	"github.com/deliverykit/deliverykit/notify"
)

// registerNotify serves area B under /v1/delivery_tracking with the
// tracking area's key and error shape.
func (s *server) registerNotify(svc *notify.Service) {
	h := notifyHandlers{svc}
	a, base := areaTracking, areaTracking.base
	s.route(a, base+"/notifications", get(h.list))
	s.route(a, base+"/notification.retrigger", post(h.retrigger))
}

// notifyHandlers are area B's endpoints.
type notifyHandlers struct{ svc *notify.Service }

func (h notifyHandlers) list(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	return respond(w, r, site, q.Get("site_id"), notify.ListQuery{ExternalID: q.Get("external_id"), TrackingNumber: q.Get("tracking_number")}, h.svc.ListNotifications)
}

func (h notifyHandlers) retrigger(w http.ResponseWriter, r *http.Request, site string) error {
	var req notify.RetriggerRequest
	return handle(w, r, site, &req, &req.SiteID, func(ctx context.Context, site string, req notify.RetriggerRequest) (notify.RetriggerResponse, error) {
		id, err := h.svc.Retrigger(ctx, site, req.NotificationID)
		return notify.RetriggerResponse{NotificationID: id}, err
	})
}
