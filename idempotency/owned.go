package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"hash/maphash"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// On a store one process owns (storage.Owner: memory; bolt, whose file is
// locked), a keeper keeps no record under the key's digest: the answer,
// head and body, is the value of its entry in the time-ordered expiry
// index, and the keeper finds it through an index in memory from the
// digest to the answer's time (decisions 0043 and 0044). A keyed call then writes
// one record, appended in time order, instead of a second one at a random
// place in the key order. The keys in flight are held in memory too, and
// both are shared by every keeper on the store: what one stores, another
// finds, and a key one holds, another refuses (ErrInFlight).
//
// A store several processes share (PostgreSQL) keeps the head under the
// digest, where another server's keeper finds it, and its unique key is
// what keeps two servers from both storing an answer.

// ownedMark starts the value of an entry that holds a whole answer. The
// entries of answers stored with a head under the digest hold the body as
// the endpoint wrote it (JSON, a page, a document) or nothing at all
// ("{}"); should such a body start with the mark, its head says so (see
// lookup).
const ownedMark = 0x01

// ownedKey is the key of a store's ownedState (storage.Shared).
type ownedKey struct{}

// ownedState is what the keepers on one owned store share.
type ownedState struct {
	keys  inFlight
	index ownedIndex
}

func newOwnedState() any {
	return &ownedState{keys: inFlight{held: map[string]struct{}{}}, index: newOwnedIndex()}
}

// inFlight holds the keys of the calls running.
type inFlight struct {
	mu   sync.Mutex
	held map[string]struct{}
}

func (f *inFlight) enter(rk string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.held[rk]; ok {
		return false
	}
	f.held[rk] = struct{}{}
	return true
}

func (f *inFlight) leave(rk string) {
	f.mu.Lock()
	delete(f.held, rk)
	f.mu.Unlock()
}

// ownedIndex is where the answers of one owned store are: each record
// key's answer time, in Unix microseconds as in the index's keys. It is
// built from the expiry index's keys at the first keyed call, so that it
// holds what the store holds, crash or not, and kept up to date after
// every commit that stores an answer and every sweep that deletes one.
//
// A record key (a site and a digest, some 80 bytes) is kept as 128 bits
// of two seeded hashes of it: an entry costs about 40 bytes of the map
// rather than 130. Two keys that share both hashes (odds of about one in
// 10^25 with a billion answers) would have the entry of one looked up for
// the other, which is not found, and the second's answer not replayed.
type ownedIndex struct {
	seed1, seed2 maphash.Seed

	mu     sync.Mutex
	loaded bool
	at     map[ownedID]int64
}

type ownedID [2]uint64

func newOwnedIndex() ownedIndex {
	return ownedIndex{seed1: maphash.MakeSeed(), seed2: maphash.MakeSeed()}
}

func (ix *ownedIndex) id(rk string) ownedID {
	return ownedID{maphash.String(ix.seed1, rk), maphash.String(ix.seed2, rk)}
}

// load builds the index from store's expiry entries, once; a failed load
// is tried again at the next call.
func (ix *ownedIndex) load(ctx context.Context, store storage.Store) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	at := map[ownedID]int64{}
	err := store.View(ctx, func(tx storage.Tx) error {
		clear(at)
		// The keys say it all; the values are answers of kilobytes.
		scan := tx.Scan
		if vs, ok := tx.(storage.VersionScanner); ok {
			scan = vs.ScanVersions
		}
		for rec, err := range scan(expiry.Name, storage.Range{Prefix: storage.KeyPrefix(classKey)}) {
			if err != nil {
				return err
			}
			e, rk, err := expiry.Parse(classKey, rec.Key)
			if err != nil {
				return fmt.Errorf("idempotency: %w", err)
			}
			// An answer replaced after it expired leaves no entry
			// behind; should two be found, the later one is the key's.
			id := ix.id(rk)
			at[id] = max(at[id], e.At.UnixMicro())
		}
		return nil
	})
	if err != nil {
		return err
	}
	ix.at, ix.loaded = at, true
	return nil
}

// get returns the time of the answer stored for rk, if any.
func (ix *ownedIndex) get(rk string) (time.Time, bool) {
	id := ix.id(rk)
	ix.mu.Lock()
	us, ok := ix.at[id]
	ix.mu.Unlock()
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMicro(us).UTC(), true
}

// add notes that the answer for rk stored at at has committed. Before the
// index is loaded it does nothing: the load reads the committed answer.
func (ix *ownedIndex) add(rk string, at time.Time) {
	id := ix.id(rk)
	ix.mu.Lock()
	if ix.loaded {
		ix.at[id] = at.UnixMicro()
	}
	ix.mu.Unlock()
}

// remove forgets the answer for rk stored at at, once its deletion has
// committed; a later answer for the same key stays.
func (ix *ownedIndex) remove(rk string, at time.Time) {
	id := ix.id(rk)
	ix.mu.Lock()
	if us, ok := ix.at[id]; ok && us == at.UnixMicro() {
		delete(ix.at, id)
	}
	ix.mu.Unlock()
}

// encodeOwned appends the value of the entry that holds rec whole to out.
func encodeOwned(out []byte, rec record) []byte {
	rec.Apart = false // the body follows the head, as in a record kept with its body
	return rec.appendTo(append(out, ownedMark))
}

// ownedBuffers hold answers being stored (putOwned); one that grew past
// maxPooledAnswer is left to the collector.
var ownedBuffers = sync.Pool{New: func() any { return new([]byte) }}

const maxPooledAnswer = 64 << 10

// decodeOwned reads an entry's value: the whole answer when it holds one
// (owned reports it), else nothing, and the answer's head is under its
// digest.
func decodeOwned(v []byte) (rec record, owned bool, err error) {
	rest, ok := bytes.CutPrefix(v, []byte{ownedMark})
	if !ok {
		return record{}, false, nil
	}
	rec, err = decodeRecord(rest)
	rec.owned = true
	return rec, true, err
}
