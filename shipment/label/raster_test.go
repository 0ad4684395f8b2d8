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

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

// TestPDFRastersAndScans renders page 1 of labels with poppler's
// pdftoppm, as a printer driver would, and scans the barcode off the
// pixels: the strongest check that the label prints and the barcode reads
// back. The receivers' names need Polish, Czech, Turkish, Greek and
// Cyrillic letters; poppler's pdftotext must read them back from the page
// (the embedded fonts map every glyph to its character). It skips when
// pdftoppm is not installed, unless DELIVERYKIT_REQUIRE_BROWSER=1 (CI
// installs poppler-utils). With DELIVERYKIT_LABEL_PNG_DIR set, the pages
// are kept there as PNG files to look at.
func TestPDFRastersAndScans(t *testing.T) {
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		if os.Getenv("DELIVERYKIT_REQUIRE_BROWSER") == "1" {
			t.Fatal("pdftoppm (poppler-utils) is required but not installed")
		}
		t.Skip("pdftoppm (poppler-utils) is not installed; the pure-Go structure checks still ran")
	}
	toText, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("pdftoppm is installed without pdftotext (both are poppler-utils)")
	}
	keep := os.Getenv("DELIVERYKIT_LABEL_PNG_DIR")
	tests := []struct {
		file string
		data label.Data
	}{{"label-sv", data()}}
	for i, n := range unicodeNames {
		tests = append(tests, struct {
			file string
			data label.Data
		}{fmt.Sprintf("label-unicode-%d", i+1), unicodeData(n.name, n.lines)})
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			pdf, err := label.PDF(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if keep != "" {
				dir = keep
			}
			in := filepath.Join(dir, tc.file+".pdf")
			if err := os.WriteFile(in, pdf, 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "-png", "-r", "300", "-f", "1", "-l", "1", "-singlefile", in, filepath.Join(dir, tc.file)).CombinedOutput()
			if err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, out)
			}
			f, err := os.Open(filepath.Join(dir, tc.file+".png"))
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
			if len(scanned) != 1 || scanned[tc.data.TrackingNumber] < 10 {
				t.Errorf("scanned %v, want %s on many rows and nothing else", scanned, tc.data.TrackingNumber)
			}
			text, err := exec.Command(toText, "-enc", "UTF-8", in, "-").Output()
			if err != nil {
				t.Fatalf("pdftotext: %v", err)
			}
			for _, want := range append([]string{tc.data.ReceiverName}, tc.data.ReceiverLines...) {
				if !strings.Contains(string(text), want) {
					t.Errorf("pdftotext does not read %q from the page:\n%s", want, text)
				}
			}
		})
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
