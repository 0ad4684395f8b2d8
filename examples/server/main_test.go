package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func get(t *testing.T, url string, header map[string]string) int {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func TestRunServesAndStops(t *testing.T) {
	runs := [][]string{
		{"-store", "memory"},
		{"-db", filepath.Join(t.TempDir(), "dk.db")},
	}
	// With a PostgreSQL server (.ci/postgres.sh starts one), the server
	// also runs on it; the store's tests cover the rest.
	if dsn := os.Getenv("DELIVERYKIT_POSTGRES_DSN"); dsn != "" {
		runs = append(runs, []string{"-store", "postgres", "-dsn", dsn})
	}
	for _, args := range runs {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			addrc := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, append(args, "-addr", "127.0.0.1:0", "-metrics-addr", "off"), io.Discard, hooks{listening: func(a string) { addrc <- a }})
			}()
			var base string
			select {
			case a := <-addrc:
				base = "http://" + a
			case err := <-done:
				t.Fatalf("run returned before listening: %v", err)
			}
			key := base64.StdEncoding.EncodeToString([]byte("demo-key"))
			tests := []struct {
				path   string
				header map[string]string
				want   int
			}{
				{"/healthz", nil, 200},
				{"/readyz", nil, 200},
				{"/v1/delivery_tracking/orders?site_id=demo-site", nil, 401},
				{"/v1/delivery_tracking/no-such-endpoint", map[string]string{"Authorization": "Bearer " + key}, 404},
				{"/returns/merchant/no-such-endpoint", map[string]string{"X-Api-Key": "demo-key-2"}, 404},
			}
			for _, tt := range tests {
				if got := get(t, base+tt.path, tt.header); got != tt.want {
					t.Errorf("GET %s = %d, want %d", tt.path, got, tt.want)
				}
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("run: %v", err)
			}
		})
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	badConfig := filepath.Join(dir, "bad.json")
	os.WriteFile(badConfig, []byte(`{"sites":[{"id":"s","name":"S","api_key_sha256":["xyz"]}]}`), 0o600)
	demo, err := os.ReadFile("../../config/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	demoCopy := filepath.Join(dir, "demo-copy.json")
	os.WriteFile(demoCopy, demo, 0o600)
	demoSecret := filepath.Join(dir, "demo-secret.json")
	os.WriteFile(demoSecret, []byte(`{"sites":[{"id":"s","name":"S","api_key_sha256":["`+hex.EncodeToString(sha256.New().Sum(nil))+`"]}],
		"returns":{"image_url_secret":"`+config.Demo().Returns.ImageURLSecret+`"}}`), 0o600)
	tests := []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-store", "tape"}, `-store: want bolt, memory or postgres, got "tape"`},
		{[]string{"-store", "postgres"}, "-store postgres needs -dsn"},
		{[]string{"-dsn", "host=db"}, "-dsn is only for -store postgres"},
		{[]string{"-store", "postgres", "-dsn", "host=/nonexistent connect_timeout=5"}, "storage/postgres"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-config", badConfig}, "sites[0].api_key_sha256[0]"},
		{[]string{"-config", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"-config", demoCopy}, "sites[0].api_key_sha256[0] is the digest of a public demo API key"},
		{[]string{"-config", demoSecret}, "returns.image_url_secret is the public demo secret"},
		{[]string{"-store", "memory", "-addr", "256.0.0.1:1"}, "256.0.0.1"},
		{[]string{"-rate-limits", "site"}, `want class=off, class=RATE or class=RATE:BURST`},
		{[]string{"-rate-limits", "shop=5"}, `unknown class "shop"`},
		{[]string{"-rate-limits", "site=0"}, "the rate must be a positive number"},
		{[]string{"-rate-limits", "site=-1"}, "the rate must be a positive number"},
		{[]string{"-rate-limits", "site=NaN"}, "the rate must be a positive number"},
		{[]string{"-rate-limits", "site=5:0"}, "the burst must be a positive whole number"},
		{[]string{"-rate-limits", "site=5:x"}, "the burst must be a positive whole number"},
		{[]string{"-trusted-proxies", "10.0.0.0/8,proxy.internal"}, `"proxy.internal" is neither an address nor a CIDR block`},
		{[]string{"-drain-delay", "-1s"}, "-drain-delay must not be negative"},
		{[]string{"-metrics-addr", ""}, "-metrics-addr: want a host:port, main or off"},
		{[]string{"-outbox-lease", "-1s"}, "-outbox-lease must not be negative"},
		{[]string{"-webhook-lease", "-2s"}, "-webhook-lease must not be negative"},
		{[]string{"-webhook-timeout", "-1s"}, "-webhook-timeout must not be negative"},
		{[]string{"-webhook-connect-timeout", "-1s"}, "-webhook-connect-timeout must not be negative"},
		{[]string{"-webhook-timeout", "2s", "-webhook-connect-timeout", "3s"}, "-webhook-connect-timeout (3s) must not exceed -webhook-timeout (2s)"},
		{[]string{"-webhook-workers", "-1"}, "-webhook-workers must be between 0 and 1024"},
		{[]string{"-webhook-workers", "5000"}, "-webhook-workers must be between 0 and 1024"},
		{[]string{"-webhook-per-endpoint", "9"}, "-webhook-per-endpoint must be between 0 and 8"},
		{[]string{"-demo-carrier", "teleport"}, `-demo-carrier: want manual or simulate, got "teleport"`},
		{[]string{"-demo-carrier", "simulate", "-time-scale", "0.5"}, "-time-scale must be between 1 and 1000000"},
		{[]string{"-demo-carrier", "simulate", "-time-scale", "NaN"}, "-time-scale must be between 1 and 1000000"},
		{[]string{"-demo-carrier", "manual", "-time-scale", "60"}, "-time-scale and -simulator-seed are for -demo-carrier simulate"},
		{[]string{"-refund-executor", "bank"}, `-refund-executor: want merchant or demo, got "bank"`},
		{[]string{"-refund-executor", "demo", "-refund-failure-rate", "1.5"}, "-refund-failure-rate must be between 0 and 1"},
		{[]string{"-refund-executor", "demo", "-refund-delay", "-1s"}, "-refund-delay must not be negative"},
		{[]string{"-refund-failure-rate", "0.5"}, "-refund-failure-rate and -refund-delay are for -refund-executor demo"},
	}
	for _, tt := range tests {
		err := run(context.Background(), tt.args, io.Discard, hooks{})
		if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("run(%q) = %v, want error containing %q", tt.args, err, tt.wantErr)
		}
	}
}

