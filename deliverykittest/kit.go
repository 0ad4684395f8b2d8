// Package deliverykittest runs the whole of deliverykit inside a test, with
// parcels that travel: one call builds every area on the memory store with
// a manual clock, sequential ids and the carrier simulator as the carrier,
// and returns what a merchant's test needs.
//
//	kit := deliverykittest.Start(t, deliverykittest.Options{})
//	parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "order-1001"})
//	kit.Advance(ctx, 48*time.Hour) // the parcel travels; notifications and webhooks go out
//	kit.Sent(notify.ChannelEmail)  // what the customer was told
//	kit.Webhooks(event.TypeParcelChanged) // what the merchant's endpoint received, signatures checked
//
// # What runs
//
// Kit.Client is an *http.Client served in process (no socket): the
// merchant's integration code calls the APIs with it, authenticated with
// Kit.APIKey. Kit.Services are the same areas for calls in Go. Nothing
// runs by itself: Advance moves the clock, in steps, and at each step runs
// whatever fell due until nothing is left — every background service a
// server runs with Services.Run (the simulator's parcel steps, the outbox:
// tracking records them, notifications are scheduled, webhook deliveries
// queued; the notification sender, the webhook sender, the retention
// sweep), stepped by Services.Step — so a test sees the same state after
// the same calls, every time.
//
// # Parcels
//
// Every parcel booked (by a shipment, CheckoutAndShip, or a return label)
// follows the simulator's route for its product: collected at the
// catalog's cut-off, delivered within the estimate the checkout showed.
// By default every parcel is on time; MakeLate and SetOutcome change one
// parcel's fate (late, a failed attempt, sent back, lost, collected after
// the pickup reminder), and Options.Rates makes some of them go wrong at
// random, from Options.Seed.
//
// # What was sent
//
// Sent lists the notifications each channel sent. Every site has a
// webhook endpoint, "kit", subscribed to every event type and served by
// the kit in process; Webhooks lists what it received, each delivery's
// signature verified against the endpoint's secret.
package deliverykittest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/webhook"
	"github.com/deliverykit/deliverykit/wiring"
)

// DefaultStart is the kit clock's first reading: a Monday morning, 10:00
// in Stockholm, where the demo configuration's warehouse is.
var DefaultStart = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// DefaultStep is the longest step Advance moves the clock by. Advance
// steps exactly to the simulator's steps, to the notifications the
// default rules delay and to pickup reminders; what else falls due between
// them (a retry after a failure) runs at most this long late, in the
// kit's time.
const DefaultStep = time.Hour

// BaseURL is the scheme and host of the kit's links (tracking pages,
// return pages); Client serves any host.
const BaseURL = "http://deliverykit.test"

// WebhookSecret signs the deliveries to the kit's webhook endpoints.
const WebhookSecret = "whsec_ZGVsaXZlcnlraXR0ZXN0IHdlYmhvb2sgc2VjcmV0ITE="

// WebhookEndpoint is the id of the kit's endpoint on every site.
const WebhookEndpoint = "kit"

// Options configures New. Every field has a default.
type Options struct {
	// Config is the deployment. Default: config.Demo(), parsed once and
	// shared by the kits of a process, which only read it. The kit adds
	// an API key and its webhook endpoint to every site, on a copy.
	Config *config.Config
	// Start is the clock's first reading. Default: DefaultStart.
	Start time.Time
	// Rates are the shares of parcels that do not arrive on time.
	// Default: none, every parcel is on time.
	Rates *carrier.Rates
	// Seed seeds the simulator's randomness (with Rates, and the times of
	// day parcels move at).
	Seed uint64
	// Step is the longest step of Advance. Default: DefaultStep.
	Step time.Duration
	// Site is the site the scenario helpers act for. Default: the
	// configuration's first.
	Site string
	// Logger receives the services' logs. Default: discarded.
	Logger *slog.Logger
	// Store is where the kit keeps everything. Default: a new memory
	// store. A test passes a bolt store to run on it, or the store of an
	// earlier kit (with its IDs and a Start at its clock's reading) to go
	// on where that kit stopped with another configuration.
	Store storage.Store
	// IDs makes the services' ids. Default: a new SequentialIDs.
	IDs deliverykit.IDSource
	// WebhookEvents are the event types the kit's endpoint subscribes
	// to. Default: every type. A test of many parcels that reads no
	// webhook spares the kit their deliveries with fewer.
	WebhookEvents []event.Type
	// Refunds, when set, pays refunds out with the demo executor
	// (returns.DemoRefunds) on the kit's clock: a new refund is PENDING
	// and settles, or fails at Refunds.FailureRate, once Advance has
	// passed Refunds.Delay. Its Clock is the kit's. Default: refunds wait
	// as AWAITING_EXTERNAL_REFUND for the merchant's report.
	Refunds *returns.DemoRefundsOptions
	// Console, when set, serves the merchant console at /console/ with
	// the configuration's staff accounts (wiring.Options.Console), its
	// counters counting from the kit's start. Default: no console.
	Console *console.Options
}

