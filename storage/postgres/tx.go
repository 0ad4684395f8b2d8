package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

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
	get    string
	putAny string // unconditional upsert
	putNew string // insert if missing
	putIf  string // update the row if its version is still $4
	// The same with the new version given ($4, or $5 for putIfAt)
	// rather than drawn by the statement.
	putAnyAt, putNewAt, putIfAt string
	// insertAt inserts with the version given and fails (unique
	// violation) when the key exists: a FreshKey Put that does not
	// wait for its answer (see tx.Put).
	insertAt string
	draw     string // draws $1 record versions
	del      string
	delIf    string // delete the row if its version is still $3
	nextSeq  string
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
		putAnyAt: "INSERT INTO " + records + " (collection, key, value, version) VALUES ($1, $2, $3, $4)" +
			" ON CONFLICT (collection, key) DO UPDATE SET value = EXCLUDED.value, version = EXCLUDED.version",
		putNewAt: "INSERT INTO " + records + " (collection, key, value, version) VALUES ($1, $2, $3, $4)" +
			" ON CONFLICT (collection, key) DO NOTHING RETURNING version",
		putIfAt: "UPDATE " + records + " SET value = $3, version = $5" +
			" WHERE collection = $1 AND key = $2 AND version = $4 RETURNING version",
		insertAt: "INSERT INTO " + records + " (collection, key, value, version) VALUES ($1, $2, $3, $4)",
		draw:     "SELECT " + nextVersion + " FROM generate_series(1, $1)",
		del:      "DELETE FROM " + records + " WHERE collection = $1 AND key = $2",
		delIf:    "DELETE FROM " + records + " WHERE collection = $1 AND key = $2 AND version = $3",
		nextSeq: "INSERT INTO " + sequences + " AS s (collection, value) VALUES ($1, 1)" +
			" ON CONFLICT (collection) DO UPDATE SET value = s.value + 1 RETURNING value",
		scanFwd:   sel + " AND key > $3 ORDER BY key LIMIT $4",
		scanFwdTo: sel + " AND key > $3 AND key < $4 ORDER BY key LIMIT $5",
		scanRev:   sel + " ORDER BY key DESC LIMIT $3",
		scanRevTo: sel + " AND key < $3 ORDER BY key DESC LIMIT $4",
	}
}

// tx adapts a PostgreSQL transaction to storage.Tx.
//
// Round trips are what a transaction costs (each is a wake-up of the
// server process and of ours), so the transaction sends as few as the
// contract allows: the BEGIN travels with the first statement, and a
// write whose answer the caller does not need (an unconditional Put, whose
// version was drawn beforehand, or an unconditional Delete) waits and
// travels with the next statement or with the COMMIT, in one pipeline.
// Statements run in the order the function called them, so a later Get
// or Scan sees every earlier write; a waiting write that fails makes the
// next call (or the commit) fail, and the Update rolls back or runs
// again, as it would had the Put itself failed.
//
// A FreshKey Put (storage.FreshKey) whose version was drawn beforehand
// waits too, unless strict is set: it reports success at once, as its key
// is almost always free (a new random token), and its INSERT fails when the
// key exists, which aborts the transaction before its COMMIT runs (the
// COMMIT is in the same pipeline, after the failed statement, and the
// server skips it). The attempt then ends with recheck set, and Update
// runs the function again with strict set, where the Put waits for its
// answer and reports the conflict to the function, as the contract says;
// nothing of the first attempt is committed.
type tx struct {
	ctx  context.Context
	s    *Store
	mode string // the BEGIN statement
	// strict makes every conditional Put wait for its answer.
	strict bool
	// conn is nil until the first statement; begun reports that the
	// BEGIN has been sent on it.
	conn     *pgxpool.Conn
	begun    bool
	writable bool
	// pending are the writes sent with the next statement.
	pending []pendingWrite
	// versions are record versions drawn ahead, in increasing order,
	// for the next Puts (see Put).
	versions []int64
	// claimed counts the versions this transaction's draws fetch for
	// the spares (see spares.claim); the end of Update ends the claim.
	claimed int
	// done is set when fn returns; the transaction is ended (and its
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
	// recheck reports that failed is a FreshKey Put that did not wait
	// and found its key taken: Update runs fn again, strict.
	recheck bool
}

