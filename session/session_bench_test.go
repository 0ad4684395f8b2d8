package session_test

import (
	"bytes"

	"context"
	gojson "github.com/goccy/go-json"
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

// BenchmarkAnswerEncoding compares the two ways a created session's answer
// is encoded: the codec's reflection, as every other answer, and
// AppendJSON, which the HTTP API uses for sessions.
func BenchmarkAnswerEncoding(b *testing.B) {
	e := newEnv(b)
	s, err := e.svc.Create(context.Background(), "demo-site", input(b))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.Run("codec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := gojson.NewEncoder(&buf).Encode(s); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(buf.Len()))
	})
	b.Run("AppendJSON", func(b *testing.B) {
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			if out, err = s.AppendJSON(out[:0]); err != nil {
				b.Fatal(err)
			}
		}
		b.SetBytes(int64(len(out)))
	})
}
