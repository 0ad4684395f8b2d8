// Package metrics exposes the operational figures of a deliverykit
// deployment as Prometheus collectors: store transactions and conflicts,
// the outbox's depth, age and dead events, webhook attempts and customer
// notifications by outcome, and cache sizes. httpapi.NewMetrics adds the
// requests. Register them in the embedding program's own registry:
//
//	reg := prometheus.NewRegistry()
//	store, _ = metrics.Store(store, reg) // before the areas are built on it
//	svcs, _ := wiring.New(store, cfg, wiring.Options{Metrics: reg})
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// wiring.New registers the collectors of the services it builds when
// Options.Metrics is set, so most programs only pass their registry.
package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/webhook"
)

// Namespace prefixes every metric name.
const Namespace = "deliverykit"

// statsLimit bounds the events an outbox scrape looks at: a backlog larger
// than this reads as this many (and the oldest as the oldest of them).
const statsLimit = 10000

// Sources are the services whose figures are exported; nil ones are left
// out.
type Sources struct {
	Outbox   *outbox.Dispatcher
	Webhooks *webhook.Service
	Checkout *checkout.Service
	// Clock gives the age of the oldest pending event; default the system
	// clock.
	Now func() time.Time
}

// Register registers the collectors of src with reg. With an Outbox it
// also counts notifications (Notifications), as the outbox's consumer
// "metrics" of notification.sent and notification.failed.
func Register(reg prometheus.Registerer, src Sources) error {
	if src.Now == nil {
		src.Now = time.Now
	}
	var cs []prometheus.Collector
	if d := src.Outbox; d != nil {
		cs = append(cs, &outboxCollector{d: d, now: src.Now})
	}
	if w := src.Webhooks; w != nil {
		cs = append(cs, &webhookCollector{w: w})
	}
	if c := src.Checkout; c != nil {
		cs = append(cs, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Namespace: Namespace, Name: "checkout_cache_bytes",
			Help: "Estimated heap held by the cache of recently read checkout sessions.",
		}, func() float64 { return float64(c.CacheBytes()) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	if d := src.Outbox; d != nil {
		// Notifications are counted from their events, as the outbox
		// delivers them (metrics_notifications_total).
		count, err := Notifications(reg)
		if err != nil {
			return err
		}
		d.Handle(event.TypeNotificationSent, "metrics", count)
		d.Handle(event.TypeNotificationFailed, "metrics", count)
	}
	return nil
}

var (
	outboxPending = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "outbox", "pending_events"),
		"Events waiting for delivery or a retry (counted up to 10000).", nil, nil)
	outboxOldest = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "outbox", "oldest_pending_age_seconds"),
		"Age of the oldest event waiting for delivery; 0 when none waits.", nil, nil)
	outboxDead = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "outbox", "dead_events"),
		"Events that failed for good, waiting for a retry by hand.", nil, nil)
)

// outboxCollector reads the outbox's figures at scrape time.
type outboxCollector struct {
	d   *outbox.Dispatcher
	now func() time.Time
}

func (c *outboxCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- outboxPending
	ch <- outboxOldest
	ch <- outboxDead
}

func (c *outboxCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := c.d.Stats(ctx, statsLimit)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(outboxPending, err)
		return
	}
	age := 0.0
	if st.Pending > 0 {
		age = max(c.now().Sub(st.Oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(outboxPending, prometheus.GaugeValue, float64(st.Pending))
	ch <- prometheus.MustNewConstMetric(outboxOldest, prometheus.GaugeValue, age)
	ch <- prometheus.MustNewConstMetric(outboxDead, prometheus.GaugeValue, float64(st.Dead))
}

var webhookAttempts = prometheus.NewDesc(prometheus.BuildFQName(Namespace, "webhook", "attempts_total"),
	"Webhook delivery attempts by outcome: delivered (2xx), retrying, dead.", []string{"outcome"}, nil)

type webhookCollector struct{ w *webhook.Service }

func (c *webhookCollector) Describe(ch chan<- *prometheus.Desc) { ch <- webhookAttempts }

func (c *webhookCollector) Collect(ch chan<- prometheus.Metric) {
	a := c.w.Attempts()
	ch <- prometheus.MustNewConstMetric(webhookAttempts, prometheus.CounterValue, float64(a.Delivered), "delivered")
	ch <- prometheus.MustNewConstMetric(webhookAttempts, prometheus.CounterValue, float64(a.Retrying), "retrying")
	ch <- prometheus.MustNewConstMetric(webhookAttempts, prometheus.CounterValue, float64(a.Dead), "dead")
}

// Notifications returns an outbox consumer counting customer
// notifications by channel and outcome (sent, failed attempt), registered
// with reg. Register adds it to Sources.Outbox for
// event.TypeNotificationSent and TypeNotificationFailed. An event
// delivered twice is counted twice.
func Notifications(reg prometheus.Registerer) (outbox.Handler, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "notifications_total",
		Help: "Customer notification send attempts by channel and outcome (sent, failed)."}, []string{"channel", "outcome"})
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	return func(ctx context.Context, e event.Event) error {
		switch e.Type {
		case event.TypeNotificationSent:
			n, err := event.Decode[event.NotificationSent](e)
			if err != nil {
				return err
			}
			c.WithLabelValues(n.Channel, "sent").Inc()
		case event.TypeNotificationFailed:
			n, err := event.Decode[event.NotificationFailed](e)
			if err != nil {
				return err
			}
			c.WithLabelValues(n.Channel, "failed").Inc()
		}
		return nil
	}, nil
}

