package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/internal/backend"
)

// scanBatch is how many records one query of a Scan reads. A batch is
// held in memory while the caller iterates it (the connection cannot run
// the caller's Gets while a result is still streaming), so it is small;
// it is larger than the page sizes the areas use, so a page is one query.
const scanBatch = 256

// queries are the statements of a store, with its schema's tables
// qualified. pgx prepares each once per connection and reuses it.
type queries struct {
	get     string
	putAny  string // unconditional upsert
	putNew  string // insert if missing
	putIf   string // update the row if its version is still $4
	version string
	del     string
	delIf   string // delete the row if its version is still $3
	nextSeq string
	// Scans: forward or reverse, with or without an exclusive upper
	// bound on the key.
	scanFwd, scanFwdTo string
	scanRev, scanRevTo string
}

func newQueries(schema string) queries {
	records := schema + ".deliverykit_records"
	versions := schema + ".deliverykit_versions"
	sequences := schema + ".deliverykit_sequences"
	// regclass literal for nextval: the quoted, qualified sequence name.
	nextVersion := fmt.Sprintf("nextval('%s'::regclass)", escapeLiteral(versions))
	sel := "SELECT key, value, version FROM " + records + " WHERE collection = $1 AND key >= $2"
	return queries{
		get: "SELECT value, version FROM " + records + " WHERE collection = $1 AND key = $2",
		putAny: "INSERT INTO " + records + " (collection, key, value, version) VALUES ($1, $2, $3, " + nextVersion + ")" +
			" ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version RETURNING version",
		putNew: "INSERT INTO " + records + " (collection, key, value, version) VALUES ($1, $2, $3, " + nextVersion + ")" +
			" ON CONFLICT (collection, key) DO NOTHING RETURNING version",
		putIf: "UPDATE " + records + " SET value = $3, version = " + nextVersion +
			" WHERE collection = $1 AND key = $2 AND version = $4 RETURNING version",
		version: "SELECT version FROM " + records + " WHERE collection = $1 AND key = $2",
		del:     "DELETE FROM " + records + " WHERE collection = $1 AND key = $2",
		delIf:   "DELETE FROM " + records + " WHERE collection = $1 AND key = $2 AND version = $3",
		nextSeq: "INSERT INTO " + sequences + " AS s (collection, value) VALUES ($1, 1)" +
			" ON CONFLICT (collection) DO UPDATE SET value = s.value + 1 RETURNING value",
		scanFwd:   sel + " AND key > $3 ORDER BY key LIMIT $4",
		scanFwdTo: sel + " AND key > $3 AND key < $4 ORDER BY key LIMIT $5",
		scanRev:   sel + " ORDER BY key DESC LIMIT $3",
		scanRevTo: sel + " AND key < $3 ORDER BY key DESC LIMIT $4",
	}
}

// tx adapts a pgx transaction to storage.Tx.
type tx struct {
	ctx  context.Context
	s    *Store
	opts pgx.TxOptions
	// pgtx is nil until the first statement, which begins the
	// transaction (see begin).
	pgtx     pgx.Tx
	writable bool
	// done is set when fn returns; the pgx transaction is ended (and its
	// connection back in the pool) from then on.
	done  atomic.Bool
	guard backend.ScanGuard
	// failed is the error of the first statement that failed. PostgreSQL
	// rejects every later statement of the transaction, so every later
	// call returns it too.
	failed error
	// retry reports that failed is a serialization failure or deadlock:
	// Update runs fn again.
	retry bool
}

func (t *tx) usable() error {
	if t.done.Load() {
		return backend.ErrTxDone
	}
	if err := t.ctx.Err(); err != nil {
		return err
	}
	return t.failed
}

func (t *tx) canWrite() error {
	if err := t.usable(); err != nil {
		return err
	}
	if !t.writable {
		return storage.ErrReadOnly
	}
	return nil
}

