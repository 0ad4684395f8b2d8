package console

import (
	"cmp"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/promise"
)

// shareRow is one option of the checkout page: its orders and their
// share of all orders.
type shareRow struct {
	Name  string
	Count int64
	Share string
	Bar   template.HTML
}

type checkoutView struct {
	base
	Orders int64
	Types  []shareRow
	Prods  []shareRow
	Prices []priceRow
	// VoucherOrders are the orders with a voucher; Vouchers the orders by
	// code ("…" for the codes past a day's bound).
	VoucherOrders int64
	VoucherShare  string
	Vouchers      []shareRow
	ByDay         chartView
	Empty         bool
	// HasSessions is set when the areas count sessions: then Sessions
	// charts them by day and Completion is orders of sessions over 7 and
	// 30 days.
	HasSessions  bool
	Sessions     chartView
	SessionCount int64
	Completion   [2]string
	// Promises are the promise accuracy by product and by week, when the
	// console has Options.Promises.
	HasPromises    bool
	PromiseParcels int64
	Promises       []promiseTable
}

// promiseTable is the promise accuracy grouped one way: Col names the
// group's column; Code shows keys as code (product refs).
type promiseTable struct {
	Title, Col string
	Code       bool
	Rows       []promiseRow
}

// promiseRow is one group of the promise accuracy report.
type promiseRow struct {
	Key, OnTime, Early, Late, P90 string
	Parcels                       int64
}

// promiseRowsShown bounds the products the checkout page lists, most
// parcels first; weeks are at most five in 30 days.
const promiseRowsShown = 20

// priceRow is the average shipping price of one currency over 7 and 30
// days.
type priceRow struct {
	Currency    string
	Week, Month string
}

// checkoutPage shows what customers choose at checkout over 30 days:
// delivery types and carrier products with their shares, the average
// shipping price, the vouchers used, and completed orders by day, all
// from the counters.
func (c *Console) checkoutPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	f, hasSessions, err := c.figures(r.Context(), rq.Site, c.opts.Clock.Now(), overviewDays)
	if err != nil {
		return err
	}
	v := checkoutView{base: c.base(rq, "checkout", rq.loc.T("checkout.title")), HasSessions: hasSessions}
	v.Sessions = chartView{Name: cSessions}
	var sessions7, orders7 int64
	types, prods, vouchers := map[string]int64{}, map[string]int64{}, map[string]int64{}
	prices := map[string][2]int64{} // currency → price sum, orders; over 7 days
	prices30 := map[string][2]int64{}
	v.ByDay = chartView{Name: cOrders}
	for i, d := range f.days {
		v.Orders += d.Counts[cOrders]
		v.ByDay.Points = append(v.ByDay.Points, Point{Label: rq.loc.Date(d.Date), Value: d.Counts[cOrders]})
		v.Sessions.Points = append(v.Sessions.Points, Point{Label: rq.loc.Date(d.Date), Value: d.Counts[cSessions]})
		v.SessionCount += d.Counts[cSessions]
		if i >= len(f.days)-7 {
			sessions7 += d.Counts[cSessions]
			orders7 += d.Counts[cOrders]
		}
		for k, n := range d.Counts {
			switch {
			case strings.HasPrefix(k, cTypePrefix):
				types[k[len(cTypePrefix):]] += n
			case strings.HasPrefix(k, cProductPrefix):
				prods[k[len(cProductPrefix):]] += n
			case k == cVoucherOrders:
				v.VoucherOrders += n
			case strings.HasPrefix(k, cVoucherPrefix):
				vouchers[k[len(cVoucherPrefix):]] += n
			case strings.HasPrefix(k, cPricePrefix), strings.HasPrefix(k, cPricedPrefix):
				cur, slot := strings.TrimPrefix(k, cPricePrefix), 0
				if strings.HasPrefix(k, cPricedPrefix) {
					cur, slot = k[len(cPricedPrefix):], 1
				}
				p := prices30[cur]
				p[slot] += n
				prices30[cur] = p
				if i >= len(f.days)-7 {
					p := prices[cur]
					p[slot] += n
					prices[cur] = p
				}
			}
		}
	}
	v.Empty = v.Orders == 0
	v.Completion = [2]string{rq.loc.Pct(orders7, sessions7), rq.loc.Pct(v.Orders, v.SessionCount)}
	v.Types = shares(rq.loc, types, v.Orders, func(k string) string { return rq.loc.T("type." + k) })
	v.Prods = shares(rq.loc, prods, v.Orders, func(k string) string { return k })
	v.VoucherShare = rq.loc.Pct(v.VoucherOrders, v.Orders)
	v.Vouchers = shares(rq.loc, vouchers, v.Orders, func(k string) string { return cmp.Or(k, "…") })
	v.Vouchers = v.Vouchers[:min(len(v.Vouchers), maxVoucherCodes)]
	avg := func(p [2]int64, cur string) string {
		if p[1] == 0 {
			return "–"
		}
		return rq.loc.Money(p[0]/p[1], cur)
	}
	curs := make([]string, 0, len(prices30))
	for cur := range prices30 {
		curs = append(curs, cur)
	}
	sort.Strings(curs)
	for _, cur := range curs {
		v.Prices = append(v.Prices, priceRow{Currency: cur, Week: avg(prices[cur], cur), Month: avg(prices30[cur], cur)})
	}
	if c.opts.Promises != nil {
		v.HasPromises = true
		to := c.opts.Clock.Now()
		from := to.AddDate(0, 0, -(overviewDays - 1))
		prods, err := c.promiseRows(r, rq, promise.GroupByProduct, from, to)
		if err != nil {
			return err
		}
		weeks, err := c.promiseRows(r, rq, promise.GroupByWeek, from, to)
		if err != nil {
			return err
		}
		for _, w := range weeks {
			v.PromiseParcels += w.Parcels
		}
		v.Promises = []promiseTable{{Title: "checkout.promises_by_product", Col: "overview.product", Code: true, Rows: prods},
			{Title: "checkout.promises_by_week", Col: "checkout.week", Rows: weeks}}
	}
	c.render(w, r, http.StatusOK, "checkout", v)
	return nil
}

