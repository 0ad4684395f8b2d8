package session

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
)

// TestCloneAll holds cloneAll to slices.Clone of each slice: equal
// contents, nil kept nil and empty kept empty, no memory shared with the
// sources, and an append to one copy leaving the next one alone.
func TestCloneAll(t *testing.T) {
	tests := []struct {
		name string
		src  [8][]string
	}{
		{"all nil", [8][]string{}},
		{"some", [8][]string{{"10:00-14:00", "15:00-20:00"}, nil, {}, {"09:00-17:00"}, nil, nil, nil, {"Closed on holidays"}}},
		{"all empty", [8][]string{{}, {}, {}, {}, {}, {}, {}, {}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cloneAll(tt.src)
			for i, s := range tt.src {
				if diff := cmp.Diff(s, got[i]); diff != "" {
					t.Errorf("[%d] (-source +copy):\n%s", i, diff)
				}
				if (s == nil) != (got[i] == nil) {
					t.Errorf("[%d]: source nil %v, copy nil %v", i, s == nil, got[i] == nil)
				}
				if len(s) > 0 {
					got[i][0] = "changed"
					if s[0] == "changed" {
						t.Errorf("[%d]: the copy shares the source's memory", i)
					}
				}
			}
			for i := range 7 {
				if got[i] == nil || got[i+1] == nil || len(got[i+1]) == 0 {
					continue
				}
				next := got[i+1][0]
				_ = append(got[i], "appended")
				if got[i+1][0] != next {
					t.Errorf("an append to [%d] wrote into [%d]", i, i+1)
				}
			}
		})
	}
}

// TestCategoriesOutliveTheirScratch: compute computes each delivery's
// options in pooled memory (options.Scratch) and resets it once
// categories has mapped them. The categories must share none of it: they
// read the same after the memory holds another computation's options.
func TestCategoriesOutliveTheirScratch(t *testing.T) {
	eng, err := options.New(config.Demo().Catalogs()["demo-site"], options.Options{Clock: deliverykit.NewManualClock(time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC))})
	if err != nil {
		t.Fatal(err)
	}
	req := func(postal string, value int64) options.Request {
		return options.Request{Currency: "SEK", Locales: []string{"sv-SE"}, CartValue: value,
			Address: catalog.Address{Country: "SE", PostalCode: postal}, Items: []options.Item{{Quantity: 1, Weight: 800}}}
	}
	var scratch options.Scratch
	res, err := eng.ComputeForIn(t.Context(), req("118 26", 45000), eng.Now(), &scratch)
	if err != nil {
		t.Fatal(err)
	}
	cats := categories(res, nil)
	first := map[*options.Option]string{}
	located := 0
	for i := range res.Categories {
		for j := range res.Categories[i].Options {
			o := &res.Categories[i].Options[j]
			first[o] = o.ID
			if o.Location != nil {
				located++
			}
		}
	}
	if located == 0 {
		t.Fatal("no pickup option: the test proves little")
	}
	want, err := json.Marshal(cats)
	if err != nil {
		t.Fatal(err)
	}
	scratch.Reset()
	res2, err := eng.ComputeForIn(t.Context(), req("111 57", 90000), eng.Now(), &scratch)
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i := range res2.Categories {
		for j := range res2.Categories[i].Options {
			o := &res2.Categories[i].Options[j]
			if id, ok := first[o]; ok && id != o.ID {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("no option of the first computation was overwritten by the second: the test proves nothing")
	}
	got, err := json.Marshal(cats)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("the categories changed when their scratch was reused (-before +after):\n%s", diff)
	}
}

// TestMapChunk: an answer's meta maps are each its own and empty, also
// when reused after a reset from an answer that filled them.
func TestMapChunk(t *testing.T) {
	var c mapChunk
	for round := range 3 {
		seen := map[string]bool{}
		for i := range 4 {
			m := c.take()
			if len(m) != 0 {
				t.Fatalf("round %d: map %d taken with %v", round, i, m)
			}
			m["key"] = "value"
			m[fmt.Sprint(i)] = "x"
			id := fmt.Sprintf("%p", m)
			if seen[id] {
				t.Fatalf("round %d: map %d handed out twice", round, i)
			}
			seen[id] = true
		}
		c.reset()
	}
	if len(c.maps) != 4 {
		t.Errorf("%d maps kept for 4 a round, want them reused", len(c.maps))
	}
	var none *mapChunk
	if m := none.take(); m == nil || len(m) != 0 {
		t.Errorf("a nil chunk's map: %v", m)
	}
}
