package promise_test

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/promise"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A product's parcels, handed over at 15:00 in Stockholm and delivered
// two days later, teach it a lead time; the report shows how its
// promises were kept.
func Example() {
	ctx := context.Background()
	site, _ := config.Demo().Site("demo-site")
	clock := deliverykit.NewManualClock(time.Date(2027, 2, 1, 7, 0, 0, 0, time.UTC))
	engine, _ := options.New(site.Catalog, options.Options{Clock: clock})
	svc := promise.New(memory.New(), promise.Options{Clock: clock,
		Engines: func(string) (*options.Engine, bool) { return engine, true }})

	handover := time.Date(2027, 2, 1, 14, 0, 0, 0, time.UTC)
	for i := range 40 {
		tos, tn := fmt.Sprintf("tos_%d", i), fmt.Sprintf("TN%d", i)
		delivered := handover.Add(44*time.Hour + time.Duration(i%4)*time.Hour)
		events := []event.Payload{
			event.OrderCompleted{TosID: tos, ProductRef: "north-parcel-home", Country: "SE", CompletedAt: handover.Add(-time.Hour),
				CustomerAddress: &deliverykit.Address{Country: "SE", PostalCode: "111 57"},
				Promise:         &event.TimeRange{Earliest: handover.Add(10 * time.Hour), Latest: handover.Add(34 * time.Hour)}},
			event.ParcelChanged{TosID: tos, TrackingNumber: tn, Step: "STEP_SUBMITTED_TO_CARRIER", Time: handover},
			event.ParcelChanged{TosID: tos, TrackingNumber: tn, Step: "STEP_DELIVERED_TO_CONSUMER", Time: delivered},
		}
		for j, p := range events {
			e, _ := event.New(fmt.Sprintf("evt_%d_%d", i, j), "demo-site", tos, handover, p)
			if j == 0 {
				svc.HandleOrderCompleted(ctx, e)
			} else {
				svc.HandleParcelChanged(ctx, e)
			}
		}
	}
	clock.Set(handover.Add(72 * time.Hour))
	lt, ok := svc.For("demo-site", "north-parcel-home", "stockholm").LeadTime("SE", "11", 0.1, 0.9, 30, 56, clock.Now())
	fmt.Printf("learned: %v, %.0f to %.0f business hours, %d parcels\n", ok, lt.Low, lt.High, lt.Samples)
	rep, _ := svc.Report(ctx, "demo-site", promise.ReportRequest{GroupBy: promise.GroupByProduct})
	r := rep.Rows[0]
	fmt.Printf("%s: %d parcels, %d on time, %d late, p90 %.0f hours late\n", r.Key, r.Parcels, r.OnTime, r.Late, r.P90LatenessHours)
	// Output:
	// learned: true, 44 to 47 business hours, 39 parcels
	// north-parcel-home: 40 parcels, 0 on time, 40 late, p90 13 hours late
}
