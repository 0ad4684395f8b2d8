// Package httpapi is the optional net/http adapter of deliverykit: it serves
// the documented endpoints of every area from the area services, with the
// authentication, error bodies and wire habits the service's existing
// clients rely on.
//
// The domain packages never import net/http; this package is a thin layer
// that decodes requests, calls a service with the caller's site and encodes
// the answer.
//
// # Wire habits
//
//   - Every response carries X-Trace-Id. A valid X-Trace-Id sent by the client
//     is kept, so that logs on both sides correlate; otherwise one is made.
//   - Decoding is lenient: unknown fields are ignored, missing numbers are 0,
//     missing lists are empty, an empty body is an empty object. A value of the
//     wrong type is a 400 naming the field.
//   - Request bodies are limited (Options.MaxBodyBytes, 1 MiB by default);
//     past the limit the answer is 413. A body over 64 KiB has its lists
//     checked against their limits before it is decoded, so a list of
//     empty entries is refused without becoming a struct per entry.
//   - An error lists at most 20 field violations, the first in field
//     order, then one with an empty field and the rule "truncated" that
//     counts the rest; an error body stays a few KiB whatever the request.
//   - Complaint photo uploads have limits of their own (Options.Uploads):
//     per client address, a process-wide budget of body bytes and a read
//     timeout, checked with the status token before the body is read.
//   - Requests are rate limited per site, per widget token and per client
//     address (Options.RateLimits); over a limit the answer is 429 with
//     Retry-After. A store that cannot write for now (a full disk) makes
//     503 with Retry-After.
//   - Every answer carries security headers: customer pages may not be
//     framed or cached and send no Referer; JSON answers cannot run or be
//     framed; the widget's script may be loaded by any page.
//   - GET /openapi lists the OpenAPI documents served, GET
//     /openapi/reference shows them as pages, and GET
//     /openapi/config.schema.json is the configuration file's JSON Schema
//     (Options.ConfigSchema); none takes a key.
//   - With Options.Console set, /console/ serves the merchant console
//     (package console), which signs its own staff in.
//   - GET /healthz answers while the process serves, with the release in
//     "version" when Options.Version is set; GET /readyz answers 200 only
//     while the server should get traffic (Options.Ready, see Readiness).
//   - Errors are written in the area's shape (see the README): areas A, B, C
//     and F {"error", "trace_id", "details"}, area D {"code", "message",
//     "details"}, area E {"timestamp", "status", "error", "message", "path"}.
//     Internal errors and panics are logged with the trace id and answered
//     with "internal error" only.
//
// # Serving
//
// The handler works under any http.Server. Served through Listener, with
// ConnContext as the server's ConnContext, every HTTP/1.x answer with a
// Content-Length leaves in one write, however far its header and body pass
// net/http's 4 KiB connection buffer (a checkout session with its options
// does): one TCP segment for the client to wait for rather than two. The
// example server serves this way.
//
// # Authentication
//
// Areas A, B, C and F take "Authorization: Bearer <base64(API key)>"; area D
// takes the key in the authorization header (a "Bearer " prefix is
// accepted); area E takes "x-api-key: <API key>". A missing or unknown key is
// 401. A key only ever reaches its own site's data: ids of another site are
// not found, and a site_id naming another site is 403.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
)

// DefaultMaxBodyBytes is the request body limit when Options.MaxBodyBytes
// is zero.
const DefaultMaxBodyBytes = 1 << 20

