package label

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"github.com/go-pdf/fpdf"
)

// ManifestData is what a manifest shows: the carrier, the pickup date and
// every parcel handed over, with the totals the driver signs for.
type ManifestData struct {
	ID          string
	CarrierName string
	// Sender is the site's name as the carrier knows it.
	Sender     string
	PickupDate string
	// Date is the creation date of the PDF (see the package's caveat).
	Date    time.Time
	Parcels []ManifestParcel
}

// ManifestParcel is one line of a manifest.
type ManifestParcel struct {
	TrackingNumber string
	// Reference is the parcel's shipment, as the sender knows it.
	Reference   string
	WeightGrams int32
}

// The manifest's table: a row per parcel, its tracking number as a
// Code 128 barcode wide enough for a hand scanner (0.33 mm modules at
// most), with the number, the reference and the weight beside it.
const (
	manifestRowH  = 17.0
	manifestBarH  = 10.0
	manifestBarW  = 80.0
	manifestFoot  = 22.0 // the totals and the signature line
	manifestTitle = "Manifest"
)

// ManifestPDF renders a manifest as an A4 PDF of as many pages as its
// parcels need, each page numbered; the totals and the driver's
// signature line end the last one.
func ManifestPDF(d ManifestData) ([]byte, error) {
	if len(d.Parcels) == 0 {
		return nil, errors.New("label: a manifest needs parcels")
	}
	bars := make([][]bool, len(d.Parcels))
	var weight int64
	for i, p := range d.Parcels {
		b, err := BarcodeModules(p.TrackingNumber)
		if err != nil {
			return nil, err
		}
		bars[i] = b
		weight += int64(p.WeightGrams)
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{OrientationStr: "P", UnitStr: "mm", Size: fpdf.SizeType{Wd: a4W, Ht: a4H}})
	pdf.SetCatalogSort(true)
	pdf.SetCreationDate(d.Date)
	pdf.SetModificationDate(d.Date)
	pdf.SetProducer("deliverykit", false)
	pdf.SetTitle(manifestTitle+" "+d.ID, false)
	pdf.SetMargins(a4Margin, a4Margin, a4Margin)
	pdf.SetAutoPageBreak(false, 0)
	texts := []string{d.CarrierName, d.Sender}
	for _, p := range d.Parcels {
		texts = append(texts, p.Reference)
	}
	fs := labelFonts(pdf, texts...)
	w := a4W - 2*a4Margin
	c := &customsDoc{pdf: pdf, fs: fs, w: a4W, m: a4Margin, scale: 1}

	// Rows per page: the first page has the header, the last the footer.
	usable := a4H - 2*a4Margin - 8 // the page number at the foot
	first := int((usable - 40 - 6) / manifestRowH)
	rest := int((usable - 6) / manifestRowH)
	pages := 1
	if n := len(d.Parcels) - first; n > 0 {
		pages += (n + rest - 1) / rest
	}
	row, page := 0, 0
	newPage := func() {
		page++
		pdf.AddPage()
		pdf.SetXY(a4Margin, a4H-a4Margin)
		pdf.SetFont(fs.sans, "", 8)
		pdf.CellFormat(w, 4, fs.tr(fmt.Sprintf("%s %s · page %d of %d", manifestTitle, d.ID, page, pages)), "", 0, "R", false, 0, "")
		pdf.SetXY(a4Margin, a4Margin)
	}
	newPage()
	c.font("B", 18)
	c.line(w, 9, manifestTitle+" · "+d.CarrierName, "L")
	c.font("", 10)
	c.line(w, 5, "Pickup date: "+d.PickupDate, "L")
	if d.Sender != "" {
		c.line(w, 5, "Sender: "+d.Sender, "L")
	}
	c.line(w, 5, "Manifest: "+d.ID, "L")
	c.line(w, 5, fmt.Sprintf("Parcels: %d    Total weight: %s", len(d.Parcels), WeightTotal(weight)), "L")
	c.rule()
	tableHead := func() {
		c.font("B", 8)
		y := pdf.GetY()
		pdf.SetXY(a4Margin, y)
		pdf.CellFormat(10, 5, "#", "", 0, "L", false, 0, "")
		pdf.CellFormat(manifestBarW+5, 5, "Tracking number", "", 0, "L", false, 0, "")
		pdf.CellFormat(w-manifestBarW-15-25, 5, "Shipment", "", 0, "L", false, 0, "")
		pdf.CellFormat(25, 5, "Weight", "", 0, "R", false, 0, "")
		pdf.SetXY(a4Margin, y+6)
	}
	tableHead()
	perPage := first
	for i, p := range d.Parcels {
		if row == perPage {
			newPage()
			tableHead()
			row, perPage = 0, rest
		}
		y := pdf.GetY()
		module := min(manifestBarW/float64(len(bars[i])), 0.33)
		drawBars(pdf, bars[i], a4Margin+10, y+1, module, manifestBarH)
		c.font("", 9)
		pdf.SetXY(a4Margin, y+1)
		pdf.CellFormat(10, 5, fmt.Sprint(i+1), "", 0, "L", false, 0, "")
		pdf.SetXY(a4Margin+10, y+1+manifestBarH+0.5)
		pdf.SetFont("Courier", "B", 9)
		pdf.CellFormat(manifestBarW, 4, p.TrackingNumber, "", 0, "L", false, 0, "")
		c.font("", 9)
		refW := w - manifestBarW - 15 - 25
		pdf.SetXY(a4Margin+10+manifestBarW+5, y+1)
		pdf.CellFormat(refW, 5, c.fit(p.Reference, refW), "", 0, "L", false, 0, "")
		pdf.CellFormat(25, 5, Weight(p.WeightGrams), "", 0, "R", false, 0, "")
		pdf.SetDrawColor(200, 200, 200)
		pdf.Line(a4Margin, y+manifestRowH-0.5, a4W-a4Margin, y+manifestRowH-0.5)
		pdf.SetDrawColor(0, 0, 0)
		pdf.SetXY(a4Margin, y+manifestRowH)
		row++
	}
	if pdf.GetY()+manifestFoot > a4H-a4Margin-6 {
		newPage()
	}
	c.font("B", 10)
	pdf.SetXY(a4Margin, pdf.GetY()+3)
	c.line(w, 6, fmt.Sprintf("Total: %d parcels, %s", len(d.Parcels), WeightTotal(weight)), "L")
	c.font("", 9)
	pdf.SetXY(a4Margin, pdf.GetY()+6)
	c.line(w, 5, "Received by the driver (name, signature, time): ______________________________________", "L")
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("label: rendering the manifest: %w", err)
	}
	return buf.Bytes(), nil
}

// WeightTotal formats a total of grams, which may exceed an int32, as
// kilograms with two decimals.
func WeightTotal(grams int64) string {
	cg := (grams + 5) / 10
	return fmt.Sprintf("%d.%02d kg", cg/100, cg%100)
}
