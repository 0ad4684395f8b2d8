package returns

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// listIDs pages through the site's returns in id order, size per page,
// and returns the ids and the total every page reported.
func listIDs(t *testing.T, f *fixture, site string, pr PageRequest) ([]uint64, []int64) {
	t.Helper()
	var ids []uint64
	var totals []int64
	for ; ; pr.Page++ {
		p, err := f.svc.ListReturns(f.ctx, site, pr)
		if err != nil {
			t.Fatalf("ListReturns(%s, %+v): %v", site, pr, err)
		}
		totals = append(totals, p.TotalElements)
		if len(p.Content) == 0 {
			return ids, totals
		}
		for _, r := range p.Content {
			ids = append(ids, r.ID)
		}
	}
}

func refundIDs(t *testing.T, f *fixture, site string) ([]uint64, int64) {
	t.Helper()
	p, err := f.svc.ListRefunds(f.ctx, site, "", PageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for _, r := range p.Content {
		ids = append(ids, r.RefundID)
	}
	return ids, p.TotalElements
}

// TestSweepReturns: a site's returns go in rank order while they are past
// their retention (ten days after their last change), the sweep stops at
// the first that is not, and the lists page as if the deleted ones had
// never been; deleted returns, their refunds, tokens and photos answer
// NotFound, and another site's returns stay until their own time.
func TestSweepReturns(t *testing.T) {
	store := memory.New()
	clock := deliverykit.NewManualClock(t0)
	blobs := &MemoryBlobs{}
	svc := New(store, Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Retention: 10 * day,
		Policies: StaticPolicies{"site-a": testPolicy, "site-b": testPolicy}, Reasons: testReasons,
		PublicURL: "http://127.0.0.1:8080/", Blobs: blobs, ImageURLSecret: []byte("0123456789abcdef0123456789abcdef")})
	f := &fixture{svc: svc, store: store, clock: clock, ctx: t.Context()}
	at := func(d time.Duration) { clock.Set(t0.Add(d)) }
	approve := func(r Return, sku string) {
		t.Helper()
		if _, err := svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: r.ID,
			Items: []ReturnedItemInput{{SKU: sku, Quantity: 1, Approved: true}}}); err != nil {
			t.Fatal(err)
		}
	}
	f.importOrder(t, "site-a", "A-1")
	f.importOrder(t, "site-a", "A-2")
	f.importOrder(t, "site-b", "B-1")
	// r1: a complaint with a photo, a renewed link (two tokens) and a
	// refund made after r2's, so that its refund is not the oldest.
	r1 := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1,
		Complaint: &ComplaintInput{ReasonID: "damaged", Text: "torn"}})
	oldToken := tokenOfURL(t, r1.StatusURL)
	if _, err := svc.AddComplaintPhotos(f.ctx, oldToken, r1.Items[0].ID, ComplaintUpload{Images: []UploadedImage{{Field: "image[0]", Data: pngBytes(t)}}}); err != nil {
		t.Fatal(err)
	}
	renewed, err := svc.RenewStatusLink(f.ctx, "site-a", r1.ID)
	if err != nil {
		t.Fatal(err)
	}
	at(1 * day)
	r2 := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	at(2 * day)
	r3 := f.createReturn(t, "site-a", "A-2", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	at(3 * day)
	r4 := f.createReturn(t, "site-a", "A-2", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	at(4 * day)
	approve(r2, "SOCKS")
	at(5 * day)
	approve(r1, "JACKET-M")
	at(20 * day) // r3 changes: it stays until day 30, and r4 behind it
	if _, err := svc.RenewStatusLink(f.ctx, "site-a", r3.ID); err != nil {
		t.Fatal(err)
	}
	at(25 * day)
	rb := f.createReturn(t, "site-b", "B-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	if n := blobs.Len(); n != 1 {
		t.Fatalf("%d photos stored, want 1", n)
	}
	refunds, _ := refundIDs(t, f, "site-a")
	if len(refunds) != 2 {
		t.Fatalf("refunds %v, want two", refunds)
	}

	for _, tc := range []struct {
		name      string
		at        time.Duration
		deleted   int
		live      []uint64 // site-a, id order
		gone      []uint64
		refunds   int
		siteB     []uint64
		photos    int
		goneToken []string
	}{
		{name: "r2 is due but waits for r1", at: 15*day - time.Minute, live: []uint64{r1.ID, r2.ID, r3.ID, r4.ID},
			refunds: 2, siteB: []uint64{rb.ID}, photos: 1},
		{name: "r1 and r2 go, r3 stops the sweep, r4 waits", at: 15 * day, deleted: 2, live: []uint64{r3.ID, r4.ID},
			gone: []uint64{r1.ID, r2.ID}, siteB: []uint64{rb.ID},
			goneToken: []string{oldToken, tokenOfURL(t, renewed.StatusURL), tokenOfURL(t, r2.StatusURL)}},
		{name: "r3 not yet", at: 30*day - time.Minute, live: []uint64{r3.ID, r4.ID}, gone: []uint64{r1.ID, r2.ID}, siteB: []uint64{rb.ID}},
		{name: "r3 and r4 go, site-b stays", at: 30 * day, deleted: 2, gone: []uint64{r1.ID, r2.ID, r3.ID, r4.ID}, siteB: []uint64{rb.ID}},
		{name: "site-b's goes at its own time", at: 35 * day, deleted: 1, gone: []uint64{r3.ID, r4.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, err := svc.Sweep(f.ctx, t0.Add(tc.at), 0)
			if err != nil || n != tc.deleted {
				t.Fatalf("Sweep deleted %d (%v), want %d", n, err, tc.deleted)
			}
			for _, pr := range []PageRequest{{Size: 1}, {Size: 2}, {}} {
				ids, totals := listIDs(t, f, "site-a", pr)
				if diff := cmp.Diff(tc.live, ids); diff != "" {
					t.Errorf("site-a pages of %d (-want +got):\n%s", pr.Size, diff)
				}
				for _, total := range totals {
					if total != int64(len(tc.live)) {
						t.Errorf("site-a pages of %d: totals %v, want %d", pr.Size, totals, len(tc.live))
						break
					}
				}
			}
			if len(tc.live) > 0 {
				desc, _ := listIDs(t, f, "site-a", PageRequest{Size: 1, Sort: []SortOrder{{"id", Desc}}})
				want := slices.Clone(tc.live)
				slices.Reverse(want)
				if !slices.Equal(desc, want) {
					t.Errorf("site-a descending: %v, want %v", desc, want)
				}
				after, _ := listIDs(t, f, "site-a", PageRequest{Size: 1, AfterID: tc.live[0]})
				if diff := cmp.Diff(tc.live[1:], after); diff != "" {
					t.Errorf("site-a after id %d (-want +got):\n%s", tc.live[0], diff)
				}
			}
			if ids, _ := listIDs(t, f, "site-b", PageRequest{}); !slices.Equal(ids, tc.siteB) {
				t.Errorf("site-b: %v, want %v", ids, tc.siteB)
			}
			for _, id := range tc.gone {
				if _, err := svc.GetReturn(f.ctx, "site-a", id); !errors.Is(err, deliverykit.ErrNotFound) {
					t.Errorf("GetReturn(%d) of a deleted return: %v, want NotFound", id, err)
				}
			}
			for _, tok := range tc.goneToken {
				if _, _, err := svc.ReturnByToken(f.ctx, tok); !errors.Is(err, deliverykit.ErrNotFound) || errors.Is(err, ErrStatusLinkExpired) {
					t.Errorf("ReturnByToken(%s) of a deleted return: %v, want NotFound", tok, err)
				}
			}
			if ids, total := refundIDs(t, f, "site-a"); len(ids) != tc.refunds || total != int64(tc.refunds) {
				t.Errorf("refunds %v (total %d), want %d", ids, total, tc.refunds)
			}
			if n := blobs.Len(); n != tc.photos {
				t.Errorf("%d photos left, want %d", n, tc.photos)
			}
		})
	}
	o, err := svc.GetOrder(f.ctx, "site-a", "A-1", IDForeign)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Returns) != 0 || len(o.OrderRefund.Transactions) != 0 {
		t.Errorf("order A-1 still shows %d returns and %d refunds", len(o.Returns), len(o.OrderRefund.Transactions))
	}

	// A site whose returns all went continues its ids and ranks, and its
	// next return is swept in turn.
	at(40 * day)
	f.importOrder(t, "site-a", "A-3")
	r5 := f.createReturn(t, "site-a", "A-3", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	if r5.ID != r4.ID+1 {
		t.Errorf("the next return after deletions has id %d, want %d", r5.ID, r4.ID+1)
	}
	if ids, totals := listIDs(t, f, "site-a", PageRequest{Size: 1}); !slices.Equal(ids, []uint64{r5.ID}) || totals[0] != 1 {
		t.Errorf("site-a after a new return: %v (totals %v)", ids, totals)
	}
	if n, err := svc.Sweep(f.ctx, t0.Add(50*day), 0); err != nil || n != 1 {
		t.Errorf("sweep of the new return deleted %d (%v), want 1", n, err)
	}
	for _, coll := range []string{"returns.returns", "returns.refunds", "returns.return_ranks", "returns.refund_ranks",
		"returns.return_by_token", "returns.return_tokens", "returns.return_by_tracking", "returns.expiry", "returns.photo_trash"} {
		if keys := collKeys(t, f, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q after every return was swept", coll, keys)
		}
	}
}

func collKeys(t *testing.T, f *fixture, coll string) []string {
	t.Helper()
	var keys []string
	err := f.store.View(f.ctx, func(tx storage.Tx) error {
		for rec, err := range tx.Scan(coll, storage.Range{}) {
			if err != nil {
				return err
			}
			keys = append(keys, rec.Key)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestSweepReturnsStoredBefore: returns stored before returns were swept
// (no expiry entry, no updatedAt, tokens not listed) are indexed by the
// first sweep and go after their recorded last change, with their token.
func TestSweepReturnsStoredBefore(t *testing.T) {
	f := newFixture(t)
	f.svc.retention = 10 * day
	o := f.importOrder(t, "site-a", "A-1")
	err := f.store.Update(f.ctx, func(tx storage.Tx) error {
		for i, arrived := range []time.Time{t0.Add(2 * day), t0.Add(30 * day)} {
			id, rank, err := f.svc.returns.next(tx, "site-a")
			if err != nil {
				return err
			}
			r := returnRecord{ID: id, Rank: rank, OrderID: o.ID, Token: "old-" + string(rune('a'+i)), Status: StatusAwaitingReturn,
				CreatedAt: t0, ArrivedAt: &arrived, Lines: []returnLine{{ID: 1, Quantity: 1}}}
			if err := f.svc.returns.insert(tx, "site-a", id, rank, r); err != nil {
				return err
			}
			if _, err := returnByToken.Put(tx, r.Token, tokenRecord{Site: "site-a", ReturnID: id}, storage.MustNotExist()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		at   time.Duration
		want int
		live []uint64
	}{
		{12*day - time.Minute, 0, []uint64{1, 2}},
		{12 * day, 1, []uint64{2}},
		{40*day - time.Minute, 0, []uint64{2}},
		{40 * day, 1, nil},
	} {
		if n, err := f.svc.Sweep(f.ctx, t0.Add(tt.at), 0); err != nil || n != tt.want {
			t.Errorf("sweep at +%s: %d (%v), want %d", tt.at, n, err, tt.want)
		}
		if ids, _ := listIDs(t, f, "site-a", PageRequest{}); !slices.Equal(ids, tt.live) {
			t.Errorf("returns after the sweep at +%s: %v, want %v", tt.at, ids, tt.live)
		}
	}
	for _, coll := range []string{"returns.returns", "returns.return_by_token", "returns.return_tokens", "returns.expiry"} {
		if keys := collKeys(t, f, coll); len(keys) != 0 {
			t.Errorf("%s keeps %q", coll, keys)
		}
	}
}
