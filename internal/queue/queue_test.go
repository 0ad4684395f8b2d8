package queue_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/internal/queue/queuetest"
	"github.com/deliverykit/deliverykit/internal/teststore"
)

func TestMemory(t *testing.T) {
	queuetest.Run(t, teststore.Memory)
}

func TestBolt(t *testing.T) {
	queuetest.Run(t, teststore.Bolt)
}

func TestPolicyOr(t *testing.T) {
	def := queue.Policy{Lease: time.Minute, RetryBase: time.Second, RetryMax: time.Hour, MaxAttempts: 15}
	tests := []struct {
		name string
		in   queue.Policy
		want queue.Policy
	}{
		{"zero takes the defaults", queue.Policy{}, def},
		{"negative takes the defaults", queue.Policy{Lease: -1, RetryBase: -1, RetryMax: -1, MaxAttempts: -1}, def},
		{"set fields stay", queue.Policy{Lease: 2 * time.Minute, MaxAttempts: 3},
			queue.Policy{Lease: 2 * time.Minute, RetryBase: time.Second, RetryMax: time.Hour, MaxAttempts: 3}},
	}
	for _, tt := range tests {
		got := tt.in.Or(def)
		if got.Jitter == nil {
			t.Errorf("%s: no default jitter", tt.name)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(queue.Policy{}, "Jitter")); diff != "" {
			t.Errorf("%s: Or (-want +got):\n%s", tt.name, diff)
		}
	}
	if j := (queue.Policy{}).Or(def).Jitter(); j < 0 || j >= 1 {
		t.Errorf("default jitter = %v, want in [0, 1)", j)
	}
}

// TestPolicyBackoff: the backoff doubles from RetryBase, is capped at
// RetryMax without overflowing, and jitter takes up to half of it off
// (formerly webhook's TestBackoffJitter and notify's TestBackoffCapped).
func TestPolicyBackoff(t *testing.T) {
	const huge = time.Duration(1 << 62)
	tests := []struct {
		name      string
		base, max time.Duration
		jitter    float64
		attempts  int
		want      time.Duration
	}{
		{"jitter half", time.Second, time.Hour, 0.5, 1, 750 * time.Millisecond},
		{"jitter half", time.Second, time.Hour, 0.5, 2, 1500 * time.Millisecond},
		{"jitter half", time.Second, time.Hour, 0.5, 3, 3 * time.Second},
		{"jitter half, capped", time.Second, time.Hour, 0.5, 13, 45 * time.Minute},
		{"jitter half, capped", time.Second, time.Hour, 0.5, 1000, 45 * time.Minute},
		{"no jitter", time.Minute, time.Hour, 0, 1, time.Minute},
		{"no jitter", time.Minute, time.Hour, 0, 2, 2 * time.Minute},
		{"no jitter", time.Minute, time.Hour, 0, 3, 4 * time.Minute},
		{"no jitter, capped", time.Minute, time.Hour, 0, 7, time.Hour},
		{"no jitter, capped", time.Minute, time.Hour, 0, 100, time.Hour},
		// 2^62 ns doubled would wrap to a negative wait.
		{"near the largest Duration", huge, math.MaxInt64, 0, 1, huge},
		{"near the largest Duration", huge, math.MaxInt64, 0, 2, math.MaxInt64},
		{"near the largest Duration", huge, math.MaxInt64, 0, 3, math.MaxInt64},
		{"near the largest Duration", huge, math.MaxInt64, 0, 64, math.MaxInt64},
	}
	for _, tt := range tests {
		p := queue.Policy{RetryBase: tt.base, RetryMax: tt.max, Jitter: func() float64 { return tt.jitter }}
		if got := p.Backoff(tt.attempts); got != tt.want {
			t.Errorf("%s: Backoff(%d) = %s, want %s", tt.name, tt.attempts, got, tt.want)
		}
	}
}

func TestTimeKey(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 7200))
	const want = "2026-01-02T01:04:05.000000006Z"
	if got := queue.TimeKey(at); got != want {
		t.Fatalf("TimeKey = %q, want %q", got, want)
	}
	back, err := queue.ParseTimeKey(want)
	if err != nil || !back.Equal(at) {
		t.Errorf("ParseTimeKey = %s, %v; want %s", back, err, at)
	}
}

func TestWake(t *testing.T) {
	w := queue.NewWake()
	w.Signal()
	w.Signal() // does not block: one wake-up stands for both
	select {
	case <-w:
	default:
		t.Fatal("no wake-up after Signal")
	}
	select {
	case <-w:
		t.Fatal("a second wake-up for calls made before the first look")
	default:
	}
}
