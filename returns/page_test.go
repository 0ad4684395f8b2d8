package returns

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

func TestParsePageQuery(t *testing.T) {
	tests := []struct {
		query string
		want  PageRequest
		err   string
	}{
		{"", PageRequest{}, ""},
		{"page=2&size=50", PageRequest{Page: 2, Size: 50}, ""},
		{"sort=createdAt,desc&sort=id", PageRequest{Sort: []SortOrder{{"createdAt", Desc}, {"id", Asc}}}, ""},
		{"sort=foreignId,createdAt,DESC", PageRequest{Sort: []SortOrder{{"foreignId", Desc}, {"createdAt", Desc}}}, ""},
		{"afterId=7&afterDate=2026-11-22T10:30:00", PageRequest{AfterID: 7, AfterDate: time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)}, ""},
		{"page=-1", PageRequest{}, "invalid request: page: must be a whole number from 0 to 2147483647"},
		{"size=-5", PageRequest{}, "invalid request: size: must be a whole number from 0 to 2147483647"},
		{"size=ten&page=x", PageRequest{}, "invalid request: page: must be a whole number from 0 to 2147483647; size: must be a whole number from 0 to 2147483647"},
		{"page=99999999999", PageRequest{}, "invalid request: page: must be a whole number from 0 to 2147483647"},
		{"sort=,desc", PageRequest{}, "invalid request: sort: must be field,direction with direction asc or desc"},
		{"afterId=-1", PageRequest{}, "invalid request: afterId: must be a non-negative integer"},
		{"afterDate=2026-11-22", PageRequest{}, "invalid request: afterDate: must be YYYY-MM-DDThh:mm:ss (read as UTC)"},
	}
	for _, tt := range tests {
		q, _ := url.ParseQuery(tt.query)
		got, err := ParsePageQuery(q)
		gotErr := ""
		if err != nil {
			gotErr = deliverykit.Message(err)
		}
		if gotErr != tt.err {
			t.Errorf("%q: error %q, want %q", tt.query, gotErr, tt.err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.query, diff)
		}
	}
}

// pagedFixture has 45 orders at site-a, one per minute, interleaved with
// orders of site-b so that site-a's ids have gaps: site-a owns ids
// 1, 2, 4, 5, 7, 8, …
func pagedFixture(t *testing.T) (*fixture, []uint64) {
	f := newFixture(t)
	var ids []uint64
	for i := range 45 {
		o := f.importOrder(t, "site-a", fmt.Sprintf("A-%02d", i))
		ids = append(ids, o.ID)
		if i%2 == 1 {
			f.importOrder(t, "site-b", fmt.Sprintf("B-%02d", i))
		}
		f.clock.Advance(time.Minute)
	}
	return f, ids
}

func unsorted() SortInfo { return SortInfo{Unsorted: true, Empty: true} }

