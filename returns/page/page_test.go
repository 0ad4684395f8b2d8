package page

import (
	"bytes"
	"encoding/base64"
	"html"
	"image"
	"image/png"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/returns"
)

func TestLanguage(t *testing.T) {
	tests := []struct {
		prefs []string // the return's locale, ?locale=, Accept-Language
		want  string   // base language
	}{
		{[]string{"", "", ""}, "en"},
		{[]string{"", "sv", "de-DE"}, "sv"},
		{[]string{"", "", "de-AT,de;q=0.9,en;q=0.5"}, "de"},
		{[]string{"", "", "sv-FI"}, "sv"},
		{[]string{"nb-NO", "de", "en"}, "nb"},
		{[]string{"fi-FI", "", ""}, "fi"},
		{[]string{"pl-PL", "da", ""}, "da"},
		{[]string{"", "fr", "fr-FR"}, "en"},
		{[]string{"!!", "", "garbage;;"}, "en"},
	}
	for _, tt := range tests {
		if base, _ := Language(tt.prefs...).Base(); base.String() != tt.want {
			t.Errorf("Language(%q) = %s, want %s", tt.prefs, base, tt.want)
		}
	}
}

func sampleReturn(status returns.ReturnStatus) returns.Return {
	sek := func(m int64) returns.Amount { return returns.Amount{Minor: m, Scale: 2} }
	return returns.Return{
		ID: 7, CreatedAt: returns.Timestamp(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)), Status: status,
		Order:            returns.OrderSummary{ID: 3, ForeignID: "A-1"},
		ReturnCosts:      returns.ReturnCosts{CurrencyCode: "SEK", TotalCost: sek(5950)},
		CalculatedRefund: returns.CalculatedRefund{CurrencyCode: "SEK", TotalRefundAmount: sek(124070)},
		Items: []returns.ReturnItem{{Quantity: 1, Status: returns.ItemAwaitingReturn,
			PurchasePriceAmount: returns.PurchasePrice{CurrencyCode: "SEK", Amount: sek(129990)},
			ProductVariant:      returns.ProductVariant{SKU: "J", ProductTitle: "Jacket <M>", VariantTitle: "Blue"}}},
	}
}

func render(t *testing.T, tag language.Tag, v returns.StatusPageView) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, tag, v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	headerCell = regexp.MustCompile(`<th[^>]*>([^<]*)</th>`)
	tableOf    = func(id string) *regexp.Regexp { return regexp.MustCompile(`(?s)<table id="` + id + `">.*?</table>`) }
)

// headers returns the column headers of the table with id.
func headers(page, id string) []string {
	var out []string
	for _, m := range headerCell.FindAllStringSubmatch(tableOf(id).FindString(page), -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestRender renders the page in every language: status, date and
// amounts in the language's conventions, and a header on every column.
func TestRender(t *testing.T) {
	tests := []struct {
		tag     string
		status  returns.ReturnStatus
		headers []string
		want    []string
	}{
		{"en", returns.StatusAwaitingReturn, []string{"Item", "Quantity", "Price", "Status"}, []string{`<html lang="en">`, "Waiting for your parcel",
			"SEK\u00a01,240.70", "SEK\u00a059.50", "SEK\u00a01,299.90", "Jacket &lt;M&gt; – Blue", "Nov 22, 2026", `<li class="done current">Registered</li>`,
			"expected, if every item is accepted"}},
		{"sv-SE", returns.StatusInTransit, []string{"Artikel", "Antal", "Pris", "Status"}, []string{`<html lang="sv-SE">`, "Ditt paket är på väg till oss",
			"1\u00a0240,70\u00a0kr", "22 nov. 2026", `<li class="done current">På väg</li>`, "Väntas"}},
		{"nb-NO", returns.StatusAwaitingReturn, []string{"Vare", "Antall", "Pris", "Status"}, []string{`<html lang="nb-NO">`, "Vi venter på pakken din",
			"1\u00a0240,70\u00a0SEK", "22. nov. 2026", "Ventes", "Returkostnad"}},
		{"da-DK", returns.StatusAwaitingRefund, []string{"Vare", "Antal", "Pris", "Status"}, []string{`<html lang="da-DK">`, "Kontrolleret, refusionen er på vej",
			"1.240,70\u00a0SEK", "22. nov. 2026", `<li class="done current">Kontrolleret</li>`}},
		{"fi-FI", returns.StatusAwaitingExchange, []string{"Tuote", "Määrä", "Hinta", "Tila"}, []string{`<html lang="fi-FI">`, "Tarkastettu, vaihtotuote on tulossa",
			"1\u00a0240,70\u00a0SEK", "22.11.2026", "Palautuskulut"}},
		{"de-DE", returns.StatusCompleted, []string{"Artikel", "Menge", "Preis", "Status"}, []string{`<html lang="de-DE">`, "Abgeschlossen",
			"1.299,90\u00a0SEK", "22. Nov. 2026", `data-status="COMPLETED"`}},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			page := render(t, Language(tt.tag), returns.StatusPageView{Return: sampleReturn(tt.status)})
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q:\n%s", w, page)
				}
			}
			if diff := cmp.Diff(tt.headers, headers(page, "items")); diff != "" {
				t.Errorf("item table headers (-want +got):\n%s", diff)
			}
			if strings.Contains(page, `id="send-back"`) {
				t.Error("a page with neither label nor drop-off points has a send-back section")
			}
		})
	}
}

