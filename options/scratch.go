package options

import (
	"context"
	"time"

	"github.com/deliverykit/deliverykit/internal/pieces"
)

// Scratch is memory a computation takes its categories, options and
// located pickup points from (ComputeForIn), so that a caller who copies
// what it needs out of a Result can use the same memory for the next
// computation rather than allocate it again: a Result's categories and
// options are most of what computing it allocates.
//
// The Result of ComputeForIn, and every Category, Option and Location
// taken from it by reference, belong to the Scratch until Reset: Reset
// clears them and the next computation in the Scratch overwrites them.
// Strings, catalog values (carriers, pickup locations) and the Result's
// Coordinates are not the Scratch's and stay valid. A Scratch is not safe
// for concurrent use; its zero value is ready.
type Scratch struct {
	cats  pieces.Of[Category]
	opts  pieces.Of[Option]
	found pieces.Of[located]
}

// Reset clears what the Scratch's computations took from it, so that the
// next one reuses the memory. The Results computed in it must no longer
// be used.
func (s *Scratch) Reset() {
	s.cats.Reset()
	s.opts.Reset()
	s.found.Reset()
}

// ComputeForIn is ComputeFor with the Result's categories, options and
// pickup locations in s (see Scratch). A nil s is ComputeFor.
func (e *Engine) ComputeForIn(ctx context.Context, req Request, now time.Time, s *Scratch) (*Result, error) {
	return e.computeFor(ctx, req, now, s)
}

// categories, options and located are n zero elements from s, or newly
// made without a Scratch (s nil).
func (s *Scratch) categories(n int) []Category {
	if s == nil {
		return make([]Category, n)
	}
	return s.cats.Take(n)
}

func (s *Scratch) options(n int) []Option {
	if s == nil {
		return make([]Option, n)
	}
	return s.opts.Take(n)
}

func (s *Scratch) located(n int) []located {
	if s == nil {
		return make([]located, n)
	}
	return s.found.Take(n)
}