// TestSIGTERMClosesStore runs the real binary on a bolt file, stops it with
// SIGTERM and checks that it exits cleanly, releases the file lock and keeps
// every acknowledged write: each round registers a tracking order over HTTP,
// and every later round reads all earlier ones back.
func TestSIGTERMClosesStore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	bin := serverBinary(t)
	db := filepath.Join(t.TempDir(), "dk.db")

	// Data written before the server ever ran must survive its runs.
	writeMarker(t, db, "before")
	for round := range 3 {
		cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-metrics-addr", "off", "-db", db, "-drain-delay", "0")
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		addr := waitListening(t, stderr)
		if got := get(t, "http://"+addr+"/healthz", nil); got != 200 {
			t.Errorf("round %d: healthz = %d", round, got)
		}
		for earlier := range round {
			url := fmt.Sprintf("http://%s/v1/delivery_tracking/orders?external_id=restart-%d", addr, earlier)
			status, body := do(t, "GET", url, trackingAuth, "")
			if status != 200 || !strings.Contains(body, fmt.Sprintf(`"external_id":"restart-%d"`, earlier)) {
				t.Errorf("round %d: order of round %d: %d %s", round, earlier, status, body)
			}
		}
		if status, body := do(t, "POST", "http://"+addr+"/v1/delivery_tracking/order", trackingAuth, orderBody(round)); status != 200 {
			t.Fatalf("round %d: order: %d %s", round, status, body)
		}
		// While the server runs, the file is locked.
		if _, err := bolt.Open(db, &bolt.Options{Timeout: 50 * time.Millisecond}); err == nil {
			t.Errorf("round %d: opened the database while the server holds it", round)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Fatalf("round %d: server exited with %v", round, err)
		}
		if got := readMarker(t, db); got != "before" {
			t.Fatalf("round %d: marker = %q after restart", round, got)
		}
	}
}

