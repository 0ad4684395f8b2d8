// Package promise learns delivery promises from the merchant's own
// delivered parcels and reports how well promises were kept.
//
// It consumes two events: event.OrderCompleted (the promise the shopper
// saw, the carrier product, its warehouse and the destination) and
// event.ParcelChanged (the parcel's hand-over to the carrier and its
// delivery). When an outbound parcel reaches its delivered step
// (STEP_DELIVERED_TO_CONSUMER, or STEP_DELIVERED_TO_PICKUP_POINT for a
// pickup), its lead time — business hours from hand-over to delivery in
// the warehouse's time zone — is folded into a quantile sketch per
// (product, origin, zone), per (product, origin, country) and per
// (product, origin), and the parcel is tallied, on time, early or late
// against its promise, for the accuracy report.
//
//	svc := promise.New(store, promise.Options{Engines: engines})
//	dispatcher.Handle(event.TypeOrderCompleted, "promise", svc.HandleOrderCompleted)
//	dispatcher.Handle(event.TypeParcelChanged, "promise", svc.HandleParcelChanged)
//	engine, _ := options.New(cat, options.Options{LeadTimes: svc, Site: "site1"})
//	report, _ := svc.Report(ctx, "site1", promise.ReportRequest{GroupBy: promise.GroupByWeek})
//
// # The model
//
// A sketch is a DDSketch (relative accuracy 1 %, at most MaxBins bins a
// sign, collapsing the shortest lead times first): its size is bounded
// whatever the number of parcels, and two merge exactly. Old parcels
// weigh less: every fold first scales the sketch's weights by
// 2^(−age/half-life) since its last fold, so a parcel delivered a
// half-life ago counts half; reads scale the count the same way. The
// options engine asks LeadTimes (this Service) for the quantiles of a
// key and falls back from product+zone to product+country to product,
// then to the configured transit days, while a key weighs less than the
// catalog's minimum of samples. Lead times are answered from memory:
// an engine holds each product's lead times (For), each level is read
// from the store at most once per Options.CacheTTL, and a fold in this
// process drops the levels it changed.
//
// # What it cannot know
//
// Lead times count business hours (weekends and the catalog's holidays
// skipped), so a holiday the catalog does not list, a carrier strike or a
// peak season reads as a slow carrier until it has decayed; the catalog's
// calendar (cut-offs, collection days, holidays) still decides the
// hand-over day and the delivery days a window may land on. A product in
// categories of several warehouses is learned for the warehouse of its
// first category. A completed session's promise is the one computed when
// it completed, from the lead times known then.
//
// # What is stored
//
// Per completed order with a promise, a pending record until its parcels
// are delivered (swept Options.PendingRetention after completion: a
// parcel's hand-over is kept only until its delivery is folded in); per
// key one sketch record, whose size does not grow with its parcels; per
// site, day and (product, origin, zone, source) one tally with a lateness
// sketch, swept Options.ReportRetention after the day.
package promise
