package session_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/google/go-cmp/cmp"
)

// TestOnBolt runs the lifecycle on the file store and reopens it: the
// session, its etag and its completion survive, and a stale etag is still
// refused after the reopen.
func TestOnBolt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.db")
	ctx := context.Background()
	clock := deliverykit.NewManualClock(testNow)
	open := func() (*session.Service, func()) {
		store, err := bolt.Open(path, &bolt.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		svc, err := session.New(store, session.Options{Engines: demoEngines(t, clock), Clock: clock, IDs: &deliverykit.SequentialIDs{}})
		if err != nil {
			t.Fatal(err)
		}
		return svc, func() { store.Close() }
	}
	svc, closeStore := open()
	s, err := svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	in := input(t)
	in.Name, in.Etag = s.Name, s.Etag
	p, err := svc.Patch(ctx, "demo-site", in)
	if err != nil {
		t.Fatal(err)
	}
	closeStore()

	svc, closeStore = open()
	defer closeStore()
	got, err := svc.Get(ctx, "demo-site", s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("after reopen (-before +after):\n%s", diff)
	}
	if _, err := svc.Patch(ctx, "demo-site", in); !errors.Is(err, deliverykit.ErrConflict) {
		t.Errorf("stale etag after reopen: %v", err)
	}
	res, err := svc.Complete(ctx, "demo-site", s.Name, session.CompleteRequest{Etag: p.Etag, DeliveryChoices: []session.DeliveryChoice{{DeliveryID: "d1", OptionID: "mailbox/north-parcel-mailbox"}}})
	if err != nil || res.Session.State != session.StateCompleted {
		t.Fatalf("complete: %v", err)
	}
}
