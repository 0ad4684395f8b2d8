package returns

import (
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// ranked is a primary collection with its per-site rank collection (see
// records.go). It serves the list endpoints.
type ranked[T any] struct {
	coll    storage.Collection[T]
	ranks   storage.Collection[rankRecord]
	id      func(T) uint64
	created func(T) time.Time
	// firsts holds, per site, how many of the first ranks were deleted
	// (records.go); nil for a kind that is never deleted.
	firsts *storage.Collection[firstRecord]
}

// first is what the site's deleted records left: the ranks up to
// first.Deleted are gone, and first.LastID is the highest id deleted.
func (r ranked[T]) first(tx storage.Tx, site string) (firstRecord, error) {
	if r.firsts == nil {
		return firstRecord{}, nil
	}
	it, err := r.firsts.Get(tx, site)
	if errors.Is(err, storage.ErrNotFound) {
		return firstRecord{}, nil
	}
	return it.Value, err
}

// lastRank is the rank of the site's last record and its id, or ok false
// when the site has no record left.
func (r ranked[T]) lastRank(tx storage.Tx, site string) (rank, id uint64, ok bool, err error) {
	prefix := storage.KeyPrefix(site)
	for it, err := range r.ranks.Scan(tx, storage.Range{Prefix: prefix, Reverse: true, Limit: 1}) {
		if err != nil {
			return 0, 0, false, err
		}
		n, err := storage.ParseUint64Key(strings.TrimPrefix(it.Key, prefix))
		if err != nil {
			return 0, 0, false, deliverykit.Errorf(deliverykit.KindInternal, "returns: bad rank key %q: %w", it.Key, err)
		}
		return n, it.Value.ID, true, nil
	}
	return 0, 0, false, nil
}

// bounds are the site's live ranks: first+1 … last (none when last ≤
// first). A page of the site's records in id order is then one rank read
// away whatever was deleted: deletions only ever remove the lowest ranks.
func (r ranked[T]) bounds(tx storage.Tx, site string) (first, last uint64, err error) {
	f, err := r.first(tx, site)
	if err != nil {
		return 0, 0, err
	}
	n, _, ok, err := r.lastRank(tx, site)
	if err != nil || !ok {
		return f.Deleted, f.Deleted, err
	}
	return f.Deleted, n, nil
}

// count is the number of the site's records.
func (r ranked[T]) count(tx storage.Tx, site string) (uint64, error) {
	first, last, err := r.bounds(tx, site)
	return last - first, err
}

// next returns the id and rank of the site's next record. Ids are per
// site: one more than the id of the site's last record (the record of its
// last rank), so an id tells nothing about other sites. Records stored
// when ids came from one sequence shared by every site keep their ids;
// the site's next id is above the highest of them, because ranks follow
// ids. Like count, it must run in the Update that inserts the record.
//
// A site whose records were all deleted continues after the last deleted
// one (firstRecord), so that an id never names two records.
func (r ranked[T]) next(tx storage.Tx, site string) (id, rank uint64, err error) {
	n, last, ok, err := r.lastRank(tx, site)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		f, err := r.first(tx, site)
		if err != nil {
			return 0, 0, err
		}
		n, last = f.Deleted, f.LastID
	}
	if last == math.MaxUint64 {
		return 0, 0, deliverykit.Errorf(deliverykit.KindInternal, "returns: the ids of %s of site %q are exhausted", r.coll.Name, site)
	}
	return last + 1, n + 1, nil
}

// insert stores rec under id with the site's next rank, which it returns.
// Ranks follow ids because both are taken in the same serialized Update.
func (r ranked[T]) insert(tx storage.Tx, site string, id, rank uint64, rec T) error {
	if _, err := r.ranks.Put(tx, storage.Key(site, storage.Uint64Key(rank)), rankRecord{ID: id}, storage.MustNotExist()); err != nil {
		return err
	}
	_, err := r.coll.Put(tx, storage.Key(site, storage.Uint64Key(id)), rec, storage.MustNotExist())
	return err
}

func (r ranked[T]) idAtRank(tx storage.Tx, site string, rank uint64) (uint64, error) {
	it, err := r.ranks.Get(tx, storage.Key(site, storage.Uint64Key(rank)))
	if err != nil {
		return 0, deliverykit.Errorf(deliverykit.KindInternal, "returns: rank %d of %s: %w", rank, r.coll.Name, err)
	}
	return it.Value.ID, nil
}

