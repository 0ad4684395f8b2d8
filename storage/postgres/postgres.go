package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// DefaultMaxAttempts is how many times Update runs its function when
// Options.MaxAttempts is not set. Serialization failures between a handful
// of servers resolve within two or three attempts; ten leaves room for
// bursts while bounding how long a request can be held (about a second
// of backoff in all) before it is answered with a conflict.
const DefaultMaxAttempts = 10

// Limits on names. PostgreSQL refuses a B-tree index entry larger than
// about a third of a page (2704 bytes): a longer primary key would make
// the INSERT fail and abort the whole transaction, so Put rejects it
// beforehand as an InvalidArgument naming the field. Together the two
// limits stay below the index limit with room for tuple headers.
const (
	MaxCollectionSize = 256
	MaxKeySize        = 2048
)

// MaxValueSize is the largest value Put accepts. PostgreSQL's own limit
// for a bytea is 1 GiB, and a value travels in one protocol message; areas
// store documents of a few kilobytes, so anything near the limit is a bug
// better reported as InvalidArgument than as a failed transaction.
const MaxValueSize = 256 << 20

// Backoff between attempts of Update: full jitter over a window that
// doubles from minBackoff up to maxBackoff. The jitter keeps servers that
// failed together from retrying together.
const (
	minBackoff = time.Millisecond
	maxBackoff = 100 * time.Millisecond
)

// endTimeout bounds the commit and rollback, which do not use the caller's
// context (see the package doc) but must not wait forever on a server that
// went away.
const endTimeout = 30 * time.Second

// cancelGrace is how long a cancelled query may take to stop after the
// server was asked to cancel it, before its connection is closed.
const cancelGrace = 5 * time.Second

// SQLSTATE codes of failures that running the transaction again resolves.
const (
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	// A FreshKey Put that did not wait found its key taken: the
	// function runs again, its conditional Puts waiting (see tx).
	codeUniqueViolation = "23505"
)

// Options configures Open. A nil *Options is the same as the zero value.
type Options struct {
	// Schema is the schema holding the store's tables; Open creates it
	// when missing. Empty means the connection's current schema (the
	// first existing schema of its search_path, normally public), fixed
	// at Open so that every pooled connection uses the same tables.
	// Servers sharing a database must use the same schema; separate
	// schemas give separate stores in one database.
	Schema string
	// MaxAttempts bounds how many times Update runs its function when
	// PostgreSQL reports a serialization failure or a deadlock. Zero or
	// negative means DefaultMaxAttempts; 1 disables retries.
	MaxAttempts int
}

// Store is a storage.Store on a PostgreSQL database. It is safe for
// concurrent use, and several Stores, in one process or many, may share a
// database and schema.
type Store struct {
	pool        *pgxpool.Pool
	schema      string
	q           queries
	maxAttempts int
	closed      atomic.Bool
	spares      spares // versions drawn and not used, for FreshKey Puts
}

var _ storage.Store = (*Store)(nil)

// Open connects to the database named by dsn, a PostgreSQL connection
// string in URL or keyword/value form with pgxpool's pool_* settings, and
// creates or migrates the store's tables. It fails when the database cannot
// be reached within ctx or the schema was written by a newer release.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultMaxAttempts
	}
	// ParseConfig redacts the password from its errors, so they may be
	// returned as they are.
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("storage/postgres: %w", err)
	}
	// When a context is cancelled, ask the server to cancel the query
	// rather than only stop waiting for it: a query blocked on a lock or
	// scanning a large range would otherwise run on, holding its locks,
	// until it next talks to the client. The connection stays usable and
	// goes back to the pool after the rollback. Should the server not
	// answer the cancel request, the connection is closed after
	// cancelGrace.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("storage/postgres: %w", err)
	}
	schema, err := migrate(ctx, pool, o.Schema)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{
		pool:        pool,
		schema:      schema,
		q:           newQueries(pgx.Identifier{schema}.Sanitize()),
		maxAttempts: o.MaxAttempts,
	}, nil
}

// Schema returns the schema the store's tables are in.
func (s *Store) Schema() string { return s.schema }

// View runs fn in a READ ONLY REPEATABLE READ transaction: every read sees
// the snapshot taken at the first one. fn's error is returned unchanged.
func (s *Store) View(ctx context.Context, fn func(storage.Tx) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{ctx: ctx, s: s, mode: beginView}
	// Read-only: rolling back ends it as well as a commit would, and
	// also runs when fn panics. A View that read nothing never began.
	defer t.rollback()
	defer t.done.Store(true)
	return fn(t)
}

var _ storage.Getter = (*Store)(nil)

// Get reads the record at key in coll with one statement outside a
// transaction, in one round trip; a View reading it sends its BEGIN with
// the read and its ROLLBACK after, two. In autocommit a statement is its
// own snapshot: it reads what was committed when it began, as a View's
// first read does. Callers reach it through storage.Get.
func (s *Store) Get(ctx context.Context, coll, key string) (storage.Record, error) {
	if s.closed.Load() {
		return storage.Record{}, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return storage.Record{}, err
	}
	if err := validate(coll, key); err != nil {
		return storage.Record{}, err
	}
	var val []byte
	var version int64
	// The pool prepares the statement once per connection, as it does
	// a transaction's Get.
	err := s.pool.QueryRow(ctx, s.q.get, bytesOf(coll), bytesOf(key)).Scan(&val, &version)
	switch {
	case err == nil:
		return storage.Record{Key: key, Value: val, Version: uint64(version)}, nil
	case errors.Is(err, pgx.ErrNoRows):
		return storage.Record{}, storage.ErrNotFound
	case ctx.Err() != nil:
		// The query was interrupted.
		return storage.Record{}, ctx.Err()
	case s.closed.Load():
		// Close ran between our check and the pool's.
		return storage.Record{}, storage.ErrClosed
	}
	return storage.Record{}, deliverykit.Errorf(deliverykit.KindInternal, "storage/postgres: %s: %w", describe("get", coll, key), err)
}

