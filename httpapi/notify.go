package httpapi

import (
	"net/http"

	"github.com/deliverykit/deliverykit/notify"
)

// registerNotify serves area B (spec §4.2) under /v1/delivery_tracking with
// the tracking area's key and error shape.
func (s *server) registerNotify(svc *notify.Service) {
	base := areaTracking.base
	s.route(areaTracking, base+"/notifications", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			res, err := svc.List(r.Context(), site, q.Get("external_id"))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaTracking, base+"/notification.retrigger", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req notify.RetriggerRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			if err := checkSite(site, req.SiteID, "site_id"); err != nil {
				return err
			}
			id, err := svc.Retrigger(r.Context(), site, req.NotificationID)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, notify.RetriggerResponse{NotificationID: id})
			return nil
		},
	})
}