// ranksUpTo is the highest of the site's live ranks first+1 … n whose id
// is ≤ id (first when there is none), by binary search over the ranks:
// about log2(n) reads.
func (r ranked[T]) ranksUpTo(tx storage.Tx, site string, id, first, n uint64) (uint64, error) {
	lo, hi := first, n // invariant: rank lo has id ≤ id (or lo = first); rank hi+1 has id > id
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		got, err := r.idAtRank(tx, site, mid)
		if err != nil {
			return 0, err
		}
		if got <= id {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo, nil
}

// list returns one page of the site's records. Plain id order without
// afterDate or filter is served from ordered scans reading about one page
// (plus log2(n) rank reads for afterId); any other sort, afterDate or a
// filter reads all of the site's records.
func (r ranked[T]) list(tx storage.Tx, site string, w window, filter func(T) bool, key sortKey[T]) ([]T, int64, error) {
	if ok, desc := w.idOrder(); ok && filter == nil && w.afterDate.IsZero() {
		return r.pageByID(tx, site, w, desc)
	}
	var rows []T
	for it, err := range r.coll.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site)}) {
		if err != nil {
			return nil, 0, err
		}
		v := it.Value
		if r.id(v) <= w.afterID || (!w.afterDate.IsZero() && !r.created(v).After(w.afterDate)) || (filter != nil && !filter(v)) {
			continue
		}
		rows = append(rows, v)
	}
	if len(w.sort) > 0 {
		slices.SortStableFunc(rows, compareRows(w, key, r.id))
	}
	total := int64(len(rows))
	if w.offset >= total {
		return nil, total, nil
	}
	end := min(w.offset+int64(w.size), total)
	return rows[w.offset:end], total, nil
}

func (r ranked[T]) pageByID(tx storage.Tx, site string, w window, desc bool) ([]T, int64, error) {
	recs, total, err := r.pageRecords(tx, site, w, desc, true)
	if err != nil {
		return nil, 0, err
	}
	rows := make([]T, 0, len(recs))
	for _, rec := range recs {
		it, err := r.coll.Decode(rec)
		if err != nil {
			return nil, 0, err
		}
		rows = append(rows, it.Value)
	}
	return rows, total, nil
}

// pageRecords is pageByID's page as stored, undecoded: a caller keeping
// what it made of a record by version (a rendering) decodes only the
// records it has not seen. Without values, records come without their
// values where the store can list them so (storage.VersionScanner); a
// record with a nil Value is then read with Get when needed.
func (r ranked[T]) pageRecords(tx storage.Tx, site string, w window, desc, values bool) ([]storage.Record, int64, error) {
	first, n, err := r.bounds(tx, site)
	if err != nil {
		return nil, 0, err
	}
	skipped := first // ranks before the first live one, and those ≤ afterId
	if w.afterID > 0 {
		if skipped, err = r.ranksUpTo(tx, site, w.afterID, first, n); err != nil {
			return nil, 0, err
		}
	}
	total := int64(n - skipped)
	if w.offset >= total {
		return nil, total, nil
	}
	want := int(min(int64(w.size), total-w.offset))
	var start uint64
	rg := storage.Range{Prefix: storage.KeyPrefix(site), Limit: want, Reverse: desc}
	if desc {
		if start, err = r.idAtRank(tx, site, n-uint64(w.offset)); err != nil {
			return nil, 0, err
		}
		rg.After = storage.Key(site, storage.Uint64Key(start+1))
	} else {
		if start, err = r.idAtRank(tx, site, skipped+uint64(w.offset)+1); err != nil {
			return nil, 0, err
		}
		rg.After = storage.Key(site, storage.Uint64Key(start-1))
	}
	scan := tx.Scan
	if vs, ok := tx.(storage.VersionScanner); ok && !values {
		scan = vs.ScanVersions
	}
	recs := make([]storage.Record, 0, want)
	for rec, err := range scan(r.coll.Name, rg) {
		if err != nil {
			return nil, 0, err
		}
		recs = append(recs, rec)
	}
	return recs, total, nil
}

// remove deletes the rank of the site's record id, inside the Update that
// deletes the record, and keeps the ranks without gaps: the live ranks
// below it move up by one and the site's first live rank moves up by
// one. Removing the site's first live record (what the returns' sweep
// does) therefore writes no rank but its own; removing a later one
// rewrites the ranks of the live records with lower ids (a refund of an
// old return that was refunded after a newer one: a few).
func (r ranked[T]) remove(tx storage.Tx, site string, id uint64) error {
	f, err := r.first(tx, site)
	if err != nil {
		return err
	}
	n, _, ok, err := r.lastRank(tx, site)
	if err != nil || !ok {
		return err
	}
	rank := f.Deleted + 1
	if got, err := r.idAtRank(tx, site, rank); err != nil {
		return err
	} else if got != id {
		if rank, err = r.ranksUpTo(tx, site, id, f.Deleted, n); err != nil {
			return err
		}
		if got, err := r.idAtRank(tx, site, rank); err != nil || got != id {
			return deliverykit.Errorf(deliverykit.KindInternal, "returns: %s %d of site %q has no rank: %w", r.coll.Name, id, site, err)
		}
	}
	for k := rank; k > f.Deleted+1; k-- {
		below, err := r.idAtRank(tx, site, k-1)
		if err != nil {
			return err
		}
		if _, err := r.ranks.Put(tx, storage.Key(site, storage.Uint64Key(k)), rankRecord{ID: below}, storage.AnyVersion); err != nil {
			return err
		}
	}
	if err := r.ranks.Delete(tx, storage.Key(site, storage.Uint64Key(f.Deleted+1)), storage.AnyVersion); err != nil {
		return err
	}
	f.Deleted++
	f.LastID = max(f.LastID, id)
	_, err = r.firsts.Put(tx, site, f, storage.AnyVersion)
	return err
}
