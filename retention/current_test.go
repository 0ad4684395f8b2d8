package retention_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestCurrent: a sweep deletes a record only while it still has the
// entry the sweep found it by; a record gone is no error, a failed read
// is.
func TestCurrent(t *testing.T) {
	type note struct {
		Class string    `json:"class"`
		At    time.Time `json:"at"`
	}
	notes := storage.Collection[note]{Name: "notes"}
	entry := func(n note) retention.Entry { return retention.Entry{Class: n.Class, At: n.At} }
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	store := memory.New()
	err := store.Update(t.Context(), func(tx storage.Tx) error {
		_, err := notes.Put(tx, "n1", note{Class: "written", At: at}, storage.MustNotExist())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		key    string
		e      retention.Entry
		want   bool
		wantAt time.Time
	}{
		{"the entry it has", "n1", retention.Entry{Class: "written", At: at}, true, at},
		{"re-keyed since", "n1", retention.Entry{Class: "written", At: at.Add(-time.Hour)}, false, at},
		{"another class", "n1", retention.Entry{Class: "read", At: at}, false, at},
		{"gone", "n2", retention.Entry{Class: "written", At: at}, false, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := store.View(t.Context(), func(tx storage.Tx) error {
				it, ok, err := retention.Current(tx, notes, tt.key, tt.e, entry)
				if err != nil {
					return err
				}
				if ok != tt.want {
					t.Errorf("Current ok = %v, want %v", ok, tt.want)
				}
				if diff := cmp.Diff(tt.wantAt, it.Value.At); diff != "" {
					t.Errorf("Current's record (-want +got):\n%s", diff)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
	// A record that cannot be read is the read's error, not a record gone.
	err = store.Update(t.Context(), func(tx storage.Tx) error {
		_, err := tx.Put(notes.Name, "bad", []byte(`"not a note"`), storage.MustNotExist())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.View(t.Context(), func(tx storage.Tx) error {
		_, ok, err := retention.Current(tx, notes, "bad", retention.Entry{Class: "written", At: at}, entry)
		if ok || err == nil || errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Current of an unreadable record = %v, %v; want an error other than not found", ok, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
