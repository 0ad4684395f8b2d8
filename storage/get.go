package storage

import "context"

// Getter is implemented by stores that read one record for less than a
// View costs: PostgreSQL runs the read as one statement on its own, one
// round trip, where a View sends its BEGIN with the read and its ROLLBACK
// after. A statement is its own snapshot, so the record read is one that
// was committed, as in a View. Callers use the function Get, which falls
// back to a View on stores without it.
//
// Get follows every rule of Tx.Get in a View: a missing record is an error
// matching ErrNotFound; an empty collection or key is InvalidArgument; a
// closed store is ErrClosed; a done context is its error; the record's
// value belongs to the caller.
//
// A store that wraps another and gives its Views a meaning of its own (it
// times them, renames keys, runs them elsewhere) must give its Get the
// same meaning, or not implement Getter: its View then serves the read.
// Only a wrapper whose View is the wrapped store's may pass Get on as it
// is. Nothing finds the wrapped store's Get on its own: a wrapper that
// embeds storage.Store does not have it.
type Getter interface {
	Get(ctx context.Context, coll, key string) (Record, error)
}

// Get reads the record at key in coll as a View with that one Get would,
// in one statement when s is a Getter. A caller that reads one record and
// nothing else uses it: a keyed call's look for a stored answer, say.
func Get(ctx context.Context, s Store, coll, key string) (Record, error) {
	if g, ok := s.(Getter); ok {
		return g.Get(ctx, coll, key)
	}
	var rec Record
	err := s.View(ctx, func(tx Tx) (err error) {
		rec, err = tx.Get(coll, key)
		return err
	})
	if err != nil {
		return Record{}, err
	}
	return rec, nil
}
