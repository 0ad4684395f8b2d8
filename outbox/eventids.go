package outbox

import (
	"crypto/rand"
	"encoding/base32"
	"encoding/binary"
	"sync"
	"time"
)

// eventIDs makes the ids of events: a millisecond timestamp and random
// bits, like deliverykit.RandomIDs, so that an id tells a receiver nothing
// about how many events any site had. A receiver orders a subject's events
// by id, though, and two events of one subject are often written in the
// same millisecond: so an id is made later than the last id this process
// made for the same site and subject (that id plus a random increment
// when the random one is not later). Ids of other subjects are
// independent random numbers, so the increment says nothing about them.
//
// The last ids are remembered for the maxRecentSubjects subjects written
// last: enough for every subject of the last seconds, after which the
// timestamp alone orders them.
type eventIDs struct {
	mu     sync.Mutex
	recent map[string][22]byte // site and subject → last id's bytes
	order  []string            // recent's keys, oldest first, for eviction
}

// maxRecentSubjects bounds eventIDs.recent.
const maxRecentSubjects = 4096

// idAlphabet is deliverykit's: base32 in ASCII order, so ids sort as
// their bytes do.
var idAlphabet = base32.NewEncoding("234567abcdefghijklmnopqrstuvwxyz").WithPadding(base32.NoPadding)

// newEventID is the process's event id source.
var newEventID = (&eventIDs{}).next

// next returns an id for an event of site and subject (empty: an event
// of no subject, which nothing orders).
func (g *eventIDs) next(site, subject string, now time.Time) string {
	var b [22]byte
	binary.BigEndian.PutUint64(b[:8], uint64(max(now.UnixMilli(), 0))<<16) // 48 bits in b[0:6]
	rand.Read(b[6:])                                                       // never returns an error (crypto/rand, Go 1.24+)
	if subject == "" {
		return "evt_" + idAlphabet.EncodeToString(b[:])
	}
	key := site + "\x00" + subject
	g.mu.Lock()
	defer g.mu.Unlock()
	last, seen := g.recent[key]
	if seen && string(b[:]) <= string(last[:]) {
		b = last
		var inc [4]byte
		rand.Read(inc[:])
		addRandom(&b, uint64(binary.BigEndian.Uint32(inc[:]))|1)
	}
	if g.recent == nil {
		g.recent = map[string][22]byte{}
	}
	if !seen {
		if len(g.order) >= maxRecentSubjects {
			delete(g.recent, g.order[0])
			g.order = g.order[1:]
		}
		g.order = append(g.order, key)
	}
	g.recent[key] = b
	return "evt_" + idAlphabet.EncodeToString(b[:])
}

// addRandom adds inc to the random bits of b, carrying into the
// timestamp in the (astronomically unlikely) case they overflow.
func addRandom(b *[22]byte, inc uint64) {
	lo := binary.BigEndian.Uint64(b[14:22])
	sum := lo + inc
	binary.BigEndian.PutUint64(b[14:22], sum)
	if sum >= lo {
		return
	}
	for i := 13; i >= 0; i-- { // carry
		b[i]++
		if b[i] != 0 {
			return
		}
	}
}
