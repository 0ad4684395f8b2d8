package reliability

import (
	"fmt"
	"strings"
	"testing"
)

// The refusal paths are what a misbehaving or hostile client exercises at
// volume: each must stay cheap and allocate little, and write nothing.

func benchRefusal(b *testing.B, method, target string, header map[string]string, body string, want int) {
	e := newEnv(b, nil)
	seed(e)
	before := e.store.writes.Load()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := e.do(method, target, header, body); r.status != want {
			b.Fatalf("%d %s", r.status, r.raw)
		}
	}
	b.StopTimer()
	if n := e.store.writes.Load() - before; n != 0 {
		b.Fatalf("%d writes by refused requests", n)
	}
}

// BenchmarkRefuseMalformedJSON: a truncated body, answered 400.
func BenchmarkRefuseMalformedJSON(b *testing.B) {
	benchRefusal(b, "POST", "/v1/siw/session.create", site1.rest, fmt.Sprintf(checkoutCreate, "x")[:120], 400)
}

// BenchmarkRefuseInvalidSession: a delivery session with every field
// decoded and validated, refused for one out-of-range weight.
func BenchmarkRefuseInvalidSession(b *testing.B) {
	benchRefusal(b, "POST", "/delivery/v1/sessions", site1.rpc, strings.Replace(sessionCreate, `"weight": 2400`, `"weight": -1`, 1), 400)
}

// BenchmarkRefuseBodyPastLimit: a 2 MiB body, cut off at the 1 MiB limit
// and answered 413.
func BenchmarkRefuseBodyPastLimit(b *testing.B) {
	benchRefusal(b, "POST", "/returns/merchant/order", site1.spring, `{"foreignId": "`+strings.Repeat("x", 2<<20)+`"}`, 413)
}

// BenchmarkRefuseOtherTenant: demo-site-2 asking for demo-site's checkout
// session, answered 404.
func BenchmarkRefuseOtherTenant(b *testing.B) {
	e := newEnv(b, nil)
	f := seed(e)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if r := e.do("GET", "/v1/siw/session.get?id="+f.checkoutID, site2.rest, ""); r.status != 404 {
			b.Fatalf("%d %s", r.status, r.raw)
		}
	}
}

// BenchmarkRefuseUnknownKey: a request with an unknown API key, answered
// 401 after the constant-time comparison with every configured digest.
func BenchmarkRefuseUnknownKey(b *testing.B) {
	benchRefusal(b, "GET", "/v1/delivery_tracking/orders", credsFor("not-a-key").rest, "", 401)
}
