package webhook

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// DeliveryIDPrefix starts the id of every delivery.
const DeliveryIDPrefix = "dlv_"

// Defaults of Options.
const (
	DefaultBatch            = 100
	DefaultConcurrency      = 16
	DefaultPerEndpoint      = 1
	DefaultTimeout          = 10 * time.Second
	DefaultConnectTimeout   = 5 * time.Second
	DefaultBreakerThreshold = 5
	DefaultBreakerCooldown  = time.Minute
	DefaultRetryBase        = 5 * time.Second
	DefaultRetryMax         = time.Hour
	DefaultMaxAttempts      = 15
	DefaultRetention        = 30 * 24 * time.Hour
	// MaxResponseBytes is how much of a receiver's answer is read and
	// kept (the excerpt the deliveries list shows).
	MaxResponseBytes = 4 << 10
)

// Options configures a Service. A zero field means its default.
type Options struct {
	// Endpoints are the webhook endpoints by site id (config.Webhooks).
	Endpoints map[string][]Endpoint
	// Clock defaults to the system clock. Tests set a ManualClock.
	Clock deliverykit.Clock
	// IDs makes the deliveries' ids ("dlv_…"). Default:
	// deliverykit.RandomIDs on Clock: random, so that a site learns
	// nothing of other sites' volume from them, and sorted by time.
	IDs deliverykit.IDSource
	// Logger receives dead deliveries (ERROR), disabled endpoints and
	// dispatch errors. Default: slog.Default().
	Logger *slog.Logger
	// Batch is how many due deliveries one look at the store takes (and
	// one Dispatch call sends) at most.
	Batch int
	// Concurrency is how many attempts are in flight at once, across all
	// sites and endpoints: the workers' pool. Each is the oldest pending
	// delivery of its endpoint and subject, so sending them together
	// keeps every subject in order.
	Concurrency int
	// PerEndpoint is how many attempts one endpoint has in flight at
	// most (default 1), and PerSite how many one site's endpoints have
	// together (default half of Concurrency): a receiver that does not
	// answer holds that many workers, and the others go on.
	PerEndpoint, PerSite int
	// Timeout bounds one attempt: connecting, sending and reading the
	// answer. ConnectTimeout bounds connecting (default 5 s, at most
	// Timeout).
	Timeout, ConnectTimeout time.Duration
	// BreakerThreshold failed attempts in a row (timeouts, refused
	// connections, answers other than 2xx) pause an endpoint for
	// BreakerCooldown: its due deliveries wait for the end of the pause
	// without an attempt counted, then one attempt probes the endpoint;
	// its success resumes it, its failure pauses it again. Defaults: 5
	// and a minute.
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// Lease is how long a claimed delivery is left to its sender before
	// another may send it again. Default: Timeout plus a minute.
	Lease time.Duration
	// RetryBase and RetryMax bound the backoff: the n-th failure waits
	// RetryBase × 2^(n−1), at most RetryMax, of which a random part (up
	// to half) is taken off so that retries to one receiver spread out.
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many failed attempts make a delivery dead.
	MaxAttempts int
	// Retention is how long settled (delivered or dead) deliveries are
	// kept for the deliveries list and redelivery; Sweep deletes them
	// then. Default: DefaultRetention (the configuration's
	// retention.webhook_delivery_days through wiring); retention.Never
	// keeps them forever.
	Retention time.Duration
	// Jitter returns a number in [0, 1); default math/rand/v2.Float64.
	Jitter func() float64
	// Transport, when set, sends the requests instead of the network
	// (the test kit serves its endpoints in process with it); the checks
	// of AllowPrivate are then its own business.
	Transport http.RoundTripper
	// Wrap, when set, wraps the transport that sends the requests (the
	// network's, with AllowPrivate's checks, or Transport): test sites
	// answer their test host with it without leaving the process.
	Wrap func(http.RoundTripper) http.RoundTripper
	// AllowPrivate lets requests reach loopback, private, link-local and
	// other non-public addresses. Leave it off in production: with it, a
	// webhook URL can reach services inside the network. Tests and
	// development receivers on 127.0.0.1 set it.
	AllowPrivate bool
	// AllowPorts are the ports an endpoint URL may name besides
	// DefaultPorts (configuration: webhook_ports). New refuses an
	// endpoint on another port, and, unless AllowPrivate, the sender
	// dials no other port either (a name can resolve anywhere, but the
	// port is the URL's). A loopback URL may name any port.
	AllowPorts []int
}

