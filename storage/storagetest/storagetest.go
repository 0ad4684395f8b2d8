// Package storagetest is the conformance suite of storage.Store. Every
// backend calls Run from its tests (and RunReopen when it persists), so all
// backends agree on the contract documented in package storage, down to the
// edge cases of Scan and the conditions of Put and Delete.
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Store { return memory.New() })
//	}
//
// Every subtest starts from a new, empty store and closes it when it ends.
// The suite uses no sleeps: concurrent tests are ordered with channels, and
// the assertions of the free-running ones (compare-and-set, snapshot
// consistency) hold for every interleaving.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Run runs the conformance suite. open must return a new, empty store; the
// suite closes it at the end of the subtest. A subtest that closes the store
// itself closes it again at the end, so Close must tolerate a second call
// (return nil or an error matching storage.ErrClosed).
func Run(t *testing.T, open func(t *testing.T) storage.Store) {
	t.Helper()
	for _, tc := range suite {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newStore(t, open))
		})
	}
}

// RunReopen runs the tests of a store that persists: data, record versions
// and sequences survive closing the store and opening it again. open opens
// the store at path, creating it when it does not exist; each subtest picks
// a path in a fresh temporary directory and calls open more than once on
// it. The suite closes every store it opens.
func RunReopen(t *testing.T, open func(t *testing.T, path string) storage.Store) {
	t.Helper()
	for _, tc := range reopenSuite {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "store")
			tc.fn(t, func(t *testing.T) storage.Store {
				t.Helper()
				return newStore(t, func(t *testing.T) storage.Store { return open(t, path) })
			})
		})
	}
}

var suite = []struct {
	name string
	fn   func(*testing.T, storage.Store)
}{
	{"GetMissing", testGetMissing},
	{"PutThenGet", testPutThenGet},
	{"PutConditions", testPutConditions},
	{"DeleteConditions", testDeleteConditions},
	{"InvalidArguments", testInvalidArguments},
	{"VersionsIncrease", testVersionsIncrease},
	{"VersionsNotReusedAfterDelete", testVersionsNotReusedAfterDelete},
	{"ValuesAreCopied", testValuesAreCopied},
	{"EmptyValue", testEmptyValue},
	{"KeyOrderIsByteWise", testKeyOrderIsByteWise},
	{"Uint64KeyOrder", testUint64KeyOrder},
	{"CompositeKeysPerTenant", testCompositeKeysPerTenant},
	{"ScanRanges", testScanRanges},
	{"ScanVersions", testScanVersions},
	{"ScanEarlyBreak", testScanEarlyBreak},
	{"KeysetPaging", testKeysetPaging},
	{"UpdateSeesOwnWrites", testUpdateSeesOwnWrites},
	{"RollbackOnError", testRollbackOnError},
	{"FailedWriteDoesNotAbortUpdate", testFailedWriteDoesNotAbortUpdate},
	{"FreshKey", testFreshKey},
	{"RollbackOnPanic", testRollbackOnPanic},
	{"UpdateSteps", testUpdateSteps},
	{"UpdateStepsConcurrent", testUpdateStepsConcurrent},
	{"WritesInViewAreReadOnly", testWritesInViewAreReadOnly},
	{"NextSequence", testNextSequence},
	{"ContextDoneBeforeTransaction", testContextDoneBeforeTransaction},
	{"ContextCancelledDuringUpdate", testContextCancelledDuringUpdate},
	{"ContextCancelledDuringView", testContextCancelledDuringView},
	{"ViewIsolatedFromLaterCommit", testViewIsolatedFromLaterCommit},
	{"ViewDoesNotSeeUncommittedWrites", testViewDoesNotSeeUncommittedWrites},
	{"ViewsConsistentUnderConcurrentUpdates", testViewsConsistentUnderConcurrentUpdates},
	{"ConcurrentCompareAndSet", testConcurrentCompareAndSet},
	{"TxUsedAfterReturn", testTxUsedAfterReturn},
	{"Close", testClose},
	{"StoreGet", testStoreGet},
	{"Held", testHeld},
	{"Collection", testCollection},
}

// errBoom is what failing transaction functions return.
var errBoom = errors.New("boom")

