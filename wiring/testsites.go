package wiring

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/webhook"
)

// FailHost is the test host: in a test site, a webhook endpoint at it
// answers 500 and a notification to an address at it fails, so that
// retries, dead deliveries and FAILED notifications can be seen without
// a receiver. ".invalid" never resolves (RFC 2606).
const FailHost = "fail.invalid"

// TestSitePath starts the paths of a test site's pages and widget: its
// links are PublicURL + TestSitePath + the site's id + the usual path.
const TestSitePath = "/test/"

// testSiteStep is the longest step of a test site's advance.
const testSiteStep = time.Hour

// newTestSites builds the test sites of a configuration that has a
// test-mode site; nil when it has none.
func (s *Services) newTestSites(store storage.Store, cfg *config.Config, opts Options) (*testmode.Service, error) {
	if !slices.ContainsFunc(cfg.Sites, func(st config.Site) bool { return st.Mode == testmode.ModeTest }) {
		return nil, nil
	}
	return testmode.New(testmode.Options{
		Store: store, Clock: opts.Clock, Logger: opts.Logger, WebhookPorts: cfg.WebhookPorts,
		Parents: func(site string) bool {
			st, ok := cfg.Site(site)
			return ok && st.Mode == testmode.ModeTest
		},
		Build: func(ctx context.Context, b testmode.Build) (testmode.Sandbox, error) {
			return s.buildTestSite(b, cfg, opts)
		},
	})
}

// testSite is one test site's deliverykit: every area, built as New
// builds a deployment's, on the site's store view and clock.
type testSite struct {
	svcs    *Services
	handler http.Handler
	clock   *deliverykit.ManualClock
	site    string
}

// buildTestSite builds b's site with its parent's catalog, settings and
// webhook endpoints. Its parcels travel with the carrier simulator,
// scenarios and faults on; its notifications are logged, never sent.
func (s *Services) buildTestSite(b testmode.Build, cfg *config.Config, opts Options) (*testSite, error) {
	parent, ok := cfg.Site(b.Site.Parent)
	if !ok {
		return nil, fmt.Errorf("the configuration has no site %s", b.Site.Parent)
	}
	site := parent
	site.ID, site.Mode, site.Staff = b.Site.ID, testmode.ModeLive, nil
	site.APIKeySHA256 = []string{b.KeySHA256}
	if b.Webhooks != nil {
		site.Webhooks = b.Webhooks
	}
	c := &config.Config{Sites: []config.Site{site}, Returns: cfg.Returns, Retention: cfg.Retention, WebhookPorts: cfg.WebhookPorts}
	log := opts.Logger.With("test_site", b.Site.ID)
	senders := map[notify.Channel]notify.Sender{}
	var own map[notify.Channel]notify.Sender
	if opts.TestSiteSenders != nil {
		own = opts.TestSiteSenders(b.Site.ID)
	}
	for _, ch := range []notify.Channel{notify.ChannelEmail, notify.ChannelSMS} {
		senders[ch] = failingSender{cmp.Or[notify.Sender](own[ch], notify.NewLogSender(log))}
	}
	wo := opts.Webhooks
	wo.Clock, wo.Logger = nil, nil
	wo.Wrap = func(rt http.RoundTripper) http.RoundTripper { return failingTransport{rt} }
	// Exact backoffs: the same calls give the same outcome every time.
	noJitter := func() float64 { return 0 }
	wo.Jitter = noJitter
	// The deployment's demo refund executor pays a test site's refunds
	// out on the site's clock; another executor is the deployment's own
	// business, never a test's.
	var refunds returns.RefundExecutor
	if d, ok := opts.RefundExecutor.(*returns.DemoRefunds); ok {
		refunds = d.WithClock(b.Clock)
	}
	sub, err := New(b.Store, c, Options{
		PublicURL: strings.TrimRight(opts.PublicURL, "/") + TestSitePath + b.Site.ID, Logger: log,
		Clock: b.Clock, IDs: deliverykit.RandomIDs{Clock: b.Clock}, Senders: senders, Webhooks: wo,
		Simulate:       &carrier.SimulatorOptions{Scenarios: true},
		Outbox:         outbox.Options{Jitter: noJitter},
		RefundExecutor: refunds, ComplaintPhotos: opts.ComplaintPhotos,
		TrackingLinkLifetime: opts.TrackingLinkLifetime, StatusLinkLifetime: opts.StatusLinkLifetime,
	})
	if err != nil {
		return nil, err
	}
	ho := s.testHandlerOptions()
	ho.Keys, ho.Clock, ho.Logger, ho.Console = c.Keyring(), b.Clock, log, nil
	return &testSite{svcs: sub, handler: sub.Handler(ho), clock: b.Clock, site: b.Site.ID}, nil
}

