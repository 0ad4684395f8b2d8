package httpapi

import (
	"context"
	_ "embed"
	"net/http"

	"github.com/deliverykit/deliverykit/checkout"
)

// The newer generation of the checkout API, served under
// /v1/delivery_checkout from the same checkout.Service as /v1/siw: one
// stored session, two views (checkout/gen2.go maps a session to this
// generation's shapes). Its OpenAPI document is generated from those
// types (delivery_checkout_openapi_test.go) and served at
// GET /v1/delivery_checkout/_/swagger.json without a key, where the
// generation's client generators look for it.
//
//go:embed openapi/delivery_checkout.json
var deliveryCheckoutOpenAPI []byte

// deliveryCheckoutCreateResponse is session.create's answer, with the
// widget token.
type deliveryCheckoutCreateResponse struct {
	Session     checkout.CheckoutSession `json:"session"`
	HTMLSnippet string                   `json:"html_snippet"`
	Token       string                   `json:"token"`
}

// deliveryCheckoutViewResponse is the answer of session.get, session.pull
// and session.update.
type deliveryCheckoutViewResponse struct {
	Session     checkout.CheckoutSession `json:"session"`
	HTMLSnippet string                   `json:"html_snippet"`
}

// registerDeliveryCheckout serves the newer generation with area C's
// authentication and the generation's error shape (styleCheckout2). Its widget is area C's (the snippet
// loads it from the service's widget base).
func (s *server) registerDeliveryCheckout(svc *checkout.Service) {
	h := deliveryCheckoutHandlers{svc}
	a, base := areaDeliveryCheckout, areaDeliveryCheckout.base
	s.route(a, base+"/session.create", post(h.create))
	s.route(a, base+"/session.get", get(h.get))
	s.route(a, base+"/session.pull", get(h.pull))
	s.route(a, base+"/session.update", post(h.update))
	s.route(a, base+"/session.complete", post(h.complete))
	s.route(a, base+"/sessions_summaries.list", get(h.summaries))
	s.routePublic(a, base+"/_/swagger.json", get(sharedDocument(deliveryCheckoutOpenAPI)))
}

// deliveryCheckoutHandlers are the newer generation's endpoints.
type deliveryCheckoutHandlers struct{ svc *checkout.Service }

func (h deliveryCheckoutHandlers) create(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CheckoutCreateRequest
	return handle(w, r, site, &req, nil, h.createSession)
}

func (h deliveryCheckoutHandlers) createSession(ctx context.Context, site string, req checkout.CheckoutCreateRequest) (*deliveryCheckoutCreateResponse, error) {
	v, err := h.svc.CreateCheckout(ctx, site, req)
	if err != nil {
		return nil, err
	}
	return &deliveryCheckoutCreateResponse{Session: v.Session, HTMLSnippet: v.HTMLSnippet, Token: v.Token}, nil
}

func (h deliveryCheckoutHandlers) get(w http.ResponseWriter, r *http.Request, site string) error {
	return respond(w, r, site, "", r.URL.Query().Get("checkout_session_id"), h.getSession)
}

func (h deliveryCheckoutHandlers) getSession(ctx context.Context, site, id string) (*deliveryCheckoutViewResponse, error) {
	return checkoutViewAnswer(h.svc.GetCheckout(ctx, site, id, ""))
}

func (h deliveryCheckoutHandlers) pull(w http.ResponseWriter, r *http.Request, site string) error {
	return respond(w, r, site, "", r.URL.Query().Get("checkout_session_id"), h.pullSession)
}

func (h deliveryCheckoutHandlers) pullSession(ctx context.Context, site, id string) (*deliveryCheckoutViewResponse, error) {
	return checkoutViewAnswer(h.svc.PullCheckout(ctx, site, id))
}

func (h deliveryCheckoutHandlers) update(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CheckoutUpdateRequest
	return handle(w, r, site, &req, nil, h.updateSession)
}

func (h deliveryCheckoutHandlers) updateSession(ctx context.Context, site string, req checkout.CheckoutUpdateRequest) (*deliveryCheckoutViewResponse, error) {
	return checkoutViewAnswer(h.svc.UpdateCheckout(ctx, site, req))
}

func (h deliveryCheckoutHandlers) complete(w http.ResponseWriter, r *http.Request, site string) error {
	var req checkout.CheckoutCompleteRequest
	return handle(w, r, site, &req, nil, h.svc.CompleteCheckout)
}

func (h deliveryCheckoutHandlers) summaries(w http.ResponseWriter, r *http.Request, site string) error {
	return respond(w, r, site, "", r.URL.Query().Get("tos_id"), h.svc.CheckoutSummaries)
}

// checkoutViewAnswer is the answer of session.get, session.pull and
// session.update: the session and its snippet, without the token.
func checkoutViewAnswer(v *checkout.CheckoutView, err error) (*deliveryCheckoutViewResponse, error) {
	if err != nil {
		return nil, err
	}
	return &deliveryCheckoutViewResponse{Session: v.Session, HTMLSnippet: v.HTMLSnippet}, nil
}