// Options configures the handler. Keys is required; the rest have defaults.
type Options struct {
	// Keys authenticates API keys and names the caller's site.
	Keys *auth.Keyring
	// Logger receives the access log and internal errors. Default:
	// slog.Default().
	Logger *slog.Logger
	// MaxBodyBytes limits request bodies. Default: DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Clock stamps error bodies that carry a time and drives the rate
	// limits. Default: the system clock.
	Clock deliverykit.Clock
	// Health, when set, is called by GET /healthz; an error makes it 503.
	// The example server checks that the store answers.
	Health func(context.Context) error
	// Version, when set, is reported by GET /healthz as "version" (the
	// example server gives deliverykit.Version()), so an operator sees
	// which release answers.
	Version string
	// Ready, when set, is called by GET /readyz; an error makes it 503.
	// Readiness.Check is meant for it: the store takes writes and the
	// server is not shutting down. When nil, /readyz answers as /healthz.
	Ready func(context.Context) error
	// RateLimits limits requests per site, widget token and client
	// address. The zero value applies the documented defaults.
	RateLimits RateLimits
	// Uploads bounds the complaint photo uploads received at once. The
	// zero value applies the documented defaults.
	Uploads UploadLimits
	// Tracking, when set, serves area A under /v1/delivery_tracking and
	// the customer tracking page.
	Tracking *tracking.Service
	// Notify, when set, serves area B under /v1/delivery_tracking.
	Notify *notify.Service
	// Promises, when set, serves the promise accuracy report under
	// /v1/delivery_tracking/promise_accuracy.
	Promises *promise.Service
	// Returns, when set, serves area E under /returns, its customer
	// return endpoint and the customer status page.
	Returns *returns.Service
	// Checkout, when set, serves area C under /v1/siw, its OpenAPI
	// document and the checkout widget under /v1/siw/_/, and the same
	// sessions in the API's newer generation under /v1/delivery_checkout.
	Checkout *checkout.Service
	// Session, when set, serves area D under /delivery and its OpenAPI
	// document at /delivery/openapi.json.
	Session *session.Service
	// Shipment, when set, serves area F under /v1/som, its labels and
	// its OpenAPI document.
	Shipment *shipment.Service
	// Webhooks, when set, serves the site's webhook endpoints and
	// deliveries under /v1/webhooks (see webhooks.go).
	Webhooks *webhook.Service
	// Metrics, when set, count and time every request (NewMetrics).
	Metrics *Metrics
	// Outbox, when set, serves the site's dead events (effects that
	// failed for good) under /v1/webhooks/events/dead, to list and retry.
	Outbox *outbox.Dispatcher
	// ConfigSchema, when set, is served as the configuration file's JSON
	// Schema at /openapi/config.schema.json and linked from the
	// documentation. wiring's Handler sets config.JSONSchema(); it comes
	// from outside because the configuration is assembled above this
	// package, which serves the areas and not the file that builds them.
	ConfigSchema []byte
	// Idempotency, when set, serves the Idempotency-Key header of every
	// POST and PATCH (see the README); without it the header is ignored.
	// wiring's Handler sets it.
	Idempotency *idempotency.Keeper
	// Console, when set, is served under /console/: the merchant console
	// (package console), which authenticates its own staff and sets its
	// own page policy. Requests to it count against the client address's
	// rate limit. Off unless set: wiring sets it when the console is
	// enabled.
	Console http.Handler
	// TestSites, when set, serves test mode (package testmode): the
	// /v1/test/ endpoints for test-mode sites' keys, and every request of
	// a test site (by its key, or under its /test/<site id>/ links) from
	// the site's own deliverykit. wiring sets it when a site is in test
	// mode.
	TestSites *testmode.Service
}

// server holds what the handlers share.
type server struct {
	keys    *auth.Keyring
	log     *slog.Logger
	maxBody int64
	clock   deliverykit.Clock
	health  func(context.Context) error
	ready   func(context.Context) error
	version string // reported by /healthz; empty: not reported
	limits  limiters
	uploads *uploadGate
	mux     *http.ServeMux
	metrics *Metrics
	idem    *idempotency.Keeper
	// testSites authenticates test sites' keys on /v1/test/.
	testSites *testmode.Service
	routes    []string     // "METHOD pattern" of every route, for tests
	handler   http.Handler // mux behind the middleware
	// requestDone ends every request (requestDone, middleware.go); a
	// field so that a test can watch it.
	requestDone func(early bool)
}

// New returns the handler serving every area whose service is set in opts,
// plus GET /healthz.
func New(opts Options) http.Handler {
	return newServer(opts).handler
}

