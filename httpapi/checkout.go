package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/deliverykit/deliverykit/checkout"
)

//go:embed openapi/checkout.json
var checkoutOpenAPI []byte

// widgetTokenHeader carries the widget token: a header rather than the URL,
// because URLs end up in access logs and browser history.
const widgetTokenHeader = "X-Widget-Token"

// checkoutCreateResponse is session.create's answer; token is the widget
// token, which existing clients read.
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

// registerCheckout serves area C (spec §4.3) under /v1/siw with the Bearer
// key, plus, without a key, the OpenAPI document and the widget: its script
// and its two endpoints, authenticated by the session's widget token.
func (s *server) registerCheckout(svc *checkout.Service) {
	a := areaCheckout
	base := a.base
	// The snippet loads the widget from the service's configured base
	// (checkout.Options.WidgetBaseURL), never from the request's Host
	// header, which the caller chooses.
	snippet := func(_ *http.Request, v *checkout.View) string { return v.HTMLSnippet }
	s.route(a, base+"/session.create", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req checkout.CreateRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			v, err := svc.Create(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, checkoutCreateResponse{Session: v.Session, HTMLSnippet: snippet(r, v), Token: v.Token})
			return nil
		},
	})
	s.route(a, base+"/session.update", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req checkout.UpdateRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			v, err := svc.Update(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, checkoutViewResponse{Session: v.Session, HTMLSnippet: snippet(r, v)})
			return nil
		},
	})
	s.route(a, base+"/session.complete", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req checkout.CompleteRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			c, err := svc.Complete(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, c)
			return nil
		},
	})
	s.route(a, base+"/session.createFromOrder", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var req checkout.CreateFromOrderRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			v, err := svc.CreateFromOrder(r.Context(), site, req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, checkoutViewResponse{Session: v.Session, HTMLSnippet: snippet(r, v)})
			return nil
		},
	})
	s.route(a, base+"/sessions_summaries.list", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			sum, err := svc.Summaries(r.Context(), site, r.URL.Query().Get("tos_id"))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, sum)
			return nil
		},
	})
	s.route(a, base+"/session.get", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			v, err := svc.Get(r.Context(), site, r.URL.Query().Get("id"))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, checkoutViewResponse{Session: v.Session, HTMLSnippet: snippet(r, v)})
			return nil
		},
	})

	s.routePublic(a, base+"/_/swagger.json", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Write(checkoutOpenAPI)
			return nil
		},
	})
	s.routePublic(a, base+"/_/widget.js", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			h := w.Header()
			h.Set("Content-Type", "text/javascript; charset=utf-8")
			h.Set("Cache-Control", "public, max-age=300")
			h.Set("X-Content-Type-Options", "nosniff")
			w.Write(checkout.WidgetJS)
			return nil
		},
	})
	// The widget runs on the merchant's pages, another origin: its calls
	// are cross-origin and carry a custom header, so browsers ask first
	// (OPTIONS). No cookies are involved; the token is the credential,
	// so any origin may call.
	cors := func(h endpoint) endpoint {
		return func(w http.ResponseWriter, r *http.Request, site string) error {
			hd := w.Header()
			hd.Set("Access-Control-Allow-Origin", "*")
			hd.Set("Access-Control-Allow-Headers", widgetTokenHeader+", Content-Type")
			hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			hd.Set("Access-Control-Max-Age", "600")
			hd.Set("Cache-Control", "no-store")
			return h(w, r, site)
		}
	}
	preflight := cors(func(w http.ResponseWriter, r *http.Request, _ string) error {
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
	s.routePublic(a, base+"/_/widget/state", map[string]endpoint{
		http.MethodGet: cors(func(w http.ResponseWriter, r *http.Request, _ string) error {
			st, err := svc.WidgetState(r.Context(), r.Header.Get(widgetTokenHeader))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, st)
			return nil
		}),
		http.MethodOptions: preflight,
	})
	s.routePublic(a, base+"/_/widget/select", map[string]endpoint{
		http.MethodPost: cors(func(w http.ResponseWriter, r *http.Request, _ string) error {
			var req checkout.SelectRequest
			if err := decodeJSON(r, &req); err != nil {
				return err
			}
			st, err := svc.Select(r.Context(), r.Header.Get(widgetTokenHeader), req)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, st)
			return nil
		}),
		http.MethodOptions: preflight,
	})
}
