package postgres

import "sync"

// spares are record versions a transaction drew and did not use. A
// FreshKey Put that would otherwise wait for a draw takes one, so that a
// create whose writes are all FreshKey (a record, its index entry and its
// token, each under a key just made) sends nothing before its COMMIT: one
// round trip, as one INSERT in autocommit.
//
// A spare was drawn before the snapshot of the transaction that takes it,
// so it may be lower than versions other transactions drew since. That
// matters only for a key that had a version before: a record visible to
// the transaction (its FreshKey INSERT then fails, and the strict run
// draws anew), or one deleted earlier, which FreshKey's contract rules out
// (a key the caller has just made). Every spare is a value of the
// sequence handed out once, so a version is still never given twice.
type spares struct {
	mu sync.Mutex
	vs []int64
}

// maxSpares bounds the versions kept; a draw refills up to it.
const maxSpares = 64

// take returns a spare version, if there is one.
func (s *spares) take() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.vs)
	if n == 0 {
		return 0, false
	}
	v := s.vs[n-1]
	s.vs = s.vs[:n-1]
	return v, true
}

// low reports whether a draw should fetch more than its transaction needs.
func (s *spares) low() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.vs) < prefetch
}

// give keeps vs, a transaction's unused versions, as far as there is room.
func (s *spares) give(vs []int64) {
	if len(vs) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vs = vs[:min(len(vs), maxSpares-len(s.vs))]
	s.vs = append(s.vs, vs...)
}