// serverBinary builds the server once for the tests that run it as a
// process, with the defaults it ships with.
var serverBinary = func() func(t *testing.T) string {
	var once sync.Once
	var bin string
	var err error
	var out []byte
	return func(t *testing.T) string {
		t.Helper()
		once.Do(func() {
			if binaryDir, err = os.MkdirTemp("", "deliverykit-server"); err != nil {
				return
			}
			bin = filepath.Join(binaryDir, "server")
			out, err = exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
		})
		if err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		return bin
	}
}()

// binaryDir holds the binary serverBinary built, if it did.
var binaryDir string

// TestMain removes the binary serverBinary built, and shortens
// -drain-delay's default for the servers the tests start in process by
// the dozen (TestDefaultDrainDelay runs the binary with the real one).
func TestMain(m *testing.M) {
	drainDelayDefault = 0
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

// TestDefaultDrainDelay: the binary as shipped, stopped by SIGTERM, answers
// /readyz with 503 while it still serves /healthz, and closes its listener
// no sooner than defaultDrainDelay after the signal, so a load balancer
// sees it leave before connections are refused.
func TestDefaultDrainDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	cmd := exec.Command(serverBinary(t), "-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	base := "http://" + waitListening(t, stderr)
	if got := get(t, base+"/readyz", nil); got != 200 {
		t.Fatalf("readyz before the signal = %d", got)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	signalled := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	// Poll until the listener refuses: every answer is 200 until the
	// drain starts and 503 after it, with /healthz 200 throughout.
	var draining, healthy int
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		resp, err := client.Get(base + "/readyz")
		if err != nil {
			break
		}
		resp.Body.Close()
		switch {
		case resp.StatusCode == 503:
			draining++
			if resp, err := client.Get(base + "/healthz"); err == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					healthy++
				}
			}
		case resp.StatusCode != 200 || draining > 0:
			t.Fatalf("readyz = %d after %d answers 503", resp.StatusCode, draining)
		}
	}
	closed := time.Since(signalled)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exited with %v", err)
	}
	if draining == 0 || healthy == 0 {
		t.Errorf("the listener closed after %d answers 503 from /readyz (%d of them with /healthz 200)", draining, healthy)
	}
	if closed < defaultDrainDelay {
		t.Errorf("the listener refused %v after SIGTERM, before the default drain delay %v", closed, defaultDrainDelay)
	}
}

var trackingAuth = map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}

func orderBody(n int) string {
	return fmt.Sprintf(`{"site_id": "demo-site", "external_id": "restart-%d", "carrier_product_ref": "north-parcel-home",
		"sender": {"name": "Demo Outdoor Store"}, "receiver": {"name": "Alva Berg"},
		"destination": {"address": {"city": "Stockholm", "country": "SE"}}, "delivery_type": "DELIVERY"}`, n)
}

func do(t *testing.T, method, url string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var listening = regexp.MustCompile(`msg="deliverykit listening" addr=(\S+)`)

func waitListening(t *testing.T, r io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, r)
	}()
	select {
	case a := <-found:
		return a
	case <-time.After(30 * time.Second):
		t.Fatal("server did not report its address")
		return ""
	}
}