// Store returns s instrumented: the duration of its transactions by kind
// (view, update) and the updates that lost a compare-and-set (conflicts),
// registered with reg.
func Store(s storage.Store, reg prometheus.Registerer) (storage.Store, error) {
	m := &store{Store: s,
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "store_transaction_seconds",
			Help: "Store transaction durations by kind (view, update).", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 9)}, []string{"kind"}),
		conflicts: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "store_conflicts_total",
			Help: "Updates refused because a concurrent write changed what they read (clients repeat them)."}),
	}
	for _, c := range []prometheus.Collector{m.seconds, m.conflicts} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	m.view, m.update = m.seconds.WithLabelValues("view"), m.seconds.WithLabelValues("update")
	return m, nil
}

type store struct {
	storage.Store
	seconds      *prometheus.HistogramVec
	view, update prometheus.Observer
	conflicts    prometheus.Counter
}

func (s *store) View(ctx context.Context, fn func(storage.Tx) error) error {
	start := time.Now()
	err := s.Store.View(ctx, fn)
	s.view.Observe(time.Since(start).Seconds())
	return err
}

func (s *store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	start := time.Now()
	err := s.Store.Update(ctx, fn)
	s.update.Observe(time.Since(start).Seconds())
	if errors.Is(err, storage.ErrConflict) {
		s.conflicts.Inc()
	}
	return err
}

// UpdateSteps passes a function run in steps (storage.Stepper) on to the
// wrapped store, timed as an update.
func (s *store) UpdateSteps(ctx context.Context, first func(storage.Tx) (storage.Step, error)) error {
	start := time.Now()
	err := storage.UpdateSteps(ctx, s.Store, first)
	s.update.Observe(time.Since(start).Seconds())
	if errors.Is(err, storage.ErrConflict) {
		s.conflicts.Inc()
	}
	return err
}

// Begin holds a transaction of the wrapped store for the caller
// (storage.Beginner), timed as an update from Begin to its end.
func (s *store) Begin(ctx context.Context) (storage.Held, error) {
	start := time.Now()
	h, err := storage.Begin(ctx, s.Store)
	if err != nil {
		return nil, err
	}
	return &timedHeld{Held: h, s: s, start: start}, nil
}

// timedHeld observes its transaction's duration once it ends.
type timedHeld struct {
	storage.Held
	s     *store
	start time.Time
	ended bool
}

func (h *timedHeld) Commit() error {
	err := h.Held.Commit()
	if !h.ended {
		h.ended = true
		h.s.update.Observe(time.Since(h.start).Seconds())
		if errors.Is(err, storage.ErrConflict) {
			h.s.conflicts.Inc()
		}
	}
	return err
}

func (h *timedHeld) Rollback() {
	h.Held.Rollback()
	if !h.ended {
		h.ended = true
		h.s.update.Observe(time.Since(h.start).Seconds())
	}
}

// Get reads one record (storage.Get) through the wrapped store, timed as
// a view: it is one, in a single statement where the store allows.
func (s *store) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	start := time.Now()
	rec, err := storage.Get(ctx, s.Store, coll, key)
	s.view.Observe(time.Since(start).Seconds())
	return rec, err
}

// Shared passes the wrapped store's shared values on (storage.Owner): the
// records are its.
func (s *store) Shared(key any, make func() any) (any, bool) {
	return storage.Shared(s.Store, key, make)
}

// Probe passes the wrapped store's health check through.
func (s *store) Probe(ctx context.Context) error {
	if p, ok := s.Store.(storage.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}
