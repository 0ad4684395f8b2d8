package tracking

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/versioncache"
	"github.com/deliverykit/deliverykit/storage"
)

// A ParcelsRenderer turns the answer of Parcels into the bytes an adapter
// answers with, such as an HTTP adapter's JSON body. ParcelsRendered keeps
// what a ParcelsRenderer made of a parcel's answer, and answers later
// reads of the same stored records, while the clock has not reached
// anything in the answer that depends on it, with those bytes.
//
// The render function must therefore be a pure function of the answer:
// the same answer, the same bytes. It must not keep or modify the answer.
// Renderings are told apart by ParcelsRenderer, not by function: create
// one per answer shape (a package variable) and reuse it.
type ParcelsRenderer struct {
	render func(*GetTrackingParcelsResponse) ([]byte, error)
}

// NewParcelsRenderer returns a ParcelsRenderer calling render. The slice
// render returns becomes the service's: render must not keep it, reuse it
// or modify it later (return a copy of a pooled buffer's bytes).
func NewParcelsRenderer(render func(*GetTrackingParcelsResponse) ([]byte, error)) *ParcelsRenderer {
	return &ParcelsRenderer{render: render}
}

// RenderedParcels is a rendered answer of Parcels. Its bytes may be shared
// by every read of the same parcel, so it hands them only to an
// io.Writer, which must not modify them.
type RenderedParcels struct{ b []byte }

// Len is the length of the rendering in bytes.
func (r RenderedParcels) Len() int { return len(r.b) }

// WriteTo writes the rendering to w.
func (r RenderedParcels) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(r.b)
	return int64(n), err
}

var errNoParcelsRenderer = errors.New("tracking: ParcelsRendered needs a ParcelsRenderer (NewParcelsRenderer)")

// ParcelsRendered is Parcels rendered by r: the same answer, or the same
// error. Looked up by tracking number, the rendering is kept, within
// ParcelsAnswerBytes, with the stored versions of the parcels and the
// order it was made of and the span of time around the read's clock in
// which nothing in it that depends on the clock (delay alerts) changes.
// A later read of the same site and tracking number is answered with the
// kept bytes when it finds the same versions and its clock is within that
// span; any change of the parcels or the order stores a new version,
// which is rendered afresh, so an answer is never older than its records
// nor than the clock. The answer also depends on the Service's Options
// (Products, PickupPoints, Sites, PortalURL), which must answer the same
// for the Service's life. Reads by token or external id are rendered
// every time. An error of r is an internal error.
func (s *Service) ParcelsRendered(ctx context.Context, site string, q ParcelsQuery, r *ParcelsRenderer) (RenderedParcels, error) {
	if r == nil || r.render == nil {
		return RenderedParcels{}, errNoParcelsRenderer
	}
	if q.Token != "" || q.ExternalID != "" || q.TrackingNumber == "" {
		ans, err := s.Parcels(ctx, site, q)
		if err != nil {
			return RenderedParcels{}, err
		}
		b, err := r.renderParcels(ans)
		return RenderedParcels{b}, err
	}
	pr := parcelsReads.Get().(*parcelsRead)
	defer pr.free()
	pr.s, pr.r = s, r
	pr.k = answerKey{site: site, number: q.TrackingNumber}
	// The clock Parcels reads: the Service's (a test site's sandbox has
	// a Service on the site's own clock).
	pr.now = s.opts.Clock.Now().UTC()
	if err := s.store.View(ctx, pr.view); err != nil {
		return RenderedParcels{}, err
	}
	return RenderedParcels{pr.out}, nil
}

// parcelsRead is one read of ParcelsRendered by tracking number: what
// its View and its scans of versions need, in one value of a pool whose
// functions are bound once. A function handed to a store escapes, and
// with it every variable it captures; as closures, the View's and the
// scans' were 15 of the read's 37 allocations (BenchmarkExampleRead,
// memory), while the kept answer it serves allocates nothing.
type parcelsRead struct {
	s    *Service
	r    *ParcelsRenderer
	k    answerKey
	now  time.Time
	recs []storage.Record // the parcels' versions, in key order
	out  []byte           // the answer

	// version, found and first are what the scan of the order's version
	// found: the version and key of the first record of its prefix; err
	// is the error a scan ended with.
	version uint64
	found   bool
	first   string
	err     error

	// view, addParcel and orderVersion are run, addParcel and
	// orderVersion bound to this value.
	view                    func(storage.Tx) error
	addParcel, orderVersion func(storage.Record, error) bool
}

