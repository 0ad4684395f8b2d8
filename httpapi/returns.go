package httpapi

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/returns/page"
)

// returnsOpenAPI is the OpenAPI 3 document of area E, served at
// GET /returns/openapi.json without a key.
//
//go:embed openapi/returns.json
var returnsOpenAPI []byte

// registerReturns serves area E under /returns: the merchant endpoints
// behind x-api-key, and the public customer endpoints (the return form's
// POST /customer/return and the status page at returns.StatusPagePath +
// token), which take no key. Errors are Spring style: {"timestamp",
// "status", "error", "message", "path"}, the message naming the field or
// parameter.
func (s *server) registerReturns(svc *returns.Service) {
	h := returnsHandlers{svc}
	a, base := areaReturns, areaReturns.base
	// Extension: POST imports an order.
	s.route(a, base+"/merchant/order", methods{http.MethodGet: h.listOrders, http.MethodPost: h.importOrder})
	s.route(a, base+"/merchant/order/{orderId}", get(h.getOrder))
	s.route(a, base+"/merchant/return", get(h.listReturns))
	s.route(a, base+"/merchant/return/{returnId}", get(h.getReturn))
	// Extension: a new status page link for a return, whose old link then
	// stops working (expired, or sent to the wrong person).
	s.route(a, base+"/merchant/return/{returnId}/status-link", post(h.renewStatusLink))
	s.route(a, base+"/merchant/items/returned", post(h.reportReturnedItems))
	s.route(a, base+"/merchant/refund/transaction", get(h.listRefunds))
	s.route(a, base+"/merchant/refund/transaction/{refundTransactionId}/refunded", post(h.markRefunded))
	// Extensions: the refund lifecycle and exchanges (returns_refunds.go).
	s.registerReturnsRefunds(h)
	// Extension: a customer starts a return.
	s.routePublic(a, base+"/customer/return", post(h.createReturn))
	s.routePublic(a, returns.StatusPagePath+"{token}", get(h.statusPage))
	s.routePublic(a, returns.StatusPagePath+"{token}"+returns.StatusLabelPath, get(h.label))
	s.routePublic(a, base+"/openapi.json", get(document(returnsOpenAPI)))
	s.registerComplaints(h)
}

// returnsHandlers are area E's endpoints.
type returnsHandlers struct{ svc *returns.Service }

func (h returnsHandlers) listOrders(w http.ResponseWriter, r *http.Request, site string) error {
	pr, err := returns.ParsePageQuery(r.URL.Query())
	if err != nil {
		return err
	}
	return respond(w, r, site, "", pr, h.svc.ListOrders)
}

func (h returnsHandlers) importOrder(w http.ResponseWriter, r *http.Request, site string) error {
	var in returns.OrderInput
	return handleCreate(w, r, site, &in, h.svc.ImportOrder)
}

func (h returnsHandlers) getOrder(w http.ResponseWriter, r *http.Request, site string) error {
	typ := returns.IDType(r.URL.Query().Get("idType"))
	return respond(w, r, site, "", r.PathValue("orderId"), func(ctx context.Context, site, ref string) (returns.Order, error) {
		return h.svc.GetOrder(ctx, site, ref, typ)
	})
}

// listReturns answers with the rows the service keeps rendered while
// their returns are unchanged (returns.Service.ListReturnsRendered): the
// same bytes writeJSON writes for the page of summaries, without decoding
// the stored returns or encoding their rows again.
func (h returnsHandlers) listReturns(w http.ResponseWriter, r *http.Request, site string) error {
	pr, err := returns.ParsePageQuery(r.URL.Query())
	if err != nil {
		return err
	}
	if err := checkSite(site, ""); err != nil {
		return err
	}
	p, err := h.svc.ListReturnsRendered(r.Context(), site, pr, returnSummaryJSON)
	if err != nil {
		return err
	}
	writeRenderedPage(w, p)
	return nil
}

// returnSummaryJSON renders a row of the returns page as writeJSON encodes
// it inside the page (encodeTo, which the package's tests hold to
// encoding/json), without the newline that ends a whole answer.
var returnSummaryJSON = returns.NewSummaryRenderer(func(sum *returns.ReturnSummary) ([]byte, error) {
	b, err := keptJSON(sum)
	return bytes.TrimSuffix(b, []byte("\n")), err
})

// pageContentOpen is how the JSON of a page begins: its content comes
// first (returns.Page).
const pageContentOpen = `{"content":[`

// writeRenderedPage writes p as writeJSON writes the page of its rows:
// the envelope is encoded with no rows, and the rendered rows are written
// between its content's brackets.
func writeRenderedPage(w http.ResponseWriter, p returns.Page[returns.RenderedSummary]) {
	buf := getBuffer()
	defer putBuffer(buf)
	rows := p.Content
	p.Content = []returns.RenderedSummary{}
	if err := encodeTo(buf, p); err != nil || !bytes.HasPrefix(buf.Bytes(), []byte(pageContentOpen+"]")) {
		http.Error(w, `{"error":"internal: internal error"}`, http.StatusInternalServerError)
		return
	}
	rest := buf.Bytes()[len(pageContentOpen):]
	n := len(pageContentOpen) + len(rest) + max(len(rows)-1, 0)
	for _, row := range rows {
		n += row.Len()
	}
	// One write of the whole body, as writeJSON makes: the connection
	// sends it with the header rather than row by row.
	out := getBuffer()
	defer putBuffer(out)
	out.Grow(n)
	out.WriteString(pageContentOpen)
	for i, row := range rows {
		if i > 0 {
			out.WriteByte(',')
		}
		row.WriteTo(out)
	}
	out.Write(rest)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(out.Len()))
	w.WriteHeader(http.StatusOK)
	w.Write(out.Bytes())
}

