// Package idempotency makes a mutating call safe to repeat: a caller sends
// a key with the call, and a repeat of the call with the same key gets the
// first call's answer back instead of doing the work again.
//
// A Keeper runs a call with a key as one unit of work: one store
// transaction holds every write the call makes and the answer it gave, so
// a crash leaves either both or neither. The areas' stores take part
// through Keeper.Store: the call's first Update opens the unit's
// transaction, and from then on its Updates and Views run on it instead of
// opening their own; what the call reads before its first write it reads
// as without a key, so that keyed calls do their work before writing side
// by side, as calls without a key do. Events the call adds to the outbox
// are delivered once the unit commits, when the unit's transaction was
// opened on the outbox's store.
//
// For one key, within the retention (DefaultRetention):
//
//   - the first call runs; its answer is stored with the effect when it is
//     the caller's success or the caller's fault (Storable), else the unit
//     rolls back and the answer is returned unstored, so that a retry may
//     succeed;
//   - the same call again (same operation, same request after JSON
//     canonicalisation) gets the stored answer, with no new effect;
//   - another request under the same key is ErrKeyReused;
//   - a call while the first runs, in this process or another sharing the
//     store, is ErrInFlight: retry in a second.
//
// Keys are scoped by site and operation, so two sites never see each
// other's keys. HTTP callers send the key in the Idempotency-Key header
// (package httpapi); Go callers use WithKey and Call.
//
// On a store one process owns (storage.Owner: memory, bolt) an answer is
// one record in time order, found through an index the keepers on the
// store share in memory (about 40 bytes per kept answer), which the
// first keyed call after a start reads back from the store; the keys in
// flight are shared the same way. On a store several servers share
// (PostgreSQL), the answer's head is kept under the key's digest, whose
// unique key stops two servers from both storing one.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/jsonwrite"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// Header is the HTTP request header that carries the key, and
// ReplayedHeader the answer header that marks a stored answer given again.
const (
	Header         = "Idempotency-Key"
	ReplayedHeader = "Idempotent-Replayed"
)

// MaxKeyLen bounds a key: 1 to 255 printable ASCII characters.
const MaxKeyLen = 255

// DefaultRetention is how long an answer is kept when Options.Retention
// is zero.
const DefaultRetention = retention.DefaultIdempotencyKeys

// Errors of Do and Call. They name the header as their field, so every
// adapter answers them in its own error shape.
var (
	// ErrInFlight: the first call with the key is still running. It is a
	// conflict (HTTP 409 with Retry-After: 1); the retry gets the answer.
	ErrInFlight = &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "request in flight",
		Violations: []deliverykit.FieldViolation{{Field: Header, Rule: "in_flight", Message: "a request with this key is still being processed"}}}
	// ErrKeyReused: the key was used with another request (HTTP 422).
	ErrKeyReused = &deliverykit.Error{Kind: deliverykit.KindInvalidArgument, Message: "idempotency key reused",
		Violations: []deliverykit.FieldViolation{{Field: Header, Rule: "reused", Message: "reused with a different request"}}}
)

// ValidateKey returns an InvalidArgument error naming the header unless
// key is 1 to MaxKeyLen printable ASCII characters.
func ValidateKey(key string) error {
	if key == "" || len(key) > MaxKeyLen {
		return deliverykit.InvalidField(Header, "len", fmt.Sprintf("must be 1 to %d printable ASCII characters", MaxKeyLen))
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c > 0x7e {
			return deliverykit.InvalidField(Header, "printascii", fmt.Sprintf("must be 1 to %d printable ASCII characters", MaxKeyLen))
		}
	}
	return nil
}

type keyCtx struct{}

// WithKey returns ctx carrying key for Call: a Go caller's Idempotency-Key.
func WithKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, keyCtx{}, key)
}

// KeyFrom returns the key WithKey put in ctx.
func KeyFrom(ctx context.Context) (string, bool) {
	k, ok := ctx.Value(keyCtx{}).(string)
	return k, ok
}

