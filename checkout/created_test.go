package checkout

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Every way of opening a session counts it on its site's day, in the
// create's transaction; a refused create counts nothing.
func TestCreatedByDay(t *testing.T) {
	f := newFixture(t)
	create := func(site string) error { _, err := f.svc.Create(ctx, site, createRequest()); return err }
	tests := []struct {
		name    string
		open    func() error
		advance time.Duration
		want    [2]int64 // demo-site's yesterday and today, as of the last step
	}{
		{name: "first generation", open: func() error { return create("demo-site") }, want: [2]int64{0, 1}},
		{name: "newer generation", open: func() error {
			_, err := f.svc.CreateCheckout(ctx, "demo-site", gen2Request())
			return err
		}, want: [2]int64{0, 2}},
		{name: "another site's", open: func() error { return create("demo-site-2") }, want: [2]int64{0, 2}},
		{name: "refused", open: func() error {
			req := createRequest()
			req.Locales = nil
			if _, err := f.svc.Create(ctx, "demo-site", req); err == nil {
				t.Fatal("a create without locales was accepted")
			}
			return nil
		}, want: [2]int64{0, 2}},
		{name: "the next day, a clone of a completed order", advance: 24 * time.Hour, open: func() error {
			v, err := f.svc.Create(ctx, "demo-site", createRequest())
			if err != nil {
				return err
			}
			done, err := f.svc.Complete(ctx, "demo-site", CompleteRequest{ID: v.Session.ID, Customer: &Customer{Email: "e@example.com", Address: &CustomerAddress{Name: "Eva", PostalCode: "111 57", Country: "SE"}}})
			if err != nil {
				return err
			}
			_, err = f.svc.CreateFromOrder(ctx, "demo-site", CreateFromOrderRequest{TosID: done.TosID})
			return err
		}, want: [2]int64{2, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.clock.Advance(tt.advance)
			if err := tt.open(); err != nil {
				t.Fatal(err)
			}
			now := f.clock.Now()
			days, err := f.svc.CreatedByDay(ctx, "demo-site", now.AddDate(0, 0, -1), now)
			if err != nil {
				t.Fatal(err)
			}
			var got [2]int64
			for i, d := range days {
				got[i] = d.Count
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("demo-site's sessions yesterday and today (-want +got):\n%s", d)
			}
		})
	}
	days, err := f.svc.CreatedByDay(ctx, "demo-site-2", testNow, testNow)
	if err != nil || len(days) != 1 || days[0].Count != 1 {
		t.Errorf("demo-site-2 on the first day: %v, %v; want 1 session", days, err)
	}
}
