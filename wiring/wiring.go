// Package wiring builds every deliverykit area on one store and connects
// them the way a merchant platform usually wants: completed checkouts and
// delivery sessions become tracking orders and returnable orders, parcel
// changes become customer notifications, booked shipment deliveries become
// tracking parcels, and the delivery catalog decides which carrier products
// tracking and shipments accept and what returns cost. A return's parcel
// is a RETURN shipment booked with the return policy's return_product,
// tracked under the outbound order, and its carrier's steps move the
// return on.
//
// Areas never import each other. What one area does for another travels as
// an event (package event) written in the cause's own transaction and
// delivered by the outbox (package outbox) at least once; New registers
// each area's handler for the events it consumes, carrier events
// (event.CarrierEventReported) included. With Options.Simulate the default
// carrier is the simulator, whose parcels travel on the clock along the
// catalog's timetables. Services.Run runs every background service
// (ExampleNew); Services.Step steps them once, for tests on a manual clock.
package wiring

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/metrics"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configures New. Every field has a default.
type Options struct {
	// PublicURL is the scheme and host customers reach this deployment
	// at; tracking links and return status links start with it. Default:
	// tracking.DefaultPortalURL.
	PublicURL string
	// Logger receives every line the areas log (dead events and webhook
	// deliveries, notifications the default senders send). Default:
	// slog.Default(). Pass the same logger to httpapi.Options and the loops.
	Logger *slog.Logger
	// Outbox configures the delivery of cross-area events (retries,
	// leases); its Clock and Logger default to the ones above.
	Outbox outbox.Options
	// Metrics, when set, receives the deployment's Prometheus collectors
	// (package metrics, and httpapi's request metrics for Handler): store
	// transactions, the outbox, webhook attempts, notifications, caches.
	Metrics prometheus.Registerer
	// Webhooks configures the webhook sender (timeouts, retries, whether
	// private addresses may be called); its Endpoints are the
	// configuration's, and its Clock and Logger default to the ones above.
	Webhooks webhook.Options
	// Senders send notifications per channel. Default: notify's log
	// senders for EMAIL and SMS.
	Senders map[notify.Channel]notify.Sender
	// TestSiteSenders, when set, gives the senders of a test site's
	// notifications (a channel it leaves out is logged). Default: every
	// test site's notifications are logged, never sent, so that no test
	// reaches a real customer.
	TestSiteSenders func(site string) map[notify.Channel]notify.Sender
	// Carriers book shipments, by the catalog's carrier id. Default: the
	// built-in demo carrier books every carrier's products, with UPU S10
	// tracking numbers and labels; no carrier is called.
	Carriers map[string]shipment.Carrier
	// Simulate, when set and Carriers is not, makes the default carrier
	// the simulator (carrier.Simulator): booked parcels travel on the
	// clock and report their steps through the outbox. Its Clock and
	// Logger default to the ones here, its Timetables to the catalogs.
	Simulate *carrier.SimulatorOptions
	// Clock and IDs are passed to every service. Defaults: the system
	// clock and RandomIDs.
	Clock deliverykit.Clock
	IDs   deliverykit.IDSource
	// TrackingLinkLifetime and StatusLinkLifetime are how long customer
	// tracking links and return status page links work. Defaults:
	// tracking.DefaultLinkLifetime and returns.DefaultStatusLinkLifetime.
	TrackingLinkLifetime time.Duration
	StatusLinkLifetime   time.Duration
	// RefundExecutor pays refunds out, through the outbox: new refunds are
	// PENDING. Default: none; refunds wait as AWAITING_EXTERNAL_REFUND for
	// the merchant. A *returns.DemoRefunds that delays is settled by
	// Services.Run.
	RefundExecutor returns.RefundExecutor
	// ComplaintPhotos keeps customers' complaint photos. Default: the
	// store (returns.StoreBlobs); a returns.FileBlobs keeps them out of it.
	// Their URLs are signed with the configuration's image_url_secret.
	ComplaintPhotos returns.Blobs
	// Retention configures the sweeper (how much a round deletes; Clock
	// and Logger default to the ones above). How long what is kept is the
	// configuration's (config.Retention).
	Retention retention.Options
	// Intervals are how often Services.Run steps each background
	// service.
	Intervals Intervals
	// Console, when set, builds the merchant console (package console):
	// Handler serves it under /console/, and its counters are an outbox
	// consumer of every event from then on. Its Store, Counters, area
	// services, Clock and Logger are filled in here, and its Staff are
	// the configuration's accounts unless it brings an Authenticator.
	// Default: no console.
	Console *console.Options
}

