package httpapi

import (
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

// registerSession serves area D (spec §4.4) under /delivery with the key in
// the authorization header. Go's ServeMux matches whole path segments, so
// it cannot route "{id}:complete": one pattern takes the last segment and
// POST splits the custom method off at the last ':' (resource ids never
// contain one).
func (s *server) registerSession(svc *session.Service) {
	a := areaSession
	base := a.base + "/v1/sessions"
	s.route(a, base, map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var in session.Session
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
			out, err := svc.Create(r.Context(), site, in)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, out)
			return nil
		},
	})
	s.route(a, base+"/{name}", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			out, err := svc.Get(r.Context(), site, "sessions/"+r.PathValue("name"))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, out)
			return nil
		},
		http.MethodPatch: func(w http.ResponseWriter, r *http.Request, site string) error {
			var in session.Session
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
			// The path names the session; a body naming another one
			// is a client mix-up, not something to guess about.
			name := "sessions/" + r.PathValue("name")
			if in.Name != "" && in.Name != name {
				return deliverykit.InvalidField("name", "match", "must be empty or equal to the name in the path ("+name+")")
			}
			in.Name = name
			out, err := svc.Patch(r.Context(), site, in)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, out)
			return nil
		},
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			seg := r.PathValue("name")
			i := strings.LastIndexByte(seg, ':')
			if i < 0 {
				return deliverykit.E(deliverykit.KindNotFound, "POST needs a custom method: "+base+"/{session_id}:complete or :convert")
			}
			name, verb := "sessions/"+seg[:i], seg[i+1:]
			switch verb {
			case "complete":
				var req session.CompleteRequest
				if err := decodeJSON(r, &req); err != nil {
					return err
				}
				out, err := svc.Complete(r.Context(), site, name, req)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, out)
			case "convert":
				out, err := svc.Convert(r.Context(), site, name, session.Format(r.URL.Query().Get("format")))
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, out)
			default:
				return deliverykit.E(deliverykit.KindNotFound, "no custom method :"+verb+"; the session has :complete and :convert")
			}
			return nil
		},
	})
	s.routePublic(a, a.base+"/openapi.json", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Access-Control-Allow-Origin", "*")
			w.Write(sessionOpenAPI)
			return nil
		},
	})
}
