package console

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// benchOrders is how many orders BenchmarkOverview's store holds, each
// with ten parcel events; the figure is 100,000 (go test -bench
// Overview -console.orders 100000).
var benchOrders = flag.Int("console.orders", 10_000, "orders in BenchmarkOverview's store, each with ten parcel events")

// overviewStore counts orders orders and their parcels' events over the
// last year through the outbox consumer, as a deployment's counters would
// have, and returns the store with a console on it.
func overviewStore(b *testing.B, orders int) (c *Console, token string, events int) {
	b.Helper()
	ctx := context.Background()
	store := memory.New()
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	counters := NewCounters(store)
	steps := []struct{ step, alert string }{{"STEP_CONFIRMED_BY_MERCHANT", ""}, {"STEP_PREPARED_BY_MERCHANT", ""},
		{"STEP_SUBMITTED_TO_CARRIER", ""}, {"STEP_ON_ROUTE", ""}, {"STEP_ON_ROUTE", "ALERT_OUT_FOR_DELIVERY"},
		{"", "ALERT_DELIVERY_DELAYED"}, {"STEP_ON_ROUTE", ""}, {"", "ALERT_DELIVERY_ATTEMPT_FAILED"}, {"STEP_DELIVERED_TO_CONSUMER", ""}}
	id := 0
	handle := func(site string, at time.Time, p event.Payload) {
		id++
		e, err := event.New(fmt.Sprintf("ev-%09d", id), site, "s", at, p)
		if err == nil {
			err = counters.Handle(ctx, e)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range orders {
		site := "bench-site"
		if i%10 == 9 {
			site = "other-site" // a neighbour whose days sort beside this site's
		}
		at := now.Add(-time.Duration(i%365) * 24 * time.Hour)
		tn := fmt.Sprintf("TN%08d", i)
		handle(site, at, event.OrderCompleted{ProductRef: fmt.Sprintf("product-%d", i%6), DeliveryType: "home", Currency: "SEK", ShippingPrice: 4900})
		handle(site, at, event.ParcelBooked{TrackingNumber: tn, Direction: event.DirectionOutbound})
		for _, s := range steps {
			handle(site, at, event.ParcelChanged{TrackingNumber: tn, Step: s.step, Alert: s.alert, Direction: event.DirectionOutbound})
		}
	}
	c, err := New(Options{Store: store, Counters: counters, Clock: deliverykit.NewManualClock(now)})
	if err != nil {
		b.Fatal(err)
	}
	token, _, err = c.sessions.create(ctx, Principal{Site: "bench-site", User: "bench@site.test", Role: Viewer})
	if err != nil {
		b.Fatal(err)
	}
	return c, token, id
}

// BenchmarkOverview renders the overview of a site whose store holds
// -console.orders orders with ten parcel events each: the page reads the
// session, 30 days of counters and the gauges, whatever the history.
func BenchmarkOverview(b *testing.B) {
	start := time.Now()
	c, token, events := overviewStore(b, *benchOrders)
	b.Logf("store built in %v: %d orders, %d events counted", time.Since(start).Round(time.Millisecond), *benchOrders, events)
	b.ResetTimer()
	for b.Loop() {
		r := httptest.NewRequest(http.MethodGet, "/console/overview", nil)
		r.AddCookie(&http.Cookie{Name: sessionCookie, Value: token})
		w := httptest.NewRecorder()
		c.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("overview: %d", w.Code)
		}
	}
}
