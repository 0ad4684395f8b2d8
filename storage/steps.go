package storage

import "context"

// A Step is what remains of an Update function run in steps (UpdateSteps)
// after one of them returned: the function is done when Next is nil.
//
// Between two steps a store may run other Updates' functions on the same
// transaction. Each step is therefore atomic on its own, as an Update is,
// and sees the writes of every function run before it, but the steps
// together are not isolated from those functions; they all commit
// together, or none of them does. A store waits for the last step before
// it commits, holding back every function run with it, so a step must
// come in a time the caller bounds.
type Step struct {
	// Ready reports whether Next would run without waiting; nil means it
	// would. A store that interleaves runs ready steps first.
	Ready func() bool
	// Next runs the next step on the transaction the first step was given.
	// It may wait for the caller to have something to do.
	Next func() (Step, error)
}

// Stepper is implemented by stores that interleave the steps of an
// Update function with other Updates in one transaction (bolt does: its
// group commit then fills while a caller works between its writes).
type Stepper interface {
	// UpdateSteps runs first in a read-write transaction and then the
	// steps it returns, as Update runs fn; see Step. first may run more
	// than once, as fn may, each time on a new transaction.
	UpdateSteps(ctx context.Context, first func(Tx) (Step, error)) error
}

// UpdateSteps runs first and its steps on s: interleaved with other
// Updates when s is a Stepper, else in one Update that runs the steps one
// after the other.
func UpdateSteps(ctx context.Context, s Store, first func(Tx) (Step, error)) error {
	if st, ok := s.(Stepper); ok {
		return st.UpdateSteps(ctx, first)
	}
	return s.Update(ctx, func(tx Tx) error { return RunSteps(first(tx)) })
}

// RunSteps runs the steps that remain after st, one after the other,
// waiting for each, and returns the first error: how a store that does
// not interleave runs a function in steps.
func RunSteps(st Step, err error) error {
	for err == nil && st.Next != nil {
		st, err = st.Next()
	}
	return err
}
