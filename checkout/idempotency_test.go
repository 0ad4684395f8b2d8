package checkout

import (
	"context"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestNoCacheInIdempotencyUnit: what a call with an Idempotency-Key
// reads is not cached while its unit runs (its writes may still roll
// back, and the versions they drew be drawn again for other content);
// the same reads outside a unit are.
func TestNoCacheInIdempotencyUnit(t *testing.T) {
	clock := deliverykit.NewManualClock(testNow)
	k := idempotency.New(idempotency.Options{Clock: clock})
	raw := memory.New()
	k.Open(raw)
	engines, err := NewEngines(config.Demo().Catalogs(), options.Options{Clock: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := New(k.Store(raw), Options{Engines: engines, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRenderer(func(v *View) ([]byte, error) { return []byte(v.Session.ID), nil })
	var id string
	var cachedInUnit int64
	_, _, err = k.Do(t.Context(), "k1", idempotency.Request{Site: "demo-site", Operation: "POST /create"}, func(ctx context.Context) (idempotency.Answer, error) {
		created, err := svc.Create(ctx, "demo-site", createRequest())
		if err != nil {
			return idempotency.Answer{}, err
		}
		id = created.Session.ID
		if _, err := svc.Get(ctx, "demo-site", id); err != nil {
			return idempotency.Answer{}, err
		}
		if _, err := svc.GetRendered(ctx, "demo-site", id, r); err != nil {
			return idempotency.Answer{}, err
		}
		cachedInUnit = svc.CacheBytes()
		return idempotency.Answer{Status: 201}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cachedInUnit != 0 {
		t.Errorf("%d bytes cached inside the unit, want none", cachedInUnit)
	}
	if _, err := svc.GetRendered(t.Context(), "demo-site", id, r); err != nil {
		t.Fatal(err)
	}
	if svc.CacheBytes() == 0 {
		t.Error("nothing cached outside a unit")
	}
}
