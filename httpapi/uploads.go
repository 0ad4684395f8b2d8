package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit"
)

// Uploads (complaint photos) are the only requests whose bodies run to
// megabytes, so they have limits of their own on top of the body limit:
// how many bytes of uploads the process receives at once, how many
// uploads one client address has open, and how long a body may take.

// The default upload limits, used for the zero values of UploadLimits.
const (
	// DefaultUploadBudgetBytes bounds the bytes of all uploads being
	// received at once: two uploads of the largest size, or many of
	// a few photos.
	DefaultUploadBudgetBytes = 64 << 20
	// DefaultUploadsPerAddress bounds the uploads one client address has
	// in progress at once: a customer sends one form at a time.
	DefaultUploadsPerAddress = 2
	// DefaultUploadReadTimeout bounds how long an upload's body may take
	// to arrive once its headers have, so that a client sending slowly
	// cannot hold its share of the budget: 25 MiB in 20 s is 10 Mbit/s.
	DefaultUploadReadTimeout = 20 * time.Second
)

// uploadRetryAfter is the Retry-After of an upload refused for its
// address's or the process's uploads in progress: about how long an
// upload takes.
const uploadRetryAfter = 5 * time.Second

// UploadLimits bound the complaint photo uploads the handler receives at
// once. Past a limit an upload is refused before its body is read: 429
// for its address, 503 for the process, both with Retry-After.
type UploadLimits struct {
	// BudgetBytes bounds the bytes of the uploads in progress: each
	// takes its declared Content-Length, or the whole upload limit when
	// it declares none, until it is answered. Values below the upload
	// limit (25 MiB + 64 KiB) are raised to it, so that any one upload
	// can be taken; negative turns the budget off. Default:
	// DefaultUploadBudgetBytes.
	BudgetBytes int64
	// PerAddress bounds the uploads in progress from one client address
	// (the address the rate limits use, see RateLimits.TrustedProxies);
	// negative turns the bound off. Default: DefaultUploadsPerAddress.
	PerAddress int
	// ReadTimeout bounds the time an upload's body takes to arrive; past
	// it the upload is answered 408 and the connection closed. Default:
	// DefaultUploadReadTimeout.
	ReadTimeout time.Duration
}

// uploadGate applies UploadLimits.
type uploadGate struct {
	budget      int64 // 0: none
	perAddress  int   // 0: none
	readTimeout time.Duration

	mu       sync.Mutex
	reserved int64
	// active counts the uploads in progress by address key; an address
	// is deleted at zero, so the map holds at most one entry per open
	// upload.
	active map[string]int
}

// newUploadGate is the gate of l; limit is the largest upload body.
func newUploadGate(l UploadLimits, limit int64) *uploadGate {
	g := &uploadGate{active: map[string]int{}, readTimeout: l.ReadTimeout}
	switch {
	case l.BudgetBytes == 0:
		g.budget = max(DefaultUploadBudgetBytes, limit)
	case l.BudgetBytes > 0:
		g.budget = max(l.BudgetBytes, limit)
	}
	switch {
	case l.PerAddress == 0:
		g.perAddress = DefaultUploadsPerAddress
	case l.PerAddress > 0:
		g.perAddress = l.PerAddress
	}
	if g.readTimeout <= 0 {
		g.readTimeout = DefaultUploadReadTimeout
	}
	return g
}

// enter counts an upload of addr in progress, unless addr has perAddress
// already; leave ends it.
func (g *uploadGate) enter(addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perAddress > 0 && g.active[addr] >= g.perAddress {
		return false
	}
	g.active[addr]++
	return true
}

func (g *uploadGate) leave(addr string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active[addr] <= 1 {
		delete(g.active, addr)
		return
	}
	g.active[addr]--
}

// reserve takes n bytes of the budget, unless fewer are left; release
// gives them back.
func (g *uploadGate) reserve(n int64) bool {
	if g.budget == 0 {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reserved+n > g.budget {
		return false
	}
	g.reserved += n
	return true
}

func (g *uploadGate) release(n int64) {
	if g.budget == 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reserved -= n
}

// wireRefusal is an error answered as its wireError: the refusals of
// uploads that the kinds have no status for (408), or that carry their
// own Retry-After.
type wireRefusal struct{ we wireError }

func (e *wireRefusal) Error() string { return e.we.message }

// errUploadsFromAddress refuses an upload for its address's uploads in
// progress.
var errUploadsFromAddress = &wireRefusal{wireError{
	status: http.StatusTooManyRequests, kind: "too many requests", rpcCode: rpcResourceExhausted, retryAfter: uploadRetryAfter,
	message: "too many uploads from this address at once; retry after " + strconv.FormatInt(retrySeconds(uploadRetryAfter), 10) + " s",
}}

// errUploadBudget refuses an upload for the process's uploads in
// progress.
var errUploadBudget = &wireRefusal{wireError{
	status: http.StatusServiceUnavailable, kind: deliverykit.KindUnavailable.String(), rpcCode: rpcUnavailable, retryAfter: uploadRetryAfter,
	message: "too many uploads in progress; retry after " + strconv.FormatInt(retrySeconds(uploadRetryAfter), 10) + " s",
}}

// errUploadTimeout answers an upload whose body took longer than the
// read timeout.
var errUploadTimeout = &wireRefusal{wireError{
	status: http.StatusRequestTimeout, kind: "request timeout", rpcCode: rpcUnavailable,
	message: "the upload took too long to arrive",
}}

// writeRefusal writes err when it is a wireRefusal, and reports whether
// it was.
func (s *server) writeRefusal(w http.ResponseWriter, r *http.Request, style errorStyle, err error) bool {
	var wr *wireRefusal
	if !errors.As(err, &wr) {
		return false
	}
	s.writeWire(w, r, style, wr.we)
	return true
}

// uploadAdmitted marks a request whose upload body was admitted and read
// under the upload limits before its handler ran (an upload sent with an
// Idempotency-Key, whose body is buffered to compare repeats): the
// handler does not count it twice.
type uploadAdmitted struct{}

func isUploadAdmitted(r *http.Request) bool {
	ok, _ := r.Context().Value(uploadAdmitted{}).(bool)
	return ok
}

// admitUpload applies the upload limits to r before its body of at most
// limit bytes is read whole: its address's uploads in progress (429), the
// process's budget (503) and the read deadline. release ends it.
func (s *server) admitUpload(w http.ResponseWriter, r *http.Request, limit int64) (admitted *http.Request, release func(), err error) {
	addr := addressKey(clientAddr(r, s.limits.proxies))
	if !s.uploads.enter(addr) {
		return nil, nil, errUploadsFromAddress
	}
	size := limit
	if r.ContentLength >= 0 {
		size = min(r.ContentLength, limit)
	}
	if !s.uploads.reserve(size) {
		s.uploads.leave(addr)
		return nil, nil, errUploadBudget
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.uploads.readTimeout))
	release = func() {
		s.uploads.release(size)
		s.uploads.leave(addr)
	}
	return r.WithContext(context.WithValue(r.Context(), uploadAdmitted{}, true)), release, nil
}
