package console

import (
	"net/http"

	"github.com/deliverykit/deliverykit/webhook"
	"sort"
	"strings"
)

// overviewDays is how far back the overview looks: its longest period
// and its charts.
const overviewDays = 30

// deadShown bounds the dead events the overview counts: one page of the
// outbox's list, shown as "100+" beyond.
const deadShown = 100

// figure is one row of the overview's table: a counter over today, the
// last 7 and the last 30 days.
type figure struct {
	Name                 string
	Today, Week, Month   int64
	Highlight, Breakdown bool
	// Rates, when set, are shown instead of the counts: a percentage
	// over today, 7 and 30 days.
	Rates []string
}

// gaugeRow is a number that is true now.
type gaugeRow struct {
	Name  string
	Value int64
}

// chartView is a chart with its heading.
type chartView struct {
	Name   string
	Points []Point
}

type overviewView struct {
	base
	Figures    []figure
	Gauges     []gaugeRow
	Charts     []chartView
	Completion string // delivered of booked over 30 days
	Failure    string // failed notifications over 30 days
	Dead       int
	DeadMore   bool
	HasOutbox  bool
	// Prices are the average shipping price per currency over 30 days.
	Prices []string
	// Webhooks is the share of the recent webhook deliveries that failed
	// (retrying or dead), of WebhookSample tried; empty without webhooks.
	Webhooks      string
	WebhookSample int
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request, rq *request) error {
	f, hasSessions, err := c.figures(r.Context(), rq.Site, c.opts.Clock.Now(), overviewDays)
	if err != nil {
		return err
	}
	sum := func(name string, n int) int64 {
		var t int64
		for _, d := range f.days[len(f.days)-n:] {
			t += d.Counts[name]
		}
		return t
	}
	row := func(name string) figure {
		return figure{Name: name, Today: sum(name, 1), Week: sum(name, 7), Month: sum(name, overviewDays)}
	}
	v := overviewView{base: c.base(rq, "overview", rq.loc.T("overview.title"))}
	if hasSessions {
		// Completed of created: a session completes at most once, so the
		// rate is at most 100 % but for sessions created the day before.
		rate := func(n int) string { return rq.loc.Pct(sum(cOrders, n), sum(cSessions, n)) }
		v.Figures = append(v.Figures, row(cSessions),
			figure{Name: "completion", Rates: []string{rate(1), rate(7), rate(overviewDays)}})
	}
	for _, name := range []string{cOrders, cParcelsBooked, cParcelsDelivered, cExceptions} {
		v.Figures = append(v.Figures, row(name))
	}
	for _, name := range []string{cFailedAttempt, cDelayed, cLost, cNotCollected} {
		fr := row(name)
		fr.Breakdown = true
		v.Figures = append(v.Figures, fr)
	}
	for _, name := range []string{cReturnsCreated, cNotificationsSent, cNotificationsFailed} {
		v.Figures = append(v.Figures, row(name))
	}
	v.Completion = rq.loc.Pct(sum(cParcelsDelivered, overviewDays), sum(cParcelsBooked, overviewDays))
	v.Failure = rq.loc.Pct(sum(cNotificationsFailed, overviewDays), sum(cNotificationsSent, overviewDays)+sum(cNotificationsFailed, overviewDays))
	v.Gauges = append(v.Gauges, gaugeRow{gInTransit, max(f.gauges[gInTransit], 0)})
	for _, st := range []string{"AWAITING_RETURN", "IN_TRANSIT", "AWAITING_REFUND", "AWAITING_EXCHANGE"} {
		v.Gauges = append(v.Gauges, gaugeRow{gReturnPrefix + st, max(f.gauges[gReturnPrefix+st], 0)})
	}
	prices, priced := map[string]int64{}, map[string]int64{}
	for _, d := range f.days {
		for k, n := range d.Counts {
			if cur, ok := strings.CutPrefix(k, cPricePrefix); ok {
				prices[cur] += n
			} else if cur, ok := strings.CutPrefix(k, cPricedPrefix); ok {
				priced[cur] += n
			}
		}
	}
	for _, cur := range currencies(priced) {
		if n := priced[cur]; n > 0 {
			v.Prices = append(v.Prices, rq.loc.Money(prices[cur]/n, cur))
		}
	}
	charted := []string{cOrders, cParcelsBooked, cExceptions}
	if hasSessions {
		charted = append([]string{cSessions}, charted...)
	}
	for _, name := range charted {
		cv := chartView{Name: name}
		for _, d := range f.days {
			cv.Points = append(cv.Points, Point{Label: rq.loc.Date(d.Date), Value: d.Counts[name]})
		}
		v.Charts = append(v.Charts, cv)
	}
	if c.opts.Outbox != nil {
		v.HasOutbox = true
		dead, err := c.opts.Outbox.Dead(r.Context(), rq.Site, "", deadShown)
		if err != nil {
			return err
		}
		v.Dead, v.DeadMore = len(dead), len(dead) == deadShown
	}
	if c.opts.Webhooks != nil {
		failed, n, err := c.webhookFailures(r, rq.Site)
		if err != nil {
			return err
		}
		v.Webhooks, v.WebhookSample = rq.loc.Pct(int64(failed), int64(n)), n
	}
	c.render(w, r, http.StatusOK, "overview", v)
	return nil
}

// webhookSample is how many of each endpoint's newest deliveries the
// overview's failure rate looks at: a bounded read, the same cost however
// many deliveries the store keeps.
const webhookSample = 50

// webhookFailures counts the failed (retrying or dead) deliveries among
// the newest webhookSample of each of the site's endpoints.
func (c *Console) webhookFailures(r *http.Request, site string) (failed, n int, err error) {
	eps, err := c.opts.Webhooks.Endpoints(r.Context(), site)
	if err != nil {
		return 0, 0, err
	}
	for _, ep := range eps {
		page, err := c.opts.Webhooks.Deliveries(r.Context(), site, ep.ID, webhook.DeliveriesQuery{Limit: webhookSample})
		if err != nil {
			return 0, 0, err
		}
		for _, d := range page.Deliveries {
			if d.Status == webhook.StatusPending {
				continue // not tried yet
			}
			n++
			if d.Status == webhook.StatusRetrying || d.Status == webhook.StatusDead {
				failed++
			}
		}
	}
	return failed, n, nil
}

// currencies are the keys of priced, sorted.
func currencies(priced map[string]int64) []string {
	out := make([]string, 0, len(priced))
	for k := range priced {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
