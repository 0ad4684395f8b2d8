package shipment_test

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/shipment"
	"github.com/deliverykit/deliverykit/shipment/customs"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

func receiverIn(name, street, pc, city, country string) *shipment.Receiver {
	return &shipment.Receiver{Name: name, Address: &shipment.Address{Street: street, PostalCode: pc, City: city, Country: country}}
}

// declaration is a complete sale of the test parcel's tent: the items
// name its SKU and add what customs need beyond the line item.
func declaration() *shipment.CustomsDeclaration {
	return &shipment.CustomsDeclaration{
		Exporter: &shipment.CustomsParty{VAT: "SE556677889901", EORI: "SE5566778899"},
		Importer: &shipment.CustomsParty{VAT: "NO999888777MVA"},
		Items:    []shipment.CustomsItem{{SKU: "TENT-2", HSCode: "630622", OriginCountry: "CN", NetWeight: 1100}},
	}
}

func kinds(sh *shipment.Shipment) []customs.Kind {
	var out []customs.Kind
	for _, d := range sh.Documents {
		out = append(out, d.Kind)
	}
	return out
}

// Booking decides the documents: by the border, the product (a service
// point parcel is a postal item, a home delivery a courier parcel), the
// value and the weight.
func TestCustomsDocumentsAtBooking(t *testing.T) {
	oslo := receiverIn("Ola Nordmann", "Karl Johans gate 1", "0154", "Oslo", "NO")
	berlin := receiverIn("Erika Mustermann", "Unter den Linden 1", "10117", "Berlin", "DE")
	zurich := receiverIn("Heidi Muster", "Bahnhofstrasse 1", "8001", "Zürich", "CH")
	tests := []struct {
		name   string
		mutate func(r *shipment.CreateShipmentRequest)
		want   []customs.Kind
	}{
		{"SE to NO, service point, 4 tents: CN23 and invoice", func(r *shipment.CreateShipmentRequest) {
			r.Receiver, r.Parcels = oslo, []shipment.ParcelInput{parcel("np-point")}
			r.Parcels[0].LineItems[0].Quantity = 4 // 5196 SEK, above 300 SDR
			r.Customs = declaration()
		}, []customs.Kind{customs.CN23, customs.CommercialInvoice}},
		{"SE to NO, service point, one gift: CN22", func(r *shipment.CreateShipmentRequest) {
			r.Receiver, r.Parcels = oslo, []shipment.ParcelInput{parcel("np-point")}
			r.Customs = declaration()
			r.Customs.ContentsType = shipment.ContentsGift
		}, []customs.Kind{customs.CN22}},
		{"SE to CH, home delivery: invoice", func(r *shipment.CreateShipmentRequest) {
			r.Receiver = zurich
			r.Customs = declaration()
		}, []customs.Kind{customs.CommercialInvoice}},
		{"SE to DE: none", func(r *shipment.CreateShipmentRequest) { r.Receiver = berlin }, nil},
		{"SE to SE with a declaration: none", func(r *shipment.CreateShipmentRequest) { r.Customs = declaration() }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := request("")
			tt.mutate(&req)
			sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
			if diff := cmp.Diff(tt.want, kinds(sh)); diff != "" {
				t.Errorf("documents (-want +got):\n%s", diff)
			}
			got := must[*shipment.Shipment](t)(f.svc.Get(ctx, site, shipment.GetShipmentQuery{ID: sh.ID}))
			if diff := cmp.Diff(sh.Documents, got.Documents); diff != "" {
				t.Errorf("stored documents (-booked +stored):\n%s", diff)
			}
			for _, d := range sh.Documents {
				if want := shipment.DocumentPath + sh.ID + "/" + string(d.Kind) + "?format=pdf"; d.PDFURL != want {
					t.Errorf("pdf_url %q, want %q", d.PDFURL, want)
				}
				b, ctype, err := f.svc.Document(ctx, site, sh.ID, d.Kind, "")
				if err != nil || ctype != "application/pdf" || !strings.HasPrefix(string(b), "%PDF-") {
					t.Errorf("document %s: %q, %.8q, %v", d.Kind, ctype, b, err)
				}
			}
		})
	}
}

