package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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

// TestOptionsShareNoMemory: a session's options are allocated together
// (one slice per type for all of them), yet no two values of the answer
// overlap in memory, lists to their capacity, so a caller changing or
// appending to one changes nothing else.
func TestOptionsShareNoMemory(t *testing.T) {
	e := newEnv(t)
	s, err := e.svc.Create(context.Background(), "demo-site", input(t))
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		start, end uintptr
		path       string
	}
	var spans []span
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || v.Type().Elem().Size() == 0 {
				return
			}
			spans = append(spans, span{v.Pointer(), v.Pointer() + v.Type().Elem().Size(), path})
			walk(v.Elem(), path)
		case reflect.Slice:
			if v.Len() == 0 {
				return
			}
			// To its capacity: an append must not write into another.
			spans = append(spans, span{v.Pointer(), v.Pointer() + uintptr(v.Cap())*v.Type().Elem().Size(), path})
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
			}
		case reflect.Map:
			if v.Len() > 0 {
				spans = append(spans, span{v.Pointer(), v.Pointer() + 1, path})
			}
		case reflect.Struct:
			if v.Type() == reflect.TypeFor[time.Time]() {
				return // its zone is immutable, shared by design
			}
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	}
	var located, hours, distances, coords, sections int
	for _, c := range s.Deliveries[0].DeliveryCategories {
		for _, o := range c.DeliveryOptions {
			if l := o.PickupLocation; l != nil {
				located++
				if l.OperationalHours != nil {
					hours++
				}
				if l.Distances != nil {
					distances++
				}
				if len(l.Sections) > 0 && len(l.Sections[0].Columns) > 0 && len(l.Sections[0].Columns[0].Items) > 0 {
					sections++
				}
				if a := l.VisitingContact.Address; a.Coordinates != nil && len(a.AddressLines) > 0 {
					coords++
				}
			}
		}
	}
	if located < 2 || hours < 2 || distances < 2 || coords < 2 || sections < 2 {
		t.Fatalf("%d pickup options, %d with hours, %d with distances, %d with coordinates and lines, %d with sections: too few to compare", located, hours, distances, coords, sections)
	}
	walk(reflect.ValueOf(s.Deliveries), "deliveries")
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	for i := 1; i < len(spans); i++ {
		if prev := spans[i-1]; spans[i].start < prev.end {
			t.Errorf("%s overlaps %s", spans[i].path, prev.path)
		}
	}
}
