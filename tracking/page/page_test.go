package page

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"
)

// now is when the sample page is shown: the day the parcel is out for
// delivery, so its alert is current.
var now = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

func sampleOrder() *tracking.PrivateOrder {
	return &tracking.PrivateOrder{
		ExternalID: "ORD-1",
		SiteName:   "Demo Outdoor Store",
		TimeZone:   "Europe/Stockholm",
		Cart:       &tracking.PrivateOrderCart{Items: []tracking.Item{{Name: "Mug", Quantity: 2}}},
		Parcels: []tracking.PrivateParcel{{
			TrackingNumber:        "TN1",
			DisplayCarrierName:    "FastPost",
			CarrierLink:           "https://track.example/fp?id=TN1",
			EstimatedDeliveryTime: &tracking.DateTimeRange{Start: "2026-11-23T07:00:00Z", End: "2026-11-23T17:00:00Z"},
			Alerts:                []tracking.Alert{{Type: tracking.AlertOutForDelivery, CreatedAt: "2026-11-22T09:50:00Z"}},
			Progress: []tracking.ProgressItem{
				{Step: tracking.StepSubmittedToCarrier, Time: "2026-11-22T09:00:00Z"},
				{Step: tracking.StepOnRoute, Time: "2026-11-22T09:45:00Z"},
			},
			Location: &tracking.Location{
				Address:          &tracking.Address{Name: "Kiosk Central", Street: "Drottninggatan", StreetNumber: "5", PostalCode: "11151", City: "Stockholm"},
				OperationalHours: &tracking.DisplayHours{Mon: "10:00-14:00, 15:00-20:00", Sat: "11:00-15:00"},
			},
		}},
	}
}

func render(t *testing.T, o *tracking.PrivateOrder, tag language.Tag, opts Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, o, tag, opts); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// testids returns the text of each element with a data-testid, by id
// (several joined with "|"), with the tags inside it stripped.
func testids(page string) map[string]string {
	out := map[string]string{}
	open := regexp.MustCompile(`<([a-z0-9]+)[^>]*data-testid="([a-z-]+)"[^>]*>`)
	tags := regexp.MustCompile(`<[^>]*>`)
	for _, m := range open.FindAllStringSubmatchIndex(page, -1) {
		tag, id, rest := page[m[2]:m[3]], page[m[4]:m[5]], page[m[1]:]
		end := strings.Index(rest, "</"+tag+">")
		if end < 0 {
			continue
		}
		text := strings.Join(strings.Fields(tags.ReplaceAllString(rest[:end], " ")), " ")
		if prev, ok := out[id]; ok {
			text = prev + "|" + text
		}
		out[id] = text
	}
	return out
}

