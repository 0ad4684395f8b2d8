package catalog

import (
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/text/language"
)

// ReturnReason is a reason a customer may give for returning a line, with
// optional finer sub-reasons ("size" → "too small", "too large"). The
// return page lists them in the customer's language; the returns API
// shows the id and the text in the catalog's first locale.
type ReturnReason struct {
	// ID is what the customer's return request sends (reasonId); stable
	// once customers use it.
	ID string `json:"id"`
	// DisplayName maps a locale of Catalog.Locales to the text shown; the
	// first locale is required.
	DisplayName map[string]string `json:"display_name"`
	SubReasons  []SubReason       `json:"sub_reasons,omitempty"`
}

// SubReason refines a ReturnReason; its id is unique within the reason.
type SubReason struct {
	ID          string            `json:"id"`
	DisplayName map[string]string `json:"display_name"`
}

// ComplaintReason is a reason a customer may give for a complaint about a
// returned line (damaged, faulty, wrong item).
type ComplaintReason struct {
	ID          string            `json:"id"`
	DisplayName map[string]string `json:"display_name"`
}

// Bounds of the reason lists: a customer page lists them all.
const (
	MaxReturnReasons    = 50
	MaxSubReasons       = 20
	MaxComplaintReasons = 50
)

var reasonID = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]{0,63}$`)

// ReturnReason returns the reason with the given id.
func (rp *ReturnPolicy) ReturnReason(id string) (ReturnReason, bool) {
	if rp == nil {
		return ReturnReason{}, false
	}
	for _, r := range rp.ReturnReasons {
		if r.ID == id {
			return r, true
		}
	}
	return ReturnReason{}, false
}

// SubReason returns the sub-reason of r with the given id.
func (r ReturnReason) SubReason(id string) (SubReason, bool) {
	for _, s := range r.SubReasons {
		if s.ID == id {
			return s, true
		}
	}
	return SubReason{}, false
}

// ComplaintReason returns the complaint reason with the given id.
func (rp *ReturnPolicy) ComplaintReason(id string) (ComplaintReason, bool) {
	if rp == nil {
		return ComplaintReason{}, false
	}
	for _, r := range rp.ComplaintReasons {
		if r.ID == id {
			return r, true
		}
	}
	return ComplaintReason{}, false
}

// LocalName picks the text of names for locale: the same locale, else the
// first of locales with the same language, else the first of locales (the
// catalog's default), else any.
func LocalName(names map[string]string, locale string, locales []string) string {
	if n := names[locale]; n != "" {
		return n
	}
	if tag, err := language.Parse(locale); err == nil {
		base, _ := tag.Base()
		for _, l := range locales {
			if t, err := language.Parse(l); err == nil {
				if b, _ := t.Base(); b == base && names[l] != "" {
					return names[l]
				}
			}
		}
	}
	for _, l := range locales {
		if n := names[l]; n != "" {
			return n
		}
	}
	for _, n := range names {
		return n
	}
	return ""
}

// validateReasons checks the return and complaint reasons of the policy:
// ids of lower-case letters, digits, '-', '_' and '.', unique per list,
// names in the catalog's locales with the default one given.
func validateReasons(v *validator, rp *ReturnPolicy, d *declared) {
	if len(rp.ReturnReasons) > MaxReturnReasons {
		v.Addf("return_policy.return_reasons", "max", "must list at most %d reasons", MaxReturnReasons)
	}
	seen := map[string]bool{}
	for i, r := range rp.ReturnReasons {
		p := fmt.Sprintf("return_policy.return_reasons[%d]", i)
		reasonEntry(v, p, r.ID, r.DisplayName, seen, d)
		if len(r.SubReasons) > MaxSubReasons {
			v.Addf(p+".sub_reasons", "max", "must list at most %d sub-reasons", MaxSubReasons)
		}
		sub := map[string]bool{}
		for j, s := range r.SubReasons {
			reasonEntry(v, fmt.Sprintf("%s.sub_reasons[%d]", p, j), s.ID, s.DisplayName, sub, d)
		}
	}
	if len(rp.ComplaintReasons) > MaxComplaintReasons {
		v.Addf("return_policy.complaint_reasons", "max", "must list at most %d reasons", MaxComplaintReasons)
	}
	seen = map[string]bool{}
	for i, r := range rp.ComplaintReasons {
		reasonEntry(v, fmt.Sprintf("return_policy.complaint_reasons[%d]", i), r.ID, r.DisplayName, seen, d)
	}
}

func reasonEntry(v *validator, p, id string, names map[string]string, seen map[string]bool, d *declared) {
	switch {
	case strings.TrimSpace(id) == "":
		v.Add(p+".id", "required", "is required")
	case !reasonID.MatchString(id):
		v.Add(p+".id", "pattern", "must be 1 to 64 lower-case letters, digits, '-', '_' or '.', starting with a letter or digit")
	case seen[id]:
		v.Addf(p+".id", "unique", "%q is used by an earlier entry", id)
	}
	seen[id] = true
	v.names(p+".display_name", names, d.locales, true)
	if d.defaultLocale != "" && len(names) > 0 && names[d.defaultLocale] == "" {
		v.Add(p+".display_name."+d.defaultLocale, "required", "the default locale needs a text")
	}
	for loc, n := range names {
		if len(n) > 256 {
			v.Add(p+".display_name."+loc, "max", "must be at most 256 bytes")
		}
	}
}
