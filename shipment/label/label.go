// Package label renders shipping labels a warehouse can print: an A6 PDF
// for office printers and ZPL for thermal label printers. Both carry the
// carrier and product, the routing code, sender and receiver, the parcel's
// weight and the tracking number as a Code 128 barcode. It renders the
// customs documents too: the CN22 on the label's A6 page, the CN23 and the
// commercial invoice on A4, in the same fonts.
//
// Rendering is deterministic: the same Data gives the same bytes, so a
// label can be rendered again whenever it is fetched instead of being
// stored.
//
// Text the PDF core fonts can print (Windows-1252: English and the
// Western European languages) is set in Helvetica. A label with any other
// letter, such as "Łukasz Żółć", "Şükrü Çağlar", "Γιώργος" or
// "Мария Иванова", is set in the Go fonts (golang.org/x/image/font/gofont)
// instead: TrueType fonts covering Latin with its extensions, Greek and
// Cyrillic, embedded with the glyphs the label uses; the core fonts cannot
// print those letters. Embedding makes rendering markedly slower and the
// file larger (BENCHMARKS.md, "Figures behind the code's choices"), so
// labels that do not need it keep the core fonts.
//
// Caveat: the PDF's creation date is Data.Date; a zero Date makes the
// renderer stamp the current time, so give a Date for reproducible bytes.
package label

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"
	"github.com/go-pdf/fpdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/text/encoding/charmap"
)

// fonts are the font families a label is set in and the translation its
// text needs for them.
type fonts struct {
	sans string
	tr   func(string) string
}

// The Go fonts' family name in a PDF with them.
const goSans = "gosans"

// labelFonts chooses the fonts for a label whose text is texts and adds
// them to pdf: Helvetica with its Windows-1252 translation when every
// character has a place in Windows-1252, else the Go fonts, embedded.
// The tracking number, which Code 128 limits to ASCII, is always set in
// Courier.
//
// Each Go font is given to fpdf as a copy: fpdf's subsetter writes into
// the bytes it is given, which would change the shared font data, make
// every label after the first differ and race between concurrent
// renders.
func labelFonts(pdf *fpdf.Fpdf, texts ...string) fonts {
	if windows1252(texts...) {
		return fonts{sans: "Helvetica", tr: pdf.UnicodeTranslatorFromDescriptor("")}
	}
	pdf.AddUTF8FontFromBytes(goSans, "", bytes.Clone(goregular.TTF))
	pdf.AddUTF8FontFromBytes(goSans, "B", bytes.Clone(gobold.TTF))
	return fonts{sans: goSans, tr: func(s string) string { return s }}
}

// windows1252 reports whether every character of texts is in
// Windows-1252, the encoding of the PDF core fonts.
func windows1252(texts ...string) bool {
	for _, s := range texts {
		for _, r := range s {
			if _, ok := charmap.Windows1252.EncodeRune(r); !ok {
				return false
			}
		}
	}
	return true
}

// Data is what a label shows. Lines are printed as given.
type Data struct {
	TrackingNumber string
	CarrierName    string
	ProductName    string
	// RoutingCode is the carrier's sorting code, printed large.
	RoutingCode string
	SenderName  string
	SenderLines []string
	// ReceiverName and ReceiverLines are where the parcel goes (for a
	// pickup-point delivery: the point).
	ReceiverName  string
	ReceiverLines []string
	// WeightGrams is the parcel's weight.
	WeightGrams int32
	// Dimensions is a printable size, e.g. "300 x 200 x 100 mm".
	Dimensions string
	Reference  string
	// Parcel is "n/m": this parcel of the shipment's m.
	Parcel string
	// Date is the booking date; it is also the PDF's creation date.
	Date time.Time
}

// Size of an A6 page and the printable area, in millimetres.
const (
	pageW  = 105.0
	pageH  = 148.0
	margin = 5.0
	inner  = pageW - 2*margin
)

// The address blocks are capped so that no address, however long, runs
// into the barcode: the lines past the cap are dropped (a carrier's own
// label has the same fixed boxes).
const (
	maxSenderLines   = 4
	maxReceiverLines = 5
)

func firstN(lines []string, n int) []string {
	if len(lines) > n {
		return lines[:n]
	}
	return lines
}

// BarcodeModules returns the Code 128 encoding of the tracking number as
// bars: true for each dark module. The PDF and the tests use it.
func BarcodeModules(trackingNumber string) ([]bool, error) {
	bc, err := code128.Encode(trackingNumber)
	if err != nil {
		return nil, fmt.Errorf("label: encoding %q as Code 128: %w", trackingNumber, err)
	}
	return modules(bc), nil
}

func modules(bc barcode.Barcode) []bool {
	b := bc.Bounds()
	out := make([]bool, 0, b.Dx())
	for x := b.Min.X; x < b.Max.X; x++ {
		r, _, _, _ := bc.At(x, b.Min.Y).RGBA()
		out = append(out, r == 0)
	}
	return out
}

