package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary be a benchmark server too: run starts this
// same binary with serveEnv set.
func TestMain(m *testing.M) {
	if mode := os.Getenv(serveEnv); mode != "" {
		if err := serve(mode, os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString("bench/http server: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole benchmark very briefly: the servers start
// (with $DELIVERYKIT_POSTGRES_DSN, as in CI, the pgx baseline and the
// postgres and postgres×2 servers too), seeding succeeds on every store,
// every endpoint answers 2xx under load on every server, and the report
// has a line per endpoint and server with the targets after it. It takes
// a few seconds; CI runs it.
func TestSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var out, progress bytes.Buffer
	if err := run(ctx, []string{"-duration", "100ms", "-warmup", "0", "-rounds", "1", "-clients", "4"}, &out, &progress); err != nil {
		t.Fatalf("run: %v\nprogress:\n%s", err, progress.String())
	}
	report := out.String()
	modes := []string{modeBaseline, modeMemory, modeBolt}
	if os.Getenv("DELIVERYKIT_POSTGRES_DSN") != "" {
		modes = append(modes, modePgx, modePostgres, modePostgres2)
	}
	for _, ep := range endpoints {
		for _, mode := range modes {
			found := false
			for line := range strings.SplitSeq(report, "\n") {
				f := strings.Fields(line)
				if strings.Contains(line, ep.title) && len(f) > 10 && f[len(f)-10] == mode {
					found = true
				}
			}
			if !found {
				t.Errorf("no line for %s on %s in the report:\n%s", ep.title, mode, report)
			}
		}
	}
	for _, want := range []string{"target POST /v1/siw/session.create on memory", "target GET /v1/siw/session.get on memory",
		"key cost POST /v1/siw/session.create, Idempotency-Key on memory: CPU per request ",
		"key cost POST /v1/siw/session.create, Idempotency-Key on bolt: CPU per request "} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-rounds", "0"}, "at least 1"},
		{[]string{"-duration", "0s"}, "must be positive"},
		{[]string{"-endpoints", "siw.create,nope"}, `unknown endpoint "nope"`},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-load", "ab"}, "must be go or wrk"},
		{[]string{"-load", "wrk", "-duration", "1500ms"}, "whole seconds"},
	} {
		_, err := parseFlags(tc.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("parseFlags(%q) = %v; want an error containing %q", tc.args, err, tc.wantErr)
		}
	}
	c, err := parseFlags([]string{"-endpoints", "siw.get,returns"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.endpoints) != 2 || c.endpoints[0].name != "siw.get" || c.endpoints[1].name != "returns" {
		t.Errorf("endpoints = %+v", c.endpoints)
	}
}

func TestParseCPUTime(t *testing.T) {
	// Fields 14 and 15 (utime, stime) are 1500 and 250 ticks: 17.5 s.
	rest := " S 1 2 3 4 5 6 7 8 9 10 1500 250 0 0 20 0 9 0 100 200 300"
	for _, tc := range []struct {
		name, stat string
		want       time.Duration
	}{
		{"plain name", "4242 (http.test)" + rest, 17500 * time.Millisecond},
		{"a name with spaces and parentheses", "4242 (a b) (c))" + rest, 17500 * time.Millisecond},
		{"no parenthesis", "4242 http.test" + rest, 0},
		{"cut short", "4242 (x) S 1 2 3", 0},
		{"not a number", "4242 (x) S 1 2 3 4 5 6 7 8 9 10 x 250 0", 0},
		{"empty", "", 0},
	} {
		if got := parseCPUTime(tc.stat); got != tc.want {
			t.Errorf("%s: parseCPUTime = %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestKeyCost(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name           string
		keyed, unkeyed []round
		cpu, rate      string
		median         float64
	}{
		{"paired by round", []round{{800, 12 * ms}, {900, 11 * ms}, {500, 20 * ms}}, []round{{1000, 10 * ms}, {1000, 10 * ms}, {1000, 10 * ms}},
			"1.20x (rounds 1.10–2.00)", "1.25x (rounds 1.11–2.00)", 1.2},
		{"even count: the mean of the middle two", []round{{1, 11 * ms}, {1, 13 * ms}}, []round{{1, 10 * ms}, {1, 10 * ms}},
			"1.20x (rounds 1.10–1.30)", "1.00x (rounds 1.00–1.00)", 1.2},
		{"one round", []round{{500, 15 * ms}}, []round{{1000, 10 * ms}}, "1.50x", "2.00x", 1.5},
		{"rounds without a figure are left out", []round{{0, 0}, {900, 11 * ms}}, []round{{1000, 10 * ms}, {1000, 10 * ms}, {1000, 10 * ms}},
			"1.10x", "1.11x", 1.1},
		{"nothing to pair", nil, []round{{1000, 10 * ms}}, "-", "-", 0},
	} {
		c := keyCost(tc.keyed, tc.unkeyed)
		if got := c.cpu.String(); got != tc.cpu {
			t.Errorf("%s: CPU %s; want %s", tc.name, got, tc.cpu)
		}
		if got := c.rate.String(); got != tc.rate {
			t.Errorf("%s: rate %s; want %s", tc.name, got, tc.rate)
		}
		if got := c.cpu.median(); got < tc.median-1e-9 || got > tc.median+1e-9 {
			t.Errorf("%s: median %v; want %v", tc.name, got, tc.median)
		}
	}
}

// TestReportRounds feeds report three rounds of made-up figures: the
// target line gives the rounds' range, and the key cost lines pair each
// keyed round with the plain round of the same server.
func TestReportRounds(t *testing.T) {
	cfg, err := parseFlags([]string{"-endpoints", "siw.create,siw.create.key"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	servers := []*server{{mode: modeBaseline}, {mode: modeMemory}, {mode: modeBolt}}
	// rate per round (requests in one second) and CPU per request, in µs.
	figures := map[string]map[string][][2]int{
		"siw.create": {
			modeBaseline: {{1000, 50}, {1000, 50}, {800, 60}},
			modeMemory:   {{500, 100}, {550, 100}, {320, 120}},
			modeBolt:     {{300, 200}, {300, 200}, {300, 200}},
		},
		"siw.create.key": {
			modeBaseline: {{1000, 50}, {1000, 50}, {1000, 50}},
			modeMemory:   {{400, 120}, {500, 110}, {200, 150}},
			modeBolt:     {{150, 400}, {200, 300}, {250, 260}},
		},
	}
	results := map[string]map[string]*result{}
	for ep, byMode := range figures {
		results[ep] = map[string]*result{}
		for mode, rounds := range byMode {
			total := &result{}
			for _, f := range rounds {
				total.add(&result{requests: f[0], elapsed: time.Second, cpu: time.Duration(f[0]*f[1]) * time.Microsecond})
			}
			results[ep][mode] = total
		}
	}
	var out bytes.Buffer
	report(&out, cfg, servers, results)
	for _, want := range []string{
		// memory ÷ baseline per round: 0.50, 0.55, 0.40; in total 1370/2800.
		"target POST /v1/siw/session.create on memory: >= 0.50x baseline: 0.49x MISSED (rounds 0.40–0.55)\n",
		// CPU keyed ÷ plain per round: 1.20, 1.10, 1.25; requests/s plain ÷ keyed: 1.25, 1.10, 1.60.
		"key cost POST /v1/siw/session.create, Idempotency-Key on memory: CPU per request 1.20x (rounds 1.10–1.25), requests/s 1.25x (rounds 1.10–1.60); target <= 1.10x: MISSED\n",
		// bolt: 2.00, 1.50, 1.30; 2.00, 1.50, 1.20.
		"key cost POST /v1/siw/session.create, Idempotency-Key on bolt: CPU per request 1.50x (rounds 1.30–2.00), requests/s 1.50x (rounds 1.20–2.00); target <= 1.10x: MISSED\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "on baseline:") {
		t.Errorf("report gives a key cost for the baseline:\n%s", out.String())
	}
}
