// Package page renders the customer tracking page that a tracking link
// opens: the order and its parcels, each with its current step, expected
// delivery, alerts in plain words, progress timeline, pickup location with
// opening hours, and the carrier's own tracking link.
//
// The page is server-rendered with html/template (no script), localized
// with golang.org/x/text (English, Swedish, German; the link's locale
// wins, then Accept-Language, then English), and laid out for phones
// first. It shows one order only, the one the link's token names; it never
// shows e-mail addresses or phone numbers.
package page

import (
	"embed"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit/tracking"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed page.html
var files embed.FS

var tmpl = template.Must(template.New("page.html").ParseFS(files, "page.html"))

type view struct {
	Lang     string
	Title    string
	NotFound string
	Expired  bool // NotFound says the link expired
	Heading  string
	From     string
	Labels   map[string]string
	Parcels  []parcelView
	Items    []tracking.Item
	Empty    string
}

type parcelView struct {
	Heading        string
	TrackingNumber string
	Carrier        string
	CarrierLink    string
	Current        string
	CurrentTime    string
	Delivered      bool
	ETA            string
	NoUpdates      bool
	Alerts         []line
	History        []line
	Location       *locationView
}

type line struct{ Text, Time string }

type locationView struct {
	Name  string
	Lines []string
	Hours []line // Text = day, Time = hours
}

// Options controls how times are shown.
type Options struct {
	// Location is the time zone of the times on the page. Default UTC.
	Location *time.Location
}

// Render writes the page of order in the language tag (one of Supported;
// others fall back).
func Render(w io.Writer, order *tracking.PrivateOrder, tag language.Tag, opts Options) error {
	return tmpl.Execute(w, build(order, tag, opts))
}

// RenderNotFound writes the page shown for an unknown or mistyped link.
func RenderNotFound(w io.Writer, tag language.Tag) error {
	p := printer(tag)
	return tmpl.Execute(w, view{Lang: tag.String(), Title: p.Sprintf("Tracking link not found"), NotFound: p.Sprintf("This tracking link is not valid.")})
}

// RenderExpired writes the page shown for a link whose token expired or
// was replaced: it says so and tells the customer to ask the shop for a
// new link. It shows nothing of the order.
func RenderExpired(w io.Writer, tag language.Tag) error {
	p := printer(tag)
	return tmpl.Execute(w, view{Lang: tag.String(), Title: p.Sprintf("Tracking link expired"), Expired: true,
		NotFound: p.Sprintf("This tracking link has expired. Please ask the shop you ordered from for a new link.")})
}

func build(o *tracking.PrivateOrder, tag language.Tag, opts Options) view {
	p := printer(tag)
	loc := opts.Location
	if loc == nil {
		loc = time.UTC
	}
	v := view{
		Lang:    tag.String(),
		Title:   p.Sprintf("Track your order"),
		Heading: p.Sprintf("Order %s", o.ExternalID),
		Labels:  map[string]string{},
		Empty:   p.Sprintf("No parcels have been sent yet."),
	}
	if name := firstNonEmpty(o.SiteName, o.SenderName); name != "" {
		v.From = p.Sprintf("from %s", name)
	}
	for _, k := range []string{"Tracking number", "Carrier", "Status", "Expected delivery", "History", "Pickup location", "Opening hours", "Follow the parcel at the carrier", "Your items"} {
		v.Labels[k] = p.Sprintf(k)
	}
	if o.Cart != nil {
		v.Items = o.Cart.Items
	}
	for i := range o.Parcels {
		v.Parcels = append(v.Parcels, buildParcel(p, &o.Parcels[i], i, len(o.Parcels), loc))
	}
	return v
}

func buildParcel(p *message.Printer, pp *tracking.PrivateParcel, i, n int, loc *time.Location) parcelView {
	pv := parcelView{
		Heading:        p.Sprintf("Parcel %d of %d", i+1, n),
		TrackingNumber: pp.TrackingNumber,
		Carrier:        pp.DisplayCarrierName,
		CarrierLink:    pp.CarrierLink,
	}
	if len(pp.Progress) == 0 {
		pv.NoUpdates = true
		pv.Current = p.Sprintf("No updates from the carrier yet.")
	} else {
		cur := pp.Progress[len(pp.Progress)-1]
		pv.Current, pv.CurrentTime = p.Sprintf(string(cur.Step)), showTime(cur.Time, loc)
		pv.Delivered = cur.Step == tracking.StepDeliveredToConsumer
	}
	if e := pp.EstimatedDeliveryTime; e != nil && !pv.Delivered {
		pv.ETA = showRange(e.Start, e.End, loc)
	}
	for _, a := range slices.Backward(pp.Alerts) {
		pv.Alerts = append(pv.Alerts, line{Text: p.Sprintf(string(a.Type)), Time: showTime(a.CreatedAt, loc)})
	}
	for _, it := range slices.Backward(pp.Progress) {
		pv.History = append(pv.History, line{Text: p.Sprintf(string(it.Step)), Time: showTime(it.Time, loc)})
	}
	if l := pp.Location; l != nil {
		lv := &locationView{}
		if a := l.Address; a != nil {
			lv.Name = a.Name
			street := strings.TrimSpace(strings.Join(append(slices.Clone(a.AddressLines), strings.TrimSpace(a.Street+" "+a.StreetNumber)), " "))
			for _, s := range []string{street, strings.TrimSpace(a.PostalCode + " " + a.City)} {
				if s != "" {
					lv.Lines = append(lv.Lines, s)
				}
			}
		}
		if h := l.OperationalHours; h != nil {
			for _, d := range []struct{ day, hours string }{{"Mon", h.Mon}, {"Tue", h.Tue}, {"Wed", h.Wed}, {"Thu", h.Thu}, {"Fri", h.Fri}, {"Sat", h.Sat}, {"Sun", h.Sun}} {
				hours := d.hours
				if hours == "" {
					hours = p.Sprintf("Closed")
				}
				lv.Hours = append(lv.Hours, line{Text: p.Sprintf(d.day), Time: hours})
			}
			for _, s := range h.FreeText {
				lv.Hours = append(lv.Hours, line{Time: s})
			}
		}
		pv.Location = lv
	}
	return pv
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// showTime writes an RFC 3339 time as "2006-01-02 15:04" in loc;
// language-neutral and unambiguous.
func showTime(s string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.In(loc).Format("2006-01-02 15:04")
}

// showRange writes a window, with the date once when both ends share it.
func showRange(start, end string, loc *time.Location) string {
	s, errS := time.Parse(time.RFC3339Nano, start)
	e, errE := time.Parse(time.RFC3339Nano, end)
	switch {
	case errS == nil && errE == nil:
		s, e = s.In(loc), e.In(loc)
		if s.Format("2006-01-02") == e.Format("2006-01-02") {
			return s.Format("2006-01-02 15:04") + "–" + e.Format("15:04")
		}
		return s.Format("2006-01-02 15:04") + " – " + e.Format("2006-01-02 15:04")
	case errE == nil:
		return showTime(end, loc)
	case errS == nil:
		return showTime(start, loc)
	}
	return ""
}
