package deliverykittest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// slowProduct is configured at 1–2 transit days in the demo catalog; its
// simulated parcels take 2–3 business days (lead_time_hours below).
const slowProduct = "north-parcel-home"

// slowCarrier is the demo configuration with slowProduct's carrier
// slower than its contract and the catalog's promises in mode.
func slowCarrier(t *testing.T, mode catalog.PromiseMode) *config.Config {
	t.Helper()
	cfg := config.Demo() // parsed anew: changed here only
	cat := cfg.Sites[0].Catalog
	cat.Promise = mode
	for i := range cat.Carriers {
		for j := range cat.Carriers[i].Products {
			if p := &cat.Carriers[i].Products[j]; p.Ref == slowProduct {
				p.Simulate = &catalog.Simulation{LeadTimeHours: &catalog.LeadTimeProfile{P10: 40, P50: 58, P90: 76}}
			}
		}
	}
	return cfg
}

// period is the orders of one period: their promises and the report of
// the parcels delivered in it.
type period struct {
	widest int // business days of the widest promised window
	report *promise.Report
	meta   map[string]string // shipping.meta of the last order
}

// orders places n orders of slowProduct, one every 30 days / n, ships
// each, lets every parcel arrive, and reports the period's deliveries.
//
// The clock moves to each order and runs what is due every runEvery,
// rather than stopping at every parcel step as Advance does: a step is
// reported with the time the simulator planned for it whenever it runs,
// and lead times and promises are measured from those times, so the
// result is the same at a fraction of the rounds.
func orders(t *testing.T, k *deliverykittest.Kit, first, n int, cat *catalog.Catalog) period {
	t.Helper()
	ctx := t.Context()
	var p period
	from := k.Clock.Now()
	every := 30 * 24 * time.Hour / time.Duration(n)
	lastRun := from
	for i := range n {
		k.Clock.Set(from.Add(time.Duration(i) * every))
		if k.Clock.Now().Sub(lastRun) >= runEvery {
			if err := k.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
			lastRun = k.Clock.Now()
		}
		parcel, err := k.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: fmt.Sprintf("order-%d", first+i), Option: "home/" + slowProduct})
		if err != nil {
			t.Fatal(err)
		}
		if w := parcel.Promise; w != nil {
			p.widest = max(p.widest, businessDays(cat, w.Earliest, w.Latest))
		}
		if i == n-1 {
			v, err := k.Services.Checkout.Get(ctx, k.Site, parcel.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			p.meta = v.Session.Result.Shipping.Meta
		}
	}
	// Every parcel arrives within a week of the last order.
	end := k.Clock.Now().Add(7 * 24 * time.Hour)
	for k.Clock.Now().Before(end) {
		k.Clock.Set(k.Clock.Now().Add(runEvery))
		if err := k.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := k.Services.Promises.Report(ctx, k.Site, promise.ReportRequest{From: from, To: k.Clock.Now(), GroupBy: promise.GroupByProduct})
	if err != nil {
		t.Fatal(err)
	}
	p.report = rep
	return p
}

// quiet subscribes the kit's webhook endpoint to one event type: the
// test reads no webhook, and 600 parcels' deliveries would cost it a
// third of its time.
var quiet = []event.Type{event.TypeOrderCompleted}

// runEvery is how often the test runs what fell due.
const runEvery = 8 * time.Hour

// businessDays counts the weekdays that are not catalog holidays from the
// day of from to the day of to, in the warehouse's zone.
func businessDays(cat *catalog.Catalog, from, to time.Time) int {
	loc, _ := time.LoadLocation(cat.Warehouses[0].TimeZone)
	holidays := map[string]bool{}
	for _, h := range cat.Holidays {
		holidays[h] = true
	}
	n := 0
	for d := from.In(loc); !d.After(to); d = d.AddDate(0, 0, 1) {
		if wd := d.Weekday(); wd != time.Saturday && wd != time.Sunday && !holidays[d.Format(time.DateOnly)] {
			n++
		}
	}
	return n
}

