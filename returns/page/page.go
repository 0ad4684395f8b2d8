// Package page renders the customer's return status page: the page a
// return's statusUrl points at. It is plain html/template output, with no
// script, localized in English, Swedish and German; the language is chosen
// from an explicit lang parameter, then the browser's Accept-Language,
// matched with golang.org/x/text/language, and English otherwise.
//
// The package writes to an io.Writer and knows nothing of HTTP; httpapi
// serves it at returns.StatusPagePath + token.
package page

import (
	"embed"
	"html/template"
	"io"
	"strings"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/returns"
)

//go:embed status.html.tmpl
var files embed.FS

var tmpl = template.Must(template.New("status.html.tmpl").ParseFS(files, "status.html.tmpl"))

// supported are the page's languages; the first is the fallback.
var supported = []language.Tag{language.English, language.Swedish, language.German}

var matcher = language.NewMatcher(supported)

// Language picks the page language: lang (e.g. "sv") when it names a
// supported language, else the best match for acceptLanguage (an
// Accept-Language header value), else English.
func Language(lang, acceptLanguage string) language.Tag {
	var prefs []language.Tag
	if t, err := language.Parse(lang); err == nil {
		prefs = append(prefs, t)
	}
	if tags, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil {
		prefs = append(prefs, tags...)
	}
	_, i, conf := matcher.Match(prefs...)
	if conf == language.No {
		return supported[0]
	}
	return supported[i]
}

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
}

type view struct {
	Lang       string
	T          map[string]string
	Found      bool
	Expired    bool
	ReturnID   uint64
	OrderID    string
	Status     string
	StatusCode string
	Created    string
	Steps      []step
	Items      []itemView
	Costs      string
	Refund     string
	RefundNote string
}

// Render writes the status page of r in the language tag.
func Render(w io.Writer, tag language.Tag, r returns.Return) error {
	t := texts(tag)
	v := view{
		Lang: tag.String(), T: t, Found: true, ReturnID: r.ID, OrderID: r.Order.ForeignID,
		Status: t["status."+string(r.Status)], StatusCode: string(r.Status),
		Created: formatDate(tag, r.CreatedAt),
		Costs:   money(tag, r.ReturnCosts.TotalCost, r.ReturnCosts.CurrencyCode),
		Refund:  money(tag, r.CalculatedRefund.TotalRefundAmount, r.CalculatedRefund.CurrencyCode),
	}
	if len(r.RefundTransactions) > 0 {
		rt := r.RefundTransactions[len(r.RefundTransactions)-1]
		v.Refund = money(tag, rt.TotalAmount, rt.CurrencyCode)
		v.RefundNote = t["refund."+string(rt.Status)]
	} else {
		v.RefundNote = t["refund.estimate"]
	}
	stage := map[returns.ReturnStatus]int{
		returns.StatusAwaitingReturn: 0, returns.StatusInTransit: 1,
		returns.StatusAwaitingRefund: 2, returns.StatusAwaitingExchange: 2, returns.StatusCompleted: 3,
	}[r.Status]
	for i, key := range []string{"step.registered", "step.transit", "step.inspected", "step.completed"} {
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
		v.Items = append(v.Items, itemView{Title: title, Quantity: it.Quantity, Status: t["item."+string(it.Status)],
			Price: money(tag, it.PurchasePriceAmount.Amount, it.PurchasePriceAmount.CurrencyCode)})
	}
	return tmpl.Execute(w, v)
}

// RenderNotFound writes the page shown for an unknown token. It says no
// more than that the link is not valid.
func RenderNotFound(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: tag.String(), T: texts(tag)})
}

// RenderExpired writes the page shown for a link whose token expired or
// was replaced: it says so and tells the customer to ask the shop for a
// new link, and shows nothing of the return.
func RenderExpired(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: tag.String(), T: texts(tag), Expired: true})
}

