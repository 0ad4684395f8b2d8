package deliverykit

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Clock tells the time. Services take one so that tests control expiry,
// delivery estimates and timestamps.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock, in UTC.
type SystemClock struct{}

// Now returns time.Now in UTC.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// ManualClock is a Clock for tests: it stands still until Set or Advance
// moves it. It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewManualClock returns a ManualClock reading t.
func NewManualClock(t time.Time) *ManualClock { return &ManualClock{now: t} }

// Now returns the clock's current reading.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// IDSource makes identifiers. Identifiers that customers see or could guess
// (session ids, tracking tokens, widget tokens) must come from RandomIDs in
// production; tests inject SequentialIDs for stable output.
type IDSource interface {
	// NewID returns a fresh identifier that starts with prefix.
	NewID(prefix string) string
}

// RandomIDs makes unguessable identifiers that sort by creation time:
// prefix followed by the creation time in milliseconds (48 bits) and 128
// bits from crypto/rand, in lower-case base32 (36 characters after the
// prefix), with an alphabet in ASCII order:
//
//	id := deliverykit.RandomIDs{}.NewID("siw_") // "siw_" + 36 characters of [2-7a-z]
//
// The random bits are what makes an id unguessable. The time in front
// makes ids made later sort after ids made earlier (to the millisecond;
// ids of the same millisecond are in random order), so stores add new
// records at the end of their key order rather than all over it. The time
// in an id is not a secret: it is the creation time, which the resource
// shows anyway. A clock before 1970 counts as 1970.
type RandomIDs struct {
	// Clock gives the time in front; nil means the system clock.
	Clock Clock
}

// idEncoding is base32 with an alphabet in ASCII order, so that ids sort
// as their bytes do.
var idEncoding = base32.NewEncoding("234567abcdefghijklmnopqrstuvwxyz").WithPadding(base32.NoPadding)

// NewID implements IDSource.
func (r RandomIDs) NewID(prefix string) string {
	now := time.Now()
	if r.Clock != nil {
		now = r.Clock.Now()
	}
	var b [22]byte
	binary.BigEndian.PutUint64(b[:8], uint64(max(now.UnixMilli(), 0))<<16) // 48 bits in b[0:6]
	rand.Read(b[6:])                                                       // never returns an error (crypto/rand, Go 1.24+)
	return prefix + idEncoding.EncodeToString(b[:])
}

// SequentialIDs makes predictable identifiers (prefix followed by 1, 2, 3 …
// zero-padded to 6 digits) for deterministic tests. Never use it where ids
// must be unguessable. It is safe for concurrent use.
type SequentialIDs struct{ n atomic.Uint64 }

// NewID implements IDSource.
func (s *SequentialIDs) NewID(prefix string) string {
	return fmt.Sprintf("%s%06d", prefix, s.n.Add(1))
}
