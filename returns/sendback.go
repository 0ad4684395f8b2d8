package returns

import (
	"cmp"
	"context"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/storage"
)

// This file is how the customer sends the parcel back: the return label
// booked with the policy's return product, and the drop-off points the
// status page lists.

// Labels books return parcels at a carrier and renders their labels. The
// caller's wiring implements it over the shipments area, so that a return
// parcel is a RETURN shipment that is tracked like any other.
type Labels interface {
	// BookReturnLabel books the return parcel of a return. It must be
	// idempotent by site and req.ReturnID: booking a return again
	// answers the first booking, never a second tracking number.
	BookReturnLabel(ctx context.Context, site string, req LabelRequest) (BookedLabel, error)
	// ReturnLabelPDF renders the label of a booked return parcel as a PDF.
	ReturnLabelPDF(ctx context.Context, site, trackingNumber string) ([]byte, error)
}

// LabelRequest is a return parcel to book: from the customer's delivery
// address to the merchant, with the policy's return product.
type LabelRequest struct {
	ReturnID uint64
	// OrderForeignID is the merchant's order id, the label's reference.
	OrderForeignID string
	// Product is the carrier product ref (Policy.ReturnProduct).
	Product string
	// Sender is the customer: the order's delivery address; Name falls
	// back to the order's e-mail address when the address has none.
	Sender Address
	Email  string
}

// BookedLabel is a booked return parcel.
type BookedLabel struct {
	TrackingNumber string
	CarrierName    string
}

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
	// Label is the return parcel, when the policy names a return product
	// and it is booked. LabelPending is true when it should be but the
	// booking failed: the page asks the customer to come back.
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
// The label is booked when the return is created. When that failed (the
// carrier was unreachable), or the policy named its product only later,
// the page books it: bookings are idempotent by return id and the return
// keeps the first tracking number, so a retried or concurrent view never
// books twice.
func (s *Service) StatusPage(ctx context.Context, token string) (StatusPageView, error) {
	now := s.now()
	var out StatusPageView
	var o orderRecord
	var r returnRecord
	load := func() error {
		return s.store.View(ctx, func(tx storage.Tx) error {
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
	}
	if err := load(); err != nil {
		return StatusPageView{}, err
	}
	out.Locale = cmp.Or(r.Locale, o.Locale)
	out.Reasons = s.reasonCatalog(out.Site)
	out.ComplaintsOpen = r.Status != StatusCompleted
	out.ItemsPath = StatusPagePath + token + "/items/"
	product := s.policy(out.Site).ReturnProduct
	if r.Status != StatusAwaitingReturn || product == "" || o.Address == nil {
		return out, nil
	}
	lr := r.Label
	if lr == nil && s.labels != nil {
		var err error
		if lr, err = s.bookLabel(ctx, out.Site, r.ID); err != nil {
			s.log.ErrorContext(ctx, "returns: booking a return label for the status page", "site", out.Site, "return_id", r.ID, "err", err)
		}
	}
	switch {
	case lr != nil:
		out.Label = &ReturnLabel{TrackingNumber: lr.TrackingNumber, CarrierName: lr.CarrierName, Path: StatusPagePath + token + StatusLabelPath}
	case s.labels != nil:
		out.LabelPending = true
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
	if r.Label == nil || s.labels == nil {
		return nil, notFound("return label")
	}
	return s.labels.ReturnLabelPDF(ctx, site, r.Label.TrackingNumber)
}

// bookLabel books the return label of return id unless it has one, and
// returns it; nil when the return needs none (it is past AWAITING_RETURN,
// the policy names no return product, the order has no delivery address).
// The carrier call happens outside any transaction; the return then keeps
// the first booking stored.
func (s *Service) bookLabel(ctx context.Context, site string, id uint64) (*labelRecord, error) {
	product := s.policy(site).ReturnProduct
	if s.labels == nil || product == "" {
		return nil, nil
	}
	var req LabelRequest
	var have *labelRecord
	err := s.store.View(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return notFoundOr(err, "return")
		}
		r := rit.Value
		if r.Label != nil || r.Status != StatusAwaitingReturn {
			have = r.Label
			return nil
		}
		oit, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		o := oit.Value
		if o.Address == nil {
			return nil
		}
		req = LabelRequest{ReturnID: r.ID, OrderForeignID: o.ForeignID, Product: product, Sender: *o.Address, Email: o.Email}
		req.Sender.Name = cmp.Or(req.Sender.Name, o.Email)
		return nil
	})
	if err != nil || req.ReturnID == 0 {
		return have, err
	}
	b, err := s.labels.BookReturnLabel(ctx, site, req)
	if err != nil {
		return nil, err
	}
	if b.TrackingNumber == "" {
		return nil, deliverykit.Errorf(deliverykit.KindInternal, "returns: booking the label of return %d gave no tracking number", id)
	}
	lr := &labelRecord{TrackingNumber: b.TrackingNumber, CarrierName: b.CarrierName, Product: product, BookedAt: s.now()}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		rit, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return err
		}
		if rit.Value.Label != nil {
			// A concurrent booking stored first; the carrier answered
			// both with the same parcel (idempotent by return id).
			lr = rit.Value.Label
			return nil
		}
		r := rit.Value
		r.Label = lr
		_, err = returnsColl.Put(tx, rit.Key, r, storage.VersionIs(rit.Version))
		return err
	})
	if err != nil {
		return nil, err
	}
	return lr, nil
}

// bookLabelAfterCreate books the label of a just created return. A
// failure does not fail the return, which is committed: it is logged, and
// the status page books the label when it is next opened.
func (s *Service) bookLabelAfterCreate(ctx context.Context, site string, id uint64) {
	if _, err := s.bookLabel(ctx, site, id); err != nil {
		s.log.ErrorContext(ctx, "returns: booking the return label; the status page will try again", "site", site, "return_id", id, "err", err)
	}
}
