package options

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBoundedCacheBudget fills a cache far past its budget: the bytes it
// accounts for never exceed the budget, and when it starts again the old
// entries are gone and new ones are kept.
func TestBoundedCacheBudget(t *testing.T) {
	const budget = 10 * (8 + cacheEntryOverhead) // ten keys of 8 bytes
	c := newBoundedCache[int](budget)
	for i := range 1000 {
		c.put(fmt.Sprintf("key%05d", i), i)
		if got := c.bytes(); got > budget {
			t.Fatalf("after %d puts the cache accounts for %d bytes, budget %d", i+1, got, budget)
		}
	}
	// 1000 = 100 generations of 10: the last generation holds 990…999.
	var got []int
	for i := range 1000 {
		if v, ok := c.get(fmt.Sprintf("key%05d", i)); ok {
			got = append(got, v)
		}
	}
	if diff := cmp.Diff([]int{990, 991, 992, 993, 994, 995, 996, 997, 998, 999}, got); diff != "" {
		t.Errorf("cached after the flood (-want +got):\n%s", diff)
	}
	// Storing a key again costs nothing more.
	before := c.bytes()
	c.put("key00999", 999)
	if after := c.bytes(); after != before {
		t.Errorf("a repeated put changed the size from %d to %d", before, after)
	}
}

// TestBoundedCacheConcurrent puts and gets from many goroutines (run with
// -race): the budget holds and every value read is the one stored.
func TestBoundedCacheConcurrent(t *testing.T) {
	const budget = 50 * (10 + cacheEntryOverhead)
	c := newBoundedCache[string](budget)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprintf("g%d-%06d", g, i%300)
				c.put(k, k)
				if v, ok := c.get(k); ok && v != k {
					t.Errorf("get(%q) = %q", k, v)
				}
			}
		})
	}
	wg.Wait()
	// A racing put may add one entry's cost past the swap per goroutine.
	if got := c.bytes(); got > budget+8*(10+cacheEntryOverhead) {
		t.Errorf("cache accounts for %d bytes, budget %d", got, budget)
	}
}

// TestChooseForBounds: lists longer than MaxCachedPreferences and locales
// too long to cache are answered as before, just not remembered.
func TestChooseForBounds(t *testing.T) {
	long := "sv-SE-x-" + strings.Repeat("abcdefgh-", 4) + "abc" // valid, 47 bytes
	tests := []struct {
		name    string
		locales []string
		want    string
		cached  bool
	}{
		{"short list", []string{"fr-FR", "de-AT"}, "de-DE", true},
		{"eight", []string{"fr-FR", "fr-BE", "it-IT", "es-ES", "pt-PT", "nl-NL", "pl-PL", "sv-SE"}, "sv-SE", true},
		// The supported locale is the ninth preference: still found.
		{"nine", []string{"fr-FR", "fr-BE", "it-IT", "es-ES", "pt-PT", "nl-NL", "pl-PL", "da-DK", "sv-SE"}, "sv-SE", false},
		// One long locale fits the list's bound (but not the bound of
		// the cache of single locales, below); eight do not.
		{"long locale", []string{long}, "sv-SE", true},
		{"eight long locales", []string{long, long, long, long, long, long, long, long}, "sv-SE", false},
		{"nothing supported", []string{"fr-FR"}, "en-US", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLocalizer([]string{"en-US", "sv-SE", "de-DE"})
			got, err := l.chooseFor("locales", tt.locales)
			if err != nil {
				t.Fatal(err)
			}
			_, cached := l.chosen.get(strings.Join(tt.locales, "\x00"))
			if diff := cmp.Diff([]any{tt.want, tt.cached}, []any{got, cached}); diff != "" {
				t.Errorf("locale, cached (-want +got):\n%s", diff)
			}
		})
	}
	if _, ok := validLocales.get(long); ok {
		t.Errorf("a %d-byte locale was cached", len(long))
	}
}
