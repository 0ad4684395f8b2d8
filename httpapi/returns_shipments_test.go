package httpapi

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// TestReturnShipmentsHTTP: a return's parcel, once booked, is in
// shipments[] of the return and of its order, its carrier's steps move
// the return to IN_TRANSIT and its items to AWAITING_INSPECTION, and the
// merchant reports the items by the parcel's trackingReference; every
// response is checked against the returns API document.
func TestReturnShipmentsHTTP(t *testing.T) {
	svc := returns.New(memory.New(), returns.Options{
		Clock: deliverykit.NewManualClock(testTime), IDs: &deliverykit.SequentialIDs{}, LabelPDFs: labelStub{},
		Policies:  returns.StaticPolicies{"demo-site": {ReturnProduct: "north-parcel-point"}},
		PublicURL: "http://127.0.0.1:8080",
	})
	s, _ := newTestServer(t, Options{Returns: svc})
	h := s.handler
	order := strings.Replace(returnsOrderJSON, `"someFutureField":true`,
		`"deliveryAddress":{"name":"Jiří Dvořák","addressLines":["Storgatan 5"],"postalCode":"111 51","city":"Stockholm","country":"SE"}`, 1)
	if r := returnsDo(t, h, "POST", "/returns/merchant/order", "demo-key", order); r.status != 201 {
		t.Fatalf("import: %d %s", r.status, r.raw)
	}
	ret := returnsDo(t, h, "POST", "/returns/customer/return", "",
		`{"siteId":"demo-site","foreignOrderId":"A-1","email":"anna@example.com","items":[{"foreignLineItemId":"L1","quantity":1}]}`)
	if ret.status != 201 || len(ret.body["shipments"].([]any)) != 0 {
		t.Fatalf("return: %d %s", ret.status, ret.raw)
	}
	id := uint64(ret.body["id"].(float64))
	path := "/returns/merchant/return/" + strconv.FormatUint(id, 10)
	bookReturnParcel(t, svc, id, "A-1", "CP000001SE")
	want := []any{map[string]any{"id": 1.0, "foreignId": "shp_CP000001SE", "type": "C2B", "carrier": "North Parcel", "trackingReference": "CP000001SE"}}
	r := returnsDo(t, h, "GET", path, "demo-key", "")
	if diff := cmp.Diff(want, r.body["shipments"]); r.status != 200 || diff != "" {
		t.Errorf("return %d, shipments (-want +got):\n%s", r.status, diff)
	}
	o := returnsDo(t, h, "GET", "/returns/merchant/order/A-1?idType=FOREIGN_ID", "demo-key", "")
	if diff := cmp.Diff(want, o.body["shipments"]); o.status != 200 || diff != "" {
		t.Errorf("order %d, shipments (-want +got):\n%s", o.status, diff)
	}

	delivered := time.Date(2026, 11, 25, 14, 0, 0, 0, time.UTC)
	steps := []struct {
		step       string
		at         time.Time
		status     string
		item       string
		returnedAt any
	}{
		{"STEP_SUBMITTED_TO_CARRIER", delivered.Add(-48 * time.Hour), "IN_TRANSIT", "AWAITING_RETURN", nil},
		{"STEP_DELIVERED_TO_MERCHANT", delivered, "IN_TRANSIT", "AWAITING_INSPECTION", "2026-11-25T14:00:00.000000Z"},
	}
	for _, st := range steps {
		ev, err := event.New("evt_"+st.step, "demo-site", "CP000001SE", st.at, event.ParcelChanged{ExternalID: "A-1", TrackingNumber: "CP000001SE", Step: st.step, Time: st.at})
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.HandleParcelChanged(t.Context(), ev); err != nil {
			t.Fatal(err)
		}
		r := returnsDo(t, h, "GET", path, "demo-key", "")
		got := []any{r.body["status"], dig(r.body, "items", 0, "status"), dig(r.body, "items", 0, "returnedToWarehouseAt")}
		if diff := cmp.Diff([]any{st.status, st.item, st.returnedAt}, got); r.status != 200 || diff != "" {
			t.Errorf("after %s: %d (-want +got):\n%s", st.step, r.status, diff)
		}
	}
	rep := returnsDo(t, h, "POST", "/returns/merchant/items/returned", "demo-key",
		`{"trackingReference":"CP000001SE","items":[{"sku":"JACKET-M","quantity":1,"approved":true}]}`)
	if rep.status != 200 || dig(rep.body, "returns", 0, "status") != "AWAITING_REFUND" || dig(rep.body, "returns", 0, "items", 0, "status") != "RETURNED" {
		t.Errorf("items/returned by trackingReference: %d %s", rep.status, rep.raw)
	}
}
