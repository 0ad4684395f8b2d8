package httpapi

import (
	"net/http"
	"strings"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/tracking"
)

// headerPolicy is the set of security headers a response gets. They are
// set when the response's header is written, after the handler, so that a
// handler cannot forget them; a handler's own Content-Security-Policy is
// kept (it knows what its page loads) but always gets frame-ancestors.
type headerPolicy uint8

const (
	// policyAPI is every JSON answer: nothing in it may run, be sniffed
	// as another type or be framed if a browser opens it as a page.
	policyAPI headerPolicy = iota
	// policyCustomerPage is a page a customer opens from a link with a
	// token: never framed (clickjacking), never cached, and the token
	// never sent on as a Referer.
	policyCustomerPage
	// policyWidgetScript is the checkout widget's script, which merchants
	// load into their own pages with a script tag. Content-Security-Policy
	// and X-Frame-Options govern documents, and the script runs in the
	// merchant's document under the merchant's policy, so neither is sent:
	// they would do nothing here and suggest otherwise. What matters is
	// that browsers run it only as JavaScript (nosniff) and that pages
	// isolated with Cross-Origin-Embedder-Policy may still load it
	// (Cross-Origin-Resource-Policy: cross-origin).
	policyWidgetScript
	// policyDocsPage is a page of the API reference: it runs the
	// embedded reference viewer (scripts from this server only, the
	// styles the viewer injects, its search worker made from a blob) and
	// reads the documents from this server. Nothing from elsewhere loads,
	// and the page is not framed.
	policyDocsPage
	// policyPhoto is a complaint photo a customer uploaded: an image,
	// never a document, but whatever its bytes a browser that opens it
	// as a page runs nothing and loads nothing (sandbox), and it is not
	// framed.
	policyPhoto
	// policyConsole is a page of the merchant console: the console sets
	// its own policy (its stylesheet and forms, no script); it is never
	// framed whatever the console sends.
	policyConsole
)

// apiCSP forbids everything: a JSON body opened as a page shows as text.
const apiCSP = "default-src 'none'; frame-ancestors 'none'"

// customerPageCSP is the policy of a customer page that does not bring its
// own: no script, inline styles only, images from https and data URLs.
const customerPageCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsPageCSP is the policy of the API reference pages (policyDocsPage).
const docsPageCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// photoCSP is the policy of a complaint photo (policyPhoto).
const photoCSP = "sandbox; default-src 'none'"

// routeHeaders names the routes whose responses are not policyAPI, by the
// pattern they are registered with.
var routeHeaders = map[string]headerPolicy{
	tracking.PagePath + "{token}":                                policyCustomerPage,
	returns.StatusPagePath + "{token}":                           policyCustomerPage,
	returns.StatusPagePath + "{token}" + returns.StatusLabelPath: policyCustomerPage,
	areaCheckout.base + "/_/widget.js":                           policyWidgetScript,
	areaCheckout.base + "/_/" + checkout.WidgetScriptName:        policyWidgetScript,
	areaCheckout.base + "/_/widget/state":                        policyAPI,
	areaCheckout.base + "/_/widget/select":                       policyAPI,
	areaCheckout.base + "/_/widget/address":                      policyAPI,
	docsReferencePath:                                            policyDocsPage,
	docsReferencePath + "/{name}":                                policyDocsPage,
	returns.ComplaintImagePath + "{uuid}":                        policyPhoto,
}

// The header values, made once: apply runs on every answer, and
// Header.Set would allocate a slice per header. Each has length and
// capacity 1, so a Header.Add on one of them copies it rather than writing
// into the shared array.
var (
	hJSON        = []string{"application/json"}
	hNosniff     = []string{"nosniff"}
	hNoReferrer  = []string{"no-referrer"}
	hDeny        = []string{"DENY"}
	hNoStore     = []string{"no-store"}
	hAPICSP      = []string{apiCSP}
	hPageCSP     = []string{customerPageCSP}
	hCrossOrigin = []string{"cross-origin"}
	hAnyOrigin   = []string{"*"}
	hDocsCSP     = []string{docsPageCSP}
	hPhotoCSP    = []string{photoCSP}
)

// apply sets p's headers on h.
func (p headerPolicy) apply(h http.Header) {
	h["X-Content-Type-Options"] = hNosniff
	h["Referrer-Policy"] = hNoReferrer
	switch p {
	case policyAPI:
		h["Content-Security-Policy"] = hAPICSP
		h["X-Frame-Options"] = hDeny
	case policyCustomerPage:
		h["X-Frame-Options"] = hDeny
		// A page the customer may reload says so itself (private,
		// no-cache, with its ETag); anything else of a customer's
		// token stays out of every cache.
		if _, ok := h["Cache-Control"]; !ok {
			h["Cache-Control"] = hNoStore
		}
		switch csp := h.Get("Content-Security-Policy"); {
		case csp == "":
			h["Content-Security-Policy"] = hPageCSP
		case !strings.Contains(csp, "frame-ancestors"):
			h.Set("Content-Security-Policy", csp+"; frame-ancestors 'none'")
		}
	case policyWidgetScript:
		h["Cross-Origin-Resource-Policy"] = hCrossOrigin
		// The shop's own page-speed measurements may see how long
		// the widget took to load and how many bytes it cost.
		h["Timing-Allow-Origin"] = hAnyOrigin
	case policyDocsPage:
		h["Content-Security-Policy"] = hDocsCSP
		h["X-Frame-Options"] = hDeny
	case policyPhoto:
		h["Content-Security-Policy"] = hPhotoCSP
		h["X-Frame-Options"] = hDeny
	case policyConsole:
		h["X-Frame-Options"] = hDeny
		switch csp := h.Get("Content-Security-Policy"); {
		case csp == "":
			h["Content-Security-Policy"] = hAPICSP
		case !strings.Contains(csp, "frame-ancestors"):
			h.Set("Content-Security-Policy", csp+"; frame-ancestors 'none'")
		}
	}
}
