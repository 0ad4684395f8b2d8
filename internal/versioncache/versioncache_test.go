package versioncache

import (
	"fmt"
	"sync"
	"testing"
)

// TestBudget: the entries stay within their bytes and their count, an
// entry over an eighth of the bytes is not kept, and an older version
// never replaces a newer one.
func TestBudget(t *testing.T) {
	tests := []struct {
		name       string
		budget     int64
		maxEntries int
		size       int64
	}{
		{"bytes", 100_000, 0, 1000},
		{"entries", 100_000, 30, 10},
		{"both", 10_000, 50, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Cache[string, int]{Budget: tt.budget, MaxEntries: tt.maxEntries}
			for i := range 500 {
				c.Put(fmt.Sprint(i), uint64(i+1), tt.size, i)
				used, n := c.Bytes()
				if used > tt.budget || tt.maxEntries > 0 && n > tt.maxEntries {
					t.Fatalf("after %d puts: %d bytes in %d entries", i+1, used, n)
				}
			}
			c.Put("k", 7, 10, 70)
			c.Put("k", 6, 10, 60)
			if v, version, ok := c.Get("k"); !ok || version != 7 || v != 70 {
				t.Errorf("k holds %d of version %d (%v); want 70 of version 7", v, version, ok)
			}
			c.Put("big", 1, tt.budget/8+1, 1)
			if _, _, ok := c.Get("big"); ok {
				t.Error("an entry over an eighth of the budget was kept")
			}
		})
	}
}

// TestZero: the zero Cache keeps nothing.
func TestZero(t *testing.T) {
	var c Cache[string, int]
	c.Put("k", 1, 0, 1)
	if _, _, ok := c.Get("k"); ok {
		t.Error("the zero Cache kept an entry")
	}
}

// TestConcurrent: lookups without the lock and puts under it keep the
// accounting exact, and a key never answers another's value (-race).
func TestConcurrent(t *testing.T) {
	c := Cache[string, int]{Budget: 50_000, MaxEntries: 300}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 4000 {
				k := fmt.Sprint(g%2, "/", i%700)
				if v, _, ok := c.Get(k); ok && v != i%700 {
					t.Errorf("%s holds %d", k, v)
					return
				}
				c.Put(k, uint64(i), int64(100+i%700), i%700)
			}
		})
	}
	wg.Wait()
	n := 0
	for range c.All() {
		n++
	}
	used, got := c.Bytes()
	if got != n || used > c.Budget || n > c.MaxEntries {
		t.Errorf("accounted %d bytes in %d entries; %d entries held (budget %d, %d)", used, got, n, c.Budget, c.MaxEntries)
	}
}