// The registration date is the site's calendar date: 23:30 UTC is the
// next day in Stockholm.
func TestRenderTimeZone(t *testing.T) {
	r := sampleReturn(returns.StatusAwaitingReturn)
	r.CreatedAt = returns.Timestamp(time.Date(2026, 11, 22, 23, 30, 0, 0, time.UTC))
	for _, tt := range []struct{ zone, want string }{
		{"Europe/Stockholm", "23 nov. 2026"},
		{"", "22 nov. 2026"},
		{"Mars/Olympus", "22 nov. 2026"}, // unknown: UTC
	} {
		page := render(t, Language("sv-SE"), returns.StatusPageView{Return: r, TimeZone: tt.zone})
		if !strings.Contains(page, tt.want) {
			t.Errorf("zone %q: page lacks %q", tt.zone, tt.want)
		}
	}
}

func TestRenderRefund(t *testing.T) {
	r := sampleReturn(returns.StatusAwaitingRefund)
	r.RefundTransactions = []returns.RefundTransaction{{CurrencyCode: "EUR", Status: returns.TxRefunded, TotalAmount: returns.Amount{Minor: 100, Scale: 2}}}
	tests := []struct{ tag, want string }{
		{"en", `<span id="refund">€1.00</span> (paid out)`},
		{"de", "<span id=\"refund\">1,00\u00a0€</span> (ausgezahlt)"},
		{"fi", "<span id=\"refund\">1,00\u00a0€</span> (maksettu)"},
	}
	for _, tt := range tests {
		if page := render(t, Language(tt.tag), returns.StatusPageView{Return: r}); !strings.Contains(page, tt.want) {
			t.Errorf("%s: refund line %q missing:\n%s", tt.tag, tt.want, page)
		}
	}
}

// sendBack is a page that offers a label and two drop-off points.
func sendBack() returns.StatusPageView {
	return returns.StatusPageView{
		Return: sampleReturn(returns.StatusAwaitingReturn),
		Label:  &returns.ReturnLabel{TrackingNumber: "CP000000014SE", CarrierName: "North Parcel", Path: "/returns/customer/return/rt_1/label.pdf"},
		DropOffs: []returns.DropOffPoint{
			{ID: "np-1", Name: "Kiosk <Centralen>", Address: returns.Address{AddressLines: []string{"Vasagatan 1"}, PostalCode: "111 20", City: "Stockholm", Country: "SE"},
				Hours: map[string][]string{"mon": {"08:00-20:00"}, "tue": {"08:00-20:00"}, "wed": {"08:00-20:00"}, "thu": {"08:00-20:00"}, "fri": {"08:00-20:00"},
					"sat": {"10:00-16:00"}},
				Meters: 434},
			{ID: "np-2", Name: "Locker Norr", Address: returns.Address{PostalCode: "113 22", City: "Stockholm", Country: "SE"}, Meters: 1849},
		},
	}
}

