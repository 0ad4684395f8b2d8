package stored_test

import (
	"errors"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/stored"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// value is what the service works with; rec is how it is stored, with a
// schema: schema 1 kept the count as a string.
type value struct{ Count int }

type rec struct {
	Schema int    `json:"schema"`
	Count  int    `json:"count,omitempty"`
	Old    string `json:"old_count,omitempty"`
}

var coll = stored.Collection[value, rec]{
	Name:   "test.values",
	Record: func(v *value) rec { return rec{Schema: 2, Count: v.Count} },
	Value: func(r *rec) (value, error) {
		if err := stored.CheckSchema("test", r.Schema, 2); err != nil {
			return value{}, err
		}
		if r.Schema < 2 {
			n, err := strconv.Atoi(r.Old)
			if err != nil {
				return value{}, err
			}
			r.Count, r.Old, r.Schema = n, "", 2
		}
		return value{Count: r.Count}, nil
	},
}

func TestCollection(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	ctx := t.Context()
	err := store.Update(ctx, func(tx storage.Tx) error {
		if _, err := coll.Put(tx, "a", value{Count: 7}, storage.MustNotExist()); err != nil {
			return err
		}
		if _, err := tx.Put(coll.Name, "b", []byte(`{"old_count":"5"}`), storage.MustNotExist()); err != nil {
			return err
		}
		_, err := tx.Put(coll.Name, "c", []byte(`{"schema":3,"count":1}`), storage.MustNotExist())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.View(ctx, func(tx storage.Tx) error {
		raw, err := tx.Get(coll.Name, "a")
		if err != nil {
			return err
		}
		if got, want := string(raw.Value), `{"schema":2,"count":7}`; got != want {
			t.Errorf("stored %s, want %s", got, want)
		}
		for _, tc := range []struct {
			key     string
			want    value
			wantErr bool
		}{
			{"a", value{7}, false},
			{"b", value{5}, false}, // schema 1, upgraded
			{"c", value{}, true},   // a later schema
		} {
			it, err := coll.Get(tx, tc.key)
			if (err != nil) != tc.wantErr || it.Value != tc.want {
				t.Errorf("Get(%q) = %+v, %v; want %+v, error %v", tc.key, it.Value, err, tc.want, tc.wantErr)
			}
			if tc.wantErr && deliverykit.KindOf(err) != deliverykit.KindInternal {
				t.Errorf("Get(%q): %v, want an internal error", tc.key, err)
			}
			raw, _ := tx.Get(coll.Name, tc.key)
			if d, err := coll.Decode(raw); (err != nil) != tc.wantErr || d.Value != tc.want || err == nil && d.Version != raw.Version {
				t.Errorf("Decode(%q) = %+v, %v", tc.key, d, err)
			}
		}
		var got []value
		for it, err := range coll.Scan(tx, storage.Range{Limit: 2}) {
			if err != nil {
				return err
			}
			got = append(got, it.Value)
		}
		if diff := cmp.Diff([]value{{7}, {5}}, got); diff != "" {
			t.Errorf("Scan (-want +got):\n%s", diff)
		}
		if _, err := coll.Get(tx, "missing"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get of a missing key: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSliceAndPtrKeepNil(t *testing.T) {
	double := func(n int) int { return 2 * n }
	if got := stored.Slice[int, int](nil, double); got != nil {
		t.Errorf("Slice(nil) = %#v, want nil", got)
	}
	if got := stored.Slice([]int{}, double); got == nil || len(got) != 0 {
		t.Errorf("Slice([]) = %#v, want empty", got)
	}
	if diff := cmp.Diff([]int{2, 4}, stored.Slice([]int{1, 2}, double)); diff != "" {
		t.Errorf("Slice (-want +got):\n%s", diff)
	}
	if got := stored.Ptr[int, int](nil, double); got != nil {
		t.Errorf("Ptr(nil) = %v, want nil", got)
	}
	n := 3
	if got := stored.Ptr(&n, double); got == nil || *got != 6 {
		t.Errorf("Ptr(3) = %v, want 6", got)
	}
}

// TestPutFromStoresWhatPutStores: PutFrom writes the bytes Put writes for
// the same value, and leaves the value as it was.
func TestPutFromStoresWhatPutStores(t *testing.T) {
	store := memory.New()
	t.Cleanup(func() { store.Close() })
	for _, v := range []value{{}, {Count: 7}, {Count: -1}} {
		from := v
		var viaPut, viaPutFrom []byte
		err := store.Update(t.Context(), func(tx storage.Tx) error {
			if _, err := coll.Put(tx, "put", v, storage.AnyVersion); err != nil {
				return err
			}
			if _, err := coll.PutFrom(tx, "from", &from, storage.AnyVersion); err != nil {
				return err
			}
			a, err := tx.Get(coll.Name, "put")
			if err != nil {
				return err
			}
			b, err := tx.Get(coll.Name, "from")
			viaPut, viaPutFrom = a.Value, b.Value
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if string(viaPut) != string(viaPutFrom) {
			t.Errorf("%+v: PutFrom stored %s, Put %s", v, viaPutFrom, viaPut)
		}
		if from != v {
			t.Errorf("PutFrom changed the value: %+v, was %+v", from, v)
		}
	}
}
