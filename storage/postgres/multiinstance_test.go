package postgres_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/internal/pgtest"
	"github.com/deliverykit/deliverykit/storage"
	"github.com/deliverykit/deliverykit/wiring"
)

// instance is one deliverykit server: its own store (its own pool) on the
// shared database, its own services and handler.
type instance struct {
	name  string
	store storage.Store
	h     http.Handler
}

// newInstances starts n servers on one fresh schema, as a load-balanced
// deployment runs them. Ids are random, as in production: instances with
// sequential ids would hand out the same ids.
func newInstances(t *testing.T, n int) []instance {
	t.Helper()
	schema := pgtest.Schema(t)
	cfg := config.Demo()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)) // a Monday
	quiet := slog.New(slog.DiscardHandler)
	var out []instance
	for i := range n {
		s := open(t, schema, nil)
		t.Cleanup(func() { s.Close() })
		svcs, err := wiring.New(s, cfg, wiring.Options{Clock: clock, Logger: quiet, PublicURL: "http://shop.test"})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, instance{
			name:  fmt.Sprintf("instance %d", i+1),
			store: s,
			h:     svcs.Handler(httpapi.Options{Keys: cfg.Keyring(), Clock: clock, Logger: quiet}),
		})
	}
	return out
}

// do sends one request to the instance and decodes the JSON answer. It is
// safe for concurrent use; failures are reported with t.Errorf.
func (in instance) do(t *testing.T, method, path string, header map[string]string, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	in.h.ServeHTTP(rec, req)
	raw, _ := io.ReadAll(rec.Body)
	var m map[string]any
	if len(raw) > 0 && json.Unmarshal(raw, &m) != nil {
		t.Errorf("%s: %s %s: not JSON: %s", in.name, method, path, raw)
	}
	return rec.Code, m
}

// field follows a path of object keys and array indexes through decoded
// JSON; nil when any step is missing.
func field(m any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			mm, _ := m.(map[string]any)
			m = mm[k]
		case int:
			a, _ := m.([]any)
			if k >= len(a) {
				return nil
			}
			m = a[k]
		}
	}
	return m
}

var (
	bearer  = map[string]string{"Authorization": "Bearer " + base64.StdEncoding.EncodeToString([]byte("demo-key"))}
	rpcAuth = map[string]string{"Authorization": "demo-key"}
)

const siwCreate = `{"purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"],
	"cart": {"cart_id": "order-77", "total_value": 45000, "items": [{"sku": "tent", "name": "Tent", "quantity": 1, "price": 45000}]},
	"search_address": {"postal_code": "111 57", "country": "SE"}}`

// siwCart is an update body giving the session a cart with this id.
func siwCart(id, cartID string) string {
	return `{"id": "` + id + `", "cart": {"cart_id": "` + cartID + `", "total_value": 90000,
		"items": [{"sku": "tent", "name": "Tent", "quantity": 2, "price": 45000}]}}`
}

