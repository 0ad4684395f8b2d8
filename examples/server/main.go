// Command server runs every deliverykit area behind its HTTP adapter, on an
// embedded bbolt file by default.
//
//	go run ./examples/server                      # 127.0.0.1:8080, ./deliverykit.db, demo configuration
//	go run ./examples/server -store memory        # nothing kept after exit
//	go run ./examples/server -store postgres -dsn 'host=db.internal dbname=deliverykit'  # shared by several servers
//	go run ./examples/server -config sites.json   # your sites, keys and catalog
//	go run ./examples/server -demo-carrier manual  # parcels move only when carrier events are posted
//
// With no -config the embedded demo configuration is used: sites demo-site
// (API key demo-key) and demo-site-2 (API key demo-key-2). Those keys are
// public; the demo configuration is for development only. With it the
// server also serves a demo shop at /demo/shop (see demoshop.go; -demo-shop
// serves it with a -config too), and booked parcels travel by themselves,
// a journey in about two minutes (-demo-carrier simulate -time-scale 1440).
//
// SIGINT or SIGTERM stops the server gracefully: GET /readyz starts
// answering 503 so that load balancers stop sending traffic, the server
// keeps serving for -drain-delay (5s by default) while they notice, then
// stops accepting connections, lets requests in flight finish (up to
// -shutdown-timeout), and closes the store, so the bolt file is always
// closed cleanly. GET /healthz
// answers while the process serves; GET /readyz only while the store takes
// writes (probed at most every 5 seconds) and the server is not stopping.
//
// Requests are rate limited per site, per widget token and per client
// address (see httpapi.RateLimits for the defaults):
//
//	-rate-limits site=500:1000           # a site may send 500 requests a second, 1000 at once
//	-rate-limits address=off,widget=10   # no limit per address; 10 a second per widget token
//	-rate-limits off                     # no rate limits at all
//	-trusted-proxies 10.0.0.0/8          # read the client address from X-Forwarded-For of these proxies
//
// Metrics (Prometheus text at /metrics) are served on a listener of their
// own, 127.0.0.1:9090 by default, so that they stay private until you
// choose where to scrape them:
//
//	-metrics-addr 10.0.0.5:9090          # an interface only your Prometheus reaches
//	-metrics-addr main                   # on -addr beside the API: whoever reaches the API reads them
//	-metrics-addr off                    # none
//
// Complaint photo uploads are received at most -upload-budget bytes at once
// (64MiB) and -uploads-per-address at a time per client address (2); past
// either an upload is refused before its body is read (see
// httpapi.UploadLimits).
//
// With -demo-carrier simulate (the default with the demo configuration),
// the demo carrier is the carrier simulator:
// every parcel booked through the shipments API travels on its own along
// the product's timetable in the catalog (collected at the cut-off,
// delivered within the estimate the checkout showed, mostly), reporting
// its steps to tracking, which notifies the customer and the merchant's
// webhooks. -time-scale runs the journeys faster (1440: a day a minute);
// -simulator-seed makes them repeat. -demo-carrier manual (the default
// with -config) books and reports nothing: carrier events are posted to
// /parcel.event.
//
// With -refund-executor demo, refunds are paid out by a demo payment
// provider: a new refund is PENDING, then SUCCESS, or FAILED for a share
// -refund-failure-rate of them, at once or after -refund-delay. The
// default leaves refunds to the merchant (AWAITING_EXTERNAL_REFUND until
// reported through the returns API).
//
// With -store postgres, any number of servers may run on one database behind
// a load balancer. Keep the password out of -dsn, where other local users can
// read it in the process list: PGPASSWORD or a ~/.pgpass file supply it.
package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/deliverykit/deliverykit/wiring"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// After the first signal the default action is back: a second one
	// stops the process at once, drain or not.
	context.AfterFunc(ctx, stop)
	if err := run(ctx, os.Args[1:], os.Stderr, hooks{}); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
		os.Exit(2)
	}
}

