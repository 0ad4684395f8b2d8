package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"code.dny.dev/ssrf"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/storage"
)

// UserAgent is sent with every delivery.
const UserAgent = "deliverykit-webhooks/1"

// newClient is the HTTP client of deliveries: no redirects (a receiver
// that moved must be configured anew; following a redirect would send
// the signed event, and the request, somewhere nobody configured), no
// proxy from the environment (it would dial the receiver for us, past the
// address check), and unless allowPrivate a dialer that refuses every
// address outside the public unicast space, checked on the address
// actually dialled, after name resolution, so a name that resolves to an
// internal address is refused too, and every port but DefaultPorts and
// allowPorts.
func newClient(allowPrivate bool, allowPorts []int) *http.Client {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		// The IANA special-purpose registries, kept by the library:
		// loopback, RFC 1918, link-local, unspecified, carrier-grade
		// NAT, documentation and benchmarking ranges, IPv4-mapped
		// forms…
		ports := make([]uint16, 0, len(DefaultPorts)+len(allowPorts))
		for _, p := range slices.Concat(DefaultPorts, allowPorts) {
			if p > 0 && p <= math.MaxUint16 {
				ports = append(ports, uint16(p))
			}
		}
		dialer.Control = ssrf.New(ssrf.WithPorts(ports...)).Safe
	}
	tr := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           100,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// outcome is what one attempt gave.
type outcome struct {
	code     int    // HTTP status, 0 when there was no answer
	err      string // why it failed, for the record
	response string // the answer's first MaxResponseBytes, as text
}

func (o outcome) ok() bool { return o.code >= 200 && o.code < 300 }

// result is what deliver did with one delivery.
type result struct {
	rf ref
	// sent: a request was made (the delivery was claimed); out is its
	// outcome.
	sent bool
	out  outcome
	// next is the delivery of the same queue that settling this one
	// made due, if any.
	next *ref
	err  error
}

// delivered tells whether the endpoint took the delivery and it was
// recorded.
func (r result) delivered() bool { return r.sent && r.out.ok() && r.err == nil }

// deliver claims, sends and settles one delivery. A delivery not due
// (claimed by another sender, or settled meanwhile) is skipped: sent is
// false. So is one whose endpoint is no longer configured or disabled:
// it dies without a request.
func (s *Service) deliver(ctx context.Context, rf ref) result {
	now := s.opts.Clock.Now().UTC()
	key := deliveryKey(rf.Site, rf.Endpoint, rf.Seq)
	t := s.endpoints[rf.Site][rf.Endpoint]
	refused := ""
	claimed, version, ok, err := s.q.Take(ctx, s.store, key, now, func(tx storage.Tx, r *record, _ uint64) (bool, error) {
		if r.settled() {
			return false, nil
		}
		var err error
		refused, err = refusal(tx, t, r)
		return err == nil, err
	})
	if err != nil || !ok {
		return result{rf: rf, err: err}
	}
	var out outcome
	if refused == "" {
		out = s.send(ctx, t, &claimed, now)
	}
	// Settled even when the caller's context ended meanwhile: the
	// request was made.
	var n note
	held, err := s.q.Settle(ctx, s.store, key, version, func(tx storage.Tx, r *record, v uint64) error {
		n = note{}
		if refused == "" {
			return s.settle(tx, r, v, out, now, &n)
		}
		r.LastError = refused
		return s.kill(tx, r, v, now, &n)
	})
	if !held {
		n = note{} // the lease ran out and another sender took it
	}
	if errors.Is(err, storage.ErrNotFound) {
		return result{rf: rf}
	}
	s.log(ctx, n, err)
	res := result{rf: rf, sent: refused == "", out: out, next: n.next, err: err} // a refused one was not sent
	if res.sent && err == nil {
		switch {
		case out.ok():
			s.counts.delivered.Add(1)
		case n.dead.Status == StatusDead:
			s.counts.dead.Add(1)
		default:
			s.counts.retrying.Add(1)
		}
	}
	return res
}

// refusal says why r, of the endpoint t (nil: no longer configured), is
// not sent: only configured, enabled endpoints are sent to.
func refusal(tx storage.Tx, t *target, r *record) (string, error) {
	if t == nil {
		return "the endpoint is no longer configured", nil
	}
	st, err := state(tx, r.Site, r.Endpoint)
	if err != nil || !st.Disabled {
		return "", err
	}
	return "the endpoint is disabled", nil
}

// attemptCounts are the attempts of this Service by outcome.
type attemptCounts struct{ delivered, retrying, dead atomic.Uint64 }

// Attempts are the delivery attempts this Service made since it was
// built, by outcome: answered 2xx, failed and to be retried, failed for
// good (dead). For metrics.
type Attempts struct{ Delivered, Retrying, Dead uint64 }

// Attempts counts the attempts this Service made, by outcome.
func (s *Service) Attempts() Attempts {
	return Attempts{s.counts.delivered.Load(), s.counts.retrying.Load(), s.counts.dead.Load()}
}

