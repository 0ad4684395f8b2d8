package label_test

import (
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

// TestPDFRastersAndScans renders page 1 of a label with poppler's
// pdftoppm, as a printer driver would, and scans the barcode off the
// pixels: the strongest check that the label prints and the barcode reads
// back. It skips when pdftoppm is not installed, unless
// DELIVERYKIT_REQUIRE_BROWSER=1 (CI installs poppler-utils).
func TestPDFRastersAndScans(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		if os.Getenv("DELIVERYKIT_REQUIRE_BROWSER") == "1" {
			t.Fatal("pdftoppm (poppler-utils) is required but not installed")
		}
		t.Skip("pdftoppm (poppler-utils) is not installed; the pure-Go structure checks still ran")
	}
	pdf, err := label.PDF(data())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "label.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-png", "-r", "300", "-f", "1", "-l", "1", "-singlefile", in, filepath.Join(dir, "page")).CombinedOutput()
	if err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, out)
	}
	f, err := os.Open(filepath.Join(dir, "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	// A6 at 300 dpi is 1240 × 1748 pixels.
	if b.Dx() < 1230 || b.Dx() > 1250 || b.Dy() < 1738 || b.Dy() > 1758 {
		t.Errorf("page is %d×%d px, want A6 at 300 dpi", b.Dx(), b.Dy())
	}
	scanned := map[string]int{}
	for y := b.Min.Y + b.Dy()*2/5; y < b.Max.Y; y += 4 {
		w := rowWidths(img, y)
		if len(w) < 40 {
			continue // not a row through the barcode
		}
		if s, err := labeltest.DecodeBars(w); err == nil {
			scanned[s]++
		}
	}
	if len(scanned) != 1 || scanned["CP000000014SE"] < 10 {
		t.Errorf("scanned %v, want CP000000014SE on many rows and nothing else", scanned)
	}
}

// rowWidths returns the alternating dark and light run lengths of one
// pixel row, from the first dark pixel to the last.
func rowWidths(img image.Image, y int) []float64 {
	b := img.Bounds()
	var runs []float64
	dark, run, started := true, 0, false
	for x := b.Min.X; x < b.Max.X; x++ {
		r, g, bl, _ := img.At(x, y).RGBA()
		d := (r+g+bl)/3 < 0x8000
		if !started {
			if !d {
				continue
			}
			started = true
		}
		if d != dark {
			runs = append(runs, float64(run))
			dark, run = d, 0
		}
		run++
	}
	if !started {
		return nil
	}
	if dark { // a trailing light run is margin, not part of the symbol
		runs = append(runs, float64(run))
	}
	return runs
}