func writeMarker(t *testing.T, path, v string) {
	t.Helper()
	s, err := bolt.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = s.Update(context.Background(), func(tx storage.Tx) error {
		_, err := tx.Put("test.marker", "m", []byte(v), storage.AnyVersion)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func readMarker(t *testing.T, path string) string {
	t.Helper()
	s, err := bolt.Open(path, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("reopen after shutdown: %v", err)
	}
	defer s.Close()
	var v string
	err = s.View(context.Background(), func(tx storage.Tx) error {
		rec, err := tx.Get("test.marker", "m")
		v = string(rec.Value)
		return err
	})
	if err != nil && !errors.Is(err, deliverykit.ErrNotFound) {
		t.Fatal(err)
	}
	return v
}

func TestRateLimitFlags(t *testing.T) {
	off := httpapi.NoRateLimit
	tests := []struct {
		args []string
		want httpapi.RateLimits
	}{
		{nil, httpapi.RateLimits{}},
		{[]string{"-rate-limits", "off"}, httpapi.RateLimits{Site: off, WidgetToken: off, Address: off}},
		{[]string{"-rate-limits", "site=500:1000"}, httpapi.RateLimits{Site: httpapi.RateLimit{PerSecond: 500, Burst: 1000}}},
		{[]string{"-rate-limits", "address=off, widget=2.5"}, httpapi.RateLimits{Address: off, WidgetToken: httpapi.RateLimit{PerSecond: 2.5}}},
		{[]string{"-rate-limits", "site=1", "-rate-limits", "site=7:9"}, httpapi.RateLimits{Site: httpapi.RateLimit{PerSecond: 7, Burst: 9}}},
		{[]string{"-trusted-proxies", "10.1.2.3/8, 192.0.2.7,::ffff:198.51.100.1,2001:db8::/32"}, httpapi.RateLimits{TrustedProxies: []netip.Prefix{
			netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"),
			netip.MustParsePrefix("198.51.100.1/32"), netip.MustParsePrefix("2001:db8::/32"),
		}}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, err := parseFlags(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.rateLimits, cmpopts.EquateComparable(netip.Prefix{})); diff != "" {
				t.Errorf("rate limits (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUploadFlags: -upload-budget and -uploads-per-address reach
// httpapi.Options.Uploads; the zero values there are the defaults.
func TestUploadFlags(t *testing.T) {
	tests := []struct {
		args []string
		want httpapi.UploadLimits
	}{
		{nil, httpapi.UploadLimits{PerAddress: httpapi.DefaultUploadsPerAddress}},
		{[]string{"-upload-budget", "256MiB", "-uploads-per-address", "4"}, httpapi.UploadLimits{BudgetBytes: 256 << 20, PerAddress: 4}},
		{[]string{"-upload-budget", "1GiB"}, httpapi.UploadLimits{BudgetBytes: 1 << 30, PerAddress: 2}},
		{[]string{"-upload-budget", "70000000"}, httpapi.UploadLimits{BudgetBytes: 70000000, PerAddress: 2}},
		{[]string{"-upload-budget", "off", "-uploads-per-address", "-1"}, httpapi.UploadLimits{BudgetBytes: -1, PerAddress: -1}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			f, err := parseFlags(tt.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, f.uploads); diff != "" {
				t.Errorf("upload limits (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{"", "0", "-5MiB", "12XB", "MiB", "2000GiB"} {
		if _, err := parseFlags([]string{"-upload-budget", bad}, io.Discard); err == nil || !strings.Contains(err.Error(), "upload-budget") {
			t.Errorf("-upload-budget %q: %v", bad, err)
		}
	}
}

// start runs the server on a memory store with args and returns its base
// URL, the channel run's result arrives on and the function that stops it.
func start(t *testing.T, h hooks, args ...string) (string, <-chan error, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	listening := h.listening
	h.listening = func(a string) {
		if listening != nil {
			listening(a)
		}
		addrc <- a
	}
	go func() {
		done <- run(ctx, append([]string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off"}, args...), io.Discard, h)
	}()
	select {
	case a := <-addrc:
		return "http://" + a, done, cancel
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	}
	return "", nil, nil
}

// TestRateLimitsApply: the flags reach the handler. With one request a
// second and no burst, a site's second request in a row is 429 with
// Retry-After, and another site is not affected.
func TestRateLimitsApply(t *testing.T) {
	base, done, stop := start(t, hooks{}, "-rate-limits", "site=0.001:1")
	url := base + "/v1/delivery_tracking/orders?external_id=x"
	other := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key-2"))}
	for i, tt := range []struct {
		header map[string]string
		want   int
	}{{trackingAuth, 200}, {trackingAuth, 429}, {other, 200}} {
		if got := get(t, url, tt.header); got != tt.want {
			t.Errorf("request %d: %d, want %d", i, got, tt.want)
		}
	}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestShutdownDrains: at shutdown /readyz turns 503 while the server still
// answers everything else; before, it is 200.
func TestShutdownDrains(t *testing.T) {
	type answers struct{ Readyz, Healthz int }
	var base string
	var during answers
	base, done, stop := start(t, hooks{draining: func() {
		during = answers{get(t, base+"/readyz", nil), get(t, base+"/healthz", nil)}
	}})
	before := answers{get(t, base+"/readyz", nil), get(t, base+"/healthz", nil)}
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(answers{200, 200}, before); diff != "" {
		t.Errorf("before shutdown (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(answers{503, 200}, during); diff != "" {
		t.Errorf("while draining (-want +got):\n%s", diff)
	}
}

// TestREADMEMinimalConfig: the README's minimal configuration passes
// -check-config, and a server started on it offers its key's site a
// delivery option.
func TestREADMEMinimalConfig(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- minimal-config -->\n```json\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no minimal configuration block")
	}
	path := filepath.Join(t.TempDir(), "my-shop.json")
	if err := os.WriteFile(path, m[1], 0o600); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(t.Context(), []string{"-check-config", path}, io.Discard, hooks{stdout: &out}); err != nil {
		t.Fatalf("-check-config: %v", err)
	}
	if !strings.Contains(out.String(), "site my-shop (My Shop): API keys 1") {
		t.Errorf("-check-config printed %q", out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-store", "memory", "-config", path, "-addr", "127.0.0.1:0", "-metrics-addr", "off"}, io.Discard, hooks{listening: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	}
	req, _ := http.NewRequest("POST", base+"/v1/siw/session.create", strings.NewReader(`{"purchase_country": "SE", "purchase_currency": "SEK",
		"locales": ["en-US"], "cart": {"total_value": 10000, "items": [{"sku": "tent", "quantity": 1, "price": 10000}]},
		"search_address": {"postal_code": "111 57", "country": "SE"}}`))
	req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte("my-shop-key")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"shipping_method":"north-parcel-home"`) {
		t.Errorf("session.create on the minimal configuration: %d %s", resp.StatusCode, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"sites": [{"id": "a", "colour": 1}]}`), 0o600)
	if err := run(t.Context(), []string{"-check-config", bad}, io.Discard, hooks{stdout: io.Discard}); err == nil || !strings.Contains(err.Error(), "sites[0].colour: unknown field") {
		t.Errorf("-check-config of a bad file: %v", err)
	}
}

// lockedBuffer is a bytes.Buffer the server's goroutines may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestLogFormat: every line the server prints during a merchant's flow
// (a checkout that becomes a tracking order, a shipment, parcel events,
// notifications sent) is one JSON object with -log-format json, and at
// -log-level ERROR a flow without errors prints nothing.
func TestLogFormat(t *testing.T) {
	for _, level := range []string{"INFO", "ERROR"} {
		t.Run(level, func(t *testing.T) {
			var out lockedBuffer
			ctx, cancel := context.WithCancel(context.Background())
			addrc := make(chan string, 1)
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off", "-log-format", "json", "-log-level", level,
					"-notify-interval", "10ms"}, &out, hooks{listening: func(a string) { addrc <- a }})
			}()
			base := "http://" + <-addrc
			key := map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
			post := func(path, body string) string {
				req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
				for k, v := range key {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
				}
				return string(b)
			}
			created := post("/v1/siw/session.create", `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
				"cart": {"cart_id": "log-1", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]}}`)
			id := regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(created)[1]
			post("/v1/siw/session.complete", `{"id": "`+id+`", "customer": {"email": "anna@example.com",
				"address": {"name": "Anna", "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
			booked := post("/v1/som/shipments.createAndBook", `{"external_id": "log-1",
				"sender": {"name": "Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
				"receiver": {"name": "Anna", "email": "anna@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
				"parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
			tn := regexp.MustCompile(`"tracking_number":"([^"]+)"`).FindStringSubmatch(booked)[1]
			post("/v1/delivery_tracking/parcel.event", `{"tracking_number": "`+tn+`", "time": "2026-01-01T10:00:00Z", "step": "STEP_DELIVERED_TO_CONSUMER"}`)
			// The notification loop sends the DELIVERED e-mail within its
			// interval: wait for it (bounded), so its line is printed.
			for deadline := time.Now().Add(10 * time.Second); ; {
				req, _ := http.NewRequest("GET", base+"/v1/delivery_tracking/notifications?external_id=log-1", nil)
				req.Header.Set("Authorization", key["Authorization"])
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if strings.Contains(string(b), "TRIGGERED") {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no notification was sent: %s", b)
				}
				time.Sleep(10 * time.Millisecond) // polling a real server's loop, not synchronising goroutines
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if level == "ERROR" {
				if s := strings.TrimSpace(out.String()); s != "" {
					t.Errorf("at ERROR the flow printed:\n%s", s)
				}
				return
			}
			msgs := map[string]bool{}
			for _, l := range lines {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Fatalf("a line is not JSON: %q", l)
				}
				msgs[fmt.Sprint(m["msg"])] = true
				// Durations carry their unit in their name and are numbers.
				if _, ok := m["duration_ms"].(float64); m["msg"] == "request" && !ok {
					t.Errorf("a request line without a number duration_ms: %q", l)
				}
			}
			for _, want := range []string{"deliverykit listening", "request", "notification sent"} {
				if !msgs[want] {
					t.Errorf("no %q line among %v", want, msgs)
				}
			}
		})
	}
}

// TestMetrics: after a checkout is created and completed, /metrics counts
// the requests by route, the store's transactions, and the outbox as
// drained. They are served on a listener of their own, not beside the
// API.
func TestMetrics(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc, metricsc := make(chan string, 1), make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "127.0.0.1:0"}, io.Discard,
			hooks{listening: func(a string) { addrc <- a }, metrics: func(a string) { metricsc <- a }})
	}()
	metricsBase := "http://" + <-metricsc
	base := "http://" + <-addrc
	defer func() {
		cancel()
		<-done
	}()
	auth := "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))
	post := func(path, body string) string {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	created := post("/v1/siw/session.create", `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "m-1", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]}}`)
	id := regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(created)[1]
	post("/v1/siw/session.complete", `{"id": "`+id+`", "customer": {"email": "anna@example.com",
		"address": {"name": "Anna", "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	post("/v1/siw/session.complete", `{"id": "nope"}`)
	// A read fills the read cache.
	created = post("/v1/siw/session.create", `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
		"cart": {"cart_id": "m-2", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]}}`)
	req, _ := http.NewRequest("GET", base+"/v1/siw/session.get?id="+regexp.MustCompile(`"id":"([^"]+)"`).FindStringSubmatch(created)[1], nil)
	req.Header.Set("Authorization", auth)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if got := get(t, base+"/metrics", nil); got != 404 {
		t.Errorf("/metrics beside the API: %d, want 404", got)
	}
	resp, err := http.Get(metricsBase + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got := map[string]string{}
	for _, l := range strings.Split(string(body), "\n") {
		if k, v, ok := strings.Cut(l, " "); ok && !strings.HasPrefix(l, "#") {
			got[k] = v
		}
	}
	for name, want := range map[string]string{
		`deliverykit_http_requests_total{area="checkout",code="2xx",method="POST",route="/v1/siw/session.complete"}`: "1",
		`deliverykit_http_requests_total{area="checkout",code="4xx",method="POST",route="/v1/siw/session.complete"}`: "1",
		`deliverykit_http_requests_total{area="checkout",code="2xx",method="POST",route="/v1/siw/session.create"}`:   "2",
		`deliverykit_outbox_pending_events`: "0",
		`deliverykit_outbox_dead_events`:    "0",
	} {
		if got[name] != want {
			t.Errorf("%s = %q, want %s", name, got[name], want)
		}
	}
	for _, name := range []string{`deliverykit_store_transaction_seconds_count{kind="update"}`, `deliverykit_checkout_cache_bytes`, `go_goroutines`} {
		if v, err := strconv.ParseFloat(got[name], 64); err != nil || v <= 0 {
			t.Errorf("%s = %q, want more than 0", name, got[name])
		}
	}
}

// TestDevAllowsDemoSecrets: with -dev, a copy of the demo configuration
// (the README's webhook walkthrough of old) starts.
func TestDevAllowsDemoSecrets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demo.json")
	demo, err := os.ReadFile("../../config/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, demo, 0o600)
	base, done, stop := start(t, hooks{}, "-config", path, "-dev")
	if got := get(t, base+"/healthz", nil); got != 200 {
		t.Errorf("healthz: %d", got)
	}
	stop()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// TestMetricsPlacement: metrics are on the main listener only when asked
// for with -metrics-addr main; off serves none.
func TestMetricsPlacement(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want int
	}{{"main", 200}, {"off", 404}} {
		base, done, stop := start(t, hooks{}, "-metrics-addr", tc.addr)
		if got := get(t, base+"/metrics", nil); got != tc.want {
			t.Errorf("-metrics-addr %s: /metrics on -addr answers %d, want %d", tc.addr, got, tc.want)
		}
		stop()
		<-done
	}
}

// With -demo-carrier simulate a booked parcel travels by itself: at a
// time scale of a million its days take a fraction of a second, and the
// server's loops carry it to the end of its route (the server's ids are
// random, and so is the route's outcome: mostly delivered, now and then
// sent back or lost), notifying the customer on the way.
func TestSimulatedCarrier(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off", "-demo-carrier", "simulate", "-time-scale", "1000000",
			"-notify-interval", "50ms"}, io.Discard, hooks{listening: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	status, body := do(t, "POST", base+"/v1/som/shipments.createAndBook", trackingAuth, `{"external_id": "SIM-1",
		"sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
		"receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"], "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
		"parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}]}`)
	if status != 200 {
		t.Fatalf("createAndBook: %d %s", status, body)
	}
	// The server runs on the real clock: wait for its loops, up to a
	// deadline.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, parcels := do(t, "GET", base+"/v1/delivery_tracking/parcels?site_id=demo-site&external_id=SIM-1", trackingAuth, "")
		_, notes := do(t, "GET", base+"/v1/delivery_tracking/notifications?site_id=demo-site&external_id=SIM-1", trackingAuth, "")
		ended := strings.Contains(parcels, "STEP_DELIVERED_TO_CONSUMER") || strings.Contains(parcels, "STEP_DELIVERED_TO_MERCHANT") ||
			strings.Contains(parcels, "STEP_TERMINATED")
		if ended && strings.Contains(notes, `"TRIGGERED"`) {
			for _, want := range []string{`"STEP_SUBMITTED_TO_CARRIER"`, `"STEP_ON_ROUTE"`} {
				if !strings.Contains(parcels, want) {
					t.Errorf("the parcel has no %s: %s", want, parcels)
				}
			}
			if !strings.Contains(notes, `"SUBMITTED_TO_CARRIER"`) {
				t.Errorf("no SUBMITTED_TO_CARRIER notification: %s", notes)
			}
			// The demo catalog's carrier tracking page.
			if !strings.Contains(parcels, `"carrier_link":"https://north-parcel.example/track?id=`) {
				t.Errorf("no carrier_link from the demo catalog: %s", parcels)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the parcel did not travel: %s\n%s", parcels, notes)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCompactFlag: -compact copies the bolt file a stopped server used into
// a new file that a server then serves from.
func TestCompactFlag(t *testing.T) {
	dir := t.TempDir()
	db, compacted := filepath.Join(dir, "dk.db"), filepath.Join(dir, "dk.compact.db")
	s, err := bolt.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put("c", "k", []byte("v"), storage.AnyVersion)
		return err
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := run(t.Context(), []string{"-db", db, "-compact", compacted}, io.Discard, hooks{stdout: &out}); err != nil {
		t.Fatalf("-compact: %v", err)
	}
	if !strings.Contains(out.String(), compacted+": ") {
		t.Errorf("-compact printed %q", out.String())
	}
	c, err := bolt.Open(compacted, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	err = c.View(t.Context(), func(tx storage.Tx) error {
		r, err := tx.Get("c", "k")
		if err == nil && string(r.Value) != "v" {
			err = fmt.Errorf("value %q", r.Value)
		}
		return err
	})
	if err != nil {
		t.Errorf("the compacted file: %v", err)
	}
}

// TestDemoRefundExecutorFlag: with -refund-executor demo, a refund made by
// the merchant's inspection is paid out by the demo executor through the
// outbox: PENDING in the report's answer, SUCCESS once it has committed.
func TestDemoRefundExecutorFlag(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-store", "memory", "-addr", "127.0.0.1:0", "-metrics-addr", "off", "-refund-executor", "demo"}, io.Discard,
			hooks{listening: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a + "/returns"
	case err := <-done:
		t.Fatalf("run returned before listening: %v", err)
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	key := map[string]string{"X-Api-Key": "demo-key"}
	steps := []struct {
		method, path string
		header       map[string]string
		body         string
		want         string
	}{
		{"POST", "/merchant/order", key, `{"foreignId":"R-1","currencyCode":"SEK","email":"anna@example.com",
			"items":[{"foreignLineItemId":"L1","sku":"TENT","quantity":1,"purchasePriceAmount":{"amount":999.00}}]}`, `"foreignId":"R-1"`},
		{"POST", "/customer/return", nil, `{"siteId":"demo-site","foreignOrderId":"R-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`, `"AWAITING_RETURN"`},
		{"POST", "/merchant/items/returned", key, `{"returnId":1,"items":[{"sku":"TENT","quantity":1,"approved":true}]}`, `"status":"PENDING"`},
		{"GET", "/merchant/return/1", key, "", `"status":"SUCCESS","foreignId":"demo-refund-1-1"`},
	}
	for _, st := range steps {
		status, body := do(t, st.method, base+st.path, st.header, st.body)
		if status/100 != 2 || !strings.Contains(body, st.want) {
			t.Fatalf("%s %s: %d %s, want %s", st.method, st.path, status, body, st.want)
		}
	}
}

// TestVersion: -version prints the module's release and exits without
// serving, and GET /healthz reports the same release.
func TestVersion(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"-version", "-addr", "256.0.0.1:bad"}, io.Discard, hooks{stdout: &out}); err != nil {
		t.Fatalf("-version: %v", err)
	}
	want := deliverykit.Version()
	if want == "" {
		t.Fatal("deliverykit.Version() is empty")
	}
	if diff := cmp.Diff("deliverykit "+want+"\n", out.String()); diff != "" {
		t.Errorf("-version printed (-want +got):\n%s", diff)
	}

	base, done, stop := start(t, hooks{})
	resp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	var health struct{ Status, Version string }
	err = json.NewDecoder(resp.Body).Decode(&health)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(struct{ Status, Version string }{"ok", want}, health); diff != "" {
		t.Errorf("GET /healthz (-want +got):\n%s", diff)
	}
	stop()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}