// Kit is a running deliverykit with a manual clock. Its methods are not
// meant to be called concurrently with Advance.
type Kit struct {
	// Client calls the APIs in process, at any host (BaseURL will do).
	Client *http.Client
	// Handler is the HTTP handler Client is served by.
	Handler http.Handler
	// Services are the areas, for calls in Go.
	Services *wiring.Services
	// Simulator is the carrier every parcel is booked with.
	Simulator *carrier.Simulator
	// Clock is the kit's time; move it with Advance.
	Clock *deliverykit.ManualClock
	// Config is the configuration the kit runs, with its keys and
	// endpoints.
	Config *config.Config
	// Site is the site the scenario helpers act for.
	Site string
	// IDs are the ids the services make (Options.IDs).
	IDs deliverykit.IDSource

	step    time.Duration
	senders map[notify.Channel]*notify.LogSender
	// parent is the kit a test site's kit was made by (NewSite).
	parent *Kit
	// siteSenders are the test sites' senders, by site (NewSite).
	siteSenders sync.Map
	receiver    *receiver
	keys        map[string]string
	orders      int // default order numbers given
}

// New builds a kit. It holds no resources beyond memory: there is
// nothing to close.
func New(opts Options) (*Kit, error) {
	cfg := opts.Config
	if cfg == nil {
		cfg = demoConfig()
	}
	if len(cfg.Sites) == 0 {
		return nil, errors.New("deliverykittest: the configuration has no site")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	k := &Kit{
		Clock: deliverykit.NewManualClock(cmp.Or(opts.Start, DefaultStart)),
		Site:  cmp.Or(opts.Site, cfg.Sites[0].ID),
		step:  cmp.Or(max(opts.Step, 0), DefaultStep),
		senders: map[notify.Channel]*notify.LogSender{
			notify.ChannelEmail: notify.NewLogSender(log), notify.ChannelSMS: notify.NewLogSender(log),
		},
		keys: map[string]string{},
	}
	k.receiver = &receiver{clock: k.Clock}
	events := opts.WebhookEvents
	if len(events) == 0 {
		events = event.Types
	}
	k.Config = k.configure(cfg, events)
	if err := k.Config.Validate(); err != nil {
		return nil, fmt.Errorf("deliverykittest: %w", err)
	}
	rates := opts.Rates
	if rates == nil {
		rates = &carrier.Rates{}
	}
	var executor returns.RefundExecutor
	if o := opts.Refunds; o != nil {
		ro := *o
		ro.Clock = k.Clock
		d, err := returns.NewDemoRefunds(ro)
		if err != nil {
			return nil, fmt.Errorf("deliverykittest: %w", err)
		}
		executor = d
	}
	st, ids := opts.Store, opts.IDs
	if st == nil {
		st = memory.New()
	}
	if ids == nil {
		ids = &deliverykit.SequentialIDs{}
	}
	k.IDs = ids
	svcs, err := wiring.New(st, k.Config, wiring.Options{
		RefundExecutor: executor,
		PublicURL:      BaseURL, Logger: log, Clock: k.Clock, IDs: ids,
		Senders: map[notify.Channel]notify.Sender{notify.ChannelEmail: k.senders[notify.ChannelEmail], notify.ChannelSMS: k.senders[notify.ChannelSMS]},
		TestSiteSenders: func(site string) map[notify.Channel]notify.Sender {
			s, _ := k.siteSenders.LoadOrStore(site, map[notify.Channel]*notify.LogSender{
				notify.ChannelEmail: notify.NewLogSender(log), notify.ChannelSMS: notify.NewLogSender(log)})
			m := s.(map[notify.Channel]*notify.LogSender)
			return map[notify.Channel]notify.Sender{notify.ChannelEmail: m[notify.ChannelEmail], notify.ChannelSMS: m[notify.ChannelSMS]}
		},
		Simulate: &carrier.SimulatorOptions{Rates: rates, Seed: opts.Seed},
		Console:  opts.Console,
		// Exact backoffs and one delivery at a time: the same run
		// every time.
		Outbox:   outbox.Options{Jitter: noJitter},
		Webhooks: webhook.Options{Transport: &httpapi.Transport{Handler: k.receiver}, Concurrency: 1, Jitter: noJitter},
	})
	if err != nil {
		return nil, fmt.Errorf("deliverykittest: %w", err)
	}
	k.Services, k.Simulator = svcs, svcs.Simulator
	k.Handler = svcs.Handler(httpapi.Options{Keys: k.Config.Keyring(), Logger: log, Clock: k.Clock,
		RateLimits: httpapi.RateLimits{Site: httpapi.NoRateLimit, WidgetToken: httpapi.NoRateLimit, Address: httpapi.NoRateLimit}})
	k.Client = httpapi.NewInProcessClient(k.Handler)
	return k, nil
}

func noJitter() float64 { return 0 }

// demoConfig is the demo configuration, parsed once: parsing and
// validating its catalogs is a good part of building a kit.
var demoConfig = sync.OnceValue(config.Demo)

// Start is New for a test: it fails t when the kit cannot be built.
func Start(t testing.TB, opts Options) *Kit {
	t.Helper()
	k, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// WebhookReceiver is the handler of the kit's webhook endpoints, for a
// test that posts to them itself.
func (k *Kit) WebhookReceiver() http.Handler { return k.receiver }

// configure is cfg with the kit's API key and webhook endpoint on every
// site, leaving cfg as it was.
func (k *Kit) configure(cfg *config.Config, events []event.Type) *config.Config {
	out := &config.Config{Sites: make([]config.Site, len(cfg.Sites))}
	for i, s := range cfg.Sites {
		key := "kit-key-" + s.ID
		k.keys[s.ID] = key
		sum := sha256.Sum256([]byte(key))
		s.APIKeySHA256 = append(slices.Clone(s.APIKeySHA256), hex.EncodeToString(sum[:]))
		s.Webhooks = append(slices.Clone(s.Webhooks), webhook.Endpoint{ID: WebhookEndpoint, URL: k.receiver.url(s.ID),
			Secrets: []string{WebhookSecret}, Events: slices.Clone(events)})
		out.Sites[i] = s
	}
	return out
}

// APIKey is the kit's API key of a site: areas A, B, C and F take it as
// "Authorization: Bearer " + base64 of it (BearerAuth), the delivery
// session (D) in "authorization" as it is, returns (E) in "x-api-key".
func (k *Kit) APIKey(site string) string { return k.keys[site] }

// BearerAuth is the Authorization header value of the site's key for areas
// A, B, C and F.
func (k *Kit) BearerAuth(site string) string {
	return "Bearer " + base64.StdEncoding.EncodeToString([]byte(k.keys[site]))
}

// Advance moves the clock forward by d and runs everything that falls due
// on the way, in time order (Services.RunUntil): the clock stops at every
// time a service has work due at (a parcel's next step, a delayed
// notification, a webhook retry), and at least every Options.Step. It
// returns the first error of a service's store, or an error when work
// does not settle.
func (k *Kit) Advance(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("deliverykittest: Advance(%v): the clock does not go back", d)
	}
	if k.parent != nil {
		_, err := k.AdvanceSite(ctx, d)
		return err
	}
	if _, err := k.Services.RunUntil(ctx, k.Clock, k.Clock.Now().Add(d), k.step); err != nil {
		return fmt.Errorf("deliverykittest: %w", err)
	}
	return nil
}

// NewSite creates a test site of the kit's site (package testmode) and
// returns a kit acting for it: the same helpers, Client and Handler, on
// the site's own data and its own clock, as POST /v1/test/sites makes
// one. Its Advance moves its clock only (the kit's and other sites' stay
// where they are), through the same code as POST /v1/test/clock:advance;
// its Sent and Webhooks are the site's. Its parcels follow the scenario
// their shipment names (ShipScenario). The kit's configuration must have
// its site in test mode (the demo configuration's are); the site's ids
// are random, not sequential.
func (k *Kit) NewSite(ctx context.Context) (*Kit, error) {
	root := k
	if k.parent != nil {
		root = k.parent
	}
	if root.Services.TestSites == nil {
		return nil, errors.New("deliverykittest: NewSite: no site of the configuration is in test mode")
	}
	c, err := root.Services.TestSites.Create(ctx, k.Site, testmode.CreateRequest{})
	if err != nil {
		return nil, fmt.Errorf("deliverykittest: NewSite: %w", err)
	}
	svcs, clock, err := root.Services.TestSite(ctx, c.ID)
	if err != nil {
		return nil, fmt.Errorf("deliverykittest: NewSite: %w", err)
	}
	senders := map[notify.Channel]*notify.LogSender{}
	if s, ok := root.siteSenders.Load(c.ID); ok {
		senders = s.(map[notify.Channel]*notify.LogSender)
	}
	root.receiver.clocks.Store(c.ID, clock)
	site, _ := root.Config.Site(c.Parent)
	site.ID = c.ID
	return &Kit{Client: root.Client, Handler: root.Handler, Services: svcs, Simulator: svcs.Simulator, Clock: clock,
		Config: &config.Config{Sites: []config.Site{site}, Returns: root.Config.Returns, Retention: root.Config.Retention}, Site: c.ID, IDs: root.IDs, step: root.step, senders: senders, receiver: root.receiver,
		keys: map[string]string{c.ID: c.APIKey}, parent: root}, nil
}

// AdvanceSite is Advance of a test site's kit (NewSite), telling what
// ran, as POST /v1/test/clock:advance answers.
func (k *Kit) AdvanceSite(ctx context.Context, d time.Duration) (testmode.Ran, error) {
	if k.parent == nil {
		return testmode.Ran{}, errors.New("deliverykittest: AdvanceSite: not a test site's kit (NewSite)")
	}
	var ran testmode.Ran
	// One advance moves a clock by at most testmode.DefaultMaxAdvance.
	for d > 0 {
		step := min(d, testmode.DefaultMaxAdvance)
		out, err := k.parent.Services.TestSites.Advance(ctx, k.Site, testmode.AdvanceRequest{Duration: step.String()})
		ran = ran.Add(out.Ran)
		if err != nil {
			return ran, fmt.Errorf("deliverykittest: %w", err)
		}
		d -= step
	}
	return ran, nil
}

// TriggerEvent sends a well-formed event of type t with fixture data to
// a test site's webhook endpoints, signed and retried on its clock, as
// POST /v1/test/events does, and returns its id.
func (k *Kit) TriggerEvent(ctx context.Context, t event.Type) (string, error) {
	if k.parent == nil {
		return "", errors.New("deliverykittest: TriggerEvent: not a test site's kit (NewSite)")
	}
	out, err := k.parent.Services.TestSites.Emit(ctx, k.Site, k.Site, t)
	if err != nil {
		return "", fmt.Errorf("deliverykittest: %w", err)
	}
	return out.EventID, nil
}

// SetFaults sets the carrier faults every booking of a test site's kit
// meets from now on (none clears them), as POST /v1/test/faults does.
func (k *Kit) SetFaults(ctx context.Context, faults ...carrier.Fault) error {
	if k.parent == nil {
		return errors.New("deliverykittest: SetFaults: not a test site's kit (NewSite)")
	}
	req := testmode.FaultsRequest{Faults: make([]string, len(faults))}
	for i, f := range faults {
		req.Faults[i] = string(f)
	}
	if _, err := k.parent.Services.TestSites.SetFaults(ctx, k.Site, req); err != nil {
		return fmt.Errorf("deliverykittest: %w", err)
	}
	return nil
}

// AdvanceTo is Advance up to t (nothing when t is not later).
func (k *Kit) AdvanceTo(ctx context.Context, t time.Time) error {
	return k.Advance(ctx, max(t.Sub(k.Clock.Now()), 0))
}

// RunDue runs everything due at the clock's time, without moving it,
// until nothing is left: Services.RunDue.
func (k *Kit) RunDue(ctx context.Context) error {
	if _, err := k.Services.RunDue(ctx); err != nil {
		return fmt.Errorf("deliverykittest: %w", err)
	}
	return nil
}

// Sent returns the notifications sent through channel so far, in the
// order they were sent.
func (k *Kit) Sent(channel notify.Channel) []notify.Message {
	if s := k.senders[channel]; s != nil {
		return s.Sent()
	}
	return nil
}

// Webhooks returns the deliveries the kit's endpoints received, in the
// order they arrived, of the given event types (all when none is given).
func (k *Kit) Webhooks(types ...event.Type) []WebhookDelivery {
	var out []WebhookDelivery
	for _, d := range k.receiver.received() {
		// A test site's kit sees its own; the kit its configured sites'.
		mine := d.Site == k.Site || k.parent == nil && !testmode.IsTestSite(d.Site)
		if mine && (len(types) == 0 || slices.Contains(types, d.Type)) {
			out = append(out, d)
		}
	}
	return out
}
