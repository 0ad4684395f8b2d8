package returns

import (
	"context"
	"errors"
	"io"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/versioncache"
	"github.com/deliverykit/deliverykit/storage"
)

// A SummaryRenderer turns a return's summary, a row of ListReturns, into
// the bytes an adapter answers with, such as the row's JSON in an HTTP
// page. ListReturnsRendered keeps what a SummaryRenderer made of each
// stored version of a return, and answers later pages holding the same
// version with those bytes, without decoding the stored return or
// rendering it again.
//
// The render function must therefore be a pure function of the summary:
// the same summary, the same bytes. Renderings are told apart by
// SummaryRenderer, not by function: create one per answer shape (a
// package variable) and reuse it.
type SummaryRenderer struct {
	render func(*ReturnSummary) ([]byte, error)
}

// NewSummaryRenderer returns a SummaryRenderer calling render. The slice
// render returns becomes the service's: render must not keep it, reuse it
// or modify it later (return a copy of a pooled buffer's bytes).
func NewSummaryRenderer(render func(*ReturnSummary) ([]byte, error)) *SummaryRenderer {
	return &SummaryRenderer{render: render}
}

// RenderedSummary is a rendered row of a page of returns. Its bytes may be
// shared by every page holding the same version of the return, so it
// hands them only to an io.Writer, which must not modify them.
type RenderedSummary struct{ b []byte }

// Len is the length of the rendering in bytes.
func (r RenderedSummary) Len() int { return len(r.b) }

// WriteTo writes the rendering to w.
func (r RenderedSummary) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(r.b)
	return int64(n), err
}

// MarshalJSON returns the rendering, so that a page rendered as JSON
// encodes like the page of summaries it was rendered from. It is valid
// JSON only when the renderer renders JSON; encoding/json refuses any
// other.
func (r RenderedSummary) MarshalJSON() ([]byte, error) { return r.b, nil }

var errNoSummaryRenderer = errors.New("returns: ListReturnsRendered needs a SummaryRenderer (NewSummaryRenderer)")

// ListReturnsRendered is ListReturns with every row rendered by r: the
// same page, the same rows in the same order. On the paging path that
// reads one page (id order, no afterDate) a row is rendered once per
// stored version of its return and the rendering kept, within
// SummaryCacheBytes: any change of a return stores a new version, which
// is rendered afresh, so a row is never older than its stored return. A
// return stored without its order summary (by an earlier release) reads
// its order too and is rendered every time, as is every row of the other
// sorts. An error of r is an internal error.
func (s *Service) ListReturnsRendered(ctx context.Context, site string, pr PageRequest, r *SummaryRenderer) (Page[RenderedSummary], error) {
	if r == nil || r.render == nil {
		return Page[RenderedSummary]{}, errNoSummaryRenderer
	}
	w, err := newWindow(pr, returnSortFields)
	if err != nil {
		return Page[RenderedSummary]{}, err
	}
	ok, desc := w.idOrder()
	if !ok || !w.afterDate.IsZero() {
		p, err := s.ListReturns(ctx, site, pr)
		if err != nil {
			return Page[RenderedSummary]{}, err
		}
		content := make([]RenderedSummary, len(p.Content))
		for i := range p.Content {
			if content[i].b, err = r.renderSummary(&p.Content[i]); err != nil {
				return Page[RenderedSummary]{}, err
			}
		}
		return envelope(w, content, p.TotalElements), nil
	}
	var content []RenderedSummary
	var total int64
	err = s.store.View(ctx, func(tx storage.Tx) error {
		recs, n, err := s.returns.pageRecords(tx, site, w, desc, false)
		if err != nil {
			return err
		}
		total = n
		content = make([]RenderedSummary, len(recs))
		orders := map[uint64]OrderSummary{}
		for i, rec := range recs {
			if b, ok := s.summaries.get(rec.Key, rec.Version, r); ok {
				content[i].b = b
				continue
			}
			if rec.Value == nil {
				// Listed without its value: read it, at the same
				// version in this View's snapshot.
				if rec, err = tx.Get(returnsColl.Name, rec.Key); err != nil {
					return err
				}
			}
			it, err := returnsColl.Decode(rec)
			if err != nil {
				return err
			}
			sum, err := s.summary(tx, site, it.Value, orders)
			if err != nil {
				return err
			}
			if content[i].b, err = r.renderSummary(&sum); err != nil {
				return err
			}
			// A summary of a return without its order summary
			// depends on the order's record as well: not kept.
			if it.Value.Order != nil {
				s.summaries.put(rec.Key, rec.Version, r, content[i].b)
			}
		}
		return nil
	})
	if err != nil {
		return Page[RenderedSummary]{}, err
	}
	return envelope(w, content, total), nil
}

func (r *SummaryRenderer) renderSummary(sum *ReturnSummary) ([]byte, error) {
	b, err := r.render(sum)
	if err != nil {
		return nil, deliverykit.Errorf(deliverykit.KindInternal, "returns: rendering return %d: %w", sum.ID, err)
	}
	return b, nil
}

// SummaryCacheBytes is the memory budget of a Service's kept renderings
// of returns (ListReturnsRendered): a few thousand returns' rows, more
// than the pages merchants page through at once.
const SummaryCacheBytes = 2 << 20

// summaryCache maps a return's record key to the rendering of one stored
// version of it (package versioncache), within SummaryCacheBytes.
type summaryCache struct {
	versioncache.Cache[string, cachedSummary]
}

type cachedSummary struct {
	by *SummaryRenderer
	b  []byte
}

// summaryEntryBytes is what an entry holds besides its key and bytes.
const summaryEntryBytes = 96

// get returns the rendering by made of the record at key of version, when
// it is kept. The bytes are shared: read-only.
func (c *summaryCache) get(key string, version uint64, by *SummaryRenderer) ([]byte, bool) {
	e, v, ok := c.Get(key)
	if !ok || v != version || e.by != by {
		return nil, false
	}
	return e.b, true
}

// put keeps b, which by rendered from the record at key of version, in
// place of what the key had. b must not be modified afterwards.
func (c *summaryCache) put(key string, version uint64, by *SummaryRenderer, b []byte) {
	c.Put(key, version, summaryEntryBytes+int64(len(key)+len(b)), cachedSummary{by: by, b: b})
}
