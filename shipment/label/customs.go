package label

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// CustomsData is what a customs document shows: the parties, the
// declaration and its items. Amounts are minor units of Currency, with
// Decimals digits after the point.
type CustomsData struct {
	// ShipmentID and TrackingNumbers name the consignment.
	ShipmentID      string
	TrackingNumbers []string
	SenderName      string
	SenderLines     []string
	ReceiverName    string
	ReceiverLines   []string
	// ContentsType is sale, gift, documents, return or sample.
	ContentsType  string
	Incoterm      string
	InvoiceNumber string
	ExporterVAT   string
	ExporterEORI  string
	ImporterVAT   string
	ImporterEORI  string
	Items         []CustomsItem
	Currency      string
	Decimals      int
	// GrossGrams is the parcels' weight with packaging.
	GrossGrams int32
	// Date is the booking date; it is also the PDF's creation date.
	Date time.Time
}

// CustomsItem is one line of a declaration.
type CustomsItem struct {
	Description string
	HSCode      string
	Origin      string
	Quantity    int32
	NetGrams    int32
	Value       int64
}

// Money formats minor units with the currency's decimals.
func Money(v int64, decimals int) string {
	if decimals <= 0 {
		return fmt.Sprintf("%d", v)
	}
	scale := int64(1)
	for range decimals {
		scale *= 10
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%0*d", sign, v/scale, decimals, v%scale)
}

func (d CustomsData) totals() (net int32, value int64) {
	for _, it := range d.Items {
		net += it.NetGrams
		value += it.Value
	}
	return net, value
}

// texts is every text of d a font must be able to print.
func (d CustomsData) texts() []string {
	out := []string{d.SenderName, d.ReceiverName, d.InvoiceNumber, d.ExporterVAT, d.ExporterEORI, d.ImporterVAT, d.ImporterEORI}
	out = append(append(out, d.SenderLines...), d.ReceiverLines...)
	for _, it := range d.Items {
		out = append(out, it.Description, it.Origin, it.HSCode)
	}
	return out
}

// contentsBoxes are the categories of goods a CN22 and a CN23 tick, with
// the ContentsType of each.
var contentsBoxes = []struct{ label, value string }{
	{"Gift", "gift"}, {"Documents", "documents"}, {"Commercial sample", "sample"},
	{"Returned goods", "return"}, {"Sale of goods", "sale"},
}

// customsDoc is one customs document page being drawn.
type customsDoc struct {
	pdf         *fpdf.Fpdf
	fs          fonts
	w, m, scale float64 // page width, margin, font scale
	d           CustomsData
}

func newCustomsDoc(d CustomsData, title string, w, h, m, scale float64) *customsDoc {
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: fpdf.SizeType{Wd: w, Ht: h}})
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(d.Date)
	pdf.SetModificationDate(d.Date)
	pdf.SetProducer("deliverykit", false)
	pdf.SetTitle(title+" "+d.ShipmentID, false)
	pdf.SetMargins(m, m, m)
	pdf.SetAutoPageBreak(false, 0)
	fs := labelFonts(pdf, d.texts()...)
	pdf.AddPage()
	return &customsDoc{pdf: pdf, fs: fs, w: w, m: m, scale: scale, d: d}
}

func (c *customsDoc) inner() float64 { return c.w - 2*c.m }

func (c *customsDoc) font(style string, size float64) {
	c.pdf.SetFont(c.fs.sans, style, size*c.scale)
}

// fit cuts s to the width w with an ellipsis, so that no text runs into
// the next column.
func (c *customsDoc) fit(s string, w float64) string {
	s = c.fs.tr(s)
	if c.pdf.GetStringWidth(s) <= w-1 {
		return s
	}
	r := []rune(s)
	ell := c.fs.tr("…")
	if c.fs.sans != goSans {
		ell = "..."
	}
	for len(r) > 0 && c.pdf.GetStringWidth(string(r)+ell) > w-1 {
		r = r[:len(r)-1]
	}
	return string(r) + ell
}

