package tracking

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

// linkState is what a customer's link shows at a moment.
func linkWorks(t *testing.T, f *fixture, token string) string {
	t.Helper()
	_, err := f.svc.OrderByToken(t.Context(), token, "")
	switch {
	case err == nil:
		return "works"
	case errors.Is(err, ErrLinkExpired) && errors.Is(err, deliverykit.ErrNotFound):
		return "expired"
	case errors.Is(err, deliverykit.ErrNotFound):
		return "not found"
	}
	t.Fatalf("OrderByToken(%s): %v", token, err)
	return ""
}

func tokenOf(t *testing.T, url string) string {
	t.Helper()
	_, tok, ok := strings.Cut(url, PagePath)
	if !ok {
		t.Fatalf("%q is not a portal link", url)
	}
	tok, _, _ = strings.Cut(tok, "?")
	return tok
}

// TestLinkLifetime follows one order's link with a manual clock: it
// expires DefaultLinkLifetime after registration; GenerateLink extends it
// (writing at most once a day) and replaces an expired token; the old
// link then says it expired.
func TestLinkLifetime(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	id := f.setup(t)
	const first = "tt_000003"
	generate := func(rotate bool) (string, string) {
		t.Helper()
		res, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{Locale: "sv-SE", OrderID: id, Rotate: rotate})
		if err != nil {
			t.Fatal(err)
		}
		return tokenOf(t, res.TrackingLink), res.ExpiresAt
	}
	type step struct {
		At      time.Duration // since t0
		Token   string
		Expires string
		Shows   map[string]string
	}
	var got []step
	record := func(token, expires string, tokens ...string) {
		shows := map[string]string{}
		for _, tk := range tokens {
			shows[tk] = linkWorks(t, f, tk)
		}
		got = append(got, step{f.clock.Now().Sub(t0), token, expires, shows})
	}

	tok, exp := generate(false) // at registration: nothing to write
	record(tok, exp, first)
	f.clock.Set(t0.Add(90*day - time.Nanosecond))
	record("", "", first)
	f.clock.Set(t0.Add(60 * day))
	tok, exp = generate(false) // extends to day 150
	record(tok, exp, first)
	f.clock.Set(t0.Add(60*day + 23*time.Hour))
	tok, exp = generate(false) // within a day: no write, same expiry
	record(tok, exp, first)
	f.clock.Set(t0.Add(61*day + time.Second))
	tok, exp = generate(false) // a day later: extended again
	record(tok, exp, first)
	f.clock.Set(t0.Add(151*day + time.Second))
	record("", "", first)
	second, exp := generate(false) // expired: a new token
	record(second, exp, first, second)

	want := []step{
		{0, first, "2027-02-18T08:00:00Z", map[string]string{first: "works"}},
		{90*day - time.Nanosecond, "", "", map[string]string{first: "works"}},
		{60 * day, first, "2027-04-19T08:00:00Z", map[string]string{first: "works"}},
		{60*day + 23*time.Hour, first, "2027-04-19T08:00:00Z", map[string]string{first: "works"}},
		{61*day + time.Second, first, "2027-04-20T08:00:01Z", map[string]string{first: "works"}},
		{151*day + time.Second, "", "", map[string]string{first: "expired"}},
		{151*day + time.Second, second, "2027-07-19T08:00:01Z", map[string]string{first: "expired", second: "works"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("link over time (-want +got):\n%s", diff)
	}
	if second == first {
		t.Fatalf("an expired token was handed out again")
	}
	// Every link the merchant reads now carries the new token; the old
	// one is expired for GET /parcels?token= too.
	res, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{ExternalID: "ORD-1"})
	if err != nil || tokenOf(t, res.TrackingLink) != second {
		t.Errorf("parcels link = %+v, %v; want token %s", res, err, second)
	}
	if _, err := f.svc.Parcels(ctx, "site-a", ParcelsQuery{Token: first}); !errors.Is(err, ErrLinkExpired) {
		t.Errorf("parcels by the expired token: %v", err)
	}
	// An expired token of another site is not found, not "expired".
	if _, err := f.svc.Parcels(ctx, "site-b", ParcelsQuery{Token: first}); !errors.Is(err, deliverykit.ErrNotFound) || errors.Is(err, ErrLinkExpired) {
		t.Errorf("another site's expired token: %v", err)
	}
}

