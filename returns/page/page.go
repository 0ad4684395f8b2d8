// Package page renders the customer's return status page: the page a
// return's statusUrl points at. It is plain html/template output, with no
// script, in every language of the message catalog (internal/i18n:
// English, Swedish, Norwegian Bokmål, Danish, Finnish and German). The
// language is the first of these that matches: the locale the return
// carries (the customer's return request, else the order), the link's
// ?locale=, the browser's Accept-Language; English otherwise. Amounts and
// dates are written in that language as on every customer page
// (i18n.Money, i18n.Date), dates in the site's time zone.
//
// While the parcel is still with the customer, the page says how to send
// it back: the return label to download (a PDF under the page's own
// token) with a QR code of its tracking number to show at a drop-off
// point that prints labels, and the return carrier's drop-off points
// nearest to the delivery address with their opening hours.
//
// The package writes to an io.Writer and knows nothing of HTTP; httpapi
// serves it at returns.StatusPagePath + token.
package page

import (
	"bytes"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"
	"sync"

	"github.com/boombuler/barcode/qr"
	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/returns"
)

//go:embed status.html.tmpl
var files embed.FS

var tmpl = template.Must(template.New("status.html.tmpl").ParseFS(files, "status.html.tmpl"))

// Language picks the page language from prefs, best first: each a locale
// ("sv-SE") or an Accept-Language header value; empty and malformed ones
// are skipped. Call it with the return's locale, the link's ?locale= and
// the browser's Accept-Language, in that order. The region of the
// preference that matched is kept, so numbers follow it.
func Language(prefs ...string) language.Tag { return i18n.Match(prefs...) }

// step is one stage of the progress bar.
type step struct {
	Label   string
	Done    bool
	Current bool
}

type itemView struct {
	Title    string
	Quantity int
	Status   string
	Price    string
	// Reason is the line's reasons in the page's language.
	Reason    string
	Complaint *complaintView
}

type labelView struct {
	TrackingNumber string
	URL            string
	// QR is a data: URL of a PNG QR code of the tracking number.
	QR     template.URL
	QRSize int
}

type dropOffView struct {
	Name     string
	Address  string
	Distance string
	Hours    []string
}

type view struct {
	Lang         string
	T            map[string]string
	Found        bool
	Expired      bool
	ReturnID     uint64
	OrderID      string
	Status       string
	StatusCode   string
	Created      string
	Steps        []step
	Items        []itemView
	Costs        string
	Refund       string
	RefundNote   string
	SendBack     bool
	Label        *labelView
	LabelPending bool
	DropOffs     []dropOffView
	// Complaints are the lines a customer may complain about or add
	// photos to, and ComplaintReasons the catalog's reasons to pick.
	Complaints       []complaintView
	ComplaintReasons []reasonOption
	PhotosHint       string
	PhotosError      string
	// HasReasons shows the reason column: some line has a reason.
	HasReasons bool
}

// Render writes the status page v in the language tag.
func Render(w io.Writer, tag language.Tag, v returns.StatusPageView) error {
	out, err := pageView(tag, v)
	if err != nil {
		return err
	}
	return tmpl.Execute(w, out)
}

