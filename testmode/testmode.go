// Package testmode gives a merchant's test suite isolated test sites, each
// with a clock of its own that moves only when the test says so.
//
// A site of the configuration is live (the default) or test
// (sites[].mode). A test site's key creates more test sites (Service.Create):
// each starts with the creating site's catalog, settings and webhook
// endpoints, has its own data and its own clock, and answers to its own API
// key, shown once. Every API serves a test site as it serves any site, at
// the same paths, with its key. The site's clock stands still: Advance moves
// it forward and runs, in time order and before it returns, everything that
// falls due on the way (parcels moving, notifications, webhook deliveries and
// their retries, expiries, retention), so a test reads the outcome at once
// and the same calls give the same outcome every time.
//
// Parcels of a test site are carried by the carrier simulator, and follow
// the journey a scenario code names (the table is in the README); faults
// make the carrier refuse, fail or time out. A live site never reaches any
// of this: its key is not a test key, and magic values mean nothing there.
//
// # Isolation
//
// A test site's records are kept in the deployment's store, in collections
// of their own under the site's key prefix: the areas built for the site see
// their usual names, the live sites' background loops never meet them, and
// two test sites never see each other's orders. Nothing of a test site runs
// in the background; its work runs when its clock is advanced, in the
// process that advances it, so parallel tests on separate sites never wait
// for each other.
//
// # Lifetime
//
// A test site expires Options.Expiry after its last request (default 24
// hours); the retention sweep deletes it with everything it holds. A parent
// holds at most Options.MaxSites live test sites (default 1,000); one more is
// refused as resource exhausted (429) until some expire.
package testmode

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/webhook"
)

// Mode is whether a site is live or for tests.
type Mode string

// Modes of a site.
const (
	// ModeLive is a site whose orders are real. The default.
	ModeLive Mode = "live"
	// ModeTest is a site for tests: its key creates test sites.
	ModeTest Mode = "test"
)

// KeyPrefix starts every test site's API key, so that a key is known for
// one without a lookup, and a live key never is.
const KeyPrefix = "dk_test_"

// SiteIDPrefix starts every test site's id.
const SiteIDPrefix = "test_"

// Defaults of Options.
const (
	DefaultExpiry   = 24 * time.Hour
	DefaultMaxSites = 1000
	DefaultCached   = 64
	// DefaultMaxAdvance is the longest one Advance may move a clock by:
	// an advance runs every step on the way before it answers.
	DefaultMaxAdvance = 31 * 24 * time.Hour
)

// Ran is what an advance ran, by kind.
type Ran struct {
	// CarrierEvents are the simulated carrier's events reported.
	CarrierEvents int `json:"carrier_events"`
	// Notifications are the notifications sent (or failed).
	Notifications int `json:"notifications"`
	// Webhooks are the webhook delivery attempts made.
	Webhooks int `json:"webhooks"`
	// Expired are the checkout and delivery sessions deleted after they
	// expired.
	Expired int `json:"expired"`
	// Refunds are the refunds the demo refund executor settled (when the
	// deployment runs one).
	Refunds int `json:"refunds"`
	// Swept are the records retention deleted.
	Swept int `json:"swept"`
}

// Add returns r plus o.
func (r Ran) Add(o Ran) Ran {
	return Ran{r.CarrierEvents + o.CarrierEvents, r.Notifications + o.Notifications, r.Webhooks + o.Webhooks,
		r.Expired + o.Expired, r.Refunds + o.Refunds, r.Swept + o.Swept}
}

// Site is a test site as the API shows it.
type Site struct {
	// ID is the site's id: what it sends as site_id.
	ID string `json:"site_id"`
	// Parent is the configured test-mode site it was created with.
	Parent string `json:"parent_site_id"`
	// Now is the site's clock.
	Now time.Time `json:"now"`
	// ExpiresAt is when it is deleted unless a request comes first.
	ExpiresAt time.Time `json:"expires_at"`
}

// Created is a new test site and its API key, shown this once.
type Created struct {
	Site
	APIKey string `json:"api_key"`
	// WebhookSecret signs the deliveries to CreateRequest.WebhookURL.
	WebhookSecret string `json:"webhook_secret,omitempty"`
}

