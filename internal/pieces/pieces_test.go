package pieces_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/internal/pieces"
)

// TestTake: pieces are zero, of the length asked, never overlap (an
// append to one does not reach the next), and after Reset the memory is
// handed out again, zeroed; a piece larger than what is left comes from a
// new slice.
func TestTake(t *testing.T) {
	var p pieces.Of[int]
	if got := p.Take(0); got == nil || len(got) != 0 {
		t.Errorf("Take(0) = %#v; want an empty, non-nil slice", got)
	}
	a := p.Take(3)
	for i := range a {
		a[i] = i + 1
	}
	b := p.Take(2)
	_ = append(a, 99) // must not write into b
	if diff := cmp.Diff([]int{0, 0}, b); diff != "" {
		t.Errorf("second piece (-want +got):\n%s", diff)
	}
	b[0] = 7
	big := p.Take(10) // does not fit: a new slice
	big[0] = 5
	if a[0] != 1 || b[0] != 7 {
		t.Errorf("earlier pieces changed by a later one: %v %v", a, b)
	}
	p.Reset()
	again := p.Take(10)
	if diff := cmp.Diff(make([]int, 10), again); diff != "" {
		t.Errorf("a piece after Reset (-want +got):\n%s", diff)
	}
	if &again[0] != &big[0] {
		t.Error("after Reset the piece did not reuse the memory handed out before")
	}
}
