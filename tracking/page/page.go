// Package page renders the customer tracking page that a tracking link
// opens: the order and its parcels, each with its current step, expected
// delivery, current alerts in plain words, progress timeline, pickup
// location with opening hours, and the carrier's own tracking link.
//
// The page is server-rendered with html/template (no script) and laid out
// for phones first. It shows one order only, the one the link's token
// names; it never shows e-mail addresses or phone numbers.
//
// # Returns
//
// A return parcel (direction RETURN) is headed as a return, numbered
// apart from the parcels to the customer ("Parcel 1 of 1", "Return
// parcel"), and shows the address it goes back to instead of a pickup
// location.
//
// # Language
//
// Its texts come from the module's one message catalog, in English,
// Swedish, Norwegian Bokmål, Danish, Finnish and German. Language picks
// the language: the link's locale query parameter (generated links carry
// the locale they were made for, and a customer may change it), then the
// order's own locale (the checkout's), then the browser's Accept-Language,
// then English.
//
// # Times
//
// Times are shown in the delivery's time zone (tracking.PrivateOrder's
// TimeZone: the destination country's, else the merchant's warehouse's),
// and the page names it ("All times are Swedish time (CET)."); without
// one, in UTC.
//
// # Alerts
//
// An alert is shown only while it is current; alertCurrency says, per
// type, when it stops being so:
//
//	| alert                                  | shown until the first of                                      |
//	|----------------------------------------|---------------------------------------------------------------|
//	| ALERT_OUT_FOR_DELIVERY                 | the end of its day (delivery time zone); any later step       |
//	| ALERT_DELIVERY_ATTEMPT_FAILED          | 3 days; any later step; a later ALERT_OUT_FOR_DELIVERY        |
//	| ALERT_ESTIMATED_DELIVERY_TIME_UPDATED  | 24 hours; any later step                                      |
//	| ALERT_DELIVERY_DELAYED                 | a later delivered or stopped step (*)                         |
//	| ALERT_DELIVERY_DELAYED_FROM_CARRIER    | a later delivered or stopped step (*)                         |
//	| ALERT_SUBMISSION_DELAYED               | a later step at the carrier (SUBMITTED_TO_CARRIER, ON_ROUTE, *) |
//	| ALERT_AWAITING_SUPPLIER, other alerts  | any later step                                                |
//
// (*) delivered or stopped: DELIVERED_TO_PICKUP_POINT, DELIVERED_TO_CONSUMER,
// TERMINATED, SENT_BACK, DELIVERED_TO_MERCHANT. "Later" compares the
// step's time with the alert's created_at; a step at the same instant
// (one carrier event with both) does not end it.
package page

import (
	"cmp"
	"embed"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	// The page shows times in the delivery's zone; with the zone database
	// built in, a host without one still shows them right.
	_ "time/tzdata"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/tracking"
	"golang.org/x/text/language"
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
	TimeZone string
	Labels   map[string]string
	Parcels  []parcelView
	Items    []itemView
	Empty    string
}

// itemView is a line of the order: its price is the line's total, written
// as every customer page writes money; empty when the order has none.
type itemView struct {
	Quantity int32
	Name     string
	Price    string
}

type parcelView struct {
	Heading string
	// Return is set for a parcel going back to the merchant: its
	// Location is where it goes, not where to collect it.
	Return         bool
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
	// Instructions tell the customer how to collect the parcel.
	Instructions string
}

// Options controls how times and alerts are shown.
type Options struct {
	// Location overrides the time zone of the times on the page. Default:
	// the order's TimeZone, else UTC.
	Location *time.Location
	// Now is when the page is shown: it decides which alerts are still
	// current and the zone's abbreviation (CET or CEST). Default:
	// time.Now().
	Now time.Time
}

