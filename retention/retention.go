// Package retention deletes records once they are no longer needed, so
// that a deployment's store stops growing when its traffic stops growing.
//
// Each area keeps a time index of its records (Index): one entry per
// record, written in the transaction that writes the record and moved
// when the time its retention counts from moves (a session extended or
// completed). The area's Sweep reads the entries that are due, in time
// order, and deletes each record with all its index entries, Batch
// records per transaction, so that what a sweep costs is proportional to
// what it deletes, not to what is stored, and writers are never held up
// for long.
//
// A Sweeper runs the areas' sweeps, a round per Step; wiring.Services.Run
// steps it every minute:
//
//	sw := retention.NewSweeper([]retention.Area{{Name: "checkout", Sweep: checkoutSvc}}, retention.Options{})
//	n, err := sw.Step(ctx) // n records deleted in all areas
//
// Records written before an area had its index have no entry: the area's
// first sweep indexes them once (Index.Backfill), which reads every record
// of the collection a batch at a time; the store remembers that it is done.
// Backfill does the same for any other index an area adds (tracking's
// list of each order's link tokens).
//
// Reads are unaffected: a record past its expiry but not yet swept reads
// as it did before it expired.
package retention

import (
	"context"
	"log/slog"
	"time"

	"github.com/deliverykit/deliverykit"
)

// Defaults of Policy.
const (
	// DefaultActiveSessions: an ACTIVE checkout session is deleted a week
	// after it expired, a delivery session a week after its last change.
	DefaultActiveSessions = 7 * 24 * time.Hour
	// DefaultCompletedSessions: a COMPLETED session is deleted 90 days
	// after it was completed.
	DefaultCompletedSessions = 90 * 24 * time.Hour
	// DefaultTracking: a tracking order, with its parcels and links, is
	// deleted 180 days after its last activity, a notification 180 days
	// after it was sent, failed for good or was cancelled.
	DefaultTracking = 180 * 24 * time.Hour
	// DefaultWebhookDeliveries: a webhook delivery is deleted 30 days
	// after it was delivered or died.
	DefaultWebhookDeliveries = 30 * 24 * time.Hour
	// DefaultShipments: a shipment is deleted two years (730 days) after
	// its last change; merchants need shipments for their bookkeeping.
	DefaultShipments = 730 * 24 * time.Hour
	// DefaultReturns: a return, with its refunds, complaint photos and
	// status links, is deleted two years (730 days) after its last
	// change; merchants need returns for their bookkeeping.
	DefaultReturns = 730 * 24 * time.Hour
	// DefaultIdempotencyKeys: the answer stored for an Idempotency-Key
	// is replayed for a day, then deleted.
	DefaultIdempotencyKeys = 24 * time.Hour
)

// Never, as a Policy duration, keeps the records forever.
const Never time.Duration = -1

// Policy says how long records are kept. A zero duration is the default;
// Never (any negative duration) keeps the records forever.
type Policy struct {
	// ActiveSessions is how long an ACTIVE checkout session is kept after
	// its expires_at (reads keep working meanwhile; it cannot be
	// completed), and an ACTIVE delivery session, which does not expire,
	// after its last change. Its widget token goes with it.
	ActiveSessions time.Duration
	// CompletedSessions is how long a COMPLETED checkout or delivery
	// session is kept after its completion.
	CompletedSessions time.Duration
	// DeadEvents is how long an outbox event that could not be delivered
	// is kept for inspection and retry after it died
	// (outbox.Options.DeadRetention; its default is 30 days).
	DeadEvents time.Duration
	// Tracking is how long a tracking order is kept after its last
	// activity (its registration, a parcel's registration, the last
	// carrier event, the delivery), with its parcels, its link tokens
	// and their indexes, and how long a notification is kept after it
	// settled (sent, failed for good, or cancelled).
	Tracking time.Duration
	// WebhookDeliveries is how long a webhook delivery is kept, for the
	// deliveries list and redelivery, after it was delivered or died.
	WebhookDeliveries time.Duration
	// Shipments is how long a shipment is kept after its last change
	// (booking, pickup, carrier event, cancellation), whatever its state.
	Shipments time.Duration
	// Returns is how long a return is kept after its last change (its
	// refunds' and complaints' included), whatever its state; a site's
	// returns go in the order they were made (package returns), so one
	// may stay longer, until the site's older ones have gone.
	Returns time.Duration
	// IdempotencyKeys is how long the answer to a call with an
	// Idempotency-Key is kept and replayed (package idempotency).
	IdempotencyKeys time.Duration
}

