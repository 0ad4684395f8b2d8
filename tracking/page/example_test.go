package page_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/tracking/page"
)

// Language picks the page language from the link's locale, then the
// order's locale, then the browser's Accept-Language, then English.
func ExampleLanguage() {
	for _, p := range [][3]string{
		{"sv-FI", "de-DE", ""},          // the link's locale
		{"", "nb-NO", "de-AT,de;q=0.9"}, // the order's
		{"", "", "da-DK,da;q=0.9"},      // the browser's
		{"fr-FR", "", ""},               // none supported
	} {
		base, _ := page.Language(p[0], p[1], p[2]).Base()
		fmt.Println(base)
	}
	// Output:
	// sv
	// nb
	// da
	// en
}

// Render writes the customer page of an order, in the order's time zone,
// with the alerts that are current when it is shown.
func ExampleRender() {
	order := &tracking.PrivateOrder{
		ExternalID: "ORD-1001",
		SiteName:   "My Shop",
		TimeZone:   "Europe/Berlin",
		Parcels: []tracking.PrivateParcel{{
			TrackingNumber:     "FP123",
			DisplayCarrierName: "FastPost",
			Progress:           []tracking.ProgressItem{{Step: tracking.StepOnRoute, Time: "2026-11-21T07:30:00Z"}},
			Alerts:             []tracking.Alert{{Type: tracking.AlertOutForDelivery, CreatedAt: "2026-11-21T07:30:00Z"}},
		}},
	}
	show := func(now time.Time) {
		var b bytes.Buffer
		if err := page.Render(&b, order, page.Language("de-DE", "", ""), page.Options{Now: now}); err != nil {
			panic(err)
		}
		for _, m := range regexp.MustCompile(`data-testid="(order|time-zone|current-step|alert)">([^<]*)(<time>([^<]*))?`).FindAllStringSubmatch(b.String(), -1) {
			fmt.Printf("%s: %s\n", m[1], strings.Join(strings.Fields(m[2]+" "+m[4]), " "))
		}
	}
	show(time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC))
	fmt.Println("-- the next day:")
	show(time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC))
	// Output:
	// order: Bestellung ORD-1001
	// time-zone: Alle Zeitangaben in deutscher Zeit (CET).
	// current-step: Unterwegs 21. Nov. 2026, 08:30
	// alert: Das Paket wird heute zugestellt. 21. Nov. 2026, 08:30
	// -- the next day:
	// order: Bestellung ORD-1001
	// time-zone: Alle Zeitangaben in deutscher Zeit (CET).
	// current-step: Unterwegs 21. Nov. 2026, 08:30
}
