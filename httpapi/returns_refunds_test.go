package httpapi

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// newRefundsServer serves area E under a policy with every cost and
// addition (SEK: 49.00 label, 10.50 handling, 25.00 exchange, 75.00 failed
// delivery, 100.00 gift card addition; shipping refunded), with ex as the
// refund executor (nil: the merchant pays refunds out).
func newRefundsServer(t *testing.T, ex returns.RefundExecutor) (*server, *returns.Service) {
	t.Helper()
	svc := returns.New(memory.New(), returns.Options{
		Clock: deliverykit.NewManualClock(testTime), IDs: &deliverykit.SequentialIDs{},
		Policies: returns.StaticPolicies{"demo-site": {RefundShipping: true, Costs: map[string]returns.Costs{
			"SEK": {ReturnShipment: 4900, ReturnHandling: 1050, Exchange: 2500, FailedDelivery: 7500, GiftCardAddition: 10000},
		}}},
		PublicURL: "http://127.0.0.1:8080", RefundExecutor: ex,
	})
	s, _ := newTestServer(t, Options{Returns: svc})
	return s, svc
}

const refundsOrderJSON = `{"foreignId":"A-1","currencyCode":"SEK","email":"anna@example.com","shippingAmount":59.00,
 "items":[{"foreignLineItemId":"L1","sku":"JACKET-M","productTitle":"Jacket","variantTitle":"M","quantity":2,"purchasePriceAmount":{"amount":1299.90,"itemTax":259.98},
           "exchangeSkus":["JACKET-L","JACKET-S"]},
          {"foreignLineItemId":"L2","sku":"SOCKS","productTitle":"Socks","quantity":3,"purchasePriceAmount":{"amount":0.10,"itemTax":0.02}}]}`