// pendingWrite is a write waiting for the next statement.
type pendingWrite struct {
	// op, coll and key name the write in errors (see describe); the
	// text is made only when one is reported.
	op, coll, key string
	sql           string
	args          []any
	// mustNotExist marks an insertAt: its unique violation is the
	// condition's conflict, not a failure.
	mustNotExist bool
}

// prefetch is how many versions a transaction draws ahead at once. A
// create writes its record and two or three index records; drawing more
// than a transaction uses only skips sequence values, which versions
// allow.
const prefetch = 8

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

// send sends, in one pipeline (one round trip): the BEGIN when the
// transaction has not begun, the pending writes, sql and, when draw is
// set, the statement drawing the next versions. It reads the answers to
// the BEGIN and the pending writes and returns br at sql's answer; the
// caller reads it (and the drawn versions) and closes br. The connection
// is acquired at the first statement, so a function that sends nothing
// costs nothing.
func (t *tx) send(ctx context.Context, sql string, args []any, draw bool) (pgx.BatchResults, error) {
	br, _, err := t.sendDrawing(ctx, sql, args, draw, false)
	return br, err
}

// sendDrawing is send, and with refill it draws the spares' shortfall, if
// any, after sql; refilling reports whether it does.
func (t *tx) sendDrawing(ctx context.Context, sql string, args []any, draw, refill bool) (br pgx.BatchResults, refilling bool, err error) {
	if t.conn == nil {
		conn, err := t.s.pool.Acquire(ctx)
		if err != nil {
			t.failed = t.s.beginError(ctx, err)
			return nil, false, t.failed
		}
		t.conn = conn
	}
	var b pgx.Batch
	b.QueuedQueries = make([]*pgx.QueuedQuery, 0, len(t.pending)+3)
	if !t.begun {
		b.Queue(t.mode)
	}
	for _, p := range t.pending {
		b.Queue(p.sql, p.args...)
	}
	b.Queue(sql, args...)
	if draw || refill {
		n := t.s.spares.claim()
		// What this transaction leaves over becomes spares (the end
		// of Update gives them and ends the claim).
		t.claimed += n
		if draw {
			n += prefetch
		}
		if n > 0 {
			b.Queue(t.s.q.draw, n)
		} else {
			refill = false
		}
	}
	br = t.conn.SendBatch(ctx, &b)
	if !t.begun {
		// From here on the connection may be in a transaction: the end
		// of View or Update rolls it back.
		t.begun = true
		if _, err := br.Exec(); err != nil {
			br.Close()
			t.failed = t.s.beginError(ctx, err)
			return nil, false, t.failed
		}
	}
	pending := t.pending
	t.pending = t.pending[:0]
	for _, p := range pending {
		if _, err := br.Exec(); err != nil {
			br.Close()
			if p.mustNotExist && t.failed == nil && pgCode(err) == codeUniqueViolation {
				t.recheck = true
				t.failed = deliverykit.Errorf(deliverykit.KindConflict, "%w: %s: the key exists (the Update runs again)", storage.ErrConflict, describe(p.op, p.coll, p.key))
				return nil, false, t.failed
			}
			return nil, false, t.fail(describe(p.op, p.coll, p.key), err)
		}
	}
	return br, refill, nil
}

// queryRow runs a statement returning at most one row. draw draws the
// next versions in the same round trip.
func (t *tx) queryRow(sql string, args []any, draw bool) pgx.Row {
	if t.begun && len(t.pending) == 0 && !draw {
		return t.conn.QueryRow(t.ctx, sql, args...)
	}
	br, err := t.send(t.ctx, sql, args, draw)
	if err != nil {
		return errRow{err}
	}
	return batchRow{t: t, br: br, draw: draw}
}

