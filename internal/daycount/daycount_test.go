package daycount

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
)

var c = Counter{Name: "test.created"}

// add counts n records of site at and stores them, each count by one
// of several processes' Pending, so they spread over the shards.
func add(t *testing.T, s storage.Store, site string, at time.Time, n int) {
	t.Helper()
	for range n {
		p := c.Pending(s)
		p.Add(site, at)
		if k, err := p.Step(context.Background()); err != nil || k != 1 {
			t.Fatalf("Step = %d, %v; want one site day written", k, err)
		}
	}
}

// TestPending: counts are in memory until Step, ByDay sees them there
// and in the store alike, a failed Step keeps them, and an empty Step
// writes nothing.
func TestPending(t *testing.T) {
	ctx := context.Background()
	s := memory.New()
	p := c.Pending(s)
	p.Add("a", date(20).Add(time.Hour))
	p.Add("a", date(20).Add(2*time.Hour))
	p.Add("a", date(21))
	p.Add("b", date(21))
	want := []Day{{date(20), 2}, {date(21), 1}}
	check := func(when string) {
		t.Helper()
		got, err := p.ByDay(ctx, "a", date(20), date(21))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: ByDay (-want +got):\n%s", when, d)
		}
	}
	check("pending")
	if stored, _ := c.ByDay(ctx, s, "a", date(20), date(21)); stored[0].Count != 0 {
		t.Errorf("stored before Step: %v", stored)
	}
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := p.Step(canceled); err == nil {
		t.Fatal("Step on a canceled context succeeded")
	}
	check("after a failed Step")
	if n, err := p.Step(ctx); err != nil || n != 3 {
		t.Fatalf("Step = %d, %v; want 3 site days", n, err)
	}
	check("stored")
	if n, err := p.Step(ctx); err != nil || n != 0 {
		t.Errorf("empty Step = %d, %v", n, err)
	}
}

func date(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }

func TestByDay(t *testing.T) {
	s := memory.New()
	add(t, s, "a", date(20).Add(23*time.Hour), 2)
	add(t, s, "a", date(22).Add(time.Hour), 30) // in several shards
	add(t, s, "a", date(25), 1)                 // after the ranges read
	add(t, s, "ab", date(21), 7)                // a site whose name starts with another's
	add(t, s, "b", date(21), 5)
	tests := []struct {
		name, site string
		from, to   time.Time
		want       []Day
		wantField  string
	}{
		{name: "days with and without counts", site: "a", from: date(20), to: date(23),
			want: []Day{{date(20), 2}, {date(21), 0}, {date(22), 30}, {date(23), 0}}},
		{name: "times inside the days", site: "a", from: date(21).Add(5 * time.Hour), to: date(22).Add(time.Minute),
			want: []Day{{date(21), 0}, {date(22), 30}}},
		{name: "another site's counts are its own", site: "b", from: date(20), to: date(22),
			want: []Day{{date(20), 0}, {date(21), 5}, {date(22), 0}}},
		{name: "a site with nothing", site: "c", from: date(22), to: date(22), want: []Day{{date(22), 0}}},
		{name: "reversed", site: "a", from: date(22), to: date(21), wantField: "from"},
		{name: "too long", site: "a", from: date(22).AddDate(0, 0, -MaxDays), to: date(22), wantField: "from"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ByDay(context.Background(), s, tt.site, tt.from, tt.to)
			if tt.wantField != "" {
				vs := deliverykit.ViolationsOf(err)
				if !errors.Is(err, deliverykit.ErrInvalidArgument) || len(vs) != 1 || vs[0].Field != tt.wantField {
					t.Fatalf("err = %v, want InvalidArgument naming %s", err, tt.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ByDay (-want +got):\n%s", d)
			}
		})
	}
}

func TestSweepDeletesDaysOlderThanKeep(t *testing.T) {
	s := memory.New()
	now := date(26)
	old, kept := now.Add(-Keep).AddDate(0, 0, -1), now.Add(-Keep).AddDate(0, 0, 1)
	add(t, s, "a", old, 1)
	add(t, s, "a", kept, 1)
	n, err := c.Sweep(context.Background(), s, now, 0)
	if err != nil || n != 1 {
		t.Fatalf("Sweep = %d, %v; want the old day's one record deleted", n, err)
	}
	got, err := c.ByDay(context.Background(), s, "a", old, kept)
	if err != nil {
		t.Fatal(err)
	}
	want := []Day{{dayStart(old), 0}, {dayStart(old).AddDate(0, 0, 1), 0}, {dayStart(kept), 1}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("after the sweep (-want +got):\n%s", d)
	}
	if n, err := c.Sweep(context.Background(), s, now, 0); err != nil || n != 0 {
		t.Errorf("second Sweep = %d, %v; want nothing left to delete", n, err)
	}
}