// newStore opens a store and closes it when the test ends.
func newStore(t *testing.T, open func(t *testing.T) storage.Store) storage.Store {
	t.Helper()
	s := open(t)
	if s == nil {
		t.Fatal("open returned a nil store")
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// recordCmp compares records, treating nil and empty values as equal: the
// contract does not say which an empty value comes back as.
var recordCmp = cmpopts.EquateEmpty()

func update(t *testing.T, s storage.Store, fn func(storage.Tx) error) {
	t.Helper()
	if err := s.Update(t.Context(), fn); err != nil {
		t.Fatalf("Update: %v", err)
	}
}

func view(t *testing.T, s storage.Store, fn func(storage.Tx) error) {
	t.Helper()
	if err := s.View(t.Context(), fn); err != nil {
		t.Fatalf("View: %v", err)
	}
}

// put stores val at key unconditionally in its own Update.
func put(t *testing.T, s storage.Store, coll, key, val string) storage.Record {
	t.Helper()
	var rec storage.Record
	update(t, s, func(tx storage.Tx) error {
		var err error
		rec, err = tx.Put(coll, key, []byte(val), storage.AnyVersion)
		return err
	})
	return rec
}

// del deletes key unconditionally in its own Update.
func del(t *testing.T, s storage.Store, coll, key string) {
	t.Helper()
	update(t, s, func(tx storage.Tx) error { return tx.Delete(coll, key, storage.AnyVersion) })
}

// get reads key in its own View; a missing record is returned as the error.
func get(t *testing.T, s storage.Store, coll, key string) (storage.Record, error) {
	t.Helper()
	var rec storage.Record
	var getErr error
	view(t, s, func(tx storage.Tx) error {
		rec, getErr = tx.Get(coll, key)
		return nil
	})
	return rec, getErr
}

// mustGet reads a record that must exist.
func mustGet(t *testing.T, s storage.Store, coll, key string) storage.Record {
	t.Helper()
	rec, err := get(t, s, coll, key)
	if err != nil {
		t.Fatalf("Get(%q, %q): %v", coll, key, err)
	}
	return rec
}

// wantMissing fails unless key is absent.
func wantMissing(t *testing.T, s storage.Store, coll, key string) {
	t.Helper()
	if rec, err := get(t, s, coll, key); !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Get(%q, %q) = %+v, %v; want ErrNotFound", coll, key, rec, err)
	}
}

// collect drains seq, stopping at the first error.
func collect(seq iter.Seq2[storage.Record, error]) ([]storage.Record, error) {
	var recs []storage.Record
	for rec, err := range seq {
		if err != nil {
			return recs, err
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// keysOf returns the keys of recs ([] rather than nil when there are none,
// for readable diffs).
func keysOf(recs []storage.Record) []string {
	keys := []string{}
	for _, r := range recs {
		keys = append(keys, r.Key)
	}
	return keys
}

// scanKeys scans in its own View and returns the keys.
func scanKeys(t *testing.T, s storage.Store, coll string, r storage.Range) []string {
	t.Helper()
	var keys []string
	view(t, s, func(tx storage.Tx) error {
		recs, err := collect(tx.Scan(coll, r))
		keys = keysOf(recs)
		return err
	})
	return keys
}

// putAll stores key=value for every key in one Update.
func putAll(t *testing.T, s storage.Store, coll string, keys ...string) {
	t.Helper()
	update(t, s, func(tx storage.Tx) error {
		for _, k := range keys {
			if _, err := tx.Put(coll, k, []byte("value of "+k), storage.AnyVersion); err != nil {
				return err
			}
		}
		return nil
	})
}

func testGetMissing(t *testing.T, s storage.Store) {
	put(t, s, "things", "present", "x")
	for _, tc := range []struct{ name, coll, key string }{
		{"missing key", "things", "absent"},
		{"missing collection", "never-written", "present"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantMissing(t, s, tc.coll, tc.key)
		})
	}
}

func testPutThenGet(t *testing.T, s storage.Store) {
	rec := put(t, s, "things", "k", "hello")
	want := storage.Record{Key: "k", Value: []byte("hello"), Version: rec.Version}
	if rec.Version == 0 {
		t.Fatalf("Put returned version 0; versions of stored records are > 0")
	}
	if diff := cmp.Diff(want, rec, recordCmp); diff != "" {
		t.Errorf("Put returned (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, mustGet(t, s, "things", "k"), recordCmp); diff != "" {
		t.Errorf("Get after Put (-want +got):\n%s", diff)
	}
	// Collections are separate namespaces.
	wantMissing(t, s, "other", "k")
}

// recordState is how a test row prepares a key before acting on it.
type recordState int

const (
	stateMissing      recordState = iota // never written
	stateExisting                        // written twice, so a stale version exists
	stateDeleted                         // written, then deleted
	stateNoCollection                    // the collection itself was never written
)

// prepare puts key into state and returns the versions it went through.
func prepare(t *testing.T, s storage.Store, coll, key string, st recordState) []uint64 {
	t.Helper()
	switch st {
	case stateExisting:
		v1 := put(t, s, coll, key, "first").Version
		v2 := put(t, s, coll, key, "second").Version
		return []uint64{v1, v2}
	case stateDeleted:
		v1 := put(t, s, coll, key, "first").Version
		del(t, s, coll, key)
		return []uint64{v1}
	}
	return nil
}

func testPutConditions(t *testing.T, s storage.Store) {
	// cond gets the versions the key went through (oldest first).
	current := func(vs []uint64) storage.Condition { return storage.VersionIs(vs[len(vs)-1]) }
	tests := []struct {
		name    string
		state   recordState
		cond    func(versions []uint64) storage.Condition
		wantErr error
	}{
		{"any/missing", stateMissing, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"any/existing", stateExisting, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"any/deleted", stateDeleted, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"zero condition is any", stateExisting, func([]uint64) storage.Condition { return storage.Condition{} }, nil},
		{"must-not-exist/missing", stateMissing, func([]uint64) storage.Condition { return storage.MustNotExist() }, nil},
		{"must-not-exist/deleted", stateDeleted, func([]uint64) storage.Condition { return storage.MustNotExist() }, nil},
		{"must-not-exist/existing", stateExisting, func([]uint64) storage.Condition { return storage.MustNotExist() }, storage.ErrConflict},
		{"version-is/current", stateExisting, current, nil},
		{"version-is/stale", stateExisting, func(vs []uint64) storage.Condition { return storage.VersionIs(vs[0]) }, storage.ErrConflict},
		{"version-is/newer than current", stateExisting, func(vs []uint64) storage.Condition { return storage.VersionIs(vs[1] + 1) }, storage.ErrConflict},
		{"version-is/missing", stateMissing, func([]uint64) storage.Condition { return storage.VersionIs(1) }, storage.ErrConflict},
		{"version-is/zero on missing", stateMissing, func([]uint64) storage.Condition { return storage.VersionIs(0) }, storage.ErrConflict},
		{"version-is/deleted", stateDeleted, current, storage.ErrConflict},
		{"version-is/missing collection", stateNoCollection, func([]uint64) storage.Condition { return storage.VersionIs(1) }, storage.ErrConflict},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			coll, key := "put-conditions", "key-"+strconv.Itoa(i)
			if tc.state == stateNoCollection {
				coll = "put-conditions-never-written-" + strconv.Itoa(i)
			}
			versions := prepare(t, s, coll, key, tc.state)
			before, beforeErr := get(t, s, coll, key)

			var rec storage.Record
			var putErr error
			update(t, s, func(tx storage.Tx) error {
				rec, putErr = tx.Put(coll, key, []byte("new"), tc.cond(versions))
				return nil
			})

			if tc.wantErr != nil {
				if !errors.Is(putErr, tc.wantErr) {
					t.Fatalf("Put = %v; want error matching %v", putErr, tc.wantErr)
				}
				after, afterErr := get(t, s, coll, key)
				if diff := cmp.Diff(before, after, recordCmp); diff != "" || !errors.Is(afterErr, beforeErr) {
					t.Errorf("failed Put changed the record (-before +after):\n%s\nerrors: %v, %v", diff, beforeErr, afterErr)
				}
				return
			}
			if putErr != nil {
				t.Fatalf("Put: %v", putErr)
			}
			for _, v := range versions {
				if rec.Version <= v {
					t.Errorf("Put version %d; want > earlier version %d", rec.Version, v)
				}
			}
			want := storage.Record{Key: key, Value: []byte("new"), Version: rec.Version}
			if diff := cmp.Diff(want, mustGet(t, s, coll, key), recordCmp); diff != "" {
				t.Errorf("Get after Put (-want +got):\n%s", diff)
			}
		})
	}
}

func testDeleteConditions(t *testing.T, s storage.Store) {
	current := func(vs []uint64) storage.Condition { return storage.VersionIs(vs[len(vs)-1]) }
	tests := []struct {
		name    string
		state   recordState
		cond    func(versions []uint64) storage.Condition
		wantErr error
	}{
		{"any/existing", stateExisting, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"any/missing is not an error", stateMissing, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"any/deleted is not an error", stateDeleted, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"any/missing collection is not an error", stateNoCollection, func([]uint64) storage.Condition { return storage.AnyVersion }, nil},
		{"version-is/current", stateExisting, current, nil},
		{"version-is/stale", stateExisting, func(vs []uint64) storage.Condition { return storage.VersionIs(vs[0]) }, storage.ErrConflict},
		{"version-is/missing", stateMissing, func([]uint64) storage.Condition { return storage.VersionIs(1) }, storage.ErrConflict},
		{"version-is/deleted", stateDeleted, current, storage.ErrConflict},
		{"version-is/missing collection", stateNoCollection, func([]uint64) storage.Condition { return storage.VersionIs(1) }, storage.ErrConflict},
		{"must-not-exist/existing", stateExisting, func([]uint64) storage.Condition { return storage.MustNotExist() }, deliverykit.ErrInvalidArgument},
		{"must-not-exist/missing", stateMissing, func([]uint64) storage.Condition { return storage.MustNotExist() }, deliverykit.ErrInvalidArgument},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			coll, key := "delete-conditions", "key-"+strconv.Itoa(i)
			if tc.state == stateNoCollection {
				coll = "delete-conditions-never-written-" + strconv.Itoa(i)
			}
			versions := prepare(t, s, coll, key, tc.state)
			before, beforeErr := get(t, s, coll, key)

			var delErr error
			update(t, s, func(tx storage.Tx) error {
				delErr = tx.Delete(coll, key, tc.cond(versions))
				return nil
			})

			if tc.wantErr != nil {
				if !errors.Is(delErr, tc.wantErr) {
					t.Fatalf("Delete = %v; want error matching %v", delErr, tc.wantErr)
				}
				after, afterErr := get(t, s, coll, key)
				if diff := cmp.Diff(before, after, recordCmp); diff != "" || !errors.Is(afterErr, beforeErr) {
					t.Errorf("failed Delete changed the record (-before +after):\n%s\nerrors: %v, %v", diff, beforeErr, afterErr)
				}
				return
			}
			if delErr != nil {
				t.Fatalf("Delete: %v", delErr)
			}
			wantMissing(t, s, coll, key)
		})
	}
}

func testInvalidArguments(t *testing.T, s storage.Store) {
	put(t, s, "things", "k", "v")
	scanErr := func(tx storage.Tx, coll string, r storage.Range) error {
		_, err := collect(tx.Scan(coll, r))
		return err
	}
	tests := []struct {
		name   string
		update bool // run in Update (writes) rather than View
		op     func(tx storage.Tx) error
	}{
		{"Get/empty collection", false, func(tx storage.Tx) error { _, err := tx.Get("", "k"); return err }},
		{"Get/empty key", false, func(tx storage.Tx) error { _, err := tx.Get("things", ""); return err }},
		{"Put/empty collection", true, func(tx storage.Tx) error { _, err := tx.Put("", "k", []byte("v"), storage.AnyVersion); return err }},
		{"Put/empty key", true, func(tx storage.Tx) error { _, err := tx.Put("things", "", []byte("v"), storage.AnyVersion); return err }},
		{"Delete/empty collection", true, func(tx storage.Tx) error { return tx.Delete("", "k", storage.AnyVersion) }},
		{"Delete/empty key", true, func(tx storage.Tx) error { return tx.Delete("things", "", storage.AnyVersion) }},
		{"Scan/empty collection", false, func(tx storage.Tx) error { return scanErr(tx, "", storage.Range{}) }},
		{"Scan/negative limit", false, func(tx storage.Tx) error { return scanErr(tx, "things", storage.Range{Limit: -1}) }},
		{"Scan/negative limit on missing collection", false, func(tx storage.Tx) error { return scanErr(tx, "never-written", storage.Range{Limit: -1}) }},
		{"NextSequence/empty collection", true, func(tx storage.Tx) error { _, err := tx.NextSequence(""); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run := view
			if tc.update {
				run = update
			}
			var opErr error
			run(t, s, func(tx storage.Tx) error {
				opErr = tc.op(tx)
				return nil
			})
			if !errors.Is(opErr, deliverykit.ErrInvalidArgument) {
				t.Errorf("got %v; want an error matching deliverykit.ErrInvalidArgument", opErr)
			}
		})
	}
	// Nothing was written by the rejected operations.
	if got := scanKeys(t, s, "things", storage.Range{}); !slices.Equal(got, []string{"k"}) {
		t.Errorf("keys after invalid operations = %q; want [k]", got)
	}
}