// Request is what a key is bound to: the operation (an HTTP method and
// path, or a Go method's name) and its request body.
type Request struct {
	// Site scopes the key: keys of two sites never meet. Customer-facing
	// calls without a site key pass the scope of the credential they act
	// on (see httpapi).
	Site string
	// Operation names the call, e.g. "POST /v1/som/shipments.create".
	Operation string
	// Body is the request; JSON is compared after canonicalisation
	// (member order and white space do not matter), anything else byte
	// for byte.
	Body []byte
}

// Answer is a call's answer as stored and replayed.
type Answer struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header,omitempty"`
	Body   []byte              `json:"body"`
}

// Storable reports whether an answer with status is kept: successes and
// the caller's faults, but neither server errors nor 429 nor 409, after
// which a retry may succeed.
func Storable(status int) bool {
	return status >= 200 && status < 500 && status != 409 && status != 429
}

// Options configures a Keeper.
type Options struct {
	// Retention is how long an answer is kept and replayed. Default:
	// DefaultRetention; retention.Never keeps answers forever.
	Retention time.Duration
	// Clock stamps answers and tells the sweep the time. Default: the
	// system clock.
	Clock deliverykit.Clock
}

// Keeper runs calls with keys and sweeps their answers.
type Keeper struct {
	store     storage.Store
	retention time.Duration // 0: forever
	clock     deliverykit.Clock
	keys      *inFlight   // the keys of the calls running: on an owned store, every keeper's
	own       *ownedIndex // where the answers are, on an owned store (see ownedIndex); else nil
	units     chan *unit  // to an idle worker (work)
}

// Collections: the answers, and their retention index (which holds the
// bodies kept apart, record.Apart).
const (
	collKeys = "idempotency.keys"
	classKey = "stored"
)

var expiry = retention.Index{Name: "idempotency.expiry"}

// New returns a Keeper; Open gives it the store its units are
// transactions of. The two steps let the areas' stores, wrapped by
// Keeper.Store, be built before the store the units open on, which
// wiring builds on top of them (the outbox's).
func New(opts Options) *Keeper {
	k := &Keeper{retention: retention.Resolve(opts.Retention, DefaultRetention), clock: opts.Clock,
		keys: &inFlight{held: map[string]struct{}{}}, units: make(chan *unit)}
	if k.clock == nil {
		k.clock = deliverykit.SystemClock{}
	}
	return k
}

// Open sets the store k's units are transactions of, and which keeps the
// answers. Give it the outbox's store (outbox.Dispatcher.Store) so that
// the events a call adds are delivered once its unit commits. The stores
// the areas are built on must be wrapped with k.Store.
//
// On a store one process owns (storage.Owner), every keeper shares the
// keys in flight and the index of the answers (see ownedIndex) with the
// others on the store: open them all on it, or on wrappers that pass
// storage.Shared on.
func (k *Keeper) Open(store storage.Store) {
	k.store = store
	if v, ok := storage.Shared(store, ownedKey{}, newOwnedState); ok {
		st := v.(*ownedState)
		k.keys, k.own = &st.keys, &st.index
	}
}

// record is a stored answer. It is stored as its head in JSON (the
// answer's body left out), a newline, and the body as it is: an answer of
// a few KiB is neither base64-encoded nor escaped on every keyed call.
//
// A body longer than inlineBody is stored apart (Apart), as the value of
// the answer's entry in the expiry index, and the record holds only the
// head. Answer keys are digests, spread all over the key order, while the
// entry keys are in time order: on bolt, a record added among others
// rewrites the page it lands on with its neighbours, so a body of a few
// KiB kept with its digest costs its neighbours' bytes again at every
// keyed call, while kept in time order it is appended to the pages
// written last. The entry is written anyway, and goes with the sweep.
type record struct {
	Hash   string              `json:"hash"`
	Status int                 `json:"status"`
	Header map[string][]string `json:"header,omitempty"`
	At     time.Time           `json:"at"`
	Apart  bool                `json:"apart,omitempty"`
	body   []byte
	// owned: the record is its expiry entry's value, with nothing under
	// its digest (see ownedIndex).
	owned bool
}

