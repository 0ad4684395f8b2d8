package reliability

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/wiring"
)

// start is a Monday morning: every delivery option of the demo catalog is
// open.
var start = time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)

// env is every area wired together over HTTP, on a memory store that counts
// committed writes, with the log captured.
type env struct {
	t     testing.TB
	h     http.Handler
	svcs  *wiring.Services
	store *countingStore
	clock *deliverykit.ManualClock
	log   *syncBuffer
}

// newEnv builds the demo configuration's services. ids nil means RandomIDs:
// the tokens customers hold are then real 128-bit random values.
func newEnv(t testing.TB, ids deliverykit.IDSource) *env {
	t.Helper()
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(start)
	if ids == nil {
		ids = deliverykit.RandomIDs{}
	}
	buf := &syncBuffer{}
	logger := newLogger(buf)
	store := &countingStore{Store: memory.New()}
	svcs, err := wiring.New(store, cfg, wiring.Options{Clock: clock, IDs: ids, PublicURL: "http://shop.test", Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	// The clock stands still and one site sends every request: rate
	// limits would answer 429 after their burst (limits_rate_test.go
	// tests them).
	h := svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: logger, RateLimits: noRateLimits})
	return &env{t: t, h: h, svcs: svcs, store: store, clock: clock, log: buf}
}

var noRateLimits = httpapi.RateLimits{Site: httpapi.NoRateLimit, WidgetToken: httpapi.NoRateLimit, Address: httpapi.NoRateLimit}

// newLogger logs everything, debug included, as the example server's text
// handler does, into buf.
func newLogger(buf *syncBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// resp is one answer.
type resp struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any // nil when the body is not a JSON object
}

func (r resp) String() string { return string(r.raw) }

// do sends one request through the handler. A panic escaping the handler
// fails the test (the middleware should have caught it).
func (e *env) do(method, target string, header map[string]string, body string) resp {
	e.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.h.ServeHTTP(rec, req)
	r := resp{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
	var m map[string]any
	if json.Unmarshal(r.raw, &m) == nil {
		r.body = m
	}
	return r
}

// Credentials per area and site: A, B, C take base64 behind Bearer, D the
// key as is, E x-api-key.
type creds struct{ rest, rpc, spring map[string]string }

func credsFor(key string) creds {
	return creds{
		rest:   map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte(key))},
		rpc:    map[string]string{"Authorization": key},
		spring: map[string]string{"X-Api-Key": key},
	}
}

var (
	site1 = credsFor("demo-key")
	site2 = credsFor("demo-key-2")
)

// The demo API keys: they must never show in a log line or an answer
// (other than... nowhere).
var apiKeys = []string{"demo-key", "demo-key-2",
	base64.StdEncoding.EncodeToString([]byte("demo-key")), base64.StdEncoding.EncodeToString([]byte("demo-key-2"))}

// get walks decoded JSON: strings index objects, ints index arrays.
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k < 0 || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any, path ...any) string {
	s, _ := get(v, path...).(string)
	return s
}

// countingStore counts the writes of committed Updates, so a test can
// prove that a refused request changed nothing.
type countingStore struct {
	storage.Store
	writes atomic.Int64
	// colls are the collections ever written, for snapshots.
	colls sync.Map
}

// Shared passes the memory store's shared values on (storage.Owner): its
// records are the memory store's, and the keeper keeps its answers as on
// the memory store itself.
func (s *countingStore) Shared(key any, make func() any) (any, bool) {
	return storage.Shared(s.Store, key, make)
}

func (s *countingStore) Update(ctx context.Context, fn func(storage.Tx) error) error {
	var n int64
	err := s.Store.Update(ctx, func(tx storage.Tx) error {
		n = 0 // fn may run more than once; only the last run commits
		return fn(&countingTx{Tx: tx, n: &n, colls: &s.colls})
	})
	if err == nil {
		s.writes.Add(n)
	}
	return err
}

type countingTx struct {
	storage.Tx
	n     *int64
	colls *sync.Map
}

func (t *countingTx) Put(coll, key string, val []byte, cond storage.Condition) (storage.Record, error) {
	*t.n++
	t.colls.Store(coll, true)
	return t.Tx.Put(coll, key, val, cond)
}

func (t *countingTx) Delete(coll, key string, cond storage.Condition) error {
	*t.n++
	return t.Tx.Delete(coll, key, cond)
}

func (t *countingTx) NextSequence(coll string) (uint64, error) {
	*t.n++
	return t.Tx.NextSequence(coll)
}

// syncBuffer is a log sink safe for concurrent handlers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func decodeObject(raw []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

func fmtSscan(s string, n *int) (int, error) { return fmt.Sscan(s, n) }
