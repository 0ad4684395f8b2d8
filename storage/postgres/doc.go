// Package postgres is a storage.Store on PostgreSQL, for running several
// deliverykit servers (or several instances of a platform embedding
// deliverykit) on one shared database behind a load balancer.
//
//	store, err := postgres.Open(ctx, "host=db.internal user=deliverykit dbname=deliverykit pool_max_conns=16", nil)
//
// It passes the same storagetest conformance suite as storage/memory and
// storage/bolt: every guarantee of package storage holds across processes,
// because PostgreSQL, not this package, enforces them. Connections come from
// a pgxpool pool configured by the DSN (pool_max_conns, pool_min_conns,
// pool_max_conn_lifetime, connect_timeout, sslmode, … as documented by
// pgx); the store owns the pool and closes it in Close.
//
// # Layout
//
// Everything lives in one schema (Options.Schema, or the connection's
// current schema), in tables whose names start with deliverykit_ so that
// they can share a schema with an application's own tables:
//
//	deliverykit_records    (collection bytea, key bytea, value bytea, version bigint)
//	                       primary key (collection, key): the ordered index every Scan walks
//	deliverykit_sequences  (collection bytea primary key, value bigint): NextSequence counters
//	deliverykit_versions   a SEQUENCE: the source of record versions
//	deliverykit_schema     (version integer primary key, applied_at): applied migrations
//
// Collection names and keys are bytea, not text: keys contain the \x00
// separator of storage.Key, which a text column cannot hold, and bytea
// compares byte-wise whatever the database's collation, so Scan order is
// exactly that of memory and bolt.
//
// Record versions come from one database SEQUENCE shared by all
// collections. That is stronger than the contract asks (a per-collection
// counter that never goes back): a version is never reused in any
// collection, and versions increase within a transaction. A counter row per
// collection, as bolt keeps, would make every two concurrent Updates that
// write the same collection conflict on that row, so two servers could not
// write two different checkout sessions at the same time without one of them
// retrying. Sequence values are not transactional (a rolled-back Put burns
// its value), which the contract allows for versions. NextSequence counters,
// which must roll back with their transaction, are ordinary rows updated in
// the transaction.
//
// Open creates the tables, or migrates them to the layout this package
// version uses, in one transaction under an advisory lock, so several
// servers starting together on an empty database do not race. The applied
// version is recorded in deliverykit_schema; a database migrated by a newer
// release is refused rather than misread. A role that only reads and writes
// (no CREATE privilege) can open a database that is already up to date.
//
// # Transactions
//
// View is a READ ONLY REPEATABLE READ transaction: one snapshot, taken at
// its first statement, serves every read of the function. Update is a
// SERIALIZABLE transaction, so the package doc's "Updates are serializable"
// holds across servers, not only the compare-and-set of a single record.
// A failed condition that a Put or Delete reports must not abort the
// PostgreSQL transaction (the function may handle the conflict and go on),
// so such conditions raise no SQL error: MustNotExist is INSERT … ON
// CONFLICT DO NOTHING, and VersionIs is UPDATE or DELETE … WHERE version =
// v, which finds no row when the record is missing or at another version.
// A change committed by another transaction after this one's snapshot
// makes that write fail to serialize; the retry sees the new version and
// reports the conflict.
//
// PostgreSQL reports a transaction that cannot be serialized with
// concurrent ones (SQLSTATE 40001) or that was chosen as a deadlock victim
// (40P01) by failing a statement or the commit. Update then rolls back,
// waits a short, jittered, growing delay and runs the function again in a
// new transaction, up to Options.MaxAttempts times in all; when the attempts
// run out it returns an error matching storage.ErrConflict, which the HTTP
// adapter answers with 409. The function given to Update may therefore run
// more than once, as the storage contract warns: it must have no effects
// outside the transaction. Within a failed attempt, every later Tx call
// returns the same Conflict error, since PostgreSQL refuses further
// statements in an aborted transaction; the retry happens whatever the
// function returns.
//
// # Round trips
//
// A transaction costs about one round trip to the server per statement it
// waits for, so it waits for as few as the contract allows. The BEGIN
// travels with the first statement (a View or Update that sends nothing
// never takes a connection). A Put with AnyVersion and a Delete with
// AnyVersion have nothing in their answer the caller needs: they return at
// once and travel with the transaction's next statement, or with the
// COMMIT, in one pipeline; statements still run in the order they were
// made, so a later Get or Scan sees them. Such a Put's version was drawn
// ahead: a Put that waits for its answer draws the next eight versions
// from the SEQUENCE in the same round trip, after the transaction's
// snapshot, so a record's version still only grows (a few values are
// skipped per Update, which versions allow). A Put with storage.FreshKey
// and a version drawn ahead does not wait either: its INSERT has no ON
// CONFLICT clause, so a taken key fails it and aborts the transaction
// before the COMMIT that follows it in the pipeline, and Update then runs
// the function again, at once, in a new transaction where every
// conditional Put waits for its answer, so that the function sees the
// conflict from Put. Nor does a FreshKey Put that finds no version drawn
// ahead: it takes a spare, a version an earlier transaction drew and did
// not use, or that a COMMIT's round trip drew when the spares ran low, so
// that creates in progress at once do not each wait for a draw. A spare
// may be lower than versions drawn since, which only a key that had a
// version before could notice, and a FreshKey key has none (one visible to
// the transaction fails its INSERT, as above). Other conditional Puts
// (MustNotExist, VersionIs, the first Put of a transaction when it is not
// FreshKey), conditional Deletes, Gets, Scans and NextSequence wait for
// their answer, as their result or condition is the caller's. When a write
// that did not wait fails (a serialization failure, mostly), the next call
// or the COMMIT fails instead, and Update runs the function again or
// returns the error; nothing of the attempt is committed. A create whose
// keys are all FreshKey (a session, its index entry, its token) is one
// round trip, as one INSERT in autocommit; with a MustNotExist record,
// two; an update of a record read first (Get, Put with VersionIs) is
// three.
//
// A View's ROLLBACK is a round trip of its own, so a View of one Get is
// two. Store is a storage.Getter: storage.Get reads one record with the
// same SELECT outside a transaction, one round trip, and a statement on
// its own is its own snapshot. Callers that read one record and nothing
// else use it.
//
// The context of View and Update is passed to every query, so cancelling it
// interrupts a query in flight: the store asks the server to cancel the
// query (a cancel request, not only a client that stops listening), so a
// query waiting for a lock or reading a long range stops at once and
// releases what it holds, and the connection returns to the pool after the
// rollback. The commit itself is not interrupted: once the function has
// returned nil with the context still live, the outcome is PostgreSQL's,
// and Update never reports a cancellation for a transaction that may have
// committed.
//
// # Scans
//
// Scan pages through the primary key in SQL with keyset conditions
// (key > $last ORDER BY key LIMIT n, or key < $last ORDER BY key DESC), a
// batch of at most 256 records at a time, so a Scan of a large collection
// never loads more than one batch and a page of Range.Limit records is one
// query. Batches are read in the Scan's transaction, so a Scan that spans
// several batches still sees one snapshot. A prefix becomes a key range
// [prefix, backend.PrefixEnd(prefix)), which the index answers directly.
package postgres
