package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
	"github.com/deliverykit/deliverykit/wiring"
)

// The server processes are this binary run again with these variables set.
// Environment variables rather than flags, so the smoke test's binary (whose
// flags belong to the testing package) can be a server too.
const (
	serveEnv    = "DELIVERYKIT_BENCH_SERVE"     // the mode
	dbEnv       = "DELIVERYKIT_BENCH_DB"        // the bolt file
	sizesEnv    = "DELIVERYKIT_BENCH_SIZES"     // the baseline's response sizes, JSON {path: bytes}
	sweepEnv    = "DELIVERYKIT_BENCH_SWEEP"     // the retention sweeper's interval, 0: none
	oneWriteEnv = "DELIVERYKIT_BENCH_ONE_WRITE" // "false": serve without httpapi.Listener
	postgresEnv = "DELIVERYKIT_BENCH_POSTGRES"  // the PostgreSQL DSN of the postgres and pgx modes
	schemaEnv   = "DELIVERYKIT_BENCH_SCHEMA"    // the schema holding that mode's tables
	// ProfileEnv, when set to a directory, makes every server write a CPU
	// profile of its whole run to DIR/MODE.pprof, for go tool pprof.
	profileEnv = "DELIVERYKIT_BENCH_CPUPROFILE"
	// ContentionEnv, when set to a directory, makes every server record
	// every contended lock and every blocking wait (sync, channels,
	// select) and write them to DIR/MODE.mutex.pprof and
	// DIR/MODE.block.pprof when it stops: where requests wait rather
	// than work, which a CPU profile does not show.
	contentionEnv = "DELIVERYKIT_BENCH_CONTENTION"
)

const (
	modeBaseline = "baseline"
	modeMemory   = "memory"
	modeBolt     = "bolt"
	// modePgx is the baseline with one raw pgx INSERT (POST) or SELECT
	// (GET) of a row of the answer's size per request: the ceiling of any
	// service that writes or reads one row per request on that database.
	modePgx = "pgx"
	// modePostgres is the example server's handler on storage/postgres.
	modePostgres = "postgres"
	// modePostgres2 is two such servers on one database, the load split
	// between them: the scale-out path.
	modePostgres2 = "postgres×2"
)

// server is a running server: one process, or (postgres×2) several
// serving one store.
type server struct {
	mode string
	base string // http://host:port
	cmd  *exec.Cmd
	in   io.WriteCloser
	more []*server // the further processes of a scaled-out server
}

// bases is the address of every process of s.
func (s *server) bases() []string {
	out := []string{s.base}
	for _, m := range s.more {
		out = append(out, m.base)
	}
	return out
}

// startServer runs this binary in server mode and waits until it listens.
// The child serves until its standard input closes, so it never outlives
// this process, even when this one is killed. env adds to the child's
// environment.
func startServer(ctx context.Context, mode, dir string, sizes map[string]int, env ...string) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), serveEnv+"="+mode, dbEnv+"="+filepath.Join(dir, mode+".db"))
	cmd.Env = append(cmd.Env, env...)
	if sizes != nil {
		b, err := json.Marshal(sizes)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, sizesEnv+"="+string(b))
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{mode: mode, cmd: cmd, in: in}
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		s.stop()
		return nil, fmt.Errorf("%s server did not start (read %q: %v)", mode, line, err)
	}
	s.base = "http://" + addr
	return s, nil
}