// cell writes one line of text at the cursor and moves below it.
func (c *customsDoc) line(w, h float64, s, align string) {
	c.pdf.CellFormat(w, h*c.scale, c.fit(s, w), "", 2, align, false, 0, "")
}

func (c *customsDoc) rule() float64 {
	y := c.pdf.GetY() + 1
	c.pdf.Line(c.m, y, c.w-c.m, y)
	c.pdf.SetXY(c.m, y+1)
	return y
}

// parties draws sender and receiver side by side, maxLines lines each.
func (c *customsDoc) parties(maxLines int) {
	y := c.pdf.GetY()
	half := c.inner() / 2
	col := func(x float64, head, name string, lines []string) float64 {
		c.pdf.SetXY(x, y)
		c.font("", 6.5)
		c.line(half, 3, head, "L")
		c.font("B", 8)
		c.pdf.SetX(x)
		c.line(half, 3.6, name, "L")
		c.font("", 7.5)
		for _, l := range firstN(lines, maxLines) {
			c.pdf.SetX(x)
			c.line(half, 3.4, l, "L")
		}
		return c.pdf.GetY()
	}
	y1 := col(c.m, "FROM", c.d.SenderName, c.d.SenderLines)
	y2 := col(c.m+half, "TO", c.d.ReceiverName, c.d.ReceiverLines)
	c.pdf.SetXY(c.m, max(y1, y2))
}

// boxes draws the categories with the declaration's ticked.
func (c *customsDoc) boxes(perRow int) {
	c.font("", 7.5)
	w := c.inner() / float64(perRow)
	box := 2.6 * c.scale
	for i, b := range contentsBoxes {
		if i > 0 && i%perRow == 0 {
			c.pdf.SetXY(c.m, c.pdf.GetY()+4*c.scale)
		}
		x, y := c.m+w*float64(i%perRow), c.pdf.GetY()
		c.pdf.Rect(x, y+0.5, box, box, "D")
		if b.value == c.d.ContentsType {
			c.pdf.Line(x, y+0.5, x+box, y+0.5+box)
			c.pdf.Line(x+box, y+0.5, x, y+0.5+box)
		}
		c.pdf.SetXY(x+box+1, y)
		c.pdf.CellFormat(w-box-1, 3.6*c.scale, b.label, "", 0, "L", false, 0, "")
		c.pdf.SetXY(c.m, y)
	}
	c.pdf.SetXY(c.m, c.pdf.GetY()+4*c.scale)
}

// column of the items table: its head, share of the width and alignment.
type column struct {
	head  string
	share float64
	align string
	value func(CustomsItem) string
}

// table draws the items, at most maxRows of them; the rows past it are
// summed up in one last row, as the form has no room for them.
func (c *customsDoc) table(cols []column, maxRows int) {
	c.font("B", 7)
	h := 4.2 * c.scale
	x := c.m
	for _, col := range cols {
		w := c.inner() * col.share
		c.pdf.SetX(x)
		c.pdf.CellFormat(w, h, c.fit(col.head, w), "B", 0, col.align, false, 0, "")
		x += w
	}
	c.pdf.SetXY(c.m, c.pdf.GetY()+h)
	c.font("", 7.5)
	items := c.d.Items
	more := 0
	if len(items) > maxRows {
		items, more = items[:maxRows-1], len(items)-maxRows+1
	}
	for _, it := range items {
		x := c.m
		for _, col := range cols {
			w := c.inner() * col.share
			c.pdf.SetX(x)
			c.pdf.CellFormat(w, h, c.fit(col.value(it), w), "", 0, col.align, false, 0, "")
			x += w
		}
		c.pdf.SetXY(c.m, c.pdf.GetY()+h)
	}
	if more > 0 {
		c.pdf.CellFormat(c.inner(), h, fmt.Sprintf("and %d more items", more), "", 2, "L", false, 0, "")
	}
}

