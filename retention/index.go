package retention

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// Batch is how many records one sweep transaction deletes at most, and
// how many records one backfill transaction indexes: small enough that a
// writer waiting behind it is not held up for long.
const Batch = 256

// Entry is a record's place in a time index: its class ("active",
// "completed", …) and the time its retention counts from. The zero Entry
// means the record is not indexed (it is kept forever).
type Entry struct {
	Class string
	At    time.Time
}

// IsZero reports whether e is no entry.
func (e Entry) IsZero() bool { return e.Class == "" }

// Same reports whether e and o are the same index key.
func (e Entry) Same(o Entry) bool { return e.Class == o.Class && micros(e.At) == micros(o.At) }

// Index is the time index of one collection of records: one entry per
// record, keyed by class, then the time the record's retention counts
// from (unix microseconds, fixed width), then the record's key. A class's
// entries are thus one range in time order, and a sweep reads only the
// entries that are due. The time stored is the record's own (when it
// expired, when it was completed), not a deadline: a policy changed in the
// configuration applies to records written before the change.
type Index struct {
	// Name is the index's collection, e.g. "checkout.expiry".
	Name string
}

func micros(t time.Time) uint64 {
	if us := t.UnixMicro(); us > 0 {
		return uint64(us)
	}
	return 0
}

// Key is the index key of the record at recKey with entry e:
// storage.Key(e.Class, storage.Uint64Key(unix microseconds), recKey), built
// in one allocation because every write of a record builds one or two.
func (ix Index) Key(e Entry, recKey string) string {
	var b strings.Builder
	b.Grow(len(e.Class) + 2*len(storage.KeySep) + 20 + len(recKey))
	b.WriteString(e.Class)
	b.WriteString(storage.KeySep)
	var digits [20]byte
	n := micros(e.At)
	for i := len(digits) - 1; i >= 0; i-- {
		digits[i] = byte('0' + n%10)
		n /= 10
	}
	b.Write(digits[:])
	b.WriteString(storage.KeySep)
	b.WriteString(recKey)
	return b.String()
}

// entryValue is the value of every index entry: the key says it all.
var entryValue = []byte("{}")

// parseKey splits an index key into its time and the record's key.
func parseKey(class, key string) (time.Time, string, error) {
	rest, ok := strings.CutPrefix(key, storage.KeyPrefix(class))
	if !ok {
		return time.Time{}, "", fmt.Errorf("retention: index key %q is not of class %q", key, class)
	}
	at, recKey, ok := strings.Cut(rest, storage.KeySep)
	if !ok {
		return time.Time{}, "", fmt.Errorf("retention: index key %q has no record key", key)
	}
	us, err := storage.ParseUint64Key(at)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("retention: index key %q: %w", key, err)
	}
	return time.UnixMicro(int64(us)).UTC(), recKey, nil
}

// Parse is the entry and record key of the index key key of class: what
// an area that reads its due entries itself (returns, whose records go in
// order) needs.
func (ix Index) Parse(class, key string) (Entry, string, error) {
	at, recKey, err := parseKey(class, key)
	return Entry{Class: class, At: at}, recKey, err
}

// Move re-keys the record at recKey from old to new inside tx, the
// transaction that writes the record: a new record has a zero old, a
// record whose retention time moved (a session completed or extended) has
// both. Nothing is written when the two are the same key.
func (ix Index) Move(tx storage.Tx, recKey string, old, new Entry) error {
	if old.Same(new) {
		return nil
	}
	if !old.IsZero() {
		if err := tx.Delete(ix.Name, ix.Key(old, recKey), storage.AnyVersion); err != nil {
			return err
		}
	}
	if new.IsZero() {
		return nil
	}
	_, err := tx.Put(ix.Name, ix.Key(new, recKey), entryValue, storage.AnyVersion)
	return err
}

// Add writes the entry e of a record just created at recKey, a key made
// for it (a new id), inside the transaction that creates it: the entry's
// key is then new too, and is written as storage.FreshKey, which a
// database store checks at the commit rather than waiting for it.
func (ix Index) Add(tx storage.Tx, recKey string, e Entry) error {
	if e.IsZero() {
		return nil
	}
	_, err := tx.Put(ix.Name, ix.Key(e, recKey), entryValue, storage.FreshKey())
	return err
}

// Remove deletes the record's entry e inside tx.
func (ix Index) Remove(tx storage.Tx, recKey string, e Entry) error {
	if e.IsZero() {
		return nil
	}
	return tx.Delete(ix.Name, ix.Key(e, recKey), storage.AnyVersion)
}

// DeleteFunc deletes, inside tx, the record at recKey and every index
// entry it has except the time index entry e the sweep found it by (the
// sweep deletes that one). It first checks that the record still has the
// entry e (a record re-keyed since is not due) and reports whether it
// deleted the record. A missing record is not an error: its entry was
// left behind and goes.
type DeleteFunc func(tx storage.Tx, recKey string, e Entry) (bool, error)

// Current reads, for a DeleteFunc, the record at recKey of c and reports
// whether it still has the entry e (entry tells a record's): a record
// gone or re-keyed since is not deleted, and is not an error.
func Current[T any](tx storage.Tx, c storage.Collection[T], recKey string, e Entry, entry func(T) Entry) (storage.Item[T], bool, error) {
	it, err := c.Get(tx, recKey)
	if errors.Is(err, storage.ErrNotFound) {
		return it, false, nil
	}
	return it, err == nil && entry(it.Value).Same(e), err
}

