package promise_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const site = "demo-site"

// Monday 2027-02-01, 08:00 in Stockholm (the demo warehouse's zone).
var monday = time.Date(2027, 2, 1, 7, 0, 0, 0, time.UTC)

type fixture struct {
	svc    *promise.Service
	store  storage.Store
	clock  *deliverykit.ManualClock
	engine *options.Engine
	n      int // events made
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	s, _ := config.Demo().Site(site)
	f := &fixture{store: memory.New(), clock: deliverykit.NewManualClock(monday)}
	var err error
	if f.engine, err = options.New(s.Catalog, options.Options{Clock: f.clock}); err != nil {
		t.Fatal(err)
	}
	f.svc = promise.New(f.store, promise.Options{Clock: f.clock, Engines: func(string) (*options.Engine, bool) { return f.engine, true }})
	return f
}

func (f *fixture) event(t testing.TB, subject string, at time.Time, p event.Payload) event.Event {
	t.Helper()
	f.n++
	e, err := event.New(fmt.Sprintf("evt_%06d", f.n), site, subject, at, p)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// parcel is one order of product with a promise, its parcel handed over
// at handover and delivered at delivered (zero: not yet).
type parcel struct {
	tos, product, postal       string
	earliest, latest, handover time.Time
	delivered                  time.Time
	source                     string
}

// deliver runs p's events through the service's handlers.
func (f *fixture) deliver(t testing.TB, p parcel) {
	t.Helper()
	ctx := context.Background()
	tn := "TN-" + p.tos
	oc := event.OrderCompleted{TosID: p.tos, ProductRef: p.product, Country: "SE", CompletedAt: p.handover.Add(-time.Hour),
		CustomerAddress: &deliverykit.Address{Country: "SE", PostalCode: p.postal},
		Promise:         &event.TimeRange{Earliest: p.earliest, Latest: p.latest}, PromiseSource: p.source}
	steps := []event.Event{f.event(t, p.tos, oc.CompletedAt, oc),
		f.event(t, tn, p.handover, event.ParcelChanged{TosID: p.tos, TrackingNumber: tn, Step: "STEP_SUBMITTED_TO_CARRIER", Time: p.handover, Direction: "OUTBOUND"})}
	if !p.delivered.IsZero() {
		steps = append(steps, f.event(t, tn, p.delivered, event.ParcelChanged{TosID: p.tos, TrackingNumber: tn, Step: "STEP_DELIVERED_TO_CONSUMER", Time: p.delivered, Direction: "OUTBOUND"}))
	}
	for _, e := range steps {
		h := f.svc.HandleParcelChanged
		if e.Type == event.TypeOrderCompleted {
			h = f.svc.HandleOrderCompleted
		}
		if err := h(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
}

// at is day d (from monday) at hour h UTC.
func at(d, h int) time.Time {
	return monday.Truncate(24*time.Hour).AddDate(0, 0, d).Add(time.Duration(h) * time.Hour)
}

// TestLeadTimes: delivered parcels teach their keys, and only once each;
// the narrowest key that weighs the minimum answers.
func TestLeadTimes(t *testing.T) {
	f := newFixture(t)
	// 40 parcels to zone SE:11, handed over Monday 14:00 UTC (15:00 in
	// Stockholm: 9 business hours left), delivered Wednesday 10:00 to
	// 14:00 UTC: 9 + 24 + 11 to 15 hours.
	for i := range 40 {
		f.deliver(t, parcel{tos: fmt.Sprintf("z%02d", i), product: "north-parcel-home", postal: "111 57",
			earliest: at(1, -1), latest: at(2, 23), handover: at(0, 14), delivered: at(2, 10+i%5)})
	}
	// 10 to zone SE:41: too few on their own.
	for i := range 10 {
		f.deliver(t, parcel{tos: fmt.Sprintf("g%02d", i), product: "north-parcel-home", postal: "411 05",
			earliest: at(1, -1), latest: at(2, 23), handover: at(0, 14), delivered: at(3, 10)})
	}
	key := options.LeadTimeKey{Site: site, Product: "north-parcel-home", Origin: "stockholm", Country: "SE"}
	now := at(4, 0)
	type answer struct {
		Low, High float64
		Samples   int
		OK        bool
	}
	ask := func(k options.LeadTimeKey) answer {
		lt, ok := f.svc.LeadTime(k, 0.1, 0.9, 30, 56, now)
		return answer{lt.Low, lt.High, lt.Samples, ok}
	}
	zone11, zone41 := key, key
	zone11.Zone, zone41.Zone = "SE:11", "SE:41"
	product := key
	product.Country = ""
	tests := []struct {
		name string
		key  options.LeadTimeKey
		want answer
	}{
		// Lead times 44 to 48 hours (to 68 for SE:41), weighing less by
		// their age at a 56-day half-life: 40 × 2^(−34 h / 56 days) ≈ 39.
		{"zone with 40", zone11, answer{44, 48, 39, true}},
		{"zone with 10: its country's", zone41, answer{44, 68, 49, true}},
		{"country", key, answer{44, 68, 49, true}},
		{"product", product, answer{44, 68, 49, true}},
		{"another product", options.LeadTimeKey{Site: site, Product: "swift-courier-express", Origin: "stockholm"}, answer{0, 0, 0, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The sketch's relative accuracy is 1 %.
			if diff := cmp.Diff(tt.want, ask(tt.key), cmpopts.EquateApprox(0.011, 0)); diff != "" {
				t.Errorf("lead time (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("an event delivered again", func(t *testing.T) {
		before := ask(key)
		tn := "TN-z00"
		e := f.event(t, tn, at(2, 10), event.ParcelChanged{TosID: "z00", TrackingNumber: tn, Step: "STEP_DELIVERED_TO_CONSUMER", Time: at(2, 10), Direction: "OUTBOUND"})
		for range 2 {
			if err := f.svc.HandleParcelChanged(context.Background(), e); err != nil {
				t.Fatal(err)
			}
		}
		if diff := cmp.Diff(before, ask(key)); diff != "" {
			t.Errorf("a parcel delivered again counted (-want +got):\n%s", diff)
		}
	})
	t.Run("half-life", func(t *testing.T) {
		now, _ := f.svc.LeadTime(key, 0.1, 0.9, 1, 56, at(3, 10))
		later, _ := f.svc.LeadTime(key, 0.1, 0.9, 1, 56, at(3, 10).AddDate(0, 0, 56))
		if later.Samples != now.Samples/2 {
			t.Errorf("after a half-life: %d samples, want half of %d", later.Samples, now.Samples)
		}
	})
}

// TestReport: parcels are tallied against their promises and grouped.
func TestReport(t *testing.T) {
	f := newFixture(t)
	win := func(tos, postal string, day, deliveredHour int, source string) parcel {
		// Promised Tuesday to Wednesday of the week of day.
		return parcel{tos: tos, product: "north-parcel-home", postal: postal, source: source,
			earliest: at(day+1, -1), latest: at(day+2, 23), handover: at(day, 14), delivered: at(day, deliveredHour)}
	}
	// Week 1 (2027-W05): 3 on time, 2 late by 10 and 20 h, 1 early by
	// 12 h.
	f.deliver(t, win("a1", "111 57", 0, 24+10, "configured"))
	f.deliver(t, win("a2", "111 57", 0, 48+10, "configured"))
	f.deliver(t, win("a3", "114 55", 0, 48+20, "configured"))
	f.deliver(t, win("a4", "411 05", 0, 72+9, "configured"))
	f.deliver(t, win("a5", "411 05", 0, 11, "configured"))
	f.deliver(t, win("a6", "411 05", 0, 72+19, "configured"))
	// Week 2 (2027-W06): 2 on time, learned; one not delivered yet.
	f.deliver(t, win("b1", "111 57", 7, 24+12, "learned"))
	f.deliver(t, win("b2", "411 05", 7, 48+12, "learned"))
	f.deliver(t, parcel{tos: "b3", product: "north-parcel-home", postal: "111 57", earliest: at(8, -1), latest: at(9, 23), handover: at(7, 14)})
	ctx := context.Background()
	row := func(key string, parcels, on, early, late int, p50, p90 float64, source string) promise.ReportRow {
		return promise.ReportRow{Key: key, Parcels: parcels, OnTime: on, Early: early, Late: late,
			OnTimeRate: math.Round(float64(on)/float64(parcels)*1e4) / 1e4, P50LatenessHours: p50, P90LatenessHours: p90, PromiseSource: source}
	}
	tests := []struct {
		name    string
		req     promise.ReportRequest
		want    []promise.ReportRow
		wantErr string // the violation's field
	}{
		{"by week", promise.ReportRequest{From: at(0, 0), To: at(13, 0), GroupBy: promise.GroupByWeek}, []promise.ReportRow{
			row("2027-W05", 6, 3, 1, 2, 0, 10, "configured"), row("2027-W06", 2, 2, 0, 0, 0, 0, "learned")}, ""},
		{"by zone", promise.ReportRequest{From: at(0, 0), To: at(13, 0), GroupBy: promise.GroupByZone}, []promise.ReportRow{
			row("SE:11", 4, 4, 0, 0, 0, 0, "mixed"), row("SE:41", 4, 1, 1, 2, 0, 10, "mixed")}, ""},
		{"by product, first week", promise.ReportRequest{From: at(0, 0), To: at(6, 0), GroupBy: promise.GroupByProduct}, []promise.ReportRow{
			row("north-parcel-home", 6, 3, 1, 2, 0, 10, "configured")}, ""},
		{"by origin", promise.ReportRequest{From: at(0, 0), To: at(13, 0), GroupBy: promise.GroupByOrigin}, []promise.ReportRow{
			row("stockholm", 8, 5, 1, 2, 0, 10, "mixed")}, ""},
		{"nothing delivered in range", promise.ReportRequest{From: at(20, 0), To: at(30, 0), GroupBy: promise.GroupByWeek}, []promise.ReportRow{}, ""},
		{"bad group_by", promise.ReportRequest{GroupBy: "carrier"}, nil, "group_by"},
		{"reversed", promise.ReportRequest{From: at(2, 0), To: at(1, 0), GroupBy: promise.GroupByWeek}, nil, "from"},
		{"401 days", promise.ReportRequest{From: at(0, 0), To: at(401, 0), GroupBy: promise.GroupByWeek}, nil, "from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := f.svc.Report(ctx, site, tt.req)
			if tt.wantErr != "" {
				vs := deliverykit.ViolationsOf(err)
				if len(vs) != 1 || vs[0].Field != tt.wantErr || deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
					t.Fatalf("err = %v, want InvalidArgument naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// Lateness quantiles within the sketch's 1 %: to the hour.
			for i := range rep.Rows {
				rep.Rows[i].P50LatenessHours = math.Round(rep.Rows[i].P50LatenessHours)
				rep.Rows[i].P90LatenessHours = math.Round(rep.Rows[i].P90LatenessHours)
			}
			if diff := cmp.Diff(tt.want, rep.Rows); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("another site", func(t *testing.T) {
		rep, err := f.svc.Report(ctx, "other-site", promise.ReportRequest{From: at(0, 0), To: at(13, 0), GroupBy: promise.GroupByWeek})
		if err != nil || len(rep.Rows) != 0 {
			t.Errorf("another site's report: %+v, %v", rep, err)
		}
	})
}

// TestConcurrentReadsAndFolds: engines read lead times while parcels are
// folded in (run with -race).
func TestConcurrentReadsAndFolds(t *testing.T) {
	f := newFixture(t)
	for i := range 30 {
		f.deliver(t, parcel{tos: fmt.Sprintf("a%02d", i), product: "north-parcel-home", postal: "111 57",
			earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14), delivered: at(2, 10)})
	}
	p := f.svc.For(site, "north-parcel-home", "stockholm")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 20 {
			f.deliver(t, parcel{tos: fmt.Sprintf("b%02d", i), product: "north-parcel-home", postal: "111 57",
				earliest: at(1, 0), latest: at(2, 23), handover: at(0, 14), delivered: at(2, 11)})
		}
	}()
	for range 200 {
		if _, ok := p.LeadTime("SE", "11", 0.1, 0.9, 20, 56, at(3, 0)); !ok {
			t.Fatal("a key with 30 or more parcels did not answer for 20")
		}
	}
	<-done
	if lt, _ := p.LeadTime("SE", "11", 0.1, 0.9, 30, 56, at(3, 0)); lt.Samples != 49 {
		t.Errorf("%d samples after the folds, want 49 (50 decayed)", lt.Samples)
	}
}

// TestPickupDeliveredOnce: a pickup parcel is delivered when it reaches
// the pickup point; its collection, and return parcels, count nothing.
func TestPickupDeliveredOnce(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	oc := event.OrderCompleted{TosID: "p1", ProductRef: "north-parcel-point", Country: "SE", CompletedAt: at(0, 10),
		Pickup:  &event.Location{Address: deliverykit.Address{Country: "SE", PostalCode: "118 26"}},
		Promise: &event.TimeRange{Earliest: at(1, -1), Latest: at(2, 23)}}
	changed := func(step string, when time.Time, direction string) event.Event {
		return f.event(t, "TN-p1", when, event.ParcelChanged{TosID: "p1", TrackingNumber: "TN-p1", Step: step, Time: when, Direction: direction})
	}
	if err := f.svc.HandleOrderCompleted(ctx, f.event(t, "p1", oc.CompletedAt, oc)); err != nil {
		t.Fatal(err)
	}
	for _, e := range []event.Event{
		changed("STEP_SUBMITTED_TO_CARRIER", at(0, 14), "OUTBOUND"),
		changed("STEP_DELIVERED_TO_PICKUP_POINT", at(2, 9), "OUTBOUND"),
		changed("STEP_DELIVERED_TO_CONSUMER", at(5, 9), "OUTBOUND"),
		changed("STEP_DELIVERED_TO_CONSUMER", at(6, 9), "RETURN"),
	} {
		if err := f.svc.HandleParcelChanged(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := f.svc.Report(ctx, site, promise.ReportRequest{From: at(0, 0), To: at(10, 0), GroupBy: promise.GroupByZone})
	if err != nil {
		t.Fatal(err)
	}
	want := []promise.ReportRow{{Key: "SE:11", Parcels: 1, OnTime: 1, OnTimeRate: 1, PromiseSource: "configured"}}
	if diff := cmp.Diff(want, rep.Rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestOrderWithoutCheckout: an order registered in tracking alone is
// measured from its parcel's events, which carry its promise.
func TestOrderWithoutCheckout(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	changed := func(step string, when time.Time) event.Event {
		return f.event(t, "TN-m1", when, event.ParcelChanged{TosID: "m1", TrackingNumber: "TN-m1", Step: step, Time: when, Direction: "OUTBOUND",
			ProductRef: "north-parcel-home", Promise: &event.TimeRange{Earliest: at(1, -1), Latest: at(1, 23)},
			DestinationCountry: "SE", DestinationPostalCode: "411 05"})
	}
	for _, e := range []event.Event{changed("STEP_SUBMITTED_TO_CARRIER", at(0, 14)), changed("STEP_DELIVERED_TO_CONSUMER", at(2, 9))} {
		if err := f.svc.HandleParcelChanged(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := f.svc.Report(ctx, site, promise.ReportRequest{From: at(0, 0), To: at(10, 0), GroupBy: promise.GroupByZone})
	if err != nil {
		t.Fatal(err)
	}
	want := []promise.ReportRow{{Key: "SE:41", Parcels: 1, Late: 1, P50LatenessHours: 10, P90LatenessHours: 10, PromiseSource: "configured"}}
	if diff := cmp.Diff(want, rep.Rows, cmpopts.EquateApprox(0.011, 0)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