// exec runs a statement returning no rows.
func (t *tx) exec(sql string, args ...any) (pgconn.CommandTag, error) {
	if t.begun && len(t.pending) == 0 {
		return t.conn.Exec(t.ctx, sql, args...)
	}
	br, err := t.send(t.ctx, sql, args, false)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// query runs a statement returning rows. The caller closes the rows.
func (t *tx) query(sql string, args ...any) (pgx.Rows, error) {
	if t.begun && len(t.pending) == 0 {
		return t.conn.Query(t.ctx, sql, args...)
	}
	br, err := t.send(t.ctx, sql, args, false)
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

// commit sends the pending writes and the COMMIT in one round trip and
// returns the connection to the pool. It does not use the caller's
// cancellation (see the package doc). A failure is recorded in t.failed
// (a waiting write) or returned as it is (the COMMIT).
func (t *tx) commit() error {
	if t.conn == nil && len(t.pending) == 0 {
		return nil // nothing was sent: nothing to commit
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), endTimeout)
	defer cancel()
	// When the spares run low, the COMMIT's round trip draws more:
	// without them the next creates would each wait for a draw of their
	// own, a round trip before their commit. The draw follows the COMMIT
	// in the pipeline, outside the transaction, so that it can never
	// fail the commit; when the commit fails, PostgreSQL skips it.
	br, refill, err := t.sendDrawing(ctx, "commit", nil, false, true)
	if err != nil {
		return err
	}
	tag, err := br.Exec()
	if err == nil && refill {
		// A draw that failed only leaves the spares as they were.
		if vs, derr := drawn(br); derr == nil {
			t.s.spares.give(vs, 0)
		}
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err == nil && tag.String() == "ROLLBACK" {
		// Not expected (no statement failed), but never report a
		// rolled-back transaction as committed.
		err = pgx.ErrTxCommitRollback
	}
	if err != nil {
		return err
	}
	t.conn.Release()
	t.conn = nil
	return nil
}

// rollback ends the transaction, if one was begun, and returns the
// connection to the pool. It does not use ctx's cancellation: a
// transaction whose context was cancelled must still be rolled back. A
// connection whose rollback failed is closed rather than reused (the pool
// destroys a connection still in a transaction).
func (t *tx) rollback() {
	if t.conn == nil {
		return
	}
	if t.begun {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.ctx), endTimeout)
		defer cancel()
		if _, err := t.conn.Exec(ctx, "rollback"); err != nil {
			t.conn.Conn().Close(ctx)
		}
	}
	t.conn.Release()
	t.conn = nil
}

// batchRow is the row of the statement send returned br at: scanning it
// reads the drawn versions after it and closes br.
type batchRow struct {
	t    *tx
	br   pgx.BatchResults
	draw bool
}