func (c *customsDoc) output() ([]byte, error) {
	var buf bytes.Buffer
	if err := c.pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("label: rendering the customs document: %w", err)
	}
	return buf.Bytes(), nil
}

func (c *customsDoc) money(v int64) string { return Money(v, c.d.Decimals) + " " + c.d.Currency }

// postalColumns are the CN22/CN23 item columns.
func (c *customsDoc) postalColumns() []column {
	return []column{
		{"Description of contents", 0.30, "L", func(it CustomsItem) string { return it.Description }},
		{"Qty", 0.06, "R", func(it CustomsItem) string { return fmt.Sprint(it.Quantity) }},
		{"Weight", 0.14, "R", func(it CustomsItem) string { return Weight(it.NetGrams) }},
		{"Value", 0.20, "R", func(it CustomsItem) string { return c.money(it.Value) }},
		{"HS code", 0.18, "R", func(it CustomsItem) string { return it.HSCode }},
		{"Origin", 0.12, "R", func(it CustomsItem) string { return it.Origin }},
	}
}

func checkCustoms(d CustomsData) error {
	if len(d.Items) == 0 {
		return errors.New("label: a customs document needs items")
	}
	return nil
}

// The declaration the sender signs on a CN22 and a CN23 (UPU wording).
const postalDeclaration = "I certify that the particulars given in this customs declaration are correct and that this item does not contain any dangerous article prohibited by legislation or by postal or customs regulations."

// postal draws a CN22 or a CN23: title, parties, categories, items,
// totals and the declaration.
func (c *customsDoc) postal(form string, maxLines, perRow, maxRows int) {
	c.font("B", 11)
	c.pdf.SetXY(c.m, c.m)
	half := c.inner() / 2
	c.pdf.CellFormat(half, 5*c.scale, "CUSTOMS DECLARATION", "", 0, "L", false, 0, "")
	c.pdf.CellFormat(half, 5*c.scale, form, "", 2, "R", false, 0, "")
	c.pdf.SetX(c.m)
	c.font("", 7)
	c.line(c.inner(), 3.2, "May be opened officially. Shipment "+c.d.ShipmentID, "L")
	c.line(c.inner(), 3.2, "Items "+strings.Join(c.d.TrackingNumbers, ", "), "L")
	c.rule()
	c.parties(maxLines)
	c.rule()
	c.boxes(perRow)
	c.rule()
	c.table(c.postalColumns(), maxRows)
	c.rule()
	net, value := c.d.totals()
	c.font("B", 8)
	c.line(c.inner(), 4, "Total value "+c.money(value), "L")
	c.font("", 7.5)
	c.line(c.inner(), 3.6, "Net weight "+Weight(net)+"   Gross weight "+Weight(c.d.GrossGrams), "L")
	c.font("", 7)
	if c.d.InvoiceNumber != "" {
		c.line(c.inner(), 3.4, "Invoice "+c.d.InvoiceNumber, "L")
	}
	if c.d.ExporterEORI != "" || c.d.ImporterVAT != "" {
		c.line(c.inner(), 3.4, strings.TrimSpace(field("Exporter EORI", c.d.ExporterEORI)+" "+field("Importer VAT", c.d.ImporterVAT)), "L")
	}
	c.rule()
	c.font("", 6.5)
	c.pdf.MultiCell(c.inner(), 2.9*c.scale, postalDeclaration, "", "L", false)
	c.font("", 7)
	c.line(c.inner(), 3.6, "Date "+c.d.Date.UTC().Format("2006-01-02")+"     Sender's signature", "L")
}

func field(name, v string) string {
	if v == "" {
		return ""
	}
	return name + " " + v
}

// CN22 renders the UPU CN22 customs declaration on one A6 page, the
// label's size, to stick on the parcel. It has room for five items; more
// are summed up in a last line.
func CN22(d CustomsData) ([]byte, error) {
	if err := checkCustoms(d); err != nil {
		return nil, err
	}
	c := newCustomsDoc(d, "CN 22", pageW, pageH, margin, 1)
	c.postal("CN 22", 3, 2, 5)
	return c.output()
}

