package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/deliverykit/deliverykit/storage"
)

// InUse returns the bytes of the file up to its highest page in use: what
// the file would be without the space bbolt allocates ahead (it grows a
// file in large steps, the first to the initial memory map of 256 MiB).
// Pages freed below it by deletions are reused before it grows, so once
// deletions keep pace with writes it stops growing; the file's size
// follows it, never shrinking (Compact gives space back).
func (s *Store) InUse(ctx context.Context) (int64, error) {
	if s.closed.Load() {
		return 0, storage.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	var n int64
	err := s.db.View(func(btx *bbolt.Tx) error {
		n = btx.Size()
		return nil
	})
	return n, err
}
