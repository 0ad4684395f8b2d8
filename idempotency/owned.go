package idempotency

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// On a store one process owns (memory; bolt, whose file is locked), a
// keeper keeps no record under the key's digest: the answer, head and
// body, is the value of its entry in the time-ordered expiry index, and
// the keeper finds it through an index of its own, in memory, from the
// digest to the answer's time (decision 0043). A store several processes
// share (PostgreSQL) keeps the head under the digest, where another
// server's keeper finds it.
//
// Work in progress: nothing calls this yet (branch owned-answers).

// ownedMark starts the value of an entry that holds a whole answer. The
// entries of answers stored with a head under the digest hold the body
// (JSON, so "{" or "[" or a quote first) or nothing at all ("{}").
const ownedMark = 0x01

// ownedIndex is where the answers of one owned store are: each record
// key's answer time, in Unix microseconds as in the index's keys. It is
// built from the expiry index's keys at the first keyed call, so that it
// holds what the store holds, crash or not, and kept up to date after
// every commit that stores an answer and every sweep that deletes one.
// Every keeper on the store shares it.
type ownedIndex struct {
	mu     sync.Mutex
	loaded bool
	at     map[string]int64
}

// load builds the index from store's expiry entries, once; a failed load
// is tried again at the next call.
func (ix *ownedIndex) load(ctx context.Context, store storage.Store) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.loaded {
		return nil
	}
	at := map[string]int64{}
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
			at[rk] = max(at[rk], e.At.UnixMicro())
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
	ix.mu.Lock()
	us, ok := ix.at[rk]
	ix.mu.Unlock()
	if !ok {
		return time.Time{}, false
	}
	return time.UnixMicro(us).UTC(), true
}

// add notes that the answer for rk stored at at has committed.
func (ix *ownedIndex) add(rk string, at time.Time) {
	ix.mu.Lock()
	ix.at[rk] = at.UnixMicro()
	ix.mu.Unlock()
}

// remove forgets the answer for rk stored at at, once its deletion has
// committed; a later answer for the same key stays.
func (ix *ownedIndex) remove(rk string, at time.Time) {
	ix.mu.Lock()
	if ix.at[rk] == at.UnixMicro() {
		delete(ix.at, rk)
	}
	ix.mu.Unlock()
}

// encodeOwned is the value of the entry that holds rec whole.
func encodeOwned(rec record) ([]byte, error) {
	rec.Apart = false // the body follows the head, as in a record kept with its body
	b, err := rec.encode()
	if err != nil {
		return nil, err
	}
	return append([]byte{ownedMark}, b...), nil
}

// decodeOwned reads an entry's value: the whole answer when it holds one
// (owned reports it), else nothing, and the answer's head is under its
// digest.
func decodeOwned(v []byte) (rec record, owned bool, err error) {
	rest, ok := bytes.CutPrefix(v, []byte{ownedMark})
	if !ok {
		return record{}, false, nil
	}
	rec, err = decodeRecord(rest)
	return rec, true, err
}