// CreateRequest is how a new test site differs from its parent.
type CreateRequest struct {
	// WebhookURL, when set, is the site's one webhook endpoint ("test",
	// every event type) instead of the parent's: a receiver of the test
	// suite's, or https://fail.invalid/… to see retries and dead
	// deliveries without one. Its secret is made and shown once.
	WebhookURL string `json:"webhook_url,omitempty"`
}

// TestEndpoint is the id of the endpoint CreateRequest.WebhookURL makes.
const TestEndpoint = "test"

// Advanced is the answer to an advance.
type Advanced struct {
	Now time.Time `json:"now"`
	Ran Ran       `json:"ran"`
}

// Emitted is the answer to Emit.
type Emitted struct {
	EventID string     `json:"event_id"`
	Type    event.Type `json:"type"`
	Now     time.Time  `json:"now"`
	Ran     Ran        `json:"ran"`
}

// Sandbox is one test site's running deliverykit, built by Options.Build
// on the site's store view and clock.
type Sandbox interface {
	// ServeHTTP serves the site's APIs and pages.
	http.Handler
	// RunUntil moves the clock to end, running what falls due on the
	// way, in time order, and at end.
	RunUntil(ctx context.Context, end time.Time) (Ran, error)
	// Emit sends a well-formed event of type t, with fixture data, to the
	// site's webhook endpoints, and returns its id.
	Emit(ctx context.Context, t event.Type) (string, error)
	// SetFaults sets the carrier faults of the site (none clears them);
	// Faults reads them.
	SetFaults(ctx context.Context, faults []string) error
	Faults(ctx context.Context) ([]string, error)
}

// Build is what a Builder builds a test site's sandbox from.
type Build struct {
	Site Site
	// KeySHA256 is the digest of the site's key, in hexadecimal.
	KeySHA256 string
	// Webhooks, when set, replace the parent's endpoints.
	Webhooks []webhook.Endpoint
	// Store is the site's view of the deployment's store.
	Store storage.Store
	// Clock is the site's clock; the service sets and moves it.
	Clock *deliverykit.ManualClock
}

// Builder builds a test site's sandbox.
type Builder func(ctx context.Context, b Build) (Sandbox, error)

// Options configures a Service. Build and Parents are required.
type Options struct {
	// Store is the deployment's store, unwrapped: test sites keep their
	// records in it, apart.
	Store storage.Store
	// Build builds a test site's deliverykit.
	Build Builder
	// Parents reports whether a configured site is in test mode.
	Parents func(site string) bool
	// Clock is the deployment's clock: a new site's clock starts at it
	// (or at the creating test site's), and expiry counts by it.
	Clock deliverykit.Clock
	// Expiry, MaxSites, Cached and MaxAdvance default to the Default…
	// constants. Cached is how many built sandboxes a process keeps.
	Expiry     time.Duration
	MaxSites   int
	Cached     int
	MaxAdvance time.Duration
	// WebhookPorts are the ports besides 443 a webhook_url may name (the
	// configuration's webhook_ports).
	WebhookPorts []int
	Logger       *slog.Logger
}

// Service keeps the test sites of a deployment.
type Service struct {
	opts Options
	seen sync.Map // collections noted (siteStore)

	mu    sync.Mutex
	cache map[string]*sandbox
	tick  uint64 // last use, for eviction
}

// sandbox is a built test site in this process.
type sandbox struct {
	sb    Sandbox
	clock *deliverykit.ManualClock
	// mu is held shared by requests and exclusively by an advance: a
	// request never sees the clock move under it.
	mu   sync.RWMutex
	used uint64
}

// siteRecord is a test site as stored.
type siteRecord struct {
	Schema    int       `json:"schema"`
	ID        string    `json:"id"`
	Parent    string    `json:"parent"`
	KeySHA256 string    `json:"key_sha256"`
	Created   time.Time `json:"created"`
	LastUsed  time.Time `json:"last_used"`
	Now       time.Time `json:"now"`
	// WebhookURL and WebhookSecret are CreateRequest's endpoint: the
	// secret is kept as it is, because it signs (as the configuration
	// keeps its endpoints' secrets).
	WebhookURL    string `json:"webhook_url,omitempty"`
	WebhookSecret string `json:"webhook_secret,omitempty"`
}

const siteSchema = 1