func testVersionsIncrease(t *testing.T, s storage.Store) {
	var seen []uint64
	seen = append(seen, put(t, s, "c", "a", "1").Version)
	seen = append(seen, put(t, s, "c", "b", "1").Version)
	seen = append(seen, put(t, s, "c", "a", "2").Version)
	// Several writes in one Update, including to the same key twice.
	update(t, s, func(tx storage.Tx) error {
		for _, k := range []string{"c", "a", "a", "d"} {
			rec, err := tx.Put("c", k, []byte("x"), storage.AnyVersion)
			if err != nil {
				return err
			}
			seen = append(seen, rec.Version)
		}
		return nil
	})
	// Writing another collection does not disturb the order within "c".
	put(t, s, "other", "a", "1")
	seen = append(seen, put(t, s, "c", "b", "2").Version)
	for i, v := range seen {
		if v == 0 {
			t.Errorf("write %d got version 0", i)
		}
		if i > 0 && v <= seen[i-1] {
			t.Errorf("versions %v are not strictly increasing at write %d", seen, i)
		}
	}
	if got := mustGet(t, s, "c", "a").Version; got != seen[5] {
		t.Errorf("Get(a).Version = %d; want the version of the last Put of a, %d", got, seen[5])
	}
}

func testVersionsNotReusedAfterDelete(t *testing.T, s storage.Store) {
	v1 := put(t, s, "c", "k", "1").Version
	v2 := put(t, s, "c", "k", "2").Version
	del(t, s, "c", "k")
	v3 := put(t, s, "c", "k", "3").Version
	if v3 <= v2 || v2 <= v1 {
		t.Errorf("versions %d, %d, then after delete %d; want strictly increasing", v1, v2, v3)
	}
	// Emptying the collection entirely does not reset its counter.
	del(t, s, "c", "k")
	if got := scanKeys(t, s, "c", storage.Range{}); len(got) != 0 {
		t.Fatalf("collection not empty after deletes: %q", got)
	}
	for _, key := range []string{"k", "other"} {
		if v := put(t, s, "c", key, "4").Version; v <= v3 {
			t.Errorf("Put(%q) in emptied collection got version %d; want > %d", key, v, v3)
		}
	}
	// Delete and re-create in one Update.
	var before, after uint64
	update(t, s, func(tx storage.Tx) error {
		rec, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		before = rec.Version
		if err := tx.Delete("c", "k", storage.VersionIs(rec.Version)); err != nil {
			return err
		}
		rec, err = tx.Put("c", "k", []byte("5"), storage.MustNotExist())
		after = rec.Version
		return err
	})
	if after <= before {
		t.Errorf("re-created record got version %d; want > %d", after, before)
	}
}

func testValuesAreCopied(t *testing.T, s storage.Store) {
	const want = "hello"
	buf := []byte(want)
	rec := func() storage.Record {
		var rec storage.Record
		update(t, s, func(tx storage.Tx) error {
			var err error
			rec, err = tx.Put("c", "k", buf, storage.AnyVersion)
			if err != nil {
				return err
			}
			// The caller may reuse its buffer as soon as Put returns,
			// even inside the same transaction.
			copy(buf, "XXXXX")
			got, err := tx.Get("c", "k")
			if err != nil {
				return err
			}
			if string(got.Value) != want {
				t.Errorf("Get in the same Update after reusing the Put buffer = %q; want %q", got.Value, want)
			}
			got.Value[0] = 'Y'
			return nil
		})
		return rec
	}()
	check := func(what string) {
		t.Helper()
		if got := mustGet(t, s, "c", "k"); string(got.Value) != want {
			t.Errorf("after %s: stored value = %q; want %q", what, got.Value, want)
		}
	}
	check("reusing the buffer passed to Put")
	rec.Value[0] = 'Z'
	check("changing the value Put returned")
	got := mustGet(t, s, "c", "k")
	got.Value[0] = 'Z'
	check("changing the value Get returned")
	view(t, s, func(tx storage.Tx) error {
		for rec, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				return err
			}
			rec.Value[0] = 'Z'
		}
		return nil
	})
	check("changing a value Scan returned")

	// Values read earlier stay valid, and unchanged, after the record
	// is overwritten and the transaction is long over.
	old := mustGet(t, s, "c", "k")
	put(t, s, "c", "k", "world")
	if string(old.Value) != want {
		t.Errorf("value read before an overwrite changed to %q; want %q", old.Value, want)
	}
}

func testEmptyValue(t *testing.T, s storage.Store) {
	for _, tc := range []struct {
		name string
		val  []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec storage.Record
			update(t, s, func(tx storage.Tx) error {
				var err error
				rec, err = tx.Put("c", tc.name, tc.val, storage.MustNotExist())
				return err
			})
			got := mustGet(t, s, "c", tc.name)
			if len(got.Value) != 0 || got.Version != rec.Version || got.Version == 0 {
				t.Errorf("Get = %+v; want an empty value with version %d", got, rec.Version)
			}
		})
	}
}

func testKeyOrderIsByteWise(t *testing.T, s storage.Store) {
	// Inserted out of order; sorted by bytes, not by Unicode collation,
	// case or length.
	putAll(t, s, "c", "b", "\xff", "a\xff", "ab", "~", "a\x00", "a", "A", "0", "ba")
	want := []string{"0", "A", "a", "a\x00", "ab", "a\xff", "b", "ba", "~", "\xff"}
	if diff := cmp.Diff(want, scanKeys(t, s, "c", storage.Range{})); diff != "" {
		t.Errorf("forward scan (-want +got):\n%s", diff)
	}
	slices.Reverse(want)
	if diff := cmp.Diff(want, scanKeys(t, s, "c", storage.Range{Reverse: true})); diff != "" {
		t.Errorf("reverse scan (-want +got):\n%s", diff)
	}
}

func testUint64KeyOrder(t *testing.T, s storage.Store) {
	nums := []uint64{100, 2, 1<<64 - 1, 10, 0, 99, 1000, 1}
	keys := make([]string, len(nums))
	for i, n := range nums {
		keys[i] = storage.Uint64Key(n)
	}
	putAll(t, s, "c", keys...)
	var got []uint64
	for _, k := range scanKeys(t, s, "c", storage.Range{}) {
		n, err := storage.ParseUint64Key(k)
		if err != nil {
			t.Fatalf("ParseUint64Key(%q): %v", k, err)
		}
		got = append(got, n)
	}
	want := []uint64{0, 1, 2, 10, 99, 100, 1000, 1<<64 - 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("integer keys in scan order (-want +got):\n%s", diff)
	}
	// Paging by number works because key order is numeric order.
	page := scanKeys(t, s, "c", storage.Range{After: storage.Uint64Key(10), Limit: 2})
	if diff := cmp.Diff([]string{storage.Uint64Key(99), storage.Uint64Key(100)}, page); diff != "" {
		t.Errorf("page after 10 (-want +got):\n%s", diff)
	}
}

func testCompositeKeysPerTenant(t *testing.T, s storage.Store) {
	k := storage.Key
	putAll(t, s, "orders",
		k("site-10", "order-a"), k("site-1", "order-b"), k("site-2", "order-a"),
		k("site-1", "order-c"), k("site-10", "order-c"), k("site-1", "order-a"),
		"site-1", "site-1x", // not composite keys of tenant site-1
	)
	tests := []struct {
		name string
		r    storage.Range
		want []string
	}{
		{"tenant site-1", storage.Range{Prefix: storage.KeyPrefix("site-1")},
			[]string{k("site-1", "order-a"), k("site-1", "order-b"), k("site-1", "order-c")}},
		{"tenant site-10", storage.Range{Prefix: storage.KeyPrefix("site-10")},
			[]string{k("site-10", "order-a"), k("site-10", "order-c")}},
		{"tenant site-1 reversed", storage.Range{Prefix: storage.KeyPrefix("site-1"), Reverse: true},
			[]string{k("site-1", "order-c"), k("site-1", "order-b"), k("site-1", "order-a")}},
		{"tenant site-1 second page", storage.Range{Prefix: storage.KeyPrefix("site-1"), After: k("site-1", "order-a"), Limit: 5},
			[]string{k("site-1", "order-b"), k("site-1", "order-c")}},
		{"tenant site-1 reverse page", storage.Range{Prefix: storage.KeyPrefix("site-1"), After: k("site-1", "order-c"), Reverse: true, Limit: 1},
			[]string{k("site-1", "order-b")}},
		{"two-level prefix", storage.Range{Prefix: storage.KeyPrefix("site-10", "order-c")}, []string{}},
		{"exact composite key is its own prefix", storage.Range{Prefix: k("site-10", "order-c")},
			[]string{k("site-10", "order-c")}},
		{"tenants do not interleave", storage.Range{}, []string{
			"site-1",
			k("site-1", "order-a"), k("site-1", "order-b"), k("site-1", "order-c"),
			k("site-10", "order-a"), k("site-10", "order-c"),
			"site-1x",
			k("site-2", "order-a"),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, scanKeys(t, s, "orders", tc.r)); diff != "" {
				t.Errorf("Scan(%#v) (-want +got):\n%s", tc.r, diff)
			}
		})
	}
}

