package webhook

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// The sender: which due delivery is sent next, so that no endpoint's
// slowness delays another's deliveries.
//
// Attempts run on a pool of Options.Concurrency. A delivery is started
// only while its endpoint has fewer than Options.PerEndpoint attempts in
// flight and its site fewer than Options.PerSite, picking round-robin
// across sites, then across each site's endpoints; the pool is refilled
// as each attempt ends (nothing waits for a batch). An endpoint failing
// Options.BreakerThreshold attempts in a row is paused (its circuit
// opens) for Options.BreakerCooldown: its due deliveries are moved to the
// end of the pause in the store, without an attempt, so they occupy
// neither workers nor the due index's front; then one attempt probes it
// (half-open), and its success resumes the endpoint.

// epKey names an endpoint of a site.
type epKey struct{ site, endpoint string }

func keyOf(rf ref) epKey { return epKey{rf.Site, rf.Endpoint} }

// breaker is an endpoint's circuit.
type breaker struct {
	failures int // failed attempts in a row
	// openUntil, when set, is the end of the pause; after it the circuit
	// is half-open: one attempt (probing) decides.
	openUntil time.Time
	probing   bool
}

// flight is what this process has in flight, shared by Run and Dispatch.
type flight struct {
	mu       sync.Mutex
	total    int
	site     map[string]int
	endpoint map[epKey]int
	busy     map[uint64]struct{} // seqs being sent
	breakers map[epKey]*breaker  // configured endpoints only
}

func newFlight() *flight {
	return &flight{site: map[string]int{}, endpoint: map[epKey]int{}, busy: map[uint64]struct{}{}, breakers: map[epKey]*breaker{}}
}

// verdict is what admit says of a delivery.
type verdict int

const (
	admitted verdict = iota
	wait             // the pool, the site or the endpoint is full, or a probe is under way
	pause            // the endpoint's circuit is open: postpone to the end of the pause
)

// admit takes a place for rf in the pool if its endpoint and site have one
// and its circuit lets it through; until is the end of the pause.
func (s *Service) admit(rf ref, now time.Time) (v verdict, until time.Time) {
	f := s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	k := keyOf(rf)
	if _, ok := f.busy[rf.Seq]; ok {
		return wait, time.Time{}
	}
	b := f.breakers[k]
	probe := false
	if b != nil && !b.openUntil.IsZero() {
		if now.Before(b.openUntil) {
			return pause, b.openUntil
		}
		if b.probing || f.endpoint[k] > 0 {
			return wait, time.Time{}
		}
		probe = true
	}
	if f.total >= s.opts.Concurrency || f.site[rf.Site] >= s.opts.PerSite || f.endpoint[k] >= s.opts.PerEndpoint {
		return wait, time.Time{}
	}
	if probe {
		b.probing = true
	}
	f.total++
	f.site[rf.Site]++
	f.endpoint[k]++
	f.busy[rf.Seq] = struct{}{}
	return admitted, time.Time{}
}

// release gives rf's place back and tells its endpoint's circuit how the
// attempt went. It reports whether the circuit opened, after how many
// failures in a row.
func (s *Service) release(r result, now time.Time) (opened bool, failures int) {
	f := s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	k := keyOf(r.rf)
	f.total--
	if f.site[k.site]--; f.site[k.site] == 0 {
		delete(f.site, k.site)
	}
	if f.endpoint[k]--; f.endpoint[k] == 0 {
		delete(f.endpoint, k)
	}
	delete(f.busy, r.rf.Seq)
	if s.endpoints[k.site][k.endpoint] == nil {
		return false, 0
	}
	b := f.breakers[k]
	if b == nil {
		b = &breaker{}
		f.breakers[k] = b
	}
	if !r.sent {
		// Nothing was asked of the endpoint (another sender had the
		// delivery): a probe that was not made decides nothing.
		b.probing = false
		return false, 0
	}
	switch {
	case r.out.ok(), r.out.code == 410: // 410: the endpoint is disabled; Enable starts it afresh
		*b = breaker{}
	default:
		b.failures++
		if b.probing || b.failures >= s.opts.BreakerThreshold {
			opened = b.openUntil.IsZero() || b.probing
			b.openUntil, b.probing = now.Add(s.opts.BreakerCooldown), false
		}
	}
	return opened, b.failures
}

// ready are the due deliveries a sender has found and not started yet,
// by site and endpoint, in the order found.
type ready struct {
	sites  []string
	bySite map[string]*siteReady
	next   int // the site to look at first: round-robin
	n      int
}

type siteReady struct {
	endpoints []string
	refs      map[string][]ref
	next      int
}

func newReady() *ready { return &ready{bySite: map[string]*siteReady{}} }

func (q *ready) add(rf ref) {
	sr := q.bySite[rf.Site]
	if sr == nil {
		sr = &siteReady{refs: map[string][]ref{}}
		q.bySite[rf.Site] = sr
		q.sites = append(q.sites, rf.Site)
	}
	if _, ok := sr.refs[rf.Endpoint]; !ok {
		sr.endpoints = append(sr.endpoints, rf.Endpoint)
	}
	sr.refs[rf.Endpoint] = append(sr.refs[rf.Endpoint], rf)
	q.n++
}