// TestMultiInstanceCheckoutSession: a checkout session created through one
// instance is read, updated and completed through the other, and the
// completed order reaches tracking whichever instance is asked.
func TestMultiInstanceCheckoutSession(t *testing.T) {
	ins := newInstances(t, 2)
	a, b := ins[0], ins[1]

	status, body := a.do(t, "POST", "/v1/siw/session.create", bearer, siwCreate)
	if status != 200 {
		t.Fatalf("create on a: %d %v", status, body)
	}
	id := field(body, "session", "id").(string)

	status, body = b.do(t, "POST", "/v1/siw/session.update", bearer, siwCart(id, "order-78"))
	if status != 200 || field(body, "session", "cart", "cart_id") != "order-78" {
		t.Fatalf("update on b: %d %v", status, body)
	}
	status, body = a.do(t, "GET", "/v1/siw/session.get?id="+id, bearer, "")
	if status != 200 || field(body, "session", "cart", "cart_id") != "order-78" || field(body, "session", "cart", "total_value") != float64(90000) {
		t.Fatalf("get on a after the update on b: %d %v", status, body)
	}
	status, body = b.do(t, "POST", "/v1/siw/session.complete", bearer, `{"id": "`+id+`", "customer": {"email": "anna@example.com",
		"address": {"name": "Anna Svensson", "address_lines": ["Sergels torg 1"], "city": "Stockholm", "postal_code": "111 57", "country": "SE"}}}`)
	if status != 200 {
		t.Fatalf("complete on b: %d %v", status, body)
	}
	tos, _ := body["tos_id"].(string)
	if tos == "" {
		t.Fatalf("complete on b: no tos_id in %v", body)
	}
	// Completed is completed everywhere: a change through a is refused.
	if status, body := a.do(t, "POST", "/v1/siw/session.update", bearer, siwCart(id, "order-79")); status == 200 {
		t.Errorf("update on a of the session completed on b: %d %v", status, body)
	}
	for _, in := range ins {
		status, body := in.do(t, "GET", "/v1/delivery_tracking/orders?external_id=order-78", bearer, "")
		if status != 200 || field(body, "orders", 0, "tos_id") != tos {
			t.Errorf("%s: tracking order of the session: %d %v", in.name, status, body)
		}
	}
}

// TestMultiInstanceConcurrentCheckoutUpdates: 32 concurrent updates of one
// checkout session, alternating between two instances. Every answer is 200
// or 409 ("repeat the call"), and the session's stored revision, which
// counts committed writes, is the creation plus exactly the acknowledged
// updates: none was lost, none answered 409 was written. The cart left is
// one an acknowledged update wrote.
func TestMultiInstanceConcurrentCheckoutUpdates(t *testing.T) {
	ins := newInstances(t, 2)
	status, body := ins[0].do(t, "POST", "/v1/siw/session.create", bearer, siwCreate)
	if status != 200 {
		t.Fatalf("create: %d %v", status, body)
	}
	id := field(body, "session", "id").(string)

	const updates = 32
	statuses := make([]int, updates)
	var wg sync.WaitGroup
	for i := range updates {
		wg.Go(func() {
			statuses[i], _ = ins[i%2].do(t, "POST", "/v1/siw/session.update", bearer, siwCart(id, "cart-"+strconv.Itoa(i)))
		})
	}
	wg.Wait()
	acked := map[string]bool{}
	for i, st := range statuses {
		switch st {
		case 200:
			acked["cart-"+strconv.Itoa(i)] = true
		case 409:
		default:
			t.Errorf("update %d through %s: status %d; want 200 or 409", i, ins[i%2].name, st)
		}
	}
	var stored struct {
		Revision int `json:"revision"`
		Cart     struct {
			CartID string `json:"cart_id"`
		} `json:"cart"`
	}
	if err := ins[1].store.View(t.Context(), func(tx storage.Tx) error {
		rec, err := tx.Get("checkout.sessions", storage.Key("demo-site", id))
		if err != nil {
			return err
		}
		return json.Unmarshal(rec.Value, &stored)
	}); err != nil {
		t.Fatal(err)
	}
	if len(acked) == 0 || stored.Revision != 1+len(acked) {
		t.Errorf("%d updates acknowledged, stored revision %d; want %d", len(acked), stored.Revision, 1+len(acked))
	}
	if !acked[stored.Cart.CartID] {
		t.Errorf("stored cart %q was not written by an acknowledged update (acknowledged: %v)", stored.Cart.CartID, acked)
	}
	t.Logf("%d of %d updates acknowledged, the rest answered 409", len(acked), updates)
}

const sessBody = `{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": 45000, "locales": ["sv-SE"]},
  "deliveries": [{
    "id": "d1",
    "line_items": [{"sku": "tent", "title": "Tent", "quantity": 1, "weight": 800, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "2026-11-23T08:00:00Z"}}],
    "recipient_contact": {"address": {"country_code": "SE", "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}
  }]
}`

