package session

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