func TestRenderEveryLanguage(t *testing.T) {
	tests := []struct {
		lang string
		want map[string]string
		also []string
	}{
		{"en", map[string]string{"order": "Order ORD-1", "time-zone": "All times are Swedish time (CET).", "current-step": "On its way Nov 22, 2026, 10:45 AM",
			"alert": "Your parcel is out for delivery today. Nov 22, 2026, 10:50 AM", "eta": "Nov 23, 2026, 8:00 AM – 6:00 PM"},
			[]string{`lang="en"`, "from Demo Outdoor Store", "Expected delivery", "Handed to the carrier", "Drottninggatan 5", "11151 Stockholm",
				"10:00-14:00, 15:00-20:00", "Closed", "Mon", "Follow the parcel at the carrier", "2 × Mug"}},
		{"sv", map[string]string{"order": "Beställning ORD-1", "time-zone": "Alla tider är svensk tid (CET).", "current-step": "På väg 22 nov. 2026 10:45",
			"alert": "Paketet levereras i dag. 22 nov. 2026 10:50", "eta": "23 nov. 2026 08:00–18:00"}, []string{`lang="sv"`, "från Demo Outdoor Store", "Beräknad leverans", "Utlämningsställe", "Öppettider", "Mån", "Stängt"}},
		{"nb", map[string]string{"order": "Bestilling ORD-1", "time-zone": "Alle tider er svensk tid (CET).", "current-step": "På vei 22. nov. 2026, 10:45",
			"alert": "Pakken blir levert i dag. 22. nov. 2026, 10:50"}, []string{`lang="nb"`, "Forventet levering", "Hentested", "Åpningstider", "Man", "Stengt", "Varene dine"}},
		{"da", map[string]string{"order": "Ordre ORD-1", "time-zone": "Alle tidspunkter er svensk tid (CET).", "current-step": "På vej 22. nov. 2026, 10.45",
			"alert": "Pakken bliver leveret i dag. 22. nov. 2026, 10.50"}, []string{`lang="da"`, "Forventet levering", "Afhentningssted", "Åbningstider", "Lukket", "Dine varer"}},
		{"fi", map[string]string{"order": "Tilaus ORD-1", "time-zone": "Kaikki ajat ovat Ruotsin aikaa (CET).", "current-step": "Matkalla 22.11.2026 klo 10.45",
			"alert": "Paketti toimitetaan tänään. 22.11.2026 klo 10.50"}, []string{`lang="fi"`, "Arvioitu toimitus", "Noutopiste", "Aukioloajat", "Ma", "Suljettu", "Tuotteesi"}},
		{"de", map[string]string{"order": "Bestellung ORD-1", "time-zone": "Alle Zeitangaben in schwedischer Zeit (CET).", "current-step": "Unterwegs 22. Nov. 2026, 10:45",
			"alert": "Das Paket wird heute zugestellt. 22. Nov. 2026, 10:50", "eta": "23. Nov. 2026, 08:00–18:00"}, []string{`lang="de"`, "Voraussichtliche Zustellung", "Abholstelle", "Öffnungszeiten", "Geschlossen", "Ihre Artikel"}},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			page := render(t, sampleOrder(), language.MustParse(tt.lang), Options{Now: now})
			got := testids(page)
			for id, want := range tt.want {
				if got[id] != want {
					t.Errorf("%s = %q, want %q", id, got[id], want)
				}
			}
			for _, w := range tt.also {
				if !strings.Contains(page, w) {
					t.Errorf("page lacks %q", w)
				}
			}
			if regexp.MustCompile(`\b(tracking|day)\.[a-z]`).MatchString(page) {
				t.Errorf("page shows a catalog key:\n%s", page)
			}
		})
	}
}

// The link's locale wins, then the order's, then the browser's, then English.
func TestLanguagePrecedence(t *testing.T) {
	tests := []struct {
		name                string
		link, order, accept string
		want                string
	}{
		{"link locale over everything", "de-DE", "sv-SE", "fi-FI,fi;q=0.9", "de"},
		{"order locale without a link locale", "", "sv-SE", "fi-FI,fi;q=0.9", "sv"},
		{"Accept-Language without either", "", "", "da-DK,da;q=0.9,en;q=0.5", "da"},
		{"a malformed link locale is skipped", "no such locale!", "nb-NO", "", "nb"},
		{"an unsupported link locale gives way to a supported order locale", "fr-FR", "fi-FI", "", "fi"},
		{"nothing: English", "", "", "", "en"},
		{"nothing supported: English", "fr-FR", "", "es-ES", "en"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := lang(Language(tt.link, tt.order, tt.accept)); got != tt.want {
				t.Errorf("Language(%q, %q, %q) = %s, want %s", tt.link, tt.order, tt.accept, got, tt.want)
			}
		})
	}
}

