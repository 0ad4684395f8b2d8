package returns

import (
	"context"
	"errors"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// ErrStatusLinkExpired is the cause of the NotFound error of a status page
// link whose token expired or was replaced: errors.Is(err,
// ErrStatusLinkExpired) tells the page to say so rather than "not found".
var ErrStatusLinkExpired = errors.New("returns: the status page link has expired")

func errStatusLinkExpired() error {
	return &deliverykit.Error{Kind: deliverykit.KindNotFound,
		Message: "the status page link has expired; the merchant can send a new one", Err: ErrStatusLinkExpired}
}

// linkExpiry is when a status page token stops working.
func (s *Service) linkExpiry(t tokenRecord, r returnRecord) time.Time {
	if !t.ExpiresAt.IsZero() {
		return t.ExpiresAt
	}
	return r.CreatedAt.Add(s.linkLifetime)
}

// RenewStatusLink gives a return a new status page link that works for
// StatusLinkLifetime from now (the extension endpoint POST
// /merchant/return/{returnId}/status-link), for a customer whose link
// expired or went to the wrong person. The old link stops working at once
// and its page says it expired. The answer is the return with its new
// statusUrl.
func (s *Service) RenewStatusLink(ctx context.Context, site string, returnID uint64) (Return, error) {
	now := s.now()
	token := s.ids.NewID("rt_")
	var out Return
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, returnID))
		if err != nil {
			return notFoundOr(err, "return")
		}
		r := rit.Value
		old, err := returnByToken.Get(tx, r.Token)
		switch {
		case err == nil:
			// Kept, expired, so that its link says so instead of "not
			// found".
			if exp := s.linkExpiry(old.Value, r); exp.After(now) {
				old.Value.ExpiresAt = now
			} else {
				old.Value.ExpiresAt = exp
			}
			if _, err := returnByToken.Put(tx, old.Key, old.Value, storage.VersionIs(old.Version)); err != nil {
				return err
			}
		case !errors.Is(err, deliverykit.ErrNotFound):
			return err
		}
		if _, err := returnByToken.Put(tx, token, tokenRecord{Site: site, ReturnID: r.ID, ExpiresAt: now.Add(s.linkLifetime)}, storage.MustNotExist()); err != nil {
			return err
		}
		if err := listToken(tx, site, r.ID, token); err != nil {
			return err
		}
		r.Token, r.UpdatedAt = token, now
		if _, err := returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version)); err != nil {
			return err
		}
		o, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		out, err = s.returnView(tx, site, o.Value, r)
		return err
	})
	return out, err
}
