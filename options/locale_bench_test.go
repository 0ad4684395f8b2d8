package options

import (
	"fmt"
	"runtime"
	"testing"
)

// localePool returns n distinct valid locales (language-COUNTRY).
func localePool(n int) []string {
	langs := []string{"en", "sv", "de", "fr", "es", "it", "nl", "da", "fi", "pl"}
	regions := []string{"US", "GB", "SE", "DE", "FR", "ES", "IT", "NL", "DK", "FI", "PL", "NO", "AT", "CH", "BE", "IE", "PT", "CZ", "SK", "HU"}
	out := make([]string, 0, n)
	for i := 0; len(out) < n; i++ {
		out = append(out, langs[i%len(langs)]+"-"+regions[(i/len(langs))%len(regions)])
	}
	return out
}

// distinctList returns the i-th of many distinct valid preference lists of
// length n (n ≥ 2).
func distinctList(pool []string, i, n int) []string {
	l := make([]string, n)
	l[0], l[1] = pool[i%len(pool)], pool[(i/len(pool))%len(pool)]
	for k := 2; k < n; k++ {
		l[k] = pool[(k*7)%len(pool)]
	}
	return l
}

// BenchmarkChooseLocale measures picking the display locale of a request:
// a list seen before (one locale and three), and a list never seen before
// (every iteration a new one, as a flood of made-up lists would send).
func BenchmarkChooseLocale(b *testing.B) {
	pool := localePool(200)
	for _, c := range []struct {
		name string
		list func(i int) []string
	}{
		{"seen/1", func(int) []string { return []string{"sv-SE"} }},
		{"seen/3", func(int) []string { return []string{"fr-FR", "de-AT", "sv-SE"} }},
		{"new/3", func(i int) []string { return distinctList(pool, i, 3) }},
		{"new/20", func(i int) []string { return distinctList(pool, i, 20) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := newLocalizer([]string{"en-US", "sv-SE", "de-DE"})
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := l.chooseFor("locales", c.list(i)); err != nil {
					b.Fatal(err)
				}
				i = (i + 1) % 40_000
			}
		})
	}
}

// BenchmarkLocaleCacheFlood sends distinct lists of valid locales to one
// engine's locale chooser (n lists of length len) and reports the heap the
// chooser keeps afterwards (retained-B) and what its cache accounts for
// (accounted-B): what a flood of made-up preference lists costs in memory.
// n=1000 stays within the budget, so retained-B/accounted-B checks the
// per-entry estimate; the others pass it.
func BenchmarkLocaleCacheFlood(b *testing.B) {
	pool := localePool(200)
	for _, c := range []struct{ n, len int }{{1_000, 3}, {8_000, 3}, {8_000, 8}, {8_000, 64}, {8_000, 512}} {
		b.Run(fmt.Sprintf("n=%d/len=%d", c.n, c.len), func(b *testing.B) {
			var retained, accounted float64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				l := newLocalizer([]string{"en-US", "sv-SE", "de-DE"})
				for i := range c.n {
					if _, err := l.chooseFor("locales", distinctList(pool, i, c.len)); err != nil {
						b.Fatal(err)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				retained = float64(int64(after.HeapAlloc) - int64(before.HeapAlloc))
				accounted = float64(l.chosen.bytes())
				runtime.KeepAlive(l)
			}
			b.ReportMetric(retained, "retained-B")
			b.ReportMetric(accounted, "accounted-B")
		})
	}
}
