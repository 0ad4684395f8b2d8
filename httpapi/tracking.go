package httpapi

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/tracking/page"
)

// trackingOpenAPI is the OpenAPI document of areas A and B, generated from
// the wire types by tracking_openapi_test.go.
//
//go:embed openapi/tracking.json
var trackingOpenAPI []byte

// registerTracking serves area A under /v1/delivery_tracking, plus the
// extension endpoint POST /parcel.event for carrier events and the public
// customer tracking page. Every API route takes the Bearer key; site_id in
// a body or query may be omitted (it is the key's site) and naming another
// site is 403.
func (s *server) registerTracking(svc *tracking.Service) {
	h := trackingHandlers{svc: svc, now: s.now}
	a, base := areaTracking, areaTracking.base
	s.route(a, base+"/order", post(h.createOrder))
	s.route(a, base+"/orders", get(h.orders))
	s.route(a, base+"/parcel", post(h.createParcel))
	s.route(a, base+"/parcels", get(h.parcels))
	s.route(a, base+"/generate_tracking_page_link", post(h.generateLink))
	// Extension: carrier events. The answer is an empty object, like
	// POST /parcel.
	s.route(a, base+"/parcel.event", post(h.recordEvent))
	// Extension: the merchant cancelled items of an order.
	s.route(a, base+"/order.lines_cancelled", post(h.cancelLines))
	// Extension: the customer tracking page the portal link opens. HEAD
	// answers as GET, without the body.
	s.routePublic(a, tracking.PagePath+"{token}", methods{http.MethodGet: h.customerPage, http.MethodHead: h.customerPage})
	s.routePublic(a, base+"/_/openapi.json", get(sharedDocument(trackingOpenAPI)))
}

// trackingHandlers are area A's endpoints.
type trackingHandlers struct {
	svc *tracking.Service
	now func() time.Time // the time the page shows delays against
}

func (h trackingHandlers) createOrder(w http.ResponseWriter, r *http.Request, site string) error {
	var req tracking.CreateTrackingOrderRequest
	return handle(w, r, site, &req, &req.SiteID, func(ctx context.Context, site string, req tracking.CreateTrackingOrderRequest) (tracking.CreateTrackingOrderResponse, error) {
		id, err := h.svc.CreateOrder(ctx, site, req)
		return tracking.CreateTrackingOrderResponse{ID: id}, err
	})
}

func (h trackingHandlers) orders(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	return respond(w, r, site, q.Get("site_id"), tracking.OrdersQuery{
		ExternalID: q.Get("external_id"), Email: q.Get("email"), Locale: q.Get("locale"),
		Token: q.Get("token"), TrackingNumber: q.Get("tracking_number"),
	}, h.svc.Orders)
}

func (h trackingHandlers) createParcel(w http.ResponseWriter, r *http.Request, site string) error {
	var req tracking.CreateParcelRequest
	return handle(w, r, site, &req, &req.SiteID, emptyAnswer(h.svc.CreateParcel))
}

// parcels answers with the rendering the service keeps while the parcels,
// their order and the clock's side of every delay threshold are unchanged
// (tracking.Service.ParcelsRendered): the same bytes writeJSON writes for
// the answer, without building or encoding it again.
//
// Its query is read by queryFirst, without the map of every parameter.
func (h trackingHandlers) parcels(w http.ResponseWriter, r *http.Request, site string) error {
	var q [4]string
	queryFirst(r, parcelsParams, q[:])
	if err := checkSite(site, q[0]); err != nil {
		return err
	}
	ans, err := h.svc.ParcelsRendered(r.Context(), site, tracking.ParcelsQuery{
		ExternalID: q[1], TrackingNumber: q[2], Token: q[3],
	}, parcelsJSON)
	if err != nil {
		return err
	}
	writeKept(w, ans.Len(), ans)
	return nil
}

// parcelsParams are the query parameters of GET /parcels, in the order
// parcels reads them.
var parcelsParams = []string{"site_id", "external_id", "tracking_number", "token"}

// parcelsJSON renders GET /parcels' answer as writeJSON encodes it.
var parcelsJSON = tracking.NewParcelsRenderer(func(ans *tracking.GetTrackingParcelsResponse) ([]byte, error) {
	return keptJSON(ans)
})

func (h trackingHandlers) generateLink(w http.ResponseWriter, r *http.Request, site string) error {
	var req tracking.GenerateTrackingPageLinkRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.GenerateLink)
}

func (h trackingHandlers) recordEvent(w http.ResponseWriter, r *http.Request, site string) error {
	var ev tracking.Event
	return handle(w, r, site, &ev, &ev.SiteID, emptyAnswer(h.svc.RecordEvent))
}

func (h trackingHandlers) cancelLines(w http.ResponseWriter, r *http.Request, site string) error {
	var req tracking.CancelOrderLinesRequest
	return handle(w, r, site, &req, &req.SiteID, emptyAnswer(h.svc.CancelOrderLines))
}

// customerPage is the customer tracking page. It is public: the token in
// the path (128 random bits) is the credential, and it reaches one order
// only.
func (h trackingHandlers) customerPage(w http.ResponseWriter, r *http.Request, _ string) error {
	link, accept := r.URL.Query().Get("locale"), r.Header.Get("Accept-Language")
	order, err := h.svc.OrderByLink(r.Context(), r.PathValue("token"), "", r.URL.Query().Get("tracking_number"))
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
		err = page.Render(&buf, order, page.Language(link, order.Locale, accept), page.Options{Now: h.now()})
	}
	if err != nil {
		return err
	}
	writeHTML(w, r, status, buf.Bytes())
	return nil
}

// writeHTML writes a customer page. The page has no script and loads
// nothing from elsewhere; the headers say so to the browser, keep the token
// out of shared caches and Referer headers, and forbid framing. The
// customer's own browser may keep the page but asks again each time
// (private, no-cache): the ETag makes an unchanged page a 304. Error
// pages are not kept at all.
func writeHTML(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", pageCacheControl(status))
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; frame-ancestors 'none'")
	writePage(w, r, status, body)
}

// pageCacheControl is the Cache-Control of a customer page answered with
// status: a page may be kept by the customer's browser and revalidated;
// a not-found or expired page is not kept.
func pageCacheControl(status int) string {
	if status == http.StatusOK {
		return "private, no-cache"
	}
	return "no-store"
}