func money(tag language.Tag, a returns.Amount, code string) string {
	s := a.String()
	if tag != language.English {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s + " " + code
}

func formatDate(tag language.Tag, ts returns.Timestamp) string {
	layout := "2 January 2006"
	if tag != language.English {
		layout = "2006-01-02"
	}
	return ts.Time().Format(layout)
}

func texts(tag language.Tag) map[string]string {
	switch tag {
	case language.Swedish:
		return sv
	case language.German:
		return de
	}
	return en
}

var en = map[string]string{
	"title": "Your return", "notfound": "This return link is not valid. Please check the link in your e-mail.",
	"expired": "This return link has expired. Please ask the shop you bought from for a new link.",
	"order":   "Order", "return": "Return", "created": "Registered on", "items": "Items", "quantity": "Quantity",
	"costs": "Return costs", "refund": "Refund",
	"status.AWAITING_RETURN": "Waiting for your parcel", "status.IN_TRANSIT": "Your parcel is on its way to us",
	"status.AWAITING_REFUND": "Inspected, refund on its way", "status.AWAITING_EXCHANGE": "Inspected, exchange on its way",
	"status.COMPLETED": "Completed",
	"step.registered":  "Registered", "step.transit": "On its way", "step.inspected": "Inspected", "step.completed": "Completed",
	"item.AWAITING_RETURN": "Expected", "item.RETURNED": "Accepted", "item.DECLINED": "Not accepted",
	"refund.estimate": "expected, if every item is accepted", "refund.AWAITING_EXTERNAL_REFUND": "being paid out",
	"refund.REFUNDED": "paid out", "refund.PENDING": "being paid out", "refund.SUCCESS": "paid out", "refund.FAILED": "payment failed, we will contact you",
}

var sv = map[string]string{
	"title": "Din retur", "notfound": "Den här returlänken är inte giltig. Kontrollera länken i ditt mejl.",
	"expired": "Den här returlänken har gått ut. Be butiken du handlade från om en ny länk.",
	"order":   "Order", "return": "Retur", "created": "Registrerad", "items": "Artiklar", "quantity": "Antal",
	"costs": "Returkostnad", "refund": "Återbetalning",
	"status.AWAITING_RETURN": "Vi väntar på ditt paket", "status.IN_TRANSIT": "Ditt paket är på väg till oss",
	"status.AWAITING_REFUND": "Kontrollerad, återbetalning på väg", "status.AWAITING_EXCHANGE": "Kontrollerad, byte på väg",
	"status.COMPLETED": "Klar",
	"step.registered":  "Registrerad", "step.transit": "På väg", "step.inspected": "Kontrollerad", "step.completed": "Klar",
	"item.AWAITING_RETURN": "Väntas", "item.RETURNED": "Godkänd", "item.DECLINED": "Ej godkänd",
	"refund.estimate": "väntad, om alla artiklar godkänns", "refund.AWAITING_EXTERNAL_REFUND": "betalas ut",
	"refund.REFUNDED": "utbetald", "refund.PENDING": "betalas ut", "refund.SUCCESS": "utbetald", "refund.FAILED": "utbetalningen misslyckades, vi kontaktar dig",
}

var de = map[string]string{
	"title": "Ihre Rücksendung", "notfound": "Dieser Rücksendelink ist nicht gültig. Bitte prüfen Sie den Link in Ihrer E-Mail.",
	"expired": "Dieser Rücksendelink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie gekauft haben, nach einem neuen Link.",
	"order":   "Bestellung", "return": "Rücksendung", "created": "Angemeldet am", "items": "Artikel", "quantity": "Menge",
	"costs": "Rücksendekosten", "refund": "Erstattung",
	"status.AWAITING_RETURN": "Wir warten auf Ihr Paket", "status.IN_TRANSIT": "Ihr Paket ist unterwegs zu uns",
	"status.AWAITING_REFUND": "Geprüft, Erstattung unterwegs", "status.AWAITING_EXCHANGE": "Geprüft, Umtausch unterwegs",
	"status.COMPLETED": "Abgeschlossen",
	"step.registered":  "Angemeldet", "step.transit": "Unterwegs", "step.inspected": "Geprüft", "step.completed": "Abgeschlossen",
	"item.AWAITING_RETURN": "Erwartet", "item.RETURNED": "Angenommen", "item.DECLINED": "Nicht angenommen",
	"refund.estimate": "erwartet, wenn alle Artikel angenommen werden", "refund.AWAITING_EXTERNAL_REFUND": "wird ausgezahlt",
	"refund.REFUNDED": "ausgezahlt", "refund.PENDING": "wird ausgezahlt", "refund.SUCCESS": "ausgezahlt", "refund.FAILED": "Auszahlung fehlgeschlagen, wir melden uns",
}