// fail records that a statement failed and returns the error to give the
// caller: the context's error when it is done (the query was interrupted),
// a Conflict for a serialization failure, an Internal error otherwise.
func (t *tx) fail(what string, err error) error {
	switch {
	case t.failed != nil:
		// begin already classified it.
	case t.ctx.Err() != nil:
		t.failed = t.ctx.Err()
	case retryable(err):
		var pgErr *pgconn.PgError
		errors.As(err, &pgErr)
		t.retry = true
		t.failed = deliverykit.Errorf(deliverykit.KindConflict, "%w: %s: %s (the Update runs again)", storage.ErrConflict, what, pgErr.Message)
	default:
		t.failed = deliverykit.Errorf(deliverykit.KindInternal, "storage/postgres: %s: %w", what, err)
	}
	return t.failed
}

// begin starts the transaction with its first statement: the BEGIN and
// the statement go to the server in one pipeline, one round trip where a
// BEGIN of its own would cost two. The connection is acquired here, not
// when View or Update starts, so a function that sends nothing costs
// nothing. The caller reads the statement's result from br and closes br.
func (t *tx) begin(sql string, args []any) (pgx.BatchResults, error) {
	var b pgx.Batch
	b.BeginTx(t.opts)
	b.Queue(sql, args...)
	br := t.s.pool.SendBatch(t.ctx, &b)
	// The transaction owns the connection from here on, even when the
	// BEGIN failed: rolling it back releases the connection.
	t.pgtx = br.Tx()
	if _, err := br.Exec(); err != nil {
		br.Close()
		t.failed = t.s.beginError(t.ctx, err)
		return nil, t.failed
	}
	return br, nil
}

