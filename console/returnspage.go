package console

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/returns"
)

// returnsPageSize is how many returns the queues page reads at once,
// newest first; older ones are on the next page.
const returnsPageSize = 50

// queue is one of the returns page's lists.
type queue struct {
	Status  string
	Returns []returns.ReturnSummary
}

// indexQueue is a queue the counters keep (complaints to decide, parcels
// to inspect).
type indexQueue struct {
	Name    string
	Returns []queueEntry
}

type returnsView struct {
	base
	Waiting  []indexQueue
	Queues   []queue
	Refunds  []returns.RefundEntry
	Page     int
	Next     bool
	Operator bool
}

// queueOrder is the returns page's queues: returns the customer still
// sends, on their way or at the warehouse, then waiting for the
// merchant's refund or exchange.
var queueOrder = []returns.ReturnStatus{returns.StatusAwaitingReturn, returns.StatusInTransit, returns.StatusAwaitingRefund, returns.StatusAwaitingExchange}

func (c *Console) returnsPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	page, err := pageNumber(r)
	if err != nil {
		return err
	}
	list, err := c.opts.Returns.ListReturns(r.Context(), rq.Site, returns.PageRequest{Page: page, Size: returnsPageSize,
		Sort: []returns.SortOrder{{Field: "id", Direction: returns.Desc}}})
	if err != nil {
		return err
	}
	v := returnsView{base: c.base(rq, "returns", rq.loc.T("returns.title")), Page: page, Next: !list.Last, Operator: rq.Role == Operator}
	v.Notice = notice(r, rq.loc)
	for _, q := range []string{queueComplaints, queueWarehouse} {
		list, err := c.opts.Counters.queue(r.Context(), rq.Site, q, returnsPageSize)
		if err != nil {
			return err
		}
		v.Waiting = append(v.Waiting, indexQueue{Name: q, Returns: list})
	}
	for _, st := range queueOrder {
		q := queue{Status: string(st)}
		for _, ret := range list.Content {
			if ret.Status == st {
				q.Returns = append(q.Returns, ret)
			}
		}
		v.Queues = append(v.Queues, q)
	}
	refunds, err := c.opts.Returns.ListRefunds(r.Context(), rq.Site, returns.TxAwaitingExternalRefund, returns.PageRequest{Size: returnsPageSize})
	if err != nil {
		return err
	}
	v.Refunds = refunds.Content
	c.render(w, r, http.StatusOK, "returns", v)
	return nil
}

// pageNumber reads ?page=, 0 when absent.
func pageNumber(r *http.Request) (int, error) {
	s := r.URL.Query().Get("page")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 10_000 {
		return 0, deliverykit.E(deliverykit.KindInvalidArgument, "page: want a number from 0 to 10000")
	}
	return n, nil
}

// pathID reads a numeric path segment.
func pathID(r *http.Request, name string) (uint64, error) {
	s := r.PathValue(name)
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || len(s) > 20 {
		return 0, deliverykit.Errorf(deliverykit.KindInvalidArgument, "%s: want a number", name)
	}
	return n, nil
}

type returnView struct {
	base
	Return   returns.Return
	Operator bool
}

func (c *Console) returnPage(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	ret, err := c.opts.Returns.GetReturn(r.Context(), rq.Site, id)
	if err != nil {
		return err
	}
	v := returnView{base: c.base(rq, "returns", rq.loc.T("return.title", id)), Return: ret, Operator: rq.Role == Operator}
	v.Notice = notice(r, rq.loc)
	c.render(w, r, http.StatusOK, "return", v)
	return nil
}

func returnPath(id uint64) string { return fmt.Sprintf("%sreturns/%d", Path, id) }

// reportItems reports one line of a return as arrived: approved or
// declined, with a quantity and a comment.
func (c *Console) reportItems(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	f := r.PostForm
	qty, err := strconv.Atoi(f.Get("quantity"))
	if err != nil || qty < 1 || qty > 10_000 {
		return deliverykit.E(deliverykit.KindInvalidArgument, "quantity: want a number from 1 to 10000")
	}
	var approved bool
	switch f.Get("decision") {
	case "approve":
		approved = true
	case "decline":
	default:
		return deliverykit.E(deliverykit.KindInvalidArgument, "decision: want approve or decline")
	}
	in := returns.ReturnedItemsInput{ReturnID: id, Items: []returns.ReturnedItemInput{{
		SKU: f.Get("sku"), Quantity: qty, Approved: approved, Comment: f.Get("comment")}}}
	if _, err := c.opts.Returns.ReportReturnedItems(r.Context(), rq.Site, in); err != nil {
		return err
	}
	return done(w, r, returnPath(id), "reported")
}

// decideComplaint approves or rejects a line's complaint.
func (c *Console) decideComplaint(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	item, err := pathID(r, "item")
	if err != nil {
		return err
	}
	st := returns.ComplaintStatus(r.PostForm.Get("status"))
	if st != returns.ComplaintApproved && st != returns.ComplaintRejected {
		return deliverykit.E(deliverykit.KindInvalidArgument, "status: want APPROVED or REJECTED")
	}
	if _, err := c.opts.Returns.DecideComplaint(r.Context(), rq.Site, id, item, returns.ComplaintDecision{Status: st}); err != nil {
		return err
	}
	return done(w, r, returnPath(id), "decided")
}

// markRefunded records that the merchant paid a refund transaction out.
func (c *Console) markRefunded(w http.ResponseWriter, r *http.Request, rq *request) error {
	id, err := pathID(r, "id")
	if err != nil {
		return err
	}
	entry, err := c.opts.Returns.MarkRefunded(r.Context(), rq.Site, id)
	if err != nil {
		return err
	}
	if r.PostForm.Get("back") == "return" {
		return done(w, r, returnPath(entry.ReturnID), "refunded")
	}
	return done(w, r, Path+"returns", "refunded")
}
