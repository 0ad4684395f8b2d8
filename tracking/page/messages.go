package page

import (
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

// Supported lists the page's languages; the first is the fallback.
var Supported = []language.Tag{language.English, language.Swedish, language.German}

var matcher = language.NewMatcher(Supported)

// messages holds every text of the page: the English key and its Swedish
// and German translations. Keys are the English text so the template
// reads naturally and a missing translation falls back to English.
var messages = map[string][2]string{ // key: {sv, de}
	"Track your order":                 {"Spåra din beställning", "Verfolgen Sie Ihre Bestellung"},
	"Order %s":                         {"Beställning %s", "Bestellung %s"},
	"from %s":                          {"från %s", "von %s"},
	"Parcel %d of %d":                  {"Paket %d av %d", "Paket %d von %d"},
	"Tracking number":                  {"Kollinummer", "Sendungsnummer"},
	"Carrier":                          {"Transportör", "Versanddienstleister"},
	"Status":                           {"Status", "Status"},
	"Expected delivery":                {"Beräknad leverans", "Voraussichtliche Zustellung"},
	"No updates from the carrier yet.": {"Inga uppdateringar från transportören än.", "Noch keine Neuigkeiten vom Versanddienstleister."},
	"History":                          {"Historik", "Verlauf"},
	"Pickup location":                  {"Utlämningsställe", "Abholstelle"},
	"Opening hours":                    {"Öppettider", "Öffnungszeiten"},
	"Closed":                           {"Stängt", "Geschlossen"},
	"Follow the parcel at the carrier": {"Följ paketet hos transportören", "Sendung beim Versanddienstleister verfolgen"},
	"Your items":                       {"Dina varor", "Ihre Artikel"},
	"No parcels have been sent yet.":   {"Inga paket har skickats än.", "Es wurden noch keine Pakete verschickt."},
	"This tracking link is not valid.": {"Den här spårningslänken är inte giltig.", "Dieser Sendungslink ist ungültig."},
	"Tracking link not found":          {"Spårningslänken hittades inte", "Sendungslink nicht gefunden"},
	"Tracking link expired":            {"Spårningslänken har gått ut", "Sendungslink abgelaufen"},
	"This tracking link has expired. Please ask the shop you ordered from for a new link.": {
		"Den här spårningslänken har gått ut. Be butiken du handlade från om en ny länk.",
		"Dieser Sendungslink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie bestellt haben, nach einem neuen Link."},
	"Mon":                                   {"Mån", "Mo"},
	"Tue":                                   {"Tis", "Di"},
	"Wed":                                   {"Ons", "Mi"},
	"Thu":                                   {"Tor", "Do"},
	"Fri":                                   {"Fre", "Fr"},
	"Sat":                                   {"Lör", "Sa"},
	"Sun":                                   {"Sön", "So"},
	"STEP_CONFIRMED_BY_MERCHANT":            {"Beställningen är bekräftad", "Bestellung bestätigt"},
	"STEP_PREPARED_BY_MERCHANT":             {"Paketet packas", "Paket wird vorbereitet"},
	"STEP_SUBMITTED_TO_CARRIER":             {"Lämnat till transportören", "An den Versanddienstleister übergeben"},
	"STEP_ON_ROUTE":                         {"På väg", "Unterwegs"},
	"STEP_DELIVERED_TO_PICKUP_POINT":        {"Redo att hämtas", "Bereit zur Abholung"},
	"STEP_DELIVERED_TO_CONSUMER":            {"Levererat", "Zugestellt"},
	"STEP_TERMINATED":                       {"Leveransen avbröts", "Zustellung abgebrochen"},
	"STEP_SENT_BACK":                        {"Skickas tillbaka till avsändaren", "Wird an den Absender zurückgeschickt"},
	"STEP_RETURN_REQUESTED":                 {"Retur begärd", "Rücksendung angefordert"},
	"STEP_DELIVERED_TO_MERCHANT":            {"Tillbaka hos avsändaren", "Beim Absender eingetroffen"},
	"STEP_AWAITING_SUPPLIER":                {"Väntar på leverantören", "Wartet auf den Lieferanten"},
	"STEP_LINEHAUL_TO_CARRIER":              {"På väg till transportören", "Unterwegs zum Versanddienstleister"},
	"STEP_RETURN_APPROVED":                  {"Returen är godkänd", "Rücksendung genehmigt"},
	"STEP_RETURN_DECLINED":                  {"Returen avslogs", "Rücksendung abgelehnt"},
	"STEP_RETURN_COMPLETED":                 {"Returen är klar", "Rücksendung abgeschlossen"},
	"STEP_REPLACEMENT_SENT":                 {"Ersättning skickad", "Ersatz verschickt"},
	"STEP_RETURN_CANCELLED":                 {"Returen avbröts", "Rücksendung storniert"},
	"ALERT_DELIVERY_DELAYED":                {"Leveransen är försenad.", "Die Zustellung verspätet sich."},
	"ALERT_ESTIMATED_DELIVERY_TIME_UPDATED": {"Den beräknade leveranstiden har ändrats.", "Die voraussichtliche Lieferzeit hat sich geändert."},
	"ALERT_DELIVERY_ATTEMPT_FAILED":         {"Transportören kunde inte leverera paketet. Ett nytt försök görs.", "Die Zustellung ist fehlgeschlagen. Es gibt einen neuen Versuch."},
	"ALERT_OUT_FOR_DELIVERY":                {"Paketet levereras i dag.", "Das Paket wird heute zugestellt."},
	"ALERT_SUBMISSION_DELAYED":              {"Paketet lämnas till transportören senare än utlovat.", "Das Paket wird später als versprochen übergeben."},
	"ALERT_DELIVERY_DELAYED_FROM_CARRIER":   {"Transportören meddelar en försening.", "Der Versanddienstleister meldet eine Verspätung."},
	"ALERT_AWAITING_SUPPLIER":               {"Vi väntar på varor från leverantören.", "Wir warten auf Ware vom Lieferanten."},
	"ALERT_LINEHAUL_TO_CARRIER":             {"Paketet är på väg till transportören.", "Das Paket ist unterwegs zum Versanddienstleister."},
}

// english are the texts of the enum keys in English.
var english = map[string]string{
	"STEP_CONFIRMED_BY_MERCHANT":            "Order confirmed",
	"STEP_PREPARED_BY_MERCHANT":             "Being packed",
	"STEP_SUBMITTED_TO_CARRIER":             "Handed to the carrier",
	"STEP_ON_ROUTE":                         "On its way",
	"STEP_DELIVERED_TO_PICKUP_POINT":        "Ready for pickup",
	"STEP_DELIVERED_TO_CONSUMER":            "Delivered",
	"STEP_TERMINATED":                       "Delivery stopped",
	"STEP_SENT_BACK":                        "Being sent back to the sender",
	"STEP_RETURN_REQUESTED":                 "Return requested",
	"STEP_DELIVERED_TO_MERCHANT":            "Back with the sender",
	"STEP_AWAITING_SUPPLIER":                "Waiting for the supplier",
	"STEP_LINEHAUL_TO_CARRIER":              "On its way to the carrier",
	"STEP_RETURN_APPROVED":                  "Return approved",
	"STEP_RETURN_DECLINED":                  "Return declined",
	"STEP_RETURN_COMPLETED":                 "Return completed",
	"STEP_REPLACEMENT_SENT":                 "Replacement sent",
	"STEP_RETURN_CANCELLED":                 "Return cancelled",
	"ALERT_DELIVERY_DELAYED":                "Your delivery is delayed.",
	"ALERT_ESTIMATED_DELIVERY_TIME_UPDATED": "The expected delivery time has changed.",
	"ALERT_DELIVERY_ATTEMPT_FAILED":         "The carrier could not deliver the parcel. They will try again.",
	"ALERT_OUT_FOR_DELIVERY":                "Your parcel is out for delivery today.",
	"ALERT_SUBMISSION_DELAYED":              "The parcel is handed to the carrier later than promised.",
	"ALERT_DELIVERY_DELAYED_FROM_CARRIER":   "The carrier reports a delay.",
	"ALERT_AWAITING_SUPPLIER":               "We are waiting for items from the supplier.",
	"ALERT_LINEHAUL_TO_CARRIER":             "The parcel is on its way to the carrier.",
}

// cat is the message catalog of the page.
var cat = newCatalog()

func newCatalog() catalog.Catalog {
	b := catalog.NewBuilder(catalog.Fallback(language.English))
	for key, tr := range messages {
		en := key
		if e, ok := english[key]; ok {
			en = e
		}
		must(b.SetString(language.English, key, en))
		must(b.SetString(language.Swedish, key, tr[0]))
		must(b.SetString(language.German, key, tr[1]))
	}
	return b
}

func must(err error) {
	if err != nil {
		panic("page: bad message catalog: " + err.Error())
	}
}

// Match returns the supported language closest to the locale (a BCP 47
// tag such as "sv-SE") or, failing that, to the Accept-Language header.
func Match(locale, acceptLanguage string) language.Tag {
	var prefs []language.Tag
	if t, err := language.Parse(locale); err == nil {
		prefs = append(prefs, t)
	}
	if tags, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil {
		prefs = append(prefs, tags...)
	}
	_, i, _ := matcher.Match(prefs...)
	return Supported[i]
}

func printer(tag language.Tag) *message.Printer {
	return message.NewPrinter(tag, message.Catalog(cat))
}
