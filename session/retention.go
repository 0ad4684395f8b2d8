package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/internal/daycount"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// expiry is the sessions' time index (package retention): a session is
// under its state's class ("active", "completed") at its update_time, the
// time of its last change, which for a COMPLETED session is its
// completion. Every write of a session moves its entry in the same
// transaction.
var expiry = retention.Index{Name: "session.expiry"}

// Classes of the time index.
const (
	classActive    = "active"
	classCompleted = "completed"
)

func entryOf(st State, updated time.Time) retention.Entry {
	if st == StateCompleted {
		return retention.Entry{Class: classCompleted, At: updated}
	}
	return retention.Entry{Class: classActive, At: updated}
}

// expiryEntry is the stored session's place in the time index.
func (r *record) expiryEntry() retention.Entry { return entryOf(r.State, r.UpdateTime.Time) }

// sweepRecord is what a sweep decodes of a stored session.
type sweepRecord struct {
	State      State     `json:"state,omitempty"`
	UpdateTime time.Time `json:"update_time,omitzero"`
}

var sweepRecords = storage.Collection[sweepRecord]{Name: sessions.Name}

// Sweep deletes, at most limit (≤ 0: no limit), the sessions that
// Options.Retention no longer keeps at now: ACTIVE sessions unchanged for
// longer than Retention.ActiveSessions (a delivery session has no expiry
// of its own; its options do) and COMPLETED ones completed longer than
// Retention.CompletedSessions ago, each with its time index entry, Batch
// sessions per transaction; with what limit leaves, the days of created
// sessions older than daycount.Keep (CreatedByDay). It returns how many
// records it deleted. The first
// Sweep of a store written before sessions had a time index indexes them
// first (retention.Index.Backfill).
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, fmt.Errorf("session: indexing stored sessions: %w", err)
	}
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, s.retention.SessionClasses(classActive, classCompleted), deleteSession)
	if err != nil {
		return n, fmt.Errorf("session: %w", err)
	}
	if limit > 0 && n >= limit {
		return n, nil
	}
	d, err := created.Sweep(ctx, s.store, now, max(limit-n, 0))
	if err != nil {
		return n + d, fmt.Errorf("session: %w", err)
	}
	return n + d, nil
}

// created counts the sessions created per site and day: in memory as
// they are stored, added to the store by Step (package daycount).
var created = daycount.Counter{Name: "session.created"}

// DayCount is one day's count of created sessions (CreatedByDay).
type DayCount = daycount.Day

// CreatedByDay returns how many sessions the site created on each day
// from from's day to to's day (UTC, both included, at most
// daycount.MaxDays), oldest first: at most daycount.Shards small records
// read per day, however many sessions there are, and this process's
// counts not yet stored. Sessions created before this count existed are
// not counted.
func (s *Service) CreatedByDay(ctx context.Context, site string, from, to time.Time) ([]DayCount, error) {
	days, err := s.created.ByDay(ctx, site, from, to)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	return days, nil
}

// Step is the area's background work: it adds the sessions this process
// counted since the last Step to the store, in one transaction, and
// returns how many site days it wrote. wiring.Services.Run calls it every
// few seconds; what was counted
// and not yet stored when the process dies is lost (they are figures for
// the merchant console, not records).
func (s *Service) Step(ctx context.Context) (int, error) {
	n, err := s.created.Step(ctx)
	if err != nil {
		return n, fmt.Errorf("session: storing the session counts: %w", err)
	}
	return n, nil
}

func (s *Service) backfill(ctx context.Context) error {
	return expiry.Backfill(ctx, s.store, sessions.Name, retention.EntryOf(sweepRecords, func(r sweepRecord) retention.Entry { return entryOf(r.State, r.UpdateTime) }))
}

// deleteSession deletes the session at key found by its entry e, unless
// it changed since it was due.
func deleteSession(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, err := sweepRecords.Get(tx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !entryOf(it.Value.State, it.Value.UpdateTime).Same(e) {
		return false, nil
	}
	return true, tx.Delete(sessions.Name, key, storage.VersionIs(it.Version))
}
