package shipment_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/google/go-cmp/cmp"
)

func TestLabel(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("", parcel("np-point"))))
	must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))

	pdf, ctype, err := f.svc.Label(ctx, site, "CP000000014SE", "")
	if err != nil || ctype != "application/pdf" {
		t.Fatalf("Label pdf: %q, %v", ctype, err)
	}
	if err := labeltest.CheckPDF(pdf); err != nil {
		t.Fatal(err)
	}
	codes, err := labeltest.PDFBarcodes(pdf)
	if err != nil || cmp.Diff([]string{"CP000000014SE"}, codes) != "" {
		t.Errorf("barcodes %v, %v", codes, err)
	}
	texts, err := labeltest.Texts(pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pickup point SP-1001", "Torget 1", "Alva Berg", "Service Point", "SE-753", "Weight: 1.25 kg"} {
		if !slices.Contains(texts, want) {
			t.Errorf("label lacks %q; it has %q", want, texts)
		}
	}
	zpl, ctype, err := f.svc.Label(ctx, site, "CP000000014SE", shipment.LabelZPL)
	if err != nil || !strings.HasPrefix(ctype, "application/zpl") || !strings.Contains(string(zpl), "^FDCP000000014SE^FS") {
		t.Errorf("Label zpl: %q %v\n%s", ctype, err, zpl)
	}
	for _, tc := range []struct {
		tn     string
		format shipment.LabelFormat
		kind   deliverykit.Kind
	}{
		{"CP000000014SE", "png", deliverykit.KindInvalidArgument},
		{"CP000000015SE", "pdf", deliverykit.KindInvalidArgument},
		{"CP000000028SE", "pdf", deliverykit.KindNotFound},
	} {
		if _, _, err := f.svc.Label(ctx, site, tc.tn, tc.format); deliverykit.KindOf(err) != tc.kind {
			t.Errorf("Label(%s, %s): %v, want %s", tc.tn, tc.format, err, tc.kind)
		}
	}
}
