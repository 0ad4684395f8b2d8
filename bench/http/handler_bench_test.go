package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/internal/httpbench"
	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/storage/bolt"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/deliverykit/deliverykit/storage/postgres"
)

// BenchmarkExampleCreate is the siw.create request of the load run through
// the example server's handler in process: wiring.New with the demo
// configuration, every middleware, the access log formatted at INFO and
// discarded, on the memory store, on bolt (fsync on every commit) and on
// PostgreSQL (when $DELIVERYKIT_POSTGRES_DSN names a server). It
// is the server's CPU per create without the sockets, for profiling
// (-cpuprofile) and comparing changes. "key" sends each request with an
// Idempotency-Key of its own: the cost of the unit and of the stored
// answer. "floor" sends no key, and after each create writes by hand what
// a keyed create must store besides its effect: a record of the answer's
// bytes under a key as spread as a stored answer's (a hash), and its
// expiry entry (in a transaction of its own, which on bolt the group
// commit usually puts in the create's). It is the least a key can cost
// on that store, whatever the idempotency package does: "key" ÷ "floor"
// is the package's own share. The parallel variants send from 32
// goroutines, as bench/http's clients do: where a store has one writer,
// what a request does inside its transaction is served one at a time.
func BenchmarkExampleCreate(b *testing.B) {
	stores := []struct {
		name string
		open func(*testing.B) storage.Store
	}{
		{"memory", func(*testing.B) storage.Store { return memory.New() }},
		{"bolt", func(b *testing.B) storage.Store {
			s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		// The process's CPU per create on PostgreSQL: the store's share
		// is its round trips (syscalls, wake-ups) and their encoding.
		{"postgres", func(b *testing.B) storage.Store {
			s, err := postgres.Open(b.Context(), pgtest.DSN(b), &postgres.Options{Schema: pgtest.Schema(b)})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		for _, parallel := range []bool{false, true} {
			for _, keyed := range []keying{plain, withKey, floor} {
				name := st.name + "/" + string(keyed)
				if parallel {
					name += "/parallel"
				}
				b.Run(name, func(b *testing.B) {
					store := st.open(b)
					defer store.Close()
					benchmarkCreate(b, store, "/v1/siw/session.create", siwCreateBody, jsonHeader(bearerHeader()), keyed, parallel)
				})
			}
		}
	}
}

// BenchmarkExampleDeliveryCreate is BenchmarkExampleCreate for the
// delivery.create request of the load (POST /delivery/v1/sessions), on the
// memory store, from one goroutine.
func BenchmarkExampleDeliveryCreate(b *testing.B) {
	store := memory.New()
	defer store.Close()
	benchmarkCreate(b, store, "/delivery/v1/sessions", deliveryCreateBody, jsonHeader(http.Header{"Authorization": {key}}), plain, false)
}

// keying is how BenchmarkExampleCreate's requests are keyed.
type keying string

const (
	plain   keying = "plain" // no Idempotency-Key
	withKey keying = "key"   // a key of its own per request
	floor   keying = "floor" // no key; the answer stored by hand after it
)

func benchmarkCreate(b *testing.B, store storage.Store, path, reqBody string, header http.Header, keyed keying, parallel bool) {
	h, err := exampleHandler(b.Context(), store, 0)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(reqBody)
	var n atomic.Int64
	create := func() {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header = header.Clone()
		key := "bench-" + strconv.FormatInt(n.Add(1), 10)
		if keyed == withKey {
			req.Header.Set("Idempotency-Key", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 != 2 {
			b.Errorf("status %d: %s", rec.Code, rec.Body)
		}
		if keyed == floor {
			if err := storeAnswer(b.Context(), store, key, rec.Body.Bytes()); err != nil {
				b.Error(err)
			}
		}
	}
	b.ReportAllocs()
	// The process's CPU time per create, the garbage collector's
	// included: on a shared machine it varies less than the time does.
	cpu0, w0 := cpuTime(b), writtenBytes(b)
	if !parallel {
		for b.Loop() {
			create()
		}
	} else {
		b.SetParallelism(16) // 32 goroutines on 2 cores
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				create()
			}
		})
	}
	b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(writtenBytes(b)-w0)/float64(b.N), "written-B/op")
}

// writtenBytes is how many bytes the process has passed to write system
// calls (wchar in /proc/self/io): on bolt, the pages its commits wrote.
// It does not depend on the machine's load as the times do, except
// through how many creates share a commit.
func writtenBytes(b *testing.B) int64 {
	io, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0 // not Linux: the column reads 0
	}
	for line := range strings.Lines(string(io)) {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	return 0
}

// storeAnswer writes what a keyed call stores besides its effect, as the
// idempotency package lays it out (decision 0037): the answer's head
// (about 200 bytes) under a hash of the key, and its body in an entry of
// a time-ordered index.
func storeAnswer(ctx context.Context, store storage.Store, key string, answer []byte) error {
	sum := sha256.Sum256([]byte(key))
	k := storage.Key("floor", hex.EncodeToString(sum[:]))
	head := bytes.Repeat([]byte{'h'}, 200)
	return store.Update(ctx, func(tx storage.Tx) error {
		if _, err := tx.Put("floor.answers", k, head, storage.MustNotExist()); err != nil {
			return err
		}
		_, err := tx.Put("floor.expiry", storage.Key(time.Now().UTC().Format(time.RFC3339Nano), k), answer, storage.AnyVersion)
		return err
	})
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExampleRead is each GET endpoint of the load run through the
// example server's handler in process, on the memory store, on bolt and
// on PostgreSQL, after the same seeding over HTTP (a loopback test server in front of the
// same handler): the server's CPU and allocations per read without the
// sockets, for profiling and comparing changes. A read commits nothing, so
// bolt is opened without fsync, which only makes the seeding faster.
func BenchmarkExampleRead(b *testing.B) {
	stores := []struct {
		name string
		open func(*testing.B) storage.Store
	}{
		{"memory", func(*testing.B) storage.Store { return memory.New() }},
		{"bolt", func(b *testing.B) storage.Store {
			s, err := bolt.Open(filepath.Join(b.TempDir(), "bench.db"), &bolt.Options{NoSync: true})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		// A read on PostgreSQL is its round trips (when
		// $DELIVERYKIT_POSTGRES_DSN names a server).
		{"postgres", func(b *testing.B) storage.Store {
			s, err := postgres.Open(b.Context(), pgtest.DSN(b), &postgres.Options{Schema: pgtest.Schema(b)})
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
	}
	for _, st := range stores {
		b.Run(st.name, func(b *testing.B) {
			store := st.open(b)
			defer store.Close()
			benchmarkReads(b, store)
		})
	}
}

func benchmarkReads(b *testing.B, store storage.Store) {
	h, err := exampleHandler(b.Context(), store, 0)
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	f, err := seed(b.Context(), srv.Client(), srv.URL)
	if err != nil {
		b.Fatal(err)
	}
	for _, ep := range endpoints {
		s := ep.request("", f)
		if s.method != http.MethodGet {
			continue
		}
		b.Run(ep.name, func(b *testing.B) {
			req := httptest.NewRequest(s.method, s.url, nil)
			req.Header = s.header.Clone()
			httpbench.Serve(b, h, req)
		})
	}
}
