package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"
)

// newClient returns a client keeping one idle connection per load client,
// so every request after the first reuses a connection.
func newClient(clients int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = clients * 2
	t.MaxIdleConnsPerHost = clients * 2
	t.DisableCompression = true
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// result is the measurement of one endpoint on one server, summed over
// rounds.
type result struct {
	requests  int
	elapsed   time.Duration
	latencies []time.Duration // every request's, from the Go loader
	// p50s and p99s are the percentiles wrk reported, one per run: wrk
	// gives percentiles, not latencies.
	p50s, p99s []time.Duration
	rss, hwm   int64 // after the last run
	// cpu is the CPU time the server's processes used during the runs
	// (not the loader's, nor a database's): per request, a cost that
	// other work on the machine moves much less than requests/s.
	cpu time.Duration
	// rounds are each run's own figures, in the order of the rounds.
	rounds []round
}

// round is one run's requests/s and CPU per request: paired with the
// run of another endpoint in the same round, minutes apart at most, a
// ratio that a shared machine's slow phases move less than totals.
type round struct {
	rate float64
	cpu  time.Duration
}

func (r *result) add(o *result) {
	r.rounds = append(r.rounds, round{o.rate(), o.cpuPerRequest()})
	r.requests += o.requests
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...)
	r.p50s = append(r.p50s, o.p50s...)
	r.p99s = append(r.p99s, o.p99s...)
	r.rss, r.hwm = o.rss, o.hwm
	r.cpu += o.cpu
}

// cpuPerRequest is the server's CPU time per request, 0 when unknown.
func (r *result) cpuPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.requests)
}

// p50 is the median latency over all runs; from wrk's runs, the median of
// their medians.
func (r *result) p50() time.Duration {
	if len(r.latencies) == 0 && len(r.p50s) > 0 {
		s := slices.Sorted(slices.Values(r.p50s))
		return s[len(s)/2]
	}
	return r.percentile(0.50)
}

// p99 is the 99th percentile over all runs; from wrk's runs, the worst of
// theirs.
func (r *result) p99() time.Duration {
	if len(r.latencies) == 0 && len(r.p99s) > 0 {
		return slices.Max(r.p99s)
	}
	return r.percentile(0.99)
}

func (r *result) rate() float64 {
	if r.elapsed <= 0 {
		return 0
	}
	return float64(r.requests) / r.elapsed.Seconds()
}

// percentile returns the p-th percentile (0 < p ≤ 1) of the latencies.
func (r *result) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	slices.Sort(r.latencies)
	i := int(float64(len(r.latencies))*p+0.5) - 1
	return r.latencies[max(0, min(i, len(r.latencies)-1))]
}

// load sends specs from clients goroutines in a closed loop for d, client
// i sending specs[i % len(specs)] (a scaled-out server's processes share
// the clients). The first failed request ends the run with its error: a
// benchmark of errors measures nothing.
func load(ctx context.Context, c *http.Client, specs []spec, clients int, d time.Duration) (*result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		total    = &result{}
		wg       sync.WaitGroup
	)
	start := time.Now()
	deadline := start.Add(d)
	for i := range clients {
		s := specs[i%len(specs)]
		wg.Go(func() {
			lat := make([]time.Duration, 0, 1024)
			var err error
			for time.Now().Before(deadline) && ctx.Err() == nil {
				t0 := time.Now()
				if err = once(ctx, c, s); err != nil {
					break
				}
				lat = append(lat, time.Since(t0))
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil && ctx.Err() == nil {
				firstErr = err
				cancel()
			}
			total.requests += len(lat)
			total.latencies = append(total.latencies, lat...)
		})
	}
	wg.Wait()
	total.elapsed = time.Since(start)
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return total, nil
}

// keys numbers the Idempotency-Keys of keyed requests; runID keeps them
// apart from an earlier run's on the same bolt file.
var (
	keys  atomic.Uint64
	runID = strconv.FormatInt(time.Now().UnixNano(), 36)
)

// once is send without keeping the body: the load generator reads and
// discards it, as a client that decodes it would read it.
func once(ctx context.Context, c *http.Client, s spec) error {
	var body io.Reader
	if s.body != nil {
		body = &byteReader{b: s.body}
	}
	req, err := http.NewRequestWithContext(ctx, s.method, s.url, body)
	if err != nil {
		return err
	}
	req.Header = s.header
	if s.keyed {
		req.Header = s.header.Clone()
		req.Header.Set("Idempotency-Key", "bench-"+runID+"-"+strconv.FormatUint(keys.Add(1), 10))
	}
	req.ContentLength = int64(len(s.body))
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s", s.method, s.url, resp.Status)
	}
	return nil
}

// byteReader is a bytes.Reader without the seeking the transport does not
// need.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) Read(p []byte) (int, error) {
	if r.i >= len(r.b) {
		return 0, io.EOF
	}
	n := copy(p, r.b[r.i:])
	r.i += n
	return n, nil
}