// TestRenderSendBack: the label link, a QR code that scans to the
// tracking number, and the drop-off points with localized opening hours
// and distances under localized headers.
func TestRenderSendBack(t *testing.T) {
	tests := []struct {
		tag     string
		headers []string
		want    []string
	}{
		{"en", []string{"Drop-off point", "Distance", "Opening hours"}, []string{"How to send your parcel back",
			`<a class="button" id="label" href="/returns/customer/return/rt_1/label.pdf" download>Download the return label (PDF)</a>`,
			"<strong>Kiosk &lt;Centralen&gt;</strong><br>Vasagatan 1, 111 20 Stockholm", ">430 m<", ">1.8 km<",
			"<li>Mon–Fri 08:00–20:00</li><li>Sat 10:00–16:00</li><li>Sun closed</li>", "<li>open around the clock</li>"}},
		{"sv", []string{"Inlämningsställe", "Avstånd", "Öppettider"}, []string{"Så skickar du tillbaka paketet", ">1,8 km<",
			"<li>Mån–Fre 08:00–20:00</li><li>Lör 10:00–16:00</li><li>Sön stängt</li>"}},
		{"nb", []string{"Innleveringssted", "Avstand", "Åpningstider"}, []string{"Last ned returetiketten (PDF)", "<li>Man–Fre 08:00–20:00</li>", "<li>Søn stengt</li>", "døgnåpent"}},
		{"da", []string{"Pakkeshop", "Afstand", "Åbningstider"}, []string{"Hent returlabelen (PDF)", "<li>Søn lukket</li>"}},
		{"fi", []string{"Jättöpiste", "Etäisyys", "Aukioloajat"}, []string{"Lataa palautustarra (PDF)", "<li>Su suljettu</li>"}},
		{"de", []string{"Annahmestelle", "Entfernung", "Öffnungszeiten"}, []string{"Rücksendeetikett herunterladen (PDF)", ">1,8 km<", "<li>Mo–Fr 08:00–20:00</li>", "<li>So geschlossen</li>"}},
	}
	for _, tt := range tests {
		t.Run(tt.tag, func(t *testing.T) {
			page := render(t, Language(tt.tag), sendBack())
			for _, w := range tt.want {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q:\n%s", w, page)
				}
			}
			if diff := cmp.Diff(tt.headers, headers(page, "drop-offs")); diff != "" {
				t.Errorf("drop-off table headers (-want +got):\n%s", diff)
			}
			if got := scanQR(t, page); got != "CP000000014SE" {
				t.Errorf("QR code reads %q", got)
			}
		})
	}
}

var qrImage = regexp.MustCompile(`<img src="data:image/png;base64,([^"]+)"`)

// scanQR decodes the page's QR code with a QR reader (gozxing, a port of
// ZXing) from the PNG the page embeds.
func scanQR(t *testing.T, page string) string {
	t.Helper()
	m := qrImage.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no QR image on the page")
	}
	raw, err := base64.StdEncoding.DecodeString(html.UnescapeString(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	// Shown as the browser shows it: each pixel a square of the width
	// and height the page gives the image (image-rendering: pixelated).
	sizes := regexp.MustCompile(`<img src="data:[^"]+" width="(\d+)" height="(\d+)"`).FindStringSubmatch(page)
	if sizes == nil || sizes[1] != sizes[2] {
		t.Fatalf("QR image without a square size: %v", sizes)
	}
	shown, _ := strconv.Atoi(sizes[1])
	scale := shown / img.Bounds().Dx()
	if scale < 4 || shown%img.Bounds().Dx() != 0 {
		t.Fatalf("QR of %d px shown at %d px", img.Bounds().Dx(), shown)
	}
	big := image.NewGray(image.Rect(0, 0, shown, shown))
	for y := range shown {
		for x := range shown {
			big.Set(x, y, img.At(x/scale, y/scale))
		}
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(big)
	if err != nil {
		t.Fatal(err)
	}
	res, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("the QR code does not scan: %v", err)
	}
	return res.GetText()
}

func TestRenderLabelPendingAndNoPoints(t *testing.T) {
	v := returns.StatusPageView{Return: sampleReturn(returns.StatusAwaitingReturn), LabelPending: true}
	page := render(t, Language("en"), v)
	for _, w := range []string{`<p id="label-pending">Your return label is being prepared.`, `<p id="no-drop-offs">We found no drop-off point near your address.</p>`} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q:\n%s", w, page)
		}
	}
	if strings.Contains(page, `id="label"`) || strings.Contains(page, "<img") {
		t.Error("a pending label is linked")
	}
}

