package webhook

import (
	"context"

	"github.com/deliverykit/deliverykit/internal/queue"
)

// ReleaseLeases makes every claimed or backing-off delivery due now and
// returns how many it released. A process that is the only one using its
// store (a bolt file) calls it at start: leases held when the previous
// process died are stale, and their deliveries need not wait for them to
// run out. Never call it on a store other running senders share.
func (s *Service) ReleaseLeases(ctx context.Context) (int, error) {
	return s.q.ReleaseLeases(ctx, s.store, s.opts.Clock.Now().UTC(), func(e queue.Entry[ref]) string {
		return deliveryKey(e.Value.Site, e.Value.Endpoint, e.Value.Seq)
	})
}
