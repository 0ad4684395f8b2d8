package page

import (
	"bytes"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/tracking"
	"golang.org/x/text/language"
)

func sampleOrder() *tracking.PrivateOrder {
	return &tracking.PrivateOrder{
		ExternalID: "ORD-1",
		SiteName:   "Demo Outdoor Store",
		Cart:       &tracking.PrivateOrderCart{Items: []tracking.Item{{Name: "Mug", Quantity: 2}}},
		Parcels: []tracking.PrivateParcel{{
			TrackingNumber:        "TN1",
			DisplayCarrierName:    "FastPost",
			CarrierLink:           "https://track.example/fp?id=TN1",
			EstimatedDeliveryTime: &tracking.DateTimeRange{Start: "2026-11-23T08:00:00Z", End: "2026-11-23T18:00:00Z"},
			Alerts:                []tracking.Alert{{Type: tracking.AlertOutForDelivery, CreatedAt: "2026-11-22T09:30:00Z"}},
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

func TestRenderLocalized(t *testing.T) {
	tests := []struct {
		locale, accept string
		want           []string
	}{
		{"en-GB", "", []string{`lang="en"`, "Order ORD-1", "from Demo Outdoor Store", "On its way", "Your parcel is out for delivery today.",
			"Expected delivery", "2026-11-23 08:00–18:00", "Handed to the carrier", "Kiosk Central", "Drottninggatan 5", "11151 Stockholm",
			"10:00-14:00, 15:00-20:00", "Closed", "Follow the parcel at the carrier", "2 × Mug"}},
		{"sv-SE", "", []string{`lang="sv"`, "Beställning ORD-1", "På väg", "Paketet levereras i dag.", "Beräknad leverans", "Utlämningsställe", "Öppettider", "Mån", "Stängt"}},
		{"", "de-DE,de;q=0.9", []string{`lang="de"`, "Bestellung ORD-1", "Unterwegs", "Das Paket wird heute zugestellt.", "Abholstelle", "Geschlossen"}},
		{"fr-FR", "", []string{`lang="en"`, "On its way"}},
	}
	for _, tt := range tests {
		t.Run(tt.locale+tt.accept, func(t *testing.T) {
			var b bytes.Buffer
			if err := Render(&b, sampleOrder(), Match(tt.locale, tt.accept), Options{}); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("page lacks %q", w)
				}
			}
		})
	}
}

func TestRenderEscapes(t *testing.T) {
	o := sampleOrder()
	o.ExternalID = `<script>alert(1)</script>`
	o.Parcels[0].CarrierLink = "javascript:alert(1)"
	var b bytes.Buffer
	if err := Render(&b, o, language.English, Options{}); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); strings.Contains(s, "<script>") || strings.Contains(s, `href="javascript:`) {
		t.Errorf("unescaped content in page:\n%s", s)
	}
}

func TestRenderNotFound(t *testing.T) {
	var b bytes.Buffer
	if err := RenderNotFound(&b, language.Swedish); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Den här spårningslänken är inte giltig.") {
		t.Errorf("page = %s", b.String())
	}
}

func TestRenderExpired(t *testing.T) {
	tests := []struct {
		tag  language.Tag
		want string
	}{
		{language.English, `<p data-testid="expired">This tracking link has expired. Please ask the shop you ordered from for a new link.</p>`},
		{language.Swedish, `<p data-testid="expired">Den här spårningslänken har gått ut. Be butiken du handlade från om en ny länk.</p>`},
		{language.German, `<p data-testid="expired">Dieser Sendungslink ist abgelaufen. Bitte fragen Sie den Shop, bei dem Sie bestellt haben, nach einem neuen Link.</p>`},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		if err := RenderExpired(&b, tt.tag); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tt.want) || strings.Contains(b.String(), `data-testid="order"`) {
			t.Errorf("%s page = %s", tt.tag, b.String())
		}
	}
}

func TestCatalogComplete(t *testing.T) {
	keys := []string{
		"STEP_CONFIRMED_BY_MERCHANT", "STEP_PREPARED_BY_MERCHANT", "STEP_SUBMITTED_TO_CARRIER", "STEP_ON_ROUTE",
		"STEP_DELIVERED_TO_PICKUP_POINT", "STEP_DELIVERED_TO_CONSUMER", "STEP_TERMINATED", "STEP_SENT_BACK",
		"STEP_RETURN_REQUESTED", "STEP_DELIVERED_TO_MERCHANT", "STEP_AWAITING_SUPPLIER", "STEP_LINEHAUL_TO_CARRIER",
		"STEP_RETURN_APPROVED", "STEP_RETURN_DECLINED", "STEP_RETURN_COMPLETED", "STEP_REPLACEMENT_SENT", "STEP_RETURN_CANCELLED",
		"ALERT_DELIVERY_DELAYED", "ALERT_ESTIMATED_DELIVERY_TIME_UPDATED", "ALERT_DELIVERY_ATTEMPT_FAILED",
		"ALERT_OUT_FOR_DELIVERY", "ALERT_SUBMISSION_DELAYED", "ALERT_DELIVERY_DELAYED_FROM_CARRIER",
		"ALERT_AWAITING_SUPPLIER", "ALERT_LINEHAUL_TO_CARRIER",
	}
	for _, k := range keys {
		if _, ok := messages[k]; !ok {
			t.Errorf("no translation of %s", k)
		}
		if _, ok := english[k]; !ok {
			t.Errorf("no English text of %s", k)
		}
		for _, tag := range Supported {
			if got := printer(tag).Sprintf(k); got == k {
				t.Errorf("%s shows the raw key %s", tag, k)
			}
		}
	}
	for k := range english {
		if _, ok := messages[k]; !ok {
			t.Errorf("english text %s has no translations", k)
		}
	}
}
