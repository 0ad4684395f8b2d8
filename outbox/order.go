package outbox

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
)

// Order per subject.
//
// An event is delivered only after every earlier event of its site and
// subject is settled: applied by all its consumers, or dead. A dead event
// counts as settled, so one event that can never be applied does not hold
// its subject up for good; Retry queues it again, and the events of its
// subject written after that wait for it.
//
// The pending events of a subject are listed in the collection subjects,
// by site, subject and seq: Add writes the entry in the event's
// transaction, and the transaction that settles the event deletes it. Before
// seq N is claimed, the first entry of its subject tells whether an earlier
// one is pending: one read, however long the subject's history.
//
// A later event held up this way is parked: it keeps its place in the
// subject and waits (Waiting, and a next attempt no earlier than the
// blocker's) so that Dispatch does not find it due again and again; the
// transaction that settles the blocker makes the next event of the subject
// due at once.
//
// Events written before the subject index existed have no entry: they are
// delivered as before, and do not hold up the events written after them.
// They are the few in flight at an upgrade; indexing them would mean a scan
// of the whole outbox inside one transaction at start.
var subjects = queue.NewOrder("outbox.subjects")

// subjectPrefix returns the prefix of e's entries in subjects, and false
// for an event that is not ordered: one without a subject, or whose site
// or subject cannot be part of a key.
func subjectPrefix(r *record) (string, bool) {
	site, subject := r.Event.Site, r.Event.Subject
	if subject == "" || strings.Contains(site, storage.KeySep) || strings.Contains(subject, storage.KeySep) {
		return "", false
	}
	return storage.KeyPrefix(site, subject), true
}

// enqueueSubject lists r as pending in its subject.
func enqueueSubject(tx storage.Tx, r *record) error {
	p, ok := subjectPrefix(r)
	if !ok {
		return nil
	}
	return subjects.Add(tx, p, r.Seq, storage.AnyVersion)
}

// firstPending returns the seq of the first pending event of r's subject,
// or 0 when none is.
func firstPending(tx storage.Tx, r *record) (uint64, error) {
	p, ok := subjectPrefix(r)
	if !ok {
		return 0, nil
	}
	seq, _, err := subjects.First(tx, p)
	return seq, err
}

// earlierPending returns the record of the first pending event of r's
// subject written before r, if there is one.
func earlierPending(tx storage.Tx, r *record) (*record, error) {
	seq, err := firstPending(tx, r)
	if err != nil || seq == 0 || seq >= r.Seq {
		return nil, err
	}
	it, err := events.Get(tx, storage.Uint64Key(seq))
	if errors.Is(err, storage.ErrNotFound) {
		// Not expected (the entry goes with the event); an entry without its
		// event must not stop the subject.
		return nil, subjects.Delete(tx, firstKey(r, seq), storage.AnyVersion)
	}
	if err != nil {
		return nil, err
	}
	return &it.Value, nil
}

func firstKey(r *record, seq uint64) string {
	p, _ := subjectPrefix(r)
	return p + storage.Uint64Key(seq)
}

// settleSubject takes the settled r off its subject's pending list and
// makes the subject's next event due now if it was parked behind r.
func settleSubject(tx storage.Tx, r *record, now time.Time) error {
	p, ok := subjectPrefix(r)
	if !ok {
		return nil
	}
	if err := subjects.Remove(tx, p, r.Seq); err != nil {
		return err
	}
	seq, err := firstPending(tx, r)
	if err != nil || seq == 0 {
		return err
	}
	it, err := events.Get(tx, storage.Uint64Key(seq))
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	next := it.Value
	if next.Waiting == 0 || !next.DeadAt.IsZero() {
		return nil
	}
	next.Waiting = 0
	at := next.NextAttempt
	if at.After(now) {
		at = now
	}
	_, err = eventQueue.Move(tx, &next, at, storage.VersionIs(it.Version))
	return err
}

// park defers r, held up by the earlier pending event blocker, until the
// blocker's next attempt: settling the blocker wakes it sooner.
func park(tx storage.Tx, r *record, version uint64, blocker *record, now time.Time) error {
	if r.Waiting == blocker.Seq && !r.NextAttempt.Before(blocker.NextAttempt) {
		return nil
	}
	r.Waiting = blocker.Seq
	at := r.NextAttempt
	if blocker.NextAttempt.After(at) {
		at = blocker.NextAttempt
	}
	_, err := eventQueue.Move(tx, r, at, storage.VersionIs(version))
	return err
}

// Local deliveries: the events this process is delivering now, by a
// producer's Update (held) or by Dispatch (busy). A producer's delivery
// held up by one of them waits for it to settle rather than leave its
// event to the loop. Waits cannot form a cycle: a producer waits only for
// an event earlier than the one it delivers, while holding only later
// ones, and an Update made by a consumer (a delivery within a delivery,
// which holds the outer event) never waits.

// deliveringKey marks the context of a consumer's call; its value
// collects the events the consumer's Updates wrote and could not deliver
// at once (typically: of the subject being delivered, so held up by it),
// which the delivery tries again once it has settled.
type deliveringKey struct{}

type followers struct {
	mu   sync.Mutex
	seqs []uint64
}

func (f *followers) add(seq uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seqs = append(f.seqs, seq)
}

func (f *followers) take() []uint64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.seqs
	f.seqs = nil
	return s
}

func withinDelivery(ctx context.Context) (context.Context, *followers) {
	f := &followers{}
	return context.WithValue(ctx, deliveringKey{}, f), f
}

// delivering returns the followers of the delivery whose consumer ctx is
// the context of, or nil outside a delivery.
func delivering(ctx context.Context) *followers {
	f, _ := ctx.Value(deliveringKey{}).(*followers)
	return f
}

func (d *Dispatcher) markBusy(seq uint64) {
	d.heldMu.Lock()
	defer d.heldMu.Unlock()
	if d.busy == nil {
		d.busy = map[uint64]int{}
	}
	d.busy[seq]++
}

func (d *Dispatcher) unmarkBusy(seq uint64) {
	d.heldMu.Lock()
	defer d.heldMu.Unlock()
	if d.busy[seq]--; d.busy[seq] <= 0 {
		delete(d.busy, seq)
	}
	d.signalLocked()
}

// signalLocked wakes the waiters of waitLocal; heldMu is held.
func (d *Dispatcher) signalLocked() {
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

// waitLocal waits until seq is no longer being delivered by this process,
// and reports whether it was (false: it is pending elsewhere, or ctx ended).
func (d *Dispatcher) waitLocal(ctx context.Context, seq uint64) bool {
	waited := false
	for {
		d.heldMu.Lock()
		if d.held[seq] <= 0 && d.busy[seq] <= 0 {
			d.heldMu.Unlock()
			return waited
		}
		if d.changed == nil {
			d.changed = make(chan struct{})
		}
		ch := d.changed
		d.heldMu.Unlock()
		select {
		case <-ch:
			waited = true
		case <-ctx.Done():
			return false
		}
	}
}
