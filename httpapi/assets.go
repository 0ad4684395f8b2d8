package httpapi

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
)

// What shoppers download is served compressed when the browser takes it:
// brotli first (the widget script is about a quarter smaller than gzipped),
// then gzip. Static assets (the widget script, the reference pages'
// scripts) are compressed once, at the highest levels, on first use;
// customer pages are compressed per answer at levels whose cost stays
// small beside rendering them. Every answer carries a strong ETag of the
// bytes it sends (one per coding, as RFC 9110 asks of a strong validator),
// so a revalidation is a 304 without a body.

// coding is a content coding this package sends.
type coding uint8

const (
	identity coding = iota
	codingGzip
	codingBrotli
	numCodings
)

var codingNames = [numCodings]string{identity: "", codingGzip: "gzip", codingBrotli: "br"}

// negotiate picks the coding of an answer from the request's
// Accept-Encoding: brotli when the client takes it, then gzip, else none.
// A coding with q=0 is refused; "*" stands for any coding not named.
func negotiate(acceptEncoding string) coding {
	if acceptEncoding == "" {
		return identity
	}
	var takes [numCodings]bool
	var named [numCodings]bool
	star, starNamed := false, false
	for part := range strings.SplitSeq(acceptEncoding, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		ok := !zeroQ(params)
		switch name = strings.TrimSpace(name); {
		case strings.EqualFold(name, "br"):
			takes[codingBrotli], named[codingBrotli] = ok, true
		case strings.EqualFold(name, "gzip"), strings.EqualFold(name, "x-gzip"):
			takes[codingGzip], named[codingGzip] = ok, true
		case name == "*":
			star, starNamed = ok, true
		}
	}
	for _, c := range []coding{codingBrotli, codingGzip} {
		if takes[c] || (!named[c] && starNamed && star) {
			return c
		}
	}
	return identity
}

// zeroQ reports whether an Accept-Encoding element's parameters give it
// q=0 (with up to three zero decimals).
func zeroQ(params string) bool {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		if q, err := strconv.ParseFloat(v, 64); err == nil && len(v) <= 5 {
			return q == 0
		}
	}
	return false
}

// compress writes b in coding c at level (gzip's levels, or brotli's 0–11).
func compress(c coding, b []byte, level int) []byte {
	var buf bytes.Buffer
	var zw io.WriteCloser
	switch c {
	case codingGzip:
		zw, _ = gzip.NewWriterLevel(&buf, level)
	case codingBrotli:
		zw = brotli.NewWriterLevel(&buf, level)
	default:
		return b
	}
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// strongETag is a strong validator of b: the first half of its SHA-256.
func strongETag(b []byte) string {
	sum := sha256.Sum256(b)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// staticAsset is a file served from memory: the widget script, the
// reference pages' scripts.
type staticAsset struct {
	path         string
	contentType  string
	cacheControl string
	// variants are the body in each coding with its ETag, compressed on
	// first use, so only a reader of the reference pays for its bundle.
	variants [numCodings]func() (body []byte, etag string)
}

func newStaticAsset(path, contentType string, body []byte, cacheControl string) *staticAsset {
	a := &staticAsset{path: path, contentType: contentType, cacheControl: cacheControl}
	etag := strongETag(body)
	a.variants[identity] = func() ([]byte, string) { return body, etag }
	a.variants[codingGzip] = sync.OnceValues(func() ([]byte, string) {
		z := compress(codingGzip, body, gzip.BestCompression)
		return z, strongETag(z)
	})
	a.variants[codingBrotli] = sync.OnceValues(func() ([]byte, string) {
		z := compress(codingBrotli, body, staticBrotliLevel(len(body)))
		return z, strongETag(z)
	})
	return a
}

// staticBrotliLevel is the brotli level of an asset of n bytes: the
// highest for scripts of tens of kilobytes (the widget: 60 ms once, 13 %
// smaller than level 6), level 6 for the megabyte reference bundle, where
// the highest would keep its first reader waiting about three seconds
// for 10 % fewer bytes.
func staticBrotliLevel(n int) int {
	if n <= 256<<10 {
		return brotli.BestCompression
	}
	return 6
}

// serve answers the asset in the coding the client takes best, with its
// ETag, so that a revalidation is a 304.
func (a *staticAsset) serve(w http.ResponseWriter, r *http.Request, _ string) error {
	c := negotiate(r.Header.Get("Accept-Encoding"))
	body, etag := a.variants[c]()
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Cache-Control", a.cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Add("Vary", "Accept-Encoding")
	if c != identity {
		h.Set("Content-Encoding", codingNames[c])
	}
	h.Set("ETag", etag)
	// ServeContent answers If-None-Match and ranges; the zero time sends
	// no Last-Modified.
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
	return nil
}

// pageCompressMin is the size below which a page goes uncompressed: the
// coding's framing and the CPU would buy nothing.
const pageCompressMin = 1024

// Levels for pages compressed per answer: brotli 5 and gzip's default
// come within a few percent of the highest levels on pages of a few
// kilobytes at a fraction of the time.
const (
	pageBrotliLevel = 5
	pageGzipLevel   = gzip.DefaultCompression
)

// Page compressors are pooled: a brotli writer holds a few hundred
// kilobytes of tables, which a page answer should not allocate each time.
var (
	gzipPages   = sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, pageGzipLevel); return zw }}
	brotliPages = sync.Pool{New: func() any { return brotli.NewWriterLevel(nil, pageBrotliLevel) }}
)

// compressPage compresses a page in coding c with a pooled writer.
func compressPage(c coding, b []byte) []byte {
	var buf bytes.Buffer
	buf.Grow(len(b)/3 + 64)
	switch c {
	case codingGzip:
		zw := gzipPages.Get().(*gzip.Writer)
		zw.Reset(&buf)
		zw.Write(b)
		zw.Close()
		gzipPages.Put(zw)
	case codingBrotli:
		zw := brotliPages.Get().(*brotli.Writer)
		zw.Reset(&buf)
		zw.Write(b)
		zw.Close()
		brotliPages.Put(zw)
	default:
		return b
	}
	return buf.Bytes()
}

// writePage writes a rendered page: compressed when the client takes it
// and the page is worth it, with a strong ETag of the bytes sent, and a
// 304 without a body when the request's If-None-Match holds that ETag.
// The caller has set the page's other headers; Vary gains
// Accept-Encoding.
func writePage(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	c := identity
	if len(body) >= pageCompressMin {
		c = negotiate(r.Header.Get("Accept-Encoding"))
	}
	h := w.Header()
	h.Add("Vary", "Accept-Encoding")
	if c != identity {
		body = compressPage(c, body)
		h.Set("Content-Encoding", codingNames[c])
	}
	etag := strongETag(body)
	h.Set("ETag", etag)
	if status == http.StatusOK && etagMatches(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// etagMatches reports whether an If-None-Match value names etag (weak
// comparison, as RFC 9110 asks for If-None-Match) or is "*".
func etagMatches(ifNoneMatch, etag string) bool {
	if ifNoneMatch == "" {
		return false
	}
	for t := range strings.SplitSeq(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