// send makes one attempt. It runs outside any transaction, with its own
// deadline, and is not cut short when ctx ends: an attempt under way is
// finished and recorded.
func (s *Service) send(ctx context.Context, t *target, r *record, now time.Time) outcome {
	sig, err := sign(t.signers, r.EventID, now, r.Body)
	if err != nil {
		return outcome{err: err.Error()}
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, t.url.String(), bytes.NewReader(r.Body))
	if err != nil {
		return outcome{err: err.Error()}
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderID, r.EventID)
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return outcome{err: attemptError(err, s.opts.Timeout)}
	}
	defer resp.Body.Close()
	// Only the start of the answer matters (an excerpt for the merchant);
	// the rest is not read, whatever its size.
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes))
	out := outcome{code: resp.StatusCode, response: strings.ToValidUTF8(string(excerpt), "\uFFFD")}
	if !out.ok() {
		out.err = "HTTP " + strconv.Itoa(resp.StatusCode)
		if loc := resp.Header.Get("Location"); resp.StatusCode >= 300 && resp.StatusCode < 400 && loc != "" {
			out.err += " redirect (not followed) to " + validation.TruncateBytes(loc, 200)
		}
	}
	return out
}

// attemptError words a failed request for the record: short, and
// without the request's URL (the merchant knows it; logs need not).
func attemptError(err error, timeout time.Duration) string {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			err = inner
		}
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("no answer within %s", timeout)
	case errors.Is(err, ssrf.ErrProhibitedIP):
		return "refused: the endpoint's address is not public (" + validation.TruncateBytes(err.Error(), 300) + ")"
	case errors.Is(err, ssrf.ErrProhibitedPort):
		return "refused: the endpoint's port is not allowed (" + validation.TruncateBytes(err.Error(), 300) + ")"
	}
	return validation.TruncateBytes(err.Error(), 500)
}

// note is what a settling transaction has to log once it committed (an
// Update function may run more than once, so it logs nothing itself),
// and the delivery it made due.
type note struct {
	dead     record
	disabled bool
	next     *ref
}

func (s *Service) log(ctx context.Context, n note, err error) {
	if err != nil || n.dead.Status != StatusDead {
		return
	}
	r := n.dead
	if n.disabled {
		s.opts.Logger.WarnContext(ctx, "webhook endpoint disabled: it answered 410 Gone", "site", r.Site, "endpoint", r.Endpoint, "event_id", r.EventID)
	}
	s.opts.Logger.ErrorContext(ctx, "webhook delivery is dead", "site", r.Site, "endpoint", r.Endpoint,
		"event_id", r.EventID, "type", string(r.Type), "attempts", r.Attempts, "err", r.LastError)
}

// settle records the outcome of an attempt.
func (s *Service) settle(tx storage.Tx, r *record, version uint64, out outcome, now time.Time, n *note) error {
	r.Attempts++
	r.LastAttempt, r.LastCode, r.LastError, r.LastResponse = now, out.code, out.err, out.response
	switch {
	case out.ok():
		r.Status = StatusDelivered
		return s.finish(tx, r, version, now, n)
	case out.code == http.StatusGone:
		// The receiver says it is gone for good: stop sending to it
		// until the merchant enables it again.
		st := endpointState{Disabled: true, DisabledAt: now, Reason: "the endpoint answered 410 Gone"}
		if _, err := states.Put(tx, storage.Key(r.Site, r.Endpoint), st, storage.AnyVersion); err != nil {
			return err
		}
		n.disabled = true
		return s.kill(tx, r, version, now, n)
	case s.q.Policy.Exhausted(r.Attempts):
		return s.kill(tx, r, version, now, n)
	}
	r.Status = StatusRetrying
	return s.q.Retry(tx, r, version, r.Attempts, now)
}

// kill makes r dead and lets its queue go on; n.dead has it logged at
// ERROR once the transaction committed.
func (s *Service) kill(tx storage.Tx, r *record, version uint64, now time.Time, n *note) error {
	r.Status = StatusDead
	err := s.finish(tx, r, version, now, n)
	n.dead = *r
	return err
}

// finish stores a settled r, takes it off its queue and the due index,
// makes the next delivery of its queue due (n.next), and indexes r for
// retention (retention.go).
func (s *Service) finish(tx storage.Tx, r *record, version uint64, now time.Time, n *note) error {
	next, err := deliveryQueue.Dequeue(tx, r, now)
	if err != nil {
		return err
	}
	n.next = nil
	if next != nil {
		n.next = &ref{next.Site, next.Endpoint, next.Seq}
	}
	r.NextAttempt, r.SettledAt = time.Time{}, now
	if _, err := deliveryQueue.Save(tx, r, storage.VersionIs(version)); err != nil {
		return err
	}
	return settle(tx, r)
}

// ReleaseLeases makes every claimed or backing-off delivery due now and
// returns how many it released. A process that is the only one using its
// store (a bolt file) calls it at start: leases held when the previous
// process died are stale, and their deliveries need not wait for them to
// run out. Never call it on a store other running senders share.
func (s *Service) ReleaseLeases(ctx context.Context) (int, error) {
	return s.q.ReleaseLeases(ctx, s.store, s.opts.Clock.Now().UTC(), func(e queue.Entry[ref]) string {
		return deliveryKey(e.Value.Site, e.Value.Endpoint, e.Value.Seq)
	})
}
