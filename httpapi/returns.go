package httpapi

import (
	"bytes"
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

// registerReturns serves area E (spec §4.5) under /returns: the merchant
// endpoints behind x-api-key, and the public customer endpoints (the return
// form's POST /customer/return and the status page at
// returns.StatusPagePath + token), which take no key. Errors are Spring
// style: {"timestamp", "status", "error", "message", "path"}, the message
// naming the field or parameter.
func (s *server) registerReturns(svc *returns.Service) {
	base := areaReturns.base
	s.route(areaReturns, base+"/merchant/order", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			pr, err := returns.ParsePageQuery(r.URL.Query())
			if err != nil {
				return err
			}
			res, err := svc.ListOrders(r.Context(), site, pr)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
		// Extension: import an order (design: "Extension endpoints").
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var in returns.OrderInput
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
			res, err := svc.ImportOrder(r.Context(), site, in)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusCreated, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/order/{orderId}", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			res, err := svc.GetOrder(r.Context(), site, r.PathValue("orderId"), returns.IDType(r.URL.Query().Get("idType")))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/return", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			pr, err := returns.ParsePageQuery(r.URL.Query())
			if err != nil {
				return err
			}
			res, err := svc.ListReturns(r.Context(), site, pr)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/return/{returnId}", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			id, err := returnsPathID(r, "returnId")
			if err != nil {
				return err
			}
			res, err := svc.GetReturn(r.Context(), site, id)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	// Extension: a new status page link for a return, whose old link then
	// stops working (expired, or sent to the wrong person).
	s.route(areaReturns, base+"/merchant/return/{returnId}/status-link", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			id, err := returnsPathID(r, "returnId")
			if err != nil {
				return err
			}
			res, err := svc.RenewStatusLink(r.Context(), site, id)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/items/returned", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			var in returns.ReturnedItemsInput
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
			res, err := svc.ReportReturnedItems(r.Context(), site, in)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/refund/transaction", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			pr, err := returns.ParsePageQuery(q)
			if err != nil {
				return err
			}
			res, err := svc.ListRefunds(r.Context(), site, returns.TransactionStatus(q.Get("status")), pr)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaReturns, base+"/merchant/refund/transaction/{refundTransactionId}/refunded", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
			id, err := returnsPathID(r, "refundTransactionId")
			if err != nil {
				return err
			}
			res, err := svc.MarkRefunded(r.Context(), site, id)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	// Extension: a customer starts a return. No key: the order's e-mail
	// is the customer's credential, and a wrong one is answered exactly
	// like an unknown order.
	s.routePublic(areaReturns, base+"/customer/return", map[string]endpoint{
		http.MethodPost: func(w http.ResponseWriter, r *http.Request, _ string) error {
			var in returns.CustomerReturnInput
			if err := decodeJSON(r, &in); err != nil {
				return err
			}
			res, err := svc.CreateReturn(r.Context(), in)
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusCreated, res)
			return nil
		},
	})
	s.routePublic(areaReturns, returns.StatusPagePath+"{token}", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			return s.returnStatusPage(w, r, svc)
		},
	})
	s.routePublic(areaReturns, returns.StatusPagePath+"{token}"+returns.StatusLabelPath, map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			return s.returnLabel(w, r, svc)
		},
	})
	s.routePublic(areaReturns, base+"/openapi.json", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			writeReturnsDoc(w, "application/json", returnsOpenAPI)
			return nil
		},
	})
}

// returnStatusPage serves the customer's status page. The token in the
// path is the only credential, so the page is never cached or sent on as a
// referrer; an unknown token gets a localized 404 page that says nothing
// more, an expired or replaced one a 410 page that says so. The language
// is the return's own (the customer's return request, else the order),
// else ?locale= (?lang= before it existed), else Accept-Language.
func (s *server) returnStatusPage(w http.ResponseWriter, r *http.Request, svc *returns.Service) error {
	v, err := svc.StatusPage(r.Context(), r.PathValue("token"))
	q := r.URL.Query()
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
	writeReturnPage(w, status, buf.Bytes())
	return nil
}

// writeReturnPage writes a status page. Its policy allows the inline
// styles and the QR code, a data: image; the customer page headers
// (headers.go) are added as the answer goes out.
func writeReturnPage(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
	h.Set("Vary", "Accept-Language")
	w.WriteHeader(status)
	w.Write(body)
}

// returnLabel serves the return label PDF a status page links to, under
// the page's token: no key, the token is the credential, and like the
// page it is never cached. An unknown token, or a return without a
// label, gets the localized not-found page; an expired link the expired
// page.
func (s *server) returnLabel(w http.ResponseWriter, r *http.Request, svc *returns.Service) error {
	pdf, err := svc.ReturnLabelByToken(r.Context(), r.PathValue("token"))
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
		writeReturnPage(w, status, buf.Bytes())
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "application/pdf")
	h.Set("Content-Disposition", `attachment; filename="return-label.pdf"`)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(pdf)))
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

// writeReturnsDoc writes a prepared body (the OpenAPI document).
func writeReturnsDoc(w http.ResponseWriter, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
}