// has tells whether q holds a delivery of rf's endpoint.
func (q *ready) has(rf ref) bool {
	sr := q.bySite[rf.Site]
	return sr != nil && len(sr.refs[rf.Endpoint]) > 0
}

// pick returns the next delivery to start, round-robin across sites and
// their endpoints, admitted by s; the deliveries of paused endpoints
// are moved to postpone.
func (q *ready) pick(s *Service, now time.Time, postpone map[time.Time][]ref) (ref, bool) {
	for i := range q.sites {
		si := (q.next + i) % len(q.sites)
		sr := q.bySite[q.sites[si]]
		for j := range sr.endpoints {
			ei := (sr.next + j) % len(sr.endpoints)
			ep := sr.endpoints[ei]
			refs := sr.refs[ep]
			if len(refs) == 0 {
				continue
			}
			v, until := s.admit(refs[0], now)
			switch v {
			case pause: // the endpoint's deliveries all wait for the end of the pause
				postpone[until] = append(postpone[until], refs...)
				sr.refs[ep], q.n = nil, q.n-len(refs)
				continue
			case wait:
				continue
			}
			sr.refs[ep] = refs[1:]
			q.n--
			q.next, sr.next = si+1, ei+1
			return refs[0], true
		}
	}
	return ref{}, false
}

// pump starts deliveries from its ready set and collects their results.
type pump struct {
	s         *Service
	ready     *ready
	done      chan result
	running   int
	delivered int
	attempted int // delivered or not
	err       error
}

func (s *Service) newPump() *pump {
	return &pump{s: s, ready: newReady(), done: make(chan result, s.opts.Concurrency)}
}

// start starts every ready delivery that is admitted now, and postpones
// those of paused endpoints.
func (p *pump) start(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	now := p.s.opts.Clock.Now().UTC()
	postpone := map[time.Time][]ref{}
	for {
		rf, ok := p.ready.pick(p.s, now, postpone)
		if !ok {
			break
		}
		p.running++
		go func() {
			r := p.s.deliver(ctx, rf)
			if opened, failures := p.s.release(r, p.s.opts.Clock.Now().UTC()); opened {
				p.s.opts.Logger.WarnContext(ctx, "webhook endpoint paused: its attempts keep failing",
					"site", rf.Site, "endpoint", rf.Endpoint, "failures_in_a_row", failures,
					"pause_ms", p.s.opts.BreakerCooldown.Milliseconds(), "err", r.out.err)
			}
			if p.s.attempted != nil {
				p.s.attempted(r)
			}
			p.done <- r
		}()
	}
	if err := p.s.postponeAll(ctx, postpone, now); err != nil && p.err == nil {
		p.err = err
	}
}

// collect records a finished attempt.
func (p *pump) collect(r result) {
	p.running--
	p.attempted++
	if r.delivered() {
		p.delivered++
	}
	if r.err != nil && p.err == nil {
		p.err = r.err
	}
}

// Dispatch sends the deliveries due at the clock's time (at most
// Options.Batch), as Run would, waits until each is settled or
// postponed, and returns how many were delivered. Each delivery is claimed first (its
// next attempt moved a lease ahead, so another sender skips it), then
// sent outside any transaction, then settled. A send cut short by a
// crash is sent again when the lease runs out: delivery is at least
// once. Failed sends are not errors of Dispatch; its error is the
// store's. Run sends continuously; Dispatch is for a schedule of one's
// own and for tests.
func (s *Service) Dispatch(ctx context.Context) (int, error) {
	p, err := s.dispatch(ctx)
	return p.delivered, err
}

// dispatch is Dispatch, telling what its pump did.
func (s *Service) dispatch(ctx context.Context) (*pump, error) {
	p := s.newPump()
	if err := s.look(ctx, p); err != nil {
		return p, err
	}
	p.start(ctx)
	for p.running > 0 {
		p.collect(<-p.done)
		p.start(ctx)
	}
	return p, p.err
}

// Step is Dispatch, one round of sending, for wiring.Services.Step and a
// schedule of one's own, but returns the attempts made, delivered or
// not: what it did. wiring.Services.Run runs Run instead, which also
// wakes up when a delivery is queued or settled.
func (s *Service) Step(ctx context.Context) (int, error) {
	p, err := s.dispatch(ctx)
	return p.attempted, err
}

