// Package daycount keeps per-site counts by day (UTC) of something an area
// writes, such as the checkout sessions it creates: a few small records per
// site and day, added to inside the transaction of the write it counts,
// so a reader of the counts never scans the area's records.
//
//	var created = daycount.Counter{Name: "checkout.created"}
//
//	err := store.Update(ctx, func(tx storage.Tx) error {
//		// … write the session …
//		return created.Add(tx, site, sessionID, now)
//	})
//	days, err := created.ByDay(ctx, store, site, from, to)
//
// A day's record gets a time index entry (package retention) when it is
// first written; Sweep deletes the days older than Keep.
package daycount

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// MaxDays bounds the days one ByDay reads.
const MaxDays = 400

// Keep is how long a day's count is kept: the longest range ByDay
// answers, so whatever a reader may ask for is still there.
const Keep = MaxDays * 24 * time.Hour

// classDay is the time index class of the day records.
const classDay = "day"

// Shards is how many records a site's day is spread over, chosen by the
// counted record's id: concurrent writes of one site then rarely touch
// the same record, which a serializable store (PostgreSQL) would make one
// of them retry. A day's count is the sum of its shards.
const Shards = 8

// Counter counts per site and day in the collection Name (its time index
// is Name + ".expiry"). The zero value is not usable; Name must be a valid
// collection name, stable once records are stored.
type Counter struct {
	Name string
}

// day is a stored day's count.
type day struct {
	N int64 `json:"n"`
}

func (c Counter) coll() storage.Collection[day] { return storage.Collection[day]{Name: c.Name} }

func (c Counter) index() retention.Index { return retention.Index{Name: c.Name + ".expiry"} }

// Day is one day's count.
type Day struct {
	// Date is the day's start (UTC).
	Date  time.Time
	Count int64
}

// key is the record of shard of site's day at: site, the date, the
// shard, so a site's days are one range in date order.
func key(site string, at time.Time, shard int) string {
	return storage.Key(site, at.UTC().Format(time.DateOnly), strconv.Itoa(shard))
}

// shardOf spreads ids over the shards (FNV-1a).
func shardOf(id string) int {
	h := fnv.New32a()
	h.Write([]byte(id))
	return int(h.Sum32() % Shards)
}

func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Add counts one at the site's day of at, inside tx (the transaction of
// the write it counts), in the shard of id (the counted record's id): a
// read and a write of one small record, and its time index entry the
// first time the shard is counted that day.
func (c Counter) Add(tx storage.Tx, site, id string, at time.Time) error {
	k := key(site, at, shardOf(id))
	it, err := c.coll().Get(tx, k)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		if _, err := c.coll().Put(tx, k, day{N: 1}, storage.MustNotExist()); err != nil {
			return fmt.Errorf("counting %s: %w", c.Name, err)
		}
		if err := c.index().Move(tx, k, retention.Entry{}, retention.Entry{Class: classDay, At: dayStart(at)}); err != nil {
			return fmt.Errorf("indexing %s: %w", c.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", c.Name, err)
	}
	if _, err := c.coll().Put(tx, k, day{N: it.Value.N + 1}, storage.VersionIs(it.Version)); err != nil {
		return fmt.Errorf("counting %s: %w", c.Name, err)
	}
	return nil
}

// ByDay returns the site's counts of every day from from's day to to's
// day (UTC, both included), oldest first, a day nothing was counted on as
// 0. It reads at most Shards records per day. A reversed range, or one of more
// than MaxDays days, is InvalidArgument naming from.
func (c Counter) ByDay(ctx context.Context, store storage.Store, site string, from, to time.Time) ([]Day, error) {
	first, last := dayStart(from), dayStart(to)
	if last.Before(first) {
		return nil, deliverykit.InvalidField("from", "range", "is after to")
	}
	n := int(last.Sub(first)/(24*time.Hour)) + 1
	if n > MaxDays {
		return nil, deliverykit.InvalidField("from", "range", fmt.Sprintf("want at most %d days before to", MaxDays))
	}
	out := make([]Day, n)
	for i := range out {
		out[i].Date = first.AddDate(0, 0, i)
	}
	err := store.View(ctx, func(tx storage.Tx) error {
		// After is exclusive: past every shard of the day before the first.
		r := storage.Range{Prefix: storage.KeyPrefix(site), After: key(site, first.AddDate(0, 0, -1), Shards), Limit: n * Shards}
		for it, err := range c.coll().Scan(tx, r) {
			if err != nil {
				return err
			}
			date, _, _ := strings.Cut(it.Key[len(r.Prefix):], storage.KeySep)
			d, err := time.Parse(time.DateOnly, date)
			if err != nil {
				return fmt.Errorf("%s: key %q: %w", c.Name, it.Key, err)
			}
			i := int(d.Sub(first) / (24 * time.Hour))
			if i >= n {
				break
			}
			if i >= 0 {
				out[i].Count += it.Value.N
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", c.Name, err)
	}
	return out, nil
}

// Sweep deletes, at most limit (≤ 0: no limit), the day records older
// than Keep at now, and returns how many it deleted.
func (c Counter) Sweep(ctx context.Context, store storage.Store, now time.Time, limit int) (int, error) {
	n, err := c.index().Sweep(ctx, store, classDay, now.Add(-Keep), limit, func(tx storage.Tx, k string, _ retention.Entry) (bool, error) {
		if _, err := tx.Get(c.Name, k); errors.Is(err, storage.ErrNotFound) {
			return false, nil // its entry was left behind, and goes
		} else if err != nil {
			return false, err
		}
		if err := tx.Delete(c.Name, k, storage.AnyVersion); err != nil {
			return false, err
		}
		return true, nil
	})
	if err != nil {
		return n, fmt.Errorf("sweeping %s: %w", c.Name, err)
	}
	return n, nil
}