// inlineBody is the longest body kept in its record: errors and small
// answers, for which a second record would cost more than it saves.
const inlineBody = 512

func newRecord(hash string, a Answer, at time.Time) record {
	return record{Hash: hash, Status: a.Status, Header: a.Header, At: at, Apart: len(a.Body) > inlineBody, body: a.Body}
}

// entryKey is the key of the expiry entry of the answer at rk stored at
// at, which holds its body when it is apart.
func entryKey(rk string, at time.Time) string {
	return expiry.Key(retention.Entry{Class: classKey, At: at}, rk)
}

func (r record) answer() Answer { return Answer{Status: r.Status, Header: r.Header, Body: r.body} }

// encode is the record as stored. The head is written by hand, as
// encoding/json writes it (decodeRecord reads it with encoding/json): it is
// on every keyed call's path, inside its unit.
func (r record) encode() ([]byte, error) {
	return r.appendTo(make([]byte, 0, r.size())), nil
}

// size is about what encode writes: enough not to grow.
func (r record) size() int {
	n := 144 + 64*len(r.Header)
	if !r.Apart {
		n += len(r.body)
	}
	return n
}

// appendTo appends the record as stored to out.
func (r record) appendTo(out []byte) []byte {
	out = slices.Grow(out, r.size())
	out = append(out, `{"hash":`...)
	out = jsonwrite.String(out, r.Hash)
	out = append(out, `,"status":`...)
	out = strconv.AppendInt(out, int64(r.Status), 10)
	if len(r.Header) > 0 {
		out = append(out, `,"header":{`...)
		keys := make([]string, 0, 8) // on the stack for the usual few
		for k := range r.Header {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = jsonwrite.String(out, k)
			out = append(out, ':')
			if r.Header[k] == nil {
				out = append(out, "null"...)
				continue
			}
			out = append(out, '[')
			for j, v := range r.Header[k] {
				if j > 0 {
					out = append(out, ',')
				}
				out = jsonwrite.String(out, v)
			}
			out = append(out, ']')
		}
		out = append(out, '}')
	}
	out = append(out, `,"at":"`...)
	out = r.At.AppendFormat(out, time.RFC3339Nano)
	if r.Apart {
		return append(out, `","apart":true}`+"\n"...)
	}
	// json.Marshal escapes every newline inside strings, and so does
	// jsonwrite.String: the first one ends the head.
	out = append(out, "\"}\n"...)
	return append(out, r.body...)
}

func decodeRecord(v []byte) (record, error) {
	head, body, ok := bytes.Cut(v, []byte{'\n'})
	if !ok {
		return record{}, errors.New("no head")
	}
	var r record
	if err := json.Unmarshal(head, &r); err != nil {
		return record{}, err
	}
	r.body = body
	return r, nil
}

func (r record) entry() retention.Entry { return retention.Entry{Class: classKey, At: r.At} }

// recordKey is the answer's key: the site, then a digest of operation and
// key, which may hold any byte of a path.
func recordKey(site, operation, key string) string {
	h := sha256.New()
	h.Write([]byte(operation))
	h.Write([]byte{0})
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	var digest [2 * sha256.Size]byte
	hex.Encode(digest[:], h.Sum(sum[:0]))
	return storage.Key(site, string(digest[:]))
}

// Hash is the digest a key is bound to: the operation and the body, JSON
// canonicalised (members sorted, white space dropped, numbers as written).
func Hash(operation string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(operation))
	h.Write([]byte{0})
	withCanonical(body, func(b []byte) { h.Write(b) })
	var sum [sha256.Size]byte
	var digest [2 * sha256.Size]byte
	hex.Encode(digest[:], h.Sum(sum[:0]))
	return string(digest[:])
}

// errors that end a unit without committing it.
var (
	errReplay  = errors.New("idempotency: answer stored meanwhile")
	errDiscard = errors.New("idempotency: answer not stored")
	errTainted = errors.New("idempotency: a nested update failed after writing")
	// errRolledBack refuses the operations of a call whose run began on a
	// transaction the store rolled back and runs again: that run's
	// answer is not kept.
	errRolledBack = deliverykit.E(deliverykit.KindUnavailable, "idempotency: the unit's transaction was rolled back; the call runs again")
)

