package checkout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/google/go-cmp/cmp"
)

// countingRenderer renders a View as JSON and counts its calls.
type countingRenderer struct {
	*Renderer
	calls atomic.Int64
}

func newCountingRenderer(prefix string) *countingRenderer {
	c := &countingRenderer{}
	c.Renderer = NewRenderer(func(v *View) ([]byte, error) {
		c.calls.Add(1)
		b, err := json.Marshal(v)
		return append([]byte(prefix), b...), err
	})
	return c
}

// uncached is what a renderer's function makes of Get's View: the answer
// without any cache.
func uncached(t *testing.T, svc *Service, id, prefix string) string {
	t.Helper()
	v, err := svc.Get(t.Context(), "demo-site", id)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return prefix + string(b)
}

func answer(t *testing.T, svc *Service, id string, r *Renderer) string {
	t.Helper()
	a, err := svc.GetRendered(t.Context(), "demo-site", id, r)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if n, err := a.WriteTo(&buf); err != nil || n != int64(a.Len()) {
		t.Fatalf("WriteTo wrote %d of %d bytes: %v", n, a.Len(), err)
	}
	if buf.String() != a.String() {
		t.Fatalf("WriteTo and String differ")
	}
	return buf.String()
}

// GetRendered answers exactly what rendering Get's View answers; a session
// read again unchanged is not rendered again, and every change (update,
// the widget's choice, completion) is in the next answer: the stored
// version decides, never the cache.
func TestGetRenderedFollowsChanges(t *testing.T) {
	for _, cacheBytes := range []int64{0, -1} {
		t.Run(fmt.Sprintf("CacheBytes=%d", cacheBytes), func(t *testing.T) {
			f := newFixture(t)
			f.svc.cache.budget = cmpOr(cacheBytes, DefaultCacheBytes)
			v, err := f.svc.Create(t.Context(), "demo-site", createRequest())
			if err != nil {
				t.Fatal(err)
			}
			id := v.Session.ID
			moved := &Customer{Email: "anna@example.com", Address: &CustomerAddress{Name: "Anna", AddressLines: []string{"Sergels torg 1"},
				City: "Stockholm", PostalCode: "111 57", Country: "SE"}}
			steps := []struct {
				name    string
				change  func() error
				changed bool // the answer must differ from the previous one
			}{
				{"first read", func() error { return nil }, true},
				{"read again", func() error { return nil }, false},
				{"update the cart", func() error {
					cart := createRequest().Cart
					cart.Items[0].Quantity = 3
					cart.TotalValue = 125000
					_, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: id, Cart: cart})
					return err
				}, true},
				{"the widget's choice", func() error {
					_, err := f.svc.Select(t.Context(), v.Token, SelectRequest{OptionID: "home/north-parcel-home", AddonIDs: []string{"carry-in"}})
					return err
				}, true},
				{"read after the choice", func() error { return nil }, false},
				{"update meta only", func() error {
					_, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: id, Meta: Meta{"order": "7"}})
					return err
				}, true},
				{"complete", func() error {
					_, err := f.svc.Complete(t.Context(), "demo-site", CompleteRequest{ID: id, Customer: moved})
					return err
				}, true},
				{"read the completed session", func() error { return nil }, false},
			}
			r := newCountingRenderer("")
			prev := ""
			for _, st := range steps {
				if err := st.change(); err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				calls := r.calls.Load()
				got := answer(t, f.svc, id, r.Renderer)
				if diff := cmp.Diff(uncached(t, f.svc, id, ""), got); diff != "" {
					t.Errorf("%s: the answer differs from the rendered View (-want +got):\n%s", st.name, diff)
				}
				if changed := got != prev; changed != st.changed {
					t.Errorf("%s: answer changed = %v, want %v", st.name, changed, st.changed)
				}
				// Rendered when the session changed, or always with the
				// cache off.
				wantCalls := int64(0)
				if st.changed || cacheBytes < 0 {
					wantCalls = 1
				}
				if n := r.calls.Load() - calls; n != wantCalls {
					t.Errorf("%s: rendered %d times, want %d", st.name, n, wantCalls)
				}
				prev = got
			}
		})
	}
}

func cmpOr(a, b int64) int64 {
	if a != 0 {
		return a
	}
	return b
}

