package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/console"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/outbox"
	"github.com/deliverykit/deliverykit/storage"
)

// addDeadEvent writes an event whose payload no consumer can read: the
// outbox gives it up at once, and it waits among the site's dead events.
func addDeadEvent(t testing.TB, kit *deliverykittest.Kit, site string) {
	t.Helper()
	ctx := context.Background()
	ev := event.Event{Type: event.TypeParcelBooked, Site: site, Subject: "broken-" + site, Time: kit.Clock.Now(),
		Payload: json.RawMessage(`{"tracking_number": 7}`)}
	err := kit.Services.Outbox.Store().Update(ctx, func(tx storage.Tx) error { return outbox.Add(tx, ev) })
	if err != nil {
		t.Fatal(err)
	}
	if err := kit.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
}

// An operator walks every page and takes every action; each answer and
// what the page then shows are checked.
func TestOperatorWalk(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	p, ret := shipAndReturn(t, kit, "order-7001")
	addDeadEvent(t, kit, kit.Site)
	c := newClient(t, kit.Handler).mustLogin(operator)

	page := func(path string, want ...string) string {
		t.Helper()
		status, body := c.get(path)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d\n%.500s", path, status, body)
		}
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("GET %s: no %q in the page", path, w)
			}
		}
		return body
	}
	act := func(from, path string, form url.Values, wantTo string) {
		t.Helper()
		status, to := c.post(from, path, form)
		if status != http.StatusSeeOther || !strings.HasPrefix(to, wantTo) {
			t.Fatalf("POST %s: %d to %q, want 303 to %s", path, status, to, wantTo)
		}
	}

	page("/console/overview", "Parcels delivered", "Orders", "<svg", "Dead events")
	page("/console/checkout", "Pickup point", "north-parcel-point", "100.0\u00a0%", "Average shipping price")
	for _, q := range []string{"order-7001", p.TrackingNumber, "alva@example.com"} {
		res := c.do(http.MethodGet, "/console/orders?q="+url.QueryEscape(q), nil)
		if to := res.Header.Get("Location"); to != "/console/orders/order-7001" {
			t.Errorf("search %q: %d to %q", q, res.StatusCode, to)
		}
	}
	page("/console/orders?q=nothing-like-it", "No order matches")
	order := page("/console/orders/order-7001", p.TrackingNumber, "Delivered", "/console/labels/"+p.TrackingNumber, "Send again")
	id := between(order, `action="/console/notifications/`, `/retrigger"`)
	act("/console/orders/order-7001", "/console/notifications/"+id+"/retrigger", url.Values{"external_id": {"order-7001"}}, "/console/orders/order-7001?done=retriggered")
	page("/console/orders/order-7001?done=retriggered", "The notification is sent again.")
	res := c.do(http.MethodGet, "/console/labels/"+p.TrackingNumber, nil)
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || ct != "application/pdf" {
		t.Errorf("label: %d %s", res.StatusCode, ct)
	}

	retPath := fmt.Sprintf("/console/returns/%d", ret.ID)
	page("/console/returns", retPath, "Awaiting the customer", `Complaints to decide <span class="count">1</span>`)
	page(retPath, "The pole is snapped", "Approve complaint", "Arrived, approve")
	act(retPath, fmt.Sprintf("%s/complaints/%d", retPath, ret.Items[0].ID), url.Values{"status": {"APPROVED"}}, retPath+"?done=decided")
	page("/console/returns", `Complaints to decide <span class="count">0</span>`)
	for _, it := range ret.Items {
		act(retPath, retPath+"/items", url.Values{"sku": {it.ProductVariant.SKU}, "quantity": {"1"}, "decision": {"approve"}}, retPath+"?done=reported")
	}
	detail := page(retPath, "approved", "Mark refunded")
	refund := between(detail, `action="/console/refunds/`, `/refunded"`)
	page("/console/returns", "Refunds to pay out", "/console/refunds/"+refund+"/refunded")
	act(retPath, "/console/refunds/"+refund+"/refunded", url.Values{"back": {"return"}}, retPath+"?done=refunded")
	page(retPath, "paid out")

	ops := page("/console/operations", "/console/webhooks/kit/redeliver/", "parcel.booked", "Deliver again", "Retry")
	redeliver := between(ops, `action="/console/webhooks/`, `"`)
	act("/console/operations", "/console/webhooks/"+redeliver, nil, "/console/operations?done=redelivered")
	dead := between(ops, `action="/console/events/`, `/retry"`)
	act("/console/operations", "/console/events/"+dead+"/retry", nil, "/console/operations?done=retried")
}

// between is the text of s between the first from and the to after it.
func between(s, from, to string) string {
	_, after, ok := strings.Cut(s, from)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(after, to)
	return v
}

// A viewer sees the pages without their buttons, and a post is refused.
func TestViewer(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	_, ret := shipAndReturn(t, kit, "order-7002")
	c := newClient(t, kit.Handler).mustLogin(viewer)
	retPath := fmt.Sprintf("/console/returns/%d", ret.ID)
	for _, path := range []string{"/console/orders/order-7002", retPath, "/console/operations"} {
		status, body := c.get(path)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d", path, status)
		}
		for _, button := range []string{"/retrigger", "/complaints/", "/items", "/redeliver/"} {
			if strings.Contains(body, button) {
				t.Errorf("GET %s shows a viewer the action %s", path, button)
			}
		}
	}
	status, _ := c.post(retPath, fmt.Sprintf("%s/complaints/%d", retPath, ret.Items[0].ID), url.Values{"status": {"APPROVED"}})
	if status != http.StatusForbidden {
		t.Errorf("a viewer's decision: %d, want 403", status)
	}
}

// A second site's operator sees nothing of the first's and cannot act on
// it: its ids are not found.
func TestTenants(t *testing.T) {
	kit := startKit(t, console.LoginLimits{})
	p, ret := shipAndReturn(t, kit, "order-7003")
	addDeadEvent(t, kit, kit.Site)
	c := newClient(t, kit.Handler).mustLogin(operator2)
	retPath := fmt.Sprintf("/console/returns/%d", ret.ID)
	for _, path := range []string{"/console/orders/order-7003", retPath, "/console/labels/" + p.TrackingNumber} {
		if status, _ := c.get(path); status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, status)
		}
	}
	for _, q := range []string{"order-7003", p.TrackingNumber, "alva@example.com"} {
		status, body := c.get("/console/orders?q=" + url.QueryEscape(q))
		if status != http.StatusOK || !strings.Contains(body, "No order matches") {
			t.Errorf("search %q: %d, finds the first site's order", q, status)
		}
	}
	for path, want := range map[string]string{"/console/overview": "", "/console/checkout": "north-parcel-point", "/console/returns": retPath, "/console/operations": "broken-demo-site"} {
		status, body := c.get(path)
		if status != http.StatusOK || want != "" && strings.Contains(body, want) {
			t.Errorf("GET %s: %d, shows %q of the first site", path, status, want)
		}
	}
	status, _ := c.post("/console/overview", fmt.Sprintf("%s/complaints/%d", retPath, ret.Items[0].ID), url.Values{"status": {"APPROVED"}})
	if status != http.StatusNotFound {
		t.Errorf("deciding the first site's complaint: %d, want 404", status)
	}
}
