package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/config"
)

// -hash-password prints a hash the configuration accepts, of the first
// line of standard input.
func TestHashPasswordFlag(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"-hash-password"}, io.Discard, hooks{stdin: strings.NewReader("s3cret phrase\n"), stdout: &out}); err != nil {
		t.Fatal(err)
	}
	h := strings.TrimSuffix(out.String(), "\n")
	if err := auth.CheckPasswordHash(h); err != nil || !strings.HasPrefix(h, "$argon2id$") {
		t.Errorf("printed %q: %v", out.String(), err)
	}
	err := run(t.Context(), []string{"-hash-password"}, io.Discard, hooks{stdin: strings.NewReader("\n"), stdout: io.Discard})
	if err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("an empty password: %v", err)
	}
}

// The console is on with the demo configuration, and off when asked.
func TestConsoleFlag(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want int
	}{{nil, 200}, {[]string{"-console=false"}, 404}} {
		base, done, stop := start(t, hooks{}, tt.args...)
		if got := get(t, base+"/console/login", nil); got != tt.want {
			t.Errorf("%v: GET /console/login %d, want %d", tt.args, got, tt.want)
		}
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}
}

// A -config file with the demo accounts' password hash is refused: their
// password is in the README.
func TestDemoPasswordHashRefused(t *testing.T) {
	cfg := config.Demo()
	for i := range cfg.Sites {
		cfg.Sites[i].APIKeySHA256 = []string{strings.Repeat(strconv.Itoa(i+1), 64)}
	}
	err := checkNoDemoSecrets(cfg)
	if err == nil || !strings.Contains(err.Error(), "sites[0].staff[0].password_hash") {
		t.Errorf("checkNoDemoSecrets = %v, want the demo password hash named", err)
	}
}

// The operations page shows the readiness /readyz checks: an operator of
// the demo site logs in and reads it.
func TestConsoleShowsReadiness(t *testing.T) {
	base, done, stop := start(t, hooks{})
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Jar: jar}
	page := func(res *http.Response, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%.300s", res.Request.URL, res.StatusCode, b)
		}
		return string(b)
	}
	m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(page(c.Get(base + "/console/login")))
	if m == nil {
		t.Fatal("no csrf token on the login page")
	}
	page(c.PostForm(base+"/console/login", url.Values{"csrf": {m[1]}, "email": {"operator@demo-site.example"}, "password": {"demo-password"}}))
	ops := page(c.Get(base + "/console/operations"))
	if !strings.Contains(ops, `<strong class="ok">Ready</strong>`) {
		t.Errorf("the operations page does not show the server ready:\n%.2000s", ops)
	}
}
