package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/console"
	"github.com/google/go-cmp/cmp"
)

func TestLogin(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	tests := []struct {
		name     string
		email    string
		password string
		token    bool // send the login form's token
		want     int
	}{
		{"right password", operator, testPassword, true, http.StatusSeeOther},
		{"e-mail in capitals", strings.ToUpper(viewer), testPassword, true, http.StatusSeeOther},
		{"wrong password", operator, "wrong", true, http.StatusUnauthorized},
		{"unknown account", "nobody@site-1.test", testPassword, true, http.StatusUnauthorized},
		{"no form token", operator, testPassword, false, http.StatusForbidden},
		{"password too long", operator, strings.Repeat("p", auth.MaxPasswordBytes+1), true, http.StatusBadRequest},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, kit.Handler)
			c.addr = fmt.Sprintf("192.0.2.%d:1", i+1)
			var status int
			if tt.token {
				status = c.login(tt.email, tt.password)
			} else {
				status = c.do(http.MethodPost, "/console/login", url.Values{"email": {tt.email}, "password": {tt.password}}).StatusCode
			}
			if status != tt.want {
				t.Errorf("status = %d, want %d", status, tt.want)
			}
			_, signedIn := c.cookies["console_session"]
			if signedIn != (tt.want == http.StatusSeeOther) {
				t.Errorf("session cookie set = %v, want %v", signedIn, !signedIn)
			}
		})
	}
}

// The session cookie cannot be read by script, is sent over TLS only,
// never with a request from another site, and only to the console.
func TestSessionCookie(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	c := newClient(t, kit.Handler).mustLogin(operator)
	ck := c.cookies["console_session"]
	got := fmt.Sprintf("HttpOnly=%v Secure=%v SameSite=%v Path=%s MaxAge=%d", ck.HttpOnly, ck.Secure, ck.SameSite, ck.Path, ck.MaxAge)
	want := fmt.Sprintf("HttpOnly=true Secure=true SameSite=%v Path=/console/ MaxAge=%d", http.SameSiteStrictMode, int(console.DefaultSessionLifetime.Seconds()))
	if got != want {
		t.Errorf("cookie %s, want %s", got, want)
	}
}

func TestSessionEnds(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	t.Run("logout revokes the session on the server", func(t *testing.T) {
		c := newClient(t, kit.Handler).mustLogin(operator)
		stolen := *c.cookies["console_session"]
		if status, to := c.post("/console/overview", "/console/logout", nil); status != http.StatusSeeOther || to != "/console/login" {
			t.Fatalf("logout: %d to %q", status, to)
		}
		replay := newClient(t, kit.Handler)
		replay.cookies["console_session"] = &stolen
		if res := replay.do(http.MethodGet, "/console/overview", nil); res.Header.Get("Location") != "/console/login" {
			t.Errorf("the logged-out cookie still opens the overview: %d", res.StatusCode)
		}
	})
	t.Run("a session expires", func(t *testing.T) {
		c := newClient(t, kit.Handler).mustLogin(operator)
		if status, _ := c.get("/console/overview"); status != http.StatusOK {
			t.Fatalf("overview: %d", status)
		}
		kit.Clock.Advance(console.DefaultSessionLifetime)
		if res := c.do(http.MethodGet, "/console/overview", nil); res.Header.Get("Location") != "/console/login" {
			t.Errorf("an expired session opens the overview: %d", res.StatusCode)
		}
	})
}

