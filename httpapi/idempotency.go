package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/idempotency"
)

// Every POST and PATCH takes an Idempotency-Key (package idempotency): the
// first request with a key runs in one transaction with its answer, and a
// repeat gets that answer byte for byte with Idempotent-Replayed: true. A
// request without the header is served as before.

// idempotent reports whether r asks for an idempotent call.
func (s *server) idempotent(r *http.Request) bool {
	if s.idem == nil || (r.Method != http.MethodPost && r.Method != http.MethodPatch) {
		return false
	}
	_, ok := r.Header[idempotency.Header]
	return ok
}

// serveIdempotent serves r, which carries the header, through the keeper.
// The endpoint writes to a recorder; its answer reaches the client only
// once the unit has committed (or was not to be stored), so a failed
// commit answers an error and leaves nothing behind.
func (s *server) serveIdempotent(w http.ResponseWriter, r *http.Request, a area, site string, h endpoint) {
	vals := r.Header.Values(idempotency.Header)
	if len(vals) != 1 {
		s.writeError(w, r, a.style, deliverykit.InvalidField(idempotency.Header, "single", "must be sent once"))
		return
	}
	key := vals[0]
	if err := idempotency.ValidateKey(key); err != nil {
		s.writeError(w, r, a.style, err)
		return
	}
	if info := requestInfoFrom(r.Context()); info != nil && info.maxBody > s.maxBody {
		// An upload's body runs to megabytes: it is buffered (to compare
		// a repeat) only under the upload limits, as an upload without
		// a key is read.
		admitted, release, err := s.admitUpload(w, r, info.maxBody)
		if err != nil {
			w.Header().Set("Connection", "close")
			s.writeRefusal(w, r, a.style, err)
			return
		}
		defer release()
		r = admitted
	}
	body, err := io.ReadAll(r.Body)
	if isUploadAdmitted(r) {
		// Read: the deadline must not cut the connection's idle read
		// while the store works.
		_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	}
	if err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			err = fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, mbe.Limit)
		} else {
			err = deliverykit.Errorf(deliverykit.KindInvalidArgument, "reading the request body: %w", err)
		}
		s.writeError(w, r, a.style, err)
		return
	}
	scope := site
	if scope == "" {
		scope = publicScope(r, body)
	}
	req := idempotency.Request{Site: scope, Operation: r.Method + " " + r.URL.Path, Body: body}
	// The runs' bodies are pooled buffers: once Do has returned, its
	// transaction has ended and nothing holds them but the answer, which
	// is written below before they go back.
	var bufs []*bytes.Buffer
	defer func() {
		for _, b := range bufs {
			putBuffer(b)
		}
	}()
	ans, replayed, err := s.idem.Do(r.Context(), key, req, func(ctx context.Context) (idempotency.Answer, error) {
		// Each run (a backend may retry the transaction) starts afresh.
		rec := &recorder{header: http.Header{}, body: getBuffer()}
		bufs = append(bufs, rec.body)
		rr := r.WithContext(ctx)
		rr.Body = io.NopCloser(bytes.NewReader(body))
		if err := h(rec, rr, site); err != nil {
			s.writeError(rec, rr, a.style, err)
		}
		return rec.answer(), nil
	})
	switch {
	case errors.Is(err, idempotency.ErrInFlight), errors.Is(err, idempotency.ErrKeyReused):
		s.writeWire(w, r, a.style, idempotencyWire(err))
		return
	case err != nil:
		s.writeError(w, r, a.style, err)
		return
	}
	hd := w.Header()
	for k, v := range ans.Header {
		hd[k] = v
	}
	if replayed {
		hd.Set(idempotency.ReplayedHeader, "true")
	}
	w.WriteHeader(ans.Status)
	w.Write(ans.Body)
}

// idempotencyWire is the answer to a key in flight (409, retry in a
// second) or reused with another request (422).
func idempotencyWire(err error) wireError {
	we := toWire(err)
	if errors.Is(err, idempotency.ErrKeyReused) {
		we.status, we.kind = http.StatusUnprocessableEntity, "unprocessable"
	} else {
		we.retryAfter = time.Second
	}
	return we
}

// publicScope is the scope of a key sent to an endpoint that takes no
// API key: the credential that selects the tenant. The widget's token and
// a status page token each belong to one site's session or return; the
// customer return form names its site. Keys of two sites never meet, and
// a token's keys are its own.
func publicScope(r *http.Request, body []byte) string {
	digest := func(kind, v string) string {
		sum := sha256.Sum256([]byte(v))
		return "~" + kind + ":" + hex.EncodeToString(sum[:16])
	}
	if tok := r.Header.Get(widgetTokenHeader); tok != "" {
		return digest("widget", tok)
	}
	if tok := r.PathValue("token"); tok != "" {
		return digest("status", tok)
	}
	var form struct {
		SiteID string `json:"siteId"`
	}
	if json.Unmarshal(body, &form) == nil && form.SiteID != "" {
		return digest("site", form.SiteID)
	}
	return "~public"
}

// recorder keeps an endpoint's answer until the unit has committed.
type recorder struct {
	header http.Header
	status int
	body   *bytes.Buffer
}

func (rec *recorder) Header() http.Header { return rec.header }

func (rec *recorder) WriteHeader(code int) {
	if rec.status == 0 {
		rec.status = code
	}
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return rec.body.Write(b)
}

// answer is what the endpoint wrote: its status, the headers it set
// (content type, location, etag, CORS) and its body.
func (rec *recorder) answer() idempotency.Answer {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	// The recorder is not written to again: its header is the answer's.
	h := map[string][]string(rec.header)
	if idempotency.Storable(status) {
		delete(h, "Retry-After") // a stored answer is final
	}
	return idempotency.Answer{Status: status, Header: h, Body: rec.body.Bytes()}
}
