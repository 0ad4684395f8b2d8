package deliverykittest_test

import (
	"errors"
	"flag"
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/httpapi"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/tracking"
	"github.com/deliverykit/deliverykit/webhook"
)

var exampleRuns = flag.Int("kit.example-runs", 50, "how many times TestExamplesAreDeterministic runs each example")

// examples are the package's examples by name.
var examples = map[string]func(){
	"":                Example,
	"Kit_MakeLate":    ExampleKit_MakeLate,
	"Kit_NewSite":     ExampleKit_NewSite,
	"Kit_ReturnItems": ExampleKit_ReturnItems,
	"Kit_SetOutcome":  ExampleKit_SetOutcome,
}

// capture returns what f prints to standard output.
func capture(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	out := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		out <- string(b)
	}()
	stdout := os.Stdout
	os.Stdout = w
	func() {
		defer func() { os.Stdout = stdout }()
		f()
	}()
	w.Close()
	return <-out
}

// Every example prints its documented output on every run: the kit's
// clock, ids and randomness make a run repeat exactly (run under -race,
// this also holds the kit's goroutines to the race detector).
func TestExamplesAreDeterministic(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "example_test.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	documented := doc.Examples(f)
	if len(documented) != len(examples) {
		t.Fatalf("example_test.go has %d examples, the table %d", len(documented), len(examples))
	}
	for _, ex := range documented {
		run, ok := examples[ex.Name]
		if !ok {
			t.Fatalf("example %q is not in the table", ex.Name)
		}
		want := strings.TrimSpace(ex.Output)
		if want == "" {
			t.Fatalf("example %q has no output to compare", ex.Name)
		}
		for i := range *exampleRuns {
			if got := strings.TrimSpace(capture(t, run)); got != want {
				t.Fatalf("example %q, run %d (-want +got):\n%s", ex.Name, i+1, cmp.Diff(want, got))
			}
		}
	}
}

// The kit works on a copy of the configuration it is given.
func TestConfigLeftAlone(t *testing.T) {
	cfg := config.Demo()
	kit := deliverykittest.Start(t, deliverykittest.Options{Config: cfg})
	if diff := cmp.Diff(config.Demo(), cfg); diff != "" {
		t.Errorf("the configuration changed (-before +after):\n%s", diff)
	}
	if n := len(kit.Config.Sites[0].Webhooks); n != 1 || kit.Config.Sites[0].Webhooks[0].ID != deliverykittest.WebhookEndpoint {
		t.Errorf("the kit's configuration has %d endpoints: %+v", n, kit.Config.Sites[0].Webhooks)
	}
}

// The kit's key of a site opens that site's data, and no other's.
func TestAPIKey(t *testing.T) {
	kit := deliverykittest.Start(t, deliverykittest.Options{})
	for _, tt := range []struct {
		auth string
		want int
	}{
		{kit.BearerAuth("demo-site-2"), 200},
		{kit.BearerAuth("demo-site"), 403},
		{"Bearer bm90LWEta2V5", 401},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", deliverykittest.BaseURL+"/v1/delivery_tracking/orders?site_id=demo-site-2", nil)
		req.Header.Set("Authorization", tt.auth)
		resp, err := kit.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.want {
			t.Errorf("%s: %d, want %d", tt.auth, resp.StatusCode, tt.want)
		}
	}
}

// A delivery whose signature does not verify is recorded with the reason.
func TestForgedWebhookIsRecorded(t *testing.T) {
	kit := deliverykittest.Start(t, deliverykittest.Options{})
	url := kit.Config.Sites[0].Webhooks[0].URL
	req, _ := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(`{"type":"parcel.changed","timestamp":"2026-11-23T09:00:00Z","data":{"subject":"X"}}`))
	req.Header.Set(webhook.HeaderID, "evt_forged")
	req.Header.Set(webhook.HeaderTimestamp, "1795424400")
	req.Header.Set(webhook.HeaderSignature, "v1,Zm9yZ2Vk")
	resp, err := httpapi.NewInProcessClient(kit.WebhookReceiver()).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := kit.Webhooks(event.TypeParcelChanged)
	if len(got) != 1 || got[0].Subject != "X" || got[0].Site != "demo-site" || !errors.Is(got[0].SignatureErr, webhook.ErrSignature) {
		t.Errorf("recorded %+v", got)
	}
	if _, err := deliverykittest.Decode[event.OrderCompleted](got[0]); err == nil {
		t.Error("decoded a parcel.changed as an order.completed")
	}
}