// Do runs run once for key and req, or returns the answer stored for
// them; replayed reports which. run gets a context that carries the unit,
// whose transaction opens at its first write through a store wrapped by
// k.Store; an answer of a run that wrote nothing is stored alone. run may
// be called more than once (a backend running the transaction again),
// each time afresh, and must have no effect outside the store until Do
// returns. An error of run is returned as is and nothing is stored. When
// a nested Update of run fails after writing, the unit is rolled back and
// run runs once more without one (runAlone).
func (k *Keeper) Do(ctx context.Context, key string, req Request, run func(context.Context) (Answer, error)) (Answer, bool, error) {
	if err := ValidateKey(key); err != nil {
		return Answer{}, false, err
	}
	if k.store == nil {
		return Answer{}, false, deliverykit.E(deliverykit.KindInternal, "idempotency: Keeper.Open was not called")
	}
	rk := recordKey(req.Site, req.Operation, key)
	hash := Hash(req.Operation, req.Body)
	if !k.keys.enter(rk) {
		return Answer{}, false, ErrInFlight
	}
	defer k.keys.leave(rk)
	a, ok, absent, err := k.stored(ctx, rk, hash)
	if err != nil || ok {
		return a, ok, err
	}
	for attempt := 1; ; attempt++ {
		a, replayed, err := k.unit(ctx, rk, hash, absent, run)
		if !errors.Is(err, storage.ErrConflict) {
			return a, replayed, err
		}
		// The commit lost a conflict. When another server stored an
		// answer for the key first (its insert won), that is the answer.
		// Otherwise the conflict was the store's (a serializable store
		// refuses one of two transactions that read what the other
		// wrote, whatever their keys): nothing was kept, so the call runs
		// again, as the store itself retries an Update.
		var serr error
		if a, ok, absent, serr = k.stored(ctx, rk, hash); serr != nil || ok {
			return a, ok, serr
		}
		if attempt == maxUnitAttempts {
			return Answer{}, false, ErrInFlight
		}
	}
}

// callError carries an error of Do's call out of its unit's transaction,
// told apart from the store's own.
type callError struct{ err error }

func (e callError) Error() string { return e.err.Error() }

// maxUnitAttempts bounds how often Do runs a call whose unit lost a
// conflict in the store; past it the caller is told to retry (409,
// Retry-After).
const maxUnitAttempts = 4

// unit runs one attempt of Do's call in a unit of work, whose transaction
// opens at the call's first write (see unit). A call that wrote nothing
// has its answer stored alone afterwards.
func (k *Keeper) unit(ctx context.Context, rk, hash string, absent bool, run func(context.Context) (Answer, error)) (Answer, bool, error) {
	u := &unit{keeper: k, rk: rk, ctx: ctx, absent: absent}
	for {
		a, err := k.runIn(ctx, u, run)
		if !u.open {
			if err != nil {
				return Answer{}, false, err
			}
			return k.keep(ctx, rk, hash, a)
		}
		uerr, rerun := u.finish(&ending{answer: a, err: err, hash: hash})
		if rerun {
			continue
		}
		var ce callError
		switch {
		case uerr == nil:
			k.committed(rk, u.storedAt)
			return a, false, nil
		case errors.As(uerr, &ce):
			// The call's own error, a conflict of its domain included:
			// not the unit's to retry.
			return Answer{}, false, ce.err
		case errors.Is(uerr, errDiscard):
			return a, false, nil
		case errors.Is(uerr, errReplay):
			return replayOf(u.replay, hash)
		case errors.Is(uerr, errTainted):
			return k.runAlone(ctx, rk, hash, run)
		}
		return Answer{}, false, uerr
	}
}

// runIn runs the call once in u. A panic rolls the unit back before it
// goes on up, so that the store's writer is not left held.
func (k *Keeper) runIn(ctx context.Context, u *unit, run func(context.Context) (Answer, error)) (Answer, error) {
	r := &callRun{u: u}
	defer func() {
		r.done.Store(true)
		if p := recover(); p != nil {
			if u.open {
				u.abort(p)
			}
			panic(p)
		}
	}()
	return run(context.WithValue(ctx, unitCtx{}, r))
}

