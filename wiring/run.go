package wiring

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/returns"
)

// Stepper is a background service: Step does, once, what is due at its
// clock's time (retries, sends, simulated parcel steps, deletions) and
// returns how much it did. The outbox, the webhook sender, notify, the
// carrier simulator, the retention sweeper and the demo refund executor
// are Steppers; Services.Run steps them on their intervals.
type Stepper interface {
	Step(ctx context.Context) (n int, err error)
}

// Intervals are how often Services.Run steps each background service.
// A zero field is its default.
type Intervals struct {
	// Outbox retries the cross-area effects that failed or that a crash
	// left leased (new ones are delivered when their cause commits).
	// Default: a second.
	Outbox time.Duration
	// Webhooks retries due webhook deliveries; new ones, and the next of
	// a subject's queue, are sent at once. Default: 10 seconds.
	Webhooks time.Duration
	// Notify queues pickup reminders and sends due notifications.
	// Default: 10 seconds.
	Notify time.Duration
	// Simulator moves simulated parcels. Default: a second.
	Simulator time.Duration
	// Refunds settles the demo refund executor's delayed refunds.
	// Default: a second.
	Refunds time.Duration
	// Retention deletes what the configuration's retention no longer
	// keeps. Default: a minute.
	Retention time.Duration
	// Counts stores the checkout and delivery sessions counted per day
	// (what a crash loses of them). Default: 10 seconds.
	Counts time.Duration
}

// Defaults of Intervals.
const (
	DefaultOutboxInterval    = time.Second
	DefaultWebhooksInterval  = 10 * time.Second
	DefaultNotifyInterval    = 10 * time.Second
	DefaultSimulatorInterval = time.Second
	DefaultRefundsInterval   = time.Second
	DefaultRetentionInterval = time.Minute
	DefaultCountsInterval    = 10 * time.Second
)

// loop is one background service as Run and Step see it.
type loop struct {
	name     string
	step     Stepper
	interval time.Duration
	// run, when set, is the service's own loop, which Run calls instead
	// of stepping it on a ticker: the webhook sender's wakes up when a
	// delivery is queued or settled.
	run func(ctx context.Context, interval time.Duration) error
}

// loops lists the background services of s, in the order Step steps them:
// what moves parcels first, then the effects it causes, then what those
// queue, then the deletions. It is the one list of them; a test checks
// that every Stepper field of Services is in it.
func (s *Services) loops() []loop {
	iv := s.intervals
	ls := []loop{}
	if s.Simulator != nil {
		ls = append(ls, loop{name: "carrier simulator", step: s.Simulator, interval: cmp.Or(iv.Simulator, DefaultSimulatorInterval)})
	}
	ls = append(ls,
		loop{name: "outbox", step: s.Outbox, interval: cmp.Or(iv.Outbox, DefaultOutboxInterval)},
		loop{name: "notify", step: s.Notify, interval: cmp.Or(iv.Notify, DefaultNotifyInterval)},
		loop{name: "webhooks", step: s.Webhooks, interval: cmp.Or(iv.Webhooks, DefaultWebhooksInterval), run: s.Webhooks.Run},
	)
	if r, ok := s.refunds.(Stepper); ok {
		ls = append(ls, loop{name: "demo refunds", step: r, interval: cmp.Or(iv.Refunds, DefaultRefundsInterval)})
	}
	counts := cmp.Or(iv.Counts, DefaultCountsInterval)
	return append(ls,
		loop{name: "checkout session counts", step: s.Checkout, interval: counts},
		loop{name: "delivery session counts", step: s.Session, interval: counts},
		loop{name: "retention", step: s.Retention, interval: cmp.Or(iv.Retention, DefaultRetentionInterval)})
}

// Run runs every background service of s until ctx ends: each is stepped
// at once and then every Options.Intervals of it (at once again while a
// step did something, so that a backlog drains without waiting), and the
// webhook sender also whenever a delivery is queued or settled. A failed
// step is logged and tried again at the next tick. When ctx ends, work
// under way is finished and recorded (a webhook attempt within its
// timeout), and Run returns ctx's error once every service has stopped.
// Leases held by a process that died are not released here: on a store
// no other process uses (bolt), call Outbox.ReleaseLeases and
// Webhooks.ReleaseLeases before Run.
//
// Run is all an embedder runs besides the HTTP handler: every send, retry
// and retention sweep deliverykit does happens under it. Start one per
// process.
func (s *Services) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	for _, l := range s.loops() {
		wg.Go(func() {
			if s.started != nil {
				s.started(l.name, l.step)
			}
			if l.run != nil {
				_ = l.run(ctx, l.interval)
				return
			}
			every(ctx, l, s.log)
		})
	}
	wg.Wait()
	return ctx.Err()
}

// every steps l at once and on every tick of its interval until ctx ends.
func every(ctx context.Context, l loop, log *slog.Logger) {
	t := time.NewTicker(l.interval)
	defer t.Stop()
	for {
		for ctx.Err() == nil {
			n, err := l.step.Step(ctx)
			if err != nil && ctx.Err() == nil {
				log.ErrorContext(ctx, "background step failed", "service", l.name, "err", err)
			}
			if err != nil || n == 0 {
				break
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Step steps every background service once, in the order of Run's list,
// at the clock's time, and returns how much they did in all: what a test
// on a ManualClock calls after moving it, until it returns 0
// (deliverykittest does). It stops at the first error, which names the
// service.
func (s *Services) Step(ctx context.Context) (int, error) {
	total := 0
	for _, l := range s.loops() {
		n, err := l.step.Step(ctx)
		total += n
		if err != nil {
			return total, fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return total, nil
}

// The demo refund executor settles delayed refunds by Step: Run finds it
// through Options.RefundExecutor.
var _ interface {
	returns.RefundExecutor
	Stepper
} = (*returns.DemoRefunds)(nil)
