package checkout

import (
	"context"
	"errors"
	"io"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// A Renderer turns a session's View into the bytes an adapter answers
// with, such as an HTTP adapter's JSON body. GetRendered keeps what a
// Renderer made with the session in the cache of recently read sessions,
// and answers later reads of the same stored version of the session with
// those bytes, without building the View or rendering it again.
//
// The render function must therefore be a pure function of the View: the
// same View, the same bytes (a View depends only on the stored session,
// the site's catalog and the service's configuration, never on the time
// of the read). Renderings are told apart by Renderer, not by function:
// create a Renderer once per answer shape (a package variable) and reuse
// it; two Renderers never share bytes, even with the same function.
type Renderer struct {
	render func(*View) ([]byte, error)
}

// NewRenderer returns a Renderer calling render. The slice render returns
// becomes the service's: render must not keep it, reuse it or modify it
// later (return a copy of a pooled buffer's bytes, not the buffer's).
func NewRenderer(render func(*View) ([]byte, error)) *Renderer {
	return &Renderer{render: render}
}

// Answer is a rendered session. Its bytes may be shared by every read of
// the same session version, so Answer hands them only to an io.Writer,
// which must not modify them, or copies them.
type Answer struct{ b []byte }

// Len is the length of the answer in bytes (an HTTP Content-Length).
func (a Answer) Len() int { return len(a.b) }

// WriteTo writes the answer to w.
func (a Answer) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(a.b)
	return int64(n), err
}

// String returns a copy of the answer.
func (a Answer) String() string { return string(a.b) }

var errNoRenderer = errors.New("checkout: GetRendered needs a Renderer (NewRenderer)")

// GetRendered returns a session rendered by r: what r made of Get's View.
// A session read again while it is unchanged costs a read of its stored
// version and a cache lookup: the version read from the store decides, so
// an answer is never older than the stored session. The rendering is kept
// with the cached session, within Options.CacheBytes; with the cache off
// (or a session too large for it) every call renders. An error of r is an
// internal error.
func (s *Service) GetRendered(ctx context.Context, site, id string, r *Renderer) (Answer, error) {
	if r == nil || r.render == nil {
		return Answer{}, errNoRenderer
	}
	if id == "" {
		return Answer{}, deliverykit.InvalidField("id", "required", "is required")
	}
	key := storage.Key(site, id)
	raw, err := s.read(ctx, key, id)
	if err != nil {
		return Answer{}, err
	}
	// Get renders names with whatever engine the site has now, nil
	// included; a kept rendering is used only with the same engine.
	engine, _ := s.engines.Engine(site)
	if b, ok := s.cache.rendered(key, raw.Version, r, engine); ok {
		return Answer{b}, nil
	}
	keep := cacheable(ctx)
	rec, err := s.shared(site, key, raw, keep)
	if err != nil {
		return Answer{}, err
	}
	b, err := r.render(s.view(engine, rec))
	if err != nil {
		return Answer{}, deliverykit.Errorf(deliverykit.KindInternal, "checkout: rendering session %s: %w", id, err)
	}
	if keep {
		s.cache.putRendered(key, raw.Version, rec, r, engine, b)
	}
	return Answer{b}, nil
}
