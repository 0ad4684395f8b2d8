package labeltest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/boombuler/barcode/code128"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
	"github.com/go-pdf/fpdf"
	"github.com/google/go-cmp/cmp"
)

// widths turns an encoded barcode into element widths in modules.
func widths(t *testing.T, s string) []float64 {
	t.Helper()
	bc, err := code128.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	b := bc.Bounds()
	prev, run := true, 0.0
	for x := b.Min.X; x < b.Max.X; x++ {
		r, _, _, _ := bc.At(x, 0).RGBA()
		dark := r == 0
		if dark != prev {
			out = append(out, run)
			prev, run = dark, 0
		}
		run++
	}
	return append(out, run)
}

// TestDecodeBarsRoundTrip decodes what an independent encoder produced,
// over every printable character (code set B), digit pairs (code set C),
// control characters (code set A) and mixtures that switch sets.
func TestDecodeBarsRoundTrip(t *testing.T) {
	var printable strings.Builder
	for c := byte(32); c < 127; c++ {
		printable.WriteByte(c)
	}
	var pairs strings.Builder
	for i := range 100 {
		pairs.WriteString(string([]byte{byte('0' + i/10), byte('0' + i%10)}))
	}
	for _, s := range []string{
		"CP000000014SE", "RR123456785DE", printable.String()[:48], printable.String()[48:], pairs.String()[:80], pairs.String()[80:160], pairs.String()[120:],
		"\x01\x02\x1fAB", "ab1234567890cd", "X",
	} {
		got, err := labeltest.DecodeBars(widths(t, s))
		if err != nil || got != s {
			t.Errorf("DecodeBars(encode(%q)) = %q, %v", s, got, err)
		}
	}
}

func TestDecodeBarsRejectsDamage(t *testing.T) {
	w := widths(t, "CP000000014SE")
	w[8], w[9] = w[9], w[8] // two elements swapped: a wrong symbol or checksum
	if _, err := labeltest.DecodeBars(w); err == nil {
		t.Error("a damaged barcode decoded")
	}
	if _, err := labeltest.DecodeBars(w[:10]); err == nil {
		t.Error("a truncated barcode decoded")
	}
}

func TestCheckPDFRejectsBrokenFiles(t *testing.T) {
	for name, pdf := range map[string]string{
		"empty":      "",
		"no eof":     "%PDF-1.4\n1 0 obj\n<<>>\nendobj\n",
		"bad xref":   "%PDF-1.4\nstartxref\n3\n%%EOF\n",
		"bad offset": "%PDF-1.4\nxref\n0 2\n0000000000 65535 f \n0000000001 00000 n \ntrailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n9\n%%EOF\n",
	} {
		if err := labeltest.CheckPDF([]byte(pdf)); err == nil {
			t.Errorf("%s: CheckPDF accepted it", name)
		}
	}
}

// TestTextsOfCoreFonts reads text shown in a PDF core font, which is
// Windows-1252 and not embedded: decoded, and not checked for glyphs.
func TestTextsOfCoreFonts(t *testing.T) {
	pdf := fpdf.New("P", "mm", "A6", "")
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 10)
	tr := pdf.UnicodeTranslatorFromDescriptor("")
	pdf.CellFormat(50, 5, tr("Åsa (Öberg) \\ 5 €"), "", 2, "L", false, 0, "")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		t.Fatal(err)
	}
	texts, err := labeltest.Texts(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Åsa (Öberg) \\ 5 €"}, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	if missing, err := labeltest.MissingGlyphs(buf.Bytes()); err != nil || len(missing) != 0 {
		t.Errorf("MissingGlyphs = %q, %v; want nothing for a core font", missing, err)
	}
}