// Service records the deliveries of events to the merchants' webhook
// endpoints and sends them. It is safe for concurrent use.
type Service struct {
	store     storage.Store
	opts      Options
	q         queue.Queue[record, ref]
	endpoints map[string]map[string]*target // site → endpoint id
	client    *http.Client
	// wake tells Run that Handle queued something.
	wake   queue.Wake
	counts attemptCounts
	// flight is what this process is sending, and the endpoints'
	// circuits (sender.go).
	flight *flight
	// attempted, when set (by tests), is told of every attempt Run or
	// Dispatch finished, once it is recorded.
	attempted func(result)
	// backfilled is Sweep's first-sweep backfill (retention.go).
	backfilled retention.Once
}

// target is a configured endpoint, parsed once.
type target struct {
	Endpoint
	url     *url.URL
	signers []*standardwebhooks.Webhook
}

// New returns the Service of opts.Endpoints on store. Endpoints are
// validated as config validates them; an invalid one is an InvalidArgument
// error whose fields start with "<site>.webhooks[i]".
func New(store storage.Store, opts Options) (*Service, error) {
	opts.Clock = cmp.Or[deliverykit.Clock](opts.Clock, deliverykit.SystemClock{})
	opts.Logger = cmp.Or(opts.Logger, slog.Default())
	opts.IDs = cmp.Or[deliverykit.IDSource](opts.IDs, deliverykit.RandomIDs{Clock: opts.Clock})
	opts.Batch = queue.Or(opts.Batch, DefaultBatch)
	opts.Concurrency = queue.Or(opts.Concurrency, DefaultConcurrency)
	opts.PerEndpoint = queue.Or(opts.PerEndpoint, DefaultPerEndpoint)
	opts.PerSite = queue.Or(opts.PerSite, max(opts.Concurrency/2, 1))
	opts.Timeout = queue.Or(opts.Timeout, DefaultTimeout)
	opts.ConnectTimeout = min(queue.Or(opts.ConnectTimeout, DefaultConnectTimeout), opts.Timeout)
	opts.BreakerThreshold = queue.Or(opts.BreakerThreshold, DefaultBreakerThreshold)
	opts.BreakerCooldown = queue.Or(opts.BreakerCooldown, DefaultBreakerCooldown)
	opts.Retention = retention.Resolve(opts.Retention, DefaultRetention)
	q := deliveryQueue
	q.Policy = queue.Policy{Lease: opts.Lease, RetryBase: opts.RetryBase, RetryMax: opts.RetryMax, MaxAttempts: opts.MaxAttempts, Jitter: opts.Jitter}.
		Or(queue.Policy{Lease: opts.Timeout + time.Minute, RetryBase: DefaultRetryBase, RetryMax: DefaultRetryMax, MaxAttempts: DefaultMaxAttempts})
	s := &Service{store: store, opts: opts, q: q, endpoints: map[string]map[string]*target{}, wake: queue.NewWake(), flight: newFlight()}
	var vs []deliverykit.FieldViolation
	for site, eps := range opts.Endpoints {
		for _, v := range deliverykit.ViolationsOf(Validate(eps, opts.AllowPorts...)) {
			v.Field = site + "." + v.Field
			vs = append(vs, v)
		}
		if len(vs) > 0 {
			continue
		}
		m := map[string]*target{}
		for _, e := range eps {
			u, err := url.Parse(e.URL)
			if err != nil {
				return nil, err // validated above
			}
			ws, err := signers(e.Secrets)
			if err != nil {
				return nil, err
			}
			m[e.ID] = &target{Endpoint: e, url: u, signers: ws}
		}
		s.endpoints[site] = m
	}
	if len(vs) > 0 {
		slices.SortFunc(vs, func(a, b deliverykit.FieldViolation) int { return strings.Compare(a.Field, b.Field) })
		return nil, deliverykit.Invalid(vs...)
	}
	s.client = newClient(opts.AllowPrivate, opts.AllowPorts)
	limitConnect(s.client, opts.ConnectTimeout)
	if opts.Transport != nil {
		s.client.Transport = opts.Transport
	}
	if opts.Wrap != nil {
		s.client.Transport = opts.Wrap(cmp.Or[http.RoundTripper](s.client.Transport, http.DefaultTransport))
	}
	return s, nil
}

