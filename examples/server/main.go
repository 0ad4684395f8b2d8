// Command server runs every deliverykit area behind its HTTP adapter, on an
// embedded bbolt file by default.
//
//	go run ./examples/server                      # 127.0.0.1:8080, ./deliverykit.db, demo configuration
//	go run ./examples/server -store memory        # nothing kept after exit
//	go run ./examples/server -store postgres -dsn 'host=db.internal dbname=deliverykit'  # shared by several servers
//	go run ./examples/server -config sites.json   # your sites, keys and catalog
//
// With no -config the embedded demo configuration is used: sites demo-site
// (API key demo-key) and demo-site-2 (API key demo-key-2). Those keys are
// public; the demo configuration is for development only.
//
// SIGINT or SIGTERM stops the server gracefully: it stops accepting
// connections, lets requests in flight finish (up to -shutdown-timeout), then
// closes the store, so the bolt file is always closed cleanly.
//
// With -store postgres, any number of servers may run on one database behind
// a load balancer. Keep the password out of -dsn, where other local users can
// read it in the process list: PGPASSWORD or a ~/.pgpass file supply it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
	"github.com/deliverykit/deliverykit/wiring"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr, nil); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
		os.Exit(2)
	}
}

// flags are the command line of the server.
type flags struct {
	addr            string
	db              string
	dsn             string
	store           string
	configPath      string
	logLevel        slog.Level
	shutdownTimeout time.Duration
	publicURL       string
	notifyInterval  time.Duration
}

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.db, "db", "deliverykit.db", "bolt database file (with -store bolt)")
	fs.StringVar(&f.store, "store", "bolt", "store: bolt (one file, survives restarts), memory (lost at exit) or postgres (shared by several servers)")
	fs.StringVar(&f.dsn, "dsn", "", "PostgreSQL connection string (with -store postgres), e.g. \"host=db.internal dbname=deliverykit pool_max_conns=16\"")
	fs.StringVar(&f.configPath, "config", "", "configuration file (JSON); empty uses the embedded demo configuration")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log level: DEBUG, INFO, WARN or ERROR")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long requests in flight may take to finish at shutdown")
	fs.StringVar(&f.publicURL, "public-url", "", "scheme and host customers reach the server at, for tracking and return links; empty: http://<listening address>")
	fs.DurationVar(&f.notifyInterval, "notify-interval", 10*time.Second, "how often due customer notifications are sent")
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	if f.notifyInterval <= 0 {
		return f, fmt.Errorf("-notify-interval must be positive, got %v", f.notifyInterval)
	}
	switch {
	case f.store != "bolt" && f.store != "memory" && f.store != "postgres":
		return f, fmt.Errorf("-store: want bolt, memory or postgres, got %q", f.store)
	case f.store == "postgres" && f.dsn == "":
		return f, errors.New("-store postgres needs -dsn")
	case f.store != "postgres" && f.dsn != "":
		return f, fmt.Errorf("-dsn is only for -store postgres, not %s", f.store)
	}
	return f, nil
}

// run serves until ctx is done. ready, when not nil, is called with the
// listening address once the server accepts connections (tests listen on
// port 0).
func run(ctx context.Context, args []string, stderr io.Writer, ready func(addr string)) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: f.logLevel}))

	cfg := config.Demo()
	if f.configPath != "" {
		if cfg, err = config.Load(f.configPath); err != nil {
			return err
		}
	} else {
		log.Warn("using the embedded demo configuration: its API keys are public, use -config outside development")
	}

	store, err := openStore(ctx, f)
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing the store", "err", err)
		}
	}()

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	publicURL := f.publicURL
	if publicURL == "" {
		publicURL = "http://" + ln.Addr().String()
	}
	svcs, err := wiring.New(store, cfg, wiring.Options{PublicURL: publicURL, Logger: log})
	if err != nil {
		ln.Close()
		return err
	}
	handler := svcs.Handler(httpapi.Options{
		Keys:   cfg.Keyring(),
		Logger: log,
		Health: func(ctx context.Context) error {
			return store.View(ctx, func(storage.Tx) error { return nil })
		},
	})

	// Notifications are sent by a loop that ends with the server, before
	// the store closes.
	notifyCtx, stopNotify := context.WithCancel(context.Background())
	notifyDone := make(chan struct{})
	go func() {
		defer close(notifyDone)
		svcs.Notify.Run(notifyCtx, f.notifyInterval, log)
	}()
	defer func() {
		stopNotify()
		<-notifyDone
	}()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("deliverykit listening", "addr", ln.Addr().String(), "store", f.store, "db", dbName(f))
	if ready != nil {
		ready(ln.Addr().String())
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), f.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}

func openStore(ctx context.Context, f flags) (storage.Store, error) {
	switch f.store {
	case "memory":
		return memory.New(), nil
	case "postgres":
		return postgres.Open(ctx, f.dsn, nil)
	}
	return bolt.Open(f.db, nil)
}

// dbName is what the start-up log says the data is in. A DSN is not
// logged: it may hold a password.
func dbName(f flags) string {
	if f.store != "bolt" {
		return ""
	}
	return f.db
}
