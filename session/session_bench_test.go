package session_test

import (
	"context"
	"testing"

	"github.com/deliverykit/deliverykit/session"
)

// BenchmarkCreate measures the hot path of a new checkout: one options
// computation per delivery and one write.
func BenchmarkCreate(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	in := input(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.svc.Create(ctx, "demo-site", in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPatchWithEtag measures a patch that passes the etag check:
// recompute, read, compare, write.
func BenchmarkPatchWithEtag(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(b))
	in := input(b)
	in.Name, in.Etag = s.Name, s.Etag
	b.ReportAllocs()
	for b.Loop() {
		p, err := e.svc.Patch(ctx, "demo-site", in)
		if err != nil {
			b.Fatal(err)
		}
		in.Etag = p.Etag
	}
}

// BenchmarkGet measures a read: decode the stored session.
func BenchmarkGet(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	s, _ := e.svc.Create(ctx, "demo-site", input(b))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.svc.Get(ctx, "demo-site", s.Name); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkToAgenticCheckout measures the conversion alone.
func BenchmarkToAgenticCheckout(b *testing.B) {
	e := newEnv(b)
	s, _ := e.svc.Create(context.Background(), "demo-site", input(b))
	b.ReportAllocs()
	for b.Loop() {
		session.ToAgenticCheckout(s)
	}
}