// Services are the areas built by New.
type Services struct {
	// Outbox delivers the events that connect the areas. Effects are
	// delivered right after their cause commits; Run retries failed ones.
	Outbox *outbox.Dispatcher
	// Webhooks sends every event to the sites' webhook endpoints when Run
	// runs.
	Webhooks *webhook.Service
	Tracking *tracking.Service
	Notify   *notify.Service
	Checkout *checkout.Service
	Session  *session.Service
	Returns  *returns.Service
	Shipment *shipment.Service
	// Promises learns lead times from delivered parcels (for products
	// whose promise is learned or blend) and reports promise accuracy.
	Promises *promise.Service
	// Simulator is the simulated carrier with Options.Simulate, else
	// nil; its parcels move when Run runs.
	Simulator *carrier.Simulator
	// Retention deletes what the configuration's retention no longer
	// keeps, when Run runs.
	Retention *retention.Sweeper
	// Idempotency runs the calls that carry an Idempotency-Key: Handler
	// serves it, and Go callers use idempotency.Call with it.
	Idempotency *idempotency.Keeper
	// TestSites are the test sites of the configuration's test-mode sites
	// (package testmode); nil when every site is live. Handler serves
	// them.
	TestSites *testmode.Service
	testOpts  testHandler
	// Console is the merchant console with Options.Console, else nil.
	Console *console.Console
	// counters are the console's, registered with the outbox.
	counters *console.Counters
	// httpMetrics count requests when Options.Metrics was set.
	httpMetrics *httpapi.Metrics
	// refunds is Options.RefundExecutor: Run steps it when it is a
	// Stepper (the demo executor).
	refunds   returns.RefundExecutor
	intervals Intervals
	log       *slog.Logger
	// areas are what Retention sweeps; a test checks that every area
	// with a Sweep method is among them.
	areas []retention.Area
	// started, when set (by tests), is told of each service Run starts.
	started func(name string, st Stepper)
}