func pageView(tag language.Tag, sp returns.StatusPageView) (view, error) {
	t := texts(tag)
	loc := i18n.Zone(sp.TimeZone)
	money := func(a returns.Amount, code string) string { return i18n.MoneyScale(tag, a.Minor, a.Scale, code) }
	r := sp.Return
	v := view{
		Lang: htmlLang(tag), T: t, Found: true, ReturnID: r.ID, OrderID: r.Order.ForeignID,
		Status: t["status_"+string(r.Status)], StatusCode: string(r.Status),
		Created: i18n.Date(tag, r.CreatedAt.Time(), loc),
		Costs:   money(r.ReturnCosts.TotalCost, r.ReturnCosts.CurrencyCode),
		Refund:  money(r.CalculatedRefund.TotalRefundAmount, r.CalculatedRefund.CurrencyCode),
	}
	if len(r.RefundTransactions) > 0 {
		rt := r.RefundTransactions[len(r.RefundTransactions)-1]
		v.Refund = money(rt.TotalAmount, rt.CurrencyCode)
		v.RefundNote = t["refund_"+string(rt.Status)]
	} else {
		v.RefundNote = t["refund_estimate"]
	}
	stage := map[returns.ReturnStatus]int{
		returns.StatusAwaitingReturn: 0, returns.StatusInTransit: 1,
		returns.StatusAwaitingRefund: 2, returns.StatusAwaitingExchange: 2, returns.StatusCompleted: 3,
	}[r.Status]
	for i, key := range []string{"step_registered", "step_transit", "step_inspected", "step_completed"} {
		v.Steps = append(v.Steps, step{Label: t[key], Done: i <= stage, Current: i == stage})
	}
	for _, it := range r.Items {
		title := it.ProductVariant.ProductTitle
		if it.ProductVariant.VariantTitle != "" {
			title += " – " + it.ProductVariant.VariantTitle
		}
		if title == "" {
			title = it.ProductVariant.SKU
		}
		status := t["item_"+string(it.Status)]
		if it.ExchangeSKU != "" {
			status += " · " + i18n.Text(tag, "returns.item.exchange", it.ExchangeSKU)
		}
		iv := itemView{Title: title, Quantity: it.Quantity, Status: status,
			Price: money(it.PurchasePriceAmount.Amount, it.PurchasePriceAmount.CurrencyCode), Reason: reasonText(tag, sp.Reasons, it.ReturnReasons)}
		if c := complaintOf(tag, t, sp, it, title); c != nil {
			iv.Complaint = c
			v.Complaints = append(v.Complaints, *c)
		}
		v.Items = append(v.Items, iv)
		v.HasReasons = v.HasReasons || iv.Reason != ""
	}
	if len(v.Complaints) > 0 {
		for _, r := range sp.Reasons.Complaint {
			v.ComplaintReasons = append(v.ComplaintReasons, reasonOption{ID: r.ID, Text: sp.Reasons.Text(r.DisplayName, tag.String())})
		}
		v.PhotosHint = i18n.Text(tag, "returns.complaint.photos", returns.MaxComplaintImages, returns.MaxComplaintImageBytes>>20)
		v.PhotosError = i18n.Text(tag, "returns.complaint.error", returns.MaxComplaintImageBytes>>20, returns.MaxComplaintImages)
	}
	if l := sp.Label; l != nil {
		code, size, err := qrDataURL(l.TrackingNumber)
		if err != nil {
			return view{}, err
		}
		v.Label = &labelView{TrackingNumber: l.TrackingNumber, URL: l.Path, QR: code, QRSize: size}
	}
	v.LabelPending = sp.LabelPending
	for _, d := range sp.DropOffs {
		v.DropOffs = append(v.DropOffs, dropOffView{Name: d.Name, Address: oneLine(d.Address),
			Distance: distance(tag, d.Meters), Hours: hours(tag, d.Hours)})
	}
	v.SendBack = v.Label != nil || v.LabelPending || len(sp.DropOffs) > 0
	return v, nil
}

// RenderNotFound writes the page shown for an unknown token. It says no
// more than that the link is not valid.
func RenderNotFound(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: htmlLang(tag), T: texts(tag)})
}

// RenderExpired writes the page shown for a link whose token expired or
// was replaced: it says so and tells the customer to ask the shop for a
// new link, and shows nothing of the return.
func RenderExpired(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: htmlLang(tag), T: texts(tag), Expired: true})
}

// htmlLang is the page's lang attribute: the language and, when the
// preference named one, its region ("sv-SE"), which the matcher keeps as
// a region override ("sv-u-rg-sezzzz").
func htmlLang(tag language.Tag) string {
	base, _ := tag.Base()
	if rg := tag.TypeForKey("rg"); len(rg) == 6 {
		if region, err := language.ParseRegion(rg[:2]); err == nil {
			if t, err := language.Compose(base, region); err == nil {
				return t.String()
			}
		}
	}
	return base.String()
}

// distance is metres (to ten) under a kilometre, else kilometres with one
// decimal, in the page's language.
func distance(tag language.Tag, m float64) string {
	if m < 1000 {
		return i18n.Text(tag, "returns.dropoff.m", int(math.Round(m/10)*10))
	}
	return i18n.Text(tag, "returns.dropoff.km", m/1000)
}