// Advance sends what falls due between the simulator's steps within a
// step of its time: the pickup reminder three days after the arrival.
func TestAdvanceSendsWithinAStep(t *testing.T) {
	ctx := t.Context()
	kit := deliverykittest.Start(t, deliverykittest.Options{Step: 10 * time.Minute})
	parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{})
	if err != nil {
		t.Fatal(err)
	}
	if err := kit.SetOutcome(ctx, parcel.TrackingNumber, carrier.OutcomeCollectedLate); err != nil {
		t.Fatal(err)
	}
	if err := kit.Advance(ctx, -time.Second); err == nil {
		t.Error("the clock went back")
	}
	if err := kit.Advance(ctx, 10*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	if want := kit.Clock.Now(); !want.Equal(deliverykittest.DefaultStart.Add(10 * 24 * time.Hour)) {
		t.Errorf("the clock reads %v", want)
	}
	list, err := kit.Services.Notify.List(ctx, "demo-site", parcel.Order.ExternalID)
	if err != nil {
		t.Fatal(err)
	}
	reminders := 0
	for _, n := range list.Notifications {
		if n.Name != notify.NamePickupReminder {
			continue
		}
		reminders++
		scheduled, _ := time.Parse(time.RFC3339Nano, n.ScheduledAt)
		sent, _ := time.Parse(time.RFC3339Nano, n.TriggeredAt)
		if d := sent.Sub(scheduled); n.Status != notify.StatusTriggered || d < 0 || d > 10*time.Minute {
			t.Errorf("reminder %s scheduled %s, sent %s", n.Status, n.ScheduledAt, n.TriggeredAt)
		}
	}
	if reminders != 2 { // e-mail and text message
		t.Errorf("%d reminders, want 2: %+v", reminders, list.Notifications)
	}
}

// Rates make parcels go wrong at random, from the seed.
func TestRates(t *testing.T) {
	ctx := t.Context()
	kit := deliverykittest.Start(t, deliverykittest.Options{Rates: &carrier.Rates{FailedAttempt: 1}, Seed: 99})
	if _, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{Option: "home/north-parcel-home"}); err != nil {
		t.Fatal(err)
	}
	if err := kit.Advance(ctx, 4*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	want := "SUBMITTED_TO_CARRIER OUT_FOR_DELIVERY DELIVERY_ATTEMPT_FAILED OUT_FOR_DELIVERY DELIVERED_TO_CONSUMER"
	if got := names(kit.Sent(notify.ChannelEmail)); got != want {
		t.Errorf("e-mails %q, want %q", got, want)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []deliverykittest.Options{
		{Config: &config.Config{}},
		{Rates: &carrier.Rates{Lost: 2}},
	} {
		if _, err := deliverykittest.New(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// Kits are independent: several run at once, each on its own clock, with
// the same results (under -race, this also shows that they share the
// demo configuration only for reading).
func TestKitsInParallel(t *testing.T) {
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			kit := deliverykittest.Start(t, deliverykittest.Options{})
			parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{})
			if err != nil {
				t.Fatal(err)
			}
			if err := kit.Advance(ctx, 72*time.Hour); err != nil {
				t.Fatal(err)
			}
			p, err := kit.Parcel(ctx, parcel.TrackingNumber)
			if err != nil {
				t.Fatal(err)
			}
			if p.CurrentProgress == nil || p.CurrentProgress.Step != "STEP_DELIVERED_TO_CONSUMER" || parcel.TrackingNumber != "CP000000014SE" {
				t.Errorf("parcel %s: %+v", parcel.TrackingNumber, p.CurrentProgress)
			}
		})
	}
}

// TestSimulatedExceptions: what goes wrong on a simulated route shows in
// tracking's exceptions: a pickup never collected, a parcel lost.
func TestSimulatedExceptions(t *testing.T) {
	tests := []struct {
		outcome carrier.Outcome
		want    []string
	}{
		{carrier.OutcomeSentBack, []string{"NOT_COLLECTED", "RETURNED_TO_SENDER"}},
		{carrier.OutcomeLost, []string{"LOST"}},
	}
	for _, tt := range tests {
		t.Run(string(tt.outcome), func(t *testing.T) {
			ctx := t.Context()
			kit := deliverykittest.Start(t, deliverykittest.Options{})
			p, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{Option: "pickup/north-parcel-point/np-se-101"})
			if err != nil {
				t.Fatal(err)
			}
			if err := kit.SetOutcome(ctx, p.TrackingNumber, tt.outcome); err != nil {
				t.Fatal(err)
			}
			if err := kit.Advance(ctx, 30*24*time.Hour); err != nil {
				t.Fatal(err)
			}
			res, err := kit.Services.Tracking.Orders(ctx, kit.Site, tracking.OrdersQuery{ExternalID: p.Checkout.Order.ExternalID})
			if err != nil || len(res.Orders) != 1 || len(res.Orders[0].Parcels) != 1 {
				t.Fatalf("the order: %v, %+v", err, res)
			}
			var got []string
			for _, e := range res.Orders[0].Parcels[0].Exceptions {
				got = append(got, string(e.Status))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("exceptions (-want +got):\n%s", diff)
			}
		})
	}
}
