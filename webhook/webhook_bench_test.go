package webhook

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
)

// BenchmarkSign signs a catalogue-sized body with one and two secrets.
func BenchmarkSign(b *testing.B) {
	body, err := Catalogue()[0].ExampleBody()
	if err != nil {
		b.Fatal(err)
	}
	for _, secrets := range [][]string{{secretA}, {secretA, secretB}} {
		b.Run(strconv.Itoa(len(secrets))+"-secrets", func(b *testing.B) {
			ws, err := signers(secrets)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				if _, err := sign(ws, "evt_1", testTime, body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHandle records a delivery per event to two endpoints on the
// memory store (what the outbox's consumer costs a producer), and an
// event of a site without endpoints.
func BenchmarkHandle(b *testing.B) {
	for _, bc := range []struct {
		name string
		site string
	}{{"two-endpoints", "s1"}, {"no-endpoints", "s2"}} {
		b.Run(bc.name, func(b *testing.B) {
			e := newEnvB(b, map[string][]Endpoint{"s1": {endpoint("a", "https://a.example.com"), endpoint("b", "https://b.example.com")}})
			payload := Catalogue()[2].Example
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				ev, err := event.New("evt_"+strconv.Itoa(i), bc.site, "CP"+strconv.Itoa(i%100), testTime, payload)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Handle(b.Context(), ev); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func newEnvB(b *testing.B, endpoints map[string][]Endpoint) *Service {
	store := memoryStore(b)
	svc, err := New(store, Options{Endpoints: endpoints, Jitter: func() float64 { return 0 }, RetryBase: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return svc
}

// BenchmarkRun sends deliveries to four endpoints on loopback with Run,
// 100 events (400 deliveries, one per endpoint and subject) per
// iteration: what the sender costs per delivery, HTTP included.
func BenchmarkRun(b *testing.B) {
	var mu sync.Mutex
	got := 0
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got++
		mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default:
		}
	}))
	b.Cleanup(srv.Close)
	var eps []Endpoint
	for i := range 4 {
		eps = append(eps, endpoint("e"+strconv.Itoa(i), srv.URL))
	}
	svc, err := New(memoryStore(b), Options{Endpoints: map[string][]Endpoint{"s1": eps}, Clock: deliverykit.NewManualClock(testTime),
		Logger: slog.New(slog.DiscardHandler), Jitter: func() float64 { return 0 }, AllowPrivate: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, time.Hour) }()
	defer func() { cancel(); <-done }()
	payload := Catalogue()[2].Example
	const perIteration = 100
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for range perIteration {
			n++
			ev, err := event.New("evt_"+strconv.Itoa(n), "s1", "CP"+strconv.Itoa(n), testTime, payload)
			if err != nil {
				b.Fatal(err)
			}
			if err := svc.Handle(ctx, ev); err != nil {
				b.Fatal(err)
			}
		}
		for {
			mu.Lock()
			all := got == 4*n
			mu.Unlock()
			if all {
				break
			}
			<-arrived
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(4*n), "ns/delivery")
}