// TestLearnedPromises: a carrier slower than its contract breaks the
// configured promises; learned from 300 delivered parcels, the next 300
// promises are kept, with a window at most a day wider.
func TestLearnedPromises(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) storage.Store
	}{
		{"memory", func(*testing.T) storage.Store { return memory.New() }},
		{"bolt", func(t *testing.T) storage.Store {
			s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), &bolt.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		}},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			testLearnedPromises(t, st.open(t))
		})
	}
}

func testLearnedPromises(t *testing.T, st storage.Store) {
	// A Monday in February: no catalog holiday within the two periods.
	start := time.Date(2027, 2, 1, 8, 0, 0, 0, time.UTC)
	confCfg := slowCarrier(t, catalog.PromiseConfigured)
	k := deliverykittest.Start(t, deliverykittest.Options{Config: confCfg, Store: st, Start: start, WebhookEvents: quiet})
	conf := orders(t, k, 1, 300, confCfg.Sites[0].Catalog)

	// The same report over HTTP, by week.
	req, err := http.NewRequestWithContext(t.Context(), "GET", deliverykittest.BaseURL+"/v1/delivery_tracking/promise_accuracy?group_by=week&from="+
		start.Format(time.DateOnly)+"&to="+k.Clock.Now().Format(time.DateOnly), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", k.BearerAuth(k.Site))
	resp, err := k.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var weekly promise.Report
	if err := json.NewDecoder(resp.Body).Decode(&weekly); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET promise_accuracy: %d, %v", resp.StatusCode, err)
	}
	parcels := 0
	for _, r := range weekly.Rows {
		parcels += r.Parcels
	}
	if len(weekly.Rows) < 5 || parcels != 300 {
		t.Errorf("weekly report: %d rows, %d parcels; want one a week (5 or more), 300 parcels", len(weekly.Rows), parcels)
	}

	learnCfg := slowCarrier(t, catalog.PromiseLearned)
	k2 := deliverykittest.Start(t, deliverykittest.Options{Config: learnCfg, Store: st, IDs: k.IDs, Start: k.Clock.Now(), WebhookEvents: quiet})
	learned := orders(t, k2, 301, 300, learnCfg.Sites[0].Catalog)

	row := func(p period) promise.ReportRow {
		t.Helper()
		if len(p.report.Rows) != 1 || p.report.Rows[0].Key != slowProduct {
			t.Fatalf("report rows: %+v, want one of %s", p.report.Rows, slowProduct)
		}
		return p.report.Rows[0]
	}
	c, l := row(conf), row(learned)
	t.Logf("configured: %d parcels, on time %.1f %% (early %d, late %d, p90 lateness %.1f h), widest window %d business days",
		c.Parcels, 100*c.OnTimeRate, c.Early, c.Late, c.P90LatenessHours, conf.widest)
	t.Logf("learned: %d parcels, on time %.1f %% (early %d, late %d, p90 lateness %.1f h), widest window %d business days; meta %v",
		l.Parcels, 100*l.OnTimeRate, l.Early, l.Late, l.P90LatenessHours, learned.widest, learned.meta)
	checks := []struct {
		name      string
		got, want any
		ok        bool
	}{
		{"configured parcels", c.Parcels, 300, c.Parcels == 300},
		{"configured source", c.PromiseSource, "configured", c.PromiseSource == "configured"},
		{"configured on-time rate below 60 %", c.OnTimeRate, "< 0.6", c.OnTimeRate < 0.6},
		{"learned parcels", l.Parcels, 300, l.Parcels == 300},
		{"learned source", l.PromiseSource, "learned", l.PromiseSource == "learned"},
		{"learned on-time rate at least 85 %", l.OnTimeRate, ">= 0.85", l.OnTimeRate >= 0.85},
		{"learned window at most a day wider", learned.widest, fmt.Sprintf("<= %d", conf.widest+1), learned.widest <= conf.widest+1},
		{"meta promise_source", learned.meta["promise_source"], "learned", learned.meta["promise_source"] == "learned"},
		{"meta promise_samples", learned.meta["promise_samples"], "set", learned.meta["promise_samples"] != ""},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("%s: got %v, want %v", ch.name, ch.got, ch.want)
		}
	}
}