func TestHours(t *testing.T) {
	weekdays := map[string][]string{}
	for _, d := range []string{"mon", "tue", "wed", "thu", "fri"} {
		weekdays[d] = []string{"09:00-12:00", "13:00-18:00"}
	}
	tests := []struct {
		tag   string
		hours map[string][]string
		want  []string
	}{
		{"en", nil, []string{"open around the clock"}},
		{"en", map[string][]string{}, []string{"Mon–Sun closed"}},
		{"en", weekdays, []string{"Mon–Fri 09:00–12:00, 13:00–18:00", "Sat–Sun closed"}},
		{"de", map[string][]string{"wed": {"10:00-14:00"}}, []string{"Mo–Di geschlossen", "Mi 10:00–14:00", "Do–So geschlossen"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, hours(Language(tt.tag), tt.hours)); diff != "" {
			t.Errorf("%s %v (-want +got):\n%s", tt.tag, tt.hours, diff)
		}
	}
}

func TestRenderNotFound(t *testing.T) {
	var b bytes.Buffer
	if err := RenderNotFound(&b, language.German); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Dieser Rücksendelink ist nicht gültig") || strings.Contains(b.String(), `id="status"`) {
		t.Errorf("not-found page:\n%s", b.String())
	}
}

func TestRenderExpired(t *testing.T) {
	tests := []struct {
		tag  string
		want string
	}{
		{"en", `<p id="expired">This return link has expired. Please ask the shop you bought from for a new link.</p>`},
		{"sv", `<p id="expired">Den här returlänken har gått ut. Be butiken du handlade från om en ny länk.</p>`},
		{"nb", `<p id="expired">Denne returlenken har utløpt. Be butikken du handlet fra om en ny lenke.</p>`},
		{"da", `<p id="expired">Dette returlink er udløbet. Bed butikken, du handlede hos, om et nyt link.</p>`},
		{"fi", `<p id="expired">Tämä palautuslinkki on vanhentunut. Pyydä uusi linkki kaupasta, josta teit ostoksesi.</p>`},
		{"de", `<p id="expired">Dieser Rücksendelink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie gekauft haben, nach einem neuen Link.</p>`},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := RenderExpired(&b, Language(tt.tag)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) || strings.Contains(b.String(), `id="status"`) || strings.Contains(b.String(), `id="notfound"`) {
			t.Errorf("%s expired page:\n%s", tt.tag, b.String())
		}
	}
}

// TestRenderItemStatus: an item that reached the warehouse says it is
// being checked, and an exchanged item names what the customer gets.
func TestRenderItemStatus(t *testing.T) {
	tests := []struct {
		tag      string
		status   returns.ItemStatus
		exchange string
		want     string
	}{
		{"en", returns.ItemAwaitingInspection, "", "<td>Arrived, being checked</td>"},
		{"sv-SE", returns.ItemAwaitingInspection, "", "<td>Framme, kontrolleras</td>"},
		{"en", returns.ItemAwaitingReturn, "J-BLUE", "<td>Expected · Exchange for J-BLUE</td>"},
		{"de-DE", returns.ItemReturned, "J-BLUE", "<td>Angenommen · Umtausch gegen J-BLUE</td>"},
	}
	for _, tt := range tests {
		r := sampleReturn(returns.StatusInTransit)
		r.Items[0].Status, r.Items[0].ExchangeSKU = tt.status, tt.exchange
		if page := render(t, Language(tt.tag), returns.StatusPageView{Return: r}); !strings.Contains(page, tt.want) {
			t.Errorf("%s %s %q: the items table lacks %q:\n%s", tt.tag, tt.status, tt.exchange, tt.want, tableOf("items").FindString(page))
		}
	}
}
