package page

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/returns"
)

var pageReasons = returns.ReasonCatalog{
	Locales: []string{"en-US", "de-DE"},
	Return: []catalog.ReturnReason{{ID: "size", DisplayName: map[string]string{"en-US": "Wrong size", "de-DE": "Falsche Größe"},
		SubReasons: []catalog.SubReason{{ID: "small", DisplayName: map[string]string{"en-US": "Too small", "de-DE": "Zu klein"}}}}},
	Complaint: []catalog.ComplaintReason{{ID: "damaged", DisplayName: map[string]string{"en-US": "Damaged", "de-DE": "Beschädigt"}}},
}

func TestReasonText(t *testing.T) {
	stored := []returns.ReturnReason{{ID: "size", Reason: "Wrong size", SubReason: "Too small", SubReasonID: "small"}, {Reason: "eigene Worte"}}
	tests := []struct {
		name    string
		tag     language.Tag
		rc      returns.ReasonCatalog
		reasons []returns.ReturnReason
		want    string
	}{
		{"German from the catalog", language.German, pageReasons, stored, "Falsche Größe – Zu klein; eigene Worte"},
		{"English", language.English, pageReasons, stored, "Wrong size – Too small; eigene Worte"},
		{"reason gone from the catalog: as stored", language.German, returns.ReasonCatalog{}, stored, "Wrong size – Too small; eigene Worte"},
		{"none", language.German, pageReasons, nil, ""},
	}
	for _, tc := range tests {
		if got := reasonText(tc.tag, tc.rc, tc.reasons); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestComplaintSection checks when the page offers the complaint form: on
// an open return of a site with complaint reasons, for a line without a
// complaint or with a pending one that has room for photos; never on a
// completed return or a decided complaint.
func TestComplaintSection(t *testing.T) {
	img := returns.ComplaintImage{ID: 1, UUID: "u", DownloadURL: "https://x.example" + returns.ComplaintImagePath + "u?expires=1&signature=s"}
	pending := &returns.CustomerComplaint{ID: 1, Status: returns.ComplaintPending, ComplaintReason: returns.ComplaintReason{ID: "damaged", Reason: "Damaged"},
		Images: []returns.ComplaintImage{img}}
	approved := *pending
	approved.Status = returns.ComplaintApproved
	tests := []struct {
		name      string
		open      bool
		rc        returns.ReasonCatalog
		complaint *returns.CustomerComplaint
		want      *complaintView
	}{
		{"no reasons, no complaint", true, returns.ReasonCatalog{}, nil, nil},
		{"completed, no complaint", false, pageReasons, nil, nil},
		{"open, no complaint: the form", true, pageReasons, nil,
			&complaintView{ItemID: 1, Title: "Mug", Action: "/p/rt_1/items/1/complaint", CanAdd: true}},
		{"open, pending: more photos", true, pageReasons, pending,
			&complaintView{ItemID: 1, Title: "Mug", Action: "/p/rt_1/items/1/complaint", CanAdd: true, Has: true, Reason: "Beschädigt", Status: "Wird geprüft",
				Photos: []photoView{{URL: returns.ComplaintImagePath + "u?expires=1&signature=s", Label: "Foto 1"}}}},
		{"approved: shown, no form", true, pageReasons, &approved,
			&complaintView{ItemID: 1, Title: "Mug", Has: true, Reason: "Beschädigt", Status: "Anerkannt",
				Photos: []photoView{{URL: returns.ComplaintImagePath + "u?expires=1&signature=s", Label: "Foto 1"}}}},
	}
	for _, tc := range tests {
		sp := returns.StatusPageView{Reasons: tc.rc, ComplaintsOpen: tc.open, ItemsPath: "/p/rt_1/items/"}
		got := complaintOf(language.German, texts(language.German), sp, returns.ReturnItem{ID: 1, CustomerComplaint: tc.complaint}, "Mug")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
	// The rendered form posts multipart to the line and lists the reasons.
	var b bytes.Buffer
	err := Render(&b, language.German, returns.StatusPageView{Reasons: pageReasons, ComplaintsOpen: true, ItemsPath: "/p/rt_1/items/",
		Return: returns.Return{Status: returns.StatusAwaitingReturn, Items: []returns.ReturnItem{{ID: 1, ProductVariant: returns.ProductVariant{ProductTitle: "Mug"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`action="/p/rt_1/items/1/complaint" enctype="multipart/form-data"`, `<option value="damaged">Beschädigt</option>`, `name="image"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %s", want)
		}
	}
}
