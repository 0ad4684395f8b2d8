package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// session.get answers from the rendering the service keeps while the
// session is unchanged. Every answer, the first and the repeated ones, is
// byte for byte what encoding/json writes for the session Get returns
// then, with writeJSON's headers, with the cache on and off; every change
// (the widget's choice, an update, completion) is in the next answer.
func TestCheckoutGetAnswers(t *testing.T) {
	for _, cacheBytes := range []int64{0, -1} {
		t.Run("CacheBytes="+strconv.FormatInt(cacheBytes, 10), func(t *testing.T) {
			clock := deliverykit.NewManualClock(siwNow)
			engines, err := checkout.NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			svc, err := checkout.New(memory.New(), checkout.Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{},
				WidgetBaseURL: "http://example.com/v1/siw/_/", CacheBytes: cacheBytes})
			if err != nil {
				t.Fatal(err)
			}
			s, _ := newTestServer(t, Options{Checkout: svc})
			e := &siwEnv{t: t, handler: s.handler, doc: checkoutAPI(t)}
			r := e.do("POST", "/v1/siw/session.create", siwKey, siwCreate)
			if r.status != 200 {
				t.Fatalf("create: %d %s", r.status, r.raw)
			}
			id, token := jsonPath(r.body, "session.id").(string), r.body["token"].(string)
			wt := map[string]string{"X-Widget-Token": token}
			customer := `{"email": "anna@example.com", "address": {"name": "Anna", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}`
			steps := []struct {
				name         string
				method, path string
				header       map[string]string
				body         string
				changed      bool   // the answer differs from the previous get's
				getPath      string // default session.get?id=<id>
			}{
				{name: "first get", changed: true},
				{name: "repeated get"},
				{name: "escaped id", getPath: "/v1/siw/session.get?i%64=" + url.QueryEscape(id)},
				{name: "id among other parameters", getPath: "/v1/siw/session.get?x=1&id=" + id + "&id=other"},
				{name: "widget choice", method: "POST", path: "/v1/siw/_/widget/select", header: wt,
					body: `{"option_id": "home/north-parcel-home", "addon_ids": ["carry-in"]}`, changed: true},
				{name: "update", method: "POST", path: "/v1/siw/session.update", header: siwKey,
					body: `{"id": "` + id + `", "cart": {"cart_id": "c-1", "total_value": 150000, "items": [{"sku": "tent", "quantity": 3, "price": 50000}]}}`, changed: true},
				{name: "get after the update"},
				{name: "complete", method: "POST", path: "/v1/siw/session.complete", header: siwKey,
					body: `{"id": "` + id + `", "customer": ` + customer + `}`, changed: true},
				{name: "get the completed session"},
			}
			prev := ""
			for _, st := range steps {
				if st.path != "" {
					if r := e.do(st.method, st.path, st.header, st.body); r.status != 200 {
						t.Fatalf("%s: %d %s", st.name, r.status, r.raw)
					}
				}
				path := st.getPath
				if path == "" {
					path = "/v1/siw/session.get?id=" + id
				}
				got := e.do("GET", path, siwKey, "")
				if got.status != 200 {
					t.Fatalf("%s: get: %d %s", st.name, got.status, got.raw)
				}
				v, err := svc.Get(t.Context(), "demo-site", id)
				if err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if err := json.NewEncoder(&want).Encode(checkoutViewResponse{Session: v.Session, HTMLSnippet: v.HTMLSnippet}); err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.String(), got.raw); diff != "" {
					t.Errorf("%s: the answer differs from encoding/json's of Get (-want +got):\n%s", st.name, diff)
				}
				wantHeader := map[string]string{"Content-Type": "application/json", "Content-Length": strconv.Itoa(want.Len())}
				gotHeader := map[string]string{"Content-Type": got.header.Get("Content-Type"), "Content-Length": got.header.Get("Content-Length")}
				if diff := cmp.Diff(wantHeader, gotHeader); diff != "" {
					t.Errorf("%s: headers (-want +got):\n%s", st.name, diff)
				}
				if changed := got.raw != prev; changed != st.changed {
					t.Errorf("%s: answer changed = %v, want %v", st.name, changed, st.changed)
				}
				prev = got.raw
			}
		})
	}
}

// The rendering goes through encodeTo, so the package's tests hold it to
// encoding/json (TestMain) like every other answer: a session.get answer
// is checked when rendered, and later answers are those bytes.
func TestCheckoutViewRendererUsesEncodeTo(t *testing.T) {
	svc := newCheckoutService(t, deliverykit.NewManualClock(siwNow))
	s, _ := newTestServer(t, Options{Checkout: svc})
	saved := encodeTo
	t.Cleanup(func() { encodeTo = saved })
	var encoded []string
	encodeTo = func(buf *bytes.Buffer, v any) error {
		encoded = append(encoded, fmt.Sprintf("%T", v))
		return saved(buf, v)
	}
	req := httptest.NewRequest("POST", "/v1/siw/session.create", strings.NewReader(siwCreate))
	req.Header.Set("Authorization", siwKey["Authorization"])
	rec := httptest.NewRecorder()
	s.handler.ServeHTTP(rec, req)
	var created struct {
		Session struct{ ID string } `json:"session"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &created); err != nil {
		t.Fatal(err)
	}
	encoded = nil
	for range 3 {
		req := httptest.NewRequest("GET", "/v1/siw/session.get?id="+created.Session.ID, nil)
		req.Header.Set("Authorization", siwKey["Authorization"])
		rec := httptest.NewRecorder()
		s.handler.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("get: %d %s", rec.Code, rec.Body)
		}
	}
	if diff := cmp.Diff([]string{"*httpapi.checkoutViewResponse"}, encoded); diff != "" {
		t.Errorf("encodings of three gets of an unchanged session (-want +got):\n%s", diff)
	}
}
