package webhook

import (
	"context"
	"strings"

	"github.com/deliverykit/deliverykit/storage"
)

// ReleaseLeases makes every claimed or backing-off delivery due now and
// returns how many it released. A process that is the only one using its
// store (a bolt file) calls it at start: leases held when the previous
// process died are stale, and their deliveries need not wait for them to
// run out. Never call it on a store other running senders share.
func (s *Service) ReleaseLeases(ctx context.Context) (int, error) {
	now := s.opts.Clock.Now().UTC()
	limit := timeKey(now)
	n := 0
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		n = 0
		var held []ref
		for it, err := range due.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			if at, _, _ := strings.Cut(it.Key, storage.KeySep); at > limit {
				held = append(held, it.Value)
			}
		}
		for _, rf := range held {
			it, err := deliveries.Get(tx, deliveryKey(rf.Site, rf.Endpoint, rf.Seq))
			if err != nil {
				return err
			}
			r := it.Value
			if err := due.Delete(tx, dueKey(&r), storage.AnyVersion); err != nil {
				return err
			}
			r.NextAttempt = now
			if _, err := due.Put(tx, dueKey(&r), rf, storage.AnyVersion); err != nil {
				return err
			}
			if _, err := deliveries.Put(tx, it.Key, r, storage.VersionIs(it.Version)); err != nil {
				return err
			}
		}
		n = len(held)
		return nil
	})
	return n, err
}
