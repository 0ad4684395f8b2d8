package label_test

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/google/go-cmp/cmp"
)

func data() label.Data {
	return label.Data{
		TrackingNumber: "CP000000014SE", CarrierName: "North Parcel", ProductName: "Home Delivery", RoutingCode: "SE-753",
		SenderName: "Demo Outdoor Warehouse", SenderLines: []string{"Lagervägen 1", "121 62 Stockholm", "SE"},
		ReceiverName: "Åsa Öberg", ReceiverLines: []string{"Storgatan 5", "753 20 Uppsala", "SE"},
		WeightGrams: 1250, Dimensions: "300 x 200 x 100 mm", Reference: "ORD-1001", Parcel: "1/2",
		Date: time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC),
	}
}

func TestPDF(t *testing.T) {
	pdf, err := label.PDF(data())
	if err != nil {
		t.Fatal(err)
	}
	if err := labeltest.CheckPDF(pdf); err != nil {
		t.Fatalf("invalid PDF: %v", err)
	}
	boxes := labeltest.MediaBoxes(pdf)
	if len(boxes) == 0 {
		t.Fatal("no /MediaBox")
	}
	for _, b := range boxes { // A6: 105 × 148 mm
		if math.Abs(b[0]-105/25.4*72) > 0.1 || math.Abs(b[1]-148/25.4*72) > 0.1 {
			t.Errorf("page %v pt, want A6", b)
		}
	}
	codes, err := labeltest.PDFBarcodes(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"CP000000014SE"}, codes); diff != "" {
		t.Errorf("barcodes on the page (-want +got):\n%s", diff)
	}
	streams, err := labeltest.Streams(pdf)
	if err != nil {
		t.Fatal(err)
	}
	text := string(bytes.Join(streams, nil))
	for _, want := range []string{"(CP000000014SE)Tj", "(North Parcel)Tj", "(Weight: 1.25 kg)Tj", "(SE-753)Tj", "(Ref: ORD-1001)Tj", "(Parcel: 1/2)Tj",
		"(\xc5sa \xd6berg)Tj", // cp1252, the encoding of the core fonts
	} {
		if !strings.Contains(text, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
	again, _ := label.PDF(data())
	if !bytes.Equal(pdf, again) {
		t.Error("rendering the same label twice gave different bytes")
	}
}

func TestPDFRequiresTrackingNumber(t *testing.T) {
	d := data()
	d.TrackingNumber = ""
	if _, err := label.PDF(d); err == nil {
		t.Error("PDF without a tracking number")
	}
	if _, err := label.ZPL(d); err == nil {
		t.Error("ZPL without a tracking number")
	}
}

func TestZPL(t *testing.T) {
	d := data()
	d.ReceiverName = "Eve^XZ~JR_"
	zpl, err := label.ZPL(d)
	if err != nil {
		t.Fatal(err)
	}
	s := string(zpl)
	if !strings.HasPrefix(s, "^XA\n^CI28\n") || !strings.HasSuffix(s, "^XZ\n") || strings.Count(s, "^XA") != 1 || strings.Count(s, "^XZ") != 1 {
		t.Errorf("not one label format:\n%s", s)
	}
	if !strings.Contains(s, "^BCN,200,Y,N,N,A^FDCP000000014SE^FS") {
		t.Errorf("no Code 128 field with the tracking number:\n%s", s)
	}
	if !strings.Contains(s, "^FH_^FDEve_5EXZ_7EJR_5F^FS") {
		t.Errorf("receiver name not escaped:\n%s", s)
	}
	for _, want := range []string{"^FDLagervägen 1^FS", "^FDWeight: 1.25 kg^FS", "^FDSE-753^FS"} {
		if !strings.Contains(s, want) {
			t.Errorf("ZPL lacks %q", want)
		}
	}
	// Every field is opened and closed.
	if strings.Count(s, "^FD") != strings.Count(s, "^FS")-strings.Count(s, "^GB") {
		t.Errorf("unbalanced ^FD/^FS:\n%s", s)
	}
}

func TestWeight(t *testing.T) {
	for g, want := range map[int32]string{1: "0.00 kg", 5: "0.01 kg", 1250: "1.25 kg", 1999: "2.00 kg", 20000: "20.00 kg", 994: "0.99 kg", 995: "1.00 kg"} {
		if got := label.Weight(g); got != want {
			t.Errorf("Weight(%d) = %q, want %q", g, got, want)
		}
	}
}

func TestBarcodeModules(t *testing.T) {
	m, err := label.BarcodeModules("CP000000014SE")
	if err != nil {
		t.Fatal(err)
	}
	if !m[0] || !m[len(m)-1] || (len(m)-13)%11 != 0 {
		t.Errorf("%d modules, first %v last %v: not a Code 128 symbol", len(m), m[0], m[len(m)-1])
	}
	if _, err := label.BarcodeModules("naïve"); err == nil {
		t.Error("a non-ASCII tracking number encoded")
	}
}

// TestLongAddressesStayClearOfTheBarcode fills every block to the brim:
// the barcode must still scan, and no text may sit below the block caps.
func TestLongAddressesStayClearOfTheBarcode(t *testing.T) {
	d := data()
	for i := range 12 {
		d.SenderLines = append(d.SenderLines, "Sender line "+string(rune('A'+i)))
		d.ReceiverLines = append(d.ReceiverLines, "Receiver line "+string(rune('A'+i)))
	}
	pdf, err := label.PDF(d)
	if err != nil {
		t.Fatal(err)
	}
	if codes, err := labeltest.PDFBarcodes(pdf); err != nil || len(codes) != 1 || codes[0] != d.TrackingNumber {
		t.Errorf("barcodes %v, %v", codes, err)
	}
	zpl, _ := label.ZPL(d)
	if strings.Contains(string(zpl), "Receiver line F") || strings.Contains(string(zpl), "Sender line E") {
		t.Error("lines past the cap were printed")
	}
	// The last text field ends above the barcode at y=930.
	last := 0
	for _, l := range strings.Split(string(zpl), "\n") {
		var x, y, h int
		if n, _ := fmt.Sscanf(l, "^FO%d,%d^A0N,%d", &x, &y, &h); n == 3 && y+h > last {
			last = y + h
		}
	}
	if last >= 930 {
		t.Errorf("text reaches y=%d, into the barcode", last)
	}
}
