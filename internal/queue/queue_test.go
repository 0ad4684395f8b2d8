package queue_test

import (
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
