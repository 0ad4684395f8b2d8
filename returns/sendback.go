package returns

import (
	"cmp"
	"context"

	"github.com/deliverykit/deliverykit/storage"
)

// This file is how the customer sends the parcel back: the return label
// booked with the policy's return product (returns/shipments.go), and the
// drop-off points the status page lists.

// DropOffs finds where customers hand in return parcels.
type DropOffs interface {
	// DropOffPoints returns up to n drop-off points of the carrier of
	// product (a carrier product ref) nearest to near, nearest first, and
	// none when near cannot be placed.
	DropOffPoints(ctx context.Context, site, product string, near Address, n int) ([]DropOffPoint, error)
}

// DropOffPoint is a place that takes return parcels.
type DropOffPoint struct {
	ID      string
	Name    string
	Address Address
	// Hours maps "mon".."sun" to opening ranges ("08:00-20:00"); a day
	// that is absent is closed. Nil: always open.
	Hours map[string][]string
	// Meters is the great-circle distance from the customer's address.
	Meters float64
}

// DropOffPointsShown is how many drop-off points the status page lists.
const DropOffPointsShown = 5

// ReturnLabel is a return's booked parcel as the status page shows it.
type ReturnLabel struct {
	TrackingNumber string
	CarrierName    string
	// Path is the label PDF's path on this service: the status page's
	// path with "/label.pdf" (StatusLabelPath).
	Path string
}

// StatusLabelPath is the path of a return label under a status page
// token: StatusPagePath + token + StatusLabelPath. Like the page, it needs
// no key; the token is the credential.
const StatusLabelPath = "/label.pdf"

// StatusPageView is what the customer's status page shows.
type StatusPageView struct {
	Site   string
	Return Return
	// Locale is the language the customer used: the return request's,
	// else the order's; empty when neither is known.
	Locale string
	// TimeZone is the site's IANA time zone (Policy.TimeZone), which the
	// page's dates are in; empty for UTC.
	TimeZone string
	// Label is the return parcel, when the policy names a return product
	// and it is booked. LabelPending is true when it is asked for but not
	// booked yet (the shipments area books it through the outbox, which
	// retries a failed booking): the page says the label is being
	// prepared and asks the customer to come back.
	Label        *ReturnLabel
	LabelPending bool
	// DropOffs are the return carrier's drop-off points nearest to the
	// delivery address, while the parcel is still with the customer.
	DropOffs []DropOffPoint
	// Reasons are the site's reason catalog, for the page to show the
	// lines' reasons and offer complaint reasons in its language.
	Reasons ReasonCatalog
	// ComplaintsOpen is true while the customer may still add
	// complaints and photos (the return is not completed); a line's
	// complaint form posts to ItemsPath + item id + ComplaintPathSuffix.
	ComplaintsOpen bool
	ItemsPath      string
	// ComplaintError is the id of the line whose complaint upload the
	// customer's browser just had refused (the page says so by its
	// form); 0 for none. The HTTP layer sets it from the redirect.
	ComplaintError uint64
}

// StatusPage returns what the status page of token shows (unknown,
// expired and replaced tokens are answered as ReturnByToken answers
// them). While the return awaits the customer's parcel and the site's
// policy names a return product, the page offers the return label and the
// drop-off points near the order's delivery address.
//
// The label is asked for when the return is created and booked by the
// shipments area (event.ReturnShipmentRequested); until its parcel.booked
// arrives, the page says it is being prepared. A return created before
// its site's policy named a return product gets its label asked for when
// its page is first opened.
func (s *Service) StatusPage(ctx context.Context, token string) (StatusPageView, error) {
	now := s.now()
	var out StatusPageView
	var o orderRecord
	var r returnRecord
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var err error
		out.Site, r, err = s.byToken(tx, token, now)
		if err != nil {
			return err
		}
		oit, err := ordersColl.Get(tx, orderKey(out.Site, r.OrderID))
		if err != nil {
			return err
		}
		o = oit.Value
		out.Return, err = s.returnView(tx, out.Site, o, r)
		return err
	})
	if err != nil {
		return StatusPageView{}, err
	}
	out.Locale = cmp.Or(r.Locale, o.Locale)
	out.Reasons = s.reasonCatalog(out.Site)
	out.ComplaintsOpen = r.Status != StatusCompleted
	out.ItemsPath = StatusPagePath + token + "/items/"
	policy := s.policy(out.Site)
	out.TimeZone = policy.TimeZone
	product := policy.ReturnProduct
	if r.Status != StatusAwaitingReturn || product == "" || o.Address == nil {
		return out, nil
	}
	switch {
	case r.Label != nil:
		out.Label = &ReturnLabel{TrackingNumber: r.Label.TrackingNumber, CarrierName: r.Label.CarrierName, Path: StatusPagePath + token + StatusLabelPath}
	default:
		out.LabelPending = true
		if r.ShipmentRequestedAt == nil {
			if err := s.requestMissingShipment(ctx, out.Site, r.ID); err != nil {
				s.log.ErrorContext(ctx, "returns: asking for the return parcel for the status page", "site", out.Site, "return_id", r.ID, "err", err)
			}
		}
	}
	if s.dropOffs != nil {
		points, err := s.dropOffs.DropOffPoints(ctx, out.Site, product, *o.Address, DropOffPointsShown)
		if err != nil {
			// The page is still worth showing without them.
			s.log.ErrorContext(ctx, "returns: finding drop-off points", "site", out.Site, "return_id", r.ID, "err", err)
		}
		out.DropOffs = points
	}
	return out, nil
}

// ReturnLabelByToken renders the return label of the return whose status
// page token is token: the PDF the status page links to. A return without
// a booked label is NotFound; tokens are answered as ReturnByToken
// answers them.
func (s *Service) ReturnLabelByToken(ctx context.Context, token string) ([]byte, error) {
	var site string
	var r returnRecord
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var err error
		site, r, err = s.byToken(tx, token, s.now())
		return err
	})
	if err != nil {
		return nil, err
	}
	if r.Label == nil || s.labelPDFs == nil {
		return nil, notFound("return label")
	}
	return s.labelPDFs.LabelPDF(ctx, site, r.Label.TrackingNumber)
}
