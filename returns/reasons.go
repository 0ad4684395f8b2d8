package returns

import (
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
)

// This file is the catalog of return and complaint reasons: what the
// customer picks from, checked when a return is created.

// Reasons gives each site's reason catalog. CatalogPolicies implements it
// over the sites' catalogs (return_policy.return_reasons and
// complaint_reasons).
type Reasons interface {
	Reasons(site string) ReasonCatalog
}

// ReasonCatalog is a site's reasons. Locales are the catalog's, the first
// the default: the returns API shows reasons in it.
type ReasonCatalog struct {
	Locales   []string
	Return    []catalog.ReturnReason
	Complaint []catalog.ComplaintReason
}

// Reasons implements Reasons.
func (c CatalogPolicies) Reasons(site string) ReasonCatalog {
	cat := c[site]
	if cat == nil || cat.ReturnPolicy == nil {
		return ReasonCatalog{}
	}
	return ReasonCatalog{Locales: cat.Locales, Return: cat.ReturnPolicy.ReturnReasons, Complaint: cat.ReturnPolicy.ComplaintReasons}
}

// StaticReasons is a fixed map of site → ReasonCatalog.
type StaticReasons map[string]ReasonCatalog

// Reasons implements Reasons.
func (r StaticReasons) Reasons(site string) ReasonCatalog { return r[site] }

func (s *Service) reasonCatalog(site string) ReasonCatalog {
	if s.reasons == nil {
		return ReasonCatalog{}
	}
	return s.reasons.Reasons(site)
}

func (rc ReasonCatalog) returnReason(id string) (catalog.ReturnReason, bool) {
	for _, r := range rc.Return {
		if r.ID == id {
			return r, true
		}
	}
	return catalog.ReturnReason{}, false
}

func (rc ReasonCatalog) complaint(id string) (catalog.ComplaintReason, bool) {
	for _, r := range rc.Complaint {
		if r.ID == id {
			return r, true
		}
	}
	return catalog.ComplaintReason{}, false
}

// defaultText is names in the catalog's first locale.
func (rc ReasonCatalog) defaultText(names map[string]string) string {
	first := ""
	if len(rc.Locales) > 0 {
		first = rc.Locales[0]
	}
	return catalog.LocalName(names, first, rc.Locales)
}

// Text is names in locale, else the catalog's nearest (catalog.LocalName).
func (rc ReasonCatalog) Text(names map[string]string, locale string) string {
	return catalog.LocalName(names, locale, rc.Locales)
}

// linePick is what a customer picked for one item of a return request.
type linePick struct {
	reasonID, reasonText, subID, subText string
	complaint                            *complaintRecord
}

// reasonPicks checks the reason and complaint ids of a return request
// against the site's catalog and answers them per item, or a violation
// naming each unknown id.
func (s *Service) reasonPicks(in CustomerReturnInput) ([]linePick, error) {
	rc := s.reasonCatalog(in.SiteID)
	now := s.now()
	picks := make([]linePick, len(in.Items))
	var vs []deliverykit.FieldViolation
	for i, it := range in.Items {
		p := "items[" + strconv.Itoa(i) + "]."
		switch {
		case it.ReasonID != "":
			r, ok := rc.returnReason(it.ReasonID)
			if !ok {
				vs = append(vs, deliverykit.FieldViolation{Field: p + "reasonId", Rule: "oneof", Message: "is not one of the site's return reasons"})
				break
			}
			picks[i].reasonID, picks[i].reasonText = r.ID, rc.defaultText(r.DisplayName)
			if it.SubReasonID != "" {
				sub, ok := r.SubReason(it.SubReasonID)
				if !ok {
					vs = append(vs, deliverykit.FieldViolation{Field: p + "subReasonId", Rule: "oneof", Message: "is not a sub-reason of the reason"})
					break
				}
				picks[i].subID, picks[i].subText = sub.ID, rc.defaultText(sub.DisplayName)
			}
		case it.SubReasonID != "":
			vs = append(vs, deliverykit.FieldViolation{Field: p + "subReasonId", Rule: "required_with", Message: "needs a reasonId"})
		}
		if it.Complaint != nil {
			c, cvs := s.newComplaint(in.SiteID, p+"complaint.", *it.Complaint, now)
			vs = append(vs, cvs...)
			picks[i].complaint = c
		}
	}
	if len(vs) > 0 {
		return nil, deliverykit.Invalid(vs...)
	}
	return picks, nil
}

// applyPicks stores the picks on the lines of a new return, which are in
// the request's item order.
func applyPicks(lines []returnLine, picks []linePick) {
	for i := range lines {
		if i >= len(picks) {
			return
		}
		p := picks[i]
		lines[i].ReasonID, lines[i].ReasonText, lines[i].SubReasonID, lines[i].SubReasonText = p.reasonID, p.reasonText, p.subID, p.subText
		if p.complaint != nil {
			c := *p.complaint
			lines[i].Complaint = &c
		}
	}
}

// returnReasons shows a line's reasons: the catalog reason picked, then
// the customer's own words.
func returnReasons(l returnLine) []ReturnReason {
	var out []ReturnReason
	if l.ReasonID != "" {
		out = append(out, ReturnReason{ID: l.ReasonID, Reason: l.ReasonText, SubReason: l.SubReasonText, SubReasonID: l.SubReasonID})
	}
	if l.Reason != "" {
		out = append(out, ReturnReason{Reason: l.Reason})
	}
	return out
}
