package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/idempotency"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/google/go-cmp/cmp"
)

// mutation is one request to a POST or PATCH operation.
type mutation struct {
	name, method, path string
	header             map[string]string
	body               string
}

// keyedMutations are a request for every POST and PATCH of every area: the
// valid bodies of TestBadInput, and for the rest a request that the area
// answers, successfully or with a 4xx; both are stored and replayed.
func keyedMutations(f fixture) []mutation {
	var ms []mutation
	for _, ep := range bodyEndpoints(f) {
		ms = append(ms, mutation{ep.name, ep.method, ep.path, ep.header, ep.valid})
	}
	widget := map[string]string{"X-Widget-Token": f.widgetToken}
	ret := "/returns/merchant/return/" + f.returnID
	refund := "/returns/merchant/refund/transaction/" + f.refundID
	return append(ms,
		mutation{"A lines cancelled", "POST", "/v1/delivery_tracking/order.lines_cancelled", site1.rest, `{"order_id": "order-1002", "lines": [{"sku": "tent-2p", "quantity": 1}]}`},
		mutation{"C create from order", "POST", "/v1/siw/session.createFromOrder", site1.rest, `{"order_id": "order-1002"}`},
		mutation{"C widget address", "POST", "/v1/siw/_/widget/address", widget, `{"shipping_address": {"postal_code": "111 57", "country": "SE"}}`},
		mutation{"C2 complete", "POST", "/v1/delivery_checkout/session.complete", site1.rest, `{"checkout_session_id": "` + f.checkoutID + `", "customer": ` + checkoutCustomer + `}`},
		mutation{"D convert", "POST", "/delivery/v1/" + f.doneSession + ":convert", site1.rpc, `{}`},
		mutation{"E status link", "POST", ret + "/status-link", site1.spring, `{}`},
		mutation{"E refunded", "POST", refund + "/refunded", site1.spring, `{}`},
		mutation{"E refund success", "POST", refund + "/success", site1.spring, `{}`},
		mutation{"E refund failure", "POST", refund + "/failure", site1.spring, `{"reason": "card expired"}`},
		mutation{"E refund retry", "POST", refund + "/retry", site1.spring, `{}`},
		mutation{"E exchanged", "POST", ret + "/exchanged", site1.spring, `{}`},
		mutation{"E complaint decision", "POST", ret + "/items/1/complaint", site1.spring, `{"approved": true}`},
		mutation{"E customer complaint", "POST", "/returns/customer/return/" + f.statusToken + "/items/1/complaint", nil, ``},
		mutation{"F manifest", "POST", "/v1/som/manifests", site1.rest, `{"carrier": "north-parcel"}`},
		mutation{"W enable", "POST", "/v1/webhooks/endpoints/ep-1:enable", site1.rest, `{}`},
		mutation{"W redeliver", "POST", "/v1/webhooks/endpoints/ep-1/deliveries/ev-1:redeliver", site1.rest, `{}`},
		mutation{"W dead retry", "POST", "/v1/webhooks/events/dead/ev-1:retry", site1.rest, `{}`},
	)
}

