package checkout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/internal/daycount"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// expiry is the sessions' time index (package retention): an ACTIVE
// session under "active" at its expires_at, a COMPLETE one under
// "completed" at its completed_at. Every write of a session moves its
// entry in the same transaction.
var expiry = retention.Index{Name: "checkout.expiry"}

// Classes of the time index.
const (
	classActive    = "active"
	classCompleted = "completed"
)

// expiryEntry is the session's place in the time index.
func (r *record) expiryEntry() retention.Entry {
	return entryOf(r.Status, r.ExpiresAt, r.CompletedAt, r.UpdatedAt)
}

func entryOf(st Status, expires, completed, updated time.Time) retention.Entry {
	if st == StatusComplete {
		if completed.IsZero() {
			completed = updated
		}
		return retention.Entry{Class: classCompleted, At: completed}
	}
	return retention.Entry{Class: classActive, At: expires}
}

// sweepRecord is what a sweep decodes of a stored session: what finds
// its index entries, without its cart, options or addresses.
type sweepRecord struct {
	ID         string `json:"id"`
	Site       string `json:"site"`
	Status     Status `json:"status"`
	Origin     string `json:"origin,omitempty"`
	TosID      string `json:"tos_id,omitempty"`
	ExternalID string `json:"external_id,omitempty"`
	Cart       struct {
		CartID string `json:"cart_id,omitempty"`
	} `json:"cart"`
	WidgetToken string    `json:"widget_token"`
	UpdatedAt   time.Time `json:"updated_at"`
	ExpiresAt   time.Time `json:"expires_at"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

var sweepRecords = storage.Collection[sweepRecord]{Name: sessions.Name}

func (r *sweepRecord) entry() retention.Entry {
	return entryOf(r.Status, r.ExpiresAt, r.CompletedAt, r.UpdatedAt)
}

// sweepState remembers that the backfill of the time index is done.
type sweepState struct{ backfilled retention.Once }

// Sweep deletes, at most limit (≤ 0: no limit), the sessions that
// Options.Retention no longer keeps at now: ACTIVE sessions whose
// expires_at is older than Retention.ActiveSessions, COMPLETE ones
// completed longer than Retention.CompletedSessions ago. A session goes
// with its widget token, the entries that find it by tos_id, external id
// and origin, and its time index entry, Batch sessions per transaction.
// With what limit leaves, it deletes the days of created sessions older
// than daycount.Keep (CreatedByDay). It returns how many records it
// deleted. The first Sweep of a store written before sessions had a time
// index indexes them first (retention.Index.Backfill).
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := s.swept.backfilled.Do(ctx, s.backfill); err != nil {
		return 0, fmt.Errorf("checkout: indexing stored sessions: %w", err)
	}
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, s.retention.SessionClasses(classActive, classCompleted), deleteSession)
	if err != nil {
		return n, fmt.Errorf("checkout: %w", err)
	}
	if limit > 0 && n >= limit {
		return n, nil
	}
	d, err := created.Sweep(ctx, s.store, now, max(limit-n, 0))
	if err != nil {
		return n + d, fmt.Errorf("checkout: %w", err)
	}
	return n + d, nil
}

// created counts the sessions created per site and day: in memory as
// they are stored, added to the store by Step (package daycount).
var created = daycount.Counter{Name: "checkout.created"}

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
		return nil, fmt.Errorf("checkout: %w", err)
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
		return n, fmt.Errorf("checkout: storing the session counts: %w", err)
	}
	return n, nil
}

func (s *Service) backfill(ctx context.Context) error {
	return expiry.Backfill(ctx, s.store, sessions.Name, retention.EntryOf(sweepRecords, func(r sweepRecord) retention.Entry { return r.entry() }))
}

// deleteSession deletes the session at key, found by its time index entry
// e, with every entry that finds it. A session whose entry is no longer e
// was changed since it was due and stays.
func deleteSession(tx storage.Tx, key string, e retention.Entry) (bool, error) {
	it, err := sweepRecords.Get(tx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	r := it.Value
	if !r.entry().Same(e) {
		return false, nil
	}
	if err := tx.Delete(sessions.Name, key, storage.VersionIs(it.Version)); err != nil {
		return false, err
	}
	if r.WidgetToken != "" {
		if err := tokens.DeleteIf(tx, r.WidgetToken, func(t tokenRecord) bool { return t.Site == r.Site && t.SessionID == r.ID }); err != nil {
			return false, err
		}
	}
	if r.Origin != "" {
		if err := clones.Delete(tx, storage.Key(r.Site, r.Origin, r.ID), storage.AnyVersion); err != nil {
			return false, err
		}
	}
	owned := func(id string) bool { return id == r.ID }
	if r.TosID != "" {
		if err := tosIndex.DeleteIf(tx, storage.Key(r.Site, r.TosID), owned); err != nil {
			return false, err
		}
	}
	if ext := cmp.Or(r.ExternalID, r.Cart.CartID, r.TosID); ext != "" {
		if err := externalIDs.DeleteIf(tx, storage.Key(r.Site, ext), owned); err != nil {
			return false, err
		}
	}
	return true, nil
}