// A return from a customer in Great Britain to the Swedish warehouse, a
// service-point parcel of 2.5 kg, travels with a CN23 and no invoice (the
// goods are not sold); booked in two steps, the documents come with the
// booking.
func TestCustomsReturnFromGB(t *testing.T) {
	f := newFixture(t)
	req := request("RET-1", parcel("np-point"))
	req.DirectionType = shipment.DirectionReturn
	req.Sender = &shipment.Sender{Name: "Oliver Smith", Address: &shipment.Address{Street: "10 Downing Street", PostalCode: "SW1A 2AA", City: "London", Country: "GB"}}
	req.Receiver = &shipment.Receiver{Name: "Demo Outdoor Returns", Address: sender().Address}
	req.Parcels[0].Weight = 2500
	req.Customs = &shipment.CustomsDeclaration{Items: []shipment.CustomsItem{{SKU: "TENT-2", HSCode: "630622", OriginCountry: "CN", NetWeight: 1100}}}
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, req))
	if sh.Documents != nil || sh.Customs.ContentsType != shipment.ContentsReturn || sh.Customs.Incoterm != shipment.IncotermDAP {
		t.Errorf("created: documents %v, declaration %+v", sh.Documents, sh.Customs)
	}
	if _, _, err := f.svc.Document(ctx, site, sh.ID, customs.CN23, "pdf"); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("CN23 before booking: %v, want not found", err)
	}
	sh = must[*shipment.Shipment](t)(f.svc.BookParcels(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	if diff := cmp.Diff([]customs.Kind{customs.CN23}, kinds(sh)); diff != "" {
		t.Errorf("documents (-want +got):\n%s", diff)
	}
	first := must[[]byte](t)(docPDF(f, sh.ID, customs.CN23))
	if again := must[[]byte](t)(docPDF(f, sh.ID, customs.CN23)); string(again) != string(first) {
		t.Error("the CN23 rendered twice differs")
	}
	if _, _, err := f.svc.Document(ctx, site, sh.ID, customs.CommercialInvoice, ""); deliverykit.KindOf(err) != deliverykit.KindNotFound {
		t.Errorf("invoice of a return: %v, want not found", err)
	}
	if _, _, err := f.svc.Document(ctx, site, sh.ID, customs.CN23, "zpl"); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Errorf("format zpl: %v, want invalid argument", err)
	}
	must[*shipment.Shipment](t)(f.svc.CancelShipment(ctx, site, shipment.ShipmentRef{ShipmentID: sh.ID}))
	if _, _, err := f.svc.Document(ctx, site, sh.ID, customs.CN23, ""); deliverykit.KindOf(err) != deliverykit.KindFailedPrecondition {
		t.Errorf("CN23 of a cancelled shipment: %v, want failed precondition", err)
	}
}

func docPDF(f *fixture, id string, k customs.Kind) ([]byte, error) {
	b, _, err := f.svc.Document(ctx, site, id, k, shipment.LabelPDF)
	return b, err
}