// mutatingOperations are the POST and PATCH operations of every OpenAPI
// document the handler serves, as "METHOD /base/template". httpapi's
// TestEveryMutatingRouteIsDocumented holds every such route to a
// document, so a route added later is walked here too.
func mutatingOperations(t *testing.T, e *env) []string {
	t.Helper()
	idx := e.do("GET", "/openapi", nil, "")
	var index struct {
		Documents []struct{ Path string } `json:"documents"`
	}
	if err := json.Unmarshal(idx.raw, &index); err != nil || len(index.Documents) == 0 {
		t.Fatalf("GET /openapi: %v %s", err, idx.raw)
	}
	var ops []string
	for _, d := range index.Documents {
		r := e.do("GET", d.Path, nil, "")
		var doc struct {
			Servers []struct{ URL string }                `json:"servers"`
			Paths   map[string]map[string]json.RawMessage `json:"paths"`
		}
		if err := json.Unmarshal(r.raw, &doc); err != nil || len(doc.Servers) != 1 {
			t.Fatalf("GET %s: %v", d.Path, err)
		}
		for path, methods := range doc.Paths {
			for m, op := range methods {
				var keyless struct {
					Keyless bool `json:"x-keyless"`
				}
				if json.Unmarshal(op, &keyless) == nil && keyless.Keyless {
					continue // test mode's controls take no key
				}
				if m == "post" || m == "patch" {
					ops = append(ops, strings.ToUpper(m)+" "+doc.Servers[0].URL+path)
				}
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// templateMatch reports whether the request method and path are op's.
func templateMatch(op, method, path string) bool {
	m, tmpl, _ := strings.Cut(op, " ")
	re := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
	return m == method && regexp.MustCompile(re).MatchString(path)
}

// snapshot is every record of every collection ever written.
func snapshot(t *testing.T, e *env) map[string]map[string]string {
	t.Helper()
	snap := map[string]map[string]string{}
	err := e.store.View(t.Context(), func(tx storage.Tx) error {
		var err error
		e.store.colls.Range(func(k, _ any) bool {
			coll := k.(string)
			recs := map[string]string{}
			for r, serr := range tx.Scan(coll, storage.Range{}) {
				if serr != nil {
					err = serr
					return false
				}
				recs[r.Key] = fmt.Sprintf("v%d %s", r.Version, r.Value)
			}
			snap[coll] = recs
			return true
		})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestIdempotencyEveryMutatingRoute sends every POST and PATCH operation
// of every area twice with one Idempotency-Key, each in a fresh world:
// the second answer is the first byte for byte with Idempotent-Replayed:
// true, and the store is as the first left it, record for record and
// version for version. An operation no request here reaches fails the
// test: add its row to keyedMutations.
func TestIdempotencyEveryMutatingRoute(t *testing.T) {
	t.Parallel()
	probe := newEnv(t, nil)
	ops := mutatingOperations(t, probe)
	rows := keyedMutations(seed(probe))
	for _, op := range ops {
		if !slices.ContainsFunc(rows, func(m mutation) bool { return templateMatch(op, m.method, m.path) }) {
			t.Errorf("%s: no request in keyedMutations reaches it", op)
		}
	}
	var succeeded, refused []string
	for _, m := range rows {
		if !slices.ContainsFunc(ops, func(op string) bool { return templateMatch(op, m.method, m.path) }) {
			t.Errorf("%s: %s %s is no documented operation", m.name, m.method, m.path)
			continue
		}
		e := newEnv(t, nil)
		f := seed(e)
		// The fresh world has ids of its own: the probe's in the row are
		// replaced by this world's.
		m = mutationIn(m, rows, keyedMutations(f))
		header := map[string]string{idempotency.Header: "walk-" + strings.ReplaceAll(m.name, " ", "-")}
		for k, v := range m.header {
			header[k] = v
		}
		first := e.do(m.method, m.path, header, m.body)
		if first.status >= 500 || first.status == http.StatusTooManyRequests || first.status == http.StatusConflict {
			t.Errorf("%s: first answer %d %s", m.name, first.status, first.raw)
			continue
		}
		if first.header.Get(idempotency.ReplayedHeader) != "" {
			t.Errorf("%s: the first answer says it is replayed", m.name)
		}
		before, writes := snapshot(t, e), e.store.writes.Load()
		// On a store this process owns, an answer is its expiry entry
		// alone (decision 0043).
		if heads := before["idempotency.keys"]; len(heads) != 0 {
			t.Errorf("%s: %d answers stored under their digests on a memory store", m.name, len(heads))
		}
		if len(before["idempotency.expiry"]) == 0 {
			t.Errorf("%s: no answer stored", m.name)
		}
		second := e.do(m.method, m.path, header, m.body)
		if second.header.Get(idempotency.ReplayedHeader) != "true" {
			t.Errorf("%s: second answer %d without %s: true", m.name, second.status, idempotency.ReplayedHeader)
		}
		if second.status != first.status || !bytes.Equal(second.raw, first.raw) {
			t.Errorf("%s: second answer %d %s, want the first %d %s", m.name, second.status, second.raw, first.status, first.raw)
		}
		for _, h := range []string{"Content-Type", "Location", "Etag"} {
			if second.header.Get(h) != first.header.Get(h) {
				t.Errorf("%s: second %s %q, want %q", m.name, h, second.header.Get(h), first.header.Get(h))
			}
		}
		if diff := cmp.Diff(before, snapshot(t, e)); diff != "" || e.store.writes.Load() != writes {
			t.Errorf("%s: the replay changed the store (%d writes, -before +after):\n%s", m.name, e.store.writes.Load()-writes, diff)
		}
		if first.status/100 == 2 {
			succeeded = append(succeeded, m.name)
		} else {
			refused = append(refused, fmt.Sprintf("%s (%d)", m.name, first.status))
		}
	}
	t.Logf("%d operations; replayed %d successes and %d refusals: %s", len(ops), len(succeeded), len(refused), strings.Join(refused, ", "))
	// Every valid body of TestBadInput succeeds, so the successes here
	// are at least those.
	if n := len(bodyEndpoints(fixture{})); len(succeeded) < n {
		t.Errorf("%d successes, want at least %d (the valid bodies): %v", len(succeeded), n, succeeded)
	}
}

// mutationIn is m as rows made for another fixture have it (same name).
func mutationIn(m mutation, _ []mutation, fresh []mutation) mutation {
	for _, r := range fresh {
		if r.name == m.name {
			return r
		}
	}
	return m
}
