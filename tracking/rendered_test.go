package tracking

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/racedetector"
	"github.com/deliverykit/deliverykit/storage"
)

func marshal(a *GetTrackingParcelsResponse) ([]byte, error) { return json.Marshal(a) }

// countingJSON is a ParcelsRenderer encoding with encoding/json that
// counts its renderings: a read answered from the kept bytes renders
// nothing.
func countingJSON(n *atomic.Int64) *ParcelsRenderer {
	return NewParcelsRenderer(func(a *GetTrackingParcelsResponse) ([]byte, error) {
		n.Add(1)
		return json.Marshal(a)
	})
}

// TestParcelsRenderedIsParcels holds the kept answer of ParcelsRendered
// to the answer Parcels computes afresh, encoded the same way, byte for
// byte: as the clock moves onto, just past and back over the delay
// thresholds, as the parcel and the order change, and with two sites
// that use the same tracking number for different orders.
func TestParcelsRenderedIsParcels(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tos := f.setup(t)
	b := orderReq("ORD-B")
	b.Receiver.Name = "Bo Ek"
	b.Promises = nil
	tosB, err := f.svc.CreateOrder(ctx, "site-b", b)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.svc.CreateParcel(ctx, "site-b", parcelReq(tosB, "TN1")); err != nil {
		t.Fatal(err)
	}
	// scanning reads without ScanVersions: versionOf's other way.
	scanning, err := New(scanStore{f.svc.store}, f.svc.opts)
	if err != nil {
		t.Fatal(err)
	}
	// retrying runs every View's function twice, as a store retrying a
	// transaction may: the second run starts from nothing of the first.
	retrying, err := New(twiceStore{f.svc.store}, f.svc.opts)
	if err != nil {
		t.Fatal(err)
	}
	var renders atomic.Int64
	r := countingJSON(&renders)
	at := func(s string) func() error {
		return func() error {
			tm, err := time.Parse(time.RFC3339Nano, s)
			f.clock.Set(tm)
			return err
		}
	}
	steps := []struct {
		name   string
		change func() error
	}{
		{"as created", func() error { return nil }},
		{"a nanosecond before the submission deadline", at("2026-11-20T15:59:59.999999999Z")},
		{"at the submission deadline", at("2026-11-20T16:00:00Z")},
		{"a nanosecond past it: submission delayed", at("2026-11-20T16:00:00.000000001Z")},
		{"the clock set back before it", at("2026-11-20T15:00:00Z")},
		{"past it again", at("2026-11-21T09:00:00Z")},
		{"step", func() error {
			return f.svc.RecordEvent(ctx, "site-a", ev(StepSubmittedToCarrier, "", "2026-11-20T17:00:00Z"))
		}},
		{"at the delivery deadline", at("2026-11-22T18:00:00Z")},
		{"past it: delivery delayed", at("2026-11-22T18:00:00.000000001Z")},
		{"lines cancelled", func() error {
			return f.svc.CancelOrderLines(ctx, "site-a", CancelOrderLinesRequest{OrderID: tos, Lines: []CancelledLine{{SKU: "MUG", CancelledQuantity: 1}}})
		}},
		{"link rotated", func() error {
			_, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{SiteID: "site-a", Locale: "sv-SE", OrderID: tos, Rotate: true})
			return err
		}},
		{"site-b's parcel changes", func() error {
			return f.svc.RecordEvent(ctx, "site-b", ev(StepOnRoute, "", "2026-11-22T10:00:00Z"))
		}},
		{"carrier fallback turns on", at("2026-11-27T00:00:00Z")},
		{"delivered", func() error {
			return f.svc.RecordEvent(ctx, "site-a", ev(StepDeliveredToPickupPoint, "", "2026-11-23T10:00:00Z"))
		}},
	}
	reads := 0
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.change(); err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second read is served from the kept bytes
				for _, site := range []string{"site-a", "site-b", "site-a"} {
					q := ParcelsQuery{TrackingNumber: "TN1"}
					ans, err := f.svc.Parcels(ctx, site, q)
					if err != nil {
						t.Fatal(err)
					}
					want, err := json.Marshal(ans)
					if err != nil {
						t.Fatal(err)
					}
					for _, svc := range []*Service{f.svc, scanning, retrying} {
						got, err := svc.ParcelsRendered(ctx, site, q, r)
						if err != nil {
							t.Fatal(err)
						}
						reads++
						if diff := cmp.Diff(string(want), string(got.b)); diff != "" {
							t.Fatalf("%s: kept answer differs (-fresh +kept):\n%s", site, diff)
						}
					}
				}
			}
		})
	}
	if n := renders.Load(); n == 0 || n > int64(reads)/2 {
		t.Errorf("%d renderings for %d reads: the kept answers were not used", n, reads)
	}
	if used, n := f.svc.answers.Bytes(); used == 0 || n != 2 {
		t.Errorf("%d answers in %d bytes kept; want site-a's and site-b's", n, used)
	}
}

// twiceStore runs every View's function twice.
type twiceStore struct{ storage.Store }