// Language returns the language of the page: the link's locale query
// parameter, then the order's locale, then the Accept-Language header,
// then English. Empty and malformed values are skipped.
func Language(linkLocale, orderLocale, acceptLanguage string) language.Tag {
	return i18n.Match(linkLocale, orderLocale, acceptLanguage)
}

// Render writes the page of order in the language tag (a language the
// catalog lacks falls back to English).
func Render(w io.Writer, order *tracking.PrivateOrder, tag language.Tag, opts Options) error {
	return tmpl.Execute(w, build(order, tag, opts))
}

// RenderNotFound writes the page shown for an unknown or mistyped link.
func RenderNotFound(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: lang(tag), Title: i18n.Text(tag, "tracking.not_found.title"), NotFound: i18n.Text(tag, "tracking.not_found")})
}

// RenderExpired writes the page shown for a link whose token expired or
// was replaced: it says so and tells the customer to ask the shop for a
// new link. It shows nothing of the order.
func RenderExpired(w io.Writer, tag language.Tag) error {
	return tmpl.Execute(w, view{Lang: lang(tag), Title: i18n.Text(tag, "tracking.expired.title"), Expired: true,
		NotFound: i18n.Text(tag, "tracking.expired")})
}

// lang is the page's lang attribute: the language without the region
// preference the matcher keeps ("sv", not "sv-u-rg-sezzzz").
func lang(tag language.Tag) string {
	b, _ := tag.Base()
	return b.String()
}

// labels are the page's fixed texts, by template name.
var labels = []string{"tracking_number", "carrier", "expected_delivery", "history", "pickup_location", "opening_hours", "carrier_link", "your_items", "return_to"}

func build(o *tracking.PrivateOrder, tag language.Tag, opts Options) view {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	loc := opts.Location
	if loc == nil {
		loc = i18n.Zone(o.TimeZone)
	}
	v := view{
		Lang:     lang(tag),
		Title:    i18n.Text(tag, "tracking.title"),
		Heading:  i18n.Text(tag, "tracking.order", o.ExternalID),
		TimeZone: zoneText(tag, loc, now),
		Labels:   map[string]string{},
		Empty:    i18n.Text(tag, "tracking.no_parcels"),
	}
	if name := cmp.Or(o.SiteName, o.SenderName); name != "" {
		v.From = i18n.Text(tag, "tracking.from", name)
	}
	for _, k := range labels {
		v.Labels[k] = i18n.Text(tag, "tracking."+k)
	}
	if o.Cart != nil {
		for _, it := range o.Cart.Items {
			iv := itemView{Quantity: it.Quantity, Name: it.Name}
			total := int64(it.TotalPrice)
			if total == 0 {
				total = int64(it.Price) * int64(it.Quantity)
			}
			if total > 0 && o.Cart.Currency != "" {
				iv.Price = i18n.Money(tag, total, o.Cart.Currency)
			}
			v.Items = append(v.Items, iv)
		}
	}
	// Parcels to the customer are counted apart from returns, which are
	// headed as such.
	var outbound, returns int
	for _, p := range o.Parcels {
		if p.DirectionType == tracking.DirectionReturn {
			returns++
		} else {
			outbound++
		}
	}
	var nOut, nRet int
	for i := range o.Parcels {
		p := &o.Parcels[i]
		var heading string
		switch {
		case p.DirectionType != tracking.DirectionReturn:
			nOut++
			heading = i18n.Text(tag, "tracking.parcel_of", nOut, outbound)
		case returns == 1:
			heading = i18n.Text(tag, "tracking.return_parcel")
		default:
			nRet++
			heading = i18n.Text(tag, "tracking.return_parcel_of", nRet, returns)
		}
		v.Parcels = append(v.Parcels, buildParcel(tag, p, heading, loc, now))
	}
	return v
}