// flags are the command line of the server.
type flags struct {
	addr                                     string
	db                                       string
	dsn                                      string
	store                                    string
	configPath                               string
	checkConfig                              string
	console                                  bool
	hashPassword                             bool
	compact                                  string
	logFormat                                string
	metricsAddr                              string
	logLevel                                 slog.Level
	shutdownTimeout                          time.Duration
	publicURL                                string
	notifyInterval                           time.Duration
	webhookInterval                          time.Duration
	sweepInterval                            time.Duration
	webhooksAllowPrivate                     bool
	outboxLease, webhookLease                time.Duration
	webhookTimeout, webhookConnectTimeout    time.Duration
	webhookWorkers, webhookPerEndpoint       int
	trackingLinkLifetime, statusLinkLifetime time.Duration
	drainDelay                               time.Duration
	rateLimits                               httpapi.RateLimits
	demoCarrier                              string
	timeScale                                float64
	simulatorSeed                            uint64
	refundExecutor                           string
	refundFailureRate                        float64
	refundDelay                              time.Duration
	photoDir                                 string
	uploads                                  httpapi.UploadLimits
	dev                                      bool
	demoShop                                 bool
	version                                  bool
}

// defaultDrainDelay is -drain-delay's default: at shutdown /readyz
// answers 503 this long while everything else is still served, so that a
// load balancer probing every second or two stops sending requests before
// the listener closes. Balancers that probe less often need more.
const defaultDrainDelay = 5 * time.Second

// drainDelayDefault is what -drain-delay defaults to: defaultDrainDelay,
// except in this package's tests, which stop servers by the dozen.
var drainDelayDefault = defaultDrainDelay

// defaultMetricsAddr is where metrics are served unless -metrics-addr
// says otherwise: the loopback interface, so that they are private until
// an operator chooses where to scrape them.
const defaultMetricsAddr = "127.0.0.1:9090"