func newServer(opts Options) *server {
	s := &server{
		requestDone: requestDone,
		keys:        opts.Keys,
		log:         opts.Logger,
		maxBody:     opts.MaxBodyBytes,
		clock:       opts.Clock,
		health:      opts.Health,
		ready:       opts.Ready,
		version:     opts.Version,
		limits:      newLimiters(opts.RateLimits),
		mux:         http.NewServeMux(),
		metrics:     opts.Metrics,
		idem:        opts.Idempotency,
		testSites:   opts.TestSites,
	}
	if s.keys == nil {
		s.keys = &auth.Keyring{}
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	s.uploads = newUploadGate(opts.Uploads, max(s.maxBody, complaintUploadLimit))
	if s.clock == nil {
		s.clock = deliverykit.SystemClock{}
	}
	if s.ready == nil {
		s.ready = s.health
	}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.HandleFunc("GET /readyz", s.readyz)
	if opts.Tracking != nil {
		s.registerTracking(opts.Tracking)
	}
	if opts.Notify != nil {
		s.registerNotify(opts.Notify)
	}
	if opts.Promises != nil {
		s.registerPromises(opts.Promises)
	}
	if opts.Returns != nil {
		s.registerReturns(opts.Returns)
	}
	if opts.Checkout != nil {
		s.registerCheckout(opts.Checkout)
		s.registerDeliveryCheckout(opts.Checkout)
	}
	if opts.Session != nil {
		s.registerSession(opts.Session)
	}
	if opts.Shipment != nil {
		s.registerShipment(opts.Shipment)
	}
	if opts.Webhooks != nil || opts.Outbox != nil {
		s.registerWebhooks(opts.Webhooks, opts.Outbox)
	}
	if opts.Console != nil {
		s.registerConsole(opts.Console)
	}
	if opts.TestSites != nil {
		s.registerTestSites(opts.TestSites)
	}
	// The index of the OpenAPI documents served above, their reference
	// pages and the configuration schema (docs.go).
	s.registerDocs(&opts)
	for _, a := range areas {
		// Every path under an area's base is authenticated first, so
		// an unknown path reveals nothing to a caller without a key,
		// and is answered in the area's error shape.
		s.route(a, a.base+"/", nil)
	}
	s.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limitAddress(w, r, styleREST) {
			s.writeWire(w, r, styleREST, wireError{status: http.StatusNotFound, kind: "not found", message: "no such endpoint: " + r.URL.Path})
		}
	}))
	s.handler = s.middleware(s.mux)
	if opts.TestSites != nil {
		s.handler = routeTestSites(opts.TestSites, s.handler)
	}
	return s
}

func (s *server) now() time.Time { return s.clock.Now() }

// consolePath is where Options.Console is served.
const consolePath = "/console/"

// registerConsole serves the merchant console under consolePath, limited
// per client address like the other routes without a key.
func (s *server) registerConsole(h http.Handler) {
	s.mux.Handle(consolePath, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		info := requestInfoFrom(r.Context())
		info.area, info.route, info.headers = "console", consolePath, policyConsole
		if !s.limitAddress(w, r, styleREST) {
			return
		}
		h.ServeHTTP(w, r)
	}))
}

func (s *server) healthz(w http.ResponseWriter, r *http.Request) {
	s.check(w, r, "health check failed", s.health, s.version)
}

// readyz tells a load balancer whether to send traffic here. It is not
// rate limited: Readiness writes at most once per interval whatever the
// number of callers.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) {
	s.check(w, r, "not ready", s.ready, "")
}

// check answers {"status": "ok"} or, when fn fails, 503 {"status":
// "unavailable"}, with "version" when version is not empty; the reason
// goes to the log only.
func (s *server) check(w http.ResponseWriter, r *http.Request, what string, fn func(context.Context) error, version string) {
	status, body := http.StatusOK, map[string]string{"status": "ok"}
	if fn != nil {
		if err := fn(r.Context()); err != nil {
			s.log.ErrorContext(r.Context(), what, "trace_id", traceID(r.Context()), "err", err)
			status, body = http.StatusServiceUnavailable, map[string]string{"status": "unavailable"}
		}
	}
	if version != "" {
		body["version"] = version
	}
	writeJSON(w, status, body)
}
