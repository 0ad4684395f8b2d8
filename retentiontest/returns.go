package retentiontest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage"
)

// returnsColls are the collections the returns area keeps for its
// returns and refunds: the records, then every index. Orders and the
// per-site first ranks stay.
var returnsColls = []string{"returns.returns", "returns.refunds", "returns.return_ranks", "returns.refund_ranks", "returns.return_by_token",
	"returns.return_tokens", "returns.expiry", "returns.photo_trash"}

func returnOrder(foreignID string) returns.OrderInput {
	return returns.OrderInput{ForeignID: foreignID, CurrencyCode: "SEK", Email: "a@example.com",
		Items: []returns.OrderItemInput{
			{ForeignLineItemID: "L1", SKU: "TENT", ProductTitle: "Tent", Quantity: 2, PurchasePriceAmount: returns.PriceInput{Amount: "400"}},
		}}
}

// testReturns: a site's returns go ten days after their last change in
// the order they were made (a later one that is due waits for an older
// one), with their refunds and status links; the merchant's pages count
// only the live ones, another site's returns stay, and nothing is left
// dangling.
func testReturns(t *testing.T, store storage.Store) {
	ctx := t.Context()
	clock := deliverykit.NewManualClock(start)
	svc := returns.New(store, returns.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Retention: 10 * day})
	for _, s := range []string{site, "other-site"} {
		if _, err := svc.ImportOrder(ctx, s, returnOrder("O-1")); err != nil {
			t.Fatal(err)
		}
	}
	create := func(s string) returns.Return {
		t.Helper()
		r, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: s, ForeignOrderID: "O-1", Email: "a@example.com",
			Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := create(site)
	clock.Set(start.Add(day))
	second := create(site)
	// The first return is refunded on day 3 and its link renewed: it is
	// due on day 13; the second (day 1) waits for it.
	clock.Set(start.Add(3 * day))
	if _, err := svc.ReportReturnedItems(ctx, site, returns.ReturnedItemsInput{ReturnID: first.ID,
		Items: []returns.ReturnedItemInput{{SKU: "TENT", Quantity: 1, Approved: true}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.RenewStatusLink(ctx, site, first.ID); err != nil {
		t.Fatal(err)
	}
	clock.Set(start.Add(5 * day))
	other := create("other-site") // due on day 15
	ids := func(s string) ([]uint64, int64) {
		t.Helper()
		p, err := svc.ListReturns(ctx, s, returns.PageRequest{Size: 1, Page: 0})
		if err != nil {
			t.Fatal(err)
		}
		var out []uint64
		for _, r := range p.Content {
			out = append(out, r.ID)
		}
		return out, p.TotalElements
	}
	for _, tt := range []struct {
		at     time.Time
		want   int
		page0  []uint64
		total  int64
		others int64
	}{
		{start.Add(13*day - time.Minute), 0, []uint64{first.ID}, 2, 1},
		{start.Add(13 * day), 2, nil, 0, 1},
	} {
		if n := sweep(t, svc, tt.at); n != tt.want {
			t.Errorf("sweep at %s deleted %d, want %d", tt.at, n, tt.want)
		}
		got, total := ids(site)
		if !slices.Equal(got, tt.page0) || total != tt.total {
			t.Errorf("page 0 at %s: %v of %d, want %v of %d", tt.at, got, total, tt.page0, tt.total)
		}
		if _, n := ids("other-site"); n != tt.others {
			t.Errorf("other site at %s: %d returns, want %d", tt.at, n, tt.others)
		}
	}
	for _, r := range []returns.Return{first, second} {
		if _, err := svc.GetReturn(ctx, site, r.ID); !errors.Is(err, deliverykit.ErrNotFound) {
			t.Errorf("get swept return %d: %v, want NotFound", r.ID, err)
		}
		_, tok, _ := strings.Cut(r.StatusURL, returns.StatusPagePath)
		if _, _, err := svc.ReturnByToken(ctx, tok); !errors.Is(err, deliverykit.ErrNotFound) {
			t.Errorf("status link of swept return %d: %v, want NotFound", r.ID, err)
		}
	}
	otherKeys := []string{storage.Key("other-site", storage.Uint64Key(other.ID))}
	if diff := cmp.Diff(otherKeys, scanKeys(t, store, "returns.returns")); diff != "" {
		t.Errorf("returns left (-want +got):\n%s", diff)
	}
	if n := sweep(t, svc, start.Add(15*day)); n != 1 {
		t.Errorf("the other site's return: swept %d, want 1", n)
	}
	for _, coll := range returnsColls {
		if keys := scanKeys(t, store, coll); len(keys) != 0 {
			t.Errorf("%s after every return was swept: %q", coll, keys)
		}
	}
}

// testReturnsCost: a sweep of a site's oldest returns touches as many
// records among 20 live returns as among 120, and so does the merchant's
// second page afterwards: the deleted prefix costs the pages nothing.
func testReturnsCost(t *testing.T, newStore NewStore) {
	const due = 3
	touched := func(live int) (sweepN, pageN int64) {
		store := newStore(t)
		clock := deliverykit.NewManualClock(start)
		opts := returns.Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Retention: 10 * day}
		svc := returns.New(store, opts)
		order := returnOrder("O-1")
		order.Items[0].Quantity = due + live
		if _, err := svc.ImportOrder(t.Context(), site, order); err != nil {
			t.Fatal(err)
		}
		for i := range due + live {
			if i == due {
				clock.Advance(10 * day) // the live ones are made later
			}
			if _, err := svc.CreateReturn(t.Context(), returns.CustomerReturnInput{SiteID: site, ForeignOrderID: "O-1", Email: "a@example.com",
				Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}}); err != nil {
				t.Fatal(err)
			}
		}
		if got := sweep(t, svc, start); got != 0 { // backfills, once
			t.Fatalf("sweep before anything is due deleted %d", got)
		}
		counting := &Counting{Store: store}
		svc = returns.New(counting, opts)
		if got := sweep(t, svc, start.Add(10*day+time.Minute)); got != due {
			t.Fatalf("sweep deleted %d returns, want %d", got, due)
		}
		sweepN = counting.Touched.Swap(0)
		p, err := svc.ListReturns(t.Context(), site, returns.PageRequest{Page: 1, Size: 5})
		if err != nil || p.TotalElements != int64(live) || len(p.Content) != 5 || p.Content[0].ID != due+6 {
			t.Fatalf("page 1 after the sweep: %v, total %d, %d rows, want %d rows of %d from id %d", err, p.TotalElements, len(p.Content), 5, live, due+6)
		}
		return sweepN, counting.Touched.Load()
	}
	sweepSmall, pageSmall := touched(20)
	sweepLarge, pageLarge := touched(120)
	if sweepSmall != sweepLarge || pageSmall != pageLarge {
		t.Errorf("among 20 live returns a sweep of %d touched %d records and a page %d; among 120, %d and %d: neither should depend on what is stored",
			due, sweepSmall, pageSmall, sweepLarge, pageLarge)
	}
}
