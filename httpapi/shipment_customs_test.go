package httpapi

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

// customsBody is a service-point shipment from Stockholm to Oslo worth
// 5196 SEK: a CN23 and a commercial invoice.
const customsBody = `{
  "reference": "ORD-88",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Ola Nordmann", "address": {"street": "Karl Johans gate", "street_number": "1", "postal_code": "0154", "city": "Oslo", "country": "NO"}},
  "parcels": [{"weight": 1250,
    "line_items": [{"sku": "TENT-2", "name": "Tent", "quantity": 4, "price": 129900, "currency": "SEK"}],
    "deliveries": [{"carrier_product_ref": "np-point", "pickup": {"id": "SP-1"}}]}],
  "customs": {"exporter": {"eori": "SE5566778899"}, "items": [%s]}
}`

func TestShipmentCustomsOverHTTP(t *testing.T) {
	env := newShipmentEnv(t)
	h := env.h
	resp, body := som("POST", "/shipments.createAndBook", "demo-key", strings.Replace(customsBody, "%s", `{"sku": "TENT-2"}`, 1)).do(t, h)
	if resp.StatusCode != 400 {
		t.Fatalf("without HS code: %d %v", resp.StatusCode, body)
	}
	var fields []string
	for _, d := range body["details"].([]any) {
		fields = append(fields, str(d, "field"))
	}
	if diff := cmp.Diff([]string{"customs.items[0].hs_code", "customs.items[0].net_weight", "customs.items[0].origin_country"}, fields); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}

	item := `{"sku": "TENT-2", "hs_code": "630622", "origin_country": "CN", "net_weight": 4400}`
	resp, sh := som("POST", "/shipments.createAndBook", "demo-key", strings.Replace(customsBody, "%s", item, 1)).do(t, h)
	if resp.StatusCode != 200 {
		t.Fatalf("createAndBook: %d %v", resp.StatusCode, sh)
	}
	id := str(sh, "id")
	var urls []string
	for _, d := range sh["documents"].([]any) {
		urls = append(urls, str(d, "kind")+" "+str(d, "pdf_url"))
	}
	want := []string{
		"cn23 http://api.test/v1/som/documents/" + id + "/cn23?format=pdf",
		"commercial_invoice http://api.test/v1/som/documents/" + id + "/commercial_invoice?format=pdf",
	}
	if diff := cmp.Diff(want, urls); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	if str(sh, "customs", "items", 0, "description") != "Tent" || dig(sh, "customs", "items", 0, "value") != float64(519600) {
		t.Errorf("the item did not default from the line item: %v", sh["customs"])
	}
	for _, kind := range []string{"cn23", "commercial_invoice"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/v1/som/documents/"+id+"/"+kind+"?format=pdf", nil)
		req.Header.Set("Authorization", bearer("demo-key"))
		h.ServeHTTP(rec, req)
		b, _ := io.ReadAll(rec.Result().Body)
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/pdf" || rec.Header().Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %q", kind, rec.Code, rec.Header().Get("Content-Type"))
			continue
		}
		if err := labeltest.CheckPDF(b); err != nil {
			t.Errorf("%s PDF: %v", kind, err)
		}
	}
	for _, c := range []struct {
		path, key string
		status    int
		field     string
	}{
		{"/documents/" + id + "/cn22", "demo-key", 404, "kind"},
		{"/documents/shp_nope/cn23", "demo-key", 404, "shipment_id"},
		{"/documents/" + id + "/cn23", "demo-key-2", 404, "shipment_id"},
		{"/documents/" + id + "/cn23?format=zpl", "demo-key", 400, "format"},
	} {
		resp, body := som("GET", c.path, c.key, "").do(t, h)
		if resp.StatusCode != c.status || str(body, "details", 0, "field") != c.field {
			t.Errorf("%s with %s: %d %v", c.path, c.key, resp.StatusCode, body)
		}
	}
}