func buildParcel(tag language.Tag, pp *tracking.PrivateParcel, heading string, loc *time.Location, now time.Time) parcelView {
	pv := parcelView{
		Heading:        heading,
		Return:         pp.DirectionType == tracking.DirectionReturn,
		TrackingNumber: pp.TrackingNumber,
		Carrier:        pp.DisplayCarrierName,
		CarrierLink:    pp.CarrierLink,
	}
	if len(pp.Progress) == 0 {
		pv.NoUpdates = true
		pv.Current = i18n.Text(tag, "tracking.no_updates")
	} else {
		cur := pp.Progress[len(pp.Progress)-1]
		pv.Current, pv.CurrentTime = i18n.Text(tag, "tracking.step."+string(cur.Step)), showTime(tag, cur.Time, loc)
		pv.Delivered = cur.Step == tracking.StepDeliveredToConsumer
	}
	if e := pp.EstimatedDeliveryTime; e != nil && !pv.Delivered {
		pv.ETA = showRange(tag, e.Start, e.End, loc)
	}
	for _, a := range slices.Backward(pp.Alerts) {
		if current(a, pp, now, loc) {
			pv.Alerts = append(pv.Alerts, line{Text: i18n.Text(tag, "tracking.alert."+string(a.Type)), Time: showTime(tag, a.CreatedAt, loc)})
		}
	}
	for _, it := range slices.Backward(pp.Progress) {
		pv.History = append(pv.History, line{Text: i18n.Text(tag, "tracking.step."+string(it.Step)), Time: showTime(tag, it.Time, loc)})
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
		lv.Instructions = l.PickupInstructions
		if text, ok := l.PickupInstructionsText.Lookup(tag.String()); ok {
			lv.Instructions = text // in the page's language where the catalog has it
		}
		if h := l.OperationalHours; h != nil {
			weekdays := h.Mon + h.Tue + h.Wed + h.Thu + h.Fri + h.Sat + h.Sun
			for _, d := range []struct{ day, hours string }{{"mon", h.Mon}, {"tue", h.Tue}, {"wed", h.Wed}, {"thu", h.Thu}, {"fri", h.Fri}, {"sat", h.Sat}, {"sun", h.Sun}} {
				if weekdays == "" {
					break // only hours in words are known
				}
				hours := d.hours
				if hours == "" {
					hours = i18n.Text(tag, "tracking.closed")
				}
				lv.Hours = append(lv.Hours, line{Text: i18n.Text(tag, "day."+d.day), Time: hours})
			}
			for _, s := range h.FreeText {
				lv.Hours = append(lv.Hours, line{Time: s})
			}
		}
		pv.Location = lv
	}
	return pv
}

// zoneText names the page's time zone: "All times are Swedish time (CET)."
// for a zone the catalog has a name for, "All times are in the UTC time
// zone." for others. The abbreviation is the one in force at now.
func zoneText(tag language.Tag, loc *time.Location, now time.Time) string {
	key := "tracking.zone." + loc.String()
	if name := i18n.Text(tag, key); name != key {
		abbr, _ := now.In(loc).Zone()
		return i18n.Text(tag, "tracking.times_local", name, abbr)
	}
	return i18n.Text(tag, "tracking.times_zone", loc.String())
}

// showTime writes an RFC 3339 time as a date and time of the page's
// language in loc (i18n.DateTime); a time that does not parse is shown as
// it came.
func showTime(tag language.Tag, s string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return i18n.DateTime(tag, t, loc)
}

// showRange writes a window in the page's language (i18n.DateRange): the
// dates alone for whole days, the date once when both ends share it. A
// window with one end that parses shows that end.
func showRange(tag language.Tag, start, end string, loc *time.Location) string {
	s, errS := time.Parse(time.RFC3339Nano, start)
	e, errE := time.Parse(time.RFC3339Nano, end)
	switch {
	case errS == nil && errE == nil:
		return i18n.DateRange(tag, s, e, loc)
	case errE == nil:
		return showTime(tag, end, loc)
	case errS == nil:
		return showTime(tag, start, loc)
	}
	return ""
}