// keep stores the answer of a call that wrote nothing, in a transaction
// of its own: there is no effect for it to be atomic with.
func (k *Keeper) keep(ctx context.Context, rk, hash string, a Answer) (Answer, bool, error) {
	if !Storable(a.Status) {
		return a, false, nil
	}
	var replay record
	var at time.Time
	err := k.store.Update(ctx, func(tx storage.Tx) error {
		rec, found, err := k.get(tx, rk)
		if err != nil {
			return err
		}
		if found {
			replay = rec
			return errReplay
		}
		at = k.clock.Now()
		return k.put(tx, rk, newRecord(hash, a, at), rec)
	})
	switch {
	case err == nil:
		k.committed(rk, at)
		return a, false, nil
	case errors.Is(err, errReplay):
		return replayOf(replay, hash)
	}
	return Answer{}, false, err
}

// runAlone runs a call whose unit was rolled back because a nested
// update failed after it had written: the storage contract has no partial
// rollback, so the call runs again without a unit, exactly as without a
// key, and its answer is stored only when it wrote nothing (there is then
// no effect for a repeat to double). When it wrote, the answer is not
// stored and a repeat runs again.
func (k *Keeper) runAlone(ctx context.Context, rk, hash string, run func(context.Context) (Answer, error)) (Answer, bool, error) {
	w := &watch{keeper: k}
	a, err := run(context.WithValue(ctx, watchCtx{}, w))
	if err != nil || !Storable(a.Status) || w.wrote.Load() {
		return a, false, err
	}
	var at time.Time
	err = k.store.Update(ctx, func(tx storage.Tx) error {
		at = time.Time{}
		rec, found, err := k.get(tx, rk)
		if err != nil || found {
			return err
		}
		at = k.clock.Now()
		return k.put(tx, rk, newRecord(hash, a, at), rec)
	})
	if err != nil && !errors.Is(err, storage.ErrConflict) {
		return Answer{}, false, err
	}
	if err == nil {
		k.committed(rk, at)
	}
	return a, false, nil
}

func replayOf(rec record, hash string) (Answer, bool, error) {
	if rec.Hash != hash {
		return Answer{}, false, ErrKeyReused
	}
	return rec.answer(), true, nil
}

// stored returns the answer kept for rk, if any, read outside a
// transaction (storage.Get), in one statement where the store allows:
// this look comes before every keyed call, and mostly finds nothing.
// absent reports that no answer at all, not even an expired one, is kept.
//
// A body stored apart is then read with storage.Get too: the entry at
// the answer's time holds the body of that answer and of no other (an
// answer is replaced only once expired, at a later time), so the two
// reads agree whenever the entry is found. When it is gone (swept, or
// replaced with its answer, between the two reads) both are read again
// in one View.
func (k *Keeper) stored(ctx context.Context, rk, hash string) (a Answer, ok, absent bool, err error) {
	if k.own != nil {
		if err := k.own.load(ctx, k.store); err != nil {
			return Answer{}, false, false, err
		}
	}
	rec, found, err := k.lookup(rk, storeGetter{ctx, k.store})
	if errors.Is(err, errBodyGone) {
		err = k.store.View(ctx, func(tx storage.Tx) (err error) {
			rec, found, err = k.lookup(rk, tx)
			return err
		})
	}
	if err != nil || !found {
		return Answer{}, false, err == nil && rec.At.IsZero(), err
	}
	a, ok, err = replayOf(rec, hash)
	return a, ok, false, err
}

// getter reads one record: a transaction, or a store outside one
// (storeGetter).
type getter interface {
	Get(coll, key string) (storage.Record, error)
}

type storeGetter struct {
	ctx   context.Context
	store storage.Store
}

func (g storeGetter) Get(coll, key string) (storage.Record, error) {
	return storage.Get(g.ctx, g.store, coll, key)
}

