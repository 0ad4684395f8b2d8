package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// With -load wrk the measurements are made by wrk (Debian's package wrk), a
// load generator written in C, run as its own process, instead of by this
// program's Go client. Everything else is the same: the servers, the
// seeding, the alternation, the report. It answers the objection that a Go
// load generator sharing the machine favours one server over another: both
// loaders give the ratios, measured differently.

// measureWrk runs wrk against s with clients connections for d (whole
// seconds: wrk counts in seconds) and returns what it measured. dir holds
// the Lua script that gives wrk the method, headers and body.
func measureWrk(ctx context.Context, s spec, clients int, d time.Duration, dir string) (*result, error) {
	script, err := os.CreateTemp(dir, "wrk-*.lua")
	if err != nil {
		return nil, err
	}
	defer os.Remove(script.Name())
	if _, err := script.WriteString(wrkScript(s)); err != nil {
		script.Close()
		return nil, err
	}
	if err := script.Close(); err != nil {
		return nil, err
	}
	secs := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, "wrk", "-t", "2", "-c", strconv.Itoa(clients),
		"-d", strconv.Itoa(secs)+"s", "--latency", "-s", filepath.Base(script.Name()), s.url)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("wrk: %w\n%s", err, out)
	}
	r, err := parseWrk(string(out))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", s.method, s.url, err)
	}
	return r, nil
}

// measureWrkSplit is measureWrk against every spec at once, the clients
// shared between them (a scaled-out server's processes, one wrk each).
// Requests add up; the latencies reported are the highest of the wrk
// runs' (wrk gives percentiles, not its samples).
func measureWrkSplit(ctx context.Context, specs []spec, clients int, d time.Duration, dir string) (*result, error) {
	if len(specs) == 1 {
		return measureWrk(ctx, specs[0], clients, d, dir)
	}
	results := make([]*result, len(specs))
	errs := make([]error, len(specs))
	var wg sync.WaitGroup
	for i, s := range specs {
		n := clients / len(specs)
		if i < clients%len(specs) {
			n++
		}
		wg.Go(func() { results[i], errs[i] = measureWrk(ctx, s, max(1, n), d, dir) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	total := &result{p50s: []time.Duration{0}, p99s: []time.Duration{0}}
	for _, r := range results {
		total.requests += r.requests
		total.elapsed = max(total.elapsed, r.elapsed)
		total.p50s[0] = max(total.p50s[0], r.p50s[0])
		total.p99s[0] = max(total.p99s[0], r.p99s[0])
	}
	return total, nil
}

// wrkScript is the Lua that makes wrk send s. Lua long brackets of a level
// the body does not contain keep it verbatim.
func wrkScript(s spec) string {
	var b strings.Builder
	fmt.Fprintf(&b, "wrk.method = %q\n", s.method)
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range s.header {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, "wrk.headers[%q] = %q\n", k, s.header.Get(k))
	}
	if s.body != nil {
		eq := ""
		for strings.Contains(string(s.body), "]"+eq+"]") {
			eq += "="
		}
		// A long bracket drops a newline right after the opening one.
		fmt.Fprintf(&b, "wrk.body = [%s[\n%s]%s]\n", eq, s.body, eq)
	}
	if s.keyed {
		// A key per request: wrk's threads have Lua states of their own,
		// numbered by setup.
		b.WriteString(`local threads = 0
function setup(thread) threads = threads + 1; thread:set("tid", threads) end
local n = 0
function request()
  n = n + 1
  wrk.headers["Idempotency-Key"] = "bench-" .. os.time() .. "-" .. tostring(tid) .. "-" .. n
  return wrk.format()
end
`)
	}
	return b.String()
}

var (
	wrkTotal   = regexp.MustCompile(`(?m)^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m),`)
	wrkLatency = regexp.MustCompile(`(?m)^\s*(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkErrors  = regexp.MustCompile(`(?m)^\s*(Non-2xx or 3xx responses|Socket errors):.*$`)
)

// parseWrk reads wrk's report (run with --latency). Any non-2xx response or
// socket error fails the measurement, as in the Go loader.
func parseWrk(out string) (*result, error) {
	if m := wrkErrors.FindString(out); m != "" {
		return nil, fmt.Errorf("wrk reported %s", strings.TrimSpace(m))
	}
	m := wrkTotal.FindStringSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("no request count in wrk's output:\n%s", out)
	}
	n, _ := strconv.Atoi(m[1])
	elapsed, err := wrkDuration(m[2], m[3])
	if err != nil {
		return nil, err
	}
	r := &result{requests: n, elapsed: elapsed}
	for _, lm := range wrkLatency.FindAllStringSubmatch(out, -1) {
		d, err := wrkDuration(lm[2], lm[3])
		if err != nil {
			return nil, err
		}
		if lm[1] == "50" {
			r.p50s = append(r.p50s, d)
		} else {
			r.p99s = append(r.p99s, d)
		}
	}
	if len(r.p50s) != 1 || len(r.p99s) != 1 {
		return nil, fmt.Errorf("no latency distribution in wrk's output (run with --latency):\n%s", out)
	}
	return r, nil
}

func wrkDuration(v, unit string) (time.Duration, error) {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, err
	}
	scale := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute}[unit]
	return time.Duration(f * float64(scale)), nil
}

// haveWrk reports whether wrk is on the PATH.
func haveWrk() bool {
	_, err := exec.LookPath("wrk")
	return err == nil
}
