package httpapi

import (
	"context"
	_ "embed"
	"net/http"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/session"
)

// sessionOpenAPI is the OpenAPI 3 document of area D, served at
// GET /delivery/openapi.json without a key.
//
//go:embed openapi/session.json
var sessionOpenAPI []byte

// sessionsPath is the collection of area D's sessions.
var sessionsPath = areaSession.base + "/v1/sessions"

// registerSession serves area D under /delivery with the key in the
// authorization header. Go's ServeMux matches whole path segments, so it
// cannot route "{id}:complete": one pattern takes the last segment and POST
// splits the custom method off at the last ':' (resource ids never contain
// one).
func (s *server) registerSession(svc *session.Service) {
	h := sessionHandlers{svc}
	a := areaSession
	s.route(a, sessionsPath, post(h.create))
	s.route(a, sessionsPath+"/{name}", methods{
		http.MethodGet:   h.get,
		http.MethodPatch: h.patch,
		http.MethodPost:  h.custom,
	})
	s.routePublic(a, a.base+"/openapi.json", get(sharedDocument(sessionOpenAPI)))
}

// sessionHandlers are area D's endpoints.
type sessionHandlers struct{ svc *session.Service }

func (h sessionHandlers) create(w http.ResponseWriter, r *http.Request, site string) error {
	var in session.Session
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := checkSite(site, ""); err != nil {
		return err
	}
	// The session is only encoded here, by the time CreateAnd returns:
	// its options' memory is the service's to reuse after that.
	return h.svc.CreateAnd(r.Context(), site, in, func(s *session.Session) {
		writeJSON(w, http.StatusOK, s)
	})
}

// get serves GET {name} and GET {name}:order, the completed session's
// order in the Agentic Commerce Protocol's form.
func (h sessionHandlers) get(w http.ResponseWriter, r *http.Request, site string) error {
	seg := r.PathValue("name")
	i := strings.LastIndexByte(seg, ':')
	if i < 0 {
		return respond(w, r, site, "", "sessions/"+seg, h.svc.Get)
	}
	name, verb := "sessions/"+seg[:i], seg[i+1:]
	if verb != "order" {
		return deliverykit.E(deliverykit.KindNotFound, "no custom method :"+verb+" for GET; the session has GET :order")
	}
	return respond(w, r, site, "", r.URL.Query().Get("acp_version"), func(ctx context.Context, site, version string) (*session.ACPOrder, error) {
		return h.svc.Order(ctx, site, name, version)
	})
}

func (h sessionHandlers) patch(w http.ResponseWriter, r *http.Request, site string) error {
	var in session.Session
	name := "sessions/" + r.PathValue("name")
	return handle(w, r, site, &in, nil, func(ctx context.Context, site string, in session.Session) (*session.Session, error) {
		// The path names the session; a body naming another one is
		// a client mix-up, not something to guess about.
		if in.Name != "" && in.Name != name {
			return nil, deliverykit.InvalidField("name", "match", "must be empty or equal to the name in the path ("+name+")")
		}
		in.Name = name
		return h.svc.Patch(ctx, site, in)
	})
}

// custom serves the session's custom methods, POST {name}:complete and
// {name}:convert.
func (h sessionHandlers) custom(w http.ResponseWriter, r *http.Request, site string) error {
	seg := r.PathValue("name")
	i := strings.LastIndexByte(seg, ':')
	if i < 0 {
		return deliverykit.E(deliverykit.KindNotFound, "POST needs a custom method: "+sessionsPath+"/{session_id}:complete or :convert")
	}
	name, verb := "sessions/"+seg[:i], seg[i+1:]
	switch verb {
	case "complete":
		var req session.CompleteRequest
		return handle(w, r, site, &req, nil, func(ctx context.Context, site string, req session.CompleteRequest) (*session.CompleteResponse, error) {
			return h.svc.Complete(ctx, site, name, req)
		})
	case "convert":
		q := r.URL.Query()
		req := session.ConvertRequest{Format: session.Format(q.Get("format")), ACPVersion: q.Get("acp_version")}
		return respond(w, r, site, "", req, func(ctx context.Context, site string, req session.ConvertRequest) (*session.ConvertResponse, error) {
			return h.svc.ConvertTo(ctx, site, name, req)
		})
	}
	return deliverykit.E(deliverykit.KindNotFound, "no custom method :"+verb+"; the session has :complete and :convert")
}