// New builds every area on store from cfg and connects them.
func New(store storage.Store, cfg *config.Config, opts Options) (*Services, error) {
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	opts.PublicURL = strings.TrimRight(cmp.Or(opts.PublicURL, tracking.DefaultPortalURL), "/")
	ob := opts.Outbox
	ob.Clock, ob.Logger = cmp.Or[deliverykit.Clock](ob.Clock, opts.Clock), cmp.Or(ob.Logger, opts.Logger)
	ob.DeadRetention = cmp.Or(ob.DeadRetention, cfg.Retention.Policy().DeadEvents)
	if opts.Metrics != nil {
		var err error
		if store, err = metrics.Store(store, opts.Metrics); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	// Every store the areas reach takes part in the units of calls with
	// an Idempotency-Key; a unit is a transaction of the outbox's store,
	// so the events a call adds are delivered once its answer commits.
	// Test sites keep their records apart in the same store, each in
	// units of its own keeper.
	testStore := store
	keeper := idempotency.New(idempotency.Options{Retention: cfg.Retention.Policy().IdempotencyKeys, Clock: opts.Clock})
	store = keeper.Store(store)
	svcs := &Services{Outbox: outbox.New(store, ob), Idempotency: keeper, refunds: opts.RefundExecutor, intervals: opts.Intervals, log: opts.Logger}
	keeper.Open(svcs.Outbox.Store())
	// Producers write through the outbox's store, which delivers their
	// events as soon as they commit.
	if err := svcs.build(store, keeper.Store(svcs.Outbox.Store()), cfg, opts); err != nil {
		return nil, err
	}
	if opts.Console != nil {
		if err := svcs.buildConsole(store, cfg, opts); err != nil {
			return nil, err
		}
	}
	svcs.register()
	var err error
	if svcs.TestSites, err = svcs.newTestSites(testStore, cfg, opts); err != nil {
		return nil, fmt.Errorf("test sites: %w", err)
	}
	ro := opts.Retention
	ro.Clock, ro.Logger = cmp.Or[deliverykit.Clock](ro.Clock, opts.Clock), cmp.Or(ro.Logger, opts.Logger)
	svcs.areas = []retention.Area{{Name: "checkout", Sweep: svcs.Checkout},
		{Name: "session", Sweep: svcs.Session}, {Name: "outbox", Sweep: svcs.Outbox},
		{Name: "tracking", Sweep: svcs.Tracking}, {Name: "notify", Sweep: svcs.Notify},
		{Name: "webhook", Sweep: svcs.Webhooks}, {Name: "shipment", Sweep: svcs.Shipment}, {Name: "returns", Sweep: svcs.Returns},
		{Name: "idempotency", Sweep: svcs.Idempotency}, {Name: "promise", Sweep: svcs.Promises}}
	if svcs.Console != nil {
		svcs.areas = append(svcs.areas, retention.Area{Name: "console", Sweep: svcs.Console})
	}
	if svcs.TestSites != nil {
		svcs.areas = append(svcs.areas, retention.Area{Name: "test sites", Sweep: svcs.TestSites})
	}
	svcs.Retention = retention.NewSweeper(svcs.areas, ro)
	if reg := opts.Metrics; reg != nil {
		now := cmp.Or[deliverykit.Clock](opts.Clock, deliverykit.SystemClock{}).Now
		err := metrics.Register(reg, metrics.Sources{Outbox: svcs.Outbox, Webhooks: svcs.Webhooks, Checkout: svcs.Checkout, Now: now})
		if err == nil {
			svcs.httpMetrics, err = httpapi.NewMetrics(reg)
		}
		if err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	return svcs, nil
}

// build makes the areas: producers on the outbox's store, the rest on store.
func (s *Services) build(store, producers storage.Store, cfg *config.Config, opts Options) (err error) {
	catalogs := cfg.Catalogs()
	if s.Notify, err = notify.New(producers, notify.Options{Senders: opts.Senders, Logger: opts.Logger, Clock: opts.Clock, IDs: opts.IDs,
		PickupReminder: notify.CatalogPickupReminders(catalogs), Retention: cfg.Retention.Policy()}); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	s.Tracking, err = tracking.New(producers, tracking.Options{Products: tracking.CatalogProducts(catalogs), Sites: tracking.CatalogSites(cfg.Names(), catalogs),
		PortalURL: opts.PublicURL, LinkLifetime: opts.TrackingLinkLifetime, Clock: opts.Clock, IDs: opts.IDs, Retention: cfg.Retention.Policy()})
	if err != nil {
		return fmt.Errorf("tracking: %w", err)
	}
	// The engines estimate learned promises with the lead times the
	// promise service learns, which counts them on the engines' calendars.
	var engines checkout.Engines
	s.Promises = promise.New(store, promise.Options{Clock: opts.Clock, Engines: func(site string) (*options.Engine, bool) {
		e, ok := engines[site]
		return e, ok
	}})
	engines, err = checkout.NewEngines(catalogs, options.Options{Clock: opts.Clock, LeadTimes: s.Promises})
	if err != nil {
		return fmt.Errorf("delivery options: %w", err)
	}
	if s.Shipment, s.Simulator, err = newShipments(store, producers, catalogs, engines, s.Tracking, cfg.Retention.Policy().Shipments, opts); err != nil {
		return err
	}
	// Return parcels are RETURN shipments booked by event: labels are theirs.
	s.Returns = returns.New(producers, returns.Options{
		Policies: returns.CatalogPolicies(catalogs), LabelPDFs: s.Shipment, DropOffs: returns.NewCatalogDropOffs(catalogs, 0),
		Logger: opts.Logger, PublicURL: opts.PublicURL, StatusLinkLifetime: opts.StatusLinkLifetime, Clock: opts.Clock, IDs: opts.IDs,
		RefundExecutor: opts.RefundExecutor, Retention: cfg.Retention.Policy().Returns,
		Blobs: cmp.Or[returns.Blobs](opts.ComplaintPhotos, returns.StoreBlobs{Store: store}), ImageURLSecret: cfg.ImageURLSecret(),
	})
	s.Checkout, err = checkout.New(producers, checkout.Options{Engines: engines, WidgetBaseURL: opts.PublicURL + checkout.DefaultWidgetBaseURL,
		Orders: s.Tracking, Clock: opts.Clock, IDs: opts.IDs, Retention: cfg.Retention.Policy()})
	if err != nil {
		return fmt.Errorf("checkout: %w", err)
	}
	if s.Session, err = session.New(producers, session.Options{Engines: engines, Orders: s.Tracking, Clock: opts.Clock, IDs: opts.IDs,
		OrderSource: SessionOrders{Tracking: s.Tracking, Returns: s.Returns}, Retention: cfg.Retention.Policy()}); err != nil {
		return fmt.Errorf("delivery session: %w", err)
	}
	wo := opts.Webhooks
	wo.Endpoints = cfg.Webhooks()
	wo.Retention = cmp.Or(wo.Retention, cfg.Retention.Policy().WebhookDeliveries)
	wo.Clock, wo.Logger = cmp.Or[deliverykit.Clock](wo.Clock, opts.Clock), cmp.Or(wo.Logger, opts.Logger)
	if s.Webhooks, err = webhook.New(store, wo); err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	return nil
}

// newShipments is the shipments area: the given carriers, else the demo
// carrier or the simulator for every product; a booked delivery's link is
// a customer tracking page link.
func newShipments(store, producers storage.Store, catalogs map[string]*catalog.Catalog, engines checkout.Engines, ts *tracking.Service,
	retention time.Duration, opts Options) (*shipment.Service, *carrier.Simulator, error) {
	var fallback shipment.Carrier
	var sim *carrier.Simulator
	if len(opts.Carriers) == 0 {
		var so *carrier.SimulatorOptions
		if opts.Simulate != nil {
			o := *opts.Simulate
			o.Clock, o.Logger = cmp.Or[deliverykit.Clock](o.Clock, opts.Clock), cmp.Or(o.Logger, opts.Logger)
			o.Timetables, so = cmp.Or[carrier.Timetables](o.Timetables, carrier.EngineTimetables(engines)), &o
		}
		var err error
		if fallback, sim, err = carrier.NewFallback(store, producers, so); err != nil {
			return nil, nil, err
		}
	}
	sh, err := shipment.New(producers, shipment.Options{
		Products: shipment.CatalogProducts(catalogs), Carriers: opts.Carriers, DefaultCarrier: fallback,
		TrackingLink: func(token string) string { return ts.PortalLink(token, "en-US") },
		LabelBaseURL: opts.PublicURL, Logger: opts.Logger, Clock: opts.Clock, IDs: opts.IDs, Retention: retention,
		Orders: ShipmentOrders{Tracking: ts},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("shipment: %w", err)
	}
	return sh, sim, nil
}

// register connects the areas: each consumer with the events it takes.
// Consumer names are stored with the events they applied: never change
// them.
func (s *Services) register() {
	d := s.Outbox
	d.Handle(event.TypeOrderCompleted, "tracking", s.Tracking.HandleOrderCompleted)
	d.Handle(event.TypeOrderCompleted, "returns", s.Returns.HandleOrderCompleted)
	d.Handle(event.TypeParcelBooked, "tracking", s.Tracking.HandleParcelBooked)
	d.Handle(event.TypeParcelBooked, "returns", s.Returns.HandleParcelBooked)
	d.Handle(event.TypeParcelChanged, "notify", s.Notify.HandleParcelChanged)
	d.Handle(event.TypeParcelChanged, "returns", s.Returns.HandleParcelChanged)
	d.Handle(event.TypeReturnShipmentRequested, "shipment", s.Shipment.HandleReturnRequested)
	d.Handle(event.TypeCarrierEventReported, "tracking", s.Tracking.HandleCarrierEvent)
	d.Handle(event.TypeCarrierEventReported, "shipment", s.Shipment.HandleCarrierEvent)
	d.Handle(event.TypeRefundChanged, "refunds", s.Returns.HandleRefundChanged)
	d.Handle(event.TypeOrderCompleted, "promise", s.Promises.HandleOrderCompleted)
	d.Handle(event.TypeParcelChanged, "promise", s.Promises.HandleParcelChanged)
	if s.Simulator != nil {
		// A test site's TEST<scenario> parcel registered with tracking
		// travels as its scenario says (SimulatorOptions.Scenarios).
		d.Handle(event.TypeParcelRegistered, "simulator", s.Simulator.HandleParcelRegistered)
	}
	for _, t := range event.Types {
		d.Handle(t, "webhook", s.Webhooks.Handle)
		if s.counters != nil {
			d.Handle(t, console.ConsumerName, s.counters.Handle)
		}
	}
}

// buildConsole makes the merchant console on store, with the
// configuration's staff accounts unless opts brings an Authenticator.
func (s *Services) buildConsole(store storage.Store, cfg *config.Config, opts Options) error {
	co := *opts.Console
	co.Store, s.counters = store, console.NewCounters(store)
	co.Counters = s.counters
	if co.Authenticator == nil && co.Staff == nil {
		co.Staff = cfg.Staff()
	}
	co.Tracking, co.Notify, co.Returns, co.Shipment = s.Tracking, s.Notify, s.Returns, s.Shipment
	co.Webhooks, co.Outbox = s.Webhooks, s.Outbox
	co.Sessions, co.Promises = []console.SessionCounts{s.Checkout, s.Session}, s.Promises
	co.Clock, co.Logger = cmp.Or[deliverykit.Clock](co.Clock, opts.Clock), cmp.Or(co.Logger, opts.Logger)
	var err error
	if s.Console, err = console.New(co); err != nil {
		return fmt.Errorf("console: %w", err)
	}
	return nil
}

// Handler returns the HTTP adapter serving every area of s; opts supplies
// the keys, logger, limits and health check, and its area fields are
// overwritten with s's services. The configuration file's JSON Schema is
// served unless opts brings its own.
func (s *Services) Handler(opts httpapi.Options) http.Handler {
	if len(opts.ConfigSchema) == 0 {
		opts.ConfigSchema = config.JSONSchema()
	}
	opts.Tracking, opts.Notify, opts.Checkout, opts.Session, opts.Promises = s.Tracking, s.Notify, s.Checkout, s.Session, s.Promises
	opts.Shipment, opts.Returns, opts.Webhooks, opts.Outbox = s.Shipment, s.Returns, s.Webhooks, s.Outbox
	opts.Idempotency = s.Idempotency
	s.testOpts.mu.Lock()
	s.testOpts.opts = opts
	s.testOpts.mu.Unlock()
	opts.TestSites = s.TestSites
	opts.Metrics = cmp.Or(opts.Metrics, s.httpMetrics)
	if s.Console != nil && opts.Console == nil {
		opts.Console = s.Console
	}
	return httpapi.New(opts)
}
