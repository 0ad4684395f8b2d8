package options

import (
	"context"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/google/go-cmp/cmp"
)

// fakeLeadTimes answers the keys it holds and counts the questions.
type fakeLeadTimes struct {
	known map[LeadTimeKey]LeadTime
	asked int
}

func (f *fakeLeadTimes) For(site, product, origin string) ProductLeadTimes {
	return fakeProduct{f, LeadTimeKey{Site: site, Product: product, Origin: origin}}
}

type fakeProduct struct {
	f   *fakeLeadTimes
	key LeadTimeKey
}

// LeadTime falls back as ProductLeadTimes must: zone, country, product.
func (p fakeProduct) LeadTime(country, prefix string, low, high float64, minSamples, halfLifeDays int, now time.Time) (LeadTime, bool) {
	f, key := p.f, p.key
	key.Country, key.Zone = country, country+":"+prefix
	f.asked++
	for range 3 {
		if lt, ok := f.known[key]; ok && lt.Samples >= minSamples {
			return lt, true
		}
		if key.Zone != "" {
			key.Zone = ""
		} else {
			key.Country = ""
		}
	}
	return LeadTime{}, false
}

func day(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, stockholm) }

// TestLearnedPromise: a learned product's window is its hand-over plus the
// learned lead times, from the narrowest key with enough samples; blend
// spans both windows; a configured product never asks.
func TestLearnedPromise(t *testing.T) {
	// np-home: handed over Thursday 15:00, configured Friday to Monday.
	// 41 business hours later is Monday 08:00, 73 Tuesday 16:00.
	lead := LeadTime{Low: 41, High: 73, Samples: 40}
	zone := LeadTimeKey{Site: "s1", Product: "np-home", Origin: "sto", Country: "SE", Zone: "SE:11"}
	country := LeadTimeKey{Site: "s1", Product: "np-home", Origin: "sto", Country: "SE"}
	product := LeadTimeKey{Site: "s1", Product: "np-home", Origin: "sto"}
	type want struct {
		Earliest, Latest time.Time
		Days             [2]int
		Source           string
		Samples          int
	}
	learned := want{day(23), day(25).Add(-time.Second), [2]int{2, 3}, SourceLearned, 40}
	configured := want{day(20), day(24).Add(-time.Second), [2]int{1, 2}, "", 0}
	tests := []struct {
		name  string
		mode  catalog.PromiseMode
		known map[LeadTimeKey]LeadTime
		want  want
	}{
		{"configured", catalog.PromiseConfigured, map[LeadTimeKey]LeadTime{zone: lead}, configured},
		{"learned by zone", catalog.PromiseLearned, map[LeadTimeKey]LeadTime{zone: lead}, learned},
		{"learned by country", catalog.PromiseLearned, map[LeadTimeKey]LeadTime{country: lead}, learned},
		{"learned by product", catalog.PromiseLearned, map[LeadTimeKey]LeadTime{product: lead}, learned},
		{"zone too few, country enough", catalog.PromiseLearned,
			map[LeadTimeKey]LeadTime{zone: {Low: 1, High: 2, Samples: 29}, country: lead}, learned},
		{"too few anywhere", catalog.PromiseLearned, map[LeadTimeKey]LeadTime{product: {Low: 41, High: 73, Samples: 29}},
			want{day(20), day(24).Add(-time.Second), [2]int{1, 2}, SourceConfigured, 0}},
		{"blend", catalog.PromiseBlend, map[LeadTimeKey]LeadTime{zone: lead},
			want{day(20), day(25).Add(-time.Second), [2]int{1, 3}, SourceBlend, 40}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cat := testCatalog()
			cat.Carriers[0].Products[0].Promise = tt.mode
			lt := &fakeLeadTimes{known: tt.known}
			e, err := New(cat, Options{Clock: deliverykit.NewManualClock(thursday), LeadTimes: lt, Site: "s1"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := e.Compute(context.Background(), Request{Currency: "SEK", Locales: []string{"en-US"},
				Address: catalog.Address{Country: "SE", PostalCode: "111 57"}, Categories: []string{"home"}})
			if err != nil {
				t.Fatal(err)
			}
			_, o, ok := res.Option("home/np-home")
			if !ok {
				t.Fatal("no home/np-home option")
			}
			got := want{o.ETD.Earliest, o.ETD.Latest, [2]int{o.ETD.EarliestDays, o.ETD.LatestDays}, o.PromiseSource, o.PromiseSamples}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("estimate (-want +got):\n%s", diff)
			}
			if tt.mode == catalog.PromiseConfigured && lt.asked != 0 {
				t.Errorf("a configured product asked for lead times %d times", lt.asked)
			}
		})
	}
}

// TestLearnedAskedOncePerComputation: a learned product's options at
// every pickup location share one answer.
func TestLearnedAskedOncePerComputation(t *testing.T) {
	cat := testCatalog()
	cat.Promise = catalog.PromiseLearned
	lt := &fakeLeadTimes{}
	e, err := New(cat, Options{Clock: deliverykit.NewManualClock(thursday), LeadTimes: lt, Site: "s1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Compute(context.Background(), Request{Currency: "SEK", Locales: []string{"en-US"},
		Address: catalog.Address{Country: "SE", PostalCode: "111 57"}, Categories: []string{"pickup"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Categories[0].Options); n != 3 {
		t.Fatalf("%d pickup options, want 3", n)
	}
	// One product, asked once for all three locations.
	if lt.asked != 1 {
		t.Errorf("asked %d times, want 1", lt.asked)
	}
}

// TestBusinessHours: lead times count the hours of business days only,
// and adding them back lands on the day they ended on.
func TestBusinessHours(t *testing.T) {
	e := newEngine(t, thursday)
	cal := e.cals["sto"]
	at := func(d, h int) time.Time { return time.Date(2026, 11, d, h, 0, 0, 0, stockholm) }
	tests := []struct {
		name     string
		from, to time.Time
		want     float64
	}{
		{"same day", at(19, 15), at(19, 20), 5},
		{"over a weekend", at(20, 15), at(23, 9), 9 + 9},
		{"a week", at(23, 12), at(27, 12), 12 + 24*3 + 12},
		// Wednesday 23 December to Wednesday 30: Christmas Eve, Christmas
		// Day, Boxing Day (a Saturday) and Sunday do not count.
		{"holidays skipped", time.Date(2026, 12, 23, 12, 0, 0, 0, stockholm), time.Date(2026, 12, 30, 12, 0, 0, 0, stockholm), 12 + 24 + 24 + 12},
		{"backwards", at(20, 15), at(19, 15), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := e.BusinessHours("sto", tt.from, tt.to)
			if got != tt.want {
				t.Errorf("BusinessHours = %v, want %v", got, tt.want)
			}
			if tt.want > 0 {
				from := tt.from.In(stockholm)
				hour := float64(from.Hour()) + float64(from.Minute())/60
				if back := cal.afterBusinessHours(cal.day(from), hour, got); back != cal.day(tt.to) {
					t.Errorf("afterBusinessHours(%v) = %v, want %v", got, back, cal.day(tt.to))
				}
			}
		})
	}
}
