package page_test

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/tracking/page"
)

// Match picks the page language from the link's locale, then from the
// browser's Accept-Language, then English.
func ExampleMatch() {
	fmt.Println(page.Match("sv-FI", ""))
	fmt.Println(page.Match("", "de-AT,de;q=0.9,en;q=0.5"))
	fmt.Println(page.Match("fr-FR", ""))
	// Output:
	// sv
	// de
	// en
}

// Render writes the customer page of an order.
func ExampleRender() {
	order := &tracking.PrivateOrder{
		ExternalID: "ORD-1001",
		SiteName:   "My Shop",
		Parcels: []tracking.PrivateParcel{{
			TrackingNumber:     "FP123",
			DisplayCarrierName: "FastPost",
			Progress:           []tracking.ProgressItem{{Step: tracking.StepOnRoute, Time: "2026-11-21T07:30:00Z"}},
			Alerts:             []tracking.Alert{{Type: tracking.AlertOutForDelivery, CreatedAt: "2026-11-21T07:30:00Z"}},
		}},
	}
	var b bytes.Buffer
	if err := page.Render(&b, order, page.Match("de-DE", ""), page.Options{}); err != nil {
		panic(err)
	}
	for _, m := range regexp.MustCompile(`data-testid="(order|current-step|alert)">([^<]*)`).FindAllStringSubmatch(b.String(), -1) {
		fmt.Printf("%s: %s\n", m[1], strings.TrimSpace(m[2]))
	}
	// Output:
	// order: Bestellung ORD-1001
	// current-step: Unterwegs
	// alert: Das Paket wird heute zugestellt.
}
