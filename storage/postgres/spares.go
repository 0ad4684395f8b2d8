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
//
// A create takes its spares before it sends anything, so all the creates
// in progress hold theirs at once: 32 clients creating three records each
// take about a hundred. The spares are filled up, by a draw in a round
// trip a transaction makes anyway (see claim), whenever fewer than half of
// maxSpares are kept or being drawn.
type spares struct {
	mu sync.Mutex
	vs []int64
	// claimed counts the versions draws in progress are fetching for
	// the spares, so that transactions committing at once do not all
	// draw the same shortfall.
	claimed int
}

// maxSpares bounds the versions kept.
const maxSpares = 256

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

// claim returns how many versions a draw should fetch for the spares,
// and counts them as being drawn until give ends the claim: none while
// at least half of maxSpares are kept or being drawn, else enough to
// fill them up.
func (s *spares) claim() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	have := len(s.vs) + s.claimed
	if have >= maxSpares/2 {
		return 0
	}
	n := maxSpares - have
	s.claimed += n
	return n
}

// give keeps vs, versions a transaction drew and did not use, as far as
// there is room, and ends a claim of claimed versions (drawn or not).
func (s *spares) give(vs []int64, claimed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.claimed -= claimed
	vs = vs[:min(len(vs), maxSpares-len(s.vs))]
	s.vs = append(s.vs, vs...)
}
