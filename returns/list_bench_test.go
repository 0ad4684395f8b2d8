package returns

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/teststore"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// benchReturns fills a new store of -bench.store's kind (package
// teststore) with n returns of one order at "bench-site"
// (and a few of another site around them), writing records directly in
// batches, which is much faster than n CreateReturn calls.
func benchReturns(b *testing.B, n int) *Service {
	b.Helper()
	ctx := context.Background()
	svc := New(teststore.Open(b), Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{}})
	o, err := svc.ImportOrder(ctx, "bench-site", orderInput("B-1"))
	if err != nil {
		b.Fatal(err)
	}
	const batch = 5000
	for done := 0; done < n; done += batch {
		err := svc.store.Update(ctx, func(tx storage.Tx) error {
			rank, err := svc.returns.count(tx, "bench-site")
			if err != nil {
				return err
			}
			for i := done; i < min(done+batch, n); i++ {
				id, err := returnsColl.NextSequence(tx)
				if err != nil {
					return err
				}
				rank++
				r := returnRecord{ID: id, Rank: rank, OrderID: o.ID, Order: &orderSummaryRecord{ForeignID: o.ForeignID, CreatedAt: time.Time(o.CreatedAt)},
					Token: fmt.Sprint("t", id), Status: StatusAwaitingReturn,
					CreatedAt: t0.Add(time.Duration(i) * time.Second), Lines: []returnLine{{ID: 1, Quantity: 1}}}
				if err := svc.returns.insert(tx, "bench-site", id, rank, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return svc
}

// BenchmarkListReturns lists pages of size 20 in id order at 10k, 100k
// and 1M returns: every one reads about one page, so the time does not grow with
// the page number or the table. At 10k, page 499 is the last full page and
// page 500 is just past the end. The createdAt sort reads all of the site's
// rows, for contrast (10k only). 1M is skipped with -short.
// -bench.store bolt or postgres runs it on that store.
func BenchmarkListReturns(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		if n > 100_000 && testing.Short() {
			continue
		}
		svc := benchReturns(b, n)
		ctx := context.Background()
		cases := []struct {
			name string
			pr   PageRequest
		}{
			{"page0", PageRequest{Page: 0}},
			{"page499", PageRequest{Page: 499}},
			{"page500", PageRequest{Page: 500}},
			{"page500_desc", PageRequest{Page: 500, Sort: []SortOrder{{"id", Desc}}}},
			{"page500_afterId", PageRequest{Page: 500, AfterID: 1000}},
		}
		if n == 10_000 {
			cases = append(cases, struct {
				name string
				pr   PageRequest
			}{"page500_createdAt_scan", PageRequest{Page: 500, Sort: []SortOrder{{"createdAt", Desc}}}})
		}
		for _, c := range cases {
			b.Run(fmt.Sprintf("n=%d/%s", n, c.name), func(b *testing.B) {
				total := n - int(c.pr.AfterID)
				want := max(0, min(20, total-c.pr.Page*20))
				b.ReportAllocs()
				for b.Loop() {
					p, err := svc.ListReturns(ctx, "bench-site", c.pr)
					if err != nil || p.NumberOfElements != want {
						b.Fatalf("%v, %d rows, want %d", err, p.NumberOfElements, want)
					}
				}
			})
		}
	}
}

// BenchmarkCreateReturn measures the customer's call: order lookup by
// foreign id, e-mail check, quantities, and the writes of one Update.
func BenchmarkCreateReturn(b *testing.B) {
	ctx := context.Background()
	svc := New(memory.New(), Options{Clock: deliverykit.NewManualClock(t0), IDs: &deliverykit.SequentialIDs{}})
	in := orderInput("B-1")
	in.Items[0].Quantity = maxQuantity
	in.Items = in.Items[:1]
	if _, err := svc.ImportOrder(ctx, "bench-site", in); err != nil {
		b.Fatal(err)
	}
	req := CustomerReturnInput{SiteID: "bench-site", ForeignOrderID: "B-1", Email: "customer@example.com",
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n++; n > maxQuantity {
			b.Skip("order exhausted")
		}
		if _, err := svc.CreateReturn(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