// field reads a dotted path ("refundTransactions.0.status") of a decoded
// JSON body.
func field(body any, path string) any {
	v := body
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i := 0
			for _, c := range p {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestReturnsRefundLifecycleHTTP: the policy's costs and additions on a
// gift card return with a failed delivery, the merchant's failure report,
// a retry and a success report with its foreignId, and the refusals, all
// over HTTP.
func TestReturnsRefundLifecycleHTTP(t *testing.T) {
	s, _ := newRefundsServer(t, nil)
	h := s.handler
	must := func(r returnsResp, status int) returnsResp {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d: %s", r.status, status, r.raw)
		}
		return r
	}
	must(returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", refundsOrderJSON), 201)
	ret := must(returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","refundMethod":"GIFT_CARD",
		  "items":[{"foreignLineItemId":"L1","quantity":2},{"foreignLineItemId":"L2","quantity":3}]}`), 201)
	// 2599.80 + 0.30 + 59.00 shipping + 100.00 gift card - 59.50 costs.
	if got := field(ret.body, "calculatedRefund.totalRefundAmount"); got != 2699.60 {
		t.Errorf("estimate %v: %s", got, ret.raw)
	}
	rep := must(returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key",
		`{"returnId":1,"failedDelivery":true,"items":[{"sku":"JACKET-M","quantity":2,"approved":true},{"sku":"SOCKS","quantity":3,"approved":true}]}`), 200)
	for _, want := range []string{
		`"returnCosts":{"currencyCode":"SEK","returnShipmentCost":49.00,"returnHandlingCost":10.50,"exchangeCost":0.00,"failedDeliveryCost":75.00,"totalCost":134.50}`,
		`"totalAmount":2624.60,"itemsAmount":2600.10,"shippingRefundAmount":59.00,"exchangeCost":0.00,"returnCost":59.50,"giftCardAddition":100.00,"refundMethod":"GIFT_CARD"`,
		`"refundAmounts":{"totalItemRefundAmount":2600.10,"shippingRefundAmount":59.00,"giftCardAddition":100.00}`,
		`"failedDeliveryCost":75.00,"exchangeCost":0.00,"totalReturnCost":134.50`,
	} {
		if !strings.Contains(rep.raw, want) {
			t.Errorf("report lacks %s:\n%s", want, rep.raw)
		}
	}

	const tx = "/returns/merchant/refund/transaction/1"
	type step struct {
		path, body string
		status     int
		want       map[string]any // dotted path → value
	}
	for _, st := range []step{
		{"/retry", "", 400, map[string]any{"message": "refund transaction 1 is AWAITING_EXTERNAL_REFUND; a retry needs FAILED"}},
		{"/failure", `{"foreignId":"re_1","reason":"card expired"}`, 200, map[string]any{"status": "FAILED", "foreignId": "re_1", "failureReason": "card expired", "attempt": float64(1)}},
		{"/refunded", "", 400, map[string]any{"message": "refund transaction 1 is FAILED; marking it refunded needs AWAITING_EXTERNAL_REFUND"}},
		{"/success", `{"foreignId":"re_2"}`, 400, map[string]any{"message": "refund transaction 1 is FAILED; a reported success needs AWAITING_EXTERNAL_REFUND or PENDING"}},
		{"/retry", "", 200, map[string]any{"status": "AWAITING_EXTERNAL_REFUND", "attempt": float64(2), "failureReason": nil}},
		{"/success", `{"foreignId":"` + strings.Repeat("x", 257) + `"}`, 400, nil},
		{"/success", `{"foreignId":["re_2"]}`, 400, nil},
		{"/success", `{"foreignId":"re_2"}`, 200, map[string]any{"status": "SUCCESS", "foreignId": "re_2", "order.status": "REFUNDED"}},
		{"/failure", `{}`, 400, map[string]any{"message": "refund transaction 1 is SUCCESS; a reported failure needs AWAITING_EXTERNAL_REFUND or PENDING"}},
	} {
		r := must(returnsDo(t, h, "POST", tx+st.path, "demo-key", st.body), st.status)
		for p, want := range st.want {
			if got := field(r.body, p); !cmp.Equal(want, got) {
				t.Errorf("POST %s %s: %s = %v, want %v", st.path, st.body, p, got, want)
			}
		}
		if st.status == 400 && st.want == nil && !strings.Contains(r.raw, "foreignId") {
			t.Errorf("POST %s %s: the 400 does not name foreignId: %s", st.path, st.body, r.raw)
		}
	}
	// Another merchant's key does not find it.
	must(returnsDo(t, h, "POST", tx+"/success", "demo-key-2", `{}`), 404)

	got := must(returnsDo(t, h, "GET", "/returns/merchant/return/1", "demo-key", ""), 200)
	for p, want := range map[string]any{
		"status": "COMPLETED", "refundTransactions.0.status": "SUCCESS", "refundTransactions.0.foreignId": "re_2",
		"items.0.refundStatus": "REFUNDED", "items.1.refundStatus": "REFUNDED",
	} {
		if g := field(got.body, p); g != want {
			t.Errorf("return %s = %v, want %v", p, g, want)
		}
	}
	order := must(returnsDo(t, h, "GET", "/returns/merchant/order/1", "demo-key", ""), 200)
	if g := field(order.body, "orderRefund.amountRefunded"); g != 2624.60 {
		t.Errorf("amountRefunded %v: %s", g, order.raw)
	}
	list := must(returnsDo(t, h, "GET", "/returns/merchant/refund/transaction?status=SUCCESS", "demo-key", ""), 200)
	if list.body["totalElements"] != float64(1) {
		t.Errorf("SUCCESS list: %s", list.raw)
	}
}

// TestReturnsRefundExecutorHTTP: with a refund executor a new refund is
// PENDING (listed by ?status=PENDING, with the executor's foreignId once
// accepted); the merchant's success report settles it.
func TestReturnsRefundExecutorHTTP(t *testing.T) {
	demo, err := returns.NewDemoRefunds(returns.DemoRefundsOptions{Delay: time.Hour, Clock: deliverykit.NewManualClock(testTime)})
	if err != nil {
		t.Fatal(err)
	}
	s, svc := newRefundsServer(t, demo)
	h := s.handler
	returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", refundsOrderJSON)
	returnsDo(t, h, "POST", "/returns/customer/return", "", `{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`)
	rep := returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key", `{"returnId":1,"items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`)
	if g := field(rep.body, "refundTransactions.0.status"); g != "PENDING" {
		t.Fatalf("new refund %v: %s", g, rep.raw)
	}
	// What the outbox does after the commit (wiring registers it).
	if err := svc.HandleRefundChanged(t.Context(), eventRefundChanged("demo-site", "1")); err != nil {
		t.Fatal(err)
	}
	list := returnsDo(t, h, "GET", "/returns/merchant/refund/transaction?status=PENDING", "demo-key", "")
	if field(list.body, "totalElements") != float64(1) || field(list.body, "content.0.foreignId") != "demo-refund-1-1" {
		t.Errorf("PENDING list: %s", list.raw)
	}
	if r := returnsDo(t, h, "POST", "/returns/merchant/refund/transaction/1/refunded", "demo-key", ""); r.status != 400 || !strings.Contains(r.raw, "PENDING") {
		t.Errorf("marking a PENDING refund refunded: %d %s", r.status, r.raw)
	}
	done := returnsDo(t, h, "POST", "/returns/merchant/refund/transaction/1/success", "demo-key", `{"foreignId":"psp-77"}`)
	if done.status != 200 || field(done.body, "status") != "SUCCESS" || field(done.body, "foreignId") != "psp-77" {
		t.Errorf("success: %d %s", done.status, done.raw)
	}
}

// TestReturnsExchangeHTTP: the customer picks another variant, the
// exchange is listed as REQUESTED on the return, the merchant completes
// it after inspection, and the order lists it COMPLETED.
func TestReturnsExchangeHTTP(t *testing.T) {
	s, _ := newRefundsServer(t, nil)
	h := s.handler
	order := returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", refundsOrderJSON)
	if diff := cmp.Diff([]any{"JACKET-L", "JACKET-S"}, field(order.body, "items.0.exchangeSkus")); diff != "" {
		t.Errorf("order exchangeSkus (-want +got):\n%s", diff)
	}
	bad := returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1,"exchangeSku":"HAT"}]}`)
	if bad.status != 400 || !strings.Contains(bad.raw, "items[0].exchangeSku") {
		t.Errorf("unknown exchangeSku: %d %s", bad.status, bad.raw)
	}
	bad = returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","refundMethod":"CASH","items":[{"foreignLineItemId":"L1","quantity":1}]}`)
	if bad.status != 400 || !strings.Contains(bad.raw, "refundMethod") {
		t.Errorf("unknown refundMethod: %d %s", bad.status, bad.raw)
	}
	ret := returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1,"exchangeSku":"JACKET-L"}]}`)
	wantRequested := []any{map[string]any{"returnId": float64(1), "status": "REQUESTED",
		"items": []any{map[string]any{"foreignLineItemId": "L1", "sku": "JACKET-M", "exchangeSku": "JACKET-L", "quantity": float64(1)}}}}
	if diff := cmp.Diff(wantRequested, field(ret.body, "exchanges")); diff != "" || field(ret.body, "returnCosts.exchangeCost") != 25.00 ||
		field(ret.body, "items.0.exchangeSku") != "JACKET-L" {
		t.Errorf("requested exchange (-want +got):\n%s\n%s", diff, ret.raw)
	}
	if r := returnsDo(t, h, "POST", "/returns/merchant/return/1/exchanged", "demo-key", `{"foreignId":"X-1"}`); r.status != 400 ||
		field(r.body, "message") != "return 1 is AWAITING_RETURN; this needs AWAITING_EXCHANGE" {
		t.Errorf("exchange before inspection: %d %s", r.status, r.raw)
	}
	rep := returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key", `{"returnId":1,"items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`)
	if field(rep.body, "returns.0.status") != "AWAITING_EXCHANGE" || len(rep.body["refundTransactions"].([]any)) != 0 {
		t.Errorf("inspected exchange: %s", rep.raw)
	}
	if r := returnsDo(t, h, "POST", "/returns/merchant/return/1/exchanged", "demo-key", `{"foreignId":"`+strings.Repeat("x", 300)+`"}`); r.status != 400 || !strings.Contains(r.raw, "foreignId") {
		t.Errorf("long foreignId: %d %s", r.status, r.raw)
	}
	if r := returnsDo(t, h, "POST", "/returns/merchant/return/1/exchanged", "demo-key-2", `{}`); r.status != 404 {
		t.Errorf("another merchant: %d %s", r.status, r.raw)
	}
	done := returnsDo(t, h, "POST", "/returns/merchant/return/1/exchanged", "demo-key", `{"foreignId":"X-1"}`)
	wantDone := []any{map[string]any{"returnId": float64(1), "status": "COMPLETED", "foreignId": "X-1", "completedAt": "2026-11-22T10:00:00.000000Z",
		"items": []any{map[string]any{"foreignLineItemId": "L1", "sku": "JACKET-M", "exchangeSku": "JACKET-L", "quantity": float64(1)}}}}
	if diff := cmp.Diff(wantDone, field(done.body, "exchanges")); diff != "" || field(done.body, "status") != "COMPLETED" {
		t.Errorf("completed exchange (-want +got):\n%s\n%s", diff, done.raw)
	}
	ord := returnsDo(t, h, "GET", "/returns/merchant/order/1", "demo-key", "")
	if diff := cmp.Diff(wantDone, field(ord.body, "exchanges")); diff != "" {
		t.Errorf("order's exchanges (-want +got):\n%s", diff)
	}
}

// eventRefundChanged is the outbox's refund.changed of return id.
func eventRefundChanged(site, id string) event.Event {
	return event.Event{ID: "ev-" + id, Type: event.TypeRefundChanged, Site: site, Subject: id}
}