// sessPatch is a PATCH body carrying etag and a new total value.
func sessPatch(etag, total string) string {
	b, _ := json.Marshal(etag)
	body := strings.Replace(sessBody, `"total_value": 45000`, `"total_value": "`+total+`"`, 1)
	return strings.Replace(body, `"purchase":`, `"etag": `+string(b)+`, "purchase":`, 1)
}

// TestMultiInstanceDeliverySessionEtags: an etag read from one instance is
// honoured by the other, and a stale one is refused there; then 32 clients
// spread over both instances each read the session from one and PATCH it
// through the other with the etag they read. Every answer is 200 or 409
// ABORTED, and the successful patches form one unbroken chain of etags
// ending at the stored session: no acknowledged update was lost.
func TestMultiInstanceDeliverySessionEtags(t *testing.T) {
	ins := newInstances(t, 2)
	a, b := ins[0], ins[1]
	status, body := a.do(t, "POST", "/delivery/v1/sessions", rpcAuth, sessBody)
	if status != 200 {
		t.Fatalf("create on a: %d %v", status, body)
	}
	url := "/delivery/v1/" + body["name"].(string)
	created := body["etag"].(string)

	status, body = b.do(t, "PATCH", url, rpcAuth, sessPatch(created, "50000"))
	if status != 200 || body["etag"] == created {
		t.Fatalf("PATCH on b with a's etag: %d %v", status, body)
	}
	if status, body := a.do(t, "PATCH", url, rpcAuth, sessPatch(created, "60000")); status != 409 || body["code"] != float64(10) {
		t.Fatalf("PATCH on a with the etag b replaced: %d %v; want 409 ABORTED", status, body)
	}
	first := body["etag"].(string)
	if status, body := a.do(t, "GET", url, rpcAuth, ""); status != 200 || body["etag"] != first || field(body, "purchase", "total_value") != "50000" {
		t.Fatalf("GET on a after b's PATCH: %d %v", status, body)
	}

	type result struct {
		read, wrote, value string
		status             int
		code               float64
	}
	results := make([]result, 32)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			reader, writer := ins[i%2], ins[(i+1)%2]
			_, cur := reader.do(t, "GET", url, rpcAuth, "")
			etag, _ := cur["etag"].(string)
			value := strconv.Itoa(1000 + i)
			st, body := writer.do(t, "PATCH", url, rpcAuth, sessPatch(etag, value))
			res := result{read: etag, value: value, status: st}
			res.code, _ = body["code"].(float64)
			res.wrote, _ = body["etag"].(string)
			results[i] = res
		})
	}
	wg.Wait()
	next := map[string]result{}
	for i, r := range results {
		switch {
		case r.status == 200:
			if _, dup := next[r.read]; dup {
				t.Errorf("two patches succeeded with etag %s", r.read)
			}
			next[r.read] = r
		case r.status == 409 && r.code == 10:
		default:
			t.Errorf("patch %d: %d code %v; want 200 or 409 ABORTED", i, r.status, r.code)
		}
	}
	etag, value, n := first, "50000", 0
	for w, ok := next[etag]; ok; w, ok = next[etag] {
		etag, value, n = w.wrote, w.value, n+1
	}
	if n != len(next) || n == 0 {
		t.Errorf("%d patches succeeded, %d on the chain of etags", len(next), n)
	}
	for _, in := range ins {
		_, final := in.do(t, "GET", url, rpcAuth, "")
		if final["etag"] != etag || field(final, "purchase", "total_value") != value {
			t.Errorf("%s: final etag %v value %v; want %s %s", in.name, final["etag"], field(final, "purchase", "total_value"), etag, value)
		}
	}
	t.Logf("%d of %d patches succeeded, the rest were ABORTED", n, len(results))
}
