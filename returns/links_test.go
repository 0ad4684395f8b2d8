package returns

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

const day = 24 * time.Hour

// statusLink tells what a status page token shows now.
func statusLink(t *testing.T, f *fixture, token string) string {
	t.Helper()
	_, _, err := f.svc.ReturnByToken(f.ctx, token)
	switch {
	case err == nil:
		return "works"
	case errors.Is(err, ErrStatusLinkExpired) && errors.Is(err, deliverykit.ErrNotFound):
		return "expired"
	case errors.Is(err, deliverykit.ErrNotFound):
		return "not found"
	}
	t.Fatalf("ReturnByToken(%s): %v", token, err)
	return ""
}

func tokenOfURL(t *testing.T, url string) string {
	t.Helper()
	_, tok, ok := strings.Cut(url, StatusPagePath)
	if !ok {
		t.Fatalf("%q is not a status page URL", url)
	}
	return tok
}

// TestStatusLinkLifetime follows a status page link with a manual clock:
// it works for DefaultStatusLinkLifetime after the return was created;
// RenewStatusLink replaces it with one that works as long again, and the
// old one says it expired.
func TestStatusLinkLifetime(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	first := tokenOfURL(t, r.StatusURL)
	type seen struct {
		At    time.Duration
		Shows map[string]string
	}
	var got []seen
	look := func(tokens ...string) {
		m := map[string]string{}
		for _, tk := range tokens {
			m[tk] = statusLink(t, f, tk)
		}
		got = append(got, seen{f.clock.Now().Sub(t0).Round(time.Microsecond), m})
	}
	f.clock.Set(t0.Add(180*day - time.Microsecond))
	look(first)
	f.clock.Set(t0.Add(180 * day))
	look(first)
	renewed, err := f.svc.RenewStatusLink(f.ctx, "site-a", r.ID)
	if err != nil {
		t.Fatal(err)
	}
	second := tokenOfURL(t, renewed.StatusURL)
	look(first, second)
	f.clock.Advance(180*day - time.Microsecond)
	look(first, second)
	f.clock.Advance(time.Microsecond)
	look(second)
	want := []seen{
		{180*day - time.Microsecond, map[string]string{first: "works"}},
		{180 * day, map[string]string{first: "expired"}},
		{180 * day, map[string]string{first: "expired", second: "works"}},
		{360*day - time.Microsecond, map[string]string{first: "expired", second: "works"}},
		{360 * day, map[string]string{second: "expired"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("status link over time (-want +got):\n%s", diff)
	}
	if second == first {
		t.Fatal("RenewStatusLink kept the token")
	}
	// The merchant's views carry the new link; another site cannot renew.
	if got, err := f.svc.GetReturn(f.ctx, "site-a", r.ID); err != nil || got.StatusURL != renewed.StatusURL {
		t.Errorf("GetReturn statusUrl = %q, %v; want %q", got.StatusURL, err, renewed.StatusURL)
	}
	if _, err := f.svc.RenewStatusLink(f.ctx, "site-b", r.ID); !errors.Is(err, deliverykit.ErrNotFound) {
		t.Errorf("renew from another site: %v", err)
	}
}

// TestStatusLinkRotateLive: renewing a live link ends it at once.
func TestStatusLinkRotateLive(t *testing.T) {
	f := newFixture(t)
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	f.clock.Advance(time.Hour)
	renewed, err := f.svc.RenewStatusLink(f.ctx, "site-a", r.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{statusLink(t, f, tokenOfURL(t, r.StatusURL)), statusLink(t, f, tokenOfURL(t, renewed.StatusURL))}
	if diff := cmp.Diff([]string{"expired", "works"}, got); diff != "" {
		t.Errorf("old, new link (-want +got):\n%s", diff)
	}
}

// TestStatusLinkLifetimeOption and tokens stored before links expired:
// a configured lifetime applies, and a token without expiresAt counts from
// its return's creation.
func TestStatusLinkLifetimeOption(t *testing.T) {
	f := newFixture(t)
	f.svc.linkLifetime = 7 * day
	f.importOrder(t, "site-a", "A-1")
	r := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L1", Quantity: 1})
	r2 := f.createReturn(t, "site-a", "A-1", CustomerReturnItemInput{ForeignLineItemID: "L2", Quantity: 1})
	legacy := tokenOfURL(t, r2.StatusURL)
	err := f.svc.store.Update(f.ctx, func(tx storage.Tx) error {
		it, err := returnByToken.Get(tx, legacy)
		if err != nil {
			return err
		}
		it.Value.ExpiresAt = time.Time{}
		_, err = returnByToken.Put(tx, it.Key, it.Value, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, at := range []time.Duration{7*day - time.Microsecond, 7 * day} {
		f.clock.Set(t0.Add(at))
		got = append(got, statusLink(t, f, tokenOfURL(t, r.StatusURL)), statusLink(t, f, legacy))
	}
	if diff := cmp.Diff([]string{"works", "works", "expired", "expired"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