func (h returnsHandlers) getReturn(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "returnId")
	if err != nil {
		return err
	}
	return respond(w, r, site, "", id, h.svc.GetReturn)
}

func (h returnsHandlers) renewStatusLink(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "returnId")
	if err != nil {
		return err
	}
	return respond(w, r, site, "", id, h.svc.RenewStatusLink)
}

func (h returnsHandlers) reportReturnedItems(w http.ResponseWriter, r *http.Request, site string) error {
	var in returns.ReturnedItemsInput
	return handle(w, r, site, &in, nil, h.svc.ReportReturnedItems)
}

func (h returnsHandlers) listRefunds(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	pr, err := returns.ParsePageQuery(q)
	if err != nil {
		return err
	}
	status := returns.TransactionStatus(q.Get("status"))
	return respond(w, r, site, "", pr, func(ctx context.Context, site string, pr returns.PageRequest) (returns.Page[returns.RefundEntry], error) {
		return h.svc.ListRefunds(ctx, site, status, pr)
	})
}

func (h returnsHandlers) markRefunded(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "refundTransactionId")
	if err != nil {
		return err
	}
	return respond(w, r, site, "", id, h.svc.MarkRefunded)
}

// createReturn takes no key: the order's e-mail is the customer's
// credential, and a wrong one is answered exactly like an unknown order.
// The site is the one the form names.
func (h returnsHandlers) createReturn(w http.ResponseWriter, r *http.Request, site string) error {
	var in returns.CustomerReturnInput
	return handleCreate(w, r, site, &in, func(ctx context.Context, _ string, in returns.CustomerReturnInput) (returns.Return, error) {
		return h.svc.CreateReturn(ctx, in)
	})
}

// statusPage serves the customer's status page. The token in the path is
// the only credential, so the page is never cached or sent on as a
// referrer; an unknown token gets a localized 404 page that says nothing
// more, an expired or replaced one a 410 page that says so. The language
// is the return's own (the customer's return request, else the order),
// else ?locale= (?lang= before it existed), else Accept-Language.
func (h returnsHandlers) statusPage(w http.ResponseWriter, r *http.Request, _ string) error {
	v, err := h.svc.StatusPage(r.Context(), r.PathValue("token"))
	q := r.URL.Query()
	v.ComplaintError, _ = strconv.ParseUint(q.Get("complaint_error"), 10, 64)
	tag := page.Language(v.Locale, q.Get("locale"), q.Get("lang"), r.Header.Get("Accept-Language"))
	status := http.StatusOK
	var buf bytes.Buffer
	switch {
	case errors.Is(err, returns.ErrStatusLinkExpired):
		// 410: the link existed and will not work again; the page tells
		// the customer to ask for a new one.
		status = http.StatusGone
		err = page.RenderExpired(&buf, tag)
	case deliverykit.KindOf(err) == deliverykit.KindNotFound:
		status = http.StatusNotFound
		err = page.RenderNotFound(&buf, tag)
	case err == nil:
		err = page.Render(&buf, tag, v)
	}
	if err != nil {
		return err
	}
	writeReturnPage(w, r, status, buf.Bytes())
	return nil
}

// writeReturnPage writes a status page. Its policy allows the inline
// styles and the QR code, a data: image; the customer page headers
// (headers.go) are added as the answer goes out.
func writeReturnPage(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", pageCacheControl(status))
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data: 'self'; form-action 'self'")
	h.Set("Vary", "Accept-Language")
	writePage(w, r, status, body)
}

// label serves the return label PDF a status page links to, under
// the page's token: no key, the token is the credential, and like the
// page it is never cached. An unknown token, or a return without a
// label, gets the localized not-found page; an expired link the expired
// page.
func (h returnsHandlers) label(w http.ResponseWriter, r *http.Request, _ string) error {
	pdf, err := h.svc.ReturnLabelByToken(r.Context(), r.PathValue("token"))
	if err != nil {
		tag := page.Language(r.URL.Query().Get("locale"), r.Header.Get("Accept-Language"))
		var buf bytes.Buffer
		status := http.StatusNotFound
		switch {
		case errors.Is(err, returns.ErrStatusLinkExpired):
			status = http.StatusGone
			err = page.RenderExpired(&buf, tag)
		case deliverykit.KindOf(err) == deliverykit.KindNotFound:
			err = page.RenderNotFound(&buf, tag)
		}
		if err != nil {
			return err
		}
		writeReturnPage(w, r, status, buf.Bytes())
		return nil
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Disposition", `attachment; filename="return-label.pdf"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	w.Write(pdf)
	return nil
}

// returnsPathID reads an integer id from the path, as a 400 naming it otherwise.
func returnsPathID(r *http.Request, name string) (uint64, error) {
	id, err := strconv.ParseUint(r.PathValue(name), 10, 64)
	if err != nil {
		return 0, deliverykit.InvalidField(name, "type", "must be a positive integer")
	}
	return id, nil
}
