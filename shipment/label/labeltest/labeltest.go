// Package labeltest inspects rendered labels the way a warehouse scanner
// and a PDF reader would, without external tools: CheckPDF verifies the
// structure of a PDF file (header, cross-reference table, trailer, page
// size), PDFBarcodes finds the Code 128 barcodes drawn as vector bars
// on its pages and decodes them, checksum included, and Texts reads the
// text shown on them.
//
// The label package's tests use it, and so can an integration that wants
// to verify labels it fetched.
package labeltest

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/text/encoding/charmap"
)

// CheckPDF returns an error describing the first structural problem of a
// PDF file: a missing header or end marker, a startxref that does not point
// at the cross-reference table, an in-use object whose offset does not
// point at "N G obj", a trailer without /Root or with a wrong /Size.
func CheckPDF(pdf []byte) error {
	if !bytes.HasPrefix(pdf, []byte("%PDF-1.")) {
		return errors.New("no %PDF-1.x header")
	}
	if !bytes.HasSuffix(bytes.TrimRight(pdf, "\r\n"), []byte("%%EOF")) {
		return errors.New("no %%EOF at the end")
	}
	m := regexp.MustCompile(`startxref\s+(\d+)\s+%%EOF\s*$`).FindSubmatch(pdf)
	if m == nil {
		return errors.New("no startxref before %%EOF")
	}
	off, _ := strconv.Atoi(string(m[1]))
	if off >= len(pdf) || !bytes.HasPrefix(pdf[off:], []byte("xref")) {
		return fmt.Errorf("startxref %d does not point at the xref table", off)
	}
	rest := pdf[off+len("xref"):]
	hm := regexp.MustCompile(`^\s*(\d+) (\d+)\r?\n`).FindSubmatch(rest)
	if hm == nil {
		return errors.New("malformed xref subsection header")
	}
	first, _ := strconv.Atoi(string(hm[1]))
	count, _ := strconv.Atoi(string(hm[2]))
	rest = rest[len(hm[0]):]
	if len(rest) < 20*count {
		return errors.New("xref table is truncated")
	}
	for i := range count {
		e := string(rest[20*i : 20*i+20])
		if len(e) != 20 || (e[17] != 'n' && e[17] != 'f') {
			return fmt.Errorf("xref entry %d is malformed: %q", first+i, e)
		}
		if e[17] == 'f' {
			continue
		}
		o, err := strconv.Atoi(e[:10])
		if err != nil || o >= len(pdf) {
			return fmt.Errorf("xref entry %d: bad offset %q", first+i, e[:10])
		}
		want := fmt.Sprintf("%d 0 obj", first+i)
		if !bytes.HasPrefix(pdf[o:], []byte(want)) {
			return fmt.Errorf("xref entry %d points at %q, not %q", first+i, snippet(pdf[o:]), want)
		}
	}
	trailer := rest[20*count:]
	if !bytes.Contains(trailer, []byte("trailer")) || !bytes.Contains(trailer, []byte("/Root ")) {
		return errors.New("trailer without /Root")
	}
	sm := regexp.MustCompile(`/Size (\d+)`).FindSubmatch(trailer)
	if sm == nil || string(sm[1]) != strconv.Itoa(first+count) {
		return fmt.Errorf("trailer /Size does not match the %d xref entries", first+count)
	}
	return nil
}

func snippet(b []byte) string {
	if len(b) > 20 {
		b = b[:20]
	}
	return string(b)
}

// MediaBoxes returns the page sizes (width, height in points) declared by
// the PDF's /MediaBox entries.
func MediaBoxes(pdf []byte) [][2]float64 {
	var out [][2]float64
	for _, m := range regexp.MustCompile(`/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]`).FindAllSubmatch(pdf, -1) {
		w, _ := strconv.ParseFloat(string(m[1]), 64)
		h, _ := strconv.ParseFloat(string(m[2]), 64)
		out = append(out, [2]float64{w, h})
	}
	return out
}

