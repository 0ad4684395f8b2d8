package promise

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// Groupings of a report (ReportRequest.GroupBy).
const (
	GroupByProduct = "product"
	GroupByZone    = "zone"
	GroupByOrigin  = "origin"
	GroupByWeek    = "week"
)

// Bounds of a report.
const (
	// MaxReportRows is the most rows a report has; Report.Truncated
	// says when groups were left out (the last by key).
	MaxReportRows = 1000
	// MaxReportDays is the longest range a report covers.
	MaxReportDays = 400
	// DefaultReportDays is the range of a report without From.
	DefaultReportDays = 30
)

// SourceMixed is a row's PromiseSource when its parcels were promised
// from several sources.
const SourceMixed = "mixed"

// ReportRequest asks for the promise accuracy of the parcels delivered
// from From to To (whole days, UTC; To included), grouped by GroupBy.
type ReportRequest struct {
	// From defaults to DefaultReportDays before To; To to today.
	From, To time.Time
	// GroupBy is one of GroupByProduct, GroupByZone, GroupByOrigin,
	// GroupByWeek. Required.
	GroupBy string
}

// Report is the promise accuracy of a site's delivered parcels.
type Report struct {
	Rows []ReportRow `json:"rows"`
	// Truncated is set when there were more than MaxReportRows groups.
	Truncated bool `json:"truncated,omitempty"`
}

// ReportRow is one group's parcels. On time is delivered inside the
// promised window; lateness is hours after its end (negative: before its
// start; 0 inside it).
type ReportRow struct {
	// Key is the group: a product ref, a zone ("SE:11"), a warehouse id
	// or an ISO week ("2026-W48") of the delivery.
	Key              string  `json:"key"`
	Parcels          int     `json:"parcels"`
	OnTime           int     `json:"on_time"`
	Early            int     `json:"early"`
	Late             int     `json:"late"`
	OnTimeRate       float64 `json:"on_time_rate"`
	P50LatenessHours float64 `json:"p50_lateness_hours"`
	P90LatenessHours float64 `json:"p90_lateness_hours"`
	// PromiseSource is configured, learned or blend, or mixed when the
	// group's parcels were promised from several.
	PromiseSource string `json:"promise_source"`
}

// Report returns the promise accuracy of the site's parcels delivered in
// the request's range. A bad GroupBy, or a range that is reversed or
// longer than MaxReportDays, is InvalidArgument naming group_by, from or
// to.
func (s *Service) Report(ctx context.Context, site string, req ReportRequest) (*Report, error) {
	from, to, err := s.reportRange(req)
	if err != nil {
		return nil, err
	}
	type group struct {
		row     ReportRow
		sk      *ddsketch.DDSketch
		sources map[string]bool
	}
	groups := map[string]*group{}
	first, last := from.Format(time.DateOnly), to.Format(time.DateOnly)
	err = s.store.View(ctx, func(tx storage.Tx) error {
		prefix := storage.KeyPrefix(site)
		r := storage.Range{Prefix: prefix, After: storage.Key(site, first)}
		for it, err := range tallies.Scan(tx, r) {
			if err != nil {
				return err
			}
			parts := strings.Split(strings.TrimPrefix(it.Key, prefix), storage.KeySep)
			if len(parts) != 5 {
				continue
			}
			day, product, origin, zone, source := parts[0], parts[1], parts[2], parts[3], parts[4]
			if day < first {
				continue
			}
			if day > last {
				break
			}
			key := product
			switch req.GroupBy {
			case GroupByZone:
				key = zone
			case GroupByOrigin:
				key = origin
			case GroupByWeek:
				d, _ := time.Parse(time.DateOnly, day)
				y, w := d.ISOWeek()
				key = fmt.Sprintf("%04d-W%02d", y, w)
			}
			g := groups[key]
			if g == nil {
				g = &group{row: ReportRow{Key: key}, sk: newSketch(), sources: map[string]bool{}}
				groups[key] = g
			}
			t := it.Value
			g.row.Parcels += t.Parcels
			g.row.OnTime += t.OnTime
			g.row.Early += t.Early
			g.row.Late += t.Late
			g.sources[source] = true
			if err := g.sk.DecodeAndMergeWith(t.Lateness); err != nil {
				return fmt.Errorf("promise: a stored tally does not decode: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := &Report{Rows: []ReportRow{}}
	keys := slices.Sorted(maps.Keys(groups))
	if len(keys) > MaxReportRows {
		keys, out.Truncated = keys[:MaxReportRows], true
	}
	for _, k := range keys {
		g := groups[k]
		row := g.row
		if row.Parcels > 0 {
			row.OnTimeRate = round(float64(row.OnTime)/float64(row.Parcels), 4)
		}
		if vs, err := g.sk.GetValuesAtQuantiles([]float64{0.5, 0.9}); err == nil {
			row.P50LatenessHours, row.P90LatenessHours = round(vs[0], 1), round(vs[1], 1)
		}
		row.PromiseSource = SourceMixed
		if len(g.sources) == 1 {
			for src := range g.sources {
				row.PromiseSource = src
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// reportRange checks a request and returns its first and last day.
func (s *Service) reportRange(req ReportRequest) (from, to time.Time, err error) {
	switch req.GroupBy {
	case GroupByProduct, GroupByZone, GroupByOrigin, GroupByWeek:
	default:
		return from, to, deliverykit.InvalidField("group_by", "oneof", "must be one of product, zone, origin, week")
	}
	day := func(t time.Time) time.Time { return t.UTC().Truncate(24 * time.Hour) }
	to = day(cmp.Or(req.To, s.opts.Clock.Now()))
	from = day(cmp.Or(req.From, to.AddDate(0, 0, -DefaultReportDays)))
	switch {
	case from.After(to):
		return from, to, deliverykit.InvalidField("from", "ltefield", "must not be after to")
	case to.Sub(from) > MaxReportDays*24*time.Hour:
		return from, to, deliverykit.InvalidField("from", "range", fmt.Sprintf("must be at most %d days before to", MaxReportDays))
	}
	return from, to, nil
}

func round(v float64, places int) float64 {
	p := math.Pow10(places)
	return math.Round(v*p) / p
}
