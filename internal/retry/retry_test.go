package retry

import (
	"math"
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	tests := []struct {
		base, max time.Duration
		attempts  int
		want      time.Duration
	}{
		{time.Second, time.Hour, 1, time.Second},
		{time.Second, time.Hour, 2, 2 * time.Second},
		{time.Second, time.Hour, 4, 8 * time.Second},
		{time.Second, 5 * time.Second, 4, 5 * time.Second},
		{time.Second, math.MaxInt64, 200, math.MaxInt64},
		{time.Second, time.Hour, 0, time.Second},
	}
	for _, tc := range tests {
		if got := Backoff(tc.base, tc.max, tc.attempts); got != tc.want {
			t.Errorf("Backoff(%v, %v, %d) = %v, want %v", tc.base, tc.max, tc.attempts, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d      time.Duration
		jitter float64
		want   time.Duration
	}{{8 * time.Second, 0, 8 * time.Second}, {8 * time.Second, 0.5, 6 * time.Second}, {8 * time.Second, 0.999, 4*time.Second + 4*time.Millisecond}} {
		if got := Jittered(tc.d, tc.jitter); got != tc.want {
			t.Errorf("Jittered(%v, %v) = %v, want %v", tc.d, tc.jitter, got, tc.want)
		}
	}
}
