package retention_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/retention"
)

// TestOnce: a backfill runs until it succeeds, then never again.
func TestOnce(t *testing.T) {
	var o retention.Once
	var runs []string
	fail := errors.New("store down")
	for _, result := range []error{fail, nil, nil, nil} {
		err := o.Do(t.Context(), func(context.Context) error {
			runs = append(runs, "run")
			return result
		})
		if !errors.Is(err, result) {
			t.Fatalf("Do = %v, want %v", err, result)
		}
	}
	if diff := cmp.Diff([]string{"run", "run"}, runs); diff != "" {
		t.Errorf("backfill runs (-want +got):\n%s", diff)
	}
}

// TestSessionClasses: a session area's classes keep their sessions as
// the policy says, defaults for zero, forever (0) for Never.
func TestSessionClasses(t *testing.T) {
	tests := []struct {
		p    retention.Policy
		want []retention.Class
	}{
		{retention.Policy{}, []retention.Class{{Name: "a", Keep: retention.DefaultActiveSessions}, {Name: "c", Keep: retention.DefaultCompletedSessions}}},
		{retention.Policy{ActiveSessions: time.Hour, CompletedSessions: retention.Never},
			[]retention.Class{{Name: "a", Keep: time.Hour}, {Name: "c", Keep: 0}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.p.SessionClasses("a", "c")); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.p, diff)
		}
	}
}