// limitConnect bounds connecting (dialling and the TLS handshake) to d, so
// that an address that swallows packets fails an attempt early, within
// its Timeout.
func limitConnect(c *http.Client, d time.Duration) {
	tr, ok := c.Transport.(*http.Transport)
	if !ok {
		return
	}
	dial := tr.DialContext
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		// The deadline ends the dial only: a connection made is not
		// bound to ctx.
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		return dial(ctx, network, addr)
	}
	tr.TLSHandshakeTimeout = d
}

// Status is where a delivery is.
type Status string

// The statuses of a delivery.
const (
	// StatusPending: not tried yet (it may wait for an earlier delivery
	// of the same endpoint and subject).
	StatusPending Status = "pending"
	// StatusRetrying: tried and failed; tried again at next_attempt_at.
	StatusRetrying Status = "retrying"
	// StatusDelivered: the endpoint answered 2xx.
	StatusDelivered Status = "delivered"
	// StatusDead: given up (too many failures, 410 Gone, or the endpoint
	// disabled or no longer configured). It can be redelivered.
	StatusDead Status = "dead"
)

// record is a delivery as stored.
type record struct {
	// Seq orders the deliveries (queues, the list); it is a store-wide
	// sequence, so it is never shown.
	Seq uint64 `json:"seq"`
	// ID is the delivery's id as shown; empty in deliveries stored
	// before ids were random, which show their Seq (view).
	ID       string     `json:"id,omitempty"`
	Site     string     `json:"site"`
	Endpoint string     `json:"endpoint"`
	EventID  string     `json:"event_id"`
	Type     event.Type `json:"type"`
	Subject  string     `json:"subject"`
	// Body is the request body, made once so that every attempt and
	// redelivery sends the same bytes. It is JSON, stored as such.
	Body        json.RawMessage `json:"body"`
	Redelivery  bool            `json:"redelivery,omitempty"`
	Status      Status          `json:"status"`
	Attempts    int             `json:"attempts,omitempty"`
	CreatedAt   time.Time       `json:"created_at"`
	NextAttempt time.Time       `json:"next_attempt,omitzero"`
	// Waiting: queued behind an earlier delivery of its endpoint and
	// subject, without an entry in the due index (queue.Enqueue).
	Waiting      bool      `json:"waiting,omitempty"`
	LastAttempt  time.Time `json:"last_attempt,omitzero"`
	LastCode     int       `json:"last_code,omitempty"`
	LastError    string    `json:"last_error,omitempty"`
	LastResponse string    `json:"last_response,omitempty"`
	SettledAt    time.Time `json:"settled_at,omitzero"`
}

func (r *record) settled() bool { return r.Status == StatusDelivered || r.Status == StatusDead }

// ref names a delivery from the indexes.
type ref struct {
	Site     string `json:"site"`
	Endpoint string `json:"endpoint"`
	Seq      uint64 `json:"seq"`
}

// endpointState is what the service keeps of an endpoint besides its
// configuration.
type endpointState struct {
	Disabled   bool      `json:"disabled,omitempty"`
	DisabledAt time.Time `json:"disabled_at,omitzero"`
	Reason     string    `json:"reason,omitempty"`
}

var (
	// deliveries: site, endpoint, seq → the delivery, so an endpoint's
	// deliveries are one range in creation order.
	deliveries = storage.Collection[record]{Name: "webhook.deliveries"}
	// byEvent: site, endpoint, event id → seq of the latest delivery of
	// the event; written MustNotExist by Handle, which makes it
	// idempotent.
	byEvent = storage.Collection[uint64]{Name: "webhook.events"}
	// queues: site, endpoint, subject, seq → one entry per unsettled
	// delivery; the first of a subject's range is the one that may be
	// sent.
	queues = queue.NewOrder("webhook.queues")
	// due: next attempt, seq → the heads of the queues, by time.
	due = queue.NewIndex[ref]("webhook.due")
	// states: site, endpoint → endpointState.
	states = storage.Collection[endpointState]{Name: "webhook.endpoints"}
	// deliveryIDs: site, endpoint, delivery id → seq, for the before
	// cursor of the list.
	deliveryIDs = storage.Collection[uint64]{Name: "webhook.delivery_ids"}
)

func deliveryKey(site, endpoint string, seq uint64) string {
	return storage.Key(site, endpoint, storage.Uint64Key(seq))
}