// errBodyGone: the body of an answer kept apart was not found, read
// outside a transaction after its head (see stored).
var errBodyGone = errors.New("idempotency: the body of the answer is gone")

// get reads the answer at rk in tx (see lookup).
func (k *Keeper) get(tx storage.Tx, rk string) (record, bool, error) {
	rec, found, err := k.lookup(rk, tx)
	if errors.Is(err, errBodyGone) {
		return record{}, false, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: body of stored answer %q: %w", rk, err)
	}
	return rec, found, err
}

// lookup reads the answer at rk through g. An answer past the retention,
// not swept yet, is not found, and returned with its time (non-zero) for
// put to replace it.
func (k *Keeper) lookup(rk string, g getter) (record, bool, error) {
	if k.own == nil {
		return k.lookupHead(rk, g, nil)
	}
	at, ok := k.own.get(rk)
	if !ok {
		return record{}, false, nil
	}
	r, err := g.Get(expiry.Name, entryKey(rk, at))
	switch {
	case errors.Is(err, storage.ErrNotFound):
		// Swept since the index was read: the sweep forgets it next.
		return record{}, false, nil
	case err != nil:
		return record{}, false, err
	}
	rec, owned, err := decodeOwned(r.Value)
	switch {
	case err != nil:
		// An answer stored with its head whose body happens to start
		// with the mark byte (a binary document) is still the head's.
		if rec, found, herr := k.lookupHead(rk, g, r.Value); herr == nil && (found || !rec.At.IsZero()) {
			return rec, found, nil
		}
		return record{}, false, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: stored answer %q: %w", rk, err)
	case !owned:
		// Stored with its head under the digest, before the store
		// was read as one process's own: the entry holds its body, if
		// anything.
		return k.lookupHead(rk, g, r.Value)
	case k.expired(rec.At):
		return record{At: rec.At, owned: true}, false, nil
	}
	return rec, true, nil
}

// lookupHead reads the answer whose head is under its digest; body, when
// not nil, is its expiry entry's value, read already.
func (k *Keeper) lookupHead(rk string, g getter, body []byte) (record, bool, error) {
	r, err := g.Get(collKeys, rk)
	if errors.Is(err, storage.ErrNotFound) {
		return record{}, false, nil
	}
	if err != nil {
		return record{}, false, err
	}
	rec, err := decodeRecord(r.Value)
	if err != nil {
		return record{}, false, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: stored answer %q: %w", rk, err)
	}
	if k.expired(rec.At) {
		return record{At: rec.At}, false, nil
	}
	if !rec.Apart {
		return rec, true, nil
	}
	if body == nil {
		b, err := g.Get(expiry.Name, entryKey(rk, rec.At))
		if errors.Is(err, storage.ErrNotFound) {
			return record{}, false, errBodyGone
		}
		if err != nil {
			return record{}, false, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: body of stored answer %q: %w", rk, err)
		}
		body = b.Value
	}
	rec.body = body
	return rec, true, nil
}

// expired reports whether an answer stored at at is past the retention.
func (k *Keeper) expired(at time.Time) bool {
	return k.retention > 0 && !k.clock.Now().Before(at.Add(k.retention))
}

// put stores rec at rk: a new answer, or one that replaces the expired
// old (old.At non-zero). On an owned store the answer is its expiry
// entry's value, and the keeper notes it in its index once the
// transaction commits (stored).
func (k *Keeper) put(tx storage.Tx, rk string, rec record, old record) error {
	if k.own != nil {
		return k.putOwned(tx, rk, rec, old)
	}
	b, err := rec.encode()
	if err != nil {
		return deliverykit.Errorf(deliverykit.KindInternal, "idempotency: storing answer: %w", err)
	}
	// The key was found free, in this transaction or in the look just
	// before it (unit.attempt): on PostgreSQL the check waits for the
	// commit instead of a round trip of its own, and a key another
	// server took meanwhile fails the transaction, whose next attempt
	// finds that server's answer.
	cond := storage.FreshKey()
	var oldEntry retention.Entry
	if !old.At.IsZero() {
		cond, oldEntry = storage.AnyVersion, old.entry()
	}
	if _, err := tx.Put(collKeys, rk, b, cond); err != nil {
		return err
	}
	// A first answer's expiry entry is new as well (FreshKey: a
	// database store checks it at the commit too).
	switch {
	case !rec.Apart && oldEntry.IsZero():
		return expiry.Add(tx, rk, rec.entry())
	case !rec.Apart:
		return expiry.Move(tx, rk, oldEntry, rec.entry())
	}
	bodyCond := storage.FreshKey()
	if !oldEntry.IsZero() {
		if err := expiry.Remove(tx, rk, oldEntry); err != nil {
			return err
		}
		bodyCond = storage.AnyVersion
	}
	_, err = tx.Put(expiry.Name, entryKey(rk, rec.At), rec.body, bodyCond)
	return err
}