// Weight formats grams as kilograms with two decimals.
func Weight(grams int32) string {
	cg := (grams + 5) / 10 // hundredths of a kilogram, rounded
	return fmt.Sprintf("%d.%02d kg", cg/100, cg%100)
}

// PDF renders the label as a one-page A6 PDF. The barcode is drawn as
// vector bars, sharp at any printer resolution, with quiet zones of ten
// modules on both sides.
func PDF(d Data) ([]byte, error) {
	if d.TrackingNumber == "" {
		return nil, errors.New("label: tracking number is required")
	}
	bars, err := BarcodeModules(d.TrackingNumber)
	if err != nil {
		return nil, err
	}
	// ISO 216 A6 is 105 × 148 mm (fpdf's "A6" is 148.5 mm high).
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: fpdf.SizeType{Wd: pageW, Ht: pageH}})
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(d.Date)
	pdf.SetModificationDate(d.Date)
	pdf.SetProducer("deliverykit", false)
	pdf.SetTitle("Label "+d.TrackingNumber, false)
	pdf.SetMargins(margin, margin, margin)
	pdf.SetAutoPageBreak(false, 0)
	all := append([]string{d.CarrierName, d.ProductName, d.RoutingCode, d.SenderName, d.ReceiverName, d.Reference, d.Dimensions, d.Parcel},
		append(firstN(d.SenderLines, maxSenderLines), firstN(d.ReceiverLines, maxReceiverLines)...)...)
	fs := labelFonts(pdf, all...)
	pdf.AddPage()
	y := pdfHeader(pdf, fs, d)
	y = pdfSender(pdf, fs, d, y)
	y = pdfReceiver(pdf, fs, d, y)
	pdfFacts(pdf, fs, d, y)
	pdfBarcode(pdf, bars, d.TrackingNumber)

	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("label: rendering the PDF: %w", err)
	}
	return buf.Bytes(), nil
}

// pdfHeader draws the carrier and product, with the routing code at the
// right, and the rule below them, whose y it returns.
func pdfHeader(pdf *fpdf.Fpdf, fs fonts, d Data) float64 {
	sans, tr := fs.sans, fs.tr
	pdf.SetFont(sans, "B", 13)
	pdf.SetXY(margin, margin)
	pdf.CellFormat(inner*0.6, 6, tr(d.CarrierName), "", 2, "L", false, 0, "")
	pdf.SetFont(sans, "", 9)
	pdf.CellFormat(inner*0.6, 5, tr(d.ProductName), "", 2, "L", false, 0, "")
	pdf.SetFont(sans, "B", 18)
	pdf.SetXY(margin+inner*0.6, margin)
	pdf.CellFormat(inner*0.4, 11, tr(d.RoutingCode), "", 0, "R", false, 0, "")
	y := margin + 13.0
	pdf.Line(margin, y, pageW-margin, y)
	return y
}

// pdfSender draws the sender below y and a rule below it, whose y it
// returns.
func pdfSender(pdf *fpdf.Fpdf, fs fonts, d Data, y float64) float64 {
	pdf.SetXY(margin, y+1.5)
	pdf.SetFont(fs.sans, "", 7)
	pdf.CellFormat(inner, 3.5, "FROM", "", 2, "L", false, 0, "")
	pdf.SetFont(fs.sans, "", 8)
	for _, l := range append([]string{d.SenderName}, firstN(d.SenderLines, maxSenderLines)...) {
		pdf.CellFormat(inner, 3.6, fs.tr(l), "", 2, "L", false, 0, "")
	}
	y = pdf.GetY() + 1.5
	pdf.Line(margin, y, pageW-margin, y)
	return y
}

// pdfReceiver draws the receiver, large, below y and a rule below it,
// whose y it returns.
func pdfReceiver(pdf *fpdf.Fpdf, fs fonts, d Data, y float64) float64 {
	pdf.SetXY(margin, y+1.5)
	pdf.SetFont(fs.sans, "", 7)
	pdf.CellFormat(inner, 3.5, "TO", "", 2, "L", false, 0, "")
	pdf.SetFont(fs.sans, "B", 12)
	pdf.CellFormat(inner, 5.5, fs.tr(d.ReceiverName), "", 2, "L", false, 0, "")
	pdf.SetFont(fs.sans, "", 11)
	for _, l := range firstN(d.ReceiverLines, maxReceiverLines) {
		pdf.CellFormat(inner, 5, fs.tr(l), "", 2, "L", false, 0, "")
	}
	y = pdf.GetY() + 1.5
	pdf.Line(margin, y, pageW-margin, y)
	return y
}