var days = []string{"mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// hours writes opening hours a line per run of days with the same hours
// ("Mon–Fri 08:00–20:00"), in the page's language. No hours at all means
// always open.
func hours(tag language.Tag, h map[string][]string) []string {
	if h == nil {
		return []string{i18n.Text(tag, "returns.dropoff.always_open")}
	}
	of := func(d string) string {
		if len(h[d]) == 0 {
			return i18n.Text(tag, "returns.dropoff.closed")
		}
		return strings.ReplaceAll(strings.Join(h[d], ", "), "-", "–")
	}
	var out []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && of(days[j+1]) == of(days[i]) {
			j++
		}
		name := i18n.Text(tag, "day."+days[i])
		if j > i {
			name += "–" + i18n.Text(tag, "day."+days[j])
		}
		out = append(out, name+" "+of(days[i]))
		i = j + 1
	}
	return out
}

// oneLine is an address on one line: street lines, postal code and city.
func oneLine(a returns.Address) string {
	parts := append([]string{}, a.AddressLines...)
	if pc := strings.TrimSpace(a.PostalCode + " " + a.City); pc != "" {
		parts = append(parts, pc)
	}
	return strings.Join(parts, ", ")
}

// qrModule is the size one QR module is shown at, in CSS pixels; qrQuiet
// the quiet zone in modules that scanners need around the symbol.
const (
	qrModule = 6
	qrQuiet  = 4
)

// qrDataURL draws a QR code of s (error correction M, the usual choice for
// a code shown on a phone screen) with its quiet zone as a PNG of one
// pixel a module, as a data: URL, and returns the size to show it at: the
// page scales it up without smoothing (image-rendering: pixelated), which
// keeps the PNG at a few hundred bytes and its encoding cheap. The QR
// encoder is the barcode library the labels already use for Code 128.
func qrDataURL(s string) (template.URL, int, error) {
	code, err := qr.Encode(s, qr.M, qr.Auto)
	if err != nil {
		return "", 0, fmt.Errorf("page: QR code of %q: %w", s, err)
	}
	n := code.Bounds().Dx()
	img := image.NewGray(image.Rect(0, 0, n+2*qrQuiet, n+2*qrQuiet))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := range n {
		for x := range n {
			if c := color.GrayModel.Convert(code.At(x, y)).(color.Gray); c.Y < 0x80 {
				img.SetGray(x+qrQuiet, y+qrQuiet, color.Gray{})
			}
		}
	}
	var b bytes.Buffer
	if err := pngEncoder.Encode(&b, img); err != nil {
		return "", 0, err
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())), (n + 2*qrQuiet) * qrModule, nil
}

// pngEncoder reuses its compressor between pages: a new one allocates
// most of a megabyte.
var pngEncoder = png.Encoder{BufferPool: &pngBuffers{}}

type pngBuffers struct{ p sync.Pool }

func (b *pngBuffers) Get() *png.EncoderBuffer {
	e, _ := b.p.Get().(*png.EncoderBuffer)
	return e
}

func (b *pngBuffers) Put(e *png.EncoderBuffer) { b.p.Put(e) }

// texts are the page's texts in the language of tag, keyed without the
// "returns." prefix and with "_" for "." so templates can name them
// (.T.col_item). The catalog's languages are prepared once.
func texts(tag language.Tag) map[string]string {
	base, _ := tag.Base()
	if t, ok := prepared[base]; ok {
		return t
	}
	return pageTexts(tag)
}

var prepared = func() map[language.Base]map[string]string {
	m := map[language.Base]map[string]string{}
	for _, tag := range i18n.Supported {
		base, _ := tag.Base()
		m[base] = pageTexts(tag)
	}
	return m
}()

func pageTexts(tag language.Tag) map[string]string {
	all := i18n.Texts(tag, "returns.")
	out := make(map[string]string, len(all))
	for k, v := range all {
		out[strings.ReplaceAll(strings.TrimPrefix(k, "returns."), ".", "_")] = v
	}
	return out
}