var (
	sites  = storage.Collection[siteRecord]{Name: "testmode.sites"}
	keys   = storage.Collection[string]{Name: "testmode.keys"}
	counts = storage.Collection[int]{Name: "testmode.counts"}
	expiry = queue.NewIndex[struct{}]("testmode.expiry")
)

// New returns the test sites of a deployment.
func New(opts Options) (*Service, error) {
	if opts.Store == nil || opts.Build == nil || opts.Parents == nil {
		return nil, errors.New("testmode: Store, Build and Parents are required")
	}
	opts.Clock = cmp.Or[deliverykit.Clock](opts.Clock, deliverykit.SystemClock{})
	opts.Expiry = queue.Or(opts.Expiry, DefaultExpiry)
	opts.MaxSites = queue.Or(opts.MaxSites, DefaultMaxSites)
	opts.Cached = queue.Or(opts.Cached, DefaultCached)
	opts.MaxAdvance = queue.Or(opts.MaxAdvance, DefaultMaxAdvance)
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	return &Service{opts: opts, cache: map[string]*sandbox{}}, nil
}

// IsTestKey reports whether key has the shape of a test site's key.
func IsTestKey(key string) bool { return strings.HasPrefix(key, KeyPrefix) }

// IsTestSite reports whether site is a test site's id.
func IsTestSite(site string) bool { return strings.HasPrefix(site, SiteIDPrefix) }

var keyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newKey is KeyPrefix and 160 random bits.
func newKey() string {
	var b [20]byte
	rand.Read(b[:])
	return KeyPrefix + keyEncoding.EncodeToString(b[:])
}

func notFound(site string) error {
	return deliverykit.InvalidField("site_id", "exists", "no test site "+clip(site)+" of this key")
}

// clip bounds a caller's text repeated in an answer.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

// Authenticate returns the test site whose key key is. A key that is not a
// test key is never looked up. The key's digest is the lookup key: it
// tells nothing of the key, so no comparison runs on the key itself.
func (s *Service) Authenticate(ctx context.Context, key string) (string, bool) {
	if !IsTestKey(key) || len(key) > 128 {
		return "", false
	}
	var site string
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		it, err := keys.Get(tx, auth.HashKey(key).String())
		site = it.Value
		return err
	})
	return site, err == nil
}

// parentOf returns the configured site caller belongs to: itself when it
// is a configured test-mode site, its parent when it is a test site.
func (s *Service) parentOf(tx storage.Tx, caller string) (string, error) {
	if !IsTestSite(caller) {
		if s.opts.Parents(caller) {
			return caller, nil
		}
		return "", deliverykit.E(deliverykit.KindNotFound, "not found")
	}
	it, err := sites.Get(tx, caller)
	if err != nil {
		return "", err
	}
	return it.Value.Parent, nil
}

// Allowed reports whether caller may use the test endpoints: a test-mode
// site of the configuration, or a test site. A live site's key gets 404
// on every test path, as if they were not there.
func (s *Service) Allowed(ctx context.Context, caller string) bool {
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		_, err := s.parentOf(tx, caller)
		return err
	})
	return err == nil
}

