package httpapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/shipment"
)

// testBoxes are the boxes of newShipmentEnv's site: the large one only
// for home delivery.
var testBoxes = shipment.StaticBoxes{
	{ID: "small", Name: "Small", Inner: catalog.Dimensions{Length: 300, Width: 200, Height: 150},
		Outer: &catalog.Dimensions{Length: 310, Width: 210, Height: 160}, MaxWeight: 10000, TareWeight: 200},
	{ID: "large", Name: "Large", Inner: catalog.Dimensions{Length: 600, Width: 400, Height: 400},
		MaxWeight: 25000, TareWeight: 700, Products: []string{"np-home"}},
}

// packingBody ships items and no parcels by shipping_method %s.
const packingBody = `{
  "shipping_method": "%s",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "address": {"street": "Storgatan", "street_number": "5", "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "items": [
    {"sku": "MUG", "name": "Mug", "quantity": 2, "price": 9900, "currency": "SEK", "weight": 400, "dimensions": {"length": 120, "width": 100, "height": 100}},
    {"sku": "TENT-2", "name": "Tent", "quantity": 1, "price": 129900, "currency": "SEK", "weight": 4400, "dimensions": {"length": 550, "width": 200, "height": 200}},
    {"sku": "STOVE", "name": "Stove", "quantity": 1, "price": 49900, "currency": "SEK", "weight": 1200, "dimensions": {"length": 100, "width": 150, "height": 100}, "ship_alone": true}
  ]
}`

func TestShipmentPackingOverHTTP(t *testing.T) {
	env := newShipmentEnv(t)
	resp, sh := som("POST", "/shipments.createAndBook", "demo-key", strings.Replace(packingBody, "%s", "np-home", 1)).do(t, env.h)
	if resp.StatusCode != 200 {
		t.Fatalf("createAndBook: %d %v", resp.StatusCode, sh)
	}
	type parcel struct {
		Weight     float64
		Dimensions []float64
		Items      []string
		Booked     bool
	}
	var got []parcel
	for i := range sh["parcels"].([]any) {
		p := parcel{Weight: dig(sh, "parcels", i, "weight").(float64), Booked: str(sh, "parcels", i, "deliveries", 0, "tracking_number") != ""}
		for _, k := range []string{"length", "width", "height"} {
			p.Dimensions = append(p.Dimensions, dig(sh, "parcels", i, "dimensions", k).(float64))
		}
		for j := range dig(sh, "parcels", i, "line_items").([]any) {
			p.Items = append(p.Items, fmt.Sprint(str(sh, "parcels", i, "line_items", j, "sku"), " x", dig(sh, "parcels", i, "line_items", j, "quantity")))
		}
		got = append(got, p)
	}
	// The stove alone in the small box; the tent and the mugs in the
	// large box, the only one the tent fits: 4400 + 2×400 + 700 tare.
	want := []parcel{
		{Weight: 1400, Dimensions: []float64{310, 210, 160}, Items: []string{"STOVE x1"}, Booked: true},
		{Weight: 5900, Dimensions: []float64{600, 400, 400}, Items: []string{"MUG x2", "TENT-2 x1"}, Booked: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parcels (-want +got):\n%s", diff)
	}

	// The large box is not for service points: the tent fits no box.
	resp, body := som("POST", "/shipments.create", "demo-key", strings.Replace(packingBody, "%s", "np-point", 1)).do(t, env.h)
	if resp.StatusCode != 400 {
		t.Fatalf("tent by np-point: %d %v", resp.StatusCode, body)
	}
	var fields []string
	for _, d := range body["details"].([]any) {
		fields = append(fields, str(d, "field")+": "+str(d, "message"))
	}
	if diff := cmp.Diff([]string{"items[1]: is too large for every box usable with np-point"}, fields); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}

	// Explicit parcels win; neither parcels nor items is a 400 naming parcels.
	withParcels := strings.Replace(strings.Replace(packingBody, "%s", "np-home", 1), `"items": [`,
		`"parcels": [{"weight": 999, "deliveries": [{"carrier_product_ref": "np-home"}]}], "items": [`, 1)
	resp, sh = som("POST", "/shipments.create", "demo-key", withParcels).do(t, env.h)
	if resp.StatusCode != 200 || len(sh["parcels"].([]any)) != 1 || dig(sh, "parcels", 0, "weight") != float64(999) {
		t.Errorf("explicit parcels: %d %v", resp.StatusCode, sh["parcels"])
	}
	noItems := strings.Replace(packingBody, "%s", "np-home", 1)
	noItems = noItems[:strings.Index(noItems, `"items"`)] + `"items": []}`
	resp, body = som("POST", "/shipments.create", "demo-key", noItems).do(t, env.h)
	if resp.StatusCode != 400 || str(body, "details", 0, "field") != "parcels" {
		t.Errorf("neither parcels nor items: %d %v", resp.StatusCode, body)
	}
}