// Streams returns the PDF's content streams, inflated when they are
// FlateDecode-compressed.
func Streams(pdf []byte) ([][]byte, error) {
	var out [][]byte
	re := regexp.MustCompile(`(?s)<<([^>]*?)>>\s*stream\r?\n`)
	for _, loc := range re.FindAllSubmatchIndex(pdf, -1) {
		dict := string(pdf[loc[2]:loc[3]])
		lm := regexp.MustCompile(`/Length (\d+)`).FindStringSubmatch(dict)
		if lm == nil {
			continue
		}
		n, _ := strconv.Atoi(lm[1])
		start := loc[1]
		if start+n > len(pdf) {
			return nil, fmt.Errorf("stream at %d runs past the end", start)
		}
		data := pdf[start : start+n]
		if !bytes.HasPrefix(bytes.TrimLeft(pdf[start+n:], "\r\n"), []byte("endstream")) {
			return nil, fmt.Errorf("stream at %d: /Length %d does not end at endstream", start, n)
		}
		if strings.Contains(dict, "/FlateDecode") {
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("stream at %d: %w", start, err)
			}
			if data, err = io.ReadAll(zr); err != nil {
				return nil, fmt.Errorf("stream at %d: %w", start, err)
			}
		}
		out = append(out, data)
	}
	return out, nil
}

type rect struct{ x, y, w, h float64 }

var rectOp = regexp.MustCompile(`(-?[\d.]+) (-?[\d.]+) (-?[\d.]+) (-?[\d.]+) re\s+f\b`)