func TestPageEnvelope(t *testing.T) {
	f, ids := pagedFixture(t)
	summaries := func(ids []uint64) []OrderSummary {
		out := []OrderSummary{}
		for _, id := range ids {
			o, err := f.svc.GetOrder(f.ctx, "site-a", fmt.Sprint(id), IDService)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, OrderSummary{ID: o.ID, ForeignID: o.ForeignID, CreatedAt: o.CreatedAt})
		}
		return out
	}
	tests := []struct {
		name string
		site string
		pr   PageRequest
		want Page[OrderSummary]
	}{
		{"empty site", "site-c", PageRequest{}, Page[OrderSummary]{Content: []OrderSummary{},
			Pageable: Pageable{Sort: unsorted(), PageSize: 20, Paged: true}, TotalPages: 0, TotalElements: 0, Last: true, Size: 20, Number: 0,
			Sort: unsorted(), NumberOfElements: 0, First: true, Empty: true}},
		{"first of three", "site-a", PageRequest{}, Page[OrderSummary]{Content: summaries(ids[:20]),
			Pageable: Pageable{Sort: unsorted(), PageSize: 20, Paged: true}, TotalPages: 3, TotalElements: 45, Last: false, Size: 20,
			Sort: unsorted(), NumberOfElements: 20, First: true}},
		{"last", "site-a", PageRequest{Page: 2}, Page[OrderSummary]{Content: summaries(ids[40:]),
			Pageable: Pageable{Sort: unsorted(), Offset: 40, PageSize: 20, PageNumber: 2, Paged: true}, TotalPages: 3, TotalElements: 45, Last: true, Size: 20, Number: 2,
			Sort: unsorted(), NumberOfElements: 5}},
		{"past the end", "site-a", PageRequest{Page: 3}, Page[OrderSummary]{Content: []OrderSummary{},
			Pageable: Pageable{Sort: unsorted(), Offset: 60, PageSize: 20, PageNumber: 3, Paged: true}, TotalPages: 3, TotalElements: 45, Last: true, Size: 20, Number: 3,
			Sort: unsorted(), Empty: true}},
		{"single page", "site-a", PageRequest{Size: 45, AfterID: ids[42]}, Page[OrderSummary]{Content: summaries(ids[43:]),
			Pageable: Pageable{Sort: unsorted(), PageSize: 45, Paged: true}, TotalPages: 1, TotalElements: 2, Last: true, Size: 45,
			Sort: unsorted(), NumberOfElements: 2, First: true}},
		{"descending, sorted", "site-a", PageRequest{Size: 2, Page: 1, Sort: []SortOrder{{"id", Desc}}}, Page[OrderSummary]{Content: summaries([]uint64{ids[42], ids[41]}),
			Pageable: Pageable{Sort: SortInfo{Sorted: true}, Offset: 2, PageSize: 2, PageNumber: 1, Paged: true}, TotalPages: 23, TotalElements: 45, Size: 2, Number: 1,
			Sort: SortInfo{Sorted: true}, NumberOfElements: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f.svc.ListOrders(f.ctx, tt.site, tt.pr)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPagesAgreeWithBruteForce checks the ordered-scan path and the
// read-everything path against a plain computation over the known rows.
func TestPagesAgreeWithBruteForce(t *testing.T) {
	f, ids := pagedFixture(t)
	created := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute).Truncate(time.Microsecond) }
	type row struct {
		id uint64
		at time.Time
	}
	var rows []row
	for i, id := range ids {
		rows = append(rows, row{id, created(i)})
	}
	for _, size := range []int{0, 1, 7, 20, 45, 5000} {
		for _, afterID := range []uint64{0, ids[0], ids[10] + 1, ids[44], 1000} {
			for _, sortBy := range [][]SortOrder{nil, {{"id", Asc}}, {{"id", Desc}}, {{"createdAt", Desc}}, {{"foreignId", Asc}}} {
				for _, afterDate := range []time.Time{{}, created(30).Add(-time.Second)} {
					var want []uint64
					for _, r := range rows {
						if r.id > afterID && (afterDate.IsZero() || r.at.After(afterDate)) {
							want = append(want, r.id)
						}
					}
					if len(sortBy) > 0 && sortBy[0].Direction == Desc {
						slices.Reverse(want)
					}
					eff := size
					if eff == 0 {
						eff = 20
					}
					eff = min(eff, 2000)
					for page := 0; page <= len(want)/eff+1; page++ {
						pr := PageRequest{Page: page, Size: size, Sort: sortBy, AfterID: afterID, AfterDate: afterDate}
						got, err := f.svc.ListOrders(f.ctx, "site-a", pr)
						if err != nil {
							t.Fatal(err)
						}
						lo, hi := min(page*eff, len(want)), min(page*eff+eff, len(want))
						var gotIDs []uint64
						for _, c := range got.Content {
							gotIDs = append(gotIDs, c.ID)
						}
						if !slices.Equal(want[lo:hi], gotIDs) || got.TotalElements != int64(len(want)) {
							t.Fatalf("%+v: got %v (total %d), want %v (total %d)", pr, gotIDs, got.TotalElements, want[lo:hi], len(want))
						}
					}
				}
			}
		}
	}
}

func TestListErrors(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name string
		call func() error
		msg  string
	}{
		{"unknown order sort", func() error {
			return second(f.svc.ListOrders(f.ctx, "s", PageRequest{Sort: []SortOrder{{"email", Asc}}}))
		}, `invalid request: sort: cannot sort by "email"; sortable: id, createdAt, foreignId, foreignNumber, foreignName`},
		{"bad direction", func() error {
			return second(f.svc.ListReturns(f.ctx, "s", PageRequest{Sort: []SortOrder{{"id", "up"}}}))
		}, `invalid request: sort: direction must be asc or desc, not "up"`},
		{"negative size", func() error { return second(f.svc.ListReturns(f.ctx, "s", PageRequest{Size: -1})) }, "invalid request: size: must not be negative"},
		{"negative page", func() error { return second(f.svc.ListRefunds(f.ctx, "s", "", PageRequest{Page: -1})) }, "invalid request: page: must not be negative"},
		{"huge page", func() error { return second(f.svc.ListOrders(f.ctx, "s", PageRequest{Page: math.MaxInt})) }, "invalid request: page: must be at most 2147483647"},
		{"bad status", func() error { return second(f.svc.ListRefunds(f.ctx, "s", "DONE", PageRequest{})) },
			`invalid request: status: must be AWAITING_EXTERNAL_REFUND, PENDING, SUCCESS, FAILED or REFUNDED, not "DONE"`},
	}
	for _, tt := range tests {
		if err := tt.call(); kindOf(err) != "invalid argument" || deliverykit.Message(err) != tt.msg {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.msg)
		}
	}
}