func testScanRanges(t *testing.T, s storage.Store) {
	all := []string{"a", "a1", "a2", "a3", "b1", "b2", "c1", "x\xff", "x\xff\xff", "y"}
	putAll(t, s, "ranges", all...)
	// A collection that had records and has none any more.
	putAll(t, s, "emptied", "k1", "k2")
	del(t, s, "emptied", "k1")
	del(t, s, "emptied", "k2")

	for _, tc := range scanRangeCases(all) {
		coll := tc.coll
		if coll == "" {
			coll = "ranges"
		}
		// Run every row in a read-only and in a read-write transaction:
		// backends may take different paths for the two.
		for _, mode := range []struct {
			name string
			run  func(context.Context, func(storage.Tx) error) error
		}{{"View", s.View}, {"Update", s.Update}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				var recs []storage.Record
				var scanErr error
				if err := mode.run(t.Context(), func(tx storage.Tx) error {
					recs, scanErr = collect(tx.Scan(coll, tc.r))
					return nil
				}); err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				if tc.wantErr != nil {
					if !errors.Is(scanErr, tc.wantErr) {
						t.Fatalf("Scan error = %v; want error matching %v", scanErr, tc.wantErr)
					}
					return
				}
				if scanErr != nil {
					t.Fatalf("Scan: %v", scanErr)
				}
				if diff := cmp.Diff(tc.want, keysOf(recs)); diff != "" {
					t.Errorf("Scan(%q, %#v) keys (-want +got):\n%s", coll, tc.r, diff)
				}
				for _, rec := range recs {
					if string(rec.Value) != "value of "+rec.Key || rec.Version == 0 {
						t.Errorf("Scan yielded %#v; want its value and a version", rec)
					}
				}
			})
		}
	}
}

// testScanVersions holds a transaction's ScanVersions, where it has one
// (storage.VersionScanner), to its Scan: the same records in the same
// order with the same versions and errors, and no values.
func testScanVersions(t *testing.T, s storage.Store) {
	var has bool
	if err := s.View(t.Context(), func(tx storage.Tx) error {
		_, has = tx.(storage.VersionScanner)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !has {
		t.Skip("the store's transactions have no ScanVersions")
	}
	all := []string{"a", "a1", "a2", "a3", "b1", "b2", "c1", "x\xff", "x\xff\xff", "y"}
	putAll(t, s, "ranges", all...)
	putAll(t, s, "ranges", "a2") // a version other than its neighbours'
	putAll(t, s, "emptied", "k1")
	del(t, s, "emptied", "k1")
	for _, tc := range scanRangeCases(all) {
		coll := tc.coll
		if coll == "" {
			coll = "ranges"
		}
		for _, mode := range []struct {
			name string
			run  func(context.Context, func(storage.Tx) error) error
		}{{"View", s.View}, {"Update", s.Update}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				var full, bare []storage.Record
				var fullErr, bareErr error
				if err := mode.run(t.Context(), func(tx storage.Tx) error {
					full, fullErr = collect(tx.Scan(coll, tc.r))
					bare, bareErr = collect(tx.(storage.VersionScanner).ScanVersions(coll, tc.r))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				if (fullErr == nil) != (bareErr == nil) || (tc.wantErr != nil && !errors.Is(bareErr, tc.wantErr)) {
					t.Fatalf("ScanVersions error = %v; Scan's = %v", bareErr, fullErr)
				}
				for i := range full {
					full[i].Value = nil
				}
				if diff := cmp.Diff(full, bare); diff != "" {
					t.Errorf("ScanVersions(%q, %#v) differs from Scan without values (-Scan +ScanVersions):\n%s", coll, tc.r, diff)
				}
			})
		}
	}
}

// scanRangeCase is a row of testScanRanges.
type scanRangeCase struct {
	name    string
	coll    string // "ranges" when empty
	r       storage.Range
	want    []string
	wantErr error
}

// scanRangeCases are the rows of testScanRanges over the keys all of the
// collection "ranges", the emptied collection "emptied" and a collection
// never written.
func scanRangeCases(all []string) []scanRangeCase {
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	type R = storage.Range
	return []scanRangeCase{
		{"all", "", R{}, all, nil},
		{"all reversed", "", R{Reverse: true}, reversed, nil},
		{"emptied collection", "emptied", R{}, []string{}, nil},
		{"emptied collection reversed with after", "emptied", R{Reverse: true, After: "k2"}, []string{}, nil},
		{"missing collection", "never-written", R{}, []string{}, nil},
		{"missing collection with every option", "never-written", R{Prefix: "a", After: "a1", Reverse: true, Limit: 1}, []string{}, nil},

		{"prefix", "", R{Prefix: "a"}, []string{"a", "a1", "a2", "a3"}, nil},
		{"prefix reversed", "", R{Prefix: "a", Reverse: true}, []string{"a3", "a2", "a1", "a"}, nil},
		{"prefix equal to a whole key", "", R{Prefix: "a2"}, []string{"a2"}, nil},
		{"prefix without match between keys", "", R{Prefix: "a0"}, []string{}, nil},
		{"prefix without match before first", "", R{Prefix: "0"}, []string{}, nil},
		{"prefix without match after last", "", R{Prefix: "z"}, []string{}, nil},
		{"prefix without match reversed", "", R{Prefix: "a0", Reverse: true}, []string{}, nil},
		{"prefix ending in 0xff", "", R{Prefix: "x\xff"}, []string{"x\xff", "x\xff\xff"}, nil},
		{"prefix ending in 0xff reversed", "", R{Prefix: "x\xff", Reverse: true}, []string{"x\xff\xff", "x\xff"}, nil},
		{"prefix of 0xff only reversed", "", R{Prefix: "\xff", Reverse: true}, []string{}, nil},
		{"prefix before 0xff keys reversed", "", R{Prefix: "x", Reverse: true}, []string{"x\xff\xff", "x\xff"}, nil},

		{"after before first", "", R{After: "0"}, all, nil},
		{"after last", "", R{After: "y"}, []string{}, nil},
		{"after beyond last", "", R{After: "z"}, []string{}, nil},
		{"after between keys", "", R{After: "a15"}, []string{"a2", "a3", "b1", "b2", "c1", "x\xff", "x\xff\xff", "y"}, nil},
		{"after existing key", "", R{After: "a2"}, []string{"a3", "b1", "b2", "c1", "x\xff", "x\xff\xff", "y"}, nil},
		{"after missing key", "", R{After: "b"}, []string{"b1", "b2", "c1", "x\xff", "x\xff\xff", "y"}, nil},
		{"after first key", "", R{After: "a", Limit: 2}, []string{"a1", "a2"}, nil},

		{"reverse after existing key", "", R{Reverse: true, After: "b1"}, []string{"a3", "a2", "a1", "a"}, nil},
		{"reverse after missing key", "", R{Reverse: true, After: "b"}, []string{"a3", "a2", "a1", "a"}, nil},
		{"reverse after first key", "", R{Reverse: true, After: "a"}, []string{}, nil},
		{"reverse after before first", "", R{Reverse: true, After: "0"}, []string{}, nil},
		{"reverse after last key", "", R{Reverse: true, After: "y"}, reversed[1:], nil},
		{"reverse after beyond last", "", R{Reverse: true, After: "z"}, reversed, nil},

		{"limit 0 means none", "", R{Limit: 0}, all, nil},
		{"limit 1", "", R{Limit: 1}, []string{"a"}, nil},
		{"limit exact", "", R{Limit: len(all)}, all, nil},
		{"limit over", "", R{Limit: 100}, all, nil},
		{"limit reversed", "", R{Limit: 2, Reverse: true}, []string{"y", "x\xff\xff"}, nil},
		{"negative limit", "", R{Limit: -1}, []string{}, deliverykit.ErrInvalidArgument},

		{"prefix and after inside it", "", R{Prefix: "a", After: "a1"}, []string{"a2", "a3"}, nil},
		{"prefix and after its last key", "", R{Prefix: "a", After: "a3"}, []string{}, nil},
		{"prefix and after before it", "", R{Prefix: "b", After: "a2"}, []string{"b1", "b2"}, nil},
		{"prefix and after beyond it", "", R{Prefix: "a", After: "b1"}, []string{}, nil},
		{"prefix, after, reverse", "", R{Prefix: "a", After: "a3", Reverse: true}, []string{"a2", "a1", "a"}, nil},
		{"prefix, after beyond it, reverse", "", R{Prefix: "b", After: "z", Reverse: true}, []string{"b2", "b1"}, nil},
		{"prefix, after before it, reverse", "", R{Prefix: "b", After: "a9", Reverse: true}, []string{}, nil},
		{"prefix, after, reverse, limit", "", R{Prefix: "a", After: "a3", Reverse: true, Limit: 2}, []string{"a2", "a1"}, nil},
		{"prefix, missing after, reverse, limit", "", R{Prefix: "a", After: "a25", Reverse: true, Limit: 1}, []string{"a2"}, nil},
		{"prefix, after, limit", "", R{Prefix: "a", After: "a", Limit: 2}, []string{"a1", "a2"}, nil},
	}
}

func testScanEarlyBreak(t *testing.T, s storage.Store) {
	putAll(t, s, "c", "k1", "k2", "k3", "k4", "k5")
	for _, tc := range []struct {
		name string
		r    storage.Range
		want []string
	}{
		{"forward", storage.Range{}, []string{"k1", "k2"}},
		{"reverse", storage.Range{Reverse: true}, []string{"k5", "k4"}},
		{"with after", storage.Range{After: "k2"}, []string{"k3", "k4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			update(t, s, func(tx storage.Tx) error {
				var got []string
				for rec, err := range tx.Scan("c", tc.r) {
					if err != nil {
						return err
					}
					got = append(got, rec.Key)
					if len(got) == 2 {
						break
					}
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("keys before break (-want +got):\n%s", diff)
				}
				// The transaction stays usable, including for writes to
				// the collection whose scan was abandoned.
				if _, err := tx.Put("c", "k6", []byte("value of k6"), storage.AnyVersion); err != nil {
					return fmt.Errorf("Put after break: %w", err)
				}
				return tx.Delete("c", "k6", storage.AnyVersion)
			})
		})
	}
}