// pdfFacts draws the parcel's weight, size, number, reference and date
// below y, each when known.
func pdfFacts(pdf *fpdf.Fpdf, fs fonts, d Data, y float64) {
	pdf.SetXY(margin, y+1.5)
	pdf.SetFont(fs.sans, "", 8)
	facts := []string{"Weight: " + Weight(d.WeightGrams)}
	if d.Dimensions != "" {
		facts = append(facts, "Size: "+d.Dimensions)
	}
	if d.Parcel != "" {
		facts = append(facts, "Parcel: "+d.Parcel)
	}
	if d.Reference != "" {
		facts = append(facts, "Ref: "+d.Reference)
	}
	if !d.Date.IsZero() {
		facts = append(facts, "Date: "+d.Date.UTC().Format("2006-01-02"))
	}
	for _, f := range facts {
		pdf.CellFormat(inner, 3.8, fs.tr(f), "", 2, "L", false, 0, "")
	}
}

// pdfBarcode draws the barcode's modules at the bottom of the page as
// vector bars, then the tracking number in clear text below them.
func pdfBarcode(pdf *fpdf.Fpdf, bars []bool, trackingNumber string) {
	const barH, quiet = 24.0, 10
	module := inner / float64(len(bars)+2*quiet)
	if module > 0.5 {
		module = 0.5
	}
	x0 := (pageW - module*float64(len(bars))) / 2
	yb := pageH - margin - 8 - barH
	drawBars(pdf, bars, x0, yb, module, barH)
	pdf.SetXY(margin, yb+barH+1)
	pdf.SetFont("Courier", "B", 14)
	pdf.CellFormat(inner, 6, trackingNumber, "", 0, "C", false, 0, "")
}

// drawBars draws the dark modules of a barcode from x0, y, each run of
// them as one filled rectangle module mm wide per module and h high.
func drawBars(pdf *fpdf.Fpdf, bars []bool, x0, y, module, h float64) {
	pdf.SetFillColor(0, 0, 0)
	for i := 0; i < len(bars); {
		if !bars[i] {
			i++
			continue
		}
		j := i
		for j < len(bars) && bars[j] {
			j++
		}
		pdf.Rect(x0+module*float64(i), y, module*float64(j-i), h, "F")
		i = j
	}
}

// ZPL renders the label for a thermal printer: 4×6 inches at 203 dpi
// (812×1218 dots), UTF-8 text (^CI28) with field data hex-escaped (^FH) so
// that no input can inject ZPL commands, and the tracking number as a
// Code 128 barcode (^BC) with its interpretation line.
func ZPL(d Data) ([]byte, error) {
	if d.TrackingNumber == "" {
		return nil, errors.New("label: tracking number is required")
	}
	var b strings.Builder
	b.WriteString("^XA\n^CI28\n^PW812\n^LL1218\n^LH0,0\n")
	field := func(x, y, h int, text string) {
		fmt.Fprintf(&b, "^FO%d,%d^A0N,%d,%d^FH_^FD%s^FS\n", x, y, h, h, zplEscape(text))
	}
	field(40, 40, 44, d.CarrierName)
	field(40, 92, 30, d.ProductName)
	field(560, 40, 70, d.RoutingCode)
	b.WriteString("^FO30,140^GB752,3,3^FS\n")
	y := 160
	field(40, y, 22, "FROM")
	y += 28
	for _, l := range append([]string{d.SenderName}, firstN(d.SenderLines, maxSenderLines)...) {
		field(40, y, 26, l)
		y += 30
	}
	y += 10
	fmt.Fprintf(&b, "^FO30,%d^GB752,3,3^FS\n", y)
	y += 20
	field(40, y, 22, "TO")
	y += 28
	field(40, y, 44, d.ReceiverName)
	y += 50
	for _, l := range firstN(d.ReceiverLines, maxReceiverLines) {
		field(40, y, 38, l)
		y += 42
	}
	y += 10
	fmt.Fprintf(&b, "^FO30,%d^GB752,3,3^FS\n", y)
	y += 20
	facts := []string{"Weight: " + Weight(d.WeightGrams)}
	if d.Dimensions != "" {
		facts = append(facts, "Size: "+d.Dimensions)
	}
	if d.Parcel != "" {
		facts = append(facts, "Parcel: "+d.Parcel)
	}
	if d.Reference != "" {
		facts = append(facts, "Ref: "+d.Reference)
	}
	if !d.Date.IsZero() {
		facts = append(facts, "Date: "+d.Date.UTC().Format("2006-01-02"))
	}
	for _, f := range facts {
		field(40, y, 26, f)
		y += 30
	}
	// ^BY3: module width 3 dots; ^BCN,height,Y (print interpretation
	// line),N,N,A: the automatic mode lets the printer pick the subsets
	// (digit pairs in subset C), as the PDF's encoder does.
	fmt.Fprintf(&b, "^FO60,930^BY3^BCN,200,Y,N,N,A^FD%s^FS\n", zplEscape(d.TrackingNumber))
	b.WriteString("^XZ\n")
	return []byte(b.String()), nil
}

// zplEscape hex-escapes the characters that ZPL would read as commands or
// as the ^FH escape character, and drops control characters.
func zplEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '^' || r == '~' || r == '_' || r == '\\':
			fmt.Fprintf(&b, "_%02X", r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
