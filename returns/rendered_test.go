package returns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// countingJSON is a SummaryRenderer of a summary's JSON that counts its
// calls.
func countingJSON(calls *atomic.Int64) *SummaryRenderer {
	return NewSummaryRenderer(func(s *ReturnSummary) ([]byte, error) {
		calls.Add(1)
		return json.Marshal(s)
	})
}

// renderedPages are the page requests TestListReturnsRenderedIsListReturns
// compares: every paging path, the kept one and the others.
var renderedPages = []struct {
	name string
	pr   PageRequest
}{
	{"first page", PageRequest{}},
	{"page of 2", PageRequest{Page: 1, Size: 2}},
	{"id desc", PageRequest{Size: 3, Sort: []SortOrder{{"id", Desc}}}},
	{"afterId", PageRequest{AfterID: 2}},
	{"past the end", PageRequest{Page: 9, Size: 2}},
	{"by status", PageRequest{Sort: []SortOrder{{"status", Asc}}}},
	{"afterDate", PageRequest{AfterDate: t0.Add(-time.Hour)}},
}

// TestListReturnsRenderedIsListReturns holds every page of
// ListReturnsRendered to the JSON of ListReturns' page, byte for byte,
// after each kind of change of a return: a kept rendering of an older
// version would differ.
func TestListReturnsRenderedIsListReturns(t *testing.T) {
	for _, st := range []struct {
		name  string
		store storage.Store
	}{
		// The memory store lists a page's records without their values
		// (storage.VersionScanner); scanStore's transactions cannot.
		{"versions listed", memory.New()},
		{"values scanned", scanStore{memory.New()}},
	} {
		t.Run(st.name, func(t *testing.T) { testListReturnsRendered(t, newFixtureOn(t, st.store)) })
	}
}

// scanStore is a store whose transactions have no ScanVersions.
type scanStore struct{ storage.Store }

func (s scanStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	return s.Store.View(ctx, func(tx storage.Tx) error { return fn(struct{ storage.Tx }{tx}) })
}

func testListReturnsRendered(t *testing.T, f *fixture) {
	f.importOrder(t, "site-a", "A-1")
	f.importOrder(t, "site-a", "A-2")
	var ids []uint64
	for _, o := range []string{"A-1", "A-2", "A-2", "A-1"} {
		ids = append(ids, f.createReturn(t, "site-a", o, CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1}).ID)
	}
	f.importOrder(t, "site-b", "A-1")
	f.createReturn(t, "site-b", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})

	var calls atomic.Int64
	r := countingJSON(&calls)
	check := func(t *testing.T) {
		t.Helper()
		for _, c := range renderedPages {
			want, err := f.svc.ListReturns(f.ctx, "site-a", c.pr)
			if err != nil {
				t.Fatalf("%s: ListReturns: %v", c.name, err)
			}
			got, err := f.svc.ListReturnsRendered(f.ctx, "site-a", c.pr, r)
			if err != nil {
				t.Fatalf("%s: ListReturnsRendered: %v", c.name, err)
			}
			if diff := cmp.Diff(string(mustJSON(t, want)), string(mustJSON(t, got))); diff != "" {
				t.Errorf("%s: rendered page differs (-computed +rendered):\n%s", c.name, diff)
			}
		}
	}
	changes := []struct {
		name   string
		change func() error
	}{
		{"as created", func() error { return nil }},
		{"status link renewed", func() error { _, err := f.svc.RenewStatusLink(f.ctx, "site-a", ids[1]); return err }},
		{"in transit", func() error {
			_, err := f.svc.MarkInTransit(f.ctx, "site-a", ids[2], ShipmentInput{Carrier: "north", TrackingReference: "T-1"})
			return err
		}},
		{"items reported", func() error {
			_, err := f.svc.ReportReturnedItems(f.ctx, "site-a", ReturnedItemsInput{ReturnID: ids[0],
				Items: []ReturnedItemInput{{SKU: "SOCKS", Quantity: 1, Approved: true}}})
			return err
		}},
		{"refunded", func() error {
			p, err := f.svc.ListRefunds(f.ctx, "site-a", "", PageRequest{})
			if err != nil || len(p.Content) == 0 {
				return fmt.Errorf("no refund to mark: %v", err)
			}
			_, err = f.svc.MarkRefunded(f.ctx, "site-a", p.Content[0].RefundID)
			return err
		}},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			if err := ch.change(); err != nil {
				t.Fatal(err)
			}
			check(t)
		})
	}

	// An unchanged page is answered from the kept renderings; a change
	// renders the changed return alone again.
	pr := PageRequest{}
	if _, err := f.svc.ListReturnsRendered(f.ctx, "site-a", pr, r); err != nil {
		t.Fatal(err)
	}
	before := calls.Load()
	if _, err := f.svc.ListReturnsRendered(f.ctx, "site-a", pr, r); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load() - before; n != 0 {
		t.Errorf("an unchanged page rendered %d rows again, want 0", n)
	}
	if _, err := f.svc.RenewStatusLink(f.ctx, "site-a", ids[3]); err != nil {
		t.Fatal(err)
	}
	before = calls.Load()
	if _, err := f.svc.ListReturnsRendered(f.ctx, "site-a", pr, r); err != nil {
		t.Fatal(err)
	}
	if n := calls.Load() - before; n != 1 {
		t.Errorf("a page with one changed return rendered %d rows, want 1", n)
	}
	// Another renderer's rows are its own.
	var otherCalls atomic.Int64
	other := NewSummaryRenderer(func(s *ReturnSummary) ([]byte, error) {
		otherCalls.Add(1)
		return []byte(fmt.Sprintf(`{"other":%d}`, s.ID)), nil
	})
	p, err := f.svc.ListReturnsRendered(f.ctx, "site-a", pr, other)
	if err != nil {
		t.Fatal(err)
	}
	if otherCalls.Load() != int64(len(ids)) || !bytes.HasPrefix(mustJSON(t, p), []byte(`{"content":[{"other":1},`)) {
		t.Errorf("another renderer: %d calls, page %s", otherCalls.Load(), mustJSON(t, p))
	}
}