func testKeysetPaging(t *testing.T, s storage.Store) {
	const n, pageSize = 250, 7
	var all []string
	for i := range n {
		all = append(all, storage.Uint64Key(uint64(i)))
	}
	// Insert in two interleaved halves so that page boundaries do not line
	// up with insertion batches.
	var even, odd []string
	for i, k := range all {
		if i%2 == 0 {
			even = append(even, k)
		} else {
			odd = append(odd, k)
		}
	}
	putAll(t, s, "c", odd...)
	putAll(t, s, "c", even...)
	for _, reverse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reverse=%v", reverse), func(t *testing.T) {
			var got []string
			after := ""
			for page := 0; ; page++ {
				if page > n {
					t.Fatalf("paging did not end after %d pages", page)
				}
				keys := scanKeys(t, s, "c", storage.Range{After: after, Reverse: reverse, Limit: pageSize})
				if len(keys) > pageSize {
					t.Fatalf("page %d has %d keys; limit is %d", page, len(keys), pageSize)
				}
				if len(keys) == 0 {
					break
				}
				got = append(got, keys...)
				after = keys[len(keys)-1]
			}
			want := slices.Clone(all)
			if reverse {
				slices.Reverse(want)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("concatenated pages (-want +got):\n%s", diff)
			}
		})
	}
}

func testUpdateSeesOwnWrites(t *testing.T, s storage.Store) {
	putAll(t, s, "c", "k1", "k2", "k3")
	var want []storage.Record
	update(t, s, func(tx storage.Tx) error {
		if _, err := tx.Put("c", "k4", []byte("four"), storage.MustNotExist()); err != nil {
			return err
		}
		k2, err := tx.Put("c", "k2", []byte("two, again"), storage.AnyVersion)
		if err != nil {
			return err
		}
		if err := tx.Delete("c", "k1", storage.AnyVersion); err != nil {
			return err
		}
		if _, err := tx.Put("new", "x", []byte("in a new collection"), storage.AnyVersion); err != nil {
			return err
		}

		if _, err := tx.Get("c", "k1"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get of a key deleted in this Update = %v; want ErrNotFound", err)
		}
		got, err := tx.Get("c", "k2")
		if err != nil {
			return err
		}
		if diff := cmp.Diff(k2, got, recordCmp); diff != "" {
			t.Errorf("Get of a key written in this Update (-want +got):\n%s", diff)
		}
		if _, err := tx.Get("new", "x"); err != nil {
			t.Errorf("Get in a collection created in this Update: %v", err)
		}

		recs, err := collect(tx.Scan("c", storage.Range{}))
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"k2", "k3", "k4"}, keysOf(recs)); diff != "" {
			t.Errorf("Scan in the Update (-want +got):\n%s", diff)
		}
		if len(recs) == 3 && string(recs[0].Value) != "two, again" {
			t.Errorf("Scan yielded k2 = %q; want the value written in this Update", recs[0].Value)
		}
		rev, err := collect(tx.Scan("c", storage.Range{Reverse: true, After: "k4"}))
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"k3", "k2"}, keysOf(rev)); diff != "" {
			t.Errorf("reverse Scan in the Update (-want +got):\n%s", diff)
		}
		want = recs
		return nil
	})
	var got []storage.Record
	view(t, s, func(tx storage.Tx) error {
		var err error
		got, err = collect(tx.Scan("c", storage.Range{}))
		return err
	})
	if diff := cmp.Diff(want, got, recordCmp); diff != "" {
		t.Errorf("committed state differs from what the Update saw (-update +view):\n%s", diff)
	}
}

func testRollbackOnError(t *testing.T, s storage.Store) {
	before := put(t, s, "c", "k", "committed")
	tests := []struct {
		name    string
		fail    func(tx storage.Tx) error // returns the error fn returns
		wantErr error
	}{
		{"plain error", func(storage.Tx) error { return errBoom }, errBoom},
		{"wrapped error", func(storage.Tx) error { return fmt.Errorf("step 3: %w", errBoom) }, errBoom},
		{"error from a failed condition", func(tx storage.Tx) error {
			_, err := tx.Put("c", "other", []byte("x"), storage.VersionIs(1<<62))
			return err
		}, storage.ErrConflict},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Update(t.Context(), func(tx storage.Tx) error {
				if _, err := tx.Put("c", "k", []byte("uncommitted"), storage.AnyVersion); err != nil {
					return err
				}
				if _, err := tx.Put("c", "other", []byte("uncommitted"), storage.AnyVersion); err != nil {
					return err
				}
				if _, err := tx.Put("rolled-back", "k", []byte("uncommitted"), storage.AnyVersion); err != nil {
					return err
				}
				if err := tx.Delete("c", "k", storage.AnyVersion); err != nil {
					return err
				}
				if _, err := tx.NextSequence("c"); err != nil {
					return err
				}
				return tc.fail(tx)
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Update = %v; want the error fn returned (%v)", err, tc.wantErr)
			}
			if diff := cmp.Diff(before, mustGet(t, s, "c", "k"), recordCmp); diff != "" {
				t.Errorf("record after rolled-back Update (-want +got):\n%s", diff)
			}
			wantMissing(t, s, "c", "other")
			wantMissing(t, s, "rolled-back", "k")
			if keys := scanKeys(t, s, "rolled-back", storage.Range{}); len(keys) != 0 {
				t.Errorf("collection of a rolled-back Update has keys %q", keys)
			}
		})
	}
	// The sequence advanced only inside rolled-back Updates.
	update(t, s, func(tx storage.Tx) error {
		n, err := tx.NextSequence("c")
		if n != 1 {
			t.Errorf("NextSequence after rolled-back Updates = %d; want 1", n)
		}
		return err
	})
}

func testFailedWriteDoesNotAbortUpdate(t *testing.T, s storage.Store) {
	put(t, s, "c", "taken", "x")
	// A failed condition is an ordinary error: fn may handle it and go on,
	// and what it wrote is committed when it returns nil.
	update(t, s, func(tx storage.Tx) error {
		if _, err := tx.Put("c", "before", []byte("1"), storage.AnyVersion); err != nil {
			return err
		}
		if _, err := tx.Put("c", "taken", []byte("y"), storage.MustNotExist()); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("Put on a taken key = %v; want ErrConflict", err)
		}
		if err := tx.Delete("c", "taken", storage.VersionIs(1<<62)); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("Delete with a wrong version = %v; want ErrConflict", err)
		}
		_, err := tx.Put("c", "after", []byte("2"), storage.AnyVersion)
		return err
	})
	if diff := cmp.Diff([]string{"after", "before", "taken"}, scanKeys(t, s, "c", storage.Range{})); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if got := mustGet(t, s, "c", "taken"); string(got.Value) != "x" {
		t.Errorf("taken = %q; want it unchanged", got.Value)
	}
}

// testFreshKey: FreshKey is MustNotExist in what commits and in what Put
// reports in the run of the function that commits; earlier runs, which a
// backend may make when it checks the key at commit, leave nothing.
func testFreshKey(t *testing.T, s storage.Store) {
	put(t, s, "c", "taken", "x")
	outcome := func(err error) string {
		switch {
		case err == nil:
			return "ok"
		case errors.Is(err, storage.ErrConflict):
			return "conflict"
		}
		return err.Error()
	}
	var last []string // what the last run of fn saw
	runs := 0
	update(t, s, func(tx storage.Tx) error {
		runs++
		var saw []string
		defer func() { last = saw }()
		if _, err := tx.Put("c", "before", []byte("1"), storage.AnyVersion); err != nil {
			return err
		}
		_, err := tx.Put("c", "taken", []byte("y"), storage.FreshKey())
		saw = append(saw, outcome(err))
		if err != nil && !errors.Is(err, storage.ErrConflict) {
			return err
		}
		// The function handles the conflict and goes on.
		_, err = tx.Put("c", "free", []byte("z"), storage.FreshKey())
		saw = append(saw, outcome(err))
		return err
	})
	if diff := cmp.Diff([]string{"conflict", "ok"}, last); diff != "" {
		t.Errorf("Put outcomes in the run that committed (-want +got):\n%s", diff)
	}
	if runs > 2 {
		t.Errorf("the function ran %d times; a taken fresh key may cost one more run, not more", runs)
	}
	if diff := cmp.Diff([]string{"before", "free", "taken"}, scanKeys(t, s, "c", storage.Range{})); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if got := mustGet(t, s, "c", "taken"); string(got.Value) != "x" {
		t.Errorf("taken = %q; want it unchanged", got.Value)
	}
	// Within one transaction, the second FreshKey Put of a key is a
	// conflict, and Delete refuses the condition as it refuses
	// MustNotExist.
	last = nil
	update(t, s, func(tx storage.Tx) error {
		var saw []string
		defer func() { last = saw }()
		for _, v := range []string{"1", "2"} {
			_, err := tx.Put("c", "twice", []byte(v), storage.FreshKey())
			saw = append(saw, outcome(err))
		}
		if err := tx.Delete("c", "twice", storage.FreshKey()); !errors.Is(err, deliverykit.ErrInvalidArgument) {
			t.Errorf("Delete with FreshKey = %v; want InvalidArgument", err)
		}
		return nil
	})
	if diff := cmp.Diff([]string{"ok", "conflict"}, last); diff != "" {
		t.Errorf("two FreshKey Puts of one key (-want +got):\n%s", diff)
	}
	if got := mustGet(t, s, "c", "twice"); string(got.Value) != "1" {
		t.Errorf("twice = %q; want the first value", got.Value)
	}
}