// stop closes the child's standard input, which ends it, and waits for it.
func (s *server) stop() {
	for _, m := range s.more {
		m.stop()
	}
	s.in.Close()
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

// memory returns the resident set (VmRSS) and its peak (VmHWM) in bytes
// of the server's processes together, or zeros where /proc is not
// available.
func (s *server) memory() (rss, hwm int64) {
	for _, m := range s.more {
		r, h := m.memory()
		rss, hwm = rss+r, hwm+h
	}
	r, h := s.processMemory()
	return rss + r, hwm + h
}

// cpuTime returns the CPU time (user and system) the server's processes
// have used so far, or 0 where /proc is not available.
func (s *server) cpuTime() time.Duration {
	var total time.Duration
	for _, m := range s.more {
		total += m.cpuTime()
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return total
	}
	return total + parseCPUTime(string(b))
}

// userHZ is the unit of the CPU times in /proc/PID/stat: Linux reports
// them in USER_HZ, 100 per second on every architecture Go runs on.
const userHZ = 100

// parseCPUTime reads utime and stime from the contents of a
// /proc/PID/stat file. The command name (field 2) is in parentheses and
// may itself hold spaces and parentheses, so the fields are counted from
// the last ')'. It returns 0 for anything it cannot read.
func parseCPUTime(stat string) time.Duration {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0
	}
	var ticks int64
	for _, v := range f[11:13] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ
}

func (s *server) processMemory() (rss, hwm int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "VmRSS":
			rss = kb << 10
		case "VmHWM":
			hwm = kb << 10
		}
	}
	return rss, hwm
}

