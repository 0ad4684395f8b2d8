package storage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

func TestKey(t *testing.T) {
	tests := []struct {
		parts      []string
		key        string
		prefix     string
		prefixOfIt bool // KeyPrefix(parts...) is a prefix of Key(parts..., "x")
	}{
		{[]string{"site-1"}, "site-1", "site-1\x00", true},
		{[]string{"site-1", "order-7"}, "site-1\x00order-7", "site-1\x00order-7\x00", true},
		{[]string{"a", "", "b"}, "a\x00\x00b", "a\x00\x00b\x00", true},
		{[]string{""}, "", "\x00", true},
		{nil, "", "\x00", false},
	}
	for _, tc := range tests {
		if got := storage.Key(tc.parts...); got != tc.key {
			t.Errorf("Key(%q) = %q; want %q", tc.parts, got, tc.key)
		}
		if got := storage.KeyPrefix(tc.parts...); got != tc.prefix {
			t.Errorf("KeyPrefix(%q) = %q; want %q", tc.parts, got, tc.prefix)
		}
		child := storage.Key(append(slices.Clone(tc.parts), "x")...)
		if strings.HasPrefix(child, storage.KeyPrefix(tc.parts...)) != tc.prefixOfIt {
			t.Errorf("KeyPrefix(%q) prefixes %q: %v, want %v", tc.parts, child, !tc.prefixOfIt, tc.prefixOfIt)
		}
	}
}

func TestKeyTenantsDoNotInterleave(t *testing.T) {
	// With KeySep sorting below every printable byte, all keys of site-1
	// sort before every key of site-10, whatever their second part.
	keys := []string{
		storage.Key("site-10", "a"),
		storage.Key("site-1", "zzz"),
		storage.Key("site-2", "a"),
		storage.Key("site-1", "a"),
		storage.Key("site-1", "~"),
	}
	slices.Sort(keys)
	want := []string{
		storage.Key("site-1", "a"),
		storage.Key("site-1", "zzz"),
		storage.Key("site-1", "~"),
		storage.Key("site-10", "a"),
		storage.Key("site-2", "a"),
	}
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("sorted keys (-want +got):\n%s", diff)
	}
}

func TestUint64Key(t *testing.T) {
	nums := []uint64{0, 1, 2, 9, 10, 99, 100, 1000, 1 << 32, 1<<64 - 1}
	for i, n := range nums {
		k := storage.Uint64Key(n)
		if len(k) != 20 {
			t.Errorf("Uint64Key(%d) = %q has length %d; want 20", n, k, len(k))
		}
		got, err := storage.ParseUint64Key(k)
		if err != nil || got != n {
			t.Errorf("ParseUint64Key(Uint64Key(%d)) = %d, %v", n, got, err)
		}
		if i > 0 && storage.Uint64Key(nums[i-1]) >= k {
			t.Errorf("Uint64Key(%d) does not sort before Uint64Key(%d)", nums[i-1], n)
		}
	}
	if got := storage.Uint64Key(42); got != "00000000000000000042" {
		t.Errorf("Uint64Key(42) = %q", got)
	}
	for _, bad := range []string{"", "abc", "-1", "18446744073709551616"} {
		if _, err := storage.ParseUint64Key(bad); err == nil {
			t.Errorf("ParseUint64Key(%q) succeeded; want an error", bad)
		}
	}
}

func TestConditionCheck(t *testing.T) {
	tests := []struct {
		name    string
		cond    storage.Condition
		exists  bool
		current uint64
		wantErr bool
	}{
		{"any/missing", storage.AnyVersion, false, 0, false},
		{"any/existing", storage.AnyVersion, true, 3, false},
		{"must-not-exist/missing", storage.MustNotExist(), false, 0, false},
		{"must-not-exist/existing", storage.MustNotExist(), true, 3, true},
		{"fresh key/missing", storage.FreshKey(), false, 0, false},
		{"fresh key/existing", storage.FreshKey(), true, 3, true},
		{"version/match", storage.VersionIs(3), true, 3, false},
		{"version/mismatch", storage.VersionIs(2), true, 3, true},
		{"version/missing", storage.VersionIs(3), false, 0, true},
		{"version 0/missing", storage.VersionIs(0), false, 0, true},
	}
	for _, tc := range tests {
		err := tc.cond.Check(tc.exists, tc.current)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: Check = %v; want error: %v", tc.name, err, tc.wantErr)
		}
		if err != nil && (!errors.Is(err, storage.ErrConflict) || !errors.Is(err, deliverykit.ErrConflict)) {
			t.Errorf("%s: Check = %v; want storage.ErrConflict and deliverykit.ErrConflict", tc.name, err)
		}
	}
}

