package retention_test

import (
	"context"
	"errors"
	"testing"

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