func testRollbackOnPanic(t *testing.T, s storage.Store) {
	before := put(t, s, "c", "k", "committed")
	recovered := func() (r any) {
		defer func() { r = recover() }()
		_ = s.Update(t.Context(), func(tx storage.Tx) error {
			if _, err := tx.Put("c", "k", []byte("uncommitted"), storage.AnyVersion); err != nil {
				return err
			}
			panic(errBoom)
		})
		return nil
	}()
	if recovered != errBoom {
		t.Fatalf("recovered %v; want the panic of fn to propagate", recovered)
	}
	if diff := cmp.Diff(before, mustGet(t, s, "c", "k"), recordCmp); diff != "" {
		t.Errorf("record after panicking Update (-want +got):\n%s", diff)
	}
	// The store is still usable: the panic released the writer.
	put(t, s, "c", "k", "later")
	if got := mustGet(t, s, "c", "k"); string(got.Value) != "later" {
		t.Errorf("value after a later Update = %q; want later", got.Value)
	}
}

func testWritesInViewAreReadOnly(t *testing.T, s storage.Store) {
	before := put(t, s, "c", "k", "v")
	tests := []struct {
		name string
		op   func(tx storage.Tx) error
	}{
		{"Put", func(tx storage.Tx) error { _, err := tx.Put("c", "k", []byte("x"), storage.AnyVersion); return err }},
		{"Put new key", func(tx storage.Tx) error {
			_, err := tx.Put("c", "new", []byte("x"), storage.MustNotExist())
			return err
		}},
		{"Put new collection", func(tx storage.Tx) error { _, err := tx.Put("new", "k", []byte("x"), storage.AnyVersion); return err }},
		{"Delete", func(tx storage.Tx) error { return tx.Delete("c", "k", storage.AnyVersion) }},
		{"Delete missing", func(tx storage.Tx) error { return tx.Delete("c", "missing", storage.AnyVersion) }},
		{"NextSequence", func(tx storage.Tx) error { _, err := tx.NextSequence("c"); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var opErr error
			view(t, s, func(tx storage.Tx) error {
				opErr = tc.op(tx)
				return nil
			})
			if !errors.Is(opErr, storage.ErrReadOnly) {
				t.Errorf("got %v; want ErrReadOnly", opErr)
			}
		})
	}
	if diff := cmp.Diff(before, mustGet(t, s, "c", "k"), recordCmp); diff != "" {
		t.Errorf("record after writes in Views (-want +got):\n%s", diff)
	}
	wantMissing(t, s, "c", "new")
	wantMissing(t, s, "new", "k")
	update(t, s, func(tx storage.Tx) error {
		if n, err := tx.NextSequence("c"); n != 1 || err != nil {
			t.Errorf("NextSequence after read-only attempts = %d, %v; want 1", n, err)
		}
		return nil
	})
}

// NextSequence is transactional: a rolled-back Update gives its numbers
// back. (bbolt's bucket sequences behave so, and every backend matches.)
func testNextSequence(t *testing.T, s storage.Store) {
	next := func(coll string) uint64 {
		t.Helper()
		var n uint64
		update(t, s, func(tx storage.Tx) error {
			var err error
			n, err = tx.NextSequence(coll)
			return err
		})
		return n
	}
	var got []uint64
	update(t, s, func(tx storage.Tx) error {
		for range 2 {
			n, err := tx.NextSequence("a")
			if err != nil {
				return err
			}
			got = append(got, n)
		}
		return nil
	})
	got = append(got, next("a"))
	if diff := cmp.Diff([]uint64{1, 2, 3}, got); diff != "" {
		t.Errorf("sequence of a (-want +got):\n%s", diff)
	}
	if n := next("b"); n != 1 {
		t.Errorf("first NextSequence of b = %d; want 1: sequences are per collection", n)
	}
	// Records do not advance the sequence, and the sequence does not
	// disturb record versions.
	v1 := put(t, s, "a", "k", "1").Version
	if n := next("a"); n != 4 {
		t.Errorf("NextSequence of a after a Put = %d; want 4", n)
	}
	if v2 := put(t, s, "a", "k", "2").Version; v2 <= v1 {
		t.Errorf("versions %d then %d; want increasing", v1, v2)
	}
	// Rolled back with the transaction.
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		if n, err := tx.NextSequence("a"); n != 5 || err != nil {
			t.Errorf("NextSequence in the failing Update = %d, %v; want 5", n, err)
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update = %v; want errBoom", err)
	}
	if n := next("a"); n != 5 {
		t.Errorf("NextSequence after a rolled-back Update = %d; want 5", n)
	}
	// A sequence exists without records; the collection reads as empty.
	if keys := scanKeys(t, s, "b", storage.Range{}); len(keys) != 0 {
		t.Errorf("collection b has keys %q; NextSequence must not create records", keys)
	}
}

func testContextDoneBeforeTransaction(t *testing.T, s storage.Store) {
	put(t, s, "c", "k", "v")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	expired, cancel2 := context.WithDeadline(t.Context(), deadlineInThePast)
	defer cancel2()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		wantErr error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"deadline exceeded", expired, context.DeadlineExceeded},
	} {
		for _, mode := range []struct {
			name string
			run  func(context.Context, func(storage.Tx) error) error
		}{{"View", s.View}, {"Update", s.Update}} {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				ran := false
				err := mode.run(tc.ctx, func(tx storage.Tx) error {
					ran = true
					_, err := tx.Put("c", "k", []byte("x"), storage.AnyVersion)
					return err
				})
				if !errors.Is(err, tc.wantErr) {
					t.Errorf("%s = %v; want %v", mode.name, err, tc.wantErr)
				}
				if ran {
					t.Errorf("%s ran fn with a done context", mode.name)
				}
			})
		}
	}
	if got := mustGet(t, s, "c", "k"); string(got.Value) != "v" {
		t.Errorf("value = %q; want it unchanged", got.Value)
	}
}

func testContextCancelledDuringUpdate(t *testing.T, s storage.Store) {
	before := put(t, s, "c", "k", "committed")
	for _, tc := range []struct {
		name       string
		ignoreErrs bool // fn returns nil whatever its Tx said
	}{
		{"fn returns the context error", false},
		{"fn ignores the context error", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			err := s.Update(ctx, func(tx storage.Tx) error {
				if _, err := tx.Put("c", "k", []byte("uncommitted"), storage.AnyVersion); err != nil {
					return err
				}
				cancel()
				ops := map[string]error{}
				_, ops["Put"] = tx.Put("c", "k2", []byte("x"), storage.AnyVersion)
				_, ops["Get"] = tx.Get("c", "k")
				ops["Delete"] = tx.Delete("c", "k", storage.AnyVersion)
				_, ops["NextSequence"] = tx.NextSequence("c")
				_, ops["Scan"] = collect(tx.Scan("c", storage.Range{}))
				for name, err := range ops {
					if !errors.Is(err, context.Canceled) {
						t.Errorf("%s after cancel = %v; want context.Canceled", name, err)
					}
				}
				if tc.ignoreErrs {
					return nil
				}
				return ops["Put"]
			})
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Update = %v; want context.Canceled", err)
			}
			if diff := cmp.Diff(before, mustGet(t, s, "c", "k"), recordCmp); diff != "" {
				t.Errorf("record after a cancelled Update (-want +got):\n%s", diff)
			}
		})
	}
}

