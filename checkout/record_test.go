package checkout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// The stored record keeps what the options were computed from, not the
// options; reading it computes them again, exactly: a session read back
// (after a restart, from a bolt file) answers byte for byte what it
// answered when it was created and updated, even with a clock reading that
// has nanoseconds and a zone other than UTC.
func TestStoredRecordRecomputesOptions(t *testing.T) {
	now := time.Date(2026, 11, 19, 10, 0, 0, 123456789, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name  string
		open  func(t *testing.T) (storage.Store, func() storage.Store)
		extra func(*CreateRequest)
	}{
		{"memory", func(*testing.T) (storage.Store, func() storage.Store) {
			s := memory.New()
			return s, func() storage.Store { return s }
		}, nil},
		{"bolt reopened", func(t *testing.T) (storage.Store, func() storage.Store) {
			path := filepath.Join(t.TempDir(), "store.db")
			s, err := bolt.Open(path, &bolt.Options{NoSync: true})
			if err != nil {
				t.Fatal(err)
			}
			return s, func() storage.Store {
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				s2, err := bolt.Open(path, &bolt.Options{NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s2.Close() })
				return s2
			}
		}, nil},
		{"no search address", func(*testing.T) (storage.Store, func() storage.Store) {
			s := memory.New()
			return s, func() storage.Store { return s }
		}, func(r *CreateRequest) { r.SearchAddress = nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := deliverykit.NewManualClock(now)
			newSvc := func(store storage.Store) *Service {
				engines, err := NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
				if err != nil {
					t.Fatal(err)
				}
				svc, err := New(store, Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
				if err != nil {
					t.Fatal(err)
				}
				return svc
			}
			store, reopen := tc.open(t)
			req := createRequest()
			if tc.extra != nil {
				tc.extra(&req)
			}
			created, err := newSvc(store).Create(ctx, "demo-site", req)
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := json.Marshal(created); !bytes.Contains(b, []byte(`"selected_shipping_option"`)) {
				t.Fatalf("the session has no selected option: %s", b)
			}
			// The options as the engine computes them at creation, from
			// the same request refresh builds.
			engines, err := NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
			if err != nil {
				t.Fatal(err)
			}
			engine, _ := engines.Engine("demo-site")
			optReq := options.Request{Currency: "SEK", Locales: req.Locales, CartValue: req.Cart.TotalValue,
				Attributes: []string{"small"}, Items: []options.Item{{Quantity: 1}, {Quantity: 2}},
				Address: catalog.Address{Country: "SE"}}
			if req.SearchAddress != nil {
				optReq.Address.PostalCode = req.SearchAddress.PostalCode
			}
			orig, err := engine.Compute(ctx, optReq)
			if err != nil {
				t.Fatal(err)
			}
			clock.Advance(time.Minute)

			// The stored record: inputs, no options.
			var raw map[string]json.RawMessage
			if err := store.View(ctx, func(tx storage.Tx) error {
				rec, err := tx.Get("checkout.sessions", storage.Key("demo-site", created.Session.ID))
				if err != nil {
					return err
				}
				if len(rec.Value) > 2048 {
					t.Errorf("stored record of %d bytes; want ≤ 2 KiB", len(rec.Value))
				}
				return json.Unmarshal(rec.Value, &raw)
			}); err != nil {
				t.Fatal(err)
			}
			if _, ok := raw["options"]; ok {
				t.Errorf("the stored record has options: %s", raw["options"])
			}
			if _, ok := raw["options_input"]; !ok {
				t.Errorf("the stored record has no options_input: %v", raw)
			}

			svc := newSvc(reopen())
			got, err := svc.Get(ctx, "demo-site", created.Session.ID)
			if err != nil {
				t.Fatal(err)
			}
			it, err := svc.load(ctx, "demo-site", created.Session.ID)
			if err != nil {
				t.Fatal(err)
			}
			wantOpts, _ := json.Marshal(orig)
			gotOpts, _ := json.Marshal(it.Value.Options)
			if diff := cmp.Diff(string(wantOpts), string(gotOpts)); diff != "" {
				t.Errorf("options recomputed (-computed at creation +recomputed):\n%s", diff)
			}
			want, _ := json.Marshal(created)
			have, _ := json.Marshal(got)
			if diff := cmp.Diff(string(want), string(have)); diff != "" {
				t.Errorf("the session read back differs from the created one (-created +read):\n%s", diff)
			}
		})
	}
}

// The record cache answers only for the version it was given, and holds
// at most recordCacheSize sessions.
func TestRecordCache(t *testing.T) {
	c := recordCache{budget: 64 << 10}
	res := &options.Result{Locale: "sv-SE"}
	rec := &record{ID: "1", Options: res, OptionsInput: &optionsInput{Currency: "SEK"}}
	c.put("s/1", 7, rec, 1000)
	for _, tc := range []struct {
		key     string
		version uint64
		want    *options.Result
	}{
		{"s/1", 7, res},
		{"s/1", 8, nil}, // written since
		{"s/2", 7, nil},
	} {
		var got *options.Result
		if r := c.get(tc.key, tc.version); r != nil {
			got = r.Options
		}
		if got != tc.want {
			t.Errorf("get(%q, %d) options = %p; want %p", tc.key, tc.version, got, tc.want)
		}
	}
	// The cache keeps a copy: the caller's record is its own.
	rec.ID = "changed"
	if got := c.get("s/1", 7); got.ID != "1" {
		t.Errorf("cached record changed with the caller's: id %q", got.ID)
	}
	c.put("s/legacy", 1, &record{Options: res}, 1000)
	if got := c.get("s/legacy", 1); got != nil {
		t.Errorf("a record without options inputs (of the first format) was cached")
	}
	// The budget holds, whatever the sizes; a record over an eighth of it
	// is served but not kept.
	for i := range 1000 {
		c.put(fmt.Sprintf("s/%d", i), 1, rec, 100+i%3000)
		if c.used > c.budget {
			t.Fatalf("after %d puts: %d bytes cached, over the budget %d", i+1, c.used, c.budget)
		}
	}
	var sum int64
	for _, e := range c.m {
		sum += e.size
	}
	if sum != c.used || len(c.m) < 10 {
		t.Errorf("%d entries of %d bytes, accounted %d", len(c.m), sum, c.used)
	}
	if got := c.put("s/huge", 1, rec, int(c.budget/8)); got != rec || c.get("s/huge", 1) != nil {
		t.Errorf("a record over an eighth of the budget was cached")
	}
	off := recordCache{budget: -1}
	if got := off.put("s/1", 1, rec, 10); got != rec || off.get("s/1", 1) != nil {
		t.Errorf("a cache turned off cached")
	}
}

// A View belongs to its caller: changing one never changes what later
// reads of the session, served from the record cache, return, nor the
// catalog its locations come from.
func TestViewIsTheCallersOwn(t *testing.T) {
	f := newFixture(t)
	req := createRequest()
	v, err := f.svc.Create(ctx, "demo-site", req)
	if err != nil {
		t.Fatal(err)
	}
	first, err := f.svc.Get(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(first)
	mutate := func(v *View) {
		s := &v.Session
		s.Cart.Items[0].Name = "changed"
		s.Cart.Items[1].Attributes[0] = "changed"
		if s.SearchAddress != nil && s.SearchAddress.Coordinates != nil {
			s.SearchAddress.Coordinates.Lat = -1
		}
		if o := s.SelectedShippingOption; o != nil && o.Location != nil {
			o.Location.Address.AddressLines[0] = "changed"
			for k := range o.Location.Meta {
				o.Location.Meta[k] = "changed"
			}
		}
	}
	mutate(first)
	mutate(v)
	second, err := f.svc.Get(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if have, _ := json.Marshal(second); string(have) != string(want) {
		t.Errorf("a caller's changes reached a later read:\n got  %s\n want %s", have, want)
	}
}

// Reading a session again serves the record of the first read, options
// and all; a read for a change gets the cached options in a record of its
// own, whose changes never reach the cache; an update makes a new version,
// whose options are its own. Writes leave the cache alone.
func TestRecordCacheFollowsWrites(t *testing.T) {
	f := newFixture(t)
	v, err := f.svc.Create(ctx, "demo-site", createRequest())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.svc.cache.m); n != 0 {
		t.Errorf("a create filled the cache (%d entries)", n)
	}
	first, err := f.svc.loadShared(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.svc.loadShared(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if first != second {
		t.Errorf("the second read decoded the record again instead of using the cache")
	}
	forChange, err := f.svc.load(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if forChange.Value.Options != first.Options {
		t.Errorf("a read for a change recomputed the options instead of using the cache")
	}
	coords := *first.SearchAddress.Coordinates
	forChange.Value.SearchAddress.Coordinates.Lat = -45
	forChange.Value.Cart.Items[0].Name = "changed"
	if *first.SearchAddress.Coordinates != coords || first.Cart.Items[0].Name == "changed" {
		t.Errorf("a change to a record read for a change reached the cached record")
	}
	// Nor when the read for a change finds the cache empty.
	f.svc.cache = recordCache{budget: DefaultCacheBytes}
	forChange, err = f.svc.load(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	forChange.Value.SearchAddress.Coordinates.Lat = -45
	shared, err := f.svc.loadShared(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if *shared.SearchAddress.Coordinates != coords {
		t.Errorf("a change to a record read for a change reached a later read")
	}
	moved := &Customer{Address: &CustomerAddress{Name: "Anna", AddressLines: []string{"Sergels torg 1"},
		City: "Stockholm", PostalCode: "111 57", Country: "SE"}}
	if _, err := f.svc.Update(ctx, "demo-site", UpdateRequest{ID: v.Session.ID, Customer: moved}); err != nil {
		t.Fatal(err)
	}
	after, err := f.svc.loadShared(ctx, "demo-site", v.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	if after.Options == first.Options || after.Options.Preselected == first.Options.Preselected {
		t.Errorf("after moving the search address the options are still those of 118 26 (preselected %s)", after.Options.Preselected)
	}
}
