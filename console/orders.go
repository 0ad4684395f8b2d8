package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/notify"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/tracking"
)

// maxQueryBytes bounds a search: the longest e-mail address.
const maxQueryBytes = 254

type ordersView struct {
	base
	Query    string
	Orders   []tracking.PrivateOrder
	Searched bool
}

// orders searches the site's orders by external id, tracking number or
// customer e-mail; one match opens the order.
func (c *Console) orders(w http.ResponseWriter, r *http.Request, rq *request) error {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if len(q) > maxQueryBytes {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "q: longer than %d bytes", maxQueryBytes)
	}
	v := ordersView{base: c.base(rq, "orders", rq.loc.T("orders.title")), Query: q}
	if q != "" {
		v.Searched = true
		found, err := c.search(r, rq.Site, q)
		if err != nil {
			return err
		}
		if len(found) == 1 {
			http.Redirect(w, r, Path+"orders/"+url.PathEscape(found[0].ExternalID), http.StatusSeeOther)
			return nil
		}
		v.Orders = found
	}
	c.render(w, r, http.StatusOK, "orders", v)
	return nil
}

// search finds orders by e-mail (a query with @), else by external id,
// else by a parcel's tracking number. Nothing found is no error.
func (c *Console) search(r *http.Request, site, q string) ([]tracking.PrivateOrder, error) {
	ctx := r.Context()
	if strings.Contains(q, "@") {
		res, err := c.opts.Tracking.Orders(ctx, site, tracking.OrdersQuery{Email: q})
		if err != nil {
			return nil, notFoundIsEmpty(err)
		}
		return res.Orders, nil
	}
	res, err := c.opts.Tracking.Orders(ctx, site, tracking.OrdersQuery{ExternalID: q})
	if err != nil && deliverykit.KindOf(err) != deliverykit.KindNotFound {
		return nil, err
	}
	if err == nil && len(res.Orders) > 0 {
		return res.Orders, nil
	}
	parcels, err := c.opts.Tracking.Parcels(ctx, site, tracking.ParcelsQuery{TrackingNumber: q})
	if err != nil {
		return nil, notFoundIsEmpty(err)
	}
	if parcels.ExternalID == "" {
		return nil, nil
	}
	res, err = c.opts.Tracking.Orders(ctx, site, tracking.OrdersQuery{ExternalID: parcels.ExternalID})
	if err != nil {
		return nil, notFoundIsEmpty(err)
	}
	return res.Orders, nil
}

// notFoundIsEmpty makes a not-found or malformed query an empty result:
// a search box takes any text.
func notFoundIsEmpty(err error) error {
	switch deliverykit.KindOf(err) {
	case deliverykit.KindNotFound, deliverykit.KindInvalidArgument:
		return nil
	}
	return err
}

type orderView struct {
	base
	Order         tracking.PrivateOrder
	Notifications []notify.Notification
	Labels        bool
	Operator      bool
}

func (c *Console) order(w http.ResponseWriter, r *http.Request, rq *request) error {
	ext := r.PathValue("external_id")
	if ext == "" || len(ext) > maxQueryBytes {
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "external_id: want 1 to %d bytes", maxQueryBytes)
	}
	res, err := c.opts.Tracking.Orders(r.Context(), rq.Site, tracking.OrdersQuery{ExternalID: ext, Locale: rq.loc.lang})
	if err != nil {
		return err
	}
	if len(res.Orders) == 0 {
		return deliverykit.Errorf(deliverykit.KindNotFound, "order %q: not found", ext)
	}
	v := orderView{base: c.base(rq, "orders", rq.loc.T("order.title", ext)), Order: res.Orders[0],
		Labels: c.opts.Shipment != nil, Operator: rq.Role == Operator}
	v.Notice = notice(r, rq.loc)
	if c.opts.Notify != nil {
		list, err := c.opts.Notify.List(r.Context(), rq.Site, ext)
		if err := notFoundIsEmpty(err); err != nil {
			return err
		}
		if list != nil {
			v.Notifications = list.Notifications
		}
	}
	c.render(w, r, http.StatusOK, "order", v)
	return nil
}

// retrigger sends a notification again (a copy with origin RETRIGGER).
func (c *Console) retrigger(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, ext := r.PathValue("id"), r.PostForm.Get("external_id")
	if id == "" || len(id) > maxQueryBytes || len(ext) > maxQueryBytes {
		return deliverykit.E(deliverykit.KindInvalidArgument, "id: want 1 to 254 bytes")
	}
	if _, err := c.opts.Notify.Retrigger(r.Context(), rq.Site, id); err != nil {
		return err
	}
	return done(w, r, Path+"orders/"+url.PathEscape(ext), "retriggered")
}

// label downloads a parcel's PDF label.
func (c *Console) label(w http.ResponseWriter, r *http.Request, rq *request) error {
	tn := r.PathValue("tracking_number")
	if tn == "" || len(tn) > maxQueryBytes {
		return deliverykit.E(deliverykit.KindInvalidArgument, "tracking_number: want 1 to 254 bytes")
	}
	body, ctype, err := c.opts.Shipment.Label(r.Context(), rq.Site, tn, shipment.LabelPDF)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="label.pdf"`)
	_, _ = w.Write(body)
	return nil
}