var parcelsReads = sync.Pool{New: func() any {
	pr := &parcelsRead{}
	pr.view, pr.addParcel, pr.orderVersion = pr.run, pr.addParcelRec, pr.orderVersionRec
	return pr
}}

// free returns pr to the pool, keeping nothing of the read: the records
// may hold values (a store without VersionScanner), the answer is the
// caller's.
func (pr *parcelsRead) free() {
	clear(pr.recs)
	view, addParcel, orderVersion := pr.view, pr.addParcel, pr.orderVersion
	*pr = parcelsRead{recs: pr.recs[:0], view: view, addParcel: addParcel, orderVersion: orderVersion}
	parcelsReads.Put(pr)
}

// run is the read's View: the kept answer when the parcels' versions, the
// order's and the clock still match it, else the answer rendered afresh
// and kept.
func (pr *parcelsRead) run(tx storage.Tx) error {
	s, k := pr.s, pr.k
	// The parcels' versions, as parcelVersions lists them; from none, as
	// a store may run a View's function again.
	clear(pr.recs)
	pr.recs, pr.out, pr.err = pr.recs[:0], nil, nil
	scanVersions(tx, parcels.Name, storage.Range{Prefix: storage.KeyPrefix(k.site, k.number), Limit: parcelsPerNumber})(pr.addParcel)
	if pr.err != nil {
		return pr.err
	}
	recs := pr.recs
	if e, ok := s.answers.get(k, pr.r); ok && e.holds(recs, pr.now) {
		found, err := pr.versionOf(tx, orders.Name, e.order.key)
		if err != nil {
			return err
		}
		if found && pr.version == e.order.version {
			pr.out = e.b
			return nil
		}
	}
	o, ps, err := s.numberedParcels(tx, k.site, recs)
	if err != nil {
		return err
	}
	w := clockWindow{}
	ans := s.parcelsAnswer(k.site, &o.Value, ps, pr.now, &w)
	if pr.out, err = pr.r.renderParcels(ans); err != nil {
		return err
	}
	e := keptParcels{by: pr.r, order: keptVersion{o.Key, o.Version}, window: w, b: pr.out}
	for _, rec := range recs {
		e.parcels = append(e.parcels, keptVersion{rec.Key, rec.Version})
	}
	s.answers.put(k, e)
	return nil
}

// addParcelRec is the yield of the scan of the parcels' versions.
func (pr *parcelsRead) addParcelRec(rec storage.Record, err error) bool {
	if err != nil {
		pr.err = err
		return false
	}
	pr.recs = append(pr.recs, rec)
	return true
}

// versionOf is versionOf(tx, coll, key) into pr.version: found is false
// when there is no record at key.
func (pr *parcelsRead) versionOf(tx storage.Tx, coll, key string) (found bool, err error) {
	vs, ok := tx.(storage.VersionScanner)
	if !ok {
		v, found, err := versionOf(tx, coll, key)
		pr.version = v
		return found, err
	}
	pr.version, pr.found, pr.err = 0, false, nil
	// A key sorts before every longer key it prefixes, so the first
	// record of the prefix is the key's own if it exists.
	vs.ScanVersions(coll, storage.Range{Prefix: key, Limit: 1})(pr.orderVersion)
	if pr.err != nil {
		return false, pr.err
	}
	return pr.found && pr.first == key, nil
}

// orderVersionRec is the yield of the scan of the order's version: the
// first record of the prefix, and no other.
func (pr *parcelsRead) orderVersionRec(rec storage.Record, err error) bool {
	if err != nil {
		pr.err = err
		return false
	}
	pr.version, pr.found, pr.first = rec.Version, true, rec.Key
	return false
}
func (r *ParcelsRenderer) renderParcels(ans *GetTrackingParcelsResponse) ([]byte, error) {
	b, err := r.render(ans)
	if err != nil {
		return nil, deliverykit.Errorf(deliverykit.KindInternal, "tracking: rendering the parcels of %s: %w", ans.TosID, err)
	}
	return b, nil
}