// Create makes a new test site for caller (a test-mode site or a test
// site): the caller's configured parent's catalog and settings, a clock
// reading the caller's current time.
func (s *Service) Create(ctx context.Context, caller string, req CreateRequest) (Created, error) {
	var secret string
	if req.WebhookURL != "" {
		var b [32]byte
		rand.Read(b[:])
		secret = webhook.SecretPrefix + base64.StdEncoding.EncodeToString(b[:])
		if len(req.WebhookURL) > maxWebhookURL {
			return Created{}, deliverykit.InvalidField("webhook_url", "max", fmt.Sprintf("at most %d characters", maxWebhookURL))
		}
		if err := webhook.Validate(endpoints(req.WebhookURL, secret), s.opts.WebhookPorts...); err != nil {
			return Created{}, deliverykit.InvalidField("webhook_url", "url", deliverykit.Message(err))
		}
	}
	now := s.opts.Clock.Now()
	start := now
	if IsTestSite(caller) {
		c, err := s.Now(ctx, caller, caller)
		if err != nil {
			return Created{}, err
		}
		start = c.Now
	}
	key := newKey()
	rec := siteRecord{Schema: siteSchema, ID: deliverykit.RandomIDs{Clock: s.opts.Clock}.NewID(SiteIDPrefix),
		KeySHA256: auth.HashKey(key).String(), Created: now, LastUsed: now, Now: start, WebhookURL: req.WebhookURL, WebhookSecret: secret}
	err := s.opts.Store.Update(ctx, func(tx storage.Tx) error {
		parent, err := s.parentOf(tx, caller)
		if err != nil {
			return err
		}
		rec.Parent = parent
		n, err := counts.Get(tx, parent)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if n.Value >= s.opts.MaxSites {
			return deliverykit.Errorf(deliverykit.KindResourceExhausted,
				"site %s holds %d test sites, the most it may; they expire %v after their last request", parent, n.Value, s.opts.Expiry)
		}
		if _, err := counts.Put(tx, parent, n.Value+1, storage.AnyVersion); err != nil {
			return err
		}
		if _, err := keys.Put(tx, rec.KeySHA256, rec.ID, storage.MustNotExist()); err != nil {
			return err
		}
		if err := expiry.Put(tx, now.Add(s.opts.Expiry), rec.ID, struct{}{}); err != nil {
			return err
		}
		_, err = sites.Put(tx, rec.ID, rec, storage.MustNotExist())
		return err
	})
	if err != nil {
		return Created{}, fmt.Errorf("testmode: creating a test site: %w", err)
	}
	return Created{Site: s.view(rec), APIKey: key, WebhookSecret: secret}, nil
}

// maxWebhookURL bounds a webhook_url before it is parsed.
const maxWebhookURL = 2048

// endpoints is the one endpoint of a site created with a webhook URL.
func endpoints(url, secret string) []webhook.Endpoint {
	return []webhook.Endpoint{{ID: TestEndpoint, URL: url, Secrets: []string{secret}, Events: event.Types}}
}

func (s *Service) view(r siteRecord) Site {
	return Site{ID: r.ID, Parent: r.Parent, Now: r.Now, ExpiresAt: r.LastUsed.Add(s.opts.Expiry)}
}

// owned reads site as caller may see it: caller is the site itself or
// its parent. Any other is not found, as if it did not exist.
func (s *Service) owned(tx storage.Tx, caller, site string) (storage.Item[siteRecord], error) {
	if site == "" {
		site = caller
	}
	it, err := sites.Get(tx, site)
	if errors.Is(err, storage.ErrNotFound) || err == nil && it.Value.ID != caller && it.Value.Parent != caller {
		return it, notFound(site)
	}
	return it, err
}

// Now returns site's clock, for caller (the site or its parent; an
// empty site is the caller).
func (s *Service) Now(ctx context.Context, caller, site string) (Site, error) {
	var rec siteRecord
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		it, err := s.owned(tx, caller, site)
		rec = it.Value
		return err
	})
	if err != nil {
		return Site{}, fmt.Errorf("testmode: %w", err)
	}
	return s.view(rec), nil
}

// AdvanceRequest is how far to move a clock: by Duration or to To, one of
// them.
type AdvanceRequest struct {
	SiteID string `json:"site_id,omitempty"`
	// Duration is Go's syntax: "144h", "90m", "1h30m".
	Duration string `json:"duration,omitempty"`
	// To is an RFC 3339 time.
	To *time.Time `json:"to,omitempty"`
}

// end is where req moves a clock reading now.
func (s *Service) end(req AdvanceRequest, now time.Time) (time.Time, error) {
	switch {
	case req.Duration != "" && req.To != nil:
		return time.Time{}, deliverykit.InvalidField("duration", "excluded_with", "give duration or to, not both")
	case req.To != nil:
		if req.To.Before(now) {
			return time.Time{}, deliverykit.InvalidField("to", "gte", fmt.Sprintf("the clock reads %s and never goes back", now.Format(time.RFC3339)))
		}
		if req.To.Sub(now) > s.opts.MaxAdvance {
			return time.Time{}, deliverykit.InvalidField("to", "lte", fmt.Sprintf("one advance moves the clock by at most %v", s.opts.MaxAdvance))
		}
		return req.To.UTC(), nil
	case req.Duration != "":
		if len(req.Duration) > 32 {
			return time.Time{}, deliverykit.InvalidField("duration", "max", "at most 32 characters")
		}
		d, err := time.ParseDuration(req.Duration)
		if err != nil {
			return time.Time{}, deliverykit.InvalidField("duration", "duration", `a duration such as "144h" or "90m"`)
		}
		if d < 0 {
			return time.Time{}, deliverykit.InvalidField("duration", "gte", "the clock never goes back")
		}
		if d > s.opts.MaxAdvance {
			return time.Time{}, deliverykit.InvalidField("duration", "lte", fmt.Sprintf("one advance moves the clock by at most %v", s.opts.MaxAdvance))
		}
		return now.Add(d), nil
	}
	return time.Time{}, deliverykit.InvalidField("duration", "required_without", "give duration or to")
}

