package label_test

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
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
	texts, err := labeltest.Texts(pdf)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CP000000014SE", "North Parcel", "Weight: 1.25 kg", "SE-753", "Ref: ORD-1001", "Parcel: 1/2",
		"Åsa Öberg", "Lagervägen 1",
	} {
		if !slices.Contains(texts, want) {
			t.Errorf("page text lacks %q; it has %q", want, texts)
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

// unicodeNames are receivers whose names and addresses need letters
// outside Windows-1252, the encoding of the PDF core fonts, which printed
// them as dots.
// The last, which Windows-1252 holds, keeps the core fonts.
var unicodeNames = []struct {
	name  string
	lines []string
	embed bool // needs the embedded fonts
}{
	{"Łukasz Żółć", []string{"ul. Świętokrzyska 12", "00-916 Warszawa", "PL"}, true},
	{"Jiří Dvořák", []string{"Náměstí Míru 15", "120 00 Praha 2", "CZ"}, true},
	{"Şükrü Çağlar Işık", []string{"İstiklal Caddesi 8", "34433 İstanbul", "TR"}, true},
	{"Γιώργος Παπαδόπουλος", []string{"Οδός Ερμού 25", "105 63 Αθήνα", "GR"}, true},
	{"Мария Иванова", []string{"ул. Тверская, 7", "125009 Москва", "RU"}, true},
	{"Åsa Öberg", []string{"Storgatan 5", "753 20 Uppsala", "SE"}, false},
}

func unicodeData(name string, lines []string) label.Data {
	d := data()
	d.ReceiverName, d.ReceiverLines = name, lines
	d.SenderLines = append([]string{"Ørstedsgade 3 – Bygning Æ"}, d.SenderLines...)
	return d
}

// TestPDFUnicode prints names in Polish, Czech, Turkish, Greek and
// Cyrillic: the text is in the PDF as written, the Go fonts are embedded
// exactly when Windows-1252 cannot hold the text, and the embedded font
// has a glyph for every character shown (none is drawn as an empty box).
func TestPDFUnicode(t *testing.T) {
	for _, tc := range unicodeNames {
		t.Run(tc.name, func(t *testing.T) {
			pdf, err := label.PDF(unicodeData(tc.name, tc.lines))
			if err != nil {
				t.Fatal(err)
			}
			if err := labeltest.CheckPDF(pdf); err != nil {
				t.Fatal(err)
			}
			texts, err := labeltest.Texts(pdf)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range append([]string{tc.name, "Ørstedsgade 3 – Bygning Æ"}, tc.lines...) {
				if !slices.Contains(texts, want) {
					t.Errorf("page text lacks %q; it has %q", want, texts)
				}
			}
			if embedded := bytes.Contains(pdf, []byte("/FontFile2")); embedded != tc.embed {
				t.Errorf("fonts embedded: %v, want %v", embedded, tc.embed)
			}
			missing, err := labeltest.MissingGlyphs(pdf)
			if err != nil {
				t.Fatal(err)
			}
			if len(missing) > 0 {
				t.Errorf("no glyph for %q", string(missing))
			}
			if codes, err := labeltest.PDFBarcodes(pdf); err != nil || cmp.Diff([]string{"CP000000014SE"}, codes) != "" {
				t.Errorf("barcodes %v, %v", codes, err)
			}
		})
	}
}

// TestPDFLeavesFontsAlone renders labels concurrently (run with -race)
// and checks that the shared font data is unchanged: the PDF library
// writes into the font bytes it is given, so each label must get a copy.
func TestPDFLeavesFontsAlone(t *testing.T) {
	before := [][32]byte{sha256.Sum256(goregular.TTF), sha256.Sum256(gobold.TTF), sha256.Sum256(gomonobold.TTF)}
	first, err := label.PDF(data())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	outs := make([][]byte, 4)
	for i := range outs {
		wg.Go(func() { outs[i], _ = label.PDF(data()) })
	}
	wg.Wait()
	for i, out := range outs {
		if !bytes.Equal(first, out) {
			t.Errorf("label %d differs from the first", i)
		}
	}
	after := [][32]byte{sha256.Sum256(goregular.TTF), sha256.Sum256(gobold.TTF), sha256.Sum256(gomonobold.TTF)}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("font data changed by rendering (-before +after):\n%s", diff)
	}
}

// TestMissingGlyphsFindsWhatTheFontLacks keeps the glyph check honest:
// the Go fonts have no CJK ideographs, and the check must say so.
func TestMissingGlyphsFindsWhatTheFontLacks(t *testing.T) {
	pdf, err := label.PDF(unicodeData("山田 Łukasz", []string{"SE"}))
	if err != nil {
		t.Fatal(err)
	}
	missing, err := labeltest.MissingGlyphs(pdf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]rune("山田"), missing); diff != "" {
		t.Errorf("missing glyphs (-want +got):\n%s", diff)
	}
}