// Sweep deletes the records of class whose index time is at or before
// cutoff, oldest first, at most limit (limit ≤ 0: no limit), in
// transactions of at most Batch records. It reads the due entries in a
// read-only transaction first, so that a sweep with nothing due writes
// nothing, and deletes each in a write transaction that checks it is still
// there. What it reads and writes is proportional to what it deletes: the
// entries past cutoff are never read, except the first of them, which
// ends the range.
func (ix Index) Sweep(ctx context.Context, store storage.Store, class string, cutoff time.Time, limit int, del DeleteFunc) (int, error) {
	deleted := 0
	end := ix.Key(Entry{Class: class, At: cutoff}, "\xff")
	for limit <= 0 || deleted < limit {
		n := Batch
		if limit > 0 {
			n = min(n, limit-deleted)
		}
		var keys []string
		err := store.View(ctx, func(tx storage.Tx) error {
			keys = keys[:0]
			for rec, err := range tx.Scan(ix.Name, storage.Range{Prefix: storage.KeyPrefix(class), Limit: n}) {
				if err != nil {
					return err
				}
				if rec.Key > end {
					break
				}
				keys = append(keys, rec.Key)
			}
			return nil
		})
		if err != nil || len(keys) == 0 {
			return deleted, err
		}
		var batch int
		err = store.Update(ctx, func(tx storage.Tx) error {
			batch = 0
			for _, key := range keys {
				if _, err := tx.Get(ix.Name, key); errors.Is(err, storage.ErrNotFound) {
					continue // swept or re-keyed since the read
				} else if err != nil {
					return err
				}
				at, recKey, err := parseKey(class, key)
				if err != nil {
					return err
				}
				ok, err := del(tx, recKey, Entry{Class: class, At: at})
				if err != nil {
					return err
				}
				if ok {
					batch++
				}
				if err := tx.Delete(ix.Name, key, storage.AnyVersion); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return deleted, err
		}
		deleted += batch
		if len(keys) < n {
			return deleted, nil
		}
	}
	return deleted, nil
}

// backfills marks, per index, how far the one-time backfill of records
// written before the index existed has come.
var backfills = storage.Collection[backfillState]{Name: "retention.backfills"}

type backfillState struct {
	After string `json:"after,omitempty"`
	Done  bool   `json:"done,omitempty"`
}

// EntryFunc is the index entry of a stored record (zero: not indexed).
type EntryFunc func(rec storage.Record) (Entry, error)

// EntryOf is the EntryFunc of the records of c: each decoded, its entry
// what entry says of it.
func EntryOf[T any](c storage.Collection[T], entry func(T) Entry) EntryFunc {
	return func(rec storage.Record) (Entry, error) {
		it, err := c.Decode(rec)
		if err != nil {
			return Entry{}, err
		}
		return entry(it.Value), nil
	}
}

// Backfill gives every record of the collection records an entry in the
// index, once: records written before the index existed have none. It
// walks the collection in key order, Batch records per transaction, and
// keeps its position in the store (collection "retention.backfills", key:
// the index's name), so that an interrupted backfill resumes where it
// stopped and a finished one costs one read. Writers keep indexing their
// records meanwhile; an entry written twice is the same key.
func (ix Index) Backfill(ctx context.Context, store storage.Store, records string, entry EntryFunc) error {
	return Backfill(ctx, store, ix.Name, records, func(tx storage.Tx, rec storage.Record) error {
		e, err := entry(rec)
		if err != nil {
			return err
		}
		return ix.Move(tx, rec.Key, Entry{}, e)
	})
}

// Backfill calls each, once, with every record of the collection records,
// inside a write transaction: what an area that adds an index (a time
// index, or any other) runs before relying on it, so that records written
// before the index existed are in it too. It walks the collection in key
// order, Batch records per transaction, and keeps its position in the
// store under name (collection "retention.backfills"), so that an
// interrupted backfill resumes where it stopped and a finished one costs
// one read. Writers keep indexing their records meanwhile: each must
// write what a writer would, so that writing it twice changes nothing.
func Backfill(ctx context.Context, store storage.Store, name, records string, each func(tx storage.Tx, rec storage.Record) error) error {
	for {
		var done bool
		err := store.Update(ctx, func(tx storage.Tx) error {
			st, err := backfills.Get(tx, name)
			if err != nil && !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			state := st.Value
			if done = state.Done; done {
				return nil
			}
			var recs []storage.Record
			for rec, err := range tx.Scan(records, storage.Range{After: state.After, Limit: Batch}) {
				if err != nil {
					return err
				}
				recs = append(recs, rec)
			}
			for _, rec := range recs {
				if err := each(tx, rec); err != nil {
					return err
				}
				state.After = rec.Key
			}
			state.Done = len(recs) < Batch
			done = state.Done
			_, err = backfills.Put(tx, name, state, storage.AnyVersion)
			return err
		})
		if err != nil || done {
			return err
		}
	}
}

// Class is one class of an index with how long its records are kept
// after their index time; 0 keeps them forever.
type Class struct {
	Name string
	Keep time.Duration
}

// SweepClasses sweeps each class in turn at now (Sweep with cutoff
// now − Keep), at most limit records in all (≤ 0: no limit), and returns
// how many records it deleted.
func (ix Index) SweepClasses(ctx context.Context, store storage.Store, now time.Time, limit int, classes []Class, del DeleteFunc) (int, error) {
	total := 0
	for _, c := range classes {
		if c.Keep <= 0 {
			continue
		}
		rest := 0
		if limit > 0 {
			if rest = limit - total; rest <= 0 {
				break
			}
		}
		n, err := ix.Sweep(ctx, store, c.Name, now.Add(-c.Keep), rest, del)
		total += n
		if err != nil {
			return total, fmt.Errorf("sweeping %s records: %w", c.Name, err)
		}
	}
	return total, nil
}
