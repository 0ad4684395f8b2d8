package webhook

import (
	"strconv"
	"testing"
	"time"

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