// PDFBarcodes decodes every Code 128 barcode drawn as filled rectangles in
// the PDF's content streams: bars of one barcode share their vertical
// position and height.
func PDFBarcodes(pdf []byte) ([]string, error) {
	streams, err := Streams(pdf)
	if err != nil {
		return nil, err
	}
	rows := map[[2]string][]rect{}
	var keys [][2]string
	for _, s := range streams {
		for _, m := range rectOp.FindAllSubmatch(s, -1) {
			var v [4]float64
			for i := range v {
				v[i], _ = strconv.ParseFloat(string(m[i+1]), 64)
			}
			k := [2]string{string(m[2]), string(m[4])}
			if _, ok := rows[k]; !ok {
				keys = append(keys, k)
			}
			rows[k] = append(rows[k], rect{v[0], v[1], v[2], v[3]})
		}
	}
	var out []string
	for _, k := range keys {
		bars := rows[k]
		if len(bars) < 10 {
			continue // a frame or a rule, not a barcode
		}
		s, err := DecodeBars(bars2widths(bars))
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// bars2widths turns bars (in any order) into alternating bar and space
// widths, starting with a bar.
func bars2widths(bars []rect) []float64 {
	sort.Slice(bars, func(i, j int) bool { return bars[i].x < bars[j].x })
	var w []float64
	for i, b := range bars {
		if i > 0 {
			prev := bars[i-1]
			w = append(w, b.x-(prev.x+prev.w))
		}
		w = append(w, b.w)
	}
	return w
}

// DecodeBars decodes a Code 128 symbol from its element widths (bar,
// space, bar, … in any unit). It checks the start code, the checksum and
// the stop pattern, and reads code sets A, B and C.
func DecodeBars(widths []float64) (string, error) {
	if len(widths) < 6*3+7 {
		return "", fmt.Errorf("code 128: %d elements are too few", len(widths))
	}
	// The narrowest element is one module; the whole symbol is 11 modules
	// per symbol plus 13 for the stop pattern, which gives the exact
	// module width without trusting any single element.
	nsym := (len(widths) - 7) / 6
	total := 0.0
	for _, w := range widths {
		total += w
	}
	module := total / float64(11*nsym+13)
	units := make([]int, len(widths))
	for i, w := range widths {
		units[i] = int(math.Round(w / module))
		if units[i] < 1 || units[i] > 4 {
			return "", fmt.Errorf("code 128: element %d is %.2f modules wide", i, w/module)
		}
	}
	if (len(units)-7)%6 != 0 {
		return "", fmt.Errorf("code 128: %d elements do not make whole symbols", len(units))
	}
	var values []int
	for i := 0; i+6 <= len(units)-7; i += 6 {
		v, ok := patternValue[pattern(units[i:i+6])]
		if !ok {
			return "", fmt.Errorf("code 128: unknown symbol %s at element %d", pattern(units[i:i+6]), i)
		}
		values = append(values, v)
	}
	if pattern(units[len(units)-7:]) != "2331112" {
		return "", errors.New("code 128: no stop pattern")
	}
	if len(values) < 2 {
		return "", errors.New("code 128: no data")
	}
	sum := values[0]
	for i := 1; i < len(values)-1; i++ {
		sum += i * values[i]
	}
	if sum%103 != values[len(values)-1] {
		return "", fmt.Errorf("code 128: checksum %d, want %d", values[len(values)-1], sum%103)
	}
	var set byte
	switch values[0] {
	case 103:
		set = 'A'
	case 104:
		set = 'B'
	case 105:
		set = 'C'
	default:
		return "", fmt.Errorf("code 128: %d is not a start code", values[0])
	}
	var b strings.Builder
	for _, v := range values[1 : len(values)-1] {
		switch {
		case set == 'C' && v < 100:
			fmt.Fprintf(&b, "%02d", v)
		case set != 'C' && v < 96:
			if set == 'A' && v >= 64 {
				b.WriteByte(byte(v - 64))
			} else {
				b.WriteByte(byte(v + 32))
			}
		case v == 99 && set != 'C':
			set = 'C'
		case v == 100 && set != 'B':
			set = 'B'
		case v == 101 && set != 'A':
			set = 'A'
		case v == 102:
			// FNC1: no character
		default:
			return "", fmt.Errorf("code 128: value %d is not supported in code set %c", v, set)
		}
	}
	return b.String(), nil
}

func pattern(u []int) string {
	var b strings.Builder
	for _, x := range u {
		b.WriteByte(byte('0' + x))
	}
	return b.String()
}

// patterns are the element widths of Code 128 symbols 0 to 105
// (ISO/IEC 15417).
var patterns = [...]string{
	"212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
	"221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
	"221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
	"212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
	"231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
	"231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
	"314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
	"112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
	"111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
	"214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
	"114131", "311141", "411131", "211412", "211214", "211232",
}

var patternValue = func() map[string]int {
	m := make(map[string]int, len(patterns))
	for i, p := range patterns {
		m[p] = i
	}
	return m
}()

var (
	fontRes = regexp.MustCompile(`/(F[0-9A-Za-z]*) (\d+) 0 R`)
	textOp  = regexp.MustCompile(`/(F[0-9A-Za-z]*) [\d.]+ Tf|\(((?:[^()\\]|\\(?s:.))*)\)\s*Tj`)
)

// Texts returns the strings the PDF's content streams show (each Tj
// operand, in order), decoded as a reader would: text in a composite
// (Type0) font with Identity-H encoding as UTF-16BE code units, which is
// how the label's embedded TrueType fonts are written, and text in a
// simple font as Windows-1252, the encoding of the PDF core fonts.
func Texts(pdf []byte) ([]string, error) {
	shown, err := texts(pdf)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(shown))
	for i, s := range shown {
		out[i] = s.text
	}
	return out, nil
}

// shownText is a string a content stream shows, in the font resource it
// is shown in.
type shownText struct {
	font string
	text string
}

func texts(pdf []byte) ([]shownText, error) {
	streams, err := Streams(pdf)
	if err != nil {
		return nil, err
	}
	composite := map[string]bool{} // font resource name → Type0
	for _, m := range fontRes.FindAllSubmatch(pdf, -1) {
		dict, _ := object(pdf, string(m[2]))
		composite[string(m[1])] = bytes.Contains(dict, []byte("/Subtype /Type0"))
	}
	var out []shownText
	for _, s := range streams {
		font := ""
		for _, m := range textOp.FindAllSubmatch(s, -1) {
			if m[1] != nil {
				font = string(m[1])
				continue
			}
			raw := unescape(m[2])
			if composite[font] {
				if len(raw)%2 != 0 {
					return nil, fmt.Errorf("text %q in composite font %s has an odd number of bytes", raw, font)
				}
				units := make([]uint16, len(raw)/2)
				for i := range units {
					units[i] = uint16(raw[2*i])<<8 | uint16(raw[2*i+1])
				}
				out = append(out, shownText{font, string(utf16.Decode(units))})
				continue
			}
			t, err := charmap.Windows1252.NewDecoder().Bytes(raw)
			if err != nil {
				return nil, err
			}
			out = append(out, shownText{font, string(t)})
		}
	}
	return out, nil
}

// MissingGlyphs returns the characters shown in an embedded TrueType font
// (FontFile2) that the font has no glyph for, in the order first shown: a
// reader draws those as the font's empty box. Text in fonts that are not
// embedded (the PDF core fonts) is not checked.
func MissingGlyphs(pdf []byte) ([]rune, error) {
	shown, err := texts(pdf)
	if err != nil {
		return nil, err
	}
	fonts := map[string]*sfnt.Font{}
	seen := map[rune]bool{}
	var missing []rune
	var buf sfnt.Buffer
	for _, s := range shown {
		f, ok := fonts[s.font]
		if !ok {
			if f, err = embeddedFont(pdf, s.font); err != nil {
				return nil, err
			}
			fonts[s.font] = f
		}
		if f == nil {
			continue
		}
		for _, r := range s.text {
			if seen[r] {
				continue
			}
			if g, err := f.GlyphIndex(&buf, r); err != nil || g == 0 {
				seen[r] = true
				missing = append(missing, r)
			}
		}
	}
	return missing, nil
}

var (
	refTo                             = func(key string) *regexp.Regexp { return regexp.MustCompile(key + `\s*\[?\s*(\d+) 0 R`) }
	descendant, descriptor, fontFile2 = refTo("/DescendantFonts"), refTo("/FontDescriptor"), refTo("/FontFile2")
)

// embeddedFont parses the TrueType font embedded for the font resource
// name: Type0 → descendant CIDFont → descriptor → FontFile2. It returns
// nil for a font without an embedded TrueType program.
func embeddedFont(pdf []byte, name string) (*sfnt.Font, error) {
	m := regexp.MustCompile(`/` + regexp.QuoteMeta(name) + ` (\d+) 0 R`).FindSubmatch(pdf)
	if m == nil {
		return nil, fmt.Errorf("font resource %s is not defined", name)
	}
	dict, _ := object(pdf, string(m[1]))
	for _, ref := range []*regexp.Regexp{descendant, descriptor, fontFile2} {
		if r := ref.FindSubmatch(dict); r != nil {
			var stream []byte
			dict, stream = object(pdf, string(r[1]))
			if ref == fontFile2 {
				data, err := inflate(dict, stream)
				if err != nil {
					return nil, err
				}
				f, err := sfnt.Parse(data)
				if err != nil {
					return nil, fmt.Errorf("font %s: %w", name, err)
				}
				return f, nil
			}
		}
	}
	return nil, nil
}

// object returns the dictionary and the raw stream (nil when it has none)
// of object n.
func object(pdf []byte, n string) (dict, stream []byte) {
	loc := regexp.MustCompile(`(?s)(?:^|\s)` + n + ` 0 obj\s*<<(.*?)>>\s*(stream\r?\n)?`).FindSubmatchIndex(pdf)
	if loc == nil {
		return nil, nil
	}
	dict = pdf[loc[2]:loc[3]]
	if loc[4] < 0 {
		return dict, nil
	}
	lm := regexp.MustCompile(`/Length (\d+)`).FindSubmatch(dict)
	if lm == nil {
		return dict, nil
	}
	l, _ := strconv.Atoi(string(lm[1]))
	start := loc[5]
	if start+l > len(pdf) {
		return dict, nil
	}
	return dict, pdf[start : start+l]
}

// inflate decompresses a FlateDecode stream.
func inflate(dict, data []byte) ([]byte, error) {
	if !bytes.Contains(dict, []byte("/FlateDecode")) {
		return data, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// unescape reads the escapes of a PDF literal string.
func unescape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		switch c := b[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case '\r', '\n': // a line continuation
			if c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		default:
			if c >= '0' && c <= '7' {
				v, n := 0, 0
				for n < 3 && i+n < len(b) && b[i+n] >= '0' && b[i+n] <= '7' {
					v = v*8 + int(b[i+n]-'0')
					n++
				}
				out = append(out, byte(v))
				i += n - 1
				continue
			}
			out = append(out, c) // \\, \(, \) and unknown escapes
		}
	}
	return out
}
