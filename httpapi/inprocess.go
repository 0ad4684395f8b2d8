package httpapi

import (
	"net/http"
	"net/http/httptest"
)

// Transport is an http.RoundTripper that serves requests with Handler in
// the same process: no listener, no socket. It lets a merchant's existing
// HTTP integration code run against deliverykit in unit tests:
//
//	client := httpapi.NewInProcessClient(httpapi.New(opts))
//	resp, err := client.Post("http://deliverykit/v1/siw/session.create", …)
//
// The host part of the URL is ignored. Request context cancellation reaches
// the handler as it would over a network.
type Transport struct {
	Handler http.Handler
}

// RoundTrip implements http.RoundTripper. The request is not modified; the
// handler sees a server-side copy of it.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	sreq := req.Clone(req.Context())
	sreq.RequestURI = req.URL.RequestURI()
	if sreq.RemoteAddr == "" {
		sreq.RemoteAddr = "127.0.0.1:0"
	}
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	rec := httptest.NewRecorder()
	t.Handler.ServeHTTP(rec, sreq)
	if req.Body != nil {
		req.Body.Close()
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// NewInProcessClient returns an *http.Client whose requests are served by h
// in process.
func NewInProcessClient(h http.Handler) *http.Client {
	return &http.Client{Transport: &Transport{Handler: h}}
}
