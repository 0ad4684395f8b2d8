package wiring

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/checkout"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// steppers are the fields of s that are background services (their
// value has a Step method), by field name, as the pointers they hold.
// Unexported fields count: the refund executor is one.
func steppers(t *testing.T, s *Services) map[string]uintptr {
	t.Helper()
	stepper := reflect.TypeFor[Stepper]()
	out := map[string]uintptr{}
	v := reflect.ValueOf(s).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Interface {
			f = f.Elem()
		}
		if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() || !f.Type().Implements(stepper) {
			continue
		}
		out[v.Type().Field(i).Name] = f.Pointer()
	}
	return out
}

// quietLog discards what it is told.
var quietLog = slog.New(slog.DiscardHandler)

func newRunServices(t *testing.T, clock deliverykit.Clock, log *slog.Logger) *Services {
	t.Helper()
	demo, err := returns.NewDemoRefunds(returns.DemoRefundsOptions{Delay: time.Hour, Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(memory.New(), config.Demo(), Options{Clock: clock, IDs: &deliverykit.SequentialIDs{}, Logger: log,
		Simulate: &carrier.SimulatorOptions{}, RefundExecutor: demo})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Run starts every background service of Services, once, and nothing
// else: a field with a Step method that Run leaves out fails this test.
// Run returns ctx's error once they all stopped: with a context that has
// ended, each service is started and stops at once.
func TestRunStartsEveryBackgroundService(t *testing.T) {
	s := newRunServices(t, deliverykit.NewManualClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)), quietLog)
	want := steppers(t, s)
	for _, name := range []string{"Outbox", "Webhooks", "Notify", "Simulator", "Retention", "refunds", "Checkout", "Session"} {
		if _, ok := want[name]; !ok {
			t.Fatalf("Services.%s is not seen as a background service: %v", name, want)
		}
	}
	startedc := make(chan uintptr, 2*len(want))
	s.started = func(_ string, st Stepper) { startedc <- reflect.ValueOf(st).Pointer() }
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	close(startedc)
	got := map[string]uintptr{}
	for p := range startedc {
		name := "unknown"
		for n, q := range want {
			if q == p {
				name = n
			}
		}
		if _, dup := got[name]; dup {
			t.Errorf("Run started %s twice", name)
		}
		got[name] = p
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services started by Run (-fields +started):\n%s", diff)
	}
}

// Step steps the same services as Run, once each.
func TestStepStepsEveryBackgroundService(t *testing.T) {
	s := newRunServices(t, deliverykit.NewManualClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)), quietLog)
	var listed []uintptr
	for _, l := range s.loops() {
		listed = append(listed, reflect.ValueOf(l.step).Pointer())
	}
	for name, p := range steppers(t, s) {
		if !slices.Contains(listed, p) {
			t.Errorf("Services.%s is not stepped by Step", name)
		}
	}
	if n, err := s.Step(t.Context()); n != 0 || err != nil {
		t.Errorf("Step on an empty store = %d, %v; want 0, nil", n, err)
	}
}

// signal is a slog handler that sends the messages logged to it.
type signal chan string

func (s signal) Enabled(context.Context, slog.Level) bool { return true }
func (s signal) Handle(_ context.Context, r slog.Record) error {
	select {
	case s <- r.Message:
	default:
	}
	return nil
}
func (s signal) WithAttrs([]slog.Attr) slog.Handler { return s }
func (s signal) WithGroup(string) slog.Handler      { return s }

// Retention runs under Run: an expired checkout session past the
// configuration's retention is deleted without anyone calling the
// sweeper.
func TestRunSweeps(t *testing.T) {
	start := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	clock := deliverykit.NewManualClock(start)
	logged := make(signal, 64)
	s := newRunServices(t, clock, slog.New(logged))
	v, err := s.Checkout.Create(t.Context(), "demo-site", checkout.CreateRequest{PurchaseCountry: "SE", PurchaseCurrency: "SEK", Locales: []string{"sv-SE"},
		Cart: &checkout.Cart{TotalValue: 1000, Items: []checkout.CartItem{{SKU: "s", Name: "S", Quantity: 1, Price: 1000}}}})
	if err != nil {
		t.Fatal(err)
	}
	clock.Set(start.Add(checkout.DefaultSessionTTL + 8*24*time.Hour))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for msg := range logged {
		if msg == "retention sweep" {
			break
		}
	}
	cancel()
	<-done
	if _, err := s.Checkout.Get(t.Context(), "demo-site", v.Session.ID); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("the expired session after Run swept: %v, want NotFound", err)
	}
}

// Every area of Services that deletes records (has a Sweep method) is
// swept by Retention, which Run steps.
func TestRetentionSweepsEveryArea(t *testing.T) {
	s := newRunServices(t, deliverykit.NewManualClock(time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)), quietLog)
	sweepable := reflect.TypeFor[retention.Sweepable]()
	var swept []uintptr
	for _, a := range s.areas {
		swept = append(swept, reflect.ValueOf(a.Sweep).Pointer())
	}
	v := reflect.ValueOf(s).Elem()
	n := 0
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Pointer || f.IsNil() || !f.Type().Implements(sweepable) {
			continue
		}
		n++
		if !slices.Contains(swept, f.Pointer()) {
			t.Errorf("Services.%s has a Sweep method but is not swept", v.Type().Field(i).Name)
		}
	}
	if n != len(s.areas) {
		t.Errorf("%d fields have a Sweep method, %d areas are swept", n, len(s.areas))
	}
}