// Run sends due deliveries until ctx ends, and returns ctx's error. It
// looks for them at once, every interval, whenever Handle or Redeliver
// queued one, and whenever an attempt ended and nothing of its endpoint
// is left to start; a settled delivery's successor in its queue is
// started as soon as a place is free. Store errors are logged and tried again. Attempts under
// way when ctx ends are finished (within Options.Timeout) and recorded.
// Start it in its own goroutine, one per process.
func (s *Service) Run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	p := s.newPump()
	look := true
	for {
		if look && ctx.Err() == nil {
			if err := s.look(ctx, p); err != nil && ctx.Err() == nil {
				s.opts.Logger.ErrorContext(ctx, "webhook dispatch failed", "err", err)
			}
			look = false
		}
		p.start(ctx)
		if p.err != nil {
			if ctx.Err() == nil {
				s.opts.Logger.ErrorContext(ctx, "webhook dispatch failed", "err", p.err)
			}
			p.err = nil
		}
		if ctx.Err() != nil {
			if p.running == 0 {
				return ctx.Err()
			}
			p.collect(<-p.done)
			continue
		}
		select {
		case <-ctx.Done():
		case r := <-p.done:
			p.collect(r)
			if r.next != nil {
				// Due now: no need to look for it.
				p.ready.add(*r.next)
			}
			// Look again when the ready set ran dry, or has nothing of
			// this endpoint (a look skips full endpoints): retries that
			// came due meanwhile are found then. Not after every
			// attempt: a look reads up to scanFactor × Batch entries.
			look = p.ready.n == 0 || !p.ready.has(r.rf)
		case <-t.C:
			look = true
		case <-s.wake:
			look = true
		}
	}
}

// look replaces p's ready set by the deliveries due now.
func (s *Service) look(ctx context.Context, p *pump) error {
	now := s.opts.Clock.Now().UTC()
	postpone := map[time.Time][]ref{}
	refs, err := s.scan(ctx, now, postpone)
	if err != nil {
		return err
	}
	p.ready = newReady()
	for _, rf := range refs {
		p.ready.add(rf)
	}
	return s.postponeAll(ctx, postpone, now)
}

// scan reads the due index up to now: at most Options.Batch deliveries to
// send (and as many more of endpoints or sites that are full now), at
// most a quarter of them (or 16) of one endpoint, so that one endpoint's
// backlog does not hide the others', reading at most scanFactor × Batch
// entries. Deliveries in flight here are skipped; those of paused
// endpoints are added to postpone.
func (s *Service) scan(ctx context.Context, now time.Time, postpone map[time.Time][]ref) ([]ref, error) {
	var refs []ref
	err := s.store.View(ctx, func(tx storage.Tx) error {
		refs = refs[:0]
		clear(postpone)
		perEndpoint := map[epKey]int{}
		ready, waiting := 0, 0
		for e, err := range due.Due(tx, now, scanFactor*s.opts.Batch) {
			if err != nil {
				return err
			}
			rf := e.Value
			busy, full, until := s.held(rf, now)
			switch {
			case busy:
				continue
			case !until.IsZero():
				postpone[until] = append(postpone[until], rf)
				continue
			}
			k := keyOf(rf)
			if perEndpoint[k] >= max(s.opts.Batch/4, min(s.opts.Batch, 16)) {
				continue
			}
			// Deliveries of full endpoints and sites are kept for when
			// a place frees, but do not fill the batch: the others
			// behind them in the index are found too.
			if full {
				if waiting == s.opts.Batch {
					continue
				}
				waiting++
			} else {
				ready++
			}
			perEndpoint[k]++
			refs = append(refs, rf)
			if ready == s.opts.Batch {
				break
			}
		}
		return nil
	})
	return refs, err
}

// scanFactor bounds a scan of the due index: it reads at most
// scanFactor × Batch entries.
const scanFactor = 10

// held tells whether rf is in flight here, whether its endpoint or site
// is full, and when its endpoint's pause ends.
func (s *Service) held(rf ref, now time.Time) (busy, full bool, until time.Time) {
	f := s.flight
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.busy[rf.Seq]; ok {
		return true, false, time.Time{}
	}
	if b := f.breakers[keyOf(rf)]; b != nil && now.Before(b.openUntil) {
		return false, false, b.openUntil
	}
	return false, f.endpoint[keyOf(rf)] >= s.opts.PerEndpoint || f.site[rf.Site] >= s.opts.PerSite, time.Time{}
}

// postponeAll moves the next attempt of the deliveries of paused
// endpoints to the end of their pause (postpone's key), without counting
// an attempt, a transaction per pause. Deliveries no longer due as found
// (claimed by another sender, settled) are left.
func (s *Service) postponeAll(ctx context.Context, postpone map[time.Time][]ref, now time.Time) error {
	for until, refs := range postpone {
		if err := s.postpone(ctx, refs, now, until); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) postpone(ctx context.Context, refs []ref, now, until time.Time) error {
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		for _, rf := range refs {
			it, err := deliveries.Get(tx, deliveryKey(rf.Site, rf.Endpoint, rf.Seq))
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			r := it.Value
			if r.settled() || r.Waiting || r.NextAttempt.After(now) {
				continue
			}
			if _, err := deliveryQueue.Move(tx, &r, until, storage.VersionIs(it.Version)); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, storage.ErrConflict) {
		return nil // another sender changed one; the next scan sees them again
	}
	return err
}
