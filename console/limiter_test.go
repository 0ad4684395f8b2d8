package console

import (
	"strconv"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
)

func TestLoginLimiterBounded(t *testing.T) {
	clock := deliverykit.NewManualClock(day0)
	l := newLoginLimiter(clock, LoginLimits{PerAddress: 1, PerAccount: 1, Window: time.Minute})
	l.windows = make(map[string]window, maxLimiterEntries)
	for i := range maxLimiterEntries {
		l.windows[strconv.Itoa(i)] = window{start: day0}
	}
	if l.allow("new-address", "new@account") {
		t.Error("a full limiter took a new address while every window is current")
	}
	clock.Advance(time.Minute)
	if !l.allow("new-address", "new@account") {
		t.Error("a full limiter did not drop windows that ended")
	}
}