// report prints one line per endpoint and server, then the targets
// (BENCHMARKS.md, "Targets").
func report(w io.Writer, cfg options, servers []*server, results map[string]map[string]*result) {
	fmt.Fprintf(w, "deliverykit HTTP benchmark: %d clients, %d rounds of %v per endpoint and server, alternating; load from %s\n\n",
		cfg.clients, cfg.rounds, cfg.duration, cfg.loader)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "endpoint\tserver\treq/s\tp50\tp99\tratio\tvs pgx\tRSS MiB\tpeak MiB\tCPU µs/req\tCPU ratio\t")
	for _, ep := range cfg.endpoints {
		rs := results[ep.name]
		base := rs[modeBaseline]
		for _, s := range servers {
			r := rs[s.mode]
			vsPgx := "-"
			if p, ok := rs[modePgx]; ok && p.rate() > 0 && (s.mode == modePostgres || s.mode == modePostgres2) {
				vsPgx = fmt.Sprintf("%.2f", r.rate()/p.rate())
			}
			fmt.Fprintf(tw, "%s\t%s\t%.0f\t%v\t%v\t%.2f\t%s\t%.1f\t%.1f\t%.1f\t%.2f\t\n", ep.title, s.mode, r.rate(),
				r.p50().Round(time.Microsecond), r.p99().Round(time.Microsecond),
				ratioOf(r.rate(), base.rate()), vsPgx, float64(r.rss)/(1<<20), float64(r.hwm)/(1<<20),
				float64(r.cpuPerRequest())/float64(time.Microsecond),
				ratioOf(float64(base.cpuPerRequest()), float64(r.cpuPerRequest())))
		}
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, ep := range cfg.endpoints {
		rs := results[ep.name]
		if one, two := rs[modePostgres], rs[modePostgres2]; one != nil && two != nil {
			fmt.Fprintf(w, "scale-out %s: postgres×2 / postgres: %.2fx\n", ep.title, ratioOf(two.rate(), one.rate()))
		}
	}
	for _, ep := range cfg.endpoints {
		target, ok := ep.targets[cfg.loader]
		if !ok {
			continue
		}
		rs := results[ep.name]
		ratio := rs[modeMemory].rate() / rs[modeBaseline].rate()
		verdict := "met"
		if ratio < target {
			verdict = "MISSED"
		}
		line := fmt.Sprintf("target %s on memory: >= %.2fx baseline: %.2fx %s", ep.title, target, ratio, verdict)
		if rr := rateRatios(rs[modeMemory].rounds, rs[modeBaseline].rounds); len(rr) > 1 {
			// How far apart the rounds are tells whether the verdict
			// is the code's or the machine's.
			line += fmt.Sprintf(" (rounds %.2f–%.2f)", slices.Min(rr), slices.Max(rr))
		}
		fmt.Fprintln(w, line)
	}
	for _, ep := range cfg.endpoints {
		plain, ok := results[ep.unkeyed]
		if !ok {
			continue
		}
		for _, s := range servers {
			keyed, unkeyed := results[ep.name][s.mode], plain[s.mode]
			if s.mode == modeBaseline || s.mode == modePgx || keyed == nil || unkeyed == nil {
				continue
			}
			c := keyCost(keyed.rounds, unkeyed.rounds)
			if len(c.cpu) == 0 {
				continue
			}
			line := fmt.Sprintf("key cost %s on %s: CPU per request %s, requests/s %s", ep.title, s.mode, c.cpu, c.rate)
			if s.mode == modeMemory || s.mode == modeBolt {
				verdict := "met"
				if c.cpu.median() > keyCostTarget {
					verdict = "MISSED"
				}
				line += fmt.Sprintf("; target <= %.2fx: %s", keyCostTarget, verdict)
			}
			fmt.Fprintln(w, line)
		}
	}
}

// keyCostTarget is the most a create with an Idempotency-Key may cost
// over one without, in CPU per request, on memory and on bolt.
const keyCostTarget = 1.10

// ratios are one figure per round.
type ratios []float64

// median is the middle ratio (the mean of the two middle ones for an
// even count); 0 for none.
func (r ratios) median() float64 {
	if len(r) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(r))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// String is the median, and the range when there is more than one.
func (r ratios) String() string {
	switch len(r) {
	case 0:
		return "-"
	case 1:
		return fmt.Sprintf("%.2fx", r[0])
	}
	return fmt.Sprintf("%.2fx (rounds %.2f–%.2f)", r.median(), slices.Min(r), slices.Max(r))
}

// keyCost pairs the rounds of a keyed endpoint with those of its unkeyed
// twin on one server: CPU per request keyed ÷ unkeyed (above 1: the key
// costs), and requests/s unkeyed ÷ keyed (likewise). Rounds missing a
// figure on either side are left out.
func keyCost(keyed, unkeyed []round) (c struct{ cpu, rate ratios }) {
	for i := range min(len(keyed), len(unkeyed)) {
		if k, u := keyed[i], unkeyed[i]; k.cpu > 0 && u.cpu > 0 {
			c.cpu = append(c.cpu, float64(k.cpu)/float64(u.cpu))
		}
	}
	c.rate = rateRatios(unkeyed, keyed)
	return c
}

// rateRatios is each round's requests/s of a over b's in the same round,
// leaving out the rounds where either has none.
func rateRatios(a, b []round) ratios {
	var r ratios
	for i := range min(len(a), len(b)) {
		if a[i].rate > 0 && b[i].rate > 0 {
			r = append(r, a[i].rate/b[i].rate)
		}
	}
	return r
}

// ratioOf is a / b, 0 when b is 0.
func ratioOf(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
