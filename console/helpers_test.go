package console_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
	"golang.org/x/crypto/argon2"
)

// testPassword is every test account's password.
const testPassword = "correct horse battery staple"

// cheapHash hashes password with the smallest parameters the console
// accepts: tests log in often, and under the race detector the default
// parameters take seconds a login.
func cheapHash(password string) string {
	salt := []byte("0123456789abcdef")
	key := argon2.IDKey([]byte(password), salt, 1, 64, 1, 32)
	return fmt.Sprintf("$argon2id$v=19$m=64,t=1,p=1$%s$%s", base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key))
}

// Accounts of the tests: an operator and a viewer of demo-site, an
// operator of demo-site-2.
const (
	operator  = "operator@site-1.test"
	viewer    = "viewer@site-1.test"
	operator2 = "operator@site-2.test"
)

func testStaff() []console.Staff {
	h := cheapHash(testPassword)
	return []console.Staff{
		{Site: "demo-site", Email: operator, Role: console.Operator, PasswordHash: h},
		{Site: "demo-site", Email: viewer, Role: console.Viewer, PasswordHash: h},
		{Site: "demo-site-2", Email: operator2, Role: console.Operator, PasswordHash: h},
	}
}

// startKit runs deliverykit with the console and the test accounts; the
// console shows the readiness of the kit's store, as /readyz checks it.
func startKit(t testing.TB, limits console.LoginLimits) *deliverykittest.Kit {
	t.Helper()
	store := memory.New()
	ready := httpapi.NewReadiness(store, httpapi.ReadinessOptions{}).Check
	return deliverykittest.Start(t, deliverykittest.Options{Store: store,
		Console: &console.Options{Staff: testStaff(), LoginLimits: limits, Ready: ready}})
}

// client drives the console as one browser: it keeps the cookies and
// reads each form's CSRF token.
type client struct {
	t       testing.TB
	h       http.Handler
	cookies map[string]*http.Cookie
	// headers are sent with every request (Sec-Fetch-Site, Origin).
	headers http.Header
	// addr is the client address.
	addr string
}

func newClient(t testing.TB, h http.Handler) *client {
	return &client{t: t, h: h, cookies: map[string]*http.Cookie{}, headers: http.Header{}, addr: "192.0.2.1:1234"}
}

func (c *client) do(method, path string, form url.Values) *http.Response {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, "https://console.test"+path, body)
	r.RemoteAddr = c.addr
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range c.headers {
		r.Header[k] = v
	}
	for _, ck := range c.cookies {
		r.AddCookie(ck)
	}
	w := httptest.NewRecorder()
	c.h.ServeHTTP(w, r)
	res := w.Result()
	for _, ck := range res.Cookies() {
		if ck.MaxAge < 0 {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck
		}
	}
	return res
}

// get returns the page at path and its status.
func (c *client) get(path string) (int, string) {
	c.t.Helper()
	res := c.do(http.MethodGet, path, nil)
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the CSRF token of the page at path.
func (c *client) csrf(path string) string {
	c.t.Helper()
	status, page := c.get(path)
	m := csrfInput.FindStringSubmatch(page)
	if status != http.StatusOK || m == nil {
		c.t.Fatalf("GET %s: status %d, no csrf token in %.300s", path, status, page)
	}
	return m[1]
}

// post submits form to path with the CSRF token of page, returning the
// status and where it redirects.
func (c *client) post(page, path string, form url.Values) (int, string) {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", c.csrf(page))
	res := c.do(http.MethodPost, path, form)
	return res.StatusCode, res.Header.Get("Location")
}

// login logs in as email with password and returns the status.
func (c *client) login(email, password string) int {
	c.t.Helper()
	status, _ := c.post("/console/login", "/console/login", url.Values{"email": {email}, "password": {password}})
	return status
}

// mustLogin logs in as email or fails the test.
func (c *client) mustLogin(email string) *client {
	c.t.Helper()
	if status := c.login(email, testPassword); status != http.StatusSeeOther {
		c.t.Fatalf("login as %s: status %d, want 303", email, status)
	}
	return c
}

// shipAndReturn ships an order of the kit's site, delivers it, and
// returns both lines: the first with a complaint, the second because it
// does not fit. The return parcel has not left yet.
func shipAndReturn(t testing.TB, kit *deliverykittest.Kit, ext string) (deliverykittest.Parcel, returns.Return) {
	t.Helper()
	ctx := context.Background()
	p, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: ext})
	if err != nil {
		t.Fatal(err)
	}
	if err := kit.Advance(ctx, 72*time.Hour); err != nil {
		t.Fatal(err)
	}
	ret, err := kit.Services.Returns.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: kit.Site, ForeignOrderID: ext,
		Email: deliverykittest.DefaultCustomer().Email, Items: []returns.CustomerReturnItemInput{
			{ForeignLineItemID: "1", Quantity: 1, Reason: "arrived broken", Complaint: &returns.ComplaintInput{ReasonID: "damaged", Text: "The pole is snapped"}},
			{ForeignLineItemID: "2", Quantity: 1, Reason: "does not fit"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := kit.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	return p, ret
}
