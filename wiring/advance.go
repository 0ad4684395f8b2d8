package wiring

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/testmode"
)

// maxRounds bounds the rounds of running what is due at one instant: a
// consumer that keeps making work is a bug to report, not to wait out.
const maxRounds = 1000

// RunDue runs everything due at the clock's time, without moving it,
// until nothing is left: every background service, in the order of Run's
// list, again and again. It returns what ran, by kind.
func (s *Services) RunDue(ctx context.Context) (testmode.Ran, error) {
	var ran testmode.Ran
	for range maxRounds {
		round, n, err := s.stepOnce(ctx)
		ran = ran.Add(round)
		if err != nil || n == 0 {
			return ran, err
		}
	}
	return ran, fmt.Errorf("work still due after %d rounds", maxRounds)
}

// stepOnce is Step, telling what ran by kind.
func (s *Services) stepOnce(ctx context.Context) (testmode.Ran, int, error) {
	var ran testmode.Ran
	total := 0
	for _, l := range s.loops() {
		if l.step == s.Retention {
			swept, err := s.Retention.SweepOnce(ctx)
			for area, n := range swept {
				total += n
				if area == "checkout" || area == "session" {
					ran.Expired += n
				} else {
					ran.Swept += n
				}
			}
			if err != nil {
				return ran, total, fmt.Errorf("%s: %w", l.name, err)
			}
			continue
		}
		n, err := l.step.Step(ctx)
		total += n
		switch l.step {
		case s.Simulator:
			ran.CarrierEvents += n
		case s.Notify:
			ran.Notifications += n
		case s.Webhooks:
			ran.Webhooks += n
		}
		if r, ok := s.refunds.(Stepper); ok && l.step == r {
			ran.Refunds += n
		}
		if err != nil {
			return ran, total, fmt.Errorf("%s: %w", l.name, err)
		}
	}
	return ran, total, nil
}

// nextDue is the earliest time after now a background service has work
// due at.
func (s *Services) nextDue(ctx context.Context, now time.Time) (time.Time, bool, error) {
	sources := []func(context.Context) (time.Time, bool, error){s.Outbox.NextDue, s.Notify.NextDue, s.Webhooks.NextDue}
	if s.Simulator != nil {
		sources = append(sources, s.Simulator.NextDue)
	}
	var next time.Time
	found := false
	for _, f := range sources {
		at, ok, err := f(ctx)
		if err != nil {
			return time.Time{}, false, err
		}
		if ok && at.After(now) && (!found || at.Before(next)) {
			next, found = at, true
		}
	}
	return next, found, nil
}

// RunUntil moves clock forward to end and runs everything that falls due
// on the way, in time order: at each reading, RunDue; then the clock moves
// to the earliest time a service has work due at (a parcel's next step, a
// delayed notification, a webhook retry), or by step, whichever comes
// first. Work no queue schedules (retention, expiries) runs at least every
// step. clock must be the one s was built with. It returns what ran.
func (s *Services) RunUntil(ctx context.Context, clock *deliverykit.ManualClock, end time.Time, step time.Duration) (testmode.Ran, error) {
	var ran testmode.Ran
	for {
		r, err := s.RunDue(ctx)
		ran = ran.Add(r)
		if err != nil {
			return ran, err
		}
		now := clock.Now()
		if !now.Before(end) {
			return ran, nil
		}
		next := now.Add(step)
		if next.After(end) {
			next = end
		}
		if at, ok, err := s.nextDue(ctx, now); err != nil {
			return ran, err
		} else if ok && at.Before(next) {
			next = at
		}
		clock.Set(next)
	}
}
