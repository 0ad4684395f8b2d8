// Command http measures deliverykit's HTTP serving side by side with a
// baseline, in one run, so the figures are ratios that survive the drift of
// a shared machine:
//
//	go run ./bench/http                           # 3 rounds of 2 s per endpoint and server, 32 clients
//	go run ./bench/http -duration 5s -rounds 5    # longer, steadier
//	go run ./bench/http -clients 8 -endpoints siw.create,siw.get
//	go run ./bench/http -sweep-interval 0          # without the retention sweeper
//	go run ./bench/http -one-write=false           # without httpapi.Listener
//
// It starts three servers, each in its own process (this binary run again
// in server mode), so that each one's resident memory can be read from
// /proc and none steals the other's garbage collector:
//
//   - baseline: a net/http server of this module that decodes the request
//     body (for the POST endpoints: the same create-session JSON) into a
//     struct with encoding/json and encodes a response of the same size as
//     deliverykit's, doing nothing else. It is the ceiling of what any Go
//     JSON-over-HTTP service can do on this machine.
//   - memory: the example server's handler (wiring.New + Handler with the
//     demo configuration, the example server's http.Server settings and an
//     INFO-level access log formatted and then discarded) on storage/memory.
//   - bolt: the same on storage/bolt, a fresh file in a temporary directory,
//     with fsync on every commit as in production.
//
// Given a PostgreSQL database (-postgres DSN, by default
// $DELIVERYKIT_POSTGRES_DSN, which `.ci/postgres.sh start` prints for a
// throw-away cluster), it runs the scale-out path too, each in fresh
// schemas dropped at the end:
//
//   - pgx: the baseline plus one raw pgx INSERT (POST) or SELECT by key
//     (GET) of a row the size of deliverykit's answer: the ceiling of any
//     service writing or reading one row per request on that database.
//   - postgres: the example server's handler on storage/postgres.
//   - postgres×2: two such server processes on one store, the clients
//     split between them (with wrk: one wrk per process, requests added,
//     the worse percentiles kept).
//
// The report then gives each postgres server's ratio to pgx as well, and
// postgres×2's throughput over postgres's.
//
// The memory and bolt servers run their background work as the example
// server does (wiring.Services.Run), with the retention sweeper every
// -sweep-interval (the example server: every minute) and the demo
// configuration's retention: the measurement includes the sweeps' reads,
// the time index every write keeps and the outbox's and webhook sender's
// idle looks (-sweep-interval 0: no background work at all). They
// serve through httpapi.Listener, as the example server does, so that an
// answer leaves in one write (-one-write=false: a plain listener); the
// baseline always serves a plain listener.
//
// Before measuring, it seeds the memory and bolt servers over HTTP: a
// checkout session to read, a booked shipment whose parcel is looked up,
// and 25 completed checkouts with a customer return each, so the returns
// page is full. It then alternates the servers for every endpoint and round
// (baseline, memory, bolt, baseline, …), so that slow phases of the machine
// hit all three alike, and prints, per endpoint and server, requests/s,
// p50/p99 latency, the ratio of requests/s to the baseline's, the
// server's resident memory (VmRSS) and its peak (VmHWM) after its last
// run, and the CPU time its processes used per request (from /proc, the
// loader's and a database's excluded) with the baseline's over it: the
// "CPU ratio" is the throughput ratio the server would have if CPU were
// all it waited for, and other work on the machine moves it much less
// than it moves requests/s. For siw.create.key it adds the key's cost
// ("key cost", on every server): each round's CPU per request and
// requests/s set against siw.create's round on the same server, minutes
// before, with their median and range across the rounds. Each target of
// BENCHMARKS.md it measures gets a line with its verdict and the range of
// the rounds' own ratios: a verdict inside that range is the machine's.
//
// The load generator is in this process: closed loop, -clients concurrent
// keep-alive connections, each sending its next request when the previous
// response is read. It shares the machine's cores with the server it
// measures, equally for all three servers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"
)

func main() {
	if mode := os.Getenv(serveEnv); mode != "" {
		if err := serve(mode, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "bench/http server:", err)
			os.Exit(1)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "bench/http:", err)
		}
		os.Exit(2)
	}
}

