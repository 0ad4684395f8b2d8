package console

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestLoginBusy: with every password check slot taken (each check holds
// 64 MiB), a login is answered 503 with Retry-After at once, before its
// password is checked; with a slot free the same login is checked.
func TestLoginBusy(t *testing.T) {
	c, err := New(Options{Store: memory.New(), LoginLimits: LoginLimits{Concurrent: 1}})
	if err != nil {
		t.Fatal(err)
	}
	login := func() *httptest.ResponseRecorder {
		form := url.Values{"email": {"nobody@site.test"}, "password": {"guess"}, "csrf": {"form-token"}}
		req := httptest.NewRequest(http.MethodPost, "/console/login", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: loginCookie, Value: "form-token"})
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		return rec
	}
	c.checking <- struct{}{} // a check in progress
	if rec := login(); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
		t.Errorf("all slots taken: %d, Retry-After %q", rec.Code, rec.Header().Get("Retry-After"))
	}
	<-c.checking
	if rec := login(); rec.Code != http.StatusUnauthorized {
		t.Errorf("a slot free: %d, want 401 (checked, wrong password)", rec.Code)
	}
	if len(c.checking) != 0 {
		t.Errorf("%d slots still held after the checks", len(c.checking))
	}
}
