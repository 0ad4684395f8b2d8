package httpapi

import (
	_ "embed"
	"fmt"
	"net/http"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/testmode"
)

// areaTest is test mode's endpoints (package testmode): a test-mode site's
// key, or a test site's, with the REST areas' key and error shape.
var areaTest = area{name: "test", base: "/v1/test", style: styleREST, scheme: schemeBearerBase64, keyless: true}

// testOpenAPI is the OpenAPI 3 document of test mode, served at GET
// /v1/test/openapi.json without a key; test_openapi_test.go generates it.
//
//go:embed openapi/test.json
var testOpenAPI []byte

// registerTestSites serves /v1/test/… for the test-mode sites.
func (s *server) registerTestSites(svc *testmode.Service) {
	h := testHandlers{svc}
	base := areaTest.base
	s.routePublic(areaTest, base+"/openapi.json", get(document(testOpenAPI)))
	s.route(areaTest, base+"/sites", post(h.only(h.create)))
	s.route(areaTest, base+"/clock", get(h.only(h.clock)))
	s.route(areaTest, base+"/clock:advance", post(h.only(h.advance)))
	s.route(areaTest, base+"/events", post(h.only(h.emit)))
	s.route(areaTest, base+"/faults", methods{http.MethodGet: h.only(h.faults), http.MethodPost: h.only(h.setFaults)})
}

type testHandlers struct{ svc *testmode.Service }

// only answers 404, as if test mode were not there, to a live site's key.
func (h testHandlers) only(e endpoint) endpoint {
	return func(w http.ResponseWriter, r *http.Request, site string) error {
		if !h.svc.Allowed(r.Context(), site) {
			return deliverykit.E(deliverykit.KindNotFound, "no such endpoint: "+r.URL.Path)
		}
		return e(w, r, site)
	}
}

func (h testHandlers) create(w http.ResponseWriter, r *http.Request, site string) error {
	var req testmode.CreateRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	c, err := h.svc.Create(r.Context(), site, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func (h testHandlers) clock(w http.ResponseWriter, r *http.Request, site string) error {
	id := r.URL.Query().Get("site_id")
	if err := checkTestSiteID(id); err != nil {
		return err
	}
	v, err := h.svc.Now(r.Context(), site, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, v)
	return nil
}

// maxTestSiteID bounds a site_id before it is looked up.
const maxTestSiteID = 64

// checkTestSiteID refuses a site_id too long to be a test site's.
func checkTestSiteID(id string) error {
	if len(id) > maxTestSiteID {
		return deliverykit.InvalidField("site_id", "max", fmt.Sprintf("at most %d characters", maxTestSiteID))
	}
	return nil
}

func (h testHandlers) advance(w http.ResponseWriter, r *http.Request, site string) error {
	var req testmode.AdvanceRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := checkTestSiteID(req.SiteID); err != nil {
		return err
	}
	out, err := h.svc.Advance(r.Context(), site, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// emitRequest is POST /v1/test/events.
type emitRequest struct {
	SiteID string     `json:"site_id"`
	Type   event.Type `json:"type"`
}

func (h testHandlers) emit(w http.ResponseWriter, r *http.Request, site string) error {
	var req emitRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := checkTestSiteID(req.SiteID); err != nil {
		return err
	}
	out, err := h.svc.Emit(r.Context(), site, req.SiteID, req.Type)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h testHandlers) faults(w http.ResponseWriter, r *http.Request, site string) error {
	id := r.URL.Query().Get("site_id")
	if err := checkTestSiteID(id); err != nil {
		return err
	}
	out, err := h.svc.ReadFaults(r.Context(), site, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (h testHandlers) setFaults(w http.ResponseWriter, r *http.Request, site string) error {
	var req testmode.FaultsRequest
	if err := decodeJSON(r, &req); err != nil {
		return err
	}
	if err := checkTestSiteID(req.SiteID); err != nil {
		return err
	}
	out, err := h.svc.SetFaults(r.Context(), site, req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// testSitePath starts the paths of a test site's pages and widget (its
// links): "/test/" + site id + the usual path.
const testSitePath = "/test/"

// routeTestSites sends a test site's requests to the site's own
// deliverykit: those with a test site's key, and those under its path
// (the links of its pages and widget). Everything else, /v1/test/
// included, goes to next. A live request pays a few prefix checks.
func routeTestSites(svc *testmode.Service, next http.Handler) http.Handler {
	testArea := areaTest.base + "/" // once, not on every request
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, testArea) {
			next.ServeHTTP(w, r)
			return
		}
		if rest, ok := strings.CutPrefix(r.URL.Path, testSitePath); ok {
			site, path, _ := strings.Cut(rest, "/")
			if testmode.IsTestSite(site) && len(site) <= maxTestSiteID {
				r2 := r.Clone(r.Context())
				r2.URL.Path, r2.URL.RawPath = "/"+path, ""
				serveTestSite(svc, w, r2, site, next)
				return
			}
		}
		if key, ok := testKey(r); ok {
			if site, ok := svc.Authenticate(r.Context(), key); ok {
				serveTestSite(svc, w, r, site, next)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// serveTestSite serves r from site; a site that is not there (expired)
// is next's to answer (404 or 401, in the area's shape).
func serveTestSite(svc *testmode.Service, w http.ResponseWriter, r *http.Request, site string, next http.Handler) {
	if err := svc.Serve(w, r, site); err != nil {
		if deliverykit.KindOf(err) == deliverykit.KindInvalidArgument || deliverykit.KindOf(err) == deliverykit.KindNotFound {
			next.ServeHTTP(w, r)
			return
		}
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"error": "unavailable: the test site could not be served"})
	}
}

// testKey returns the test key r carries in any area's credential: the
// bearer's base64 (areas A, B, C, F), authorization as it is (D) or
// x-api-key (E).
func testKey(r *http.Request) (string, bool) {
	if k := strings.TrimSpace(r.Header.Get("X-Api-Key")); testmode.IsTestKey(k) {
		return k, true
	}
	a := strings.TrimSpace(r.Header.Get("Authorization"))
	if v, ok := cutBearer(a); ok {
		a = v
	}
	if testmode.IsTestKey(a) {
		return a, true
	}
	// The base64 of the key prefix ("dk_test_": its last character
	// shares a digit with the key's first), so that only a test key is
	// decoded.
	if strings.HasPrefix(a, "ZGtfdGVzdF") {
		if k, ok := decodeBase64(a); ok && testmode.IsTestKey(k) {
			return k, true
		}
	}
	return "", false
}
