package notify

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"
)

// Every notification name of the default rules has its own subject and
// body in every language, with the tracking number and the link in it.
func TestEveryNameInEveryLanguage(t *testing.T) {
	names := []Name{NameConfirmedByMerchant, NameSubmittedToCarrier, NameOutForDelivery, NameDeliveryAttemptFailed,
		NameReadyForPickup, NamePickupReminder, NameDeliveredToConsumer}
	for _, rule := range DefaultRules() {
		if rule.Name != "" && !slices.Contains(names, rule.Name) {
			t.Errorf("the default rules' name %s is not tested", rule.Name)
		}
	}
	const link = "https://portal.example/p/tt_1"
	for _, tag := range i18n.Supported {
		genericSubject, _ := text(tag, "NO_SUCH_NAME", "TN1", "")
		seen := map[string]Name{}
		for _, name := range names {
			subject, body := text(tag, name, "TN1", link)
			switch {
			case subject == genericSubject:
				t.Errorf("%s %s: the generic subject", tag, name)
			case strings.HasPrefix(subject, "notify."), strings.Contains(body, "notify."):
				t.Errorf("%s %s: a catalog key: %q / %q", tag, name, subject, body)
			case !strings.Contains(body, "TN1") || !strings.HasSuffix(body, link):
				t.Errorf("%s %s: body %q lacks the tracking number or the link", tag, name, body)
			case tag != language.English && subject == i18n.Text(language.English, "notify."+string(name)+".subject"):
				t.Errorf("%s %s: the English subject %q", tag, name, subject)
			}
			if other, dup := seen[subject]; dup {
				t.Errorf("%s: %s and %s have the same subject %q", tag, name, other, subject)
			}
			seen[subject] = name
		}
	}
}

func TestTextFallbacks(t *testing.T) {
	tests := []struct {
		name          string
		tag           language.Tag
		notification  Name
		link          string
		subject, body string
	}{
		{"English", language.English, NameOutForDelivery, "https://p.example/x",
			"Your parcel is out for delivery", "Your parcel TN1 is out for delivery today. Track it: https://p.example/x"},
		{"a custom name gets the generic text", language.German, "CUSTOM_NAME", "",
			"Neuigkeiten zu Ihrem Paket", "Es gibt Neuigkeiten zu Ihrem Paket TN1."},
		{"a language without texts gets English", language.MustParse("pl-PL"), NameDeliveredToConsumer, "",
			"Your parcel has been delivered", "Your parcel TN1 has been delivered."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, b := text(i18n.Match(tt.tag.String()), tt.notification, "TN1", tt.link)
			if diff := cmp.Diff([2]string{tt.subject, tt.body}, [2]string{s, b}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The notification is written in the order's language, also when sent
// again.
func TestNotificationInTheOrdersLanguage(t *testing.T) {
	tests := []struct {
		locale                  string
		subject, body, language string
	}{
		{"sv-SE", "Ditt paket levereras i dag", "Ditt paket TN1 är ute för leverans och kommer i dag. Följ paketet: https://portal.example/p/tt_1", "sv"},
		{"nb-NO", "Pakken din leveres i dag", "Pakken din TN1 er ute for levering og kommer i dag. Spor pakken: https://portal.example/p/tt_1", "nb"},
		{"fi", "Pakettisi toimitetaan tänään", "Pakettisi TN1 on jakelussa ja toimitetaan tänään. Seuraa pakettia: https://portal.example/p/tt_1", "fi"},
		{"", "Your parcel is out for delivery", "Your parcel TN1 is out for delivery today. Track it: https://portal.example/p/tt_1", "en"},
	}
	for _, tt := range tests {
		t.Run(tt.locale, func(t *testing.T) {
			f := newFixture(t)
			ctx := context.Background()
			ev := event("ALERT_OUT_FOR_DELIVERY", t0)
			ev.Phone, ev.Locale = "", tt.locale
			if err := f.svc.Observe(ctx, ev); err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.Dispatch(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := f.svc.Retrigger(ctx, "site-a", "ntf_000001"); err != nil {
				t.Fatal(err)
			}
			f.sender.mu.Lock()
			defer f.sender.mu.Unlock()
			if len(f.sender.sent) != 2 {
				t.Fatalf("sent %d messages, want 2", len(f.sender.sent))
			}
			for _, m := range f.sender.sent {
				if diff := cmp.Diff([3]string{tt.subject, tt.body, tt.language}, [3]string{m.Subject, m.Body, m.Language}); diff != "" {
					t.Errorf("message (-want +got):\n%s", diff)
				}
			}
		})
	}
}