func TestCustomsValidation(t *testing.T) {
	type v struct{ Field, Rule string }
	oslo := receiverIn("Ola Nordmann", "Karl Johans gate 1", "0154", "Oslo", "NO")
	tests := []struct {
		name   string
		mutate func(r *shipment.CreateShipmentRequest)
		want   []v
	}{
		{"no declaration: defaults from the line items leave out what customs need", func(r *shipment.CreateShipmentRequest) {},
			[]v{{"customs.exporter.eori", "required_if"}, {"customs.items[0].hs_code", "required"},
				{"customs.items[0].net_weight", "gt"}, {"customs.items[0].origin_country", "required"}}},
		{"no line items and no items", func(r *shipment.CreateShipmentRequest) {
			r.Parcels[0].LineItems = nil
			r.Customs = declaration()
			r.Customs.Items = nil
		}, []v{{"customs.items", "required"}}},
		{"a sale without invoice number", func(r *shipment.CreateShipmentRequest) {
			r.Reference = ""
			r.Customs = declaration()
		}, []v{{"customs.invoice_number", "required_if"}}},
		{"bad codes", func(r *shipment.CreateShipmentRequest) {
			r.Customs = declaration()
			r.Customs.ContentsType, r.Customs.Incoterm = "bribe", "EXW"
			r.Customs.Items[0].HSCode = "6306.22"
			r.Customs.Items[0].OriginCountry = "China"
			r.Customs.Items = append(r.Customs.Items,
				shipment.CustomsItem{Description: "Pegs", HSCode: "7326", OriginCountry: "SE", Quantity: 1, NetWeight: 100, Value: 100, Currency: "EUR"},
				shipment.CustomsItem{Description: "Bag", HSCode: "42029200001", OriginCountry: "SE", Quantity: -1, NetWeight: 100, Value: -1, Currency: "SEK"})
		}, []v{{"customs.contents_type", "oneof"}, {"customs.incoterm", "oneof"}, {"customs.items[0].hs_code", "hs_code"},
			{"customs.items[0].origin_country", "iso3166_1_alpha2"}, {"customs.items[1].currency", "eqfield"}, {"customs.items[1].hs_code", "hs_code"},
			{"customs.items[2].hs_code", "hs_code"}, {"customs.items[2].quantity", "gt"}, {"customs.items[2].value", "gte"}}},
		{"too many items", func(r *shipment.CreateShipmentRequest) {
			r.Customs = declaration()
			r.Customs.Items = make([]shipment.CustomsItem, shipment.MaxCustomsItems+1)
		}, []v{{"customs.items", "max"}}},
		{"more line items than a declaration holds", func(r *shipment.CreateShipmentRequest) {
			r.Customs = declaration()
			r.Customs.Items = nil
			for i := range shipment.MaxCustomsItems + 1 {
				r.Parcels[0].LineItems = append(r.Parcels[0].LineItems, shipment.LineItem{SKU: fmt.Sprint("SKU-", i), Quantity: 1, Currency: "SEK"})
			}
		}, []v{{"customs.items", "max"}}},
		{"a gift needs no invoice nor EORI", func(r *shipment.CreateShipmentRequest) {
			r.Reference = ""
			r.Customs = declaration()
			r.Customs.ContentsType, r.Customs.Exporter = shipment.ContentsGift, nil
			r.Customs.Items[0].HSCode = ""
		}, []v{{"customs.items[0].hs_code", "required"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			req := request("")
			req.Receiver = oslo
			tt.mutate(&req)
			_, err := f.svc.Create(ctx, site, req)
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("Create: %v, want invalid argument", err)
			}
			var got []v
			for _, fv := range deliverykit.ViolationsOf(err) {
				got = append(got, v{fv.Field, fv.Rule})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

var customsPNG = flag.Bool("customs-png", false, "write the rendered customs documents to /tmp/customs-<kind>.png")

// The documents, with a Cyrillic and a Polish name: valid PDFs of their
// page size that show the names and the HS codes, and pages pdftoppm
// renders (pdftoppm -png -r 60; with -customs-png into
// /tmp/customs-<kind>.png, to be looked at).
func TestCustomsDocumentsRender(t *testing.T) {
	f := newFixture(t)
	req := request("")
	req.Sender.Name = "Łukasz Żółć"
	req.Receiver = receiverIn("Мария Иванова", "Karl Johans gate 1", "0154", "Oslo", "NO")
	req.Parcels = []shipment.ParcelInput{parcel("np-point"), parcel("np-home")}
	req.Parcels[0].LineItems = append(req.Parcels[0].LineItems, shipment.LineItem{SKU: "MUG", Name: "Enamel mug with a very long description that does not fit its column", Quantity: 2, Price: 9900, Currency: "SEK"})
	req.Customs = declaration()
	req.Customs.Items = append(req.Customs.Items, shipment.CustomsItem{SKU: "MUG", HSCode: "7323940000", OriginCountry: "SE", NetWeight: 600})
	sh := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
	// Two parcels: the service point's is a postal item of 1.25 kg, worth
	// 1497 SEK: a CN22; the home delivery's needs the invoice.
	if diff := cmp.Diff([]customs.Kind{customs.CN22, customs.CommercialInvoice}, kinds(sh)); diff != "" {
		t.Fatalf("documents (-want +got):\n%s", diff)
	}
	req.Parcels = []shipment.ParcelInput{parcel("np-point")}
	req.Parcels[0].Weight = 2500
	req.Parcels[0].LineItems = append(req.Parcels[0].LineItems, shipment.LineItem{SKU: "MUG", Name: "Кружка", Quantity: 2, Price: 9900, Currency: "SEK"})
	heavy := must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, site, req))
	a6, a4 := [2]float64{297.64, 419.53}, [2]float64{595.28, 841.89}
	pages := map[customs.Kind][2]float64{customs.CN22: a6, customs.CN23: a4, customs.CommercialInvoice: a4}
	titles := map[customs.Kind]string{customs.CN22: "CN 22", customs.CN23: "CN 23", customs.CommercialInvoice: "COMMERCIAL INVOICE"}
	_, pdftoppm := exec.LookPath("pdftoppm")
	dir := t.TempDir()
	for _, s := range []*shipment.Shipment{sh, heavy} {
		for _, d := range s.Documents {
			b := must[[]byte](t)(docPDF(f, s.ID, d.Kind))
			if err := labeltest.CheckPDF(b); err != nil {
				t.Errorf("%s: %v", d.Kind, err)
			}
			if boxes := labeltest.MediaBoxes(b); len(boxes) != 1 || math.Abs(boxes[0][0]-pages[d.Kind][0]) > 0.5 || math.Abs(boxes[0][1]-pages[d.Kind][1]) > 0.5 {
				t.Errorf("%s: pages %v, want one of %v", d.Kind, boxes, pages[d.Kind])
			}
			texts := strings.Join(must[[]string](t)(labeltest.Texts(b)), "|")
			for _, want := range []string{titles[d.Kind], "Łukasz Żółć", "Мария Иванова", "630622", "7323940000"} {
				if !strings.Contains(texts, want) {
					t.Errorf("%s does not show %q: %s", d.Kind, want, texts)
				}
			}
			if pdftoppm != nil {
				continue
			}
			pdf := filepath.Join(dir, string(d.Kind)+".pdf")
			if err := os.WriteFile(pdf, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, string(d.Kind))
			if *customsPNG {
				out = "/tmp/customs-" + string(d.Kind)
			}
			if msg, err := exec.Command("pdftoppm", "-png", "-r", "60", "-singlefile", pdf, out).CombinedOutput(); err != nil {
				t.Errorf("pdftoppm could not render the %s: %v %s", d.Kind, err, msg)
			}
		}
	}
}

// A return the returns area requests from a customer in Norway declares
// the goods of the outbound shipment booked under the order's external id,
// as returned goods; without that shipment the return is refused as
// InvalidArgument naming the missing items.
func TestCustomsReturnRequested(t *testing.T) {
	for _, withOutbound := range []bool{true, false} {
		f := newFixtureWith(t, func(o *shipment.Options) { o.ReturnAddresses = oneWarehouse{} })
		if withOutbound {
			out := request("SO-1", parcel("np-point"))
			out.Receiver = receiverIn("Ola Nordmann", "Karl Johans gate 1", "0154", "Oslo", "NO")
			out.Customs = declaration()
			must[*shipment.Shipment](t)(f.svc.CreateAndBook(ctx, "site-a", out))
		}
		ev := returnRequested(t, "site-a", "7", "np-point")
		r, _ := event.Decode[event.ReturnShipmentRequested](ev)
		r.SenderAddress = &deliverykit.Address{Street: "Karl Johans gate 1", PostalCode: "0154", City: "Oslo", Country: "NO"}
		ev = must[event.Event](t)(event.New("evt_r7", "site-a", "7", t0, r))
		err := f.svc.HandleReturnRequested(ctx, ev)
		if !withOutbound {
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument || len(deliverykit.ViolationsOf(err)) == 0 || deliverykit.ViolationsOf(err)[0].Field != "customs.items" {
				t.Errorf("without the outbound shipment: %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		sh := must[*shipment.Shipment](t)(f.svc.Get(ctx, "site-a", shipment.GetShipmentQuery{ExternalID: "return-7"}))
		want := &shipment.CustomsDeclaration{ContentsType: shipment.ContentsReturn, Incoterm: shipment.IncotermDAP, InvoiceNumber: "ORD-1001",
			Importer: &shipment.CustomsParty{VAT: "SE556677889901", EORI: "SE5566778899"},
			Items:    []shipment.CustomsItem{{SKU: "TENT-2", Description: "Tent", HSCode: "630622", OriginCountry: "CN", Quantity: 1, NetWeight: 1100, Value: 129900, Currency: "SEK"}}}
		if diff := cmp.Diff(want, sh.Customs); diff != "" {
			t.Errorf("declaration (-want +got):\n%s", diff)
		}
		// The return goes to the warehouse's door: a courier parcel.
		if diff := cmp.Diff([]customs.Kind{customs.CommercialInvoice}, kinds(sh)); diff != "" {
			t.Errorf("documents (-want +got):\n%s", diff)
		}
	}
}

// An update cannot add a declaration, so one that would take a shipment
// without a declaration across a border is refused, naming the field.
func TestCustomsUpdateAcrossBorder(t *testing.T) {
	f := newFixture(t)
	sh := must[*shipment.Shipment](t)(f.svc.Create(ctx, site, request("")))
	_, err := f.svc.Update(ctx, site, shipment.UpdateShipmentRequest{ShipmentID: sh.ID, Receiver: receiverIn("Ola", "Karl Johans gate 1", "0154", "Oslo", "NO")})
	if vs := deliverykit.ViolationsOf(err); deliverykit.KindOf(err) != deliverykit.KindInvalidArgument || len(vs) != 1 || vs[0].Field != "receiver.address.country" {
		t.Errorf("update to Oslo: %v", err)
	}
	if _, err := f.svc.Update(ctx, site, shipment.UpdateShipmentRequest{ShipmentID: sh.ID, Receiver: receiverIn("Erika", "Unter den Linden 1", "10117", "Berlin", "DE")}); err != nil {
		t.Errorf("update to Berlin: %v", err)
	}
}
