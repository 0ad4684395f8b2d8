package httpapi

import (
	"bytes"
	_ "embed"
	"errors"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/tracking/page"
)

// trackingOpenAPI is the OpenAPI document of areas A and B, generated from
// the wire types by tracking_openapi_test.go.
//
//go:embed openapi/tracking.json
var trackingOpenAPI []byte

// registerTracking serves area A (spec §4.1) under /v1/delivery_tracking,
// plus the extension endpoint POST /parcel.event for carrier events. Every
// route takes the Bearer key; site_id in a body or query may be omitted (it
// is the key's site) and naming another site is 403.
func (s *server) registerTracking(svc *tracking.Service) {
	base := areaTracking.base
	s.route(areaTracking, base+"/order", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req tracking.CreateTrackingOrderRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			if err := checkSite(site, req.SiteID, "site_id"); err != nil {
				return err
			}
			id, err := svc.CreateOrder(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, tracking.CreateTrackingOrderResponse{ID: id})
			return nil
		},
	})
	s.route(areaTracking, base+"/orders", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			res, err := svc.Orders(r.Context(), site, tracking.OrdersQuery{
				ExternalID: q.Get("external_id"), Email: q.Get("email"), Locale: q.Get("locale"),
			})
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaTracking, base+"/parcel", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req tracking.CreateParcelRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			if err := checkSite(site, req.SiteID, "site_id"); err != nil {
				return err
			}
			if err := svc.CreateParcel(r.Context(), site, req); err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, struct{}{})
			return nil
		},
	})
	s.route(areaTracking, base+"/parcels", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			res, err := svc.Parcels(r.Context(), site, tracking.ParcelsQuery{
				ExternalID: q.Get("external_id"), TrackingNumber: q.Get("tracking_number"), Token: q.Get("token"),
			})
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaTracking, base+"/generate_tracking_page_link", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req tracking.GenerateTrackingPageLinkRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			if err := checkSite(site, req.SiteID, "site_id"); err != nil {
				return err
			}
			res, err := svc.GenerateLink(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	// Extension: the customer tracking page the portal link opens. It is
	// public: the token in the path (128 random bits) is the credential,
	// and it reaches one order only. HEAD answers as GET, without the body.
	trackingPage := func(w http.ResponseWriter, r *http.Request, _ string) error {
		link, accept := r.URL.Query().Get("locale"), r.Header.Get("Accept-Language")
		order, err := svc.OrderByToken(r.Context(), r.PathValue("token"), "")
		var buf bytes.Buffer
		status := http.StatusOK
		switch {
		case errors.Is(err, tracking.ErrLinkExpired):
			// 410: the link existed and will not work again; the
			// page tells the customer to ask for a new one.
			status = http.StatusGone
			err = page.RenderExpired(&buf, page.Language(link, "", accept))
		case errors.Is(err, deliverykit.ErrNotFound):
			status = http.StatusNotFound
			err = page.RenderNotFound(&buf, page.Language(link, "", accept))
		case err != nil:
			return err
		default:
			err = page.Render(&buf, order, page.Language(link, order.Locale, accept), page.Options{Now: s.now()})
		}
		if err != nil {
			return err
		}
		if r.Method == http.MethodHead {
			w = headWriter{w}
		}
		writeHTML(w, status, buf.Bytes())
		return nil
	}
	s.routePublic(areaTracking, tracking.PagePath+"{token}", map[string]endpoint{
		http.MethodGet:  trackingPage,
		http.MethodHead: trackingPage,
	})
	s.routePublic(areaTracking, base+"/_/openapi.json", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Write(trackingOpenAPI)
			return nil
		},
	})
	// Extension: carrier events. The answer is an empty object, like
	// POST /parcel.
	s.route(areaTracking, base+"/parcel.event", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var ev tracking.Event
			if err := decodeJSON(r, &ev); err != nil {
				return err
			}
			if err := checkSite(site, ev.SiteID, "site_id"); err != nil {
				return err
			}
			if err := svc.RecordEvent(r.Context(), site, ev); err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, struct{}{})
			return nil
		},
	})
}

// writeHTML writes a customer page. The page has no script and loads
// nothing from elsewhere; the headers say so to the browser, keep the token
// out of caches and Referer headers, and forbid framing.
func writeHTML(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'")
	w.WriteHeader(status)
	w.Write(body)
}

// headWriter answers a HEAD request: the headers GET would send, the
// Content-Length of its body included, and no body.
type headWriter struct{ http.ResponseWriter }

func (headWriter) Write(b []byte) (int, error) { return len(b), nil }
