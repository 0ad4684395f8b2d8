package storage

import (
	"context"
	"errors"
)

// Beginner is implemented by stores whose read-write transaction the
// caller can hold between calls, rather than run as a function (Update),
// because it is not tied to a goroutine of the store's: the memory store
// holds its writer for it. A caller whose writes come one at a time from
// code it does not control (a keyed call's unit of work, package
// idempotency) holds one instead of running Update in a goroutine of its
// own and sending it every write.
//
// Stores that run Update functions more than once, or several in one
// transaction (bolt's group commit, a database that retries), do not
// implement it: their caller runs Update (or UpdateSteps). A wrapper
// implements it when it can give a held transaction the meaning it gives
// an Update's (see Get's rules for wrappers), and returns an error
// matching ErrNotHeld when the store it wraps cannot hold one.
type Beginner interface {
	// Begin starts a read-write transaction, as Update would before
	// running its function: waiting for the store's writer, within ctx.
	// The Held's reads and writes follow Tx's rules with ctx as the
	// Update's context.
	Begin(ctx context.Context) (Held, error)
}

// Held is a read-write transaction held by its caller. It is used from one
// goroutine at a time and ends with Commit or Rollback; after that every
// method returns an error, and Rollback does nothing. Until it ends, an
// Update on the same store waits for it, as it waits for another Update:
// the caller must not wait for one.
type Held interface {
	Tx
	// Commit makes the writes visible and durable as Update's commit
	// does, and returns what Update would (ctx's error when it is done,
	// and nothing is committed).
	Commit() error
	// Rollback ends the transaction without committing anything.
	Rollback()
}

// ErrNotHeld is what Begin returns when the store cannot hold a
// transaction for its caller (a wrapper around one that cannot): the
// caller runs Update instead.
var ErrNotHeld = errors.New("storage: this store does not hold transactions for its caller")

// Begin starts a transaction held by the caller on s, or returns an error
// matching ErrNotHeld when s cannot hold one.
func Begin(ctx context.Context, s Store) (Held, error) {
	if b, ok := s.(Beginner); ok {
		return b.Begin(ctx)
	}
	return nil, ErrNotHeld
}