// Resolve returns d, or def when d is zero, or 0 when d is Never: the
// retention to apply, 0 meaning never delete.
func Resolve(d, def time.Duration) time.Duration {
	switch {
	case d < 0:
		return 0
	case d == 0:
		return def
	}
	return d
}

// SessionClasses are the classes of a session area (checkout, delivery
// session) under p: active sessions, named active, kept ActiveSessions,
// and completed ones, named completed, kept CompletedSessions, defaults
// applied.
func (p Policy) SessionClasses(active, completed string) []Class {
	return []Class{
		{Name: active, Keep: Resolve(p.ActiveSessions, DefaultActiveSessions)},
		{Name: completed, Keep: Resolve(p.CompletedSessions, DefaultCompletedSessions)},
	}
}

// Sweepable deletes at most limit records that are due at now and returns
// how many it deleted. Areas implement it as their Sweep method.
type Sweepable interface {
	Sweep(ctx context.Context, now time.Time, limit int) (int, error)
}

// Area is one area the Sweeper sweeps.
type Area struct {
	Name  string
	Sweep Sweepable
}

// Options configures a Sweeper. Every field has a default.
type Options struct {
	// Limit is how many records one round deletes at most per area; the
	// rest waits for the next round. Default: 100000.
	Limit int
	// Clock tells the sweeps what time it is. Default: the system clock.
	Clock deliverykit.Clock
	// Logger receives a line per round that deleted something and every
	// failed sweep. Default: slog.Default().
	Logger *slog.Logger
}

// Sweeper runs the sweeps of several areas.
type Sweeper struct {
	areas []Area
	opts  Options
}

// NewSweeper returns a Sweeper of areas.
func NewSweeper(areas []Area, opts Options) *Sweeper {
	if opts.Limit <= 0 {
		opts.Limit = 100000
	}
	if opts.Clock == nil {
		opts.Clock = deliverykit.SystemClock{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Sweeper{areas: areas, opts: opts}
}

// SweepOnce runs one round: every area's sweep at the clock's time. It
// goes on after an area fails, and returns the first error with what was
// deleted, by area name.
func (s *Sweeper) SweepOnce(ctx context.Context) (map[string]int, error) {
	now := s.opts.Clock.Now()
	deleted := make(map[string]int, len(s.areas))
	var first error
	for _, a := range s.areas {
		n, err := a.Sweep.Sweep(ctx, now, s.opts.Limit)
		deleted[a.Name] = n
		if err != nil {
			if ctx.Err() != nil {
				return deleted, ctx.Err()
			}
			s.opts.Logger.ErrorContext(ctx, "retention sweep failed", "area", a.Name, "deleted", n, "err", err)
			if first == nil {
				first = err
			}
			continue
		}
		if n > 0 {
			s.opts.Logger.InfoContext(ctx, "retention sweep", "area", a.Name, "deleted", n)
		}
	}
	return deleted, first
}

// Step is one round (SweepOnce) and the number of records it deleted in
// all: what wiring.Services.Run runs every interval.
func (s *Sweeper) Step(ctx context.Context) (int, error) {
	deleted, err := s.SweepOnce(ctx)
	n := 0
	for _, d := range deleted {
		n += d
	}
	return n, err
}