// Times are shown in the delivery's zone, and the page names it.
func TestTimeZone(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	summer := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		zone     string
		opts     Options
		lang     string
		step     string // the current step's time, RFC 3339
		wantStep string
		wantZone string
	}{
		{"Stockholm in winter", "Europe/Stockholm", Options{Now: now}, "en", "2026-11-22T09:45:00Z", "Nov 22, 2026, 10:45 AM", "All times are Swedish time (CET)."},
		{"Stockholm in summer", "Europe/Stockholm", Options{Now: summer}, "sv", "2026-07-01T09:45:00Z", "1 juli 2026 11:45", "Alla tider är svensk tid (CEST)."},
		{"late evening in UTC is the next day in Stockholm", "Europe/Stockholm", Options{Now: now}, "en", "2026-11-22T23:30:00Z", "Nov 23, 2026, 12:30 AM", "All times are Swedish time (CET)."},
		{"Helsinki", "Europe/Helsinki", Options{Now: now}, "fi", "2026-11-22T09:45:00Z", "22.11.2026 klo 11.45", "Kaikki ajat ovat Suomen aikaa (EET)."},
		{"Oslo", "Europe/Oslo", Options{Now: now}, "nb", "2026-11-22T09:45:00Z", "22. nov. 2026, 10:45", "Alle tider er norsk tid (CET)."},
		{"Copenhagen", "Europe/Copenhagen", Options{Now: now}, "da", "2026-11-22T09:45:00Z", "22. nov. 2026, 10.45", "Alle tidspunkter er dansk tid (CET)."},
		{"Berlin", "Europe/Berlin", Options{Now: now}, "de", "2026-11-22T09:45:00Z", "22. Nov. 2026, 10:45", "Alle Zeitangaben in deutscher Zeit (CET)."},
		{"a zone the catalog has no name for", "America/New_York", Options{Now: now}, "en", "2026-11-22T09:45:00Z", "Nov 22, 2026, 4:45 AM", "All times are in the America/New_York time zone."},
		{"no zone: UTC", "", Options{Now: now}, "de", "2026-11-22T09:45:00Z", "22. Nov. 2026, 09:45", "Alle Zeitangaben in der Zeitzone UTC."},
		{"an unknown zone: UTC", "Mars/Olympus", Options{Now: now}, "en", "2026-11-22T09:45:00Z", "Nov 22, 2026, 9:45 AM", "All times are in the UTC time zone."},
		{"Options.Location overrides the order's", "Europe/Stockholm", Options{Now: now, Location: newYork}, "en", "2026-11-22T09:45:00Z", "Nov 22, 2026, 4:45 AM", "All times are in the America/New_York time zone."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := sampleOrder()
			o.TimeZone = tt.zone
			o.Parcels[0].Progress = []tracking.ProgressItem{{Step: tracking.StepOnRoute, Time: tt.step}}
			got := testids(render(t, o, language.MustParse(tt.lang), tt.opts))
			if diff := cmp.Diff([2]string{tt.wantZone, tt.wantStep}, [2]string{got["time-zone"], lastTime(got["current-step"], tt.wantStep)}); diff != "" {
				t.Errorf("zone, step time (-want +got):\n%s", diff)
			}
		})
	}
}

// lastTime is the end of s as long as want: the time after the step's
// name.
func lastTime(s, want string) string { return s[max(0, len(s)-len(want)):] }