// TestLinkRotate: rotate gives the order a new token at once; the old
// link says it expired.
func TestLinkRotate(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	id := f.setup(t)
	f.clock.Advance(time.Hour)
	res, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{Locale: "en-GB", TrackingNumber: "TN1", Rotate: true})
	if err != nil {
		t.Fatal(err)
	}
	fresh := tokenOf(t, res.TrackingLink)
	got := map[string]string{"tt_000003": linkWorks(t, f, "tt_000003"), fresh: linkWorks(t, f, fresh), "expires": res.ExpiresAt}
	want := map[string]string{"tt_000003": "expired", fresh: "works", "expires": "2027-02-18T09:00:00Z"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("after rotation (-want +got):\n%s", diff)
	}
	again, err := f.svc.GenerateLink(ctx, "site-a", GenerateTrackingPageLinkRequest{Locale: "en-GB", OrderID: id})
	if err != nil || tokenOf(t, again.TrackingLink) != fresh {
		t.Errorf("the next link = %+v, %v; want the rotated token %s", again, err, fresh)
	}
}

// TestLinkLifetimeOption: a configured lifetime is used, and an event
// passed to the observer after the link expired carries a new, working
// link (notifications must not send dead links).
func TestLinkLifetimeOption(t *testing.T) {
	f := newFixture(t)
	f.svc.opts.LinkLifetime = 48 * time.Hour
	ctx := t.Context()
	f.setup(t)
	f.clock.Advance(48 * time.Hour)
	if got := linkWorks(t, f, "tt_000003"); got != "expired" {
		t.Fatalf("after 48h the link %s", got)
	}
	f.observed = nil
	if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Step: StepOnRoute, Time: formatTime(f.clock.Now())}); err != nil {
		t.Fatal(err)
	}
	if len(f.observed) != 1 {
		t.Fatalf("observed %d changes", len(f.observed))
	}
	tok := tokenOf(t, f.observed[0].TrackingLink)
	if tok == "tt_000003" || linkWorks(t, f, tok) != "works" {
		t.Errorf("the notification's link %s %s", tok, linkWorks(t, f, tok))
	}
	// An event just before expiry extends the link it sends.
	f.clock.Advance(47 * time.Hour)
	if err := f.svc.RecordEvent(ctx, "site-a", Event{TrackingNumber: "TN1", Step: StepDeliveredToPickupPoint, Time: formatTime(f.clock.Now())}); err != nil {
		t.Fatal(err)
	}
	f.clock.Advance(2 * time.Hour)
	if got := tokenOf(t, f.observed[1].TrackingLink); got != tok || linkWorks(t, f, tok) != "works" {
		t.Errorf("after an event the link %s is %s", got, linkWorks(t, f, tok))
	}
}

// TestLegacyTokenExpiry: a token stored before links expired (no
// expires_at) expires LinkLifetime after its order's registration.
func TestLegacyTokenExpiry(t *testing.T) {
	f := newFixture(t)
	f.setup(t)
	err := f.svc.store.Update(t.Context(), func(tx storage.Tx) error {
		it, err := tokens.Get(tx, "tt_000003")
		if err != nil {
			return err
		}
		it.Value.ExpiresAt = time.Time{}
		_, err = tokens.Put(tx, it.Key, it.Value, storage.VersionIs(it.Version))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, at := range []time.Duration{89 * day, 90 * day} {
		f.clock.Set(t0.Add(at))
		got = append(got, linkWorks(t, f, "tt_000003"))
	}
	if diff := cmp.Diff([]string{"works", "expired"}, got); diff != "" {
		t.Errorf("legacy token (-want +got):\n%s", diff)
	}
}