// putOwned is put on an owned store: one record, the expiry entry that
// holds the answer whole. The key is held in this process (inFlight), so
// no other call stores an answer for it meanwhile.
func (k *Keeper) putOwned(tx storage.Tx, rk string, rec record, old record) error {
	if !old.At.IsZero() {
		if !old.owned {
			if err := tx.Delete(collKeys, rk, storage.AnyVersion); err != nil {
				return err
			}
		}
		if err := expiry.Remove(tx, rk, old.entry()); err != nil {
			return err
		}
	}
	// Every store copies what it is given before Put returns (the
	// storage contract), so the answer is encoded into a pooled buffer:
	// a body of kilobytes is not allocated twice per keyed call.
	buf := ownedBuffers.Get().(*[]byte)
	*buf = encodeOwned((*buf)[:0], rec)
	_, err := tx.Put(expiry.Name, entryKey(rk, rec.At), *buf, storage.FreshKey())
	if cap(*buf) <= maxPooledAnswer {
		ownedBuffers.Put(buf)
	}
	return err
}

// committed notes, on an owned store, that the answer for rk stored at at
// has committed; the key is still held.
func (k *Keeper) committed(rk string, at time.Time) {
	if k.own != nil && !at.IsZero() {
		k.own.add(rk, at)
	}
}

// Sweep deletes the answers past the retention, at most limit; it is the
// Keeper's part of the retention sweep (retention.Sweepable).
func (k *Keeper) Sweep(ctx context.Context, now time.Time, limit int) (int, error) {
	if k.retention <= 0 || k.store == nil {
		return 0, nil
	}
	type gone struct {
		rk string
		at time.Time
	}
	var swept []gone
	n, err := expiry.Sweep(ctx, k.store, classKey, now.Add(-k.retention), limit, func(tx storage.Tx, rk string, e retention.Entry) (bool, error) {
		ok, err := k.sweepOne(tx, rk, e)
		if ok && k.own != nil {
			swept = append(swept, gone{rk, e.At})
		}
		return ok, err
	})
	// Forgotten whether their deletion committed or not: each is past
	// the retention, and a call that finds no answer in the index stores
	// a new one beside an old entry, which a later sweep deletes.
	for _, g := range swept {
		k.own.remove(g.rk, g.at)
	}
	return n, err
}

// sweepOne deletes, in tx, what the answer at rk keeps beside its due
// expiry entry e (which the sweep deletes), and reports whether that entry
// was the answer's (retention.DeleteFunc).
func (k *Keeper) sweepOne(tx storage.Tx, rk string, e retention.Entry) (bool, error) {
	r, err := tx.Get(collKeys, rk)
	if errors.Is(err, storage.ErrNotFound) {
		// On an owned store, the entry is the answer; elsewhere, an
		// entry left behind.
		return k.own != nil, nil
	}
	if err != nil {
		return false, err
	}
	rec, err := decodeRecord(r.Value)
	if err != nil {
		return false, deliverykit.Errorf(deliverykit.KindInternal, "idempotency: stored answer %q: %w", rk, err)
	}
	if !rec.entry().Same(e) {
		return false, nil
	}
	return true, tx.Delete(collKeys, rk, storage.VersionIs(r.Version))
}
