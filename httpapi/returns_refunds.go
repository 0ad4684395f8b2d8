package httpapi

import (
	"context"
	"net/http"

	"github.com/deliverykit/deliverykit/returns"
)

// registerReturnsRefunds serves the extensions of the refund lifecycle
// and of exchanges: the merchant reports a refund's success or failure
// (with its own refund id), retries a failed one, and completes an
// exchange.
func (s *server) registerReturnsRefunds(h returnsHandlers) {
	a, base := areaReturns, areaReturns.base
	s.route(a, base+"/merchant/refund/transaction/{refundTransactionId}/success", post(h.refundSucceeded))
	s.route(a, base+"/merchant/refund/transaction/{refundTransactionId}/failure", post(h.refundFailed))
	s.route(a, base+"/merchant/refund/transaction/{refundTransactionId}/retry", post(h.retryRefund))
	s.route(a, base+"/merchant/return/{returnId}/exchanged", post(h.completeExchange))
}

func (h returnsHandlers) refundSucceeded(w http.ResponseWriter, r *http.Request, site string) error {
	return h.refundReport(w, r, site, h.svc.ReportRefundSucceeded)
}

func (h returnsHandlers) refundFailed(w http.ResponseWriter, r *http.Request, site string) error {
	return h.refundReport(w, r, site, h.svc.ReportRefundFailed)
}

func (h returnsHandlers) refundReport(w http.ResponseWriter, r *http.Request, site string,
	fn func(context.Context, string, uint64, returns.RefundReport) (returns.RefundEntry, error)) error {
	id, err := returnsPathID(r, "refundTransactionId")
	if err != nil {
		return err
	}
	var in returns.RefundReport
	return handle(w, r, site, &in, nil, func(ctx context.Context, site string, in returns.RefundReport) (returns.RefundEntry, error) {
		return fn(ctx, site, id, in)
	})
}

func (h returnsHandlers) retryRefund(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "refundTransactionId")
	if err != nil {
		return err
	}
	return respond(w, r, site, "", id, h.svc.RetryRefund)
}

func (h returnsHandlers) completeExchange(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "returnId")
	if err != nil {
		return err
	}
	var in returns.ExchangeInput
	return handle(w, r, site, &in, nil, func(ctx context.Context, site string, in returns.ExchangeInput) (returns.Return, error) {
		return h.svc.CompleteExchangeWith(ctx, site, id, in)
	})
}