// queuePrefix is the range of a subject's queue. The subject is escaped so
// that no subject can contain the key separator.
func queuePrefix(site, endpoint, subject string) string {
	return storage.KeyPrefix(site, endpoint, url.QueryEscape(subject))
}

// deliveryQueue is the queue of deliveries, in order per endpoint and
// subject; a Service's copy adds its policy.
var deliveryQueue = queue.Queue[record, ref]{Items: deliveries, Index: due, Order: queues,
	Slot: func(r *record) queue.Slot[ref] {
		id := storage.Uint64Key(r.Seq)
		return queue.Slot[ref]{Key: storage.Key(r.Site, r.Endpoint, id), ID: id, Ref: ref{r.Site, r.Endpoint, r.Seq}, Next: &r.NextAttempt, Waiting: &r.Waiting}
	},
	Subject: func(r *record) (string, uint64) { return queuePrefix(r.Site, r.Endpoint, r.Subject), r.Seq },
	At:      func(r *record, seq uint64) string { return deliveryKey(r.Site, r.Endpoint, seq) },
}

// Handle is the outbox consumer: for each endpoint of e's site subscribed
// to e's type it records a delivery, queued behind the endpoint's earlier
// deliveries of the same subject. It is idempotent by event id: an event
// handed over again records nothing new. Register it for every event type:
//
//	for _, t := range event.Types {
//		dispatcher.Handle(t, "webhook", webhooks.Handle)
//	}
//
// A site without endpoints costs no storage access. A payload that is not
// a JSON object is InvalidArgument, which the outbox treats as permanent.
func (s *Service) Handle(ctx context.Context, e event.Event) error {
	var targets []*target
	for _, t := range s.endpoints[e.Site] {
		if t.Wants(e.Type) {
			targets = append(targets, t)
		}
	}
	if len(targets) == 0 {
		return nil
	}
	b, err := body(e)
	if err != nil {
		return err
	}
	now := s.opts.Clock.Now().UTC()
	added := false
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		added = false
		for _, t := range targets {
			st, err := state(tx, e.Site, t.ID)
			if err != nil {
				return err
			}
			if st.Disabled {
				continue // a receiver that answered 410 wants nothing more
			}
			_, err = byEvent.Put(tx, storage.Key(e.Site, t.ID, e.ID), 0, storage.MustNotExist())
			if errors.Is(err, deliverykit.ErrConflict) {
				continue // handed over before
			}
			if err != nil {
				return err
			}
			r := record{Site: e.Site, Endpoint: t.ID, EventID: e.ID, Type: e.Type, Subject: e.Subject, Body: b, Status: StatusPending, CreatedAt: now}
			if err := s.enqueue(tx, &r, now); err != nil {
				return err
			}
			added = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("webhook: recording event %s: %w", e.ID, err)
	}
	if added {
		s.wake.Signal()
	}
	return nil
}

// enqueue stores a new delivery r at the end of its queue (the head of a
// queue is due at now) and points the event's index entry at r.
func (s *Service) enqueue(tx storage.Tx, r *record, now time.Time) error {
	seq, err := deliveries.NextSequence(tx)
	if err != nil {
		return err
	}
	r.Seq, r.ID = seq, s.opts.IDs.NewID(DeliveryIDPrefix)
	if _, err := deliveryIDs.Put(tx, storage.Key(r.Site, r.Endpoint, r.ID), seq, storage.MustNotExist()); err != nil {
		return err
	}
	if _, err := byEvent.Put(tx, storage.Key(r.Site, r.Endpoint, r.EventID), seq, storage.AnyVersion); err != nil {
		return err
	}
	_, err = deliveryQueue.Enqueue(tx, r, now, storage.MustNotExist())
	return err
}

// state reads an endpoint's state; a missing one is the zero state.
func state(tx storage.Tx, site, endpoint string) (endpointState, error) {
	it, err := states.Get(tx, storage.Key(site, endpoint))
	if errors.Is(err, storage.ErrNotFound) {
		return endpointState{}, nil
	}
	return it.Value, err
}

// NextDue returns when the next delivery (or retry) falls due; false when
// none is pending. A test clock is moved to it.
func (s *Service) NextDue(ctx context.Context) (time.Time, bool, error) {
	return queue.NextDue(ctx, s.store, due)
}