// TestListReturnsRenderedWithoutStoredOrderSummary: a return stored without
// its order's summary is rendered from its order on every read, never
// kept (its row depends on the order's record too).
func TestListReturnsRenderedWithoutStoredOrderSummary(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	want, err := f.svc.ListReturns(f.ctx, "site-a", PageRequest{})
	if err != nil {
		t.Fatal(err)
	}
	err = f.svc.store.Update(f.ctx, func(tx storage.Tx) error {
		it, err := returnsColl.Get(tx, storage.Key("site-a", storage.Uint64Key(1)))
		if err != nil {
			return err
		}
		it.Value.Order = nil
		_, err = returnsColl.Put(tx, it.Key, it.Value, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	r := countingJSON(&calls)
	for range 2 {
		got, err := f.svc.ListReturnsRendered(f.ctx, "site-a", PageRequest{}, r)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(mustJSON(t, want)), string(mustJSON(t, got))); diff != "" {
			t.Errorf("rendered page differs (-computed +rendered):\n%s", diff)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d renderings in two reads, want 3: the return without its order's summary twice", n)
	}
}

func TestListReturnsRenderedErrors(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	failing := NewSummaryRenderer(func(*ReturnSummary) ([]byte, error) { return nil, errors.New("boom") })
	tests := []struct {
		name string
		pr   PageRequest
		r    *SummaryRenderer
		kind string
	}{
		{"no renderer", PageRequest{}, nil, "internal"},
		{"renderer without function", PageRequest{}, &SummaryRenderer{}, "internal"},
		{"bad sort", PageRequest{Sort: []SortOrder{{"colour", Asc}}}, countingJSON(new(atomic.Int64)), "invalid argument"},
		{"renderer fails", PageRequest{}, failing, "internal"},
		{"renderer fails, other sort", PageRequest{Sort: []SortOrder{{"status", Asc}}}, failing, "internal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.svc.ListReturnsRendered(f.ctx, "site-a", tt.pr, tt.r)
			if got := kindOf(err); got != tt.kind {
				t.Errorf("got %s (%v), want %s", got, err, tt.kind)
			}
		})
	}
}

// TestSummaryCacheBudget: the kept renderings stay within their budget,
// and a rendering of an older version never replaces a newer one.
func TestSummaryCacheBudget(t *testing.T) {
	c := &New(nil, Options{}).summaries
	r := countingJSON(new(atomic.Int64))
	row := bytes.Repeat([]byte("x"), 1000)
	for i := range 10 * SummaryCacheBytes / len(row) {
		c.put(fmt.Sprint("site/", i), uint64(i+1), r, row)
		if used, _ := c.Bytes(); used > SummaryCacheBytes {
			t.Fatalf("after %d renderings %d bytes are kept, more than %d", i+1, used, SummaryCacheBytes)
		}
	}
	c.put("site/k", 7, r, []byte("new"))
	c.put("site/k", 6, r, []byte("old"))
	if b, ok := c.get("site/k", 7, r); !ok || string(b) != "new" {
		t.Errorf("get(version 7) = %q, %v; want the newer rendering", b, ok)
	}
	if _, ok := c.get("site/k", 6, r); ok {
		t.Error("the older version's rendering was kept")
	}
	c.put("site/big", 1, r, make([]byte, SummaryCacheBytes/8))
	if _, ok := c.get("site/big", 1, r); ok {
		t.Error("a rendering over an eighth of the budget was kept")
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
