package returns

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// TestIDsPerSite: orders, returns and refunds are numbered per site, so
// interleaved activity of two sites gives each 1, 2, 3 …
func TestIDsPerSite(t *testing.T) {
	f := newFixture(t)
	type ids struct{ Orders, Returns, Refunds []uint64 }
	got := map[string]*ids{"site-a": {}, "site-b": {}}
	for _, step := range []struct{ site, order string }{{"site-a", "A-1"}, {"site-b", "B-1"}, {"site-a", "A-2"}, {"site-a", "A-3"}, {"site-b", "B-2"}} {
		o := f.importOrder(t, step.site, step.order)
		r := f.createReturn(t, step.site, step.order, CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
		res, err := f.svc.ReportReturnedItems(f.ctx, step.site, ReturnedItemsInput{ReturnID: r.ID, Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1, Approved: true}}})
		if err != nil {
			t.Fatal(err)
		}
		g := got[step.site]
		g.Orders, g.Returns = append(g.Orders, o.ID), append(g.Returns, r.ID)
		for _, rf := range res.RefundTransactions {
			g.Refunds = append(g.Refunds, rf.RefundID)
		}
	}
	want := map[string]*ids{
		"site-a": {Orders: []uint64{1, 2, 3}, Returns: []uint64{1, 2, 3}, Refunds: []uint64{1, 2, 3}},
		"site-b": {Orders: []uint64{1, 2}, Returns: []uint64{1, 2}, Refunds: []uint64{1, 2}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ids (-want +got):\n%s", diff)
	}
}

// legacyOrder stores an order as earlier versions did: its id from the
// sequence every site shared, its foreign-id index without the e-mail
// digest.
func legacyOrder(t *testing.T, f *fixture, site, foreignID string) uint64 {
	t.Helper()
	var id uint64
	err := f.svc.store.Update(f.ctx, func(tx storage.Tx) error {
		var err error
		if id, err = ordersColl.NextSequence(tx); err != nil {
			return err
		}
		n, err := f.svc.orders.count(tx, site)
		if err != nil {
			return err
		}
		rec := orderRecord{ID: id, Rank: n + 1, ForeignID: foreignID, Currency: "SEK", Scale: 2, Email: "Customer@Example.com", CreatedAt: t0,
			Lines: []orderLine{{ID: 1, ForeignLineItemID: "L1", SKU: "JACKET-M", Quantity: 2, Price: 129990, Tax: 25998}}}
		if _, err := orderByForeignID.Put(tx, storage.Key(site, foreignID), idRecord{ID: id}, storage.MustNotExist()); err != nil {
			return err
		}
		return f.svc.orders.insert(tx, site, id, rec.Rank, rec)
	})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLegacyGlobalIDs: orders stored with ids of the shared sequence
// (site-a got 1, 3, 5 and site-b 2, 4) still read and list, and a site's
// new ids continue above its highest old one, so they never collide.
func TestLegacyGlobalIDs(t *testing.T) {
	f := newFixture(t)
	for _, o := range []struct{ site, id string }{{"site-a", "A-1"}, {"site-b", "B-1"}, {"site-a", "A-2"}, {"site-b", "B-2"}, {"site-a", "A-3"}} {
		legacyOrder(t, f, o.site, o.id)
	}
	newA := f.importOrder(t, "site-a", "A-4")
	newB := f.importOrder(t, "site-b", "B-3")
	newA2 := f.importOrder(t, "site-a", "A-5")
	if diff := cmp.Diff([]uint64{6, 5, 7}, []uint64{newA.ID, newB.ID, newA2.ID}); diff != "" {
		t.Errorf("new ids (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		site string
		want []uint64
	}{{"site-a", []uint64{1, 3, 5, 6, 7}}, {"site-b", []uint64{2, 4, 5}}} {
		p, err := f.svc.ListOrders(f.ctx, c.site, PageRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var got []uint64
		for _, o := range p.Content {
			got = append(got, o.ID)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s lists (-want +got):\n%s", c.site, diff)
		}
		for _, id := range c.want {
			if _, err := f.svc.GetOrder(f.ctx, c.site, strconv.FormatUint(id, 10), IDService); err != nil {
				t.Errorf("%s order %d: %v", c.site, id, err)
			}
		}
	}
	// An old order's index has no e-mail digest: a wrong e-mail is the
	// same not found, the right one takes a return (numbered per site)
	// and stores the digest, so the next customer return decides on it.
	_, err := f.svc.CreateReturn(f.ctx, CustomerReturnInput{SiteID: "site-b", ForeignOrderID: "B-2", Email: "eve@example.com",
		Items: []CustomerReturnItemInput{{ForeignLineItemID: "L1", Quantity: 1}}})
	if deliverykit.Message(err) != "no order with this foreignOrderId and email" {
		t.Errorf("wrong e-mail on an old order: %v", err)
	}
	if got := indexDigest(t, f, "site-b", "B-2"); got != nil {
		t.Errorf("a refused return stored the digest %x", got)
	}
	r := f.createReturn(t, "site-b", "B-2", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	if r.ID != 1 || r.Order.ID != 4 {
		t.Errorf("return %d of order %d, want 1 of 4", r.ID, r.Order.ID)
	}
	if diff := cmp.Diff(emailDigest(" CUSTOMER@example.com"), indexDigest(t, f, "site-b", "B-2")); diff != "" {
		t.Errorf("digest after the return (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(emailDigest("customer@example.com"), indexDigest(t, f, "site-a", "A-4")); diff != "" {
		t.Errorf("digest of an imported order (-want +got):\n%s", diff)
	}
}

// indexDigest reads the e-mail digest of an order's foreign-id index.
func indexDigest(t *testing.T, f *fixture, site, foreignID string) []byte {
	t.Helper()
	var out []byte
	err := f.svc.store.View(f.ctx, func(tx storage.Tx) error {
		it, err := orderByForeignID.Get(tx, storage.Key(site, foreignID))
		out = it.Value.EmailDigest
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