// Renderers are told apart by identity: each gets its own bytes, even two
// with the same function, and each is rendered once while the session is
// unchanged. A fifth renderer makes room by dropping the oldest rendering.
func TestGetRenderedRenderersDoNotMix(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.ID
	a, b := newCountingRenderer("a:"), newCountingRenderer("b:")
	var sameCalls atomic.Int64
	fn := func(v *View) ([]byte, error) {
		sameCalls.Add(1)
		return []byte(v.Session.ID), nil
	}
	same1, same2 := NewRenderer(fn), NewRenderer(fn)
	tests := []struct {
		name string
		r    *Renderer
		want string
	}{
		{"a", a.Renderer, uncached(t, f.svc, id, "a:")},
		{"b", b.Renderer, uncached(t, f.svc, id, "b:")},
		{"same function, first", same1, id},
		{"same function, second", same2, id},
	}
	for round := range 3 {
		for _, tt := range tests {
			if diff := cmp.Diff(tt.want, answer(t, f.svc, id, tt.r)); diff != "" {
				t.Errorf("round %d, %s (-want +got):\n%s", round, tt.name, diff)
			}
		}
	}
	if got, want := []int64{a.calls.Load(), b.calls.Load(), sameCalls.Load()}, []int64{1, 1, 2}; !cmp.Equal(want, got) {
		t.Errorf("renders of a, b and the two with one function = %v, want %v", got, want)
	}
	fifth := newCountingRenderer("e:")
	if diff := cmp.Diff(uncached(t, f.svc, id, "e:"), answer(t, f.svc, id, fifth.Renderer)); diff != "" {
		t.Errorf("fifth renderer (-want +got):\n%s", diff)
	}
	if n := len(f.svc.cache.m[storage.Key("demo-site", id)].rendered); n != maxRenderings {
		t.Errorf("%d renderings kept, want %d", n, maxRenderings)
	}
	answer(t, f.svc, id, b.Renderer)
	answer(t, f.svc, id, a.Renderer)
	if got, want := []int64{a.calls.Load(), b.calls.Load()}, []int64{2, 1}; !cmp.Equal(want, got) {
		t.Errorf("after the fifth, renders of a and b = %v, want %v (a, the oldest, made room)", got, want)
	}
}

// A render error is an internal error, and nothing is kept.
func TestGetRenderedErrors(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	var fails atomic.Bool
	r := NewRenderer(func(v *View) ([]byte, error) {
		if fails.Load() {
			return nil, errors.New("disk on fire")
		}
		return []byte("ok"), nil
	})
	tests := []struct {
		name     string
		id       string
		r        *Renderer
		wantKind deliverykit.Kind // when want is ""
		want     string
	}{
		{"render fails", v.Session.ID, r, deliverykit.KindInternal, ""},
		{"missing id", "", r, deliverykit.KindInvalidArgument, ""},
		{"unknown session", "siw_nope", r, deliverykit.KindNotFound, ""},
		{"no renderer", v.Session.ID, nil, deliverykit.KindInternal, ""},
		{"render works again", v.Session.ID, r, 0, "ok"},
	}
	for _, tt := range tests {
		fails.Store(tt.want == "")
		a, err := f.svc.GetRendered(t.Context(), "demo-site", tt.id, tt.r)
		switch {
		case tt.want != "":
			if err != nil || a.String() != tt.want {
				t.Errorf("%s: %q, %v; want %q", tt.name, a.String(), err, tt.want)
			}
		case err == nil:
			t.Errorf("%s: no error", tt.name)
		case deliverykit.KindOf(err) != tt.wantKind:
			t.Errorf("%s: kind %v, want %v (%v)", tt.name, deliverykit.KindOf(err), tt.wantKind, err)
		}
	}
}