// Advance moves the clock of req.SiteID (the caller's own when empty)
// and runs everything that falls due on the way, before it returns.
func (s *Service) Advance(ctx context.Context, caller string, req AdvanceRequest) (Advanced, error) {
	var out Advanced
	err := s.withSandbox(ctx, caller, req.SiteID, true, func(sb *sandbox, rec siteRecord) (siteRecord, error) {
		end, err := s.end(req, rec.Now)
		if err != nil {
			return rec, err
		}
		ran, err := sb.sb.RunUntil(ctx, end)
		rec.Now = sb.clock.Now()
		out = Advanced{Now: rec.Now, Ran: ran}
		return rec, err
	})
	return out, err
}

// Emit sends a well-formed event of type t, with fixture data, through
// the site's webhook path (signed, retried on the site's clock), and runs
// what is due at once.
func (s *Service) Emit(ctx context.Context, caller, site string, t event.Type) (Emitted, error) {
	if !event.Known(t) {
		return Emitted{}, deliverykit.InvalidField("type", "oneof", "not an event type of the catalogue: "+clip(string(t)))
	}
	var out Emitted
	err := s.withSandbox(ctx, caller, site, true, func(sb *sandbox, rec siteRecord) (siteRecord, error) {
		id, err := sb.sb.Emit(ctx, t)
		if err != nil {
			return rec, err
		}
		ran, err := sb.sb.RunUntil(ctx, rec.Now)
		out = Emitted{EventID: id, Type: t, Now: rec.Now, Ran: ran}
		return rec, err
	})
	return out, err
}

// MaxFaults bounds the faults of a FaultsRequest before they are read.
const MaxFaults = 8

// FaultsRequest sets the carrier faults of a test site.
type FaultsRequest struct {
	SiteID string `json:"site_id,omitempty"`
	// Faults are the carrier faults from now on (the README's
	// catalogue); none clears them.
	Faults []string `json:"faults"`
}

// Faults is a test site's carrier faults.
type Faults struct {
	SiteID string   `json:"site_id"`
	Faults []string `json:"faults"`
}

// SetFaults sets the carrier faults of req.SiteID (the caller's own when
// empty): every booking of the site meets them until they are set again.
func (s *Service) SetFaults(ctx context.Context, caller string, req FaultsRequest) (Faults, error) {
	if len(req.Faults) > MaxFaults {
		return Faults{}, deliverykit.InvalidField("faults", "max", fmt.Sprintf("at most %d entries", MaxFaults))
	}
	out := Faults{Faults: []string{}}
	err := s.withSandbox(ctx, caller, req.SiteID, true, func(sb *sandbox, rec siteRecord) (siteRecord, error) {
		out.SiteID = rec.ID
		if err := sb.sb.SetFaults(ctx, req.Faults); err != nil {
			return rec, err
		}
		f, err := sb.sb.Faults(ctx)
		out.Faults = append(out.Faults, f...)
		return rec, err
	})
	return out, err
}

// ReadFaults returns the carrier faults of site (the caller's own when
// empty).
func (s *Service) ReadFaults(ctx context.Context, caller, site string) (Faults, error) {
	out := Faults{Faults: []string{}}
	err := s.withSandbox(ctx, caller, site, false, func(sb *sandbox, rec siteRecord) (siteRecord, error) {
		out.SiteID = rec.ID
		f, err := sb.sb.Faults(ctx)
		out.Faults = append(out.Faults, f...)
		return rec, err
	})
	return out, err
}