// serve is the child: it listens on a loopback port, prints "listening
// ADDR", and serves until stdin reaches EOF.
func serve(mode string, stdin io.Reader, stdout io.Writer) error {
	if dir := os.Getenv(profileEnv); dir != "" {
		f, err := os.Create(filepath.Join(dir, mode+".pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if dir := os.Getenv(contentionEnv); dir != "" {
		runtime.SetMutexProfileFraction(1)
		runtime.SetBlockProfileRate(1)
		defer writeProfiles(dir, mode, "mutex", "block")
		defer writeRuntimeMetrics(dir, mode)
	}
	var handler http.Handler
	switch mode {
	case modeBaseline:
		sizes := make(map[string]int)
		if err := json.Unmarshal([]byte(os.Getenv(sizesEnv)), &sizes); err != nil {
			return fmt.Errorf("%s: %w", sizesEnv, err)
		}
		h, err := newBaseline(sizes)
		if err != nil {
			return err
		}
		handler = h
	case modePgx:
		sizes := make(map[string]int)
		if err := json.Unmarshal([]byte(os.Getenv(sizesEnv)), &sizes); err != nil {
			return fmt.Errorf("%s: %w", sizesEnv, err)
		}
		h, closeDB, err := newPgxBaseline(context.Background(), os.Getenv(postgresEnv), os.Getenv(schemaEnv), sizes)
		if err != nil {
			return err
		}
		defer closeDB()
		handler = h
	case modeMemory, modeBolt, modePostgres:
		var store storage.Store = memory.New()
		switch mode {
		case modeBolt:
			s, err := bolt.Open(os.Getenv(dbEnv), nil)
			if err != nil {
				return err
			}
			store = s
		case modePostgres:
			s, err := postgres.Open(context.Background(), os.Getenv(postgresEnv), &postgres.Options{Schema: os.Getenv(schemaEnv)})
			if err != nil {
				return err
			}
			store = s
		}
		defer store.Close()
		sweep, err := time.ParseDuration(cmp.Or(os.Getenv(sweepEnv), "0s"))
		if err != nil {
			return fmt.Errorf("%s: %w", sweepEnv, err)
		}
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		h, err := exampleHandler(ctx, store, sweep)
		if err != nil {
			return err
		}
		handler = h
	default:
		return fmt.Errorf("unknown mode %q", mode)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// The example server's settings.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	if mode != modeBaseline && mode != modePgx && os.Getenv(oneWriteEnv) != "false" {
		// As the example server: answers leave in one write.
		srv.ConnContext = httpapi.ConnContext
		ln = httpapi.Listener(ln)
	}
	go srv.Serve(ln)
	fmt.Fprintf(stdout, "listening %s\n", ln.Addr())
	io.Copy(io.Discard, stdin) // until the parent closes it or exits
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(ctx)
}

// writeProfiles writes the runtime profiles named to DIR/MODE.NAME.pprof,
// reporting failures on stderr: they must not fail the benchmark.
func writeProfiles(dir, mode string, names ...string) {
	for _, name := range names {
		f, err := os.Create(filepath.Join(dir, mode+"."+name+".pprof"))
		if err == nil {
			err = errors.Join(pprof.Lookup(name).WriteTo(f, 0), f.Close())
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench/http server %s: %s profile: %v\n", mode, name, err)
		}
	}
}

// runtimeMetrics are what writeRuntimeMetrics reports: the collector's
// cycles, its stop-the-world pauses and CPU, and how long runnable
// goroutines waited for a thread.
var runtimeMetrics = []string{
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
	"/sched/latencies:seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
	"/gc/heap/allocs:bytes",
}

// writeRuntimeMetrics writes the runtime's counters and latency
// percentiles for the server's whole run to DIR/MODE.runtime.txt.
func writeRuntimeMetrics(dir, mode string) {
	samples := make([]metrics.Sample, len(runtimeMetrics))
	for i, name := range runtimeMetrics {
		samples[i].Name = name
	}
	metrics.Read(samples)
	var b strings.Builder
	for _, s := range samples {
		switch s.Value.Kind() {
		case metrics.KindUint64:
			fmt.Fprintf(&b, "%s %d\n", s.Name, s.Value.Uint64())
		case metrics.KindFloat64:
			fmt.Fprintf(&b, "%s %.3f\n", s.Name, s.Value.Float64())
		case metrics.KindFloat64Histogram:
			h := s.Value.Float64Histogram()
			fmt.Fprintf(&b, "%s count %d p50 %s p99 %s p99.9 %s max %s\n", s.Name, histCount(h),
				histQuantile(h, 0.5), histQuantile(h, 0.99), histQuantile(h, 0.999), histQuantile(h, 1))
		}
	}
	if err := os.WriteFile(filepath.Join(dir, mode+".runtime.txt"), []byte(b.String()), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "bench/http server %s: runtime metrics: %v\n", mode, err)
	}
}

func histCount(h *metrics.Float64Histogram) uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// histQuantile is the upper bound of the bucket holding quantile q of h.
func histQuantile(h *metrics.Float64Histogram, q float64) time.Duration {
	n := histCount(h)
	if n == 0 {
		return 0
	}
	want := uint64(math.Ceil(q * float64(n)))
	var seen uint64
	for i, c := range h.Counts {
		seen += c
		if seen >= max(want, 1) {
			up := h.Buckets[i+1]
			if math.IsInf(up, 1) {
				up = h.Buckets[i]
			}
			return time.Duration(up * float64(time.Second))
		}
	}
	return 0
}

// exampleHandler builds the handler the way examples/server does, with the
// demo configuration, and runs its background work (Services.Run, the
// retention sweep every sweep) until ctx ends (sweep 0: none at all). Its access log is formatted at INFO, as the example
// server's, and discarded rather than written to a terminal.
func exampleHandler(ctx context.Context, store storage.Store, sweep time.Duration) (http.Handler, error) {
	cfg := config.Demo()
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	svcs, err := wiring.New(store, cfg, wiring.Options{PublicURL: "http://127.0.0.1:8080", Logger: log,
		Intervals: wiring.Intervals{Retention: sweep}})
	if err != nil {
		return nil, err
	}
	if sweep > 0 {
		go svcs.Run(ctx)
	}
	return svcs.Handler(httpapi.Options{
		Keys:   cfg.Keyring(),
		Logger: log,
		Health: func(ctx context.Context) error {
			return store.View(ctx, func(storage.Tx) error { return nil })
		},
		// One demo site sends the whole load: the benchmark measures
		// the endpoints, not how fast they answer 429.
		RateLimits: httpapi.RateLimits{Site: httpapi.NoRateLimit, WidgetToken: httpapi.NoRateLimit, Address: httpapi.NoRateLimit},
	}), nil
}
