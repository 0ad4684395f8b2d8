package idempotency_test

import (
	"context"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type created struct {
	ID    string `json:"id"`
	Count int    `json:"count"`
}

// TestCall: results and the caller's errors are kept and given again
// without running the call; conflicts and internal errors are not; without
// a key every call runs.
func TestCall(t *testing.T) {
	for _, tc := range []struct {
		name     string
		key      bool
		err      error
		wantRuns int
		wantErr  string
	}{
		{"result", true, nil, 1, ""},
		{"invalid argument", true, deliverykit.InvalidField("cart.items", "required", "is required"), 1, "invalid request: cart.items: is required"},
		{"not found", true, deliverykit.E(deliverykit.KindNotFound, "no such order"), 1, "no such order"},
		{"conflict", true, deliverykit.E(deliverykit.KindConflict, "changed concurrently"), 2, "changed concurrently"},
		{"internal", true, deliverykit.E(deliverykit.KindInternal, "disk on fire"), 2, "disk on fire"},
		{"no key", false, nil, 2, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := idempotency.New(idempotency.Options{Clock: deliverykit.NewManualClock(start)})
			k.Open(memory.New())
			runs := 0
			fn := func(context.Context) (created, error) {
				runs++
				if tc.err != nil {
					return created{}, tc.err
				}
				return created{ID: "c-1", Count: runs}, nil
			}
			ctx := t.Context()
			if tc.key {
				ctx = idempotency.WithKey(ctx, "k")
			}
			var got []created
			var errs []string
			for range 2 {
				res, err := idempotency.Call(ctx, k, "site-1", "Create", map[string]int{"n": 1}, fn)
				got = append(got, res)
				if err != nil {
					errs = append(errs, err.Error())
					if tc.err != nil && deliverykit.KindOf(err) != deliverykit.KindOf(tc.err) {
						t.Errorf("kind %v, want %v", deliverykit.KindOf(err), deliverykit.KindOf(tc.err))
					}
				}
			}
			if runs != tc.wantRuns {
				t.Errorf("ran %d times, want %d", runs, tc.wantRuns)
			}
			if tc.err == nil {
				want := []created{{"c-1", 1}, {"c-1", tc.wantRuns}}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("results (-want +got):\n%s", diff)
				}
			} else if diff := cmp.Diff([]string{tc.wantErr, tc.wantErr}, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}