// The BEGIN statements of View and Update. Neither is sent on its own: it
// travels with the transaction's first statement (see tx.send).
const (
	beginView   = "begin isolation level repeatable read read only"
	beginUpdate = "begin isolation level serializable read write"
)

// Update runs fn in a SERIALIZABLE transaction and commits it when fn
// returns nil and ctx is still live; otherwise it rolls back and returns
// fn's error unchanged, or ctx.Err(). When PostgreSQL reports a
// serialization failure or a deadlock, Update rolls back and runs fn again,
// up to Options.MaxAttempts times; then it returns an error matching
// storage.ErrConflict. fn must not call Update or View on the same store
// when the pool may be exhausted: it would wait for a connection that only
// its own caller can release.
func (s *Store) Update(ctx context.Context, fn func(storage.Tx) error) error {
	if s.closed.Load() {
		return storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	strict := false
	for attempt := 1; ; attempt++ {
		err, retry, recheck := s.updateOnce(ctx, fn, strict)
		if recheck && !strict {
			// A key the function expected free is taken: run it again
			// at once, its conditional Puts reporting their outcome.
			// Not an attempt lost to contention (a committed record
			// is in the way, which waiting does not change), and it
			// happens once per Update: strict never defers a condition.
			strict = true
			attempt--
			continue
		}
		if !retry {
			return err
		}
		if attempt >= s.maxAttempts {
			return deliverykit.Errorf(deliverykit.KindConflict, "%w (the transaction failed to serialize with concurrent ones %d times in a row)", storage.ErrConflict, attempt)
		}
		timer := time.NewTimer(backoff(attempt))
		select {
		case <-ctx.Done():
			timer.Stop()
			return ctx.Err()
		case <-timer.C:
		}
	}
}

// updateOnce runs one attempt of Update, strict or not (see tx). retry
// reports a serialization failure or deadlock, recheck a FreshKey Put
// that did not wait and found its key taken: the transaction was rolled
// back and fn may run again.
func (s *Store) updateOnce(ctx context.Context, fn func(storage.Tx) error, strict bool) (err error, retry, recheck bool) {
	t := &tx{ctx: ctx, s: s, mode: beginUpdate, writable: true, strict: strict}
	// Rolls back on every path but a commit, including a panic in fn; a
	// no-op after a commit. The versions it drew and did not use are
	// spares, committed or not: no other transaction has them.
	defer func() {
		t.rollback()
		s.spares.give(t.versions, t.claimed)
	}()
	fnErr := func() error {
		defer t.done.Store(true)
		return fn(t)
	}()
	switch {
	case t.retry || t.recheck:
		// The transaction is aborted whatever fn made of the error.
		return t.failed, t.retry, t.recheck
	case fnErr != nil:
		return fnErr, false, false
	case ctx.Err() != nil:
		// The caller asked to stop, even if fn ignored the errors its
		// Tx returned.
		return ctx.Err(), false, false
	case t.failed != nil:
		// fn ignored a failed statement; PostgreSQL would turn the
		// commit into a rollback.
		return t.failed, false, false
	}
	// The writes still pending and the COMMIT go in one round trip.
	if err := t.commit(); err != nil {
		if t.failed != nil {
			// A pending write failed; it was classified like any
			// other statement.
			return t.failed, t.retry, t.recheck
		}
		if retryable(err) {
			return err, true, false
		}
		return deliverykit.Errorf(deliverykit.KindInternal, "storage/postgres: commit: %w", err), false, false
	}
	return nil, false, false
}

// beginError maps a failure to start a transaction.
func (s *Store) beginError(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if s.closed.Load() {
		// Close ran between our check and the pool's.
		return storage.ErrClosed
	}
	return deliverykit.Errorf(deliverykit.KindInternal, "storage/postgres: begin: %w", err)
}

// Close closes the pool, waiting for transactions in progress to return
// their connections. Later Views and Updates return storage.ErrClosed;
// closing again is a no-op. The data stays in the database.
func (s *Store) Close() error {
	if !s.closed.CompareAndSwap(false, true) {
		return nil
	}
	s.pool.Close()
	return nil
}

// rollback ends pgtx. It does not use ctx's cancellation: a transaction
// whose context was cancelled must still be rolled back, and when the
// cancellation already closed the connection the pool discards it anyway.
func rollback(ctx context.Context, pgtx pgx.Tx) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), endTimeout)
	defer cancel()
	// The only errors are a connection that is gone, which the pool
	// replaces, and a transaction already ended by a failed commit.
	_ = pgtx.Rollback(rctx)
}

// retryable reports whether err is a serialization failure or a deadlock,
// after which running the transaction again can succeed.
func retryable(err error) bool {
	code := pgCode(err)
	return code == codeSerializationFailure || code == codeDeadlockDetected
}

// pgCode returns the SQLSTATE of the server's error in err, or "".
func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return ""
	}
	return pgErr.Code
}

// backoff returns how long to wait after the given failed attempt (1 for
// the first): uniformly random in (0, window], the window doubling from
// minBackoff up to maxBackoff.
func backoff(attempt int) time.Duration {
	window := maxBackoff
	if attempt < 8 { // 1ms << 7 > maxBackoff already
		window = min(minBackoff<<(attempt-1), maxBackoff)
	}
	return rand.N(window) + 1
}
