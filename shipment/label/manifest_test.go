package label_test

import (
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

func manifestData(n int) label.ManifestData {
	d := label.ManifestData{ID: "mfst_000001", CarrierName: "North Parcel", Sender: "Demo Outdoor Åre", PickupDate: "2026-11-20",
		Date: time.Date(2026, 11, 20, 16, 0, 0, 0, time.UTC)}
	for i := range n {
		d.Parcels = append(d.Parcels, label.ManifestParcel{TrackingNumber: fmt.Sprintf("CP%09dSE", i+1), Reference: fmt.Sprintf("ORD-%d", 1000+i), WeightGrams: 1250})
	}
	return d
}

func TestManifestPDFRefusesNothing(t *testing.T) {
	if _, err := label.ManifestPDF(label.ManifestData{ID: "m"}); err == nil {
		t.Error("a manifest without parcels rendered")
	}
	d := manifestData(1)
	d.Parcels[0].TrackingNumber = "Ω"
	if _, err := label.ManifestPDF(d); err == nil {
		t.Error("a tracking number Code 128 cannot encode rendered")
	}
}

// TestManifestPDFRastersAndScans renders a manifest of three pages with
// pdftoppm and scans every parcel's barcode off the pixels; the totals
// read back with pdftotext. It skips without poppler-utils as
// TestPDFRastersAndScans does; DELIVERYKIT_LABEL_PNG_DIR keeps the pages.
func TestManifestPDFRastersAndScans(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		if os.Getenv("DELIVERYKIT_REQUIRE_BROWSER") == "1" {
			t.Fatal("pdftoppm (poppler-utils) is required but not installed")
		}
		t.Skip("pdftoppm (poppler-utils) is not installed")
	}
	d := manifestData(35)
	pdf, err := label.ManifestPDF(d)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := label.ManifestPDF(d)
	if string(again) != string(pdf) {
		t.Error("the same manifest rendered different bytes")
	}
	dir := t.TempDir()
	if keep := os.Getenv("DELIVERYKIT_LABEL_PNG_DIR"); keep != "" {
		dir = keep
	}
	in := filepath.Join(dir, "manifest.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-png", "-r", "300", in, filepath.Join(dir, "manifest")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "manifest-*.png"))
	if len(pages) != 3 {
		t.Fatalf("%d pages, want 3", len(pages))
	}
	scanned := map[string]bool{}
	for _, page := range pages {
		f, err := os.Open(page)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		// A4 at 300 dpi is 2480 × 3508 pixels.
		if b.Dx() < 2470 || b.Dx() > 2490 || b.Dy() < 3498 || b.Dy() > 3518 {
			t.Errorf("%s is %d×%d px, want A4 at 300 dpi", page, b.Dx(), b.Dy())
		}
		// The barcodes' column: 25 mm to 105 mm from the left.
		col := img.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(25*300*10/254, b.Min.Y, 106*300*10/254, b.Max.Y))
		for y := b.Min.Y; y < b.Max.Y; y += 4 {
			if w := rowWidths(col, y); len(w) >= 40 {
				if s, err := labeltest.DecodeBars(w); err == nil {
					scanned[s] = true
				}
			}
		}
	}
	var want, got []string
	for _, p := range d.Parcels {
		want = append(want, p.TrackingNumber)
		if scanned[p.TrackingNumber] {
			got = append(got, p.TrackingNumber)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" || len(scanned) != len(want) {
		t.Errorf("scanned barcodes (-parcels +scanned):\n%s\nall scanned: %d", diff, len(scanned))
	}
	text, err := exec.Command("pdftotext", "-enc", "UTF-8", in, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	for _, s := range []string{"Manifest · North Parcel", "Pickup date: 2026-11-20", "Demo Outdoor Åre", "Total: 35 parcels, 43.75 kg", "mfst_000001 · page 3 of 3"} {
		if !strings.Contains(string(text), s) {
			t.Errorf("pdftotext does not read %q:\n%s", s, text)
		}
	}
}
