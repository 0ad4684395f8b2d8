package tracking

import (
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

// A cart item's attributes, variant and display attributes come from the
// properties of the parcel line item with its SKU; labels are in the
// order's language, and keys the catalog has no label for are their own.
func TestItemAttributesFromParcelProperties(t *testing.T) {
	tests := []struct {
		locale string
		want   []DisplayAttr
	}{
		{"en-GB", []DisplayAttr{{"Colour", "Color", "forest green"}, {"engraving", "engraving", "A+B"}, {"size", "Size", "XL"}}},
		{"sv-SE", []DisplayAttr{{"Colour", "Färg", "forest green"}, {"engraving", "engraving", "A+B"}, {"size", "Storlek", "XL"}}},
		{"de-DE", []DisplayAttr{{"Colour", "Farbe", "forest green"}, {"engraving", "engraving", "A+B"}, {"size", "Größe", "XL"}}},
	}
	for _, tt := range tests {
		t.Run(tt.locale, func(t *testing.T) {
			f := newFixture(t)
			ctx := t.Context()
			id, err := f.svc.CreateOrder(ctx, "site-a", orderReq("ORD-1"))
			if err != nil {
				t.Fatal(err)
			}
			p := parcelReq(id, "TN1")
			props := map[string]string{"Colour": "forest green", "size": "XL", "engraving": "A+B"}
			p.LineItems = []ParcelLineItem{{SKU: "MUG", Quantity: 2, Price: 9900, Currency: "SEK", Properties: props}}
			if err := f.svc.CreateParcel(ctx, "site-a", p); err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1", Locale: tt.locale})
			if err != nil {
				t.Fatal(err)
			}
			items := res.Orders[0].Cart.Items
			if items[0].Attributes != nil || items[0].Variant != nil || items[0].DisplayAttributes != nil {
				t.Errorf("the tent, in no parcel with properties, has %+v", items[0])
			}
			got := items[1]
			if diff := cmp.Diff(props, got.Attributes); diff != "" {
				t.Errorf("attributes (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(&Variant{Color: "forest green", Size: "XL"}, got.Variant); diff != "" {
				t.Errorf("variant (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got.DisplayAttributes); diff != "" {
				t.Errorf("display_attributes (-want +got):\n%s", diff)
			}
		})
	}
}

// Cancelled items: the lines of POST /order.lines_cancelled set each
// SKU's cancelled quantity; quantity and total_price are what is still
// coming.
func TestCancelOrderLines(t *testing.T) {
	type itemQty struct {
		SKU                                                string
		Quantity, TotalPrice, CancelledQty, CancelledTotal int32
	}
	invalid, notFound := deliverykit.KindInvalidArgument, deliverykit.KindNotFound
	full := []itemQty{{"TENT-2", 1, 150000, 0, 0}, {"MUG", 2, 19800, 0, 0}}
	tests := []struct {
		name       string
		calls      []CancelOrderLinesRequest
		want       []itemQty
		wantFields []string
		wantKind   *deliverykit.Kind
	}{
		{"one mug", []CancelOrderLinesRequest{{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 1}}}},
			[]itemQty{{"TENT-2", 1, 150000, 0, 0}, {"MUG", 1, 9900, 1, 9900}}, nil, nil},
		{"the same call twice", []CancelOrderLinesRequest{
			{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 1}}}, {OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 1}}}},
			[]itemQty{{"TENT-2", 1, 150000, 0, 0}, {"MUG", 1, 9900, 1, 9900}}, nil, nil},
		{"everything, by tos id", []CancelOrderLinesRequest{{OrderID: "tos_000001", Lines: []CancelledLine{{"MUG", 2}, {"TENT-2", 1}}}},
			[]itemQty{{"TENT-2", 0, 0, 1, 150000}, {"MUG", 0, 0, 2, 19800}}, nil, nil},
		{"taken back", []CancelOrderLinesRequest{
			{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 2}}}, {OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 0}}}},
			full, nil, nil},
		{"more than ordered and an unknown SKU", []CancelOrderLinesRequest{{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 3}, {"SOCK", 1}}}},
			full, []string{"lines[0].cancelled_quantity lte", "lines[1].sku exists"}, &invalid},
		{"negative", []CancelOrderLinesRequest{{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", -1}}}},
			full, []string{"lines[0].cancelled_quantity gte"}, &invalid},
		{"no lines", []CancelOrderLinesRequest{{OrderID: "ORD-1"}}, full, []string{"lines required"}, &invalid},
		{"unknown order", []CancelOrderLinesRequest{{OrderID: "ORD-9", Lines: []CancelledLine{{"MUG", 1}}}},
			full, []string{"order_id exists"}, &notFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ctx := t.Context()
			f.setup(t)
			var err error
			for _, c := range tt.calls {
				if err = f.svc.CancelOrderLines(ctx, "site-a", c); err != nil {
					break
				}
			}
			if tt.wantKind != nil {
				if deliverykit.KindOf(err) != *tt.wantKind {
					t.Fatalf("err = %v, want %v", err, *tt.wantKind)
				}
				if diff := cmp.Diff(tt.wantFields, fields(deliverykit.ViolationsOf(err))); diff != "" {
					t.Errorf("violations (-want +got):\n%s", diff)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			res, err := f.svc.Orders(ctx, "site-a", OrdersQuery{ExternalID: "ORD-1"})
			if err != nil {
				t.Fatal(err)
			}
			var got []itemQty
			for _, it := range res.Orders[0].Cart.Items {
				got = append(got, itemQty{it.SKU, it.Quantity, it.TotalPrice, it.CancelledQuantity, it.CancelledTotalPrice})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("items (-want +got):\n%s", diff)
			}
		})
	}
	// Another site's order is not found.
	f := newFixture(t)
	f.setup(t)
	err := f.svc.CancelOrderLines(t.Context(), "site-b", CancelOrderLinesRequest{OrderID: "ORD-1", Lines: []CancelledLine{{"MUG", 1}}})
	if deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("another site's order: %v, want NotFound", err)
	}
}
