package recordtest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// spy records the errors a check reports.
type spy struct {
	testing.TB
	errs []string
}

func (s *spy) Helper()                   {}
func (s *spy) Errorf(f string, a ...any) { s.errs = append(s.errs, fmt.Sprintf(f, a...)) }

// Wire is an exported type, as wire types are.
type Wire struct {
	Name string `json:"name"`
}

// Amount encodes itself, as some wire types do.
type Amount int64

func (a Amount) MarshalJSON() ([]byte, error) { return []byte(`"0"`), nil }

type okRecord struct {
	Schema int               `json:"schema"`
	At     time.Time         `json:"at"`
	Kind   Kind              `json:"kind"`
	Items  []okItem          `json:"items"`
	Attrs  map[string]any    `json:"attrs"`
	ByID   map[string]okItem `json:"by_id"`
	cache  *Wire
}

type Kind string

type okItem struct {
	N int `json:"n"`
}

type wireInside struct {
	W *Wire `json:"w"`
}

type embedding struct {
	okItem
}

type untagged struct {
	N int
}

type selfEncoding struct {
	A Amount `json:"a"`
}

func TestCheckOwnNames(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want []string // substrings of the errors, in order
	}{
		{reflect.TypeFor[okRecord](), nil},
		{reflect.TypeFor[wireInside](), []string{"recordtest.Wire is not an unexported struct"}},
		{reflect.TypeFor[embedding](), []string{"embedded field"}},
		{reflect.TypeFor[untagged](), []string{"without a json tag"}},
		{reflect.TypeFor[selfEncoding](), []string{"Amount encodes itself"}},
	} {
		s := &spy{TB: t}
		CheckOwnNames(s, tc.typ)
		if len(s.errs) != len(tc.want) {
			t.Errorf("%s: errors %q, want %d", tc.typ, s.errs, len(tc.want))
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(s.errs[i], w) {
				t.Errorf("%s: error %q does not say %q", tc.typ, s.errs[i], w)
			}
		}
	}
}

func TestFillAndLeaves(t *testing.T) {
	type inner struct {
		S string
		P *int
	}
	type v struct {
		A  string
		B  int32
		C  bool
		T  time.Time
		In []inner
		M  map[string]string
		X  any
		E  *struct{}
		u  string
	}
	var got v
	Fill(&got)
	if got.A == "" || got.B == 0 || !got.C || got.T.IsZero() || len(got.In) != 1 || got.In[0].P == nil || len(got.M) != 1 || got.X == nil || got.E == nil {
		t.Errorf("Fill left a zero value: %+v", got)
	}
	if got.u != "" {
		t.Errorf("Fill set an unexported field")
	}
	// A, B, C, T, In[0].S, In[0].P, one key and one value of M, X, E.
	if n := Leaves(got); n != 10 {
		t.Errorf("Leaves = %d, want 10", n)
	}
	got.In[0].P = nil
	if n := Leaves(got); n != 9 {
		t.Errorf("Leaves after dropping one = %d, want 9", n)
	}
	if diff := cmp.Diff(0, Leaves(v{})); diff != "" {
		t.Errorf("Leaves of a zero value (-want +got):\n%s", diff)
	}
}