func parseFlags(args []string, stderr io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8080", "address to listen on")
	fs.StringVar(&f.db, "db", "deliverykit.db", "bolt database file (with -store bolt)")
	fs.StringVar(&f.store, "store", "bolt", "store: bolt (one file, survives restarts), memory (lost at exit) or postgres (shared by several servers)")
	fs.StringVar(&f.dsn, "dsn", "", "PostgreSQL connection string (with -store postgres), e.g. \"host=db.internal dbname=deliverykit pool_max_conns=16\"")
	fs.StringVar(&f.configPath, "config", "", "configuration file (JSON); empty uses the embedded demo configuration")
	fs.BoolVar(&f.dev, "dev", false, "development: let -config use the public API keys and image URL secret of the demo configuration (config/demo.json)")
	fs.BoolVar(&f.version, "version", false, "print the deliverykit release this server is built from and exit (GET /healthz reports it too)")
	fs.BoolVar(&f.console, "console", false, "serve the merchant console at /console/ (on by default with the demo configuration): the configuration's staff accounts log in there")
	fs.BoolVar(&f.hashPassword, "hash-password", false, "read a password from standard input, print its argon2id hash for a staff account's password_hash and exit")
	fs.StringVar(&f.checkConfig, "check-config", "", "validate this configuration file, print a summary of it and exit (status 2 when it is invalid)")
	fs.StringVar(&f.compact, "compact", "", "copy the bolt file -db into this new file, keeping only the pages in use, and exit; run it with the server stopped, then replace -db with the copy")
	fs.TextVar(&f.logLevel, "log-level", slog.LevelInfo, "log level: DEBUG, INFO, WARN or ERROR")
	fs.StringVar(&f.logFormat, "log-format", "text", "log format: text (logfmt) or json (one object per line)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", defaultMetricsAddr, "where Prometheus metrics are served at /metrics: a host:port on a listener of their own (keep it private), main on -addr with the API (public, whoever reaches the API reads them), or off for none")
	fs.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long requests in flight may take to finish at shutdown")
	fs.StringVar(&f.publicURL, "public-url", "", "scheme and host customers reach the server at, for tracking and return links; empty: http://<listening address>")
	fs.DurationVar(&f.notifyInterval, "notify-interval", 10*time.Second, "how often due customer notifications are sent")
	fs.DurationVar(&f.webhookInterval, "webhook-interval", 10*time.Second, "how often due webhook deliveries are retried (new ones are sent at once)")
	fs.DurationVar(&f.sweepInterval, "sweep-interval", time.Minute, "how often records the configuration's retention no longer keeps are deleted")
	fs.DurationVar(&f.outboxLease, "outbox-lease", 0, "how long a cross-area event being delivered is left to its delivery before it is delivered again, e.g. after a crash; 0: 1 minute. Keep it longer than the slowest delivery")
	fs.DurationVar(&f.webhookLease, "webhook-lease", 0, "how long a webhook being sent is left to its attempt before it is sent again, e.g. after a crash; 0: -webhook-timeout plus 1 minute. Keep it longer than the timeout")
	fs.DurationVar(&f.webhookTimeout, "webhook-timeout", 0, "how long one webhook attempt may take, connecting, sending and reading the answer; 0: 10s")
	fs.DurationVar(&f.webhookConnectTimeout, "webhook-connect-timeout", 0, "how long connecting to a webhook endpoint may take (within -webhook-timeout); 0: 5s")
	fs.IntVar(&f.webhookWorkers, "webhook-workers", 0, "how many webhook attempts are in flight at once, across all sites; a site's endpoints together take at most half; 0: 16")
	fs.IntVar(&f.webhookPerEndpoint, "webhook-per-endpoint", 0, "how many attempts one webhook endpoint has in flight at most, so a slow receiver holds no more workers; 0: 1")
	fs.BoolVar(&f.webhooksAllowPrivate, "webhooks-allow-private", false, "let webhook endpoints resolve to loopback and private addresses (development only: otherwise a webhook URL could reach internal services)")
	fs.DurationVar(&f.trackingLinkLifetime, "tracking-link-lifetime", 0, "how long a customer tracking link works after it was last handed out; 0: 90 days")
	fs.DurationVar(&f.statusLinkLifetime, "status-link-lifetime", 0, "how long a return status link works after the return was created; 0: 180 days")
	fs.DurationVar(&f.drainDelay, "drain-delay", drainDelayDefault, "at shutdown, how long to keep serving with /readyz answering 503 before closing connections, so load balancers can notice; at least their probe interval times the failures they wait for (0: close at once)")
	fs.StringVar(&f.demoCarrier, "demo-carrier", "", "the carrier that books shipments: manual (books and reports nothing; carrier events are posted) or simulate (parcels travel by themselves and report their steps); empty: simulate with the demo configuration, manual with -config")
	fs.Float64Var(&f.timeScale, "time-scale", 0, "with -demo-carrier simulate: how many times faster than real time parcels travel (1440: a day a minute); 0: 1, or 1440 when the demo configuration chose the simulator")
	fs.BoolVar(&f.demoShop, "demo-shop", false, "serve the demo shop at /demo/shop (on by default with the demo configuration): anyone who reaches it places orders on the configuration's demo-site, or first site with a catalog")
	fs.Uint64Var(&f.simulatorSeed, "simulator-seed", 0, "with -demo-carrier simulate: the seed of the journeys' randomness (delays, failed attempts, parcels sent back)")
	fs.StringVar(&f.refundExecutor, "refund-executor", "merchant", "who pays refunds out: merchant (refunds wait as AWAITING_EXTERNAL_REFUND until the merchant reports them) or demo (a demo payment provider settles them, failing at -refund-failure-rate)")
	fs.Float64Var(&f.refundFailureRate, "refund-failure-rate", 0, "with -refund-executor demo: the share of refunds that fail, 0 to 1")
	fs.DurationVar(&f.refundDelay, "refund-delay", 0, "with -refund-executor demo: how long a refund stays PENDING before it settles; 0 settles at once")
	fs.StringVar(&f.photoDir, "photo-dir", "", "directory for the photos of customer complaints (created, mode 0700); empty keeps them in the store. Their download URLs are signed with the configuration's returns.image_url_secret")
	fs.Func("upload-budget", "bytes of complaint photo uploads received at once, e.g. 64MiB (the default), 256MiB or off; past it an upload is answered 503 before its body is read", func(v string) error {
		return parseSize(v, &f.uploads.BudgetBytes)
	})
	fs.IntVar(&f.uploads.PerAddress, "uploads-per-address", httpapi.DefaultUploadsPerAddress, "complaint photo uploads one client address may have in progress at once; past it 429. Negative: no bound")
	fs.Func("rate-limits", "rate limits: off, or a comma-separated list of site, widget and address = off, RATE or RATE:BURST (requests a second, requests at once); unlisted classes keep their defaults", func(v string) error {
		return parseRateLimits(v, &f.rateLimits)
	})
	fs.Func("trusted-proxies", "comma-separated addresses or CIDR blocks of the reverse proxies whose X-Forwarded-For names the client; empty: the connection's address is the client", func(v string) error {
		return parseProxies(v, &f.rateLimits.TrustedProxies)
	})
	if err := fs.Parse(args); err != nil {
		return f, err
	}
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	f.demoDefaults(fs)
	return f, f.check()
}

