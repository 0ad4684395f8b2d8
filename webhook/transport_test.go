package webhook

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTripper answers every request itself and keeps what it got.
type roundTripper struct {
	mu   sync.Mutex
	urls []string
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	rt.mu.Lock()
	rt.urls = append(rt.urls, req.URL.String())
	rt.mu.Unlock()
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: req}, nil
}

// With a Transport, requests go through it and never to the network: an
// endpoint nobody listens at is delivered to.
func TestTransport(t *testing.T) {
	rt := &roundTripper{}
	e := newEnv(t, nil, map[string][]Endpoint{"s": {endpoint("ep", "http://127.0.0.1:1/hook")}}, func(o *Options) {
		o.Transport, o.AllowPrivate = rt, false
	})
	e.handle(t, parcelEvent(t, "evt_1", "s", "TN1", "STEP_ON_ROUTE"))
	if n := e.dispatch(t); n != 1 {
		t.Fatalf("delivered %d, want 1; logs:\n%s", n, e.logs)
	}
	if diff := cmp.Diff([]string{"http://127.0.0.1:1/hook"}, rt.urls); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
