package page

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/returns"
)

func TestLanguage(t *testing.T) {
	tests := []struct {
		lang, accept string
		want         language.Tag
	}{
		{"", "", language.English},
		{"sv", "de-DE", language.Swedish},
		{"", "de-AT,de;q=0.9,en;q=0.5", language.German},
		{"", "sv-FI", language.Swedish},
		{"fr", "fr-FR", language.English},
		{"!!", "garbage;;", language.English},
	}
	for _, tt := range tests {
		if got := Language(tt.lang, tt.accept); got != tt.want {
			t.Errorf("Language(%q, %q) = %s, want %s", tt.lang, tt.accept, got, tt.want)
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

func TestRender(t *testing.T) {
	tests := []struct {
		tag    language.Tag
		status returns.ReturnStatus
		want   []string
	}{
		{language.English, returns.StatusAwaitingReturn, []string{`<html lang="en">`, "Waiting for your parcel", "1240.70 SEK", "59.50 SEK",
			"Jacket &lt;M&gt; – Blue", "22 November 2026", `<li class="done current">Registered</li>`, "expected, if every item is accepted"}},
		{language.Swedish, returns.StatusInTransit, []string{`<html lang="sv">`, "Ditt paket är på väg till oss", "1240,70 SEK", "2026-11-22",
			`<li class="done current">På väg</li>`, "Väntas"}},
		{language.German, returns.StatusCompleted, []string{`<html lang="de">`, "Abgeschlossen", "1299,90 SEK", `data-status="COMPLETED"`}},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := Render(&b, tt.tag, sampleReturn(tt.status)); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s page lacks %q:\n%s", tt.tag, w, b.String())
			}
		}
	}
}

func TestRenderRefund(t *testing.T) {
	r := sampleReturn(returns.StatusAwaitingRefund)
	r.RefundTransactions = []returns.RefundTransaction{{CurrencyCode: "SEK", Status: returns.TxRefunded, TotalAmount: returns.Amount{Minor: 100, Scale: 2}}}
	var b bytes.Buffer
	if err := Render(&b, language.English, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<span id="refund">1.00 SEK</span> (paid out)`) {
		t.Errorf("refund line missing:\n%s", b.String())
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
		tag  language.Tag
		want string
	}{
		{language.English, `<p id="expired">This return link has expired. Please ask the shop you bought from for a new link.</p>`},
		{language.Swedish, `<p id="expired">Den här returlänken har gått ut. Be butiken du handlade från om en ny länk.</p>`},
		{language.German, `<p id="expired">Dieser Rücksendelink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie gekauft haben, nach einem neuen Link.</p>`},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := RenderExpired(&b, tt.tag); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) || strings.Contains(b.String(), `id="status"`) || strings.Contains(b.String(), `id="notfound"`) {
			t.Errorf("%s expired page:\n%s", tt.tag, b.String())
		}
	}
}
