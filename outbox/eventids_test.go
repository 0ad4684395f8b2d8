package outbox

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// A subject's ids grow strictly in the order they are made, within one
// millisecond and when the clock steps back; ids of other subjects and
// other generators (processes) are independent.
func TestEventIDsGrowPerSubject(t *testing.T) {
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	g := &eventIDs{}
	times := []time.Time{at, at, at, at.Add(time.Millisecond), at.Add(-time.Hour), at.Add(-time.Hour), at.Add(time.Second)}
	var prev string
	for i, now := range times {
		g.next("site2", "TN1", now) // another site's subject in between
		id := g.next("site1", "TN1", now)
		if !strings.HasPrefix(id, "evt_") || len(id) != len("evt_")+36 {
			t.Fatalf("id %q", id)
		}
		if id <= prev {
			t.Errorf("id %d (%v) = %s, not after %s", i, now, id, prev)
		}
		prev = id
	}
	if a, b := (&eventIDs{}).next("s", "x", at), (&eventIDs{}).next("s", "x", at); a == b {
		t.Errorf("two generators made the same id %s", a)
	}
}

// The remembered subjects are bounded.
func TestEventIDsRecentBounded(t *testing.T) {
	g := &eventIDs{}
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for i := range maxRecentSubjects + 100 {
		g.next("s", fmt.Sprint(i), at)
	}
	if len(g.recent) != maxRecentSubjects || len(g.order) != maxRecentSubjects {
		t.Errorf("%d subjects remembered (%d in order), want %d", len(g.recent), len(g.order), maxRecentSubjects)
	}
}

func TestAddRandomCarries(t *testing.T) {
	var b [22]byte
	for i := 6; i < 22; i++ {
		b[i] = 0xff
	}
	b[5] = 1
	addRandom(&b, 1)
	if b[5] != 2 || b[21] != 0 || b[6] != 0 {
		t.Errorf("carry: %x", b)
	}
}