// options is the command line.
type options struct {
	duration  time.Duration
	warmup    time.Duration
	rounds    int
	clients   int
	loader    string // "go" or "wrk"
	sweep     time.Duration
	oneWrite  bool // serve through httpapi.Listener
	endpoints []endpoint
	postgres  string // the DSN of the postgres, postgres×2 and pgx servers; "": none
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var c options
	fs := flag.NewFlagSet("bench/http", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&c.duration, "duration", 2*time.Second, "length of one measurement (one endpoint, one server, one round)")
	fs.DurationVar(&c.warmup, "warmup", 500*time.Millisecond, "unmeasured load per endpoint and server before the first round")
	fs.IntVar(&c.rounds, "rounds", 3, "how many times every endpoint is measured on every server, alternating")
	fs.IntVar(&c.clients, "clients", 32, "concurrent keep-alive connections")
	names := fs.String("endpoints", "all", "comma-separated endpoints to measure: "+strings.Join(endpointNames(), ",")+" or all")
	fs.StringVar(&c.loader, "load", "go", "load generator: go (this program's client) or wrk (Debian's wrk, whole seconds)")
	fs.DurationVar(&c.sweep, "sweep-interval", time.Second, "how often the memory and bolt servers run their retention sweeper (0: no background work at all)")
	fs.StringVar(&c.postgres, "postgres", os.Getenv("DELIVERYKIT_POSTGRES_DSN"),
		"PostgreSQL DSN for the postgres, postgres×2 and pgx servers (default: $DELIVERYKIT_POSTGRES_DSN, which .ci/postgres.sh start prints; empty: those servers are not run)")
	fs.BoolVar(&c.oneWrite, "one-write", true, "serve the memory and bolt servers through httpapi.Listener, as the example server does (false: a plain listener, to measure what it buys)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if c.duration <= 0 || c.warmup < 0 || c.rounds < 1 || c.clients < 1 || c.sweep < 0 {
		return c, fmt.Errorf("-duration must be positive, -warmup and -sweep-interval not negative, -rounds and -clients at least 1")
	}
	switch c.loader {
	case "go":
	case "wrk":
		if c.duration%time.Second != 0 {
			return c, fmt.Errorf("-load wrk measures whole seconds; -duration %v is not", c.duration)
		}
		if !haveWrk() {
			return c, fmt.Errorf("-load wrk: wrk is not on the PATH (Debian: apt-get install wrk)")
		}
	default:
		return c, fmt.Errorf("-load must be go or wrk, not %q", c.loader)
	}
	eps, err := selectEndpoints(*names)
	if err != nil {
		return c, err
	}
	c.endpoints = eps
	return c, nil
}

