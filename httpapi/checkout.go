package httpapi

import (
	"context"
	_ "embed"
	"net/http"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/idempotency"
)

//go:embed openapi/checkout.json
var checkoutOpenAPI []byte

// widgetTokenHeader carries the widget token: a header rather than the URL,
// because URLs end up in access logs and browser history.
const widgetTokenHeader = "X-Widget-Token"

// checkoutCreateResponse is session.create's answer; token is the widget
// token, which existing clients read.
//
// Its fields are checkout.View's, tags aside, so that a view converts to
// it.
type checkoutCreateResponse struct {
	Session     checkout.Session `json:"session"`
	HTMLSnippet string           `json:"html_snippet"`
	Token       string           `json:"token"`
}

// checkoutViewResponse is the answer of session.update and session.get.
type checkoutViewResponse struct {
	Session     checkout.Session `json:"session"`
	HTMLSnippet string           `json:"html_snippet"`
}

// registerCheckout serves area C under /v1/siw with the Bearer key, plus,
// without a key, the OpenAPI document and the widget: its script and its
// endpoints (state, select, address), authenticated by the session's
// widget token.
func (s *server) registerCheckout(svc *checkout.Service) {
	h := checkoutHandlers{svc}
	a, base := areaCheckout, areaCheckout.base
	s.route(a, base+"/session.create", post(h.create))
	s.route(a, base+"/session.update", post(h.update))
	s.route(a, base+"/session.complete", post(h.complete))
	s.route(a, base+"/session.createFromOrder", post(h.createFromOrder))
	s.route(a, base+"/sessions_summaries.list", get(h.summaries))
	s.route(a, base+"/session.get", get(h.get))
	s.routePublic(a, base+"/_/swagger.json", get(sharedDocument(checkoutOpenAPI)))
	s.routePublic(a, widgetScript.path, getOrHead(widgetScript.serve))
	s.routePublic(a, widgetScriptHashed.path, getOrHead(widgetScriptHashed.serve))
	s.routePublic(a, base+"/_/widget/state", methods{http.MethodGet: widgetCORS(h.widgetState), http.MethodOptions: widgetPreflight})
	s.routePublic(a, base+"/_/widget/select", methods{http.MethodPost: widgetCORS(h.widgetSelect), http.MethodOptions: widgetPreflight})
	s.routePublic(a, base+"/_/widget/address", methods{http.MethodPost: widgetCORS(h.widgetAddress), http.MethodOptions: widgetPreflight})
}

// checkoutHandlers are area C's endpoints. The snippet in their answers
// loads the widget from the service's configured base
// (checkout.Options.WidgetBaseURL), never from the request's Host header,
// which the caller chooses.
type checkoutHandlers struct{ svc *checkout.Service }

func (h checkoutHandlers) create(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CreateRequest
	return handle(w, r, site, &req, nil, h.createSession)
}

// createSession answers session.create with the widget token, which
// existing clients read.
func (h checkoutHandlers) createSession(ctx context.Context, site string, req checkout.CreateRequest) (*checkoutCreateResponse, error) {
	v, err := h.svc.Create(ctx, site, req)
	if err != nil {
		return nil, err
	}
	// The view itself, read with the answer's tags (the token always on
	// the wire): the fields are the view's, so no copy of the session.
	return (*checkoutCreateResponse)(v), nil
}

func (h checkoutHandlers) update(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.UpdateRequest
	return handle(w, r, site, &req, nil, h.updateSession)
}

func (h checkoutHandlers) updateSession(ctx context.Context, site string, req checkout.UpdateRequest) (*checkoutViewResponse, error) {
	return viewAnswer(h.svc.Update(ctx, site, req))
}

func (h checkoutHandlers) complete(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CompleteRequest
	return handle(w, r, site, &req, nil, h.svc.Complete)
}

func (h checkoutHandlers) createFromOrder(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CreateFromOrderRequest
	return handle(w, r, site, &req, nil, h.createSessionFromOrder)
}

func (h checkoutHandlers) createSessionFromOrder(ctx context.Context, site string, req checkout.CreateFromOrderRequest) (*checkoutViewResponse, error) {
	return viewAnswer(h.svc.CreateFromOrder(ctx, site, req))
}

