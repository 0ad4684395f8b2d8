package httpapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// DefaultProbeInterval is how long Readiness reuses a probe's result when
// ReadinessOptions.Interval is zero.
const DefaultProbeInterval = 5 * time.Second

// DefaultProbeTimeout bounds one probe when ReadinessOptions.Timeout is
// zero: a disk that hangs makes the server not ready rather than the check
// hang.
const DefaultProbeTimeout = 5 * time.Second

// HealthCollection is the collection the readiness probe writes its one
// record to.
const HealthCollection = "health"

// ReadinessOptions configures a Readiness.
type ReadinessOptions struct {
	// Interval is how long a probe's result is reused. Default:
	// DefaultProbeInterval.
	Interval time.Duration
	// Timeout bounds one probe. Default: DefaultProbeTimeout.
	Timeout time.Duration
	// Clock decides when a result is stale. Default: the system clock.
	Clock deliverykit.Clock
}

// Readiness tells whether the server should receive traffic: the store
// takes writes, and the server is not shutting down. Check probes the store
// at most once per interval, however often it is called, by writing one
// small record to HealthCollection; a store that implements storage.Prober
// is asked first (bolt checks that its file is still the one at its path).
// It starts no goroutine. Use Check as Options.Ready.
type Readiness struct {
	store    storage.Store
	interval time.Duration
	timeout  time.Duration
	clock    deliverykit.Clock

	mu       sync.Mutex
	draining bool
	probing  bool
	at       time.Time // when the last probe started; zero: none yet
	err      error     // its result
}

// errDraining is the readiness error of a server that is shutting down.
var errDraining = errors.New("the server is shutting down")

// errNotProbed is the answer while the first probe is still running.
var errNotProbed = errors.New("the first readiness probe has not finished")

// NewReadiness returns the readiness of a server on store.
func NewReadiness(store storage.Store, opts ReadinessOptions) *Readiness {
	r := &Readiness{store: store, interval: opts.Interval, timeout: opts.Timeout, clock: opts.Clock}
	if r.interval <= 0 {
		r.interval = DefaultProbeInterval
	}
	if r.timeout <= 0 {
		r.timeout = DefaultProbeTimeout
	}
	if r.clock == nil {
		r.clock = deliverykit.SystemClock{}
	}
	return r
}

// Drain makes every later Check fail: call it when shutdown begins, so that
// load balancers stop sending requests while those in flight finish.
func (r *Readiness) Drain() {
	r.mu.Lock()
	r.draining = true
	r.mu.Unlock()
}

// Check returns nil when the server should receive traffic. It reuses the
// last probe's result for the interval; a caller that arrives while a probe
// runs gets the previous result rather than waiting, so a hung disk cannot
// pile callers up.
func (r *Readiness) Check(ctx context.Context) error {
	now := r.clock.Now()
	r.mu.Lock()
	switch {
	case r.draining:
		r.mu.Unlock()
		return errDraining
	case r.probing || !r.at.IsZero() && now.Sub(r.at) < r.interval:
		err := r.err
		if r.at.IsZero() {
			err = errNotProbed
		}
		r.mu.Unlock()
		return err
	}
	r.probing = true
	r.mu.Unlock()

	err := r.Probe(ctx)

	r.mu.Lock()
	defer r.mu.Unlock()
	r.probing = false
	r.at, r.err = now, err
	if r.draining {
		return errDraining
	}
	return err
}

// Probe checks the store now, whatever the interval: storage.Prober first,
// then a write. It does not record its result; Check does. The caller's
// cancellation does not stop it (a probe cut short says nothing about the
// store); Timeout does.
func (r *Readiness) Probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.timeout)
	defer cancel()
	if p, ok := r.store.(storage.Prober); ok {
		if err := p.Probe(ctx); err != nil {
			return err
		}
	}
	at, err := r.clock.Now().MarshalText()
	if err != nil {
		return err
	}
	return r.store.Update(ctx, func(tx storage.Tx) error {
		_, err := tx.Put(HealthCollection, "probe", at, storage.AnyVersion)
		return err
	})
}
