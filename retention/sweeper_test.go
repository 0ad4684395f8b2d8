package retention_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
)

// fakeArea records the times it was swept at and deletes what it is told.
type fakeArea struct {
	at      []time.Time
	deleted int
	err     error
}

func (f *fakeArea) Sweep(_ context.Context, now time.Time, limit int) (int, error) {
	f.at = append(f.at, now)
	return min(f.deleted, limit), f.err
}

func TestSweepOnce(t *testing.T) {
	now := time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC)
	failure := errors.New("disk full")
	tests := []struct {
		name    string
		areas   map[string]*fakeArea
		limit   int
		want    map[string]int
		wantErr error
	}{
		{"each area", map[string]*fakeArea{"a": {deleted: 3}, "b": {}}, 0, map[string]int{"a": 3, "b": 0}, nil},
		{"limit per area", map[string]*fakeArea{"a": {deleted: 30}, "b": {deleted: 5}}, 10, map[string]int{"a": 10, "b": 5}, nil},
		{"a failure does not stop the others", map[string]*fakeArea{"a": {err: failure}, "b": {deleted: 2}}, 0, map[string]int{"a": 0, "b": 2}, failure},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var areas []retention.Area
			for _, name := range []string{"a", "b"} {
				areas = append(areas, retention.Area{Name: name, Sweep: tt.areas[name]})
			}
			sw := retention.NewSweeper(areas, retention.Options{Clock: deliverykit.NewManualClock(now), Limit: tt.limit,
				Logger: slog.New(slog.DiscardHandler)})
			got, err := sw.SweepOnce(t.Context())
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("deleted (-want +got):\n%s", diff)
			}
			for name, a := range tt.areas {
				if diff := cmp.Diff([]time.Time{now}, a.at); diff != "" {
					t.Errorf("area %s swept at (-want +got):\n%s", name, diff)
				}
			}
		})
	}
}

// Step is a round: every area swept once, the deletions added up, the
// first error returned after the other areas were swept.
func TestStepSumsTheAreas(t *testing.T) {
	boom := errors.New("boom")
	a, b, c := &fakeArea{deleted: 2}, &fakeArea{err: boom}, &fakeArea{deleted: 3}
	sw := retention.NewSweeper([]retention.Area{{Name: "a", Sweep: a}, {Name: "b", Sweep: b}, {Name: "c", Sweep: c}},
		retention.Options{Logger: slog.New(slog.DiscardHandler)})
	n, err := sw.Step(t.Context())
	if n != 5 || !errors.Is(err, boom) {
		t.Errorf("Step = %d, %v; want 5, boom", n, err)
	}
	if len(c.at) != 1 {
		t.Errorf("area c swept %d times, want 1", len(c.at))
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		d, def, want time.Duration
	}{
		{0, time.Hour, time.Hour},
		{retention.Never, time.Hour, 0},
		{time.Minute, time.Hour, time.Minute},
	}
	for _, tt := range tests {
		if got := retention.Resolve(tt.d, tt.def); got != tt.want {
			t.Errorf("Resolve(%v, %v) = %v, want %v", tt.d, tt.def, got, tt.want)
		}
	}
}
