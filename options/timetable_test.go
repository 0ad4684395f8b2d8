package options_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
)

// A timetable's days are the business days of the warehouse's calendar
// from the first transit day on, and its estimate is the one an option of
// the product shows for the same goods.
func TestTimetable(t *testing.T) {
	site, _ := config.Demo().Site("demo-site")
	engine, err := options.New(site.Catalog, options.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sto, _ := time.LoadLocation("Europe/Stockholm")
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, sto) }
	type want struct {
		Handover   time.Time
		Days       []time.Time
		OnTime     int
		TransitMin int
	}
	tests := []struct {
		name     string
		ref, loc string
		ready    time.Time
		late     int
		want     want
	}{
		{"before the cut-off on a Thursday", "north-parcel-home", "", time.Date(2026, 11, 19, 10, 0, 0, 0, sto), 2, want{
			Handover: time.Date(2026, 11, 19, 15, 0, 0, 0, sto),
			Days:     []time.Time{day(2026, 11, 20), day(2026, 11, 23), day(2026, 11, 24), day(2026, 11, 25)},
			OnTime:   2, TransitMin: 1,
		}},
		{"after the cut-off on a Friday: collected on Monday", "north-parcel-home", "", time.Date(2026, 11, 20, 16, 0, 0, 0, sto), 1, want{
			Handover: time.Date(2026, 11, 23, 15, 0, 0, 0, sto),
			Days:     []time.Time{day(2026, 11, 24), day(2026, 11, 25), day(2026, 11, 26)},
			OnTime:   2, TransitMin: 1,
		}},
		{"holidays are skipped", "north-parcel-mailbox", "", time.Date(2026, 12, 22, 9, 0, 0, 0, sto), 0, want{
			Handover: time.Date(2026, 12, 22, 14, 0, 0, 0, sto),
			Days:     []time.Time{day(2026, 12, 28), day(2026, 12, 29), day(2026, 12, 30)},
			OnTime:   3, TransitMin: 2,
		}},
		{"late days are bounded", "swift-courier-express", "", time.Date(2026, 11, 19, 10, 0, 0, 0, sto), 1000, want{
			Handover: time.Date(2026, 11, 19, 12, 0, 0, 0, sto),
			OnTime:   1, TransitMin: 1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, ok := engine.Timetable(tt.ref, tt.loc, tt.ready, tt.late)
			if !ok {
				t.Fatal("no timetable")
			}
			got := want{Handover: tab.ETD.Handover, Days: tab.Days, OnTime: tab.OnTime, TransitMin: tab.TransitMin}
			if tt.late > options.MaxLateDays {
				if n := len(got.Days); n != tab.OnTime+options.MaxLateDays {
					t.Errorf("%d days, want %d", n, tab.OnTime+options.MaxLateDays)
				}
				got.Days = nil
			}
			if diff := cmp.Diff(tt.want, got, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The estimate spans exactly the on-time days.
			if !tab.ETD.Earliest.Equal(tab.Days[0]) || !tab.ETD.Latest.Equal(tab.Days[tab.OnTime-1].AddDate(0, 0, 1).Add(-time.Second)) {
				t.Errorf("estimate %v – %v does not span the on-time days %v", tab.ETD.Earliest, tab.ETD.Latest, tab.Days[:tab.OnTime])
			}
		})
	}
	if _, ok := engine.Timetable("no-such-product", "", time.Now(), 0); ok {
		t.Error("a product the catalog lacks has a timetable")
	}
}

// The timetable's estimate is what the checkout promised for the same
// goods: an option's ETD.
func TestTimetableMatchesOptionEstimates(t *testing.T) {
	site, _ := config.Demo().Site("demo-site")
	engine, err := options.New(site.Catalog, options.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	res, err := engine.ComputeAt(options.Request{Currency: "SEK", CartValue: 45000, Items: []options.Item{{Quantity: 1, Weight: 800}},
		Address: site.Catalog.Warehouses[0].Address}, now, site.Catalog.Warehouses[0].Address.Coordinates)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range res.Categories {
		for _, o := range c.Options {
			loc := ""
			if o.Location != nil {
				loc = o.Location.ID
			}
			tab, ok := engine.Timetable(o.Carrier.ProductRef, loc, now, 0)
			if !ok {
				t.Fatalf("%s: no timetable", o.ID)
			}
			if diff := cmp.Diff(o.ETD, tab.ETD); diff != "" {
				t.Errorf("%s (-option +timetable):\n%s", o.ID, diff)
			}
			n++
		}
	}
	if n < 5 {
		t.Fatalf("only %d options compared", n)
	}
}
