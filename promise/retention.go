package promise

import (
	"context"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Sweep implements retention.Sweepable: orders whose parcels were not all
// delivered within Options.PendingRetention of their completion go (their
// parcels are not measured), and so do the tallies of days more than
// Options.ReportRetention ago. The sketches stay: their size is fixed.
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	classes := []retention.Class{{Name: classOrder, Keep: s.opts.PendingRetention}, {Name: classDay, Keep: s.opts.ReportRetention}}
	n, err := expiry.SweepClasses(ctx, s.store, now, limit, classes, deleteExpired)
	if err != nil {
		return n, fmt.Errorf("promise: %w", err)
	}
	return n, nil
}

// deleteExpired deletes an order, or a site's tallies of a day.
func deleteExpired(tx storage.Tx, recKey string, e retention.Entry) (bool, error) {
	if e.Class == classOrder {
		return true, orders.Delete(tx, recKey, storage.AnyVersion)
	}
	var keys []string
	for it, err := range tallies.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(recKey)}) {
		if err != nil {
			return false, err
		}
		keys = append(keys, it.Key)
	}
	for _, k := range keys {
		if err := tallies.Delete(tx, k, storage.AnyVersion); err != nil {
			return false, err
		}
	}
	return true, nil
}

var _ retention.Sweepable = (*Service)(nil)