func (s twiceStore) View(ctx context.Context, fn func(storage.Tx) error) error {
	if err := s.Store.View(ctx, fn); err != nil {
		return err
	}
	return s.Store.View(ctx, fn)
}

// TestParcelsRenderedKeptAllocations: a read answered with the kept bytes
// allocates only what the memory store's View and scans do (the
// transaction, and each scan's sequence and first key), and the prefix
// of the parcels' keys: nothing of its own that grows with the reads.
func TestParcelsRenderedKeptAllocations(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	var renders atomic.Int64
	r := countingJSON(&renders)
	q := ParcelsQuery{TrackingNumber: "TN1"}
	if _, err := f.svc.ParcelsRendered(ctx, "site-a", q, r); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := f.svc.ParcelsRendered(ctx, "site-a", q, r); err != nil {
			t.Fatal(err)
		}
	})
	if renders.Load() != 1 {
		t.Errorf("%d renderings, want 1: the reads were not answered with the kept bytes", renders.Load())
	}
	// Under the race detector sync.Pool drops a share of what is put
	// back, and the pooled value is made again.
	want := 6.0
	if racedetector.Enabled {
		want = 8
	}
	if allocs > want {
		t.Errorf("a kept read allocated %v times, want at most %v", allocs, want)
	}
}

// TestParcelsRenderedClockWindow: a kept answer is served while the
// clock stays on the side of every delay threshold it was computed on,
// and rendered afresh, with or without the delay alert, as soon as the
// clock crosses one either way.
func TestParcelsRenderedClockWindow(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	var renders atomic.Int64
	r := countingJSON(&renders)
	delayed := []byte(`"ALERT_SUBMISSION_DELAYED"`)
	// The promised submission window ends at 16:00 on the 20th.
	reads := []struct {
		at          time.Time
		wantDelayed bool
		wantRenders int64
	}{
		{t0, false, 1},
		{time.Date(2026, 11, 20, 15, 59, 0, 0, time.UTC), false, 1},
		{time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC), false, 1},
		{time.Date(2026, 11, 20, 16, 0, 0, 1, time.UTC), true, 2},
		{time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), true, 2},
		{time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), false, 3},
	}
	for _, rd := range reads {
		f.clock.Set(rd.at)
		got, err := f.svc.ParcelsRendered(ctx, "site-a", ParcelsQuery{TrackingNumber: "TN1"}, r)
		if err != nil {
			t.Fatal(err)
		}
		if d := bytes.Contains(got.b, delayed); d != rd.wantDelayed {
			t.Errorf("at %s the answer has the submission delay: %t, want %t", rd.at, d, rd.wantDelayed)
		}
		if n := renders.Load(); n != rd.wantRenders {
			t.Errorf("at %s: %d renderings in all, want %d", rd.at, n, rd.wantRenders)
		}
	}
}

// TestParcelsRenderedRenderers: answers are kept per renderer, and a
// read without one is refused.
func TestParcelsRenderedRenderers(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	f.setup(t)
	q := ParcelsQuery{TrackingNumber: "TN1"}
	compact := NewParcelsRenderer(marshal)
	indented := NewParcelsRenderer(func(a *GetTrackingParcelsResponse) ([]byte, error) { return json.MarshalIndent(a, "", " ") })
	for range 2 {
		for _, r := range []*ParcelsRenderer{compact, indented} {
			got, err := f.svc.ParcelsRendered(ctx, "site-a", q, r)
			if err != nil {
				t.Fatal(err)
			}
			if indent := bytes.Contains(got.b, []byte("\n")); indent != (r == indented) {
				t.Errorf("the answer is indented: %t, by the renderer of the other", indent)
			}
		}
	}
	if _, err := f.svc.ParcelsRendered(ctx, "site-a", q, nil); err == nil {
		t.Error("a read without a renderer answered")
	}
}

// TestAnswerCacheBudget: the kept answers stay within their bytes and
// their count, an answer over an eighth of the bytes is not kept, and the
// accounting is what the entries hold.
func TestAnswerCacheBudget(t *testing.T) {
	var c answerCache
	c.limit()
	r := NewParcelsRenderer(marshal)
	for _, size := range []int{10, 1000} {
		for i := range 3 * ParcelsAnswers {
			c.put(answerKey{"site", fmt.Sprint(size, "/", i)}, keptParcels{by: r, b: make([]byte, size)})
			if used, n := c.Bytes(); used > ParcelsAnswerBytes || n > ParcelsAnswers {
				t.Fatalf("after %d answers of %d bytes %d bytes in %d answers are kept", i+1, size, used, n)
			}
		}
	}
	k := answerKey{"site", "big"}
	c.put(k, keptParcels{by: r, b: make([]byte, ParcelsAnswerBytes/8)})
	if _, ok := c.get(k, r); ok {
		t.Error("an answer over an eighth of the budget was kept")
	}
	var used int64
	n := 0
	for k, e := range c.All() {
		used += e.size(k)
		n++
	}
	if gotUsed, gotN := c.Bytes(); gotUsed != used || gotN != n {
		t.Errorf("accounted %d bytes in %d answers; held %d in %d", gotUsed, gotN, used, n)
	}
}