// queryRow runs a statement returning at most one row, beginning the
// transaction with it when it is the first.
func (t *tx) queryRow(sql string, args ...any) pgx.Row {
	if t.pgtx != nil {
		return t.pgtx.QueryRow(t.ctx, sql, args...)
	}
	br, err := t.begin(sql, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{br}
}

// exec runs a statement returning no rows, beginning the transaction with
// it when it is the first.
func (t *tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	if t.pgtx != nil {
		return t.pgtx.Exec(t.ctx, sql, args...)
	}
	br, err := t.begin(sql, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// query runs a statement returning rows, beginning the transaction with
// it when it is the first. The caller closes the rows.
func (t *tx) query(sql string, args ...any) (pgx.Rows, error) {
	if t.pgtx != nil {
		return t.pgtx.Query(t.ctx, sql, args...)
	}
	br, err := t.begin(sql, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// batchRow is the row of a batch's last statement: scanning it closes the
// batch, which reads the rest of the pipeline's answer.
type batchRow struct{ br pgx.BatchResults }

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRows are the rows of a batch's last statement; reading past the
// last row or closing them closes the batch.
type batchRows struct {
	pgx.Rows
	br     pgx.BatchResults
	closed bool
	err    error
}

func (r *batchRows) Next() bool {
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.err = r.br.Close()
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

func (t *tx) Get(coll, key string) (storage.Record, error) {
	if err := t.usable(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	var val []byte
	var version int64
	err := t.queryRow(t.s.q.get, bytesOf(coll), bytesOf(key)).Scan(&val, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return storage.Record{}, storage.ErrNotFound
	}
	if err != nil {
		return storage.Record{}, t.fail(fmt.Sprintf("get %q in %q", key, coll), err)
	}
	return storage.Record{Key: key, Value: val, Version: uint64(version)}, nil
}

func (t *tx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	if err := t.canWrite(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	if len(val) > MaxValueSize {
		return storage.Record{}, deliverykit.InvalidField("value", "max", fmt.Sprintf("value must be at most %d bytes", MaxValueSize))
	}
	if err := t.guard.Check(coll); err != nil {
		return storage.Record{}, err
	}
	// pgx sends a nil slice as NULL; the column is NOT NULL.
	if val == nil {
		val = []byte{}
	}
	// The conditions are checked in the statement that writes, or, for
	// VersionIs, by reading the version first: a concurrent change after
	// that read makes the write fail to serialize, and the retry reads
	// the new version. Either way a condition that does not hold changes
	// nothing and leaves the transaction usable.
	query, args := t.s.q.putAny, []any{bytesOf(coll), bytesOf(key), val}
	switch {
	case cond.IsMustNotExist():
		query = t.s.q.putNew
	case cond != storage.AnyVersion:
		exists, current, err := t.version(coll, key)
		if err != nil {
			return storage.Record{}, err
		}
		if err := cond.Check(exists, current); err != nil {
			return storage.Record{}, err
		}
		// An UPDATE of the row that was read, not an upsert: if another
		// transaction changed or deleted it since, PostgreSQL refuses
		// the UPDATE (could not serialize), where an upsert could
		// re-create a row deleted in between.
		query, args = t.s.q.putIf, append(args, int64(current))
	}
	// pgx encodes the arguments before the call returns, so the caller
	// may reuse val at once.
	var version int64
	err := t.queryRow(query, args...).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		// The condition does not hold; the statement changed nothing.
		return storage.Record{}, storage.ErrConflict
	}
	if err != nil {
		return storage.Record{}, t.fail(fmt.Sprintf("put %q in %q", key, coll), err)
	}
	out := make([]byte, len(val))
	copy(out, val)
	return storage.Record{Key: key, Value: out, Version: uint64(version)}, nil
}

func (t *tx) Delete(coll, key string, cond storage.Condition) error {
	if err := t.canWrite(); err != nil {
		return err
	}
	if err := validate(coll, key); err != nil {
		return err
	}
	if cond.IsMustNotExist() {
		return deliverykit.InvalidField("condition", "oneof", "must-not-exist is not a valid condition for Delete")
	}
	if err := t.guard.Check(coll); err != nil {
		return err
	}
	if cond == storage.AnyVersion {
		if _, err := t.exec(t.s.q.del, bytesOf(coll), bytesOf(key)); err != nil {
			return t.fail(fmt.Sprintf("delete %q in %q", key, coll), err)
		}
		return nil
	}
	exists, current, err := t.version(coll, key)
	if err != nil {
		return err
	}
	if err := cond.Check(exists, current); err != nil {
		return err
	}
	tag, err := t.exec(t.s.q.delIf, bytesOf(coll), bytesOf(key), int64(current))
	if err != nil {
		return t.fail(fmt.Sprintf("delete %q in %q", key, coll), err)
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrConflict
	}
	return nil
}

// version reads the current version of key, for checking a VersionIs
// condition.
func (t *tx) version(coll, key string) (exists bool, version uint64, err error) {
	var v int64
	err = t.queryRow(t.s.q.version, bytesOf(coll), bytesOf(key)).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, 0, nil
	}
	if err != nil {
		return false, 0, t.fail(fmt.Sprintf("get %q in %q", key, coll), err)
	}
	return true, uint64(v), nil
}

func (t *tx) Scan(coll string, r storage.Range) iter.Seq2[storage.Record, error] {
	return func(yield func(storage.Record, error) bool) {
		// Check when iteration starts, not when Scan is called: the
		// sequence may be ranged over later, even after fn returned.
		if err := t.usable(); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := backend.ValidateCollection(coll); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if err := storage.ValidateRange(r); err != nil {
			yield(storage.Record{}, err)
			return
		}
		if t.writable {
			t.guard.Enter(coll)
			defer t.guard.Leave(coll)
		}
		c := newCursor(r)
		remaining := r.Limit
		for {
			n := scanBatch
			if r.Limit > 0 {
				n = min(n, remaining)
			}
			recs, err := t.fetch(coll, c, n)
			if err != nil {
				yield(storage.Record{}, err)
				return
			}
			for _, rec := range recs {
				if err := t.usable(); err != nil {
					yield(storage.Record{}, err)
					return
				}
				if !yield(rec, nil) {
					return
				}
			}
			if len(recs) < n {
				return // the range is exhausted
			}
			if r.Limit > 0 {
				if remaining -= len(recs); remaining == 0 {
					return
				}
			}
			c.advance(recs[len(recs)-1].Key)
		}
	}
}

// cursor is the position of a Scan between batches, as key bounds: keys
// k with lo <= k, after < k (forward) and k < hi (when hasHi).
type cursor struct {
	reverse bool
	lo      []byte // inclusive lower bound: the prefix
	after   []byte // exclusive lower bound of a forward scan
	hi      []byte // exclusive upper bound
	hasHi   bool
}

// newCursor turns r into bounds. A prefix p is the range [p, PrefixEnd(p));
// After is an exclusive bound on the side the scan starts from. Keys are
// never empty, so every key is greater than the empty After.
func newCursor(r storage.Range) *cursor {
	c := &cursor{reverse: r.Reverse, lo: bytesOf(r.Prefix)}
	if end, ok := backend.PrefixEnd(r.Prefix); ok {
		c.hi, c.hasHi = []byte(end), true
	}
	if r.Reverse {
		if r.After != "" && (!c.hasHi || r.After < string(c.hi)) {
			c.hi, c.hasHi = []byte(r.After), true
		}
	} else {
		c.after = bytesOf(r.After)
	}
	return c
}

// advance moves the cursor past last, the final key of a batch.
func (c *cursor) advance(last string) {
	if c.reverse {
		c.hi, c.hasHi = []byte(last), true
	} else {
		c.after = []byte(last)
	}
}

// fetch reads the next batch of at most n records at c.
func (t *tx) fetch(coll string, c *cursor, n int) ([]storage.Record, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	var rows pgx.Rows
	var err error
	switch {
	case !c.reverse && c.hasHi:
		rows, err = t.query(t.s.q.scanFwdTo, bytesOf(coll), c.lo, c.after, c.hi, n)
	case !c.reverse:
		rows, err = t.query(t.s.q.scanFwd, bytesOf(coll), c.lo, c.after, n)
	case c.hasHi:
		rows, err = t.query(t.s.q.scanRevTo, bytesOf(coll), c.lo, c.hi, n)
	default:
		rows, err = t.query(t.s.q.scanRev, bytesOf(coll), c.lo, n)
	}
	if err != nil {
		return nil, t.fail(fmt.Sprintf("scan %q", coll), err)
	}
	defer rows.Close()
	recs := make([]storage.Record, 0, min(n, 16))
	for rows.Next() {
		// The key is read without a copy of its own: string() copies it.
		var key pgtype.DriverBytes
		var val []byte
		var version int64
		if err := rows.Scan(&key, &val, &version); err != nil {
			return nil, t.fail(fmt.Sprintf("scan %q", coll), err)
		}
		recs = append(recs, storage.Record{Key: string(key), Value: val, Version: uint64(version)})
	}
	if err := rows.Err(); err != nil {
		return nil, t.fail(fmt.Sprintf("scan %q", coll), err)
	}
	return recs, nil
}

func (t *tx) NextSequence(coll string) (uint64, error) {
	if err := t.canWrite(); err != nil {
		return 0, err
	}
	if err := backend.ValidateCollection(coll); err != nil {
		return 0, err
	}
	if len(coll) > MaxCollectionSize {
		return 0, collectionTooLong()
	}
	var n int64
	if err := t.queryRow(t.s.q.nextSeq, bytesOf(coll)).Scan(&n); err != nil {
		return 0, t.fail(fmt.Sprintf("next sequence of %q", coll), err)
	}
	return uint64(n), nil
}

func validate(coll, key string) error {
	if err := backend.ValidateCollection(coll); err != nil {
		return err
	}
	if err := backend.ValidateKey(key); err != nil {
		return err
	}
	if len(coll) > MaxCollectionSize {
		return collectionTooLong()
	}
	if len(key) > MaxKeySize {
		return deliverykit.InvalidField("key", "max", fmt.Sprintf("key must be at most %d bytes", MaxKeySize))
	}
	return nil
}

func collectionTooLong() error {
	return deliverykit.InvalidField("collection", "max", fmt.Sprintf("collection must be at most %d bytes", MaxCollectionSize))
}

// bytesOf converts s for a bytea parameter. An empty string must become an
// empty, non-nil slice: pgx sends a nil slice as NULL, and every comparison
// with NULL is false.
func bytesOf(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}
