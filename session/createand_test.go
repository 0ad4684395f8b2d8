package session_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/session"
)

// answerJSON is s as the HTTP adapter encodes it, without what differs
// from one session to the next of the same request (name, etag).
func answerJSON(t *testing.T, s *session.Session) string {
	t.Helper()
	c := *s
	c.Name, c.Etag = "", ""
	b, err := json.Marshal(&c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// elsewhere is the test session with its recipient at another address:
// other pickup points, other distances, other option ids.
func elsewhere(s *session.Session) {
	s.Deliveries[0].RecipientContact.Address.PostalCode = "111 57"
	s.Deliveries[0].RecipientContact.Address.AddressLines = []string{"Sergels torg 1"}
}

// TestCreateAndAnswersWhatCreateAnswers: the session CreateAnd hands its
// caller is the one Create returns, and a CreateAnd within another's use
// (the memory of the first still in use) leaves the first session alone:
// the pooled memory of an answer is never handed out while its caller
// holds it.
func TestCreateAndAnswersWhatCreateAnswers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	created := map[string]string{}
	for name, in := range map[string]session.Session{"here": input(t), "elsewhere": input(t, elsewhere)} {
		s, err := e.svc.Create(ctx, "demo-site", in)
		if err != nil {
			t.Fatal(err)
		}
		created[name] = answerJSON(t, s)
	}
	if created["here"] == created["elsewhere"] {
		t.Fatal("the two sessions answer alike: the test proves nothing")
	}
	calls := 0
	err := e.svc.CreateAnd(ctx, "demo-site", input(t), func(outer *session.Session) {
		calls++
		before := answerJSON(t, outer)
		if diff := cmp.Diff(created["here"], before); diff != "" {
			t.Errorf("CreateAnd differs from Create (-Create +CreateAnd):\n%s", diff)
		}
		err := e.svc.CreateAnd(ctx, "demo-site", input(t, elsewhere), func(inner *session.Session) {
			calls++
			if diff := cmp.Diff(created["elsewhere"], answerJSON(t, inner)); diff != "" {
				t.Errorf("the inner CreateAnd differs from Create (-Create +CreateAnd):\n%s", diff)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(before, answerJSON(t, outer)); diff != "" {
			t.Errorf("another CreateAnd changed a session still in use (-before +after):\n%s", diff)
		}
	})
	if err != nil || calls != 2 {
		t.Fatalf("CreateAnd: %v, %d calls of use, want 2", err, calls)
	}
	// An invalid session is Create's error, and use is not called.
	err = e.svc.CreateAnd(ctx, "demo-site", session.Session{}, func(*session.Session) { t.Error("use called for an invalid session") })
	if err == nil {
		t.Error("CreateAnd of an empty session: no error")
	}
}

// TestCreateAndConcurrently: sessions created at once, each encoded in
// its use as the HTTP adapter does, answer what Create answers; the race
// detector sees any memory two of them share.
func TestCreateAndConcurrently(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	ins := []session.Session{input(t), input(t, elsewhere)}
	want := make([]string, len(ins))
	for i, in := range ins {
		s, err := e.svc.Create(ctx, "demo-site", in)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = answerJSON(t, s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for n := range 10 {
				i := (g + n) % len(ins)
				var got string
				err := e.svc.CreateAnd(ctx, "demo-site", input(t, func(s *session.Session) {
					if i == 1 {
						elsewhere(s)
					}
				}), func(s *session.Session) { got = answerJSON(t, s) })
				if err != nil {
					t.Error(err)
					return
				}
				if got != want[i] {
					t.Errorf("session %d answered\n%s\nwant\n%s", i, got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}