// Bounds of the webhook sender's flags: each worker may hold a connection.
const (
	maxWebhookWorkers     = 1024
	maxWebhookPerEndpoint = 8
)

// check refuses flag values the server cannot run with, naming the flag.
func (f flags) check() error {
	if f.drainDelay < 0 {
		return fmt.Errorf("-drain-delay must not be negative, got %v", f.drainDelay)
	}
	if f.outboxLease < 0 {
		return fmt.Errorf("-outbox-lease must not be negative, got %v", f.outboxLease)
	}
	if f.webhookLease < 0 {
		return fmt.Errorf("-webhook-lease must not be negative, got %v", f.webhookLease)
	}
	switch {
	case f.webhookTimeout < 0:
		return fmt.Errorf("-webhook-timeout must not be negative, got %v", f.webhookTimeout)
	case f.webhookConnectTimeout < 0:
		return fmt.Errorf("-webhook-connect-timeout must not be negative, got %v", f.webhookConnectTimeout)
	case f.webhookTimeout > 0 && f.webhookConnectTimeout > f.webhookTimeout:
		return fmt.Errorf("-webhook-connect-timeout (%v) must not exceed -webhook-timeout (%v)", f.webhookConnectTimeout, f.webhookTimeout)
	case f.webhookWorkers < 0 || f.webhookWorkers > maxWebhookWorkers:
		return fmt.Errorf("-webhook-workers must be between 0 and %d, got %d", maxWebhookWorkers, f.webhookWorkers)
	case f.webhookPerEndpoint < 0 || f.webhookPerEndpoint > maxWebhookPerEndpoint:
		return fmt.Errorf("-webhook-per-endpoint must be between 0 and %d, got %d", maxWebhookPerEndpoint, f.webhookPerEndpoint)
	}
	switch {
	case f.demoCarrier != "manual" && f.demoCarrier != "simulate":
		return fmt.Errorf("-demo-carrier: want manual or simulate, got %q", f.demoCarrier)
	case f.timeScale != 0 && !(f.timeScale >= 1 && f.timeScale <= 1e6):
		return fmt.Errorf("-time-scale must be between 1 and 1000000, got %v", f.timeScale)
	case f.demoCarrier != "simulate" && (f.timeScale != 0 || f.simulatorSeed != 0):
		return errors.New("-time-scale and -simulator-seed are for -demo-carrier simulate")
	case f.refundExecutor != "merchant" && f.refundExecutor != "demo":
		return fmt.Errorf("-refund-executor: want merchant or demo, got %q", f.refundExecutor)
	case !(f.refundFailureRate >= 0 && f.refundFailureRate <= 1):
		return fmt.Errorf("-refund-failure-rate must be between 0 and 1, got %v", f.refundFailureRate)
	case f.refundDelay < 0:
		return fmt.Errorf("-refund-delay must not be negative, got %v", f.refundDelay)
	case f.refundExecutor != "demo" && (f.refundFailureRate != 0 || f.refundDelay != 0):
		return errors.New("-refund-failure-rate and -refund-delay are for -refund-executor demo")
	}
	if f.metricsAddr == "" {
		return errors.New("-metrics-addr: want a host:port, main or off, got nothing")
	}
	if f.logFormat != "text" && f.logFormat != "json" {
		return fmt.Errorf("-log-format: want text or json, got %q", f.logFormat)
	}
	if f.webhookInterval <= 0 {
		return fmt.Errorf("-webhook-interval must be positive, got %v", f.webhookInterval)
	}
	if f.sweepInterval <= 0 {
		return fmt.Errorf("-sweep-interval must be positive, got %v", f.sweepInterval)
	}
	if f.notifyInterval <= 0 {
		return fmt.Errorf("-notify-interval must be positive, got %v", f.notifyInterval)
	}
	switch {
	case f.store != "bolt" && f.store != "memory" && f.store != "postgres":
		return fmt.Errorf("-store: want bolt, memory or postgres, got %q", f.store)
	case f.store == "postgres" && f.dsn == "":
		return errors.New("-store postgres needs -dsn")
	case f.store != "postgres" && f.dsn != "":
		return fmt.Errorf("-dsn is only for -store postgres, not %s", f.store)
	}
	return nil
}

