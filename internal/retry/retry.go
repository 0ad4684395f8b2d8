// Package retry computes the waits between attempts of the module's
// retrying loops (notifications, the outbox, webhooks).
package retry

import (
	"time"

	"github.com/deliverykit/deliverykit/internal/checked"
)

// Backoff is base × 2^(attempts−1), at most max. The doubling is checked:
// with a max near the largest Duration it would otherwise wrap to a
// negative wait and retry at once, forever.
func Backoff(base, max time.Duration, attempts int) time.Duration {
	d := base
	for i := 1; i < attempts && d < max; i++ {
		next, ok := checked.Mul(d, 2)
		if !ok {
			return max
		}
		d = next
	}
	return min(d, max)
}

// Jittered takes a random part of up to half off d: jitter is in [0, 1),
// so retries of many failures that happened together spread out.
func Jittered(d time.Duration, jitter float64) time.Duration {
	return d - time.Duration(jitter*float64(d/2))
}