// A4 in millimetres and the margin of the A4 documents.
const (
	a4W, a4H = 210.0, 297.0
	a4Margin = 15.0
)

// CN23 renders the UPU CN23 customs declaration on one A4 page, with room
// for 30 items.
func CN23(d CustomsData) ([]byte, error) {
	if err := checkCustoms(d); err != nil {
		return nil, err
	}
	c := newCustomsDoc(d, "CN 23", a4W, a4H, a4Margin, 1.3)
	c.postal("CN 23", 5, 3, 30)
	return c.output()
}

// CommercialInvoice renders the commercial invoice on one A4 page, with
// room for 30 items: seller and buyer with their VAT and EORI numbers,
// the terms of delivery (incoterm), the reason for export and the items
// with their HS codes, origins, weights and values.
func CommercialInvoice(d CustomsData) ([]byte, error) {
	if err := checkCustoms(d); err != nil {
		return nil, err
	}
	c := newCustomsDoc(d, "Commercial invoice", a4W, a4H, a4Margin, 1.3)
	c.pdf.SetXY(c.m, c.m)
	c.font("B", 14)
	c.line(c.inner(), 6, "COMMERCIAL INVOICE", "L")
	c.font("", 8)
	for _, l := range []string{
		"Invoice number: " + d.InvoiceNumber, "Date: " + d.Date.UTC().Format("2006-01-02"),
		"Shipment: " + d.ShipmentID, "Tracking numbers: " + strings.Join(d.TrackingNumbers, ", "),
		"Reason for export: " + d.ContentsType, "Terms of delivery: " + d.Incoterm, "Currency: " + d.Currency,
	} {
		c.line(c.inner(), 3.6, l, "L")
	}
	c.rule()
	c.parties(5)
	half := c.inner() / 2
	y := c.pdf.GetY() + 1
	c.font("", 7.5)
	c.pdf.SetXY(c.m, y)
	c.line(half, 3.4, strings.TrimSpace(field("VAT", d.ExporterVAT)+"  "+field("EORI", d.ExporterEORI)), "L")
	c.pdf.SetXY(c.m+half, y)
	c.line(half, 3.4, strings.TrimSpace(field("VAT", d.ImporterVAT)+"  "+field("EORI", d.ImporterEORI)), "L")
	c.pdf.SetX(c.m)
	c.rule()
	cols := []column{
		{"Description", 0.31, "L", func(it CustomsItem) string { return it.Description }},
		{"HS code", 0.12, "L", func(it CustomsItem) string { return it.HSCode }},
		{"Origin", 0.08, "L", func(it CustomsItem) string { return it.Origin }},
		{"Qty", 0.07, "R", func(it CustomsItem) string { return fmt.Sprint(it.Quantity) }},
		{"Net weight", 0.12, "R", func(it CustomsItem) string { return Weight(it.NetGrams) }},
		{"Unit value", 0.15, "R", func(it CustomsItem) string {
			if it.Quantity <= 0 {
				return ""
			}
			return Money(it.Value/int64(it.Quantity), d.Decimals)
		}},
		{"Value", 0.15, "R", func(it CustomsItem) string { return Money(it.Value, d.Decimals) }},
	}
	c.table(cols, 30)
	c.rule()
	net, value := d.totals()
	c.font("B", 8)
	c.line(c.inner(), 4, "Total value: "+c.money(value), "R")
	c.font("", 8)
	c.line(c.inner(), 3.6, "Total net weight: "+Weight(net)+"   Gross weight: "+Weight(d.GrossGrams), "R")
	c.pdf.SetXY(c.m, c.pdf.GetY()+6)
	c.font("", 7.5)
	c.pdf.MultiCell(c.inner(), 3.6*c.scale, "I declare that the information on this invoice is true and correct and that the contents of this shipment are as stated above.", "", "L", false)
	c.line(c.inner(), 3.6, "Signature ______________________", "L")
	return c.output()
}