func (r batchRow) Scan(dest ...any) error {
	err := r.br.QueryRow().Scan(dest...)
	if r.draw {
		// Read even when the statement found no row: a condition that
		// did not hold leaves the transaction usable.
		if derr := r.t.readVersions(r.br); derr != nil && (err == nil || errors.Is(err, pgx.ErrNoRows)) {
			err = derr
		}
	}
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

// readVersions reads the answer to the statement drawing versions.
func (t *tx) readVersions(br pgx.BatchResults) error {
	vs, err := drawn(br)
	if err != nil {
		return err
	}
	// nextval hands out increasing values in the order it is called,
	// which is the order of the rows; sorting makes it not matter.
	slices.Sort(vs)
	t.versions = vs
	return nil
}

// drawn reads the versions br's next statement, a draw, returned.
func drawn(br pgx.BatchResults) ([]int64, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[int64])
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// batchRows are the rows of the statement send returned br at; reading
// past the last row or closing them closes br.
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
	err := t.queryRow(t.s.q.get, []any{bytesOf(coll), bytesOf(key)}, false).Scan(&val, &version)
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
	// The new version: one drawn ahead (see tx.versions) when there is
	// one, else the statement draws it and draws the next ones in the
	// same round trip. Versions drawn ahead are drawn after this
	// transaction's snapshot and after every version drawn in it so
	// far, so a record's version still only grows: another
	// transaction's write that this one can see drew its version
	// before this one's snapshot was taken. A FreshKey Put may take a
	// spare instead (see spares).
	var next int64
	drawn := len(t.versions) > 0
	switch {
	case drawn:
		next, t.versions = t.versions[0], t.versions[1:]
	case cond.IsFreshKey() && !t.strict:
		// A key that was never used has no version to stay above: a
		// spare will do, and the Put need not wait (see spares).
		next, drawn = t.s.spares.take()
	}
	draw := len(t.versions) == 0
	args := []any{bytesOf(coll), bytesOf(key), val}
	var query string
	switch {
	case drawn && (cond == storage.AnyVersion || cond.IsFreshKey() && !t.strict):
		// Nothing in the answer is needed (for FreshKey: unless the
		// key is taken, which fails the transaction; see tx): the
		// write waits for the next statement or the commit. It keeps
		// a copy of its own, since the caller may reuse val before
		// then; the record returned holds the caller's bytes, as on
		// the other stores (Collection.Put only wants the version).
		args[2] = bytes.Clone(val)
		p := pendingWrite{op: "put", coll: coll, key: key, sql: t.s.q.putAnyAt, args: append(args, next)}
		if cond.IsFreshKey() {
			p.sql, p.mustNotExist = t.s.q.insertAt, true
		}
		t.pending = append(t.pending, p)
		return storage.Record{Key: key, Value: val, Version: uint64(next)}, nil
	case cond == storage.AnyVersion:
		query = t.s.q.putAny
	case cond.IsMustNotExist():
		// The condition is checked by the statement that writes.
		query = t.s.q.putNew
		if drawn {
			query, args = t.s.q.putNewAt, append(args, next)
		}
	default:
		// VersionIs: the statement that writes checks the version. An
		// UPDATE, not an upsert: it finds no row, and changes nothing,
		// when the record is missing or at another version in this
		// transaction's snapshot; and when another transaction changed
		// or deleted the row since the snapshot, PostgreSQL refuses it
		// (could not serialize) and the retry sees the new version.
		// Either way a condition that does not hold leaves the
		// transaction usable. (A version beyond int64, never stored,
		// becomes negative and matches no row: a conflict.)
		want, _ := cond.RequiredVersion()
		query, args = t.s.q.putIf, append(args, int64(want))
		if drawn {
			query, args = t.s.q.putIfAt, append(args, next)
		}
	}
	// pgx encodes the arguments before the call returns, so the caller
	// may reuse val at once.
	var version int64
	err := t.queryRow(query, args, draw).Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		// The condition does not hold; the statement changed nothing.
		return storage.Record{}, storage.ErrConflict
	}
	if err != nil {
		return storage.Record{}, t.fail(describe("put", coll, key), err)
	}
	return storage.Record{Key: key, Value: val, Version: uint64(version)}, nil
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
		// Nothing in the answer is needed: the delete waits for the next
		// statement or the commit.
		t.pending = append(t.pending, pendingWrite{op: "delete", coll: coll, key: key, sql: t.s.q.del, args: []any{bytesOf(coll), bytesOf(key)}})
		return nil
	}
	// VersionIs: checked by the DELETE itself, as for Put.
	want, _ := cond.RequiredVersion()
	tag, err := t.exec(t.s.q.delIf, bytesOf(coll), bytesOf(key), int64(want))
	if err != nil {
		return t.fail(fmt.Sprintf("delete %q in %q", key, coll), err)
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrConflict
	}
	return nil
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
	if err := t.queryRow(t.s.q.nextSeq, []any{bytesOf(coll)}, false).Scan(&n); err != nil {
		return 0, t.fail(fmt.Sprintf("next sequence of %q", coll), err)
	}
	return uint64(n), nil
}

// describe names a statement on key in coll for an error: `put "k" in "c"`.
func describe(op, coll, key string) string {
	return fmt.Sprintf("%s %q in %q", op, key, coll)
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
