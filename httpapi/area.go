package httpapi

import (
	"encoding/base64"
	"net/http"
	"sort"
	"strings"

	"github.com/deliverykit/deliverykit"
)

// authScheme is how an area carries the API key.
type authScheme uint8

const (
	// schemeBearerBase64: "Authorization: Bearer <base64(key)>" (areas A, B, C, F).
	schemeBearerBase64 authScheme = iota
	// schemeAuthorizationKey: "authorization: <key>", "Bearer <key>" also accepted (area D).
	schemeAuthorizationKey
	// schemeAPIKeyHeader: "x-api-key: <key>" (area E).
	schemeAPIKeyHeader
)

// area is one interface area of the spec: its base path, error shape and
// authentication.
type area struct {
	name   string
	base   string
	style  errorStyle
	scheme authScheme
	// keyless areas ignore Idempotency-Key: test mode's controls, whose
	// answers (a new site's key) must not be stored.
	keyless bool
}

var (
	areaTracking = area{name: "tracking", base: "/v1/delivery_tracking", style: styleREST, scheme: schemeBearerBase64}
	areaCheckout = area{name: "checkout", base: "/v1/siw", style: styleREST, scheme: schemeBearerBase64}
	areaSession  = area{name: "session", base: "/delivery", style: styleRPC, scheme: schemeAuthorizationKey}
	areaReturns  = area{name: "returns", base: "/returns", style: styleSpring, scheme: schemeAPIKeyHeader}
	areaShipment = area{name: "shipment", base: "/v1/som", style: styleREST, scheme: schemeBearerBase64}

	areas = []area{areaTracking, areaCheckout, areaSession, areaReturns, areaShipment, areaDeliveryCheckout, areaTest}
)

// areaDeliveryCheckout is area C's newer API generation: the same
// sessions and authentication under another base, with the generation's
// error body (details is an object).
var areaDeliveryCheckout = area{name: "delivery_checkout", base: "/v1/delivery_checkout", style: styleCheckout2, scheme: schemeBearerBase64}

// endpoint handles one method of one path. site is the authenticated
// caller's site ("" on public routes). A returned error is written in the
// area's shape; an endpoint that returns an error must not have written.
type endpoint func(w http.ResponseWriter, r *http.Request, site string) error

// route registers the methods of one path pattern (relative to the mux, so
// it includes the area base) behind the area's authentication. A method not
// in methods is answered 405 with an Allow header, in the area's shape; a nil
// map answers 404 after authentication (the area's catch-all).
func (s *server) route(a area, pattern string, methods map[string]endpoint) {
	s.note(pattern, methods)
	s.mux.Handle(pattern, s.dispatch(a, pattern, methods, true))
}

// note keeps the route's methods for the tests that walk every route.
func (s *server) note(pattern string, methods map[string]endpoint) {
	for m := range methods {
		s.routes = append(s.routes, m+" "+pattern)
	}
}

// routePublic registers routes that take no API key: customer pages, the
// widget (which carries its own token) and the customer return form.
func (s *server) routePublic(a area, pattern string, methods map[string]endpoint) {
	s.note(pattern, methods)
	s.mux.Handle(pattern, s.dispatch(a, pattern, methods, false))
}

// dispatch authenticates, applies the rate limits and calls the method's
// endpoint. Rate limits come before anything that reads the body or the
// store: an authenticated request counts against its site; a request
// without a key, or with a refused one, against its client address; a
// request carrying a widget token also against that token, so neither
// many addresses nor many tokens get a caller further.
func (s *server) dispatch(a area, pattern string, methods map[string]endpoint, authenticated bool) http.Handler {
	headers := routeHeaders[pattern]
	allow := make([]string, 0, len(methods))
	for m := range methods {
		allow = append(allow, m)
	}
	sort.Strings(allow)
	allowHeader := strings.Join(allow, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := requestInfoFrom(r.Context())
		info.style = a.style
		info.area, info.route = a.name, pattern
		info.headers = headers
		var site string
		if authenticated {
			var ok bool
			site, ok = s.authenticate(a, r)
			if !ok {
				if s.limitAddress(w, r, a.style) {
					s.writeError(w, r, a.style, deliverykit.E(deliverykit.KindUnauthenticated, "missing or invalid API key"))
				}
				return
			}
			info.site = site
			if !s.limit(w, r, a.style, s.limits.site, site) {
				return
			}
		} else {
			if !s.limitAddress(w, r, a.style) {
				return
			}
			if tok := r.Header.Get(widgetTokenHeader); tok != "" && !s.limit(w, r, a.style, s.limits.token, tok) {
				return
			}
		}
		if methods == nil {
			s.writeError(w, r, a.style, deliverykit.E(deliverykit.KindNotFound, "no such endpoint: "+r.URL.Path))
			return
		}
		h, ok := methods[r.Method]
		if !ok {
			w.Header().Set("Allow", allowHeader)
			s.writeWire(w, r, a.style, wireError{
				status:  http.StatusMethodNotAllowed,
				kind:    "method not allowed",
				rpcCode: rpcUnimplemented,
				message: r.Method + " is not allowed here; allowed: " + allowHeader,
			})
			return
		}
		if !a.keyless && s.idempotent(r) {
			s.serveIdempotent(w, r, a, site, h)
			return
		}
		if err := h(w, r, site); err != nil {
			s.writeError(w, r, a.style, err)
		}
	})
}

// authenticate reads the area's credential and returns the caller's site.
func (s *server) authenticate(a area, r *http.Request) (string, bool) {
	var key string
	switch a.scheme {
	case schemeBearerBase64:
		v, ok := cutBearer(r.Header.Get("Authorization"))
		if !ok {
			return "", false
		}
		key, ok = decodeBase64(v)
		if !ok {
			return "", false
		}
	case schemeAuthorizationKey:
		key = strings.TrimSpace(r.Header.Get("Authorization"))
		if v, ok := cutBearer(key); ok {
			key = v
		}
	case schemeAPIKeyHeader:
		key = strings.TrimSpace(r.Header.Get("X-Api-Key"))
	}
	if site, ok := s.keys.Authenticate(key); ok || s.testSites == nil || a.name != areaTest.name {
		return site, ok
	}
	// A test site's key is known here on /v1/test/ only: its other
	// requests go to the site's own deliverykit (routeTestSites).
	return s.testSites.Authenticate(r.Context(), key)
}

// cutBearer returns the credential after a case-insensitive "Bearer " prefix.
func cutBearer(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	return strings.TrimSpace(h[len(prefix):]), true
}

// decodeBase64 accepts padded and unpadded, standard and URL alphabets:
// client libraries differ, and all of them mean the same key.
//
// A key of up to 128 bytes is decoded on the stack, so that the key
// string is its only allocation (DecodeString's slice was a second, on
// every authenticated request); a longer one is decoded by DecodeString.
func decodeBase64(s string) (string, bool) {
	var buf [128]byte
	for _, enc := range [...]*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if enc.DecodedLen(len(s)) > len(buf) {
			if b, err := enc.DecodeString(s); err == nil {
				return string(b), true
			}
			continue
		}
		if n, err := enc.Decode(buf[:], []byte(s)); err == nil {
			return string(buf[:n]), true
		}
	}
	return "", false
}
