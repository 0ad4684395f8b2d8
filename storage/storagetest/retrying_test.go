package storagetest_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/storagetest"
)

// TestRetrying: each Update runs twice and only the second run's writes
// (and sequence numbers) are kept; a failing function runs once.
func TestRetrying(t *testing.T) {
	coll := storage.Collection[uint64]{Name: "t.seqs"}
	errBoom := errors.New("boom")
	tests := []struct {
		name     string
		fail     bool
		wantRuns int
		wantErr  error
		want     map[string]uint64
	}{
		{name: "commits the second run", wantRuns: 2, want: map[string]uint64{"k": 1}},
		{name: "a failure is not retried", fail: true, wantRuns: 1, wantErr: errBoom, want: map[string]uint64{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			store := storagetest.Retrying(memory.New())
			runs := 0
			err := store.Update(t.Context(), func(tx storage.Tx) error {
				runs++
				if tc.fail {
					return errBoom
				}
				seq, err := coll.NextSequence(tx)
				if err != nil {
					return err
				}
				_, err = coll.Put(tx, "k", seq, storage.MustNotExist())
				return err
			})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Update = %v, want %v", err, tc.wantErr)
			}
			got := map[string]uint64{}
			err = store.View(t.Context(), func(tx storage.Tx) error {
				for it, err := range coll.Scan(tx, storage.Range{}) {
					if err != nil {
						return err
					}
					got[it.Key] = it.Value
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if runs != tc.wantRuns {
				t.Errorf("runs = %d, want %d", runs, tc.wantRuns)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("stored (-want +got):\n%s", diff)
			}
		})
	}
}
