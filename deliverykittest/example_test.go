package deliverykittest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/deliverykittest"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment/carrier"
	"github.com/deliverykit/deliverykit/tracking"
)

// stockholm is where the demo warehouse is: times are shown there.
var stockholm, _ = time.LoadLocation("Europe/Stockholm")

// names lists the notifications a channel sent.
func names(ms []notify.Message) string {
	var out []string
	for _, m := range ms {
		out = append(out, string(m.Name))
	}
	return strings.Join(out, " ")
}

// progress lists the steps and alerts of the parcel.changed deliveries
// the merchant's webhook endpoint received.
func progress(kit *deliverykittest.Kit) string {
	var out []string
	for _, d := range kit.Webhooks(event.TypeParcelChanged) {
		c, err := deliverykittest.Decode[event.ParcelChanged](d)
		if err != nil || d.SignatureErr != nil {
			return fmt.Sprint("bad delivery: ", err, d.SignatureErr)
		}
		out = append(out, c.Time.In(stockholm).Format("Mon 15:04 ")+c.Step+c.Alert)
	}
	return strings.Join(out, "\n")
}

// A customer checks out with home delivery; the merchant ships the order.
// Two days later the parcel has arrived: the customer was told it was on
// its way and delivered, and the merchant's webhook endpoint saw every
// step, each delivery signed.
func Example() {
	ctx := context.Background()
	kit, err := deliverykittest.New(deliverykittest.Options{})
	if err != nil {
		panic(err)
	}

	parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "order-1001", Option: "home/north-parcel-home"})
	if err != nil {
		panic(err)
	}
	if err := kit.Advance(ctx, 48*time.Hour); err != nil {
		panic(err)
	}
	fmt.Println("e-mails:", names(kit.Sent(notify.ChannelEmail)))
	fmt.Println("text messages:", names(kit.Sent(notify.ChannelSMS)))
	fmt.Println(progress(kit))

	// The merchant's own code reads the parcel over HTTP.
	req, _ := http.NewRequest("GET", deliverykittest.BaseURL+"/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number="+parcel.TrackingNumber, nil)
	req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte(kit.APIKey("demo-site"))))
	resp, err := kit.Client.Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var body struct {
		Parcels []struct {
			CurrentProgress struct{ Step string } `json:"current_progress"`
		}
	}
	json.NewDecoder(resp.Body).Decode(&body)
	fmt.Println(resp.Status, body.Parcels[0].CurrentProgress.Step)
	// Output:
	// e-mails: SUBMITTED_TO_CARRIER OUT_FOR_DELIVERY DELIVERED_TO_CONSUMER
	// text messages: SUBMITTED_TO_CARRIER OUT_FOR_DELIVERY DELIVERED_TO_CONSUMER
	// Mon 13:34 STEP_SUBMITTED_TO_CARRIER
	// Mon 18:43 STEP_ON_ROUTE
	// Tue 08:52 ALERT_OUT_FOR_DELIVERY
	// Tue 14:27 STEP_DELIVERED_TO_CONSUMER
	// 200 OK STEP_DELIVERED_TO_CONSUMER
}

// A parcel runs late: the carrier says so on the last day of the promise,
// tracking raises ALERT_DELIVERY_DELAYED once the promise has passed, and
// the customer's tracking page says the delivery is delayed until the
// parcel arrives.
func ExampleKit_MakeLate() {
	ctx := context.Background()
	kit, err := deliverykittest.New(deliverykittest.Options{})
	if err != nil {
		panic(err)
	}

	parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{Option: "home/north-parcel-home"})
	if err != nil {
		panic(err)
	}
	fmt.Println("promised by", parcel.Promise.Latest.Format("Mon 15:04 MST"))
	if err := kit.MakeLate(ctx, parcel.TrackingNumber); err != nil {
		panic(err)
	}
	if err := kit.AdvanceTo(ctx, parcel.Promise.Latest.Add(time.Hour)); err != nil {
		panic(err)
	}
	p, _ := kit.Parcel(ctx, parcel.TrackingNumber)
	for _, a := range p.Alerts {
		at, _ := time.Parse(time.RFC3339, a.CreatedAt)
		fmt.Println(at.In(stockholm).Format("Mon 15:04"), a.Type)
	}
	page, _ := kit.TrackingPage(ctx, parcel.TrackingNumber, "en-US")
	fmt.Println("page says delayed:", strings.Contains(page, "Your delivery is delayed."))

	if err := kit.Advance(ctx, 48*time.Hour); err != nil {
		panic(err)
	}
	p, _ = kit.Parcel(ctx, parcel.TrackingNumber)
	at, _ := time.Parse(time.RFC3339, p.CurrentProgress.Time)
	fmt.Println(at.In(stockholm).Format("Mon 15:04"), p.CurrentProgress.Step)
	page, _ = kit.TrackingPage(ctx, parcel.TrackingNumber, "en-US")
	fmt.Println("page says delayed:", strings.Contains(page, "Your delivery is delayed."))
	// Output:
	// promised by Wed 23:59 CET
	// Wed 08:30 ALERT_DELIVERY_DELAYED_FROM_CARRIER
	// Wed 23:59 ALERT_DELIVERY_DELAYED
	// page says delayed: true
	// Thu 14:27 STEP_DELIVERED_TO_CONSUMER
	// page says delayed: false
}

