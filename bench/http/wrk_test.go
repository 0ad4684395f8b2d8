package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const wrkOutput = `Running 1s test @ http://127.0.0.1:41234/v1/siw/session.create
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.52ms    1.10ms  20.00ms   85.00%
    Req/Sec    10.50k     1.00k   12.00k    70.00%
  Latency Distribution
     50%    1.33ms
     75%    1.80ms
     90%    2.50ms
     99%    8.18ms
  21024 requests in 1.00s, 60.00MB read
Requests/sec:  21021.12
Transfer/sec:     59.90MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk(wrkOutput)
	if err != nil {
		t.Fatal(err)
	}
	want := &result{requests: 21024, elapsed: time.Second, p50s: []time.Duration{1330 * time.Microsecond}, p99s: []time.Duration{8180 * time.Microsecond}}
	if diff := cmp.Diff(want, r, cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("parseWrk (-want +got):\n%s", diff)
	}
	for _, tc := range []struct{ name, out, wantErr string }{
		{"non-2xx", strings.Replace(wrkOutput, "Requests/sec", "  Non-2xx or 3xx responses: 7\nRequests/sec", 1), "Non-2xx"},
		{"socket errors", strings.Replace(wrkOutput, "Requests/sec", "  Socket errors: connect 0, read 3, write 0, timeout 0\nRequests/sec", 1), "Socket errors"},
		{"no latency", strings.Replace(wrkOutput, "     99%    8.18ms\n", "", 1), "latency distribution"},
		{"not wrk", "unable to connect to 127.0.0.1:1 Connection refused", "no request count"},
	} {
		if _, err := parseWrk(tc.out); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: parseWrk = %v; want an error containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestWrkScript(t *testing.T) {
	s := spec{method: http.MethodPost, url: "http://x/y", header: http.Header{"Authorization": {"Bearer k"}, "Content-Type": {"application/json"}},
		body: []byte(`{"a":"]]","b":"]=]"}`)}
	want := `wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer k"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [==[
{"a":"]]","b":"]=]"}]==]
`
	if diff := cmp.Diff(want, wrkScript(s)); diff != "" {
		t.Errorf("wrkScript (-want +got):\n%s", diff)
	}
}

// TestSmokeWrk runs the benchmark briefly with wrk as the load generator,
// when wrk is installed (CI installs it): every endpoint answers 2xx under
// wrk's load on every server, which also proves the Lua scripts send what
// the Go loader sends.
func TestSmokeWrk(t *testing.T) {
	if _, err := exec.LookPath("wrk"); err != nil {
		if os.Getenv("DELIVERYKIT_REQUIRE_WRK") != "" {
			t.Fatal("wrk is not installed and DELIVERYKIT_REQUIRE_WRK is set")
		}
		t.Skip("wrk is not installed (Debian: apt-get install wrk)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	if err := run(ctx, []string{"-load", "wrk", "-duration", "1s", "-warmup", "0", "-rounds", "1", "-clients", "4"}, &out, &progress); err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	if !strings.Contains(out.String(), "load from wrk") || !strings.Contains(out.String(), "target GET /v1/siw/session.get on memory") {
		t.Errorf("report:\n%s", out.String())
	}
}
