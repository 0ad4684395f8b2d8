package outbox

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
)

// Order per subject.
//
// An event is delivered only after every earlier event of its site and
// subject is settled: applied by all its consumers, or dead. The queue
// keeps the pending events of a subject in the collection subjects, by
// site, subject and seq (queue.Enqueue, in the event's transaction): an
// event written while another of its subject is pending waits behind it,
// without an entry in the due index, and the transaction that settles
// the one before it makes it due (queue.Dequeue). A dead event counts as
// settled, so one event that can never be applied does not hold its
// subject up for good; Retry queues it again, and the events of its
// subject written after that wait for it.
var subjects = queue.NewOrder("outbox.subjects")

// subjectOf is the queue's Subject: the prefix of r's entries in subjects,
// and "" for an event that is not ordered: one without a subject, or
// whose site or subject cannot be part of a key.
func subjectOf(r *record) (string, uint64) {
	site, subject := r.Event.Site, r.Event.Subject
	if subject == "" || strings.Contains(site, storage.KeySep) || strings.Contains(subject, storage.KeySep) {
		return "", 0
	}
	return storage.KeyPrefix(site, subject), r.Seq
}

// blockerOf tells, after a claim of seq failed, what to wait for: the
// first pending event of its subject when seq waits behind it and this
// process is delivering it now; seq itself when seq was made due
// meanwhile (claim it again); else 0 (leave it).
func (d *Dispatcher) blockerOf(ctx context.Context, seq uint64) (uint64, error) {
	// Read twice when the first pending one is not local: it may have
	// just settled here, after the read, which then missed that seq was
	// made due (a delivery is unmarked after its settle commits).
	for range 2 {
		head, err := d.headOf(ctx, seq)
		if err != nil || head == 0 || head == seq || d.isLocal(head) {
			return head, err
		}
	}
	return 0, nil
}

// headOf returns, for a waiting seq, the first pending event of its
// subject; seq when it is due now; 0 when it is neither.
func (d *Dispatcher) headOf(ctx context.Context, seq uint64) (uint64, error) {
	var head uint64
	now := d.opts.Clock.Now().UTC() // not the claim's: seq may have been made due since
	err := d.store.View(ctx, func(tx storage.Tx) error {
		head = 0
		it, err := events.Get(tx, storage.Uint64Key(seq))
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		r := &it.Value
		prefix, _ := subjectOf(r)
		switch {
		case !r.Waiting && r.DeadAt.IsZero() && !r.NextAttempt.After(now):
			head = seq
		case r.Waiting && prefix != "":
			head, _, err = subjects.First(tx, prefix)
		}
		return err
	})
	return head, err
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
