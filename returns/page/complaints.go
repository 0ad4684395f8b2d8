package page

import (
	"strconv"
	"strings"

	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/internal/i18n"
	"github.com/deliverykit/deliverykit/returns"
)

// complaintView is a line's complaint section: what the customer said so
// far, the photos, and the form that adds them (a plain multipart form, no
// script).
type complaintView struct {
	ItemID uint64
	Title  string
	// Action is where the form posts; empty when it may not.
	Action string
	// Existing complaint, if any.
	Has    bool
	Reason string
	Text   string
	Status string
	Photos []photoView
	// CanAdd is true while more photos fit.
	CanAdd bool
	// Error says the last upload to this line was refused.
	Error bool
}

type photoView struct {
	URL   string
	Label string
}

type reasonOption struct {
	ID   string
	Text string
}

// reasonText is a line's reasons in the page's language: a catalog reason
// ("Size – too small") in the catalog's text for the language, else as
// stored, then the customer's own words.
func reasonText(tag language.Tag, rc returns.ReasonCatalog, rs []returns.ReturnReason) string {
	var parts []string
	for _, r := range rs {
		text, sub := r.Reason, r.SubReason
		if r.ID != "" {
			for _, cr := range rc.Return {
				if cr.ID != r.ID {
					continue
				}
				text = rc.Text(cr.DisplayName, tag.String())
				if s, ok := cr.SubReason(r.SubReasonID); ok {
					sub = rc.Text(s.DisplayName, tag.String())
				}
			}
		}
		if sub != "" {
			text += " – " + sub
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "; ")
}

// complaintOf is the complaint section of item it, or nil when the page
// shows none: no complaint and none can be made (the site lists no
// complaint reasons, or the return is completed).
func complaintOf(tag language.Tag, t map[string]string, sp returns.StatusPageView, it returns.ReturnItem, title string) *complaintView {
	c := it.CustomerComplaint
	open := sp.ComplaintsOpen && sp.ItemsPath != ""
	if c == nil && (!open || len(sp.Reasons.Complaint) == 0) {
		return nil
	}
	v := &complaintView{ItemID: it.ID, Title: title, Error: sp.ComplaintError != 0 && sp.ComplaintError == it.ID}
	if c != nil {
		v.Has = true
		v.Reason = c.ComplaintReason.Reason
		for _, cr := range sp.Reasons.Complaint {
			if cr.ID == c.ComplaintReason.ID {
				v.Reason = sp.Reasons.Text(cr.DisplayName, tag.String())
			}
		}
		v.Text, v.Status = c.ComplaintText, t["complaint_status_"+string(c.Status)]
		for i, im := range c.Images {
			// The page shows photos from its own origin: the signed
			// path and query, without the public URL's host.
			u := im.DownloadURL
			if k := strings.Index(u, returns.ComplaintImagePath); k >= 0 {
				u = u[k:]
			}
			v.Photos = append(v.Photos, photoView{URL: u, Label: i18n.Text(tag, "returns.complaint.photo", i+1)})
		}
		open = open && c.Status == returns.ComplaintPending
	}
	v.CanAdd = open && len(v.Photos) < returns.MaxComplaintImages
	if v.CanAdd {
		v.Action = sp.ItemsPath + strconv.FormatUint(it.ID, 10) + returns.ComplaintPathSuffix
	}
	return v
}