// Serve serves r for the test site site, whose key the caller showed or
// whose link it followed.
func (s *Service) Serve(w http.ResponseWriter, r *http.Request, site string) error {
	return s.withSandbox(r.Context(), site, site, false, func(sb *sandbox, rec siteRecord) (siteRecord, error) {
		sb.sb.ServeHTTP(w, r)
		return rec, nil
	})
}

// Sandbox returns the built sandbox of site, its clock set to the stored
// reading, for a caller in Go that runs it alone (the test kit): requests
// served meanwhile, and advances, are not kept from it.
func (s *Service) Sandbox(ctx context.Context, site string) (Sandbox, error) {
	var sb *sandbox
	err := s.withSandbox(ctx, site, site, false, func(b *sandbox, rec siteRecord) (siteRecord, error) {
		sb = b
		return rec, nil
	})
	if err != nil {
		return nil, err
	}
	return sb.sb, nil
}

// touchEvery is how often a site's last use is stored: a request more
// often than this changes nothing stored.
const touchEvery = time.Minute

// withSandbox runs fn with site's built sandbox, its clock set to the
// stored reading, exclusively when advancing, then stores the clock fn
// leaves and the site's last use.
func (s *Service) withSandbox(ctx context.Context, caller, site string, exclusive bool, fn func(*sandbox, siteRecord) (siteRecord, error)) error {
	var it storage.Item[siteRecord]
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		var err error
		it, err = s.owned(tx, caller, site)
		return err
	})
	if err != nil {
		return fmt.Errorf("testmode: %w", err)
	}
	rec := it.Value
	sb, err := s.sandbox(ctx, rec)
	if err != nil {
		return fmt.Errorf("testmode: building test site %s: %w", rec.ID, err)
	}
	if exclusive {
		sb.mu.Lock()
		defer sb.mu.Unlock()
	} else {
		sb.mu.RLock()
		defer sb.mu.RUnlock()
	}
	// Another process may have advanced the clock since this one last
	// served the site: the stored reading is the clock.
	if exclusive || !sb.clock.Now().Equal(rec.Now) {
		sb.clock.Set(rec.Now)
	}
	out, ferr := fn(sb, rec)
	now := s.opts.Clock.Now()
	if out.Now.Equal(rec.Now) && now.Sub(rec.LastUsed) < touchEvery {
		return ferr
	}
	out.LastUsed = now
	err = s.opts.Store.Update(ctx, func(tx storage.Tx) error {
		if _, err := sites.Put(tx, rec.ID, out, storage.VersionIs(it.Version)); err != nil {
			return err
		}
		if err := expiry.Delete(tx, rec.LastUsed.Add(s.opts.Expiry), rec.ID); err != nil {
			return err
		}
		return expiry.Put(tx, out.LastUsed.Add(s.opts.Expiry), rec.ID, struct{}{})
	})
	if errors.Is(err, storage.ErrConflict) && !exclusive {
		err = nil // another request stored the same use
	}
	if err != nil {
		err = fmt.Errorf("testmode: storing test site %s: %w", rec.ID, err)
	}
	return errors.Join(ferr, err)
}

// sandbox returns rec's built sandbox, building it when this process
// has none, and evicting the least recently used past Options.Cached.
func (s *Service) sandbox(ctx context.Context, rec siteRecord) (*sandbox, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tick++
	if sb, ok := s.cache[rec.ID]; ok {
		sb.used = s.tick
		return sb, nil
	}
	clock := deliverykit.NewManualClock(rec.Now)
	b := Build{Site: s.view(rec), KeySHA256: rec.KeySHA256, Store: newSiteStore(s.opts.Store, rec.ID, &s.seen), Clock: clock}
	if rec.WebhookURL != "" {
		b.Webhooks = endpoints(rec.WebhookURL, rec.WebhookSecret)
	}
	built, err := s.opts.Build(ctx, b)
	if err != nil {
		return nil, err
	}
	if len(s.cache) >= s.opts.Cached {
		var oldest string
		for id, c := range s.cache {
			if oldest == "" || c.used < s.cache[oldest].used {
				oldest = id
			}
		}
		delete(s.cache, oldest)
	}
	sb := &sandbox{sb: built, clock: clock, used: s.tick}
	s.cache[rec.ID] = sb
	return sb, nil
}