// parseRateLimits reads -rate-limits into rl.
func parseRateLimits(v string, rl *httpapi.RateLimits) error {
	if v == "off" {
		rl.Site, rl.WidgetToken, rl.Address = httpapi.NoRateLimit, httpapi.NoRateLimit, httpapi.NoRateLimit
		return nil
	}
	for item := range strings.SplitSeq(v, ",") {
		name, spec, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return fmt.Errorf("%q: want class=off, class=RATE or class=RATE:BURST", item)
		}
		var dst *httpapi.RateLimit
		switch name {
		case "site":
			dst = &rl.Site
		case "widget":
			dst = &rl.WidgetToken
		case "address":
			dst = &rl.Address
		default:
			return fmt.Errorf("%q: unknown class %q, want site, widget or address", item, name)
		}
		if spec == "off" {
			*dst = httpapi.NoRateLimit
			continue
		}
		rateText, burstText, hasBurst := strings.Cut(spec, ":")
		r, err := strconv.ParseFloat(rateText, 64)
		if err != nil || !(r > 0) || r > 1e9 {
			return fmt.Errorf("%q: the rate must be a positive number of requests a second", item)
		}
		*dst = httpapi.RateLimit{PerSecond: r}
		if hasBurst {
			b, err := strconv.Atoi(burstText)
			if err != nil || b <= 0 {
				return fmt.Errorf("%q: the burst must be a positive whole number", item)
			}
			dst.Burst = b
		}
	}
	return nil
}

