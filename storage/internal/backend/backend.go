// Package backend holds the rules every storage backend shipped with
// deliverykit applies in the same way: which collection names are reserved,
// how a Range turns into start and end keys, and the errors for misusing a
// transaction. Keeping them in one place is what makes storage/memory and
// storage/bolt agree on edge cases the conformance suite cannot enumerate.
package backend

import (
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// ReservedPrefix starts the names of a backend's internal collections (bolt
// keeps its sequence counters in one). Rejecting user collections with this
// prefix in every backend means an internal name can never collide with a
// user's, and data moves between backends without renaming.
const ReservedPrefix = "\x00"

// ErrTxDone is returned by every Tx method called after the transaction's
// function returned. A Tx that escaped its function would otherwise read a
// snapshot the backend no longer guarantees, or write into a transaction
// that has already committed.
var ErrTxDone = deliverykit.E(deliverykit.KindInternal, "storage: transaction used after its function returned")

// ErrWriteWhileScanning is returned by Put and Delete on a collection that a
// Scan of the same transaction is iterating. Neither a B-tree nor a bbolt
// cursor survives a write to the structure it walks, so the write is refused
// instead of corrupting the iteration.
var ErrWriteWhileScanning = deliverykit.E(deliverykit.KindInternal, "storage: write to a collection while scanning it in the same transaction")

// ValidateCollection checks a collection name: it must not be empty
// (storage.ValidateName) and must not start with ReservedPrefix.
func ValidateCollection(name string) error {
	if err := storage.ValidateName("collection", name); err != nil {
		return err
	}
	if strings.HasPrefix(name, ReservedPrefix) {
		return deliverykit.InvalidField("collection", "reserved", `collection names starting with "\x00" are reserved for the backend`)
	}
	return nil
}

// ValidateKey checks a record key; it must not be empty.
func ValidateKey(key string) error {
	return storage.ValidateName("key", key)
}

// Bounds is where a Scan starts and the exclusive bound it must skip.
type Bounds struct {
	// Start is the first key to position on: the scan begins at the first
	// key >= Start (forward) or, when Bounded, at the last key <= Start
	// (reverse). For a reverse scan without a bound it is empty and the
	// scan begins at the last key.
	Start string
	// Skip is a key the scan must not yield even if it exists, because
	// Start is an exclusive bound (Range.After, or the end of the prefix
	// range for a reverse scan). Empty means nothing to skip.
	Skip string
	// Bounded is false only for a reverse scan that starts at the very
	// last key.
	Bounded bool
}

// PlanScan turns r into the position a cursor starts from. Whatever the
// plan, a scan stops at the first key without r.Prefix: keys sharing a
// prefix are contiguous in byte order, so once one is out, all further ones
// are out.
func PlanScan(r storage.Range) Bounds {
	if !r.Reverse {
		// Start at the later of the prefix and After; After itself is
		// excluded. When After sorts before Prefix no key equal to After
		// can be reached, so skipping it is harmless.
		start := r.Prefix
		if r.After > start {
			start = r.After
		}
		return Bounds{Start: start, Skip: r.After, Bounded: true}
	}
	// Reverse: start below the smaller exclusive upper bound of the two,
	// the first key after the prefix range and After.
	upper, bounded := PrefixEnd(r.Prefix)
	if r.After != "" && (!bounded || r.After < upper) {
		upper, bounded = r.After, true
	}
	if !bounded {
		return Bounds{}
	}
	return Bounds{Start: upper, Skip: upper, Bounded: true}
}

// PrefixEnd returns the smallest key greater than every key starting with
// p, and false when there is none (p is empty or all 0xff bytes). Every key
// k with p <= k < PrefixEnd(p) starts with p.
func PrefixEnd(p string) (string, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			// Append the byte itself: string(p[i]+1) would be a rune
			// conversion and UTF-8-encode bytes >= 0x80.
			b := make([]byte, i+1)
			copy(b, p[:i])
			b[i] = p[i] + 1
			return string(b), true
		}
	}
	return "", false
}

// ScanGuard records which collections a transaction is scanning, so that
// writes to them can be refused with ErrWriteWhileScanning. The zero value
// is ready to use; it is not safe for concurrent use, like the Tx that owns
// it.
type ScanGuard struct {
	active []string
}

// Enter marks coll as being scanned. Every Enter must be paired with a
// Leave, normally deferred, so that an early break or a panic in the loop
// body releases the collection.
func (g *ScanGuard) Enter(coll string) { g.active = append(g.active, coll) }

// Leave undoes one Enter for coll.
func (g *ScanGuard) Leave(coll string) {
	for i := len(g.active) - 1; i >= 0; i-- {
		if g.active[i] == coll {
			g.active = append(g.active[:i], g.active[i+1:]...)
			return
		}
	}
}

// Check returns ErrWriteWhileScanning when coll is being scanned.
func (g *ScanGuard) Check(coll string) error {
	for _, c := range g.active {
		if c == coll {
			return ErrWriteWhileScanning
		}
	}
	return nil
}