func testContextCancelledDuringView(t *testing.T, s storage.Store) {
	putAll(t, s, "c", "k1", "k2", "k3")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	err := s.View(ctx, func(tx storage.Tx) error {
		var keys []string
		for rec, err := range tx.Scan("c", storage.Range{}) {
			if err != nil {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("Scan error = %v; want context.Canceled", err)
				}
				break
			}
			keys = append(keys, rec.Key)
			cancel() // the scan stops at the next record
		}
		if diff := cmp.Diff([]string{"k1"}, keys); diff != "" {
			t.Errorf("keys scanned before cancel (-want +got):\n%s", diff)
		}
		if _, err := tx.Get("c", "k1"); !errors.Is(err, context.Canceled) {
			t.Errorf("Get after cancel = %v; want context.Canceled", err)
		}
		return nil
	})
	if err != nil {
		t.Errorf("View = %v; want the nil fn returned", err)
	}
}

func testViewIsolatedFromLaterCommit(t *testing.T, s storage.Store) {
	old := put(t, s, "c", "k", "old")
	putAll(t, s, "c", "k2")

	firstRead := make(chan struct{})
	committed := make(chan error)
	go func() {
		<-firstRead
		committed <- s.Update(context.Background(), func(tx storage.Tx) error {
			if _, err := tx.Put("c", "k", []byte("new"), storage.VersionIs(old.Version)); err != nil {
				return err
			}
			if _, err := tx.Put("c", "k3", []byte("new"), storage.MustNotExist()); err != nil {
				return err
			}
			return tx.Delete("c", "k2", storage.AnyVersion)
		})
	}()

	view(t, s, func(tx storage.Tx) error {
		first, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		close(firstRead)
		if err := <-committed; err != nil {
			t.Fatalf("concurrent Update: %v", err)
		}
		second, err := tx.Get("c", "k")
		if err != nil {
			return err
		}
		if diff := cmp.Diff(first, second, recordCmp); diff != "" {
			t.Errorf("View saw a commit made after it started (-first +second):\n%s", diff)
		}
		recs, err := collect(tx.Scan("c", storage.Range{}))
		if err != nil {
			return err
		}
		if diff := cmp.Diff([]string{"k", "k2"}, keysOf(recs)); diff != "" {
			t.Errorf("Scan in the View saw a later commit (-want +got):\n%s", diff)
		}
		return nil
	})
	if got := mustGet(t, s, "c", "k"); string(got.Value) != "new" {
		t.Errorf("after the View: value = %q; want the committed new", got.Value)
	}
}

func testViewDoesNotSeeUncommittedWrites(t *testing.T, s storage.Store) {
	put(t, s, "c", "k", "old")
	written := make(chan struct{})
	viewed := make(chan struct{})
	updated := make(chan error)
	go func() {
		updated <- s.Update(context.Background(), func(tx storage.Tx) error {
			if _, err := tx.Put("c", "k", []byte("new"), storage.AnyVersion); err != nil {
				return err
			}
			close(written)
			<-viewed
			return nil
		})
	}()
	<-written
	// A View runs while the Update is open and sees the committed state.
	got, err := get(t, s, "c", "k")
	close(viewed)
	if err := <-updated; err != nil {
		t.Fatalf("Update: %v", err)
	}
	if err != nil || string(got.Value) != "old" {
		t.Errorf("View during an open Update = %q, %v; want old", got.Value, err)
	}
	if got := mustGet(t, s, "c", "k"); string(got.Value) != "new" {
		t.Errorf("after commit: %q; want new", got.Value)
	}
}

// testViewsConsistentUnderConcurrentUpdates moves amounts between accounts
// in two collections while readers check that the total never changes: a
// View that saw part of an Update would see a wrong total.
func testViewsConsistentUnderConcurrentUpdates(t *testing.T, s storage.Store) {
	const (
		writers, transfers = 4, 25
		readers            = 4
		perAccount         = 100
	)
	colls := []string{"accounts-a", "accounts-b"}
	accounts := []string{"1", "2", "3"}
	total := 0
	update(t, s, func(tx storage.Tx) error {
		for _, c := range colls {
			for _, a := range accounts {
				if _, err := tx.Put(c, a, []byte(strconv.Itoa(perAccount)), storage.AnyVersion); err != nil {
					return err
				}
				total += perAccount
			}
		}
		return nil
	})
	sum := func(tx storage.Tx) (int, error) { return sumAccounts(tx, colls) }
	add := addToAccount

	done := make(chan struct{})
	var wg, readersWG sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range transfers {
				from, to := colls[(w+i)%2], colls[(w+i+1)%2]
				acctFrom, acctTo := accounts[i%3], accounts[(i+w)%3]
				transfer := func(tx storage.Tx) error {
					if err := add(tx, from, acctFrom, -(i + 1)); err != nil {
						return err
					}
					return add(tx, to, acctTo, i+1)
				}
				if err := updateRetryingConflicts(s, transfer); err != nil {
					t.Errorf("transfer: %v", err)
					return
				}
			}
		})
	}
	for range readers {
		readersWG.Go(func() {
			for {
				if err := s.View(context.Background(), func(tx storage.Tx) error {
					n, err := sum(tx)
					if err == nil && n != total {
						t.Errorf("a View saw total %d; want %d", n, total)
					}
					return err
				}); err != nil {
					t.Errorf("View: %v", err)
					return
				}
				select {
				case <-done:
					return
				default:
				}
			}
		})
	}
	wg.Wait()
	close(done)
	readersWG.Wait()
	view(t, s, func(tx storage.Tx) error {
		n, err := sum(tx)
		if n != total {
			t.Errorf("final total %d; want %d", n, total)
		}
		return err
	})
}

// updateRetryingConflicts runs fn in an Update, again when the store gave
// up with ErrConflict. A store that serializes by retrying (PostgreSQL) may
// give up on a hot row, as its contract allows; the caller then repeats
// the transaction. The tests that use this check what readers see, not
// how often writers win.
func updateRetryingConflicts(s storage.Store, fn func(storage.Tx) error) error {
	err := s.Update(context.Background(), fn)
	for tries := 1; errors.Is(err, storage.ErrConflict) && tries < 20; tries++ {
		err = s.Update(context.Background(), fn)
	}
	return err
}

// sumAccounts adds up the balances of every account in colls.
func sumAccounts(tx storage.Tx, colls []string) (int, error) {
	n := 0
	for _, c := range colls {
		for rec, err := range tx.Scan(c, storage.Range{}) {
			if err != nil {
				return 0, err
			}
			v, err := strconv.Atoi(string(rec.Value))
			if err != nil {
				return 0, err
			}
			n += v
		}
	}
	return n, nil
}

// addToAccount adds delta to the balance of acct in coll with a
// compare-and-set on the version it read.
func addToAccount(tx storage.Tx, coll, acct string, delta int) error {
	rec, err := tx.Get(coll, acct)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(string(rec.Value))
	if err != nil {
		return err
	}
	_, err = tx.Put(coll, acct, []byte(strconv.Itoa(v+delta)), storage.VersionIs(rec.Version))
	return err
}

// testConcurrentCompareAndSet has goroutines increment one counter with
// read-then-compare-and-set, the pattern the package doc recommends (slow
// work outside the transaction, only the CAS inside). Conflicts are
// expected; lost updates are not.
func testConcurrentCompareAndSet(t *testing.T, s storage.Store) {
	const (
		goroutines  = 32
		increments  = 20
		maxAttempts = 10000 // per increment; only a livelock reaches it
	)
	put(t, s, "c", "counter", "0")
	var successes, conflicts atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			ctx := context.Background()
			for range increments {
				ok := false
				for range maxAttempts {
					var rec storage.Record
					if err := s.View(ctx, func(tx storage.Tx) error {
						var err error
						rec, err = tx.Get("c", "counter")
						return err
					}); err != nil {
						t.Errorf("read: %v", err)
						return
					}
					n, err := strconv.Atoi(string(rec.Value))
					if err != nil {
						t.Errorf("counter value %q: %v", rec.Value, err)
						return
					}
					err = s.Update(ctx, func(tx storage.Tx) error {
						_, err := tx.Put("c", "counter", []byte(strconv.Itoa(n+1)), storage.VersionIs(rec.Version))
						return err
					})
					if errors.Is(err, storage.ErrConflict) {
						conflicts.Add(1)
						continue
					}
					if err != nil {
						t.Errorf("compare-and-set: %v", err)
						return
					}
					successes.Add(1)
					ok = true
					break
				}
				if !ok {
					t.Errorf("gave up after %d conflicts in a row", maxAttempts)
					return
				}
			}
		})
	}
	wg.Wait()
	got, err := strconv.Atoi(string(mustGet(t, s, "c", "counter").Value))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d successful compare-and-sets, %d conflicts", successes.Load(), conflicts.Load())
	if int64(got) != successes.Load() || got != goroutines*increments {
		t.Errorf("counter = %d, successful writes = %d; want both %d", got, successes.Load(), goroutines*increments)
	}
}

