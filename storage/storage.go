// Package storage is the small transactional document store every
// deliverykit area keeps its state in.
//
// A Store holds collections of records. A record is a key, an opaque value
// and a version. Keys sort byte-wise; values are bytes (areas use the typed
// Collection helper, which stores JSON). Every Put gives the record a new
// version, drawn from a per-collection counter that never goes back, not even
// after a Delete, so a version seen once is never seen again for another
// value of that key. Versions make optimistic concurrency portable: "write if
// the version is still v" is Put with VersionIs(v), and a lost race is
// ErrConflict.
//
// Three implementations ship with deliverykit: storage/memory for tests and
// embedding, storage/bolt, a single-file store on go.etcd.io/bbolt, the
// default of the example server, and storage/postgres on PostgreSQL, for
// several servers sharing one store. storage/storagetest is the conformance
// suite all three pass; a new backend implements this package's interfaces
// and calls storagetest.Run from its tests.
//
// # Transactions
//
// View runs a function against a read-only, consistent snapshot: writes that
// commit while it runs are not visible to it. Update runs a function in a
// read-write transaction that commits when the function returns nil and
// rolls back when it returns an error (the error is returned unchanged).
// Updates are serializable.
//
// Both honour their context: when ctx is done before fn runs, they return
// ctx.Err() without running fn; once it is done, Tx methods return
// ctx.Err(); and an Update whose ctx is done when fn returns rolls back and
// returns ctx.Err(), even if fn returned nil.
//
// The function given to Update may be run more than once by a backend that
// retries on serialization failures (a database backend does), that
// commits concurrent Updates together and retries the others when one of
// them fails (bolt does; memory does not), or that checks a FreshKey
// condition at commit and finds the key taken. It must therefore have no
// effects outside the transaction.
// Work that may be slow, such as computing delivery options, belongs before
// the transaction, with only the compare-and-set inside.
//
// A Tx must not be used after its function returns, nor from more than one
// goroutine. Records and values a Tx returns belong to the caller and stay
// valid after the transaction ends; values passed to Put may be reused by
// the caller once Put returns.
package storage

import (
	"context"
	"iter"
	"strconv"
	"strings"

	"github.com/deliverykit/deliverykit"
)

// Store is a transactional document store.
type Store interface {
	// View runs fn in a read-only snapshot. Write methods of the Tx return
	// ErrReadOnly.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a read-write transaction; see the package doc.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store. Transactions must have ended.
	Close() error
}

// Prober is implemented by stores that can tell more about their health
// than a successful write: bolt checks that the file it has open is still
// the file at its path. Readiness checks call Probe before writing; an
// error means the store should not receive traffic.
type Prober interface {
	Probe(ctx context.Context) error
}

// VersionScanner is implemented by transactions that can list records
// without their values: ScanVersions yields what Scan yields, in the same
// order, with Value nil. A reader that keeps what it made of a record by
// version (a decoded value, a rendering) then reads, with Get, only the
// records it has not seen; where copying a value out of the store costs
// (the memory store copies each), this saves the copies. Callers check
// for it on the Tx and fall back to Scan.
type VersionScanner interface {
	ScanVersions(coll string, r Range) iter.Seq2[Record, error]
}

// Tx is one transaction. Collection names and keys are non-empty strings;
// an empty one is an InvalidArgument error.
type Tx interface {
	// Get returns the record at key, or an error matching ErrNotFound.
	Get(coll, key string) (Record, error)
	// Put stores val at key if cond holds and returns the stored record
	// with its new version. A failed condition is an error matching
	// ErrConflict (with FreshKey, possibly only in a later run of the
	// Update function; see FreshKey).
	Put(coll, key string, val []byte, cond Condition) (Record, error)
	// Delete removes the record at key if cond holds. Deleting a missing
	// record with AnyVersion is not an error; with VersionIs it is a
	// conflict; MustNotExist makes no sense for Delete and is InvalidArgument.
	Delete(coll, key string, cond Condition) error
	// Scan yields the records of coll within r in key order (or reverse
	// key order). Iteration stops at the first error, which is yielded
	// with a zero Record. Writes made earlier in the same transaction are
	// visible; writing to coll while iterating it is not allowed.
	Scan(coll string, r Range) iter.Seq2[Record, error]
	// NextSequence returns the next value of coll's sequence: 1, 2, 3 …
	// Sequences are independent of record versions and never go back.
	// Drawing a value is a write: it rolls back with the transaction (the
	// value is drawn again later), and in a View it is ErrReadOnly.
	NextSequence(coll string) (uint64, error)
}

// Record is one stored value.
type Record struct {
	Key     string
	Value   []byte
	Version uint64 // > 0 for every stored record
}

// Range selects the records a Scan yields.
type Range struct {
	// Prefix keeps only keys that start with it ("" keeps all).
	Prefix string
	// After, when not empty, starts the scan after this key (exclusive): at
	// the first key greater than After, or, when Reverse, at the first key
	// less than After. It is the cursor of keyset paging: pass the last key
	// of the previous page.
	After string
	// Reverse yields keys in descending order.
	Reverse bool
	// Limit stops after this many records; 0 means no limit; negative is
	// InvalidArgument.
	Limit int
}

// Condition guards a write. The zero value is AnyVersion.
type Condition struct {
	mode    condMode
	version uint64
	fresh   bool // FreshKey: a MustNotExist a backend may check at commit
}

type condMode uint8

