package returns

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
)

// DemoRefunds is a RefundExecutor that pays nothing out: it settles each
// refund as a payment provider would, succeeding or failing at random
// with Options.FailureRate, for demonstrations and tests of the refund
// lifecycle.
//
// Each execution (RefundRequest.Key) moves through a small state machine:
//
//	(new) → PROCESSING → SUCCEEDED | FAILED
//
// The outcome is drawn when the execution starts. With a Delay of 0 it is
// settled at once and answered to the caller (the transaction goes from
// PENDING straight to SUCCESS or FAILED). With a Delay, the execution is
// accepted (the transaction stays PENDING, with the demo's foreignId) and
// Settle (Step) reports it through the Reporter once the delay has
// passed on the clock. Executions are idempotent by key: executing a key
// again answers its state. The demo keeps its state in memory: after a
// restart, a transaction accepted with a delay stays PENDING until the
// merchant reports it.
type DemoRefunds struct {
	failureRate float64
	delay       time.Duration
	rand        func() float64
	clock       deliverykit.Clock

	mu       sync.Mutex
	states   map[string]*demoRefund
	order    []string // keys, oldest first, for the bound
	reporter RefundReporter
}

// DemoRefundsOptions configures NewDemoRefunds.
type DemoRefundsOptions struct {
	// FailureRate is the share of refunds that fail, 0 to 1. Default 0.
	FailureRate float64
	// Delay is how long an execution takes on the clock; 0 settles at
	// once.
	Delay time.Duration
	// Rand draws a number in [0, 1) per execution; it fails when the
	// number is below FailureRate. Default: math/rand/v2's Float64. Tests
	// inject a fixed sequence.
	Rand func() float64
	// Clock times delayed executions. Default: the system clock.
	Clock deliverykit.Clock
}

// RefundReporter receives delayed outcomes; *Service is one.
type RefundReporter interface {
	ReportRefundSucceeded(ctx context.Context, site string, id uint64, rep RefundReport) (RefundEntry, error)
	ReportRefundFailed(ctx context.Context, site string, id uint64, rep RefundReport) (RefundEntry, error)
}

// maxDemoRefunds bounds the executions the demo remembers; the oldest
// settled ones are forgotten first.
const maxDemoRefunds = 10_000

// DemoRefundFailure is the reason a failed demo refund gives.
const DemoRefundFailure = "declined by the demo refund executor"

type demoRefund struct {
	req     RefundRequest
	outcome RefundOutcome // drawn at the start
	due     time.Time
	settled bool
}

// NewDemoRefunds returns a demo executor, or an InvalidArgument when the
// failure rate is outside 0…1 or the delay negative.
func NewDemoRefunds(opts DemoRefundsOptions) (*DemoRefunds, error) {
	if !(opts.FailureRate >= 0 && opts.FailureRate <= 1) {
		return nil, deliverykit.InvalidField("failureRate", "range", "must be between 0 and 1")
	}
	if opts.Delay < 0 {
		return nil, deliverykit.InvalidField("delay", "gte", "must not be negative")
	}
	d := &DemoRefunds{failureRate: opts.FailureRate, delay: opts.Delay, rand: opts.Rand, clock: opts.Clock,
		states: map[string]*demoRefund{}}
	if d.rand == nil {
		d.rand = rand.Float64
	}
	if d.clock == nil {
		d.clock = deliverykit.SystemClock{}
	}
	return d, nil
}

// WithClock returns a new executor like d, timed by clock, with nothing
// pending: a test site's, which runs on the site's clock.
func (d *DemoRefunds) WithClock(clock deliverykit.Clock) *DemoRefunds {
	return &DemoRefunds{failureRate: d.failureRate, delay: d.delay, rand: d.rand, clock: clock, states: map[string]*demoRefund{}}
}

// Clock is the clock that times d's delayed executions.
func (d *DemoRefunds) Clock() deliverykit.Clock { return d.clock }

// SetReporter names where delayed outcomes are reported: the Service the
// executor serves (which is built after it).
func (d *DemoRefunds) SetReporter(r RefundReporter) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.reporter = r
}

// ExecuteRefund implements RefundExecutor.
func (d *DemoRefunds) ExecuteRefund(_ context.Context, req RefundRequest) (RefundOutcome, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	st, ok := d.states[req.Key]
	if !ok {
		out := RefundOutcome{Result: RefundSucceeded, ForeignID: fmt.Sprintf("demo-refund-%d-%d", req.RefundID, req.Attempt)}
		if d.rand() < d.failureRate {
			out.Result, out.Reason = RefundDeclined, DemoRefundFailure
		}
		st = &demoRefund{req: req, outcome: out, due: d.clock.Now().Add(d.delay), settled: d.delay == 0}
		d.remember(req.Key, st)
	}
	if !st.settled {
		return RefundOutcome{Result: RefundAccepted, ForeignID: st.outcome.ForeignID}, nil
	}
	return st.outcome, nil
}

// remember stores st, forgetting the oldest settled executions beyond
// maxDemoRefunds.
func (d *DemoRefunds) remember(key string, st *demoRefund) {
	d.states[key] = st
	d.order = append(d.order, key)
	for i := 0; len(d.states) > maxDemoRefunds && i < len(d.order); {
		k := d.order[i]
		if s := d.states[k]; s == nil || s.settled {
			delete(d.states, k)
			d.order = append(d.order[:i], d.order[i+1:]...)
			continue
		}
		i++
	}
}

// Settle reports every delayed execution that is due and answers how
// many it settled. A report the service refuses because the transaction
// moved on (the merchant reported it first) settles it too; any other
// error leaves it for the next Settle and is returned.
func (d *DemoRefunds) Settle(ctx context.Context) (int, error) {
	d.mu.Lock()
	now := d.clock.Now()
	rep := d.reporter
	var due []*demoRefund
	for _, k := range d.order {
		if st := d.states[k]; st != nil && !st.settled && !now.Before(st.due) {
			due = append(due, st)
		}
	}
	d.mu.Unlock()
	if len(due) > 0 && rep == nil {
		return 0, errors.New("returns: demo refunds are due but no reporter is set")
	}
	n := 0
	var errs []error
	for _, st := range due {
		r := RefundReport{ForeignID: st.outcome.ForeignID, Reason: st.outcome.Reason}
		var err error
		if st.outcome.Result == RefundSucceeded {
			_, err = rep.ReportRefundSucceeded(ctx, st.req.Site, st.req.RefundID, r)
		} else {
			_, err = rep.ReportRefundFailed(ctx, st.req.Site, st.req.RefundID, r)
		}
		if err != nil && deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
			errs = append(errs, err)
			continue
		}
		d.mu.Lock()
		st.settled = true
		d.mu.Unlock()
		n++
	}
	return n, errors.Join(errs...)
}

// Step is Settle: the round of background work that
// wiring.Services.Run runs every interval.
func (d *DemoRefunds) Step(ctx context.Context) (int, error) { return d.Settle(ctx) }