// TestSite returns the services and the clock of the test site id, for a
// test in Go that runs it alone (deliverykittest's Kit.NewSite).
func (s *Services) TestSite(ctx context.Context, id string) (*Services, *deliverykit.ManualClock, error) {
	if s.TestSites == nil {
		return nil, nil, deliverykit.E(deliverykit.KindNotFound, "no site is in test mode")
	}
	sb, err := s.TestSites.Sandbox(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	t := sb.(*testSite)
	return t.svcs, t.clock, nil
}

func (t *testSite) ServeHTTP(w http.ResponseWriter, r *http.Request) { t.handler.ServeHTTP(w, r) }

func (t *testSite) RunUntil(ctx context.Context, end time.Time) (testmode.Ran, error) {
	return t.svcs.RunUntil(ctx, t.clock, end, testSiteStep)
}

// Emit queues the catalogue's example of type typ, as an event of the
// site now, for the site's webhook endpoints.
func (t *testSite) Emit(ctx context.Context, typ event.Type) (string, error) {
	for _, c := range webhook.Catalogue() {
		if c.Type != typ {
			continue
		}
		id := deliverykit.RandomIDs{Clock: t.clock}.NewID("evt_test_")
		e, err := event.New(id, t.site, c.Subject, t.clock.Now(), c.Example)
		if err != nil {
			return "", err
		}
		return id, t.svcs.Webhooks.Handle(ctx, e)
	}
	return "", deliverykit.InvalidField("type", "oneof", "no example of "+string(typ))
}

// SetFaults sets the simulated carrier's faults for the site.
func (t *testSite) SetFaults(ctx context.Context, faults []string) error {
	fs := make([]carrier.Fault, len(faults))
	for i, f := range faults {
		fs[i] = carrier.Fault(f)
	}
	return t.svcs.Simulator.SetFaults(ctx, t.site, fs)
}

// Faults reads the simulated carrier's faults of the site.
func (t *testSite) Faults(ctx context.Context) ([]string, error) {
	fs, err := t.svcs.Simulator.Faults(ctx, t.site)
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = string(f)
	}
	return out, err
}

// failingSender fails every message to an address at FailHost.
type failingSender struct{ notify.Sender }

func (f failingSender) Send(ctx context.Context, m notify.Message) error {
	if strings.HasSuffix(strings.ToLower(m.Recipient), "@"+FailHost) {
		return errors.New("test mode: " + FailHost + " refuses every message")
	}
	return f.Sender.Send(ctx, m)
}

// failingTransport answers 500 for FailHost, without leaving the process.
type failingTransport struct{ http.RoundTripper }

func (f failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.EqualFold(r.URL.Hostname(), FailHost) {
		return f.RoundTripper.RoundTrip(r)
	}
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusInternalServerError, Status: "500 Internal Server Error", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"text/plain"}}, Body: io.NopCloser(strings.NewReader("test mode: " + FailHost + " always fails")), Request: r}, nil
}

// testHandler holds the HTTP options test sites are served with: those
// of Handler's caller, once it has been called.
type testHandler struct {
	mu   sync.Mutex
	opts httpapi.Options
}

func (s *Services) testHandlerOptions() httpapi.Options {
	s.testOpts.mu.Lock()
	defer s.testOpts.mu.Unlock()
	return s.testOpts.opts
}
