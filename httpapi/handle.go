package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit/internal/validation"
)

// Every JSON endpoint takes one path, whatever the area: decode the
// request, refuse a site it names that is not the key's, call the service
// with the key's site, encode the answer. serve is that path; handle,
// handleCreate and respond enter it with a request from the body or from
// the URL. A handler names its request and its service call, and returns
// errors without writing them: dispatch writes them in the area's shape.

// serve refuses a given site other than the key's ("" means the key's),
// calls fn with the key's site and writes its answer as JSON with status.
func serve[Req, Resp any](w http.ResponseWriter, r *http.Request, status int, site, given string, req Req, fn func(context.Context, string, Req) (Resp, error)) error {
	if err := checkSite(site, given); err != nil {
		return err
	}
	res, err := fn(r.Context(), site, req)
	if err != nil {
		return err
	}
	writeJSON(w, status, res)
	return nil
}

// handle decodes the request body into req and serves it with 200.
// siteID points at the field of req that names a site (its site_id), nil
// when the request names none.
func handle[Req, Resp any](w http.ResponseWriter, r *http.Request, site string, req *Req, siteID *string, fn func(context.Context, string, Req) (Resp, error)) error {
	if err := decodeJSON(r, req); err != nil {
		return err
	}
	given := ""
	if siteID != nil {
		given = *siteID
	}
	return serve(w, r, http.StatusOK, site, given, *req, fn)
}

// handleCreate is handle for a request that makes a resource and names no
// site: the answer is 201 Created.
func handleCreate[Req, Resp any](w http.ResponseWriter, r *http.Request, site string, req *Req, fn func(context.Context, string, Req) (Resp, error)) error {
	if err := decodeJSON(r, req); err != nil {
		return err
	}
	return serve(w, r, http.StatusCreated, site, "", *req, fn)
}

// respond serves with 200 a request the handler read from the URL (its
// query or path); given is the site_id it names.
func respond[Req, Resp any](w http.ResponseWriter, r *http.Request, site, given string, req Req, fn func(context.Context, string, Req) (Resp, error)) error {
	return serve(w, r, http.StatusOK, site, given, req, fn)
}

// emptyAnswer adapts a service call that answers nothing: the endpoint
// answers an empty object.
func emptyAnswer[Req any](fn func(context.Context, string, Req) error) func(context.Context, string, Req) (struct{}, error) {
	return func(ctx context.Context, site string, req Req) (struct{}, error) {
		return struct{}{}, fn(ctx, site, req)
	}
}

// checkSite is the module's site rule (validation.SiteRule) worded for API
// callers, whose key names their site.
var checkSite = validation.SiteRule{
	Field:     "site_id",
	Message:   "the API key does not belong to this site",
	Violation: "is not the site of the API key",
}.Check

// methods is the routes of one path: an endpoint per HTTP method.
type methods = map[string]endpoint

// get and post are the routes of a path served by one method.
func get(h endpoint) methods  { return methods{http.MethodGet: h} }
func post(h endpoint) methods { return methods{http.MethodPost: h} }

// document serves a prepared JSON document (an area's OpenAPI document)
// with its length.
func document(body []byte) endpoint {
	return func(w http.ResponseWriter, _ *http.Request, _ string) error {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body)
		return nil
	}
}

// sharedDocument serves a prepared JSON document that pages of any origin
// may read (API explorers load it from elsewhere).
func sharedDocument(body []byte) endpoint {
	return func(w http.ResponseWriter, _ *http.Request, _ string) error {
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*")
		w.Write(body)
		return nil
	}
}