func TestListReturnsAndRefundsSorted(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	f.importOrder(t, "site-a", "A-2")
	for _, o := range []string{"A-1", "A-2"} {
		r := f.createReturn(t, "site-a", o, CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
		if _, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1, Approved: o == "A-1"}}}); err != nil {
			t.Fatal(err)
		}
	}
	f.createReturn(t, "site-a", "A-2", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	rets, err := f.svc.ListReturns(f.ctx, "site-a", PageRequest{Sort: []SortOrder{{"status", Asc}, {"id", Desc}}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rets.Content {
		got = append(got, fmt.Sprintf("%d %s %s", r.ID, r.Status, r.Order.ForeignID))
	}
	want := []string{"1 AWAITING_REFUND A-1", "3 AWAITING_RETURN A-2", "2 COMPLETED A-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("returns (-want +got):\n%s", diff)
	}
	refunds, err := f.svc.ListRefunds(f.ctx, "site-a", TxRefunded, PageRequest{})
	if err != nil || refunds.TotalElements != 0 {
		t.Errorf("REFUNDED filter: %v %d", err, refunds.TotalElements)
	}
	refunds, _ = f.svc.ListRefunds(f.ctx, "site-a", "", PageRequest{Sort: []SortOrder{{"amountToRefund", Desc}}})
	if refunds.TotalElements != 1 || refunds.Content[0].AmountToRefund != sek(0) {
		t.Errorf("refund of 0.10 minus 59.50 costs must be 0.00: %+v", refunds.Content)
	}
}

// A return keeps its order's summary, so a page of returns does not read
// the orders; returns stored before it did are listed the same, from
// their orders.
func TestListReturnsWithAndWithoutStoredOrderSummary(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	f.clock.Advance(time.Hour)
	f.importOrder(t, "site-a", "A-2")
	for _, o := range []string{"A-1", "A-2", "A-2"} {
		f.createReturn(t, "site-a", o, CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	}
	page := func() Page[ReturnSummary] {
		t.Helper()
		p, err := f.svc.ListReturns(f.ctx, "site-a", PageRequest{Size: 10})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := page()
	if c := want.Content; len(c) != 3 || c[2].Order.ForeignID != "A-2" || time.Time(c[2].Order.CreatedAt).Sub(time.Time(c[0].Order.CreatedAt)) != time.Hour {
		t.Fatalf("page: %+v", want.Content)
	}
	// Forget the stored summaries, as returns of earlier versions had
	// none.
	err := f.svc.store.Update(f.ctx, func(tx storage.Tx) error {
		var all []storage.Item[returnRecord]
		for it, err := range returnsColl.Scan(tx, storage.Range{Prefix: storage.KeyPrefix("site-a")}) {
			if err != nil {
				return err
			}
			all = append(all, it)
		}
		for _, it := range all {
			if it.Value.Order == nil {
				t.Errorf("return %d was stored without its order's summary", it.Value.ID)
			}
			it.Value.Order = nil
			if _, err := returnsColl.Put(tx, it.Key, it.Value, storage.VersionIs(it.Version)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, page()); diff != "" {
		t.Errorf("page from the orders differs from the page from the returns (-returns +orders):\n%s", diff)
	}
}
