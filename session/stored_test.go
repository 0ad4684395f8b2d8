package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage"
)

// rawSessions reads stored sessions as plain JSON.
var rawSessions = storage.Collection[json.RawMessage]{Name: "session.sessions"}

func storedBytes(t *testing.T, e *env, name string) []byte {
	t.Helper()
	var raw json.RawMessage
	err := e.store.View(context.Background(), func(tx storage.Tx) error {
		it, err := rawSessions.Get(tx, storage.Key("demo-site", strings.TrimPrefix(name, "sessions/")))
		raw = it.Value
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestStoredActiveSessionKeepsInputsNotOptions: an ACTIVE session is stored
// without its categories, and reading it computes them again exactly as
// they were written, however far the clock has moved since: estimates and
// expiry times are those of the write.
func TestStoredActiveSessionKeepsInputsNotOptions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	created, err := e.svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	raw := storedBytes(t, e, created.Name)
	if strings.Contains(string(raw), "delivery_categories") || !strings.Contains(string(raw), "options_inputs") {
		t.Errorf("stored active session has categories or no inputs: %s", raw)
	}
	full, _ := json.Marshal(created)
	if len(raw)*4 > len(full) {
		t.Errorf("stored %d bytes for a session of %d; want under a quarter", len(raw), len(full))
	}

	e.clock.Advance(3 * time.Hour)
	got, err := e.svc.Get(ctx, "demo-site", created.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, got); diff != "" {
		t.Errorf("get three hours later differs from create (-create +get):\n%s", diff)
	}

	// A patch stores new inputs; reading gives what the patch answered.
	in := input(t)
	in.Name, in.Etag = created.Name, created.Etag
	patched, err := e.svc.Patch(ctx, "demo-site", in)
	if err != nil {
		t.Fatal(err)
	}
	if !patched.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].ExpireTime.After(created.Deliveries[0].DeliveryCategories[0].DeliveryOptions[0].ExpireTime.Time) {
		t.Errorf("patch did not refresh the options")
	}
	e.clock.Advance(time.Hour)
	got, err = e.svc.Get(ctx, "demo-site", created.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(patched, got); diff != "" {
		t.Errorf("get differs from patch (-patch +get):\n%s", diff)
	}
}

// TestStoredCompletedSessionKeepsItsChoice: a completed session is stored
// with its categories as chosen and no inputs, and reads back as Complete
// answered.
func TestStoredCompletedSessionKeepsItsChoice(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	s, err := e.svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(10 * time.Minute)
	opt := s.Deliveries[0].DeliveryCategories[1].DeliveryOptions[0]
	done, err := e.svc.Complete(ctx, "demo-site", s.Name, session.CompleteRequest{Etag: s.Etag,
		DeliveryChoices: []session.DeliveryChoice{{DeliveryID: "d1", OptionID: opt.ID, ExternalID: "order-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	raw := storedBytes(t, e, s.Name)
	if !strings.Contains(string(raw), `"chosen":true`) || strings.Contains(string(raw), "options_inputs") {
		t.Errorf("stored completed session: %s", raw)
	}
	e.clock.Advance(48 * time.Hour)
	got, err := e.svc.Get(ctx, "demo-site", s.Name)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(done.Session, got); diff != "" {
		t.Errorf("get differs from complete (-complete +get):\n%s", diff)
	}
	// Complete checked the choice against the options of the write: the
	// option computed at creation is the one chosen.
	chosen := got.Deliveries[0].DeliveryCategories[1].DeliveryOptions[0]
	if !chosen.Chosen || !chosen.ExpireTime.Equal(opt.ExpireTime.Time) {
		t.Errorf("chosen option: %+v; want the created one %+v", chosen, opt)
	}
}

// TestSessionIsTheCallersOwn: a returned session shares nothing with the
// catalog; changing its pickup locations changes no later session.
func TestSessionIsTheCallersOwn(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	first, err := e.svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(first.Deliveries[0].DeliveryCategories)
	for _, c := range first.Deliveries[0].DeliveryCategories {
		for _, o := range c.DeliveryOptions {
			if l := o.PickupLocation; l != nil {
				a := l.VisitingContact.Address
				a.AddressLines[0] = "changed"
				if h := l.OperationalHours; h != nil && len(h.Monday) > 0 {
					h.Monday[0] = "changed"
				}
			}
		}
	}
	second, err := e.svc.Create(ctx, "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	if have, _ := json.Marshal(second.Deliveries[0].DeliveryCategories); string(have) != string(want) {
		t.Errorf("a caller's changes reached the catalog:\n got  %s\n want %s", have, want)
	}
}
