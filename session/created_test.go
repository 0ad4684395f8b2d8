package session_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/session"
)

// A created session counts on its site's day; a refused one does not.
// The area's Sweep deletes the days older than daycount.Keep.
func TestCreatedByDay(t *testing.T) {
	e := newEnv(t)
	ctx := t.Context()
	steps := []struct {
		name    string
		site    string
		in      session.Session
		advance time.Duration
		refused bool
		want    []int64 // demo-site's counts, from testNow's day to now's
	}{
		{name: "first", site: "demo-site", in: input(t), want: []int64{1}},
		{name: "second", site: "demo-site", in: input(t), want: []int64{2}},
		{name: "another site's", site: "demo-site-2", in: input(t), want: []int64{2}},
		{name: "refused", site: "demo-site", in: input(t, func(s *session.Session) { s.Deliveries = nil }), refused: true, want: []int64{2}},
		{name: "next day", site: "demo-site", in: input(t), advance: 24 * time.Hour, want: []int64{2, 1}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			e.clock.Advance(st.advance)
			_, err := e.svc.Create(ctx, st.site, st.in)
			if (err != nil) != st.refused {
				t.Fatalf("Create: %v, refused want %v", err, st.refused)
			}
			days, err := e.svc.CreatedByDay(ctx, "demo-site", testNow, e.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, d := range days {
				got = append(got, d.Count)
			}
			if d := cmp.Diff(st.want, got); d != "" {
				t.Errorf("demo-site's sessions by day (-want +got):\n%s", d)
			}
		})
	}
	// Now is 09:00 the next day: 400 days less 10 hours on, the first
	// day began more than 400 days ago and the second not yet.
	// The counts are stored as Services.Run stores them, then swept.
	if n, err := e.svc.Step(ctx); err != nil || n != 3 {
		t.Fatalf("Step = %d, %v; want three site days stored (two of demo-site, one of demo-site-2)", n, err)
	}
	e.clock.Advance(400*24*time.Hour - 10*time.Hour)
	if _, err := e.svc.Sweep(ctx, e.clock.Now(), 0); err != nil {
		t.Fatal(err)
	}
	days, err := e.svc.CreatedByDay(ctx, "demo-site", testNow, testNow.Add(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if days[0].Count != 0 || days[1].Count != 1 {
		t.Errorf("after the sweep: %v, want the first day gone and the next kept", days)
	}
}