// Renderings count against the cache's budget: whatever is put, the
// accounted bytes are the sum of the entries' and at most the budget; a
// rendering that would take an entry past an eighth of the budget is not
// kept; a rendering of a record that is no longer the cached one (a newer
// version, or evicted) is not kept either.
func TestRecordCacheRenderings(t *testing.T) {
	c := recordCache{budget: 64 << 10}
	engine := &options.Engine{}
	r1, r2 := NewRenderer(nil), NewRenderer(nil)
	rec := &record{ID: "1", Options: &options.Result{}, OptionsInput: &optionsInput{}}
	check := func(when string) {
		t.Helper()
		var sum int64
		for _, e := range c.m {
			sum += e.size
			if e.size > c.budget/8 {
				t.Errorf("%s: an entry of %d bytes, over an eighth of the budget", when, e.size)
			}
		}
		if sum != c.used || c.used > c.budget {
			t.Errorf("%s: entries hold %d bytes, accounted %d, budget %d", when, sum, c.used, c.budget)
		}
	}
	cached := c.put("s/1", 7, rec, 100)
	before := c.used
	c.putRendered("s/1", 7, cached, r1, engine, make([]byte, 1000))
	if got, want := c.used-before, int64(1000+renderingBytes); got != want {
		t.Errorf("a rendering of 1000 bytes added %d bytes, want %d", got, want)
	}
	tests := []struct {
		name    string
		version uint64
		r       *Renderer
		engine  *options.Engine
		want    int // length of the kept rendering; -1: none
	}{
		{"kept", 7, r1, engine, 1000},
		{"another version", 8, r1, engine, -1},
		{"another renderer", 7, r2, engine, -1},
		{"another engine", 7, r1, nil, -1},
	}
	for _, tt := range tests {
		b, ok := c.rendered("s/1", tt.version, tt.r, tt.engine)
		if got := map[bool]int{true: len(b), false: -1}[ok]; got != tt.want {
			t.Errorf("%s: rendering of %d bytes, want %d", tt.name, got, tt.want)
		}
	}
	// Replacing a renderer's bytes accounts for the old ones.
	c.putRendered("s/1", 7, cached, r1, engine, make([]byte, 10))
	if b, _ := c.rendered("s/1", 7, r1, engine); len(b) != 10 {
		t.Errorf("the new rendering did not replace the old one")
	}
	check("after a replacement")
	// Not the cached record: not kept.
	c.putRendered("s/1", 7, rec, r2, engine, []byte("stale"))
	c.putRendered("s/1", 6, cached, r2, engine, []byte("stale"))
	c.putRendered("s/2", 7, cached, r2, engine, []byte("stale"))
	if _, ok := c.rendered("s/1", 7, r2, engine); ok {
		t.Errorf("a rendering of a record that is not the cached one was kept")
	}
	// A newer version drops the renderings of the old one.
	newer := c.put("s/1", 8, rec, 100)
	if _, ok := c.rendered("s/1", 7, r1, engine); ok {
		t.Errorf("a rendering of version 7 outlived its record")
	}
	// Too large for an eighth of the budget: served, not kept.
	c.putRendered("s/1", 8, newer, r1, engine, make([]byte, c.budget/8))
	if _, ok := c.rendered("s/1", 8, r1, engine); ok {
		t.Errorf("a rendering past an eighth of the budget was kept")
	}
	check("after a rendering too large")
	// Many sessions with renderings of many sizes: the budget holds.
	for i := range 2000 {
		key := fmt.Sprintf("s/%d", i%300)
		got := c.put(key, uint64(i), rec, 100+i%700)
		for j, r := range []*Renderer{r1, r2, NewRenderer(nil)} {
			c.putRendered(key, uint64(i), got, r, engine, make([]byte, (i*7+j*1000)%5000))
		}
		if c.used > c.budget {
			t.Fatalf("after %d rounds: %d bytes cached, over the budget %d", i+1, c.used, c.budget)
		}
	}
	check("after many puts")
	for k, e := range c.m {
		if len(e.rendered) > maxRenderings {
			t.Errorf("%s keeps %d renderings", k, len(e.rendered))
		}
	}
	// The cache off keeps nothing.
	off := recordCache{budget: -1}
	off.putRendered("s/1", 1, off.put("s/1", 1, rec, 10), r1, engine, []byte("x"))
	if _, ok := off.rendered("s/1", 1, r1, engine); ok {
		t.Errorf("a cache turned off kept a rendering")
	}
}

// Concurrent reads with several renderers and concurrent updates (run
// with -race): every answer is its renderer's rendering of the session,
// and once the writes are done every renderer answers the last version.
func TestGetRenderedConcurrent(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(t.Context(), "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	id := v.Session.ID
	renderers := []*countingRenderer{newCountingRenderer("a:"), newCountingRenderer("b:")}
	const updates = 20
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 4 {
		wg.Go(func() {
			r := renderers[g%len(renderers)]
			prefix := []string{"a:", "b:"}[g%len(renderers)]
			for range 50 {
				a, err := f.svc.GetRendered(t.Context(), "demo-site", id, r.Renderer)
				if err != nil {
					errs <- err
					return
				}
				var got struct {
					Session Session `json:"session"`
				}
				s := a.String()
				if !strings.HasPrefix(s, prefix) || json.Unmarshal([]byte(s[len(prefix):]), &got) != nil || got.Session.ID != id {
					errs <- fmt.Errorf("renderer %s answered %.80s", prefix, s)
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range updates {
			_, err := f.svc.Update(t.Context(), "demo-site", UpdateRequest{ID: id, Meta: Meta{"n": fmt.Sprint(i)}})
			if err != nil && deliverykit.KindOf(err) != deliverykit.KindConflict {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for i, r := range renderers {
		prefix := []string{"a:", "b:"}[i]
		if diff := cmp.Diff(uncached(t, f.svc, id, prefix), answer(t, f.svc, id, r.Renderer)); diff != "" {
			t.Errorf("renderer %s after the writes (-want +got):\n%s", prefix, diff)
		}
	}
}