func testTxUsedAfterReturn(t *testing.T, s storage.Store) {
	put(t, s, "c", "k", "v")
	for _, mode := range []struct {
		name string
		run  func(context.Context, func(storage.Tx) error) error
	}{{"View", s.View}, {"Update", s.Update}} {
		t.Run(mode.name, func(t *testing.T) {
			var leaked storage.Tx
			var laterScan iter.Seq2[storage.Record, error]
			if err := mode.run(t.Context(), func(tx storage.Tx) error {
				leaked = tx
				laterScan = tx.Scan("c", storage.Range{})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			ops := map[string]error{}
			_, ops["Get"] = leaked.Get("c", "k")
			_, ops["Put"] = leaked.Put("c", "k", []byte("leaked"), storage.AnyVersion)
			_, ops["Put new"] = leaked.Put("c", "new", []byte("leaked"), storage.AnyVersion)
			ops["Delete"] = leaked.Delete("c", "k", storage.AnyVersion)
			_, ops["NextSequence"] = leaked.NextSequence("c")
			_, ops["Scan"] = collect(leaked.Scan("c", storage.Range{}))
			_, ops["Scan made inside fn"] = collect(laterScan)
			for name, err := range ops {
				if err == nil {
					t.Errorf("%s on a Tx whose function returned succeeded; want an error", name)
				}
			}
			if got := mustGet(t, s, "c", "k"); string(got.Value) != "v" {
				t.Errorf("value = %q; want v", got.Value)
			}
			wantMissing(t, s, "c", "new")
		})
	}
}

func testClose(t *testing.T, s storage.Store) {
	put(t, s, "c", "k", "v")
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for _, mode := range []struct {
		name string
		run  func(context.Context, func(storage.Tx) error) error
	}{{"View", s.View}, {"Update", s.Update}} {
		ran := false
		err := mode.run(t.Context(), func(storage.Tx) error { ran = true; return nil })
		if !errors.Is(err, storage.ErrClosed) {
			t.Errorf("%s after Close = %v; want ErrClosed", mode.name, err)
		}
		if ran {
			t.Errorf("%s ran fn after Close", mode.name)
		}
	}
	if err := s.Close(); err != nil && !errors.Is(err, storage.ErrClosed) {
		t.Errorf("second Close = %v; want nil or ErrClosed", err)
	}
}

type order struct {
	ID    string   `json:"id"`
	Items []string `json:"items"`
	Total int      `json:"total"`
}

func testCollection(t *testing.T, s storage.Store) {
	orders := storage.Collection[order]{Name: "orders"}
	o1 := order{ID: "o1", Items: []string{"book"}, Total: 12}
	o2 := order{ID: "o2", Items: []string{"pen", "ink"}, Total: 3}
	var v1 uint64
	update(t, s, func(tx storage.Tx) error {
		var err error
		if v1, err = orders.Put(tx, "o1", o1, storage.MustNotExist()); err != nil {
			return err
		}
		_, err = orders.Put(tx, "o2", o2, storage.MustNotExist())
		return err
	})
	view(t, s, func(tx storage.Tx) error {
		got, err := orders.Get(tx, "o1")
		if err != nil {
			return err
		}
		if diff := cmp.Diff(storage.Item[order]{Key: "o1", Value: o1, Version: v1}, got); diff != "" {
			t.Errorf("Get (-want +got):\n%s", diff)
		}
		var items []order
		for it, err := range orders.Scan(tx, storage.Range{Reverse: true}) {
			if err != nil {
				return err
			}
			items = append(items, it.Value)
		}
		if diff := cmp.Diff([]order{o2, o1}, items); diff != "" {
			t.Errorf("Scan (-want +got):\n%s", diff)
		}
		return nil
	})
	o1.Total = 15
	update(t, s, func(tx storage.Tx) error {
		v2, err := orders.Put(tx, "o1", o1, storage.VersionIs(v1))
		if err != nil {
			return err
		}
		if v2 <= v1 {
			t.Errorf("version after update %d; want > %d", v2, v1)
		}
		if _, err := orders.Put(tx, "o1", o1, storage.VersionIs(v1)); !errors.Is(err, storage.ErrConflict) {
			t.Errorf("Put with a stale version = %v; want ErrConflict", err)
		}
		if n, err := orders.NextSequence(tx); n != 1 || err != nil {
			t.Errorf("NextSequence = %d, %v; want 1", n, err)
		}
		if err := orders.Delete(tx, "o2", storage.AnyVersion); err != nil {
			return err
		}
		if _, err := orders.Get(tx, "o2"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get after Delete = %v; want ErrNotFound", err)
		}
		return nil
	})
	view(t, s, func(tx storage.Tx) error {
		got, err := orders.Get(tx, "o1")
		if err != nil {
			return err
		}
		if diff := cmp.Diff(o1, got.Value); diff != "" {
			t.Errorf("Get after update (-want +got):\n%s", diff)
		}
		return nil
	})
}

// deadlineInThePast makes a context that is done from the start.
var deadlineInThePast = time.Unix(0, 0)

var reopenSuite = []struct {
	name string
	// fn gets open, which opens the store at the subtest's path; every
	// call opens it anew.
	fn func(t *testing.T, open func(t *testing.T) storage.Store)
}{
	{"DataSurvivesReopen", testDataSurvivesReopen},
	{"VersionsContinueAfterReopen", testVersionsContinueAfterReopen},
	{"SequencesContinueAfterReopen", testSequencesContinueAfterReopen},
	{"RolledBackUpdateNotPersisted", testRolledBackUpdateNotPersisted},
}

// dump returns every record of the given collections.
func dump(t *testing.T, s storage.Store, colls ...string) map[string][]storage.Record {
	t.Helper()
	out := map[string][]storage.Record{}
	view(t, s, func(tx storage.Tx) error {
		for _, c := range colls {
			recs, err := collect(tx.Scan(c, storage.Range{}))
			if err != nil {
				return err
			}
			out[c] = recs
		}
		return nil
	})
	return out
}

// closeStore closes s, failing the test on error.
func closeStore(t *testing.T, s storage.Store) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

func testDataSurvivesReopen(t *testing.T, open func(t *testing.T) storage.Store) {
	s := open(t)
	putAll(t, s, "a", "k1", "k2", "k3")
	putAll(t, s, "b", storage.Key("site-1", "x"), storage.Key("site-10", "y"))
	put(t, s, "a", "k2", "changed")
	del(t, s, "a", "k3")
	put(t, s, "c", "empty-value", "")
	want := dump(t, s, "a", "b", "c")
	closeStore(t, s)

	s = open(t)
	if diff := cmp.Diff(want, dump(t, s, "a", "b", "c"), recordCmp); diff != "" {
		t.Errorf("records after reopen (-before +after):\n%s", diff)
	}
	wantMissing(t, s, "a", "k3")
	closeStore(t, s)

	// A store opened twice in a row without writes is unchanged too.
	s = open(t)
	if diff := cmp.Diff(want, dump(t, s, "a", "b", "c"), recordCmp); diff != "" {
		t.Errorf("records after second reopen (-before +after):\n%s", diff)
	}
}

func testVersionsContinueAfterReopen(t *testing.T, open func(t *testing.T) storage.Store) {
	s := open(t)
	put(t, s, "c", "kept", "1")
	put(t, s, "c", "deleted", "1")
	last := put(t, s, "c", "deleted", "2").Version
	del(t, s, "c", "deleted")
	closeStore(t, s)

	s = open(t)
	for _, key := range []string{"kept", "deleted", "new"} {
		if v := put(t, s, "c", key, "after reopen").Version; v <= last {
			t.Errorf("Put(%q) after reopen got version %d; want > %d", key, v, last)
		} else {
			last = v
		}
	}
}

func testSequencesContinueAfterReopen(t *testing.T, open func(t *testing.T) storage.Store) {
	next := func(s storage.Store, coll string) uint64 {
		t.Helper()
		var n uint64
		update(t, s, func(tx storage.Tx) error {
			var err error
			n, err = tx.NextSequence(coll)
			return err
		})
		return n
	}
	s := open(t)
	next(s, "a")
	next(s, "a")
	next(s, "b")
	closeStore(t, s)

	s = open(t)
	got := []uint64{next(s, "a"), next(s, "b"), next(s, "new")}
	if diff := cmp.Diff([]uint64{3, 2, 1}, got); diff != "" {
		t.Errorf("sequences after reopen (-want +got):\n%s", diff)
	}
}

func testRolledBackUpdateNotPersisted(t *testing.T, open func(t *testing.T) storage.Store) {
	s := open(t)
	before := put(t, s, "c", "k", "committed")
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		if _, err := tx.Put("c", "k", []byte("rolled back"), storage.AnyVersion); err != nil {
			return err
		}
		if _, err := tx.NextSequence("c"); err != nil {
			return err
		}
		return errBoom
	})
	if !errors.Is(err, errBoom) {
		t.Fatalf("Update = %v; want errBoom", err)
	}
	closeStore(t, s)

	s = open(t)
	if diff := cmp.Diff(before, mustGet(t, s, "c", "k"), recordCmp); diff != "" {
		t.Errorf("record after reopen (-want +got):\n%s", diff)
	}
	update(t, s, func(tx storage.Tx) error {
		if n, err := tx.NextSequence("c"); n != 1 || err != nil {
			t.Errorf("NextSequence = %d, %v; want 1", n, err)
		}
		return nil
	})
}