// promiseRows are the rows of the site's promise accuracy from from to to
// grouped by group: products with the most parcels first (at most
// promiseRowsShown), weeks in order.
func (c *Console) promiseRows(r *http.Request, rq *request, group string, from, to time.Time) ([]promiseRow, error) {
	rep, err := c.opts.Promises.Report(r.Context(), rq.Site, promise.ReportRequest{From: from, To: to, GroupBy: group})
	if err != nil {
		return nil, err
	}
	rows := slices.Clone(rep.Rows)
	if group == promise.GroupByWeek {
		slices.SortFunc(rows, func(a, b promise.ReportRow) int { return strings.Compare(a.Key, b.Key) })
	} else {
		slices.SortStableFunc(rows, func(a, b promise.ReportRow) int {
			return cmp.Or(cmp.Compare(b.Parcels, a.Parcels), strings.Compare(a.Key, b.Key))
		})
		rows = rows[:min(len(rows), promiseRowsShown)]
	}
	out := make([]promiseRow, 0, len(rows))
	for _, row := range rows {
		n := int64(row.Parcels)
		out = append(out, promiseRow{Key: row.Key, Parcels: n, OnTime: rq.loc.Pct(int64(row.OnTime), n),
			Early: rq.loc.Pct(int64(row.Early), n), Late: rq.loc.Pct(int64(row.Late), n), P90: rq.loc.Hours(row.P90LatenessHours)})
	}
	return out, nil
}

// shares are the rows of counts, largest first, each with its share of
// total and a bar drawing it.
func shares(loc localizer, counts map[string]int64, total int64, name func(string) string) []shareRow {
	rows := make([]shareRow, 0, len(counts))
	for k, n := range counts {
		rows = append(rows, shareRow{Name: name(k), Count: n, Share: loc.Pct(n, total), Bar: bar(n, total)})
	}
	sort.Slice(rows, func(i, j int) bool {
		return rows[i].Count > rows[j].Count || rows[i].Count == rows[j].Count && rows[i].Name < rows[j].Name
	})
	return rows
}

// bar draws part of whole as a horizontal SVG bar (decorative: the share
// is written beside it).
func bar(part, whole int64) template.HTML {
	w := 0.0
	if whole > 0 {
		w = 100 * float64(part) / float64(whole)
	}
	return template.HTML(fmt.Sprintf(`<svg class="share" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="track" width="100" height="8"/><rect class="bar" width="%.1f" height="8"/></svg>`, w))
}