// Logins are limited per account (many addresses guessing one password)
// and per address (one address guessing many accounts); the right
// password does not get past the limit.
func TestLoginThrottled(t *testing.T) {
	kit := startKit(t, console.LoginLimits{PerAccount: 3, PerAddress: 5, Window: time.Minute})
	t.Run("per account", func(t *testing.T) {
		var got []int
		for i := range 4 {
			c := newClient(t, kit.Handler)
			c.addr = fmt.Sprintf("198.51.100.%d:1", i+1)
			got = append(got, c.login(operator, "guess"))
		}
		c := newClient(t, kit.Handler)
		c.addr = "198.51.100.99:1"
		got = append(got, c.login(operator, testPassword))
		want := []int{401, 401, 401, 429, 429}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("per address", func(t *testing.T) {
		c := newClient(t, kit.Handler)
		c.addr = "203.0.113.7:1"
		var got []int
		for i := range 6 {
			got = append(got, c.login(fmt.Sprintf("guess%d@site-1.test", i), "guess"))
		}
		want := []int{401, 401, 401, 401, 401, 429}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	t.Run("the window ends", func(t *testing.T) {
		kit.Clock.Advance(time.Minute)
		c := newClient(t, kit.Handler)
		if status := c.login(viewer, testPassword); status != http.StatusSeeOther {
			t.Errorf("after the window: %d, want 303", status)
		}
	})
}

// Every page carries the console's policy: no script, nothing from
// elsewhere, never framed, never cached.
func TestSecurityHeaders(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	c := newClient(t, kit.Handler).mustLogin(viewer)
	for _, path := range []string{"/console/login", "/console/overview", "/console/checkout", "/console/orders", "/console/returns", "/console/operations"} {
		res := c.do(http.MethodGet, path, nil)
		h := res.Header
		got := [][2]string{{"status", fmt.Sprint(res.StatusCode)}, {"csp", h.Get("Content-Security-Policy")},
			{"frame", h.Get("X-Frame-Options")}, {"cache", h.Get("Cache-Control")}}
		want := [][2]string{{"status", "200"}, {"csp", console.CSP}, {"frame", "DENY"}, {"cache", "no-store"}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}

// A post without the form's token, or from another site, is refused
// before it acts; a viewer may not act at all.
func TestPostsRefused(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	tests := []struct {
		name    string
		account string
		token   string // "": the page's
		headers map[string]string
		want    int
	}{
		{"operator, same origin", operator, "", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": "https://console.test"}, http.StatusSeeOther},
		{"no token", operator, "-", nil, http.StatusForbidden},
		{"another session's token", operator, "other", nil, http.StatusForbidden},
		{"cross-site", operator, "", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same site, other origin", operator, "", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"other origin", operator, "", map[string]string{"Origin": "https://evil.test"}, http.StatusForbidden},
		{"viewer", viewer, "", nil, http.StatusForbidden},
	}
	other := newClient(t, kit.Handler).mustLogin(operator)
	otherToken := other.csrf("/console/operations")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, kit.Handler).mustLogin(tt.account)
			form := url.Values{}
			switch tt.token {
			case "":
				form.Set("csrf", c.csrf("/console/operations"))
			case "other":
				form.Set("csrf", otherToken)
			}
			for k, v := range tt.headers {
				c.headers.Set(k, v)
			}
			// Retrying an event that is not dead is a no-op the outbox
			// answers as not found: 303 here means the action ran.
			res := c.do(http.MethodPost, "/console/events/none/retry", form)
			got := res.StatusCode
			if got == http.StatusNotFound {
				got = http.StatusSeeOther
			}
			if got != tt.want {
				t.Errorf("status = %d, want %d", res.StatusCode, tt.want)
			}
		})
	}
}

// Sessions nobody logged out of are deleted once expired; a live one
// stays and works.
func TestSweepSessions(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	newClient(t, kit.Handler).mustLogin(operator)
	newClient(t, kit.Handler).mustLogin(viewer)
	kit.Clock.Advance(console.DefaultSessionLifetime)
	live := newClient(t, kit.Handler).mustLogin(operator)
	n, err := kit.Services.Console.Sweep(t.Context(), kit.Clock.Now().Add(time.Second), 0)
	if err != nil || n != 2 {
		t.Errorf("Sweep = %d, %v; want the 2 expired sessions", n, err)
	}
	if status, _ := live.get("/console/overview"); status != http.StatusOK {
		t.Errorf("the live session after the sweep: %d", status)
	}
	if n, err := kit.Services.Console.Sweep(t.Context(), kit.Clock.Now().Add(time.Second), 0); err != nil || n != 0 {
		t.Errorf("a second Sweep = %d, %v; want 0", n, err)
	}
}
