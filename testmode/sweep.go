package testmode

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/deliverykit/deliverykit/storage"
)

// Sweep deletes the test sites whose expiry is before now, with every
// record they hold, deleting at most limit records in a transaction. A
// site's own record goes last, so a sweep cut short goes on where it
// stopped. It returns the records deleted; the retention sweep calls it.
func (s *Service) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	limit = max(limit, 1)
	var due []string
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		for e, err := range expiry.Due(tx, now, limit) {
			if err != nil {
				return err
			}
			due = append(due, e.ID)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("testmode: %w", err)
	}
	total := 0
	for _, id := range due {
		n, err := s.deleteSite(ctx, id, now, limit)
		total += n
		if err != nil {
			return total, fmt.Errorf("testmode: deleting test site %s: %w", id, err)
		}
	}
	return total, nil
}

// deleteSite deletes site's records, collection by collection, then the
// site itself, unless a request renewed it meanwhile.
func (s *Service) deleteSite(ctx context.Context, site string, now time.Time, limit int) (int, error) {
	s.mu.Lock()
	delete(s.cache, site)
	s.mu.Unlock()
	var colls []string
	expired := true
	err := s.opts.Store.View(ctx, func(tx storage.Tx) error {
		it, err := sites.Get(tx, site)
		if err == nil && it.Value.LastUsed.Add(s.opts.Expiry).After(now) {
			expired = false // used since the scan
			return nil
		}
		for it, err := range collections.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			colls = append(colls, it.Key)
		}
		return nil
	})
	if err != nil || !expired {
		return 0, err
	}
	total := 0
	for _, c := range colls {
		for {
			n := 0
			err := s.opts.Store.Update(ctx, func(tx storage.Tx) error {
				n = 0
				var ks []string
				for r, err := range tx.Scan(collPrefix+c, storage.Range{Prefix: site + "/", Limit: limit}) {
					if err != nil {
						return err
					}
					ks = append(ks, r.Key)
				}
				for _, k := range ks {
					if err := tx.Delete(collPrefix+c, k, storage.AnyVersion); err != nil {
						return err
					}
				}
				n = len(ks)
				return nil
			})
			total += n
			if err != nil {
				return total, err
			}
			if n < limit {
				break
			}
		}
	}
	err = s.opts.Store.Update(ctx, func(tx storage.Tx) error {
		it, err := sites.Get(tx, site)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		r := it.Value
		exp := r.LastUsed.Add(s.opts.Expiry)
		if exp.After(now) {
			return nil // used meanwhile: its index entry moved on
		}
		n, err := counts.Get(tx, r.Parent)
		if err == nil {
			if n.Value <= 1 {
				err = counts.Delete(tx, r.Parent, storage.AnyVersion)
			} else {
				_, err = counts.Put(tx, r.Parent, n.Value-1, storage.AnyVersion)
			}
		}
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		for _, del := range []error{
			keys.Delete(tx, r.KeySHA256, storage.AnyVersion),
			expiry.Delete(tx, exp, site),
			sites.Delete(tx, site, storage.AnyVersion),
		} {
			if del != nil {
				return del
			}
		}
		total++
		return nil
	})
	return total, err
}

// ForEachRecord calls fn with the collection and key of every record
// site holds: what deleting it deletes.
func (s *Service) ForEachRecord(ctx context.Context, site string, fn func(coll, key string)) error {
	return s.opts.Store.View(ctx, func(tx storage.Tx) error {
		for c, err := range collections.Scan(tx, storage.Range{}) {
			if err != nil {
				return err
			}
			for r, err := range tx.Scan(collPrefix+c.Key, storage.Range{Prefix: site + "/"}) {
				if err != nil {
					return err
				}
				fn(c.Key, r.Key)
			}
		}
		return nil
	})
}
