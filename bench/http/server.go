package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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
