package tracking

import (
	"context"
	"errors"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// ErrLinkExpired is the cause of the NotFound error of a tracking link
// whose token expired or was replaced: errors.Is(err, ErrLinkExpired)
// tells a page to say so rather than "not found".
var ErrLinkExpired = errors.New("tracking: the tracking link has expired")

func errLinkExpired() error {
	return &deliverykit.Error{Kind: deliverykit.KindNotFound,
		Message: "the tracking link has expired; the merchant can send a new one", Err: ErrLinkExpired}
}

// linkExpiry is when a token stops working.
func (s *Service) linkExpiry(t tokenRecord, o *orderRecord) time.Time {
	if !t.ExpiresAt.IsZero() {
		return t.ExpiresAt
	}
	return o.CreatedAt.Add(s.opts.LinkLifetime)
}

// renewSlack is how far a token's expiry may lag behind now + LinkLifetime
// before handing the link out writes a later one: a day, so a link handed
// out many times costs one write a day, or a tenth of a shorter lifetime.
func (s *Service) renewSlack() time.Duration {
	return min(24*time.Hour, s.opts.LinkLifetime/10)
}

// linkAction is what handing out an order's link needs.
type linkAction int

const (
	linkKeep    linkAction = iota // the token lives long enough
	linkRenew                     // the token lives, but its expiry must move
	linkReplace                   // a new token: rotation asked, or the old one expired
)

func (s *Service) linkDecision(expires, now time.Time, rotate bool) linkAction {
	switch {
	case rotate || !now.Before(expires):
		return linkReplace
	case expires.Before(now.Add(s.opts.LinkLifetime - s.renewSlack())):
		return linkRenew
	}
	return linkKeep
}

// linkState reads the order's token and tells when it expires and what
// handing the link out now needs.
func (s *Service) linkState(tx storage.Tx, o *orderRecord, now time.Time, rotate bool) (time.Time, linkAction, error) {
	t, err := tokens.Get(tx, o.Token)
	if errors.Is(err, storage.ErrNotFound) {
		return time.Time{}, linkReplace, nil
	}
	if err != nil {
		return time.Time{}, linkKeep, err
	}
	exp := s.linkExpiry(t.Value, o)
	return exp, s.linkDecision(exp, now, rotate), nil
}

// errNeedToken stops an Update whose keepLink must replace a token but was
// given none: updateWithToken makes one outside the Update and runs it
// again, so ids are drawn only when a token is replaced.
var errNeedToken = errors.New("tracking: a fresh token is needed")

// updateWithToken runs fn in an Update with fresh as the token keepLink
// may use ("" until one is needed).
func (s *Service) updateWithToken(ctx context.Context, fresh string, fn func(tx storage.Tx, fresh string) error) error {
	for {
		err := s.store.Update(ctx, func(tx storage.Tx) error { return fn(tx, fresh) })
		if errors.Is(err, errNeedToken) && fresh == "" {
			fresh = s.opts.IDs.NewID("tt_")
			continue
		}
		return err
	}
}

// keepLink, inside an Update, makes the order's link work until
// LinkLifetime from now: it moves the token's expiry, or, when the token
// expired or rotate is set, retires it and gives the order the token
// fresh (made by the caller outside the Update; "" is errNeedToken, see
// updateWithToken). It returns the expiry
// and whether o changed (its Token), which the caller must then write.
func (s *Service) keepLink(tx storage.Tx, site string, o *orderRecord, now time.Time, rotate bool, fresh string) (time.Time, bool, error) {
	want := now.Add(s.opts.LinkLifetime)
	old, err := tokens.Get(tx, o.Token)
	found := err == nil
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return time.Time{}, false, err
	}
	exp := time.Time{}
	if found {
		exp = s.linkExpiry(old.Value, o)
	}
	switch s.linkDecision(exp, now, rotate) {
	case linkKeep:
		return exp, false, nil
	case linkRenew:
		old.Value.ExpiresAt = want
		_, err := tokens.Put(tx, old.Key, old.Value, storage.VersionIs(old.Version))
		return want, false, err
	}
	if fresh == "" {
		return time.Time{}, false, errNeedToken
	}
	if found {
		// The old token stays, expired, so its link says it expired
		// instead of "not found".
		old.Value.ExpiresAt = now
		if exp.Before(now) {
			old.Value.ExpiresAt = exp
		}
		if _, err := tokens.Put(tx, old.Key, old.Value, storage.VersionIs(old.Version)); err != nil {
			return time.Time{}, false, err
		}
	}
	if err := putToken(tx, fresh, tokenRecord{Site: site, TosID: o.TosID, ExpiresAt: want}); err != nil {
		return time.Time{}, false, err
	}
	if rotate {
		// A rotation retires every link to the order.
		for _, t := range o.LinkTokens {
			if err := expireToken(tx, t, now); err != nil {
				return time.Time{}, false, err
			}
		}
		o.LinkTokens = nil
	}
	o.Token = fresh
	return want, true, nil
}

// liveToken reads a token a request carries and its order, or NotFound
// (ErrLinkExpired when it expired). With site set, a token of another
// site is storage.ErrNotFound, whether it expired or not.
func (s *Service) liveToken(tx storage.Tx, site, token string, now time.Time) (tokenRecord, storage.Item[orderRecord], error) {
	var none storage.Item[orderRecord]
	t, err := tokens.Get(tx, token)
	if err != nil {
		return tokenRecord{}, none, err
	}
	if site != "" && t.Value.Site != site {
		return tokenRecord{}, none, storage.ErrNotFound
	}
	it, err := orders.Get(tx, storage.Key(t.Value.Site, t.Value.TosID))
	if err != nil {
		return tokenRecord{}, none, err
	}
	if !now.Before(s.linkExpiry(t.Value, &it.Value)) {
		return tokenRecord{}, none, errLinkExpired()
	}
	return t.Value, it, nil
}
