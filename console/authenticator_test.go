package console_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// headerLogin is an embedder's staff login: its proxy names the user in
// a header.
type headerLogin struct{}

func (headerLogin) Authenticate(r *http.Request) (console.Principal, bool, error) {
	switch r.Header.Get("X-Staff") {
	case "ann":
		return console.Principal{Site: "demo-site", User: "ann", Role: console.Operator}, true, nil
	case "bob":
		return console.Principal{Site: "demo-site", User: "bob", Role: "admin"}, true, nil
	}
	return console.Principal{}, false, nil
}

func TestAuthenticator(t *testing.T) {
	c, err := console.New(console.Options{Store: memory.New(), Authenticator: headerLogin{}, LoginURL: "/staff/login",
		CSRFKey: bytes.Repeat([]byte("k"), 32)})
	if err != nil {
		t.Fatal(err)
	}
	serve := func(method, path, user string, form url.Values) *httptest.ResponseRecorder {
		var r *http.Request
		if form != nil {
			r = httptest.NewRequest(method, path, strings.NewReader(form.Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		} else {
			r = httptest.NewRequest(method, path, nil)
		}
		if user != "" {
			r.Header.Set("X-Staff", user)
		}
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		return w
	}
	if w := serve("GET", "/console/overview", "", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/staff/login" {
		t.Errorf("no user: %d to %q, want the embedder's login", w.Code, w.Header().Get("Location"))
	}
	if w := serve("GET", "/console/login", "", nil); w.Header().Get("Location") != "/staff/login" {
		t.Errorf("the console's own login page is served: %d", w.Code)
	}
	w := serve("GET", "/console/overview", "ann", nil)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "ann · demo-site") {
		t.Fatalf("ann's overview: %d", w.Code)
	}
	token := csrfInput.FindStringSubmatch(w.Body.String())[1]
	if w := serve("POST", "/console/logout", "ann", url.Values{"csrf": {"forged"}}); w.Code != http.StatusForbidden {
		t.Errorf("a forged token: %d, want 403", w.Code)
	}
	if w := serve("POST", "/console/logout", "ann", url.Values{"csrf": {token}}); w.Code != http.StatusSeeOther {
		t.Errorf("the page's token: %d, want 303", w.Code)
	}
	if w := serve("GET", "/console/overview", "bob", nil); w.Code != http.StatusForbidden {
		t.Errorf("a role the console does not know: %d, want 403", w.Code)
	}
	if _, err := console.New(console.Options{Store: memory.New(), Authenticator: headerLogin{}}); err == nil {
		t.Error("an Authenticator without a CSRF key was accepted")
	}
}
