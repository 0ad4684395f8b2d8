package httpapi

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/returns"
)

// TestReturnsPageIsComputedPage holds GET /merchant/return, whose rows are
// renderings the service keeps per stored version of a return, to the
// page computed afresh (returns.Service.ListReturns) as encoding/json
// encodes it, byte for byte, on every paging path and after every kind of
// change of a return: a stale rendering would differ. The order's id has
// characters encoding/json escapes.
func TestReturnsPageIsComputedPage(t *testing.T) {
	s, svc := newReturnsServer(t)
	h := s.handler
	must := func(r returnsResp, status int) returnsResp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}
	order := strings.Replace(returnsOrderJSON, `"foreignId":"A-1"`, `"foreignId":"<A&1>"`, 1)
	must(returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", order), 201)
	for range 3 {
		must(returnsDo(t, h, "POST", "/returns/customer/return", "",
			`{"siteId":"demo-site","foreignOrderId":"<A&1>","email":"anna@example.com","items":[{"foreignLineItemId":"L2","quantity":1}]}`), 201)
	}
	queries := []string{"", "size=2", "page=1&size=2", "sort=id,desc", "afterId=1", "page=5", "sort=status,asc", "afterDate=2026-11-22T09:00:00"}
	check := func(t *testing.T) {
		t.Helper()
		for _, q := range queries {
			got := must(returnsDo(t, h, "GET", "/returns/merchant/return?"+q, "demo-key", ""), 200)
			vals, _ := url.ParseQuery(q)
			pr, err := returns.ParsePageQuery(vals)
			if err != nil {
				t.Fatal(err)
			}
			p, err := svc.ListReturns(t.Context(), "demo-site", pr)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			if err := json.NewEncoder(&want).Encode(p); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.raw); diff != "" {
				t.Errorf("?%s: page differs from the computed one (-computed +served):\n%s", q, diff)
			}
			if n := got.header.Get("Content-Length"); n != strconv.Itoa(len(got.raw)) {
				t.Errorf("?%s: Content-Length %s for %d bytes", q, n, len(got.raw))
			}
		}
	}
	changes := []struct {
		name            string
		path, key, body string
	}{
		{"as created", "", "", ""},
		{"status link renewed", "/returns/merchant/return/2/status-link", "demo-key", ""},
		{"items reported", "/returns/merchant/items/returned", "demo-key", `{"returnId":1,"items":[{"sku":"SOCKS","quantity":1,"approved":true}]}`},
		{"refunded", "/returns/merchant/refund/transaction/1/refunded", "demo-key", ""},
		{"another return", "/returns/customer/return", "",
			`{"siteId":"demo-site","foreignOrderId":"<A&1>","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`},
	}
	for _, c := range changes {
		t.Run(c.name, func(t *testing.T) {
			if c.path != "" {
				r := returnsDo(t, h, "POST", c.path, c.key, c.body)
				if r.status/100 != 2 {
					t.Fatalf("POST %s: %d %s", c.path, r.status, r.raw)
				}
			}
			check(t)
		})
	}
}