// parseSize reads a byte count for -upload-budget: a whole number with an
// optional KiB, MiB or GiB, or off (stored as -1).
func parseSize(v string, dst *int64) error {
	if v == "off" {
		*dst = -1
		return nil
	}
	num, unit := v, int64(1)
	for _, u := range []struct {
		suffix string
		size   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			num, unit = n, u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/unit {
		return fmt.Errorf("%q: want a positive size such as 64MiB, or off", v)
	}
	*dst = n * unit
	return nil
}

// parseProxies reads -trusted-proxies: addresses or CIDR blocks.
func parseProxies(v string, dst *[]netip.Prefix) error {
	for item := range strings.SplitSeq(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if p, err := netip.ParsePrefix(item); err == nil {
			*dst = append(*dst, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(item)
		if err != nil {
			return fmt.Errorf("%q is neither an address nor a CIDR block", item)
		}
		*dst = append(*dst, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return nil
}

// hooks let tests follow the server's life; nil fields are not called.
type hooks struct {
	// listening gets the address once the server accepts connections
	// (tests listen on port 0).
	listening func(addr string)
	// metrics gets the address of the metrics listener once it accepts
	// connections.
	metrics func(addr string)
	// draining is called at shutdown once /readyz answers 503, while the
	// server still serves, before -drain-delay.
	draining func()
	// stdout gets -check-config's summary and -version; nil is os.Stdout.
	stdout io.Writer
	// stdin gives -hash-password its password; nil is os.Stdin.
	stdin io.Reader
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stderr io.Writer, h hooks) error {
	f, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if f.version {
		_, err := fmt.Fprintln(cmp.Or[io.Writer](h.stdout, os.Stdout), "deliverykit", deliverykit.Version())
		return err
	}
	if f.hashPassword {
		return hashPassword(cmp.Or[io.Reader](h.stdin, os.Stdin), cmp.Or[io.Writer](h.stdout, os.Stdout))
	}
	if f.checkConfig != "" || f.compact != "" {
		return runOffline(f, cmp.Or[io.Writer](h.stdout, os.Stdout))
	}
	log := newLogger(stderr, f)
	cfg, err := loadConfig(f, log)
	if err != nil {
		return err
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
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	opts := wiringOptions(f, "http://"+ln.Addr().String(), log, reg)
	if f.photoDir != "" {
		photos, err := returns.NewFileBlobs(f.photoDir)
		if err != nil {
			ln.Close()
			return fmt.Errorf("-photo-dir: %w", err)
		}
		defer photos.Close()
		opts.ComplaintPhotos = photos
	}
	if cfg.ImageURLSecret() == nil {
		log.Warn("the configuration has no returns.image_url_secret: complaint photo links work only until this server stops")
	}
	readiness := httpapi.NewReadiness(store, httpapi.ReadinessOptions{})
	if opts.Console != nil {
		// The operations page shows what /readyz answers.
		opts.Console.Ready = readiness.Check
	}
	svcs, err := wiring.New(store, cfg, opts)
	if err != nil {
		ln.Close()
		return err
	}
	if f.store == "bolt" {
		if err := releaseLeases(ctx, svcs, log); err != nil {
			ln.Close()
			return err
		}
	}
	handler := svcs.Handler(httpapi.Options{
		Keys:   cfg.Keyring(),
		Logger: log,
		Health: func(ctx context.Context) error {
			return store.View(ctx, func(storage.Tx) error { return nil })
		},
		Ready:      readiness.Check,
		RateLimits: f.rateLimits,
		Uploads:    f.uploads,
		Version:    deliverykit.Version(),
	})
	if f.demoShop {
		shop, err := newDemoShop(svcs, cfg, opts.PublicURL, log)
		if err != nil {
			ln.Close()
			return err
		}
		handler = shop.wrap(handler)
	}

	// The background work (retries, notifications, webhooks, simulated
	// parcels, retention) ends with the server, before the store closes.
	stopLoops := runBackground(svcs)
	defer stopLoops()
	handler, stopMetrics, err := serveMetrics(handler, reg, f, h, log)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	return serve(ctx, newServer(handler, log), httpapi.Listener(ln), readiness, f, h, log)
}

// hashPassword prints the argon2id hash of the password on the first
// line of in, for a staff account of the configuration.
func hashPassword(in io.Reader, out io.Writer) error {
	b, err := io.ReadAll(io.LimitReader(in, auth.MaxPasswordBytes+3))
	if err != nil {
		return fmt.Errorf("-hash-password: %w", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	h, err := auth.HashPassword(line)
	if err != nil {
		return fmt.Errorf("-hash-password: %w", err)
	}
	_, err = fmt.Fprintln(out, h)
	return err
}

// runOffline runs the commands that serve nothing: -check-config, and
// -compact of the -db file.
func runOffline(f flags, stdout io.Writer) error {
	if f.checkConfig != "" {
		return checkConfig(f.checkConfig, stdout)
	}
	before, after, err := bolt.Compact(f.db, f.compact)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d bytes; %s: %d bytes\n", f.db, before, f.compact, after)
	return nil
}

// releaseLeases frees the leases a killed predecessor held on the bolt
// file, which is this process's alone: the effects it was applying go out
// now rather than when its leases run out.
func releaseLeases(ctx context.Context, svcs *wiring.Services, log *slog.Logger) error {
	n, err := svcs.Outbox.ReleaseLeases(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		log.Info("outbox: released the leases of a previous run", "events", n)
	}
	if n, err = svcs.Webhooks.ReleaseLeases(ctx); err != nil {
		return err
	}
	if n > 0 {
		log.Info("webhooks: released the leases of a previous run", "deliveries", n)
	}
	return nil
}

// newLogger is the one logger every part of the server logs through, in
// -log-format at -log-level.
func newLogger(w io.Writer, f flags) *slog.Logger {
	o := &slog.HandlerOptions{Level: f.logLevel}
	if f.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, o))
	}
	return slog.New(slog.NewTextHandler(w, o))
}

// checkConfig validates the configuration file at path and prints what it
// configures.
func checkConfig(path string, w io.Writer) error {
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s: valid; sites %d\n", path, len(cfg.Sites))
	for _, st := range cfg.Sites {
		fmt.Fprintf(w, "site %s (%s): API keys %d, webhook endpoints %d", st.ID, st.Name, len(st.APIKeySHA256), len(st.Webhooks))
		if c := st.Catalog; c != nil {
			products := 0
			for _, cr := range c.Carriers {
				products += len(cr.Products)
			}
			fmt.Fprintf(w, "; catalog: warehouses %d, carriers %d, products %d, categories %d, pickup points %d, locales %s",
				len(c.Warehouses), len(c.Carriers), products, len(c.Categories), len(c.PickupLocations), strings.Join(c.Locales, " "))
			if c.ReturnPolicy != nil {
				fmt.Fprint(w, ", a return policy")
			}
		} else {
			fmt.Fprint(w, "; no catalog (tracking and shipments only)")
		}
		fmt.Fprintln(w)
	}
	return nil
}

// wiringOptions are the services' options the flags set; base is where
// the server listens, the public URL when -public-url names none.
func wiringOptions(f flags, base string, log *slog.Logger, reg prometheus.Registerer) wiring.Options {
	opts := wiring.Options{PublicURL: cmp.Or(f.publicURL, base), Logger: log, Metrics: reg,
		TrackingLinkLifetime: f.trackingLinkLifetime, StatusLinkLifetime: f.statusLinkLifetime,
		Outbox: outbox.Options{Lease: f.outboxLease},
		Webhooks: webhook.Options{AllowPrivate: f.webhooksAllowPrivate, Lease: f.webhookLease,
			Timeout: f.webhookTimeout, ConnectTimeout: f.webhookConnectTimeout,
			Concurrency: f.webhookWorkers, PerEndpoint: f.webhookPerEndpoint},
		Intervals: wiring.Intervals{Notify: f.notifyInterval, Webhooks: f.webhookInterval, Retention: f.sweepInterval}}
	if f.demoCarrier == "simulate" {
		opts.Simulate = &carrier.SimulatorOptions{TimeScale: f.timeScale, Seed: f.simulatorSeed}
		log.Info("the demo carrier is the simulator: booked parcels travel by themselves", "time_scale", f.timeScale)
	}
	if f.console {
		// Browsers keep Secure cookies from plain HTTP only on loopback:
		// a console reached over http elsewhere could not keep a login,
		// and must not send one in the clear.
		opts.Console = &console.Options{InsecureCookies: isLoopbackHTTP(opts.PublicURL)}
		log.Info("the merchant console is served at /console/")
	}
	if f.refundExecutor == "demo" {
		// parseFlags has checked the rate and the delay.
		demo, _ := returns.NewDemoRefunds(returns.DemoRefundsOptions{FailureRate: f.refundFailureRate, Delay: f.refundDelay})
		opts.RefundExecutor = demo
		log.Info("refunds are paid out by the demo refund executor", "failure_rate", f.refundFailureRate, "delay_ms", f.refundDelay.Milliseconds())
	}
	return opts
}

// isLoopbackHTTP reports whether u is a plain http URL of this machine.
func isLoopbackHTTP(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "http" {
		return false
	}
	if p.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(p.Hostname())
	return ip != nil && ip.IsLoopback()
}

// serveMetrics serves reg's metrics at /metrics as -metrics-addr says: on
// a listener of their own (the default, on loopback), on the main handler,
// or not at all. It returns the main handler and the function that stops
// the metrics listener.
func serveMetrics(handler http.Handler, reg *prometheus.Registry, f flags, h hooks, log *slog.Logger) (http.Handler, func(), error) {
	metrics := promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelError)})
	switch f.metricsAddr {
	case "off":
		return handler, func() {}, nil
	case "main":
		log.Warn("metrics are served on -addr with the API: whoever reaches the API reads them")
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", metrics)
		mux.Handle("/", handler)
		return mux, func() {}, nil
	}
	ln, err := net.Listen("tcp", f.metricsAddr)
	if err != nil {
		return nil, nil, fmt.Errorf("-metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	log.Info("metrics listening", "addr", ln.Addr().String())
	if h.metrics != nil {
		h.metrics(ln.Addr().String())
	}
	return handler, func() { srv.Close() }, nil
}

// loadConfig reads -config, or takes the demo configuration and warns
// that its keys are public. A -config file that reuses the demo
// configuration's keys or secret (a copy of config/demo.json) is refused
// unless -dev is given: anyone can read them in this repository.
func loadConfig(f flags, log *slog.Logger) (*config.Config, error) {
	if f.configPath != "" {
		cfg, err := config.Load(f.configPath)
		if err != nil {
			return nil, err
		}
		if f.dev {
			log.Warn("-dev: the configuration may use the public demo keys and secrets")
			return cfg, nil
		}
		if err := checkNoDemoSecrets(cfg); err != nil {
			return nil, fmt.Errorf("-config %s: %w", f.configPath, err)
		}
		return cfg, nil
	}
	log.Warn("using the embedded demo configuration: its API keys are public, use -config outside development")
	return config.Demo(), nil
}

// checkNoDemoSecrets refuses a configuration that uses an API key or the
// image URL secret of the demo configuration, naming the setting to
// change.
func checkNoDemoSecrets(cfg *config.Config) error {
	demo := config.Demo()
	public := map[string]bool{}
	for _, st := range demo.Sites {
		for _, d := range st.APIKeySHA256 {
			public[strings.ToLower(d)] = true
		}
	}
	for i, st := range cfg.Sites {
		for j, d := range st.APIKeySHA256 {
			if public[strings.ToLower(d)] {
				return fmt.Errorf("sites[%d].api_key_sha256[%d] is the digest of a public demo API key: make a key of your own (openssl rand -hex 32), put its digest there (printf %%s \"$KEY\" | sha256sum), or pass -dev to run with the demo keys", i, j)
			}
		}
	}
	hashes := map[string]bool{}
	for _, st := range demo.Sites {
		for _, a := range st.Staff {
			hashes[a.PasswordHash] = true
		}
	}
	for i, st := range cfg.Sites {
		for j, a := range st.Staff {
			if hashes[a.PasswordHash] {
				return fmt.Errorf("sites[%d].staff[%d].password_hash is the hash of the public demo password: make one of your own (-hash-password), or pass -dev to run with it", i, j)
			}
		}
	}
	if secret := cfg.ImageURLSecret(); secret != nil && bytes.Equal(secret, demo.ImageURLSecret()) {
		return errors.New("returns.image_url_secret is the public demo secret: set a new one (openssl rand -hex 32), or pass -dev to run with it")
	}
	return nil
}

// runBackground runs svcs.Run, and returns the function that stops it
// and waits for it to end.
func runBackground(svcs *wiring.Services) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = svcs.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}

// newServer is the HTTP server with the example's timeouts and limits. It
// serves a listener made by httpapi.Listener, so that answers leave in one
// write (httpapi.ConnContext).
func newServer(handler http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ConnContext:       httpapi.ConnContext,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// serve serves on ln until ctx is done, then shuts down gracefully:
// /readyz answers 503 at once, the server keeps serving for -drain-delay,
// then stops accepting connections and lets requests in flight finish
// within -shutdown-timeout.
func serve(ctx context.Context, srv *http.Server, ln net.Listener, readiness *httpapi.Readiness, f flags, h hooks, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	log.Info("deliverykit listening", "addr", ln.Addr().String(), "store", f.store, "db", dbName(f))
	if h.listening != nil {
		h.listening(ln.Addr().String())
	}

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	readiness.Drain()
	log.Info("shutting down: /readyz answers 503", "drain_delay_ms", f.drainDelay.Milliseconds())
	if h.draining != nil {
		h.draining()
	}
	if f.drainDelay > 0 {
		select {
		case err := <-served:
			return err
		case <-time.After(f.drainDelay):
		}
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
