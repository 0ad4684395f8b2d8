package console

import (
	"context"
	"time"

	"github.com/deliverykit/deliverykit/internal/daycount"
	"github.com/deliverykit/deliverykit/promise"
)

// SessionCounts is an area that counts the sessions it creates per site
// and day: checkout.Service and session.Service. The areas count in the
// transaction that creates a session, since creating one emits no event
// the console's counters could apply.
type SessionCounts interface {
	// CreatedByDay returns the counts of each day from from's to to's
	// (UTC, both included), oldest first.
	CreatedByDay(ctx context.Context, site string, from, to time.Time) ([]daycount.Day, error)
}

// PromiseReports reports how often a site's delivery promises were kept:
// promise.Service.
type PromiseReports interface {
	Report(ctx context.Context, site string, req promise.ReportRequest) (*promise.Report, error)
}

// cSessions is the figures' name of the sessions created, which the
// areas count (Options.Sessions) rather than the console's consumer.
const cSessions = "sessions"

// figures reads the site's counters over the n days to today, with the
// sessions the areas created on each added as cSessions. hasSessions
// reports whether any area counts them.
func (c *Console) figures(ctx context.Context, site string, today time.Time, n int) (f figures, hasSessions bool, err error) {
	f, err = c.opts.Counters.read(ctx, site, today, n)
	if err != nil || len(c.opts.Sessions) == 0 {
		return f, false, err
	}
	from, to := f.days[0].Date, f.days[len(f.days)-1].Date
	for _, src := range c.opts.Sessions {
		days, err := src.CreatedByDay(ctx, site, from, to)
		if err != nil {
			return figures{}, false, err
		}
		for _, d := range days {
			if i := int(d.Date.Sub(from) / (24 * time.Hour)); i >= 0 && i < len(f.days) {
				if f.days[i].Counts == nil {
					f.days[i].Counts = counts{}
				}
				f.days[i].Counts[cSessions] += d.Count
			}
		}
	}
	return f, true, nil
}