func (h checkoutHandlers) summaries(w http.ResponseWriter, r *http.Request, site string) error {
	return respond(w, r, site, "", r.URL.Query().Get("tos_id"), h.svc.Summaries)
}

// get answers session.get with the rendering of the session's stored
// version that the service keeps while the session is unchanged
// (checkout.Service.GetRendered): the same bytes writeJSON writes for
// checkoutViewResponse, without building or encoding them again.
func (h checkoutHandlers) get(w http.ResponseWriter, r *http.Request, site string) error {
	ans, err := h.svc.GetRendered(r.Context(), site, r.URL.Query().Get("id"), checkoutViewRenderer)
	if err != nil {
		return err
	}
	writeKept(w, ans.Len(), ans)
	return nil
}

// checkoutViewRenderer renders session.get's answer as writeJSON encodes
// it (encodeTo, which the package's tests hold to encoding/json).
var checkoutViewRenderer = checkout.NewRenderer(func(v *checkout.View) ([]byte, error) {
	return keptJSON(&checkoutViewResponse{Session: v.Session, HTMLSnippet: v.HTMLSnippet})
})

// viewAnswer is the answer of session.update, session.createFromOrder and
// session.get.
func viewAnswer(v *checkout.View, err error) (*checkoutViewResponse, error) {
	if err != nil {
		return nil, err
	}
	return &checkoutViewResponse{Session: v.Session, HTMLSnippet: v.HTMLSnippet}, nil
}

// The widget script, compressed for browsers that take it. Snippets name
// its content-addressed URL, which never changes meaning and is cached for
// a year; the plain URL, for pages that name it directly, is revalidated
// after five minutes (a 304 by its ETag).
var (
	widgetScript = newStaticAsset(areaCheckout.base+"/_/widget.js", "text/javascript; charset=utf-8",
		checkout.WidgetJS, "public, max-age=300")
	widgetScriptHashed = newStaticAsset(areaCheckout.base+"/_/"+checkout.WidgetScriptName, "text/javascript; charset=utf-8",
		checkout.WidgetJS, "public, max-age=31536000, immutable")
)

// widgetState and widgetSelect are the widget's calls. Their credential is
// the session's widget token, which reaches that one session.
func (h checkoutHandlers) widgetState(w http.ResponseWriter, r *http.Request, _ string) error {
	st, err := h.svc.WidgetState(r.Context(), r.Header.Get(widgetTokenHeader))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, st)
	return nil
}

func (h checkoutHandlers) widgetSelect(w http.ResponseWriter, r *http.Request, _ string) error {
	var req checkout.SelectRequest
	return handle(w, r, "", &req, nil, func(ctx context.Context, _ string, req checkout.SelectRequest) (*checkout.WidgetState, error) {
		return h.svc.Select(ctx, r.Header.Get(widgetTokenHeader), req)
	})
}

// widgetAddress records the addresses the shopper entered in the widget's
// form (sessions that collect them).
func (h checkoutHandlers) widgetAddress(w http.ResponseWriter, r *http.Request, _ string) error {
	var req checkout.AddressRequest
	return handle(w, r, "", &req, nil, func(ctx context.Context, _ string, req checkout.AddressRequest) (*checkout.WidgetState, error) {
		return h.svc.SaveAddresses(ctx, r.Header.Get(widgetTokenHeader), req)
	})
}

// widgetCORS lets the widget call: it runs on the merchant's pages,
// another origin, so its calls are cross-origin and carry a custom header,
// and browsers ask first (OPTIONS). No cookies are involved; the token is
// the credential, so any origin may call. A widget's POST may carry an
// Idempotency-Key, and its script may read whether an answer was a replay.
func widgetCORS(h endpoint) endpoint {
	return func(w http.ResponseWriter, r *http.Request, site string) error {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Origin", "*")
		hd.Set("Access-Control-Allow-Headers", widgetTokenHeader+", Content-Type, "+idempotency.Header)
		hd.Set("Access-Control-Expose-Headers", idempotency.ReplayedHeader)
		hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		hd.Set("Access-Control-Max-Age", "600")
		hd.Set("Cache-Control", "no-store")
		return h(w, r, site)
	}
}

// widgetPreflight answers the browser's question before a widget call.
var widgetPreflight = widgetCORS(func(w http.ResponseWriter, _ *http.Request, _ string) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
})
