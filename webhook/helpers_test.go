package webhook

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/internal/queue"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
)

var testTime = time.Date(2025, 3, 14, 9, 30, 0, 0, time.UTC)

// timeKey is the time part of an index key, as stored.
var timeKey = queue.TimeKey

const (
	secretA = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	secretB = "whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA=="
)

// backends are the stores the delivery tests run on.
var backends = []struct {
	name string
	open func(t *testing.T) storage.Store
}{
	{"memory", func(t *testing.T) storage.Store { return memoryStore(t) }},
	{"bolt", func(t *testing.T) storage.Store {
		s, err := bolt.Open(filepath.Join(t.TempDir(), "dk.db"), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
}

// hit is one request a receiver got.
type hit struct {
	Path   string
	Header http.Header
	Body   []byte
}

// receiver is a webhook endpoint on loopback that records what it gets and
// answers what answer says (200 when nil).
type receiver struct {
	*httptest.Server
	mu     sync.Mutex
	hits   []hit
	answer func(h hit) (int, string)
}

func newReceiver(t *testing.T, answer func(h hit) (int, string)) *receiver {
	t.Helper()
	rc := &receiver{answer: answer}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := hit{Path: r.URL.Path, Header: r.Header.Clone(), Body: b}
		rc.mu.Lock()
		rc.hits = append(rc.hits, h)
		answer := rc.answer
		rc.mu.Unlock()
		code, text := http.StatusOK, "ok"
		if answer != nil {
			code, text = answer(h)
		}
		if code >= 300 && code < 400 {
			w.Header().Set("Location", text)
		}
		w.WriteHeader(code)
		io.WriteString(w, text)
	}))
	t.Cleanup(rc.Close)
	return rc
}

func (rc *receiver) got() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// subjects lists the subject of every body the receiver got, in order.
func (rc *receiver) subjects(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, h := range rc.got() {
		var b struct {
			Data struct {
				Subject string `json:"subject"`
			} `json:"data"`
		}
		if err := json.Unmarshal(h.Body, &b); err != nil {
			t.Fatal(err)
		}
		out = append(out, b.Data.Subject)
	}
	return out
}

// ids lists the webhook-id of every request the receiver got.
func (rc *receiver) ids() []string {
	var out []string
	for _, h := range rc.got() {
		out = append(out, h.Header.Get(HeaderID))
	}
	return out
}

// env is a Service on a store with a manual clock and exact backoffs.
type env struct {
	svc   *Service
	store storage.Store
	clock *deliverykit.ManualClock
	logs  *logBuffer
}

type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newEnv(t *testing.T, store storage.Store, endpoints map[string][]Endpoint, tweak func(*Options)) *env {
	t.Helper()
	if store == nil {
		store = backends[0].open(t)
	}
	e := &env{store: store, clock: deliverykit.NewManualClock(testTime), logs: &logBuffer{}}
	opts := Options{
		Endpoints:    endpoints,
		Clock:        e.clock,
		Logger:       slog.New(slog.NewTextHandler(e.logs, nil)),
		Jitter:       func() float64 { return 0 },
		RetryBase:    time.Second,
		AllowPrivate: true,
	}
	if tweak != nil {
		tweak(&opts)
	}
	svc, err := New(store, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.svc = svc
	return e
}

// endpoint subscribes url to every event type.
func endpoint(id, url string, secrets ...string) Endpoint {
	if len(secrets) == 0 {
		secrets = []string{secretA}
	}
	return Endpoint{ID: id, URL: url, Secrets: secrets, Events: event.Types}
}

// parcelEvent is a parcel.changed event of site about subject.
func parcelEvent(t testing.TB, id, site, subject, step string) event.Event {
	t.Helper()
	ev, err := event.New(id, site, subject, testTime, event.ParcelChanged{TrackingNumber: subject, Step: step, Time: testTime})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

// dispatch runs Dispatch and returns how many were delivered.
func (e *env) dispatch(t *testing.T) int {
	t.Helper()
	n, err := e.svc.Dispatch(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// sweep runs the retention sweep at the clock's time.
func (e *env) sweep(t *testing.T) int {
	t.Helper()
	n, err := e.svc.Sweep(t.Context(), e.clock.Now(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func (e *env) handle(t *testing.T, evs ...event.Event) {
	t.Helper()
	for _, ev := range evs {
		if err := e.svc.Handle(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
	}
}

// deliveries lists an endpoint's deliveries, oldest first.
func (e *env) deliveries(t *testing.T, site, id string) []Delivery {
	t.Helper()
	page, err := e.svc.Deliveries(t.Context(), site, id, DeliveriesQuery{Limit: MaxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	out := page.Deliveries
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// statuses lists event id: status of an endpoint's deliveries, oldest first.
func (e *env) statuses(t *testing.T, site, id string) []string {
	t.Helper()
	var out []string
	for _, d := range e.deliveries(t, site, id) {
		out = append(out, d.EventID+":"+string(d.Status))
	}
	return out
}

func logLines(s, msg string) int { return strings.Count(s, `msg="`+msg) }

// claimOnly claims a delivery as a sender that dies before sending would.
func claimOnly(t *testing.T, e *env, rf ref) {
	t.Helper()
	if _, _, ok, err := e.svc.q.Take(t.Context(), e.svc.store, deliveryKey(rf.Site, rf.Endpoint, rf.Seq), e.clock.Now(), nil); err != nil || !ok {
		t.Fatalf("claim = %v, %v", ok, err)
	}
}

func memoryStore(t testing.TB) storage.Store {
	s := memory.New()
	t.Cleanup(func() { s.Close() })
	return s
}