func TestConditionString(t *testing.T) {
	for _, tc := range []struct {
		cond storage.Condition
		want string
	}{
		{storage.AnyVersion, "any"},
		{storage.Condition{}, "any"},
		{storage.MustNotExist(), "must-not-exist"},
		{storage.VersionIs(17), "version=17"},
		{storage.FreshKey(), "must-not-exist (fresh key)"},
	} {
		if got := tc.cond.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
	if !storage.MustNotExist().IsMustNotExist() || storage.AnyVersion.IsMustNotExist() || storage.VersionIs(1).IsMustNotExist() {
		t.Error("IsMustNotExist is true only for MustNotExist()")
	}
	// FreshKey is checked as MustNotExist by a backend that does not
	// tell them apart.
	if !storage.FreshKey().IsMustNotExist() || !storage.FreshKey().IsFreshKey() || storage.MustNotExist().IsFreshKey() || storage.AnyVersion.IsFreshKey() {
		t.Error("FreshKey is a MustNotExist, and IsFreshKey is true only for it")
	}
}

func TestConditionRequiredVersion(t *testing.T) {
	type result struct {
		V  uint64
		OK bool
	}
	for _, tc := range []struct {
		cond storage.Condition
		want result
	}{
		{storage.AnyVersion, result{}},
		{storage.MustNotExist(), result{}},
		{storage.VersionIs(17), result{17, true}},
		{storage.VersionIs(0), result{0, true}},
	} {
		var got result
		got.V, got.OK = tc.cond.RequiredVersion()
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: RequiredVersion (-want +got):\n%s", tc.cond, diff)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := storage.ValidateName("key", "k"); err != nil {
		t.Errorf("ValidateName(key, k) = %v", err)
	}
	err := storage.ValidateName("key", "")
	if !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("ValidateName(key, \"\") = %v; want InvalidArgument", err)
	}
	if v := deliverykit.ViolationsOf(err); len(v) != 1 || v[0].Field != "key" {
		t.Errorf("violations %+v; want one for field key", v)
	}
	for _, limit := range []int{0, 1, 100} {
		if err := storage.ValidateRange(storage.Range{Limit: limit}); err != nil {
			t.Errorf("ValidateRange(limit %d) = %v", limit, err)
		}
	}
	if err := storage.ValidateRange(storage.Range{Limit: -1}); !errors.Is(err, deliverykit.ErrInvalidArgument) {
		t.Errorf("ValidateRange(limit -1) = %v; want InvalidArgument", err)
	}
}

func TestErrorsMatchKinds(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind error
	}{
		{storage.ErrNotFound, deliverykit.ErrNotFound},
		{storage.ErrConflict, deliverykit.ErrConflict},
		{storage.ErrReadOnly, deliverykit.ErrInternal},
		{storage.ErrClosed, deliverykit.ErrInternal},
	} {
		if !errors.Is(tc.err, tc.kind) {
			t.Errorf("%v does not match %v", tc.err, tc.kind)
		}
	}
}

type doc struct {
	Name string `json:"name"`
}

func TestCollectionDecodeError(t *testing.T) {
	s := memory.New()
	defer s.Close()
	docs := storage.Collection[doc]{Name: "docs"}
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		if _, err := docs.Put(tx, "good", doc{Name: "a"}, storage.AnyVersion); err != nil {
			return err
		}
		_, err := tx.Put("docs", "not-json", []byte("{"), storage.AnyVersion)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(t.Context(), func(tx storage.Tx) error {
		if _, err := docs.Get(tx, "not-json"); err == nil || errors.Is(err, storage.ErrNotFound) ||
			!strings.Contains(err.Error(), `docs/"not-json"`) {
			t.Errorf("Get of invalid JSON = %v; want a decode error naming the record", err)
		}
		var got []string
		var scanErr error
		for it, err := range docs.Scan(tx, storage.Range{}) {
			if err != nil {
				scanErr = err
				break
			}
			got = append(got, it.Key)
		}
		if diff := cmp.Diff([]string{"good"}, got); diff != "" || scanErr == nil {
			t.Errorf("Scan yielded %q then %v; want [good] then a decode error", got, scanErr)
		}
		// An error from the underlying Scan is passed through.
		for _, err := range docs.Scan(tx, storage.Range{Limit: -1}) {
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Errorf("Scan with a negative limit = %v; want InvalidArgument", err)
			}
		}
		_, err := docs.Get(tx, "missing")
		if !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get of a missing record = %v; want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCollectionEncodeError(t *testing.T) {
	s := memory.New()
	defer s.Close()
	funcs := storage.Collection[func()]{Name: "funcs"}
	err := s.Update(t.Context(), func(tx storage.Tx) error {
		_, err := funcs.Put(tx, "f", func() {}, storage.AnyVersion)
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "encode") {
		t.Errorf("Put of an unencodable value = %v; want an encode error", err)
	}
}

// TestCollectionDeleteIf: DeleteIf removes a record only when match says
// it is the one, and a missing record is no error.
func TestCollectionDeleteIf(t *testing.T) {
	c := storage.Collection[string]{Name: "entries"}
	tests := []struct {
		name   string
		stored string // "" for none
		owner  string
		left   bool
	}{
		{"ours", "session-1", "session-1", false},
		{"another's", "session-2", "session-1", true},
		{"missing", "", "session-1", false},
	}
	for _, tt := range tests {
		s := memory.New()
		err := s.Update(t.Context(), func(tx storage.Tx) error {
			if tt.stored != "" {
				if _, err := c.Put(tx, "k", tt.stored, storage.AnyVersion); err != nil {
					return err
				}
			}
			return c.DeleteIf(tx, "k", func(v string) bool { return v == tt.owner })
		})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var left bool
		if err := s.View(t.Context(), func(tx storage.Tx) error {
			_, err := c.Get(tx, "k")
			left = err == nil
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if left != tt.left {
			t.Errorf("%s: record left %v, want %v", tt.name, left, tt.left)
		}
	}
}

// TestKeyPrefixAllocatesOnce: a prefix costs its own string only; hot
// reads make one per call.
func TestKeyPrefixAllocatesOnce(t *testing.T) {
	site, number := "site-1", "TN-123"
	var sink string
	if n := testing.AllocsPerRun(100, func() { sink = storage.KeyPrefix(site, number) }); n != 1 {
		t.Errorf("KeyPrefix allocated %v times, want 1", n)
	}
	if sink != "site-1\x00TN-123\x00" {
		t.Errorf("KeyPrefix = %q", sink)
	}
}