// Each alert type stays on the page only while it is current.
func TestAlertCurrency(t *testing.T) {
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC))
	stockholm := i18n.Zone("Europe/Stockholm")
	at := func(s string) string { return s + ":00Z" }
	step := func(s tracking.Step, when string) tracking.ProgressItem {
		return tracking.ProgressItem{Step: s, Time: at(when)}
	}
	tests := []struct {
		name    string
		alert   tracking.AlertType
		created string
		steps   []tracking.ProgressItem
		later   []tracking.Alert
		now     string
		want    bool
	}{
		{"out for delivery, the same day", tracking.AlertOutForDelivery, "2026-11-22T07:00", nil, nil, "2026-11-22T20:00", true},
		{"out for delivery, the next day", tracking.AlertOutForDelivery, "2026-11-22T07:00", nil, nil, "2026-11-23T07:00", false},
		{"out for delivery, local midnight passed though UTC's has not", tracking.AlertOutForDelivery, "2026-11-22T22:30", nil, nil, "2026-11-22T23:30", false},
		{"out for delivery, the same local day though UTC's changed", tracking.AlertOutForDelivery, "2026-11-22T23:30", nil, nil, "2026-11-23T10:00", true},
		{"out for delivery, delivered since", tracking.AlertOutForDelivery, "2026-11-22T07:00", []tracking.ProgressItem{step(tracking.StepDeliveredToConsumer, "2026-11-22T11:00")}, nil, "2026-11-22T12:00", false},
		{"out for delivery, a step before it does not end it", tracking.AlertOutForDelivery, "2026-11-22T07:00", []tracking.ProgressItem{step(tracking.StepOnRoute, "2026-11-22T06:00")}, nil, "2026-11-22T12:00", true},
		{"attempt failed, two days on", tracking.AlertDeliveryAttemptFailed, "2026-11-22T07:00", nil, nil, "2026-11-24T07:00", true},
		{"attempt failed, three days on", tracking.AlertDeliveryAttemptFailed, "2026-11-22T07:00", nil, nil, "2026-11-25T07:00", false},
		{"attempt failed, out for delivery again", tracking.AlertDeliveryAttemptFailed, "2026-11-22T07:00", nil, []tracking.Alert{{Type: tracking.AlertOutForDelivery, CreatedAt: at("2026-11-23T07:00")}}, "2026-11-23T08:00", false},
		{"attempt failed, at the pickup point since", tracking.AlertDeliveryAttemptFailed, "2026-11-22T07:00", []tracking.ProgressItem{step(tracking.StepDeliveredToPickupPoint, "2026-11-22T15:00")}, nil, "2026-11-22T16:00", false},
		{"estimate updated, 23 hours on", tracking.AlertEstimatedDeliveryTimeUpdated, "2026-11-22T07:00", nil, nil, "2026-11-23T06:00", true},
		{"estimate updated, 24 hours on", tracking.AlertEstimatedDeliveryTimeUpdated, "2026-11-22T07:00", nil, nil, "2026-11-23T07:00", false},
		{"estimate updated with a step at the same instant", tracking.AlertEstimatedDeliveryTimeUpdated, "2026-11-22T07:00", []tracking.ProgressItem{step(tracking.StepOnRoute, "2026-11-22T07:00")}, nil, "2026-11-22T08:00", true},
		{"delayed, still on route", tracking.AlertDeliveryDelayed, "2026-11-20T18:00", []tracking.ProgressItem{step(tracking.StepOnRoute, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", true},
		{"delayed, delivered since", tracking.AlertDeliveryDelayed, "2026-11-20T18:00", []tracking.ProgressItem{step(tracking.StepDeliveredToConsumer, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", false},
		{"carrier delay, sent back since", tracking.AlertDeliveryDelayedFromCarrier, "2026-11-20T18:00", []tracking.ProgressItem{step(tracking.StepSentBack, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", false},
		{"submission delayed, still being packed", tracking.AlertSubmissionDelayed, "2026-11-20T16:00", []tracking.ProgressItem{step(tracking.StepPreparedByMerchant, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", true},
		{"submission delayed, at the carrier since", tracking.AlertSubmissionDelayed, "2026-11-20T16:00", []tracking.ProgressItem{step(tracking.StepSubmittedToCarrier, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", false},
		{"awaiting supplier, no step since", tracking.AlertAwaitingSupplier, "2026-11-20T16:00", nil, nil, "2026-12-22T08:00", true},
		{"awaiting supplier, a step since", tracking.AlertAwaitingSupplier, "2026-11-20T16:00", []tracking.ProgressItem{step(tracking.StepPreparedByMerchant, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", false},
		{"linehaul, a step since", tracking.AlertLinehaulToCarrier, "2026-11-20T16:00", []tracking.ProgressItem{step(tracking.StepSubmittedToCarrier, "2026-11-21T07:00")}, nil, "2026-11-22T08:00", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := time.Parse(time.RFC3339, at(tt.now))
			if err != nil {
				t.Fatal(err)
			}
			clock.Set(n)
			a := tracking.Alert{Type: tt.alert, CreatedAt: at(tt.created)}
			p := &tracking.PrivateParcel{Progress: tt.steps, Alerts: append([]tracking.Alert{a}, tt.later...)}
			if got := current(a, p, clock.Now(), stockholm); got != tt.want {
				t.Errorf("current = %v, want %v", got, tt.want)
			}
			// The page shows exactly the current alerts.
			o := sampleOrder()
			o.Parcels[0].Progress, o.Parcels[0].Alerts = tt.steps, []tracking.Alert{a}
			shown := strings.Contains(render(t, o, language.English, Options{Now: clock.Now()}), i18n.Text(language.English, "tracking.alert."+string(tt.alert)))
			if shown != tt.want && len(tt.later) == 0 {
				t.Errorf("the page shows the alert: %v, want %v", shown, tt.want)
			}
		})
	}
}

func TestRenderEscapes(t *testing.T) {
	o := sampleOrder()
	o.ExternalID = `<script>alert(1)</script>`
	o.Parcels[0].CarrierLink = "javascript:alert(1)"
	if s := render(t, o, language.English, Options{Now: now}); strings.Contains(s, "<script>") || strings.Contains(s, `href="javascript:`) {
		t.Errorf("unescaped content in page:\n%s", s)
	}
}

func TestRenderNotFoundAndExpired(t *testing.T) {
	tests := []struct {
		lang          string
		notFound, exp string
	}{
		{"en", "This tracking link is not valid.", "This tracking link has expired. Please ask the shop you ordered from for a new link."},
		{"sv", "Den här spårningslänken är inte giltig.", "Den här spårningslänken har gått ut. Be butiken du handlade från om en ny länk."},
		{"nb", "Denne sporingslenken er ikke gyldig.", "Denne sporingslenken er utløpt. Be butikken du handlet fra om en ny lenke."},
		{"da", "Dette sporingslink er ikke gyldigt.", "Dette sporingslink er udløbet. Bed butikken, du har handlet hos, om et nyt link."},
		{"fi", "Tämä seurantalinkki ei kelpaa.", "Tämä seurantalinkki on vanhentunut. Pyydä uusi linkki kaupasta, josta tilasit."},
		{"de", "Dieser Sendungslink ist ungültig.", "Dieser Sendungslink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie bestellt haben, nach einem neuen Link."},
	}
	for _, tt := range tests {
		tag := language.MustParse(tt.lang)
		var nf, ex bytes.Buffer
		if err := RenderNotFound(&nf, tag); err != nil {
			t.Fatal(err)
		}
		if err := RenderExpired(&ex, tag); err != nil {
			t.Fatal(err)
		}
		got := [2]string{testids(nf.String())["not-found"], testids(ex.String())["expired"]}
		if diff := cmp.Diff([2]string{tt.notFound, tt.exp}, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.lang, diff)
		}
		if strings.Contains(ex.String(), `data-testid="order"`) {
			t.Errorf("%s: the expired page shows the order", tt.lang)
		}
	}
}

// Every step and alert a parcel can have reads as words in every
// language, never as its enum value or catalog key.
func TestEveryStepAndAlertHasText(t *testing.T) {
	keys := []string{}
	for _, s := range []tracking.Step{
		tracking.StepConfirmedByMerchant, tracking.StepPreparedByMerchant, tracking.StepSubmittedToCarrier, tracking.StepOnRoute,
		tracking.StepDeliveredToPickupPoint, tracking.StepDeliveredToConsumer, tracking.StepTerminated, tracking.StepSentBack,
		tracking.StepReturnRequested, tracking.StepDeliveredToMerchant, tracking.StepAwaitingSupplier, tracking.StepLinehaulToCarrier,
		tracking.StepReturnApproved, tracking.StepReturnDeclined, tracking.StepReturnCompleted, tracking.StepReplacementSent, tracking.StepReturnCancelled,
	} {
		keys = append(keys, "tracking.step."+string(s))
	}
	for _, a := range []tracking.AlertType{
		tracking.AlertDeliveryDelayed, tracking.AlertEstimatedDeliveryTimeUpdated, tracking.AlertDeliveryAttemptFailed,
		tracking.AlertOutForDelivery, tracking.AlertSubmissionDelayed, tracking.AlertDeliveryDelayedFromCarrier,
		tracking.AlertAwaitingSupplier, tracking.AlertLinehaulToCarrier,
	} {
		keys = append(keys, "tracking.alert."+string(a))
	}
	for _, tag := range i18n.Supported {
		for _, k := range keys {
			if got := i18n.Text(tag, k); got == k || strings.Contains(got, "STEP_") || strings.Contains(got, "ALERT_") {
				t.Errorf("%s: %s reads %q", tag, k, got)
			}
		}
	}
}

// The catalog's pickup instructions show under the location's address;
// hours in words follow the weekdays, or stand alone when no weekday
// hours are known.
func TestPickupInstructionsAndHoursText(t *testing.T) {
	tests := []struct {
		name     string
		hours    *tracking.DisplayHours
		want     map[string]string
		wantMiss []string
	}{
		{"weekdays and words", &tracking.DisplayHours{Mon: "10:00-14:00", FreeText: []string{"Closes early on holiday eves"}},
			map[string]string{"pickup-instructions": "Ask at the counter.", "hours": "Mon 10:00-14:00 Tue Closed Wed Closed Thu Closed Fri Closed Sat Closed Sun Closed Closes early on holiday eves"}, nil},
		{"words only", &tracking.DisplayHours{FreeText: []string{"Open when the shop is open"}},
			map[string]string{"pickup-instructions": "Ask at the counter.", "hours": "Open when the shop is open"}, []string{"Closed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := sampleOrder()
			o.Parcels[0].Location.PickupInstructions = "Ask at the counter."
			o.Parcels[0].Location.OperationalHours = tt.hours
			page := render(t, o, language.English, Options{Now: now})
			got := testids(page)
			for id, want := range tt.want {
				if diff := cmp.Diff(want, got[id]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", id, diff)
				}
			}
			for _, miss := range tt.wantMiss {
				if strings.Contains(got["hours"], miss) {
					t.Errorf("hours show %q: %q", miss, got["hours"])
				}
			}
		})
	}
}

// TestReturnParcel: a return parcel is headed as a return in every
// language, is not counted among the parcels to the customer, and shows
// where it goes back to (the warehouse), not a pickup location.
func TestReturnParcel(t *testing.T) {
	o := sampleOrder()
	o.Parcels = append(o.Parcels, tracking.PrivateParcel{
		TrackingNumber: "RT1", DisplayCarrierName: "FastPost", DirectionType: tracking.DirectionReturn,
		Progress: []tracking.ProgressItem{{Step: tracking.StepSubmittedToCarrier, Time: "2026-11-22T10:00:00Z"}},
		Location: &tracking.Location{Address: &tracking.Address{Name: "Demo Outdoor Warehouse", AddressLines: []string{"Lagervägen 1"}, PostalCode: "121 62", City: "Stockholm"}},
	})
	tests := []struct{ lang, outbound, ret, returnTo string }{
		{"en", "Parcel 1 of 1", "Return parcel", "Going back to"},
		{"sv", "Paket 1 av 1", "Returpaket", "Skickas tillbaka till"},
		{"nb", "Pakke 1 av 1", "Returpakke", "Sendes tilbake til"},
		{"da", "Pakke 1 af 1", "Returpakke", "Sendes tilbage til"},
		{"fi", "Paketti 1/1", "Palautuspaketti", "Palautetaan osoitteeseen"},
		{"de", "Paket 1 von 1", "Rücksendung", "Geht zurück an"},
	}
	h2 := regexp.MustCompile(`<h2>([^<]*)</h2>`)
	h3 := regexp.MustCompile(`<h3>([^<]*)</h3>`)
	for _, tt := range tests {
		page := render(t, o, language.MustParse(tt.lang), Options{Now: now})
		var heads, subs []string
		for _, m := range h2.FindAllStringSubmatch(page, -1) {
			heads = append(heads, m[1])
		}
		for _, m := range h3.FindAllStringSubmatch(page, -1) {
			subs = append(subs, m[1])
		}
		if len(heads) < 2 || heads[0] != tt.outbound || heads[1] != tt.ret {
			t.Errorf("%s: parcel headings %q, want %q then %q", tt.lang, heads, tt.outbound, tt.ret)
		}
		if !slices.Contains(subs, tt.returnTo) || !strings.Contains(page, "Demo Outdoor Warehouse") || !strings.Contains(page, `data-direction="return"`) {
			t.Errorf("%s: the return parcel does not say where it goes back to: %q", tt.lang, subs)
		}
		if n := strings.Count(page, "Lagervägen 1"); n != 1 {
			t.Errorf("%s: the warehouse shows %d times", tt.lang, n)
		}
	}
	// Two returns are numbered among themselves.
	o.Parcels = append(o.Parcels, o.Parcels[1])
	o.Parcels[2].TrackingNumber = "RT2"
	page := render(t, o, language.MustParse("en"), Options{Now: now})
	for _, want := range []string{"<h2>Parcel 1 of 1</h2>", "<h2>Return parcel 1 of 2</h2>", "<h2>Return parcel 2 of 2</h2>"} {
		if !strings.Contains(page, want) {
			t.Errorf("two returns: the page lacks %s", want)
		}
	}
}

// The catalog's pickup instructions show in the page's language where the
// catalog has them, else in the catalog's default locale.
func TestPickupInstructionsInPageLanguage(t *testing.T) {
	text := catalog.Text{"en-US": "Ask at the counter.", "sv-SE": "Fråga i kassan.", "de-DE": "Fragen Sie an der Kasse."}
	tests := []struct {
		name string
		tag  language.Tag
		text catalog.Text
		want string
	}{
		{"Swedish link", Language("sv-SE", "", ""), text, "Fråga i kassan."},
		{"German browser", Language("", "", "de-AT,de;q=0.9"), text, "Fragen Sie an der Kasse."},
		{"English", language.English, text, "Ask at the counter."},
		{"language the catalog lacks", Language("fi-FI", "", ""), text, "Ask at the counter."},
		{"plain text", Language("sv-SE", "", ""), catalog.PlainText("Ask at the counter."), "Ask at the counter."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := sampleOrder()
			o.Parcels[0].Location.PickupInstructions = "Ask at the counter."
			o.Parcels[0].Location.PickupInstructionsText = tt.text
			got := testids(render(t, o, tt.tag, Options{Now: now}))["pickup-instructions"]
			if got != tt.want {
				t.Errorf("pickup-instructions = %q, want %q", got, tt.want)
			}
		})
	}
}