// versionOf is the stored version of the record at key, without copying
// its value out of the store where the transaction lists versions
// (storage.VersionScanner): a key sorts before every longer key it
// prefixes, so the first record of the prefix is the key's own if it
// exists. found is false when there is no record at key.
func versionOf(tx storage.Tx, coll, key string) (version uint64, found bool, err error) {
	vs, ok := tx.(storage.VersionScanner)
	if !ok {
		rec, err := tx.Get(coll, key)
		if errors.Is(err, storage.ErrNotFound) {
			return 0, false, nil
		}
		return rec.Version, err == nil, err
	}
	for rec, err := range vs.ScanVersions(coll, storage.Range{Prefix: key, Limit: 1}) {
		if err != nil {
			return 0, false, err
		}
		return rec.Version, rec.Key == key, nil
	}
	return 0, false, nil
}

// clockWindow is the span of instants around the one an answer was
// computed at in which every comparison with the clock that computing it
// made comes out the same, so the answer is the same: after from
// (exclusive) up to until (inclusive); a side not set is unbounded. The
// nil *clockWindow notes nothing.
type clockWindow struct {
	from, until       time.Time
	hasFrom, hasUntil bool
}

// after is now.After(t), noting t: the answer is the same at instants on
// the same side of t as now.
func (w *clockWindow) after(now, t time.Time) bool {
	a := now.After(t)
	switch {
	case w == nil:
	case a && (!w.hasFrom || t.After(w.from)):
		w.from, w.hasFrom = t, true
	case !a && (!w.hasUntil || t.Before(w.until)):
		w.until, w.hasUntil = t, true
	}
	return a
}

// contains reports whether an answer computed within w is the same at now.
func (w clockWindow) contains(now time.Time) bool {
	return (!w.hasFrom || now.After(w.from)) && (!w.hasUntil || !now.After(w.until))
}

// ParcelsAnswerBytes and ParcelsAnswers bound a Service's kept renderings
// of GET /parcels (ParcelsRendered): a few thousand parcels, the ones
// being tracked now.
const (
	ParcelsAnswerBytes = 2 << 20
	ParcelsAnswers     = 4096
)

// answerKey names what a read by tracking number asks for. The site is
// part of it: an answer of one site is never looked up by another.
type answerKey struct{ site, number string }

type keptVersion struct {
	key     string
	version uint64
}

// keptParcels is an answer rendered from the parcels and the order at
// their versions, valid at the instants of window.
type keptParcels struct {
	by      *ParcelsRenderer
	parcels []keptVersion
	order   keptVersion
	window  clockWindow
	b       []byte
}

// keptEntryBytes is what an entry holds besides its keys and bytes.
const keptEntryBytes = 160

func (e *keptParcels) size(k answerKey) int64 {
	n := keptEntryBytes + len(k.site) + len(k.number) + len(e.order.key) + len(e.b)
	for _, p := range e.parcels {
		n += 24 + len(p.key)
	}
	return int64(n)
}

// holds reports whether e was made of the parcel records recs (in the
// same order, at the same versions) and is valid at now. The order's
// version is the caller's to check.
func (e *keptParcels) holds(recs []storage.Record, now time.Time) bool {
	if !e.window.contains(now) || len(recs) != len(e.parcels) {
		return false
	}
	for i, rec := range recs {
		if rec.Key != e.parcels[i].key || rec.Version != e.parcels[i].version {
			return false
		}
	}
	return true
}

// answerCache keeps rendered answers by answerKey (package
// versioncache), within ParcelsAnswerBytes and ParcelsAnswers entries. An
// entry is checked against the versions read and the clock before it is
// served, so it is never stale; a read that finishes after a later one
// may replace its entry with an older one, which then misses and is
// replaced again.
type answerCache struct {
	versioncache.Cache[answerKey, *keptParcels]
}

// limit sets c's bounds: ParcelsAnswerBytes and ParcelsAnswers.
func (c *answerCache) limit() { c.Budget, c.MaxEntries = ParcelsAnswerBytes, ParcelsAnswers }

// get returns the entry r rendered for k. The entry is shared: read-only.
func (c *answerCache) get(k answerKey, r *ParcelsRenderer) (*keptParcels, bool) {
	e, _, ok := c.Get(k)
	return e, ok && e.by == r
}

// put keeps e in place of what k had. e must not be modified afterwards.
func (c *answerCache) put(k answerKey, e keptParcels) { c.Put(k, 0, e.size(k), &e) }