const (
	condAny condMode = iota
	condMustNotExist
	condVersion
)

// AnyVersion is an unconditional write.
var AnyVersion = Condition{}

// MustNotExist makes Put fail with ErrConflict when the key already exists.
func MustNotExist() Condition { return Condition{mode: condMustNotExist} }

// FreshKey is MustNotExist for a key the caller has just made and expects
// to be free, such as a new random id or token. What commits is the same
// as with MustNotExist, and so is what Put reports in the run of the
// Update function that commits; but a backend may leave the check to the
// commit, so that the Put costs no wait of its own: when the key then
// turns out to be taken, the attempt is rolled back (Put had reported
// success in it) and the function runs again, and in that run Put reports
// ErrConflict. A function that returns an error rolls back without the
// check: Update returns its error, whether or not the key was free. Use
// MustNotExist where a taken key is an expected outcome (deduplication),
// where an extra run of the function would be the common case, and
// where the key may have been used and deleted and the old record's
// version still matters (an etag a client holds): a backend may give a
// FreshKey Put a version drawn before its transaction began, never one
// given before but possibly lower than the deleted record's.
func FreshKey() Condition { return Condition{mode: condMustNotExist, fresh: true} }

// VersionIs makes the write fail with ErrConflict unless the record exists
// and its current version is v.
func VersionIs(v uint64) Condition { return Condition{mode: condVersion, version: v} }

// Check reports whether a write guarded by c may proceed given the current
// record (exists reports whether there is one). Backends call it; it returns
// nil or an error matching ErrConflict.
func (c Condition) Check(exists bool, current uint64) error {
	switch c.mode {
	case condMustNotExist:
		if exists {
			return ErrConflict
		}
	case condVersion:
		if !exists || current != c.version {
			return ErrConflict
		}
	}
	return nil
}

// IsMustNotExist reports whether c is MustNotExist() or FreshKey(): a
// backend that does not tell them apart checks both as MustNotExist.
func (c Condition) IsMustNotExist() bool { return c.mode == condMustNotExist }

// IsFreshKey reports whether c is FreshKey(): a backend may check it when
// the transaction commits (see FreshKey).
func (c Condition) IsFreshKey() bool { return c.fresh }

// RequiredVersion returns v and true when c is VersionIs(v), 0 and false
// otherwise. A backend that checks the condition in the statement that
// writes (UPDATE … WHERE version = v), rather than with Check after a
// read, needs the version.
func (c Condition) RequiredVersion() (v uint64, ok bool) {
	return c.version, c.mode == condVersion
}

// String describes the condition, for error messages and logs.
func (c Condition) String() string {
	switch c.mode {
	case condMustNotExist:
		if c.fresh {
			return "must-not-exist (fresh key)"
		}
		return "must-not-exist"
	case condVersion:
		return "version=" + strconv.FormatUint(c.version, 10)
	}
	return "any"
}

// Errors returned by every backend. They are *deliverykit.Error values, so
// they also match deliverykit.ErrNotFound, deliverykit.ErrConflict, … and
// adapters map them without knowing about storage.
var (
	ErrNotFound = deliverykit.E(deliverykit.KindNotFound, "storage: record not found")
	ErrConflict = deliverykit.E(deliverykit.KindConflict, "storage: record changed concurrently")
	// ErrReadOnly is returned by write methods of a View transaction.
	ErrReadOnly = deliverykit.E(deliverykit.KindInternal, "storage: write in a read-only transaction")
	// ErrClosed is returned by View and Update after Close.
	ErrClosed = deliverykit.E(deliverykit.KindInternal, "storage: store is closed")
)

// ValidateName returns an InvalidArgument error when a collection name or
// key is empty. Backends call it on every operation.
func ValidateName(what, s string) error {
	if s == "" {
		return deliverykit.InvalidField(what, "required", what+" must not be empty")
	}
	return nil
}

// ValidateRange returns an InvalidArgument error for a negative limit.
func ValidateRange(r Range) error {
	if r.Limit < 0 {
		return deliverykit.InvalidField("limit", "gte", "limit must not be negative")
	}
	return nil
}

// KeySep separates the parts of a composite key. It sorts before every
// printable character, so the keys of one tenant ("site-1" KeySep …) form a
// contiguous range that never interleaves with "site-10" KeySep ….
const KeySep = "\x00"

// Key joins parts into a composite key. Parts must not contain KeySep.
func Key(parts ...string) string { return strings.Join(parts, KeySep) }

// KeyPrefix returns the prefix that selects every key starting with parts:
// Key(parts...) followed by KeySep.
//
// It is built in one allocation rather than Key's and a second for the
// separator: reads on hot paths make a prefix on every call.
func KeyPrefix(parts ...string) string {
	n := len(KeySep)
	for _, p := range parts {
		n += len(p) + len(KeySep)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(KeySep)
		}
		b.WriteString(p)
	}
	b.WriteString(KeySep)
	return b.String()
}

// Uint64Key encodes n so that keys sort in numeric order: 20 decimal digits,
// zero-padded. It stays readable in logs and debugging dumps, unlike a
// big-endian binary encoding, and sorts the same way.
func Uint64Key(n uint64) string {
	const width = 20
	s := strconv.FormatUint(n, 10)
	return strings.Repeat("0", width-len(s)) + s
}

// ParseUint64Key is the inverse of Uint64Key.
func ParseUint64Key(s string) (uint64, error) {
	return strconv.ParseUint(s, 10, 64)
}