// run starts the servers, seeds them, measures and prints the report to
// stdout; progress goes to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// The servers read it from their environment.
	if err := os.Setenv(sweepEnv, cfg.sweep.String()); err != nil {
		return err
	}
	if err := os.Setenv(oneWriteEnv, strconv.FormatBool(cfg.oneWrite)); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "deliverykit-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	mem, err := startServer(ctx, modeMemory, dir, nil)
	if err != nil {
		return err
	}
	defer mem.stop()
	blt, err := startServer(ctx, modeBolt, dir, nil)
	if err != nil {
		return err
	}
	defer blt.stop()
	stores := []*server{mem, blt}
	var schemas []string
	if cfg.postgres == "" {
		fmt.Fprintln(stderr, "no PostgreSQL DSN (-postgres, $DELIVERYKIT_POSTGRES_DSN): the postgres, postgres×2 and pgx servers are skipped")
	} else {
		// Fresh schemas of this run, dropped at its end: one store for
		// the single server, one shared by the two of postgres×2.
		run := fmt.Sprintf("bench_%d_%d", os.Getpid(), time.Now().Unix())
		schemas = []string{run + "_one", run + "_two", run + "_pgx"}
		defer func() {
			if err := dropSchemas(context.WithoutCancel(ctx), cfg.postgres, schemas...); err != nil {
				fmt.Fprintln(stderr, "dropping the benchmark's schemas:", err)
			}
		}()
		pg, err := startServer(ctx, modePostgres, dir, nil, postgresEnv+"="+cfg.postgres, schemaEnv+"="+schemas[0])
		if err != nil {
			return err
		}
		defer pg.stop()
		pg2, err := startScaledOut(ctx, 2, dir, postgresEnv+"="+cfg.postgres, schemaEnv+"="+schemas[1])
		if err != nil {
			return err
		}
		defer pg2.stop()
		stores = append(stores, pg, pg2)
	}

	client := newClient(cfg.clients)
	fixtures := map[*server]fixture{}
	for _, s := range stores {
		fmt.Fprintf(stderr, "seeding the %s server\n", s.mode)
		f, err := seed(ctx, client, s.base)
		if err != nil {
			return fmt.Errorf("seeding %s: %w", s.mode, err)
		}
		fixtures[s] = f
	}
	// The baselines answer with as many bytes as deliverykit does.
	sizes, err := responseSizes(ctx, client, mem.base, fixtures[mem], cfg.endpoints)
	if err != nil {
		return err
	}
	base, err := startServer(ctx, modeBaseline, dir, sizes)
	if err != nil {
		return err
	}
	defer base.stop()
	fixtures[base] = fixtures[mem]
	servers := []*server{base, mem, blt}
	if cfg.postgres != "" {
		pgx, err := startServer(ctx, modePgx, dir, sizes, postgresEnv+"="+cfg.postgres, schemaEnv+"="+schemas[2])
		if err != nil {
			return err
		}
		defer pgx.stop()
		fixtures[pgx] = fixtures[mem]
		servers = append(servers, pgx, stores[2], stores[3])
	}
	results := make(map[string]map[string]*result)
	for _, ep := range cfg.endpoints {
		results[ep.name] = make(map[string]*result)
		for _, s := range servers {
			results[ep.name][s.mode] = &result{}
		}
	}

	if err := measure(ctx, cfg, client, servers, fixtures, dir, results, stderr); err != nil {
		return err
	}
	report(stdout, cfg, servers, results)
	return nil
}

// measure warms every server up on every endpoint, then loads each for
// cfg.rounds rounds, adding each measurement to results.
func measure(ctx context.Context, cfg options, client *http.Client, servers []*server, fixtures map[*server]fixture, dir string, results map[string]map[string]*result, stderr io.Writer) error {
	if cfg.warmup > 0 {
		for _, ep := range cfg.endpoints {
			for _, s := range servers {
				fmt.Fprintf(stderr, "warm-up %s on %s\n", ep.name, s.mode)
				if _, err := load(ctx, client, requests(ep, s, fixtures[s]), cfg.clients, cfg.warmup); err != nil {
					return fmt.Errorf("%s on %s: %w", ep.name, s.mode, err)
				}
			}
		}
	}
	for round := 1; round <= cfg.rounds; round++ {
		for _, ep := range cfg.endpoints {
			for _, s := range servers {
				fmt.Fprintf(stderr, "round %d/%d: %s on %s\n", round, cfg.rounds, ep.name, s.mode)
				var r *result
				var err error
				specs := requests(ep, s, fixtures[s])
				cpu0 := s.cpuTime()
				if cfg.loader == "wrk" {
					r, err = measureWrkSplit(ctx, specs, cfg.clients, cfg.duration, dir)
				} else {
					r, err = load(ctx, client, specs, cfg.clients, cfg.duration)
				}
				if err != nil {
					return fmt.Errorf("%s on %s: %w", ep.name, s.mode, err)
				}
				r.rss, r.hwm = s.memory()
				r.cpu = s.cpuTime() - cpu0
				results[ep.name][s.mode].add(r)
			}
		}
	}
	return nil
}

// requests is ep's request to each process of s.
func requests(ep endpoint, s *server, f fixture) []spec {
	var out []spec
	for _, b := range s.bases() {
		out = append(out, ep.request(b, f))
	}
	return out
}

// startScaledOut starts n postgres servers on one store (env names it).
func startScaledOut(ctx context.Context, n int, dir string, env ...string) (*server, error) {
	first, err := startServer(ctx, modePostgres, dir, nil, env...)
	if err != nil {
		return nil, err
	}
	first.mode = modePostgres2
	for range n - 1 {
		m, err := startServer(ctx, modePostgres, dir, nil, env...)
		if err != nil {
			first.stop()
			return nil, err
		}
		first.more = append(first.more, m)
	}
	return first, nil
}
