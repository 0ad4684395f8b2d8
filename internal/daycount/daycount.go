// Package daycount keeps per-site counts by day (UTC) of something an area
// writes, such as the checkout sessions it creates, so a reader of the
// counts never scans the area's records.
//
// Counting is in memory (Pending.Add, after the counted write commits);
// Pending.Step adds what a process counted to a few small records per site
// and day, in one transaction every few seconds. A count taken inside the
// counted write's own transaction was tried first: on PostgreSQL every
// create of a site then read and wrote one of a few shared records, and
// serializable transactions made concurrent creates retry each other
// (session creates fell to 0.3× of the store's raw insert rate, p99
// tripled). The price of counting in memory: what a process counted in
// the seconds before it crashed is lost. These are figures for the
// merchant console, not records.
//
//	created := daycount.Counter{Name: "checkout.created"}.Pending(store)
//	// … after the session is stored:
//	created.Add(site, now)
//	// … every few seconds (wiring.Services.Run):
//	n, err := created.Step(ctx)
//	days, err := created.ByDay(ctx, site, from, to) // stored + in memory
//
// A day's record gets a time index entry (package retention) when it is
// first written; Sweep deletes the days older than Keep.
package daycount

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
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

// Shards is how many records a site's day is spread over, one per
// process (chosen at random): the steps of several servers sharing a
// store then rarely touch the same record, which a serializable store
// (PostgreSQL) would make one of them retry. A day's count is the sum of
// its shards.
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

func dayStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// add adds n to the site's day of at in shard, inside tx: a read and a
// write of one small record, and its time index entry the first time the
// shard is counted that day.
func (c Counter) add(tx storage.Tx, site string, at time.Time, shard int, n int64) error {
	k := key(site, at, shard)
	it, err := c.coll().Get(tx, k)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		if _, err := c.coll().Put(tx, k, day{N: n}, storage.MustNotExist()); err != nil {
			return fmt.Errorf("counting %s: %w", c.Name, err)
		}
		if err := c.index().Move(tx, k, retention.Entry{}, retention.Entry{Class: classDay, At: dayStart(at)}); err != nil {
			return fmt.Errorf("indexing %s: %w", c.Name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", c.Name, err)
	}
	if _, err := c.coll().Put(tx, k, day{N: it.Value.N + n}, storage.VersionIs(it.Version)); err != nil {
		return fmt.Errorf("counting %s: %w", c.Name, err)
	}
	return nil
}

// Pending is a process's counts of c not yet in the store.
type Pending struct {
	c     Counter
	store storage.Store
	// shard is this process's shard of every day: two servers' steps
	// rarely write the same record.
	shard  int
	mu     sync.Mutex
	counts map[pendingKey]int64
}

type pendingKey struct {
	site string
	day  time.Time
}

// Pending returns an empty set of counts of c, stored in store by Step.
func (c Counter) Pending(store storage.Store) *Pending {
	return &Pending{c: c, store: store, shard: rand.IntN(Shards), counts: map[pendingKey]int64{}}
}

// Add counts one at the site's day of at. Call it once the counted write
// has committed. Its memory is one entry per site and day counted since
// the last Step.
func (p *Pending) Add(site string, at time.Time) {
	p.mu.Lock()
	p.counts[pendingKey{site, dayStart(at)}]++
	p.mu.Unlock()
}

// Step adds the counts made since the last Step to the store, in one
// transaction, and returns how many site days it wrote. When the write
// fails the counts stay pending for the next Step.
func (p *Pending) Step(ctx context.Context) (int, error) {
	p.mu.Lock()
	batch := p.counts
	p.counts = map[pendingKey]int64{}
	p.mu.Unlock()
	if len(batch) == 0 {
		return 0, nil
	}
	err := p.store.Update(ctx, func(tx storage.Tx) error {
		for k, n := range batch {
			if err := p.c.add(tx, k.site, k.day, p.shard, n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		p.mu.Lock()
		for k, n := range batch {
			p.counts[k] += n
		}
		p.mu.Unlock()
		return 0, err
	}
	return len(batch), nil
}

// ByDay is Counter.ByDay of the stored counts plus this process's pending
// ones.
func (p *Pending) ByDay(ctx context.Context, site string, from, to time.Time) ([]Day, error) {
	days, err := p.c.ByDay(ctx, p.store, site, from, to)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, n := range p.counts {
		if k.site != site || len(days) == 0 || k.day.Before(days[0].Date) {
			continue
		}
		if i := int(k.day.Sub(days[0].Date) / (24 * time.Hour)); i < len(days) {
			days[i].Count += n
		}
	}
	return days, nil
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