// The customer returns item 2 of a delivered order: the return label is a
// parcel of its own, which the customer hands in and which travels back
// to the warehouse.
func ExampleKit_ReturnItems() {
	ctx := context.Background()
	kit, err := deliverykittest.New(deliverykittest.Options{})
	if err != nil {
		panic(err)
	}

	parcel, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{})
	if err != nil {
		panic(err)
	}
	if err := kit.Advance(ctx, 72*time.Hour); err != nil {
		panic(err)
	}
	ret, err := kit.ReturnItems(ctx, parcel.Checkout, 2)
	if err != nil {
		panic(err)
	}
	fmt.Println("return", ret.ID, ret.Status, "of line", ret.Items[0].ForeignLineItemID, "parcel", ret.TrackingNumber)
	if err := kit.Advance(ctx, 7*24*time.Hour); err != nil {
		panic(err)
	}
	p, _ := kit.Parcel(ctx, ret.TrackingNumber)
	for _, s := range p.ProgressHistory {
		at, _ := time.Parse(time.RFC3339, s.Time)
		fmt.Println(at.In(stockholm).Format("Mon 2 Jan 15:04"), s.Step)
	}
	// Output:
	// return 1 AWAITING_RETURN of line 2 parcel CP000000028SE
	// Fri 27 Nov 13:48 STEP_DELIVERED_TO_MERCHANT
	// Thu 26 Nov 16:36 STEP_ON_ROUTE
	// Thu 26 Nov 11:02 STEP_SUBMITTED_TO_CARRIER
}

// A parcel waits at the pickup point: collected only after the reminder,
// or not at all, when it goes back to the merchant.
func ExampleKit_SetOutcome() {
	ctx := context.Background()
	kit, err := deliverykittest.New(deliverykittest.Options{})
	if err != nil {
		panic(err)
	}

	late, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "order-late"})
	if err != nil {
		panic(err)
	}
	never, err := kit.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "order-never"})
	if err != nil {
		panic(err)
	}
	kit.SetOutcome(ctx, late.TrackingNumber, carrier.OutcomeCollectedLate)
	kit.SetOutcome(ctx, never.TrackingNumber, carrier.OutcomeSentBack)
	if err := kit.Advance(ctx, 14*24*time.Hour); err != nil {
		panic(err)
	}
	for _, m := range kit.Sent(notify.ChannelEmail) {
		fmt.Println(m.ExternalID, m.Name)
	}
	for _, tn := range []string{late.TrackingNumber, never.TrackingNumber} {
		p, _ := kit.Parcel(ctx, tn)
		fmt.Println(tn, p.CurrentProgress.Step)
	}
	// Output:
	// order-late SUBMITTED_TO_CARRIER
	// order-never SUBMITTED_TO_CARRIER
	// order-never READY_FOR_PICKUP
	// order-late READY_FOR_PICKUP
	// order-never PICKUP_REMINDER
	// order-late PICKUP_REMINDER
	// order-late DELIVERED_TO_CONSUMER
	// CP000000014SE STEP_DELIVERED_TO_CONSUMER
	// CP000000028SE STEP_DELIVERED_TO_MERCHANT
}

// A test of its own: a test site of the kit's site, where the parcel is
// lost. Six days on its clock later the parcel has the LOST exception and
// the merchant's endpoint has heard of it; the kit's own site, and its
// clock, have not moved.
func ExampleKit_NewSite() {
	ctx := context.Background()
	kit, err := deliverykittest.New(deliverykittest.Options{})
	if err != nil {
		panic(err)
	}
	site, err := kit.NewSite(ctx) // as POST /v1/test/sites makes one
	if err != nil {
		panic(err)
	}
	parcel, err := site.CheckoutAndShip(ctx, deliverykittest.Order{ExternalID: "order-1001", Scenario: carrier.ScenarioLost})
	if err != nil {
		panic(err)
	}
	ran, err := site.AdvanceSite(ctx, 6*24*time.Hour) // as POST /v1/test/clock:advance
	if err != nil {
		panic(err)
	}
	fmt.Println("ran:", ran.CarrierEvents, "carrier events,", ran.Notifications, "notifications")
	orders, err := site.Services.Tracking.Orders(ctx, site.Site, tracking.OrdersQuery{ExternalID: parcel.Order.ExternalID})
	if err != nil {
		panic(err)
	}
	for _, e := range orders.Orders[0].Parcels[0].Exceptions {
		fmt.Println("exception:", e.Status)
	}
	fmt.Println(progress(site))
	fmt.Println("the kit's site:", len(kit.Webhooks()), "webhooks; its clock:", kit.Clock.Now().In(stockholm).Format("Mon 15:04"))
	// Output:
	// ran: 3 carrier events, 2 notifications
	// exception: LOST
	// Mon 15:00 STEP_SUBMITTED_TO_CARRIER
	// Mon 17:00 STEP_ON_ROUTE
	// Sat 15:00 STEP_TERMINATED
	// the kit's site: 0 webhooks; its clock: Mon 10:00
}
