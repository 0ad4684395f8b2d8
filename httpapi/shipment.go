package httpapi

import (
	"context"
	_ "embed"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment"
)

// shipmentOpenAPI is the OpenAPI 3 document of area F, served at
// GET /v1/som/openapi.json without a key. It is generated from the wire
// types by shipment_openapi_test.go.
//
//go:embed openapi/shipment.json
var shipmentOpenAPI []byte

// registerShipment serves area F under /v1/som: the shipment operations
// behind the Bearer key, the extension endpoints
// POST /deliveries.confirmPickup (carrier pickup scans) and
// GET /labels/{tracking_number}, GET /documents/{shipment_id}/{kind} (customs
// documents), and the OpenAPI document. Bodies and
// queries may carry site_id; naming another site than the key's is 403.
// Every operation answers with the shipment, except deliveries.get (the
// delivery), labels (the document), shipments.bookParcels ({"shipment": …})
// and deliveries.bookPickup ({"delivery": …}, or {"shipment": …} when booked
// by shipment_id): wrapped as shipment clients read those two.
func (s *server) registerShipment(svc *shipment.Service) {
	h := shipmentHandlers{svc}
	a, base := areaShipment, areaShipment.base
	s.route(a, base+"/shipments.create", post(h.create))
	s.route(a, base+"/shipments.createAndBook", post(h.createAndBook))
	s.route(a, base+"/shipments.bookParcels", post(h.bookParcels))
	s.route(a, base+"/shipments.update", post(h.update))
	s.route(a, base+"/shipments.cancel", post(h.cancel))
	s.route(a, base+"/shipments.addParcel", post(h.addParcel))
	s.route(a, base+"/shipments.get", get(h.get))
	s.route(a, base+"/deliveries.bookPickup", post(h.bookPickup))
	s.route(a, base+"/deliveries.cancel", post(h.cancelDelivery))
	// Extension: a carrier integration reports that it collected a delivery.
	s.route(a, base+"/deliveries.confirmPickup", post(h.confirmPickup))
	s.route(a, base+"/deliveries.get", get(h.getDelivery))
	// Extension: the printable label of a booked delivery.
	s.route(a, base+"/labels/{tracking_number}", get(h.label))
	// Extension: a booked shipment's customs documents.
	s.route(a, base+"/documents/{shipment_id}/{kind}", get(h.document))
	// The end-of-day manifest of a carrier, as JSON or (format=pdf) PDF.
	s.route(a, base+"/manifests", post(h.createManifest))
	s.route(a, base+"/manifests/{id}", get(h.manifest))
	s.routePublic(a, base+"/openapi.json", get(document(shipmentOpenAPI)))
}

// shipmentHandlers are area F's endpoints.
type shipmentHandlers struct{ svc *shipment.Service }

func (h shipmentHandlers) create(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.CreateShipmentRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.Create)
}

func (h shipmentHandlers) createAndBook(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.CreateShipmentRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.CreateAndBook)
}

func (h shipmentHandlers) bookParcels(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.ShipmentRef
	return handle(w, r, site, &req, &req.SiteID, func(ctx context.Context, site string, req shipment.ShipmentRef) (shipment.BookParcelsResponse, error) {
		sh, err := h.svc.BookParcels(ctx, site, req)
		return shipment.BookParcelsResponse{Shipment: sh}, err
	})
}

func (h shipmentHandlers) update(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.UpdateShipmentRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.Update)
}

func (h shipmentHandlers) cancel(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.ShipmentRef
	return handle(w, r, site, &req, &req.SiteID, h.svc.CancelShipment)
}

func (h shipmentHandlers) addParcel(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.AddParcelRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.AddParcel)
}

func (h shipmentHandlers) get(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	return respond(w, r, site, q.Get("site_id"), shipment.GetShipmentQuery{
		ID: q.Get("id"), ExternalID: q.Get("external_id"), TrackingNumber: q.Get("tracking_number"),
	}, h.svc.Get)
}

func (h shipmentHandlers) bookPickup(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.BookPickupRequest
	return handle(w, r, site, &req, &req.SiteID, func(ctx context.Context, site string, req shipment.BookPickupRequest) (shipment.BookPickupResponse, error) {
		sh, err := h.svc.BookPickup(ctx, site, req)
		return shipment.BookPickupAnswer(req, sh), err
	})
}

func (h shipmentHandlers) cancelDelivery(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.DeliveryRef
	return handle(w, r, site, &req, &req.SiteID, h.svc.CancelDelivery)
}

func (h shipmentHandlers) confirmPickup(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.ConfirmPickupRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.ConfirmPickup)
}

func (h shipmentHandlers) getDelivery(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	return respond(w, r, site, q.Get("site_id"), q.Get("tracking_number"), h.svc.GetDelivery)
}

// label answers with the label document itself, in the format asked for.
// It holds names and addresses, so it is never cached.
func (h shipmentHandlers) label(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	if err := checkSite(site, q.Get("site_id")); err != nil {
		return err
	}
	tn := r.PathValue("tracking_number")
	format := shipment.LabelFormat(q.Get("format"))
	body, ctype, err := h.svc.Label(r.Context(), site, tn, format)
	if err != nil {
		return err
	}
	ext := "pdf"
	if format == shipment.LabelZPL {
		ext = "zpl"
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	hd.Set("Content-Disposition", `inline; filename="`+tn+"."+ext+`"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

// createManifest closes the day for a carrier. It answers 200 with the
// manifest, as every operation of the area answers 200.
func (h shipmentHandlers) createManifest(w http.ResponseWriter, r *http.Request, site string) error {
	var req shipment.CreateManifestRequest
	return handle(w, r, site, &req, &req.SiteID, h.svc.CreateManifest)
}

// manifest answers with a manifest: JSON, or with format=pdf the PDF the
// driver signs, which names parcels and so is never cached.
func (h shipmentHandlers) manifest(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	id := r.PathValue("id")
	switch q.Get("format") {
	case "", "json":
		return respond(w, r, site, q.Get("site_id"), id, h.svc.GetManifest)
	case "pdf":
	default:
		return deliverykit.InvalidField("format", "oneof", "must be json or pdf")
	}
	if err := checkSite(site, q.Get("site_id")); err != nil {
		return err
	}
	body, err := h.svc.ManifestPDF(r.Context(), site, id)
	if err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	hd.Set("Content-Disposition", `inline; filename="`+id+`.pdf"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

// document answers with a customs document of a shipment, a PDF. Like a
// label it holds names and addresses, so it is never cached.
func (h shipmentHandlers) document(w http.ResponseWriter, r *http.Request, site string) error {
	q := r.URL.Query()
	if err := checkSite(site, q.Get("site_id")); err != nil {
		return err
	}
	id, kind := r.PathValue("shipment_id"), shipment.DocumentKind(r.PathValue("kind"))
	body, ctype, err := h.svc.Document(r.Context(), site, id, kind, shipment.LabelFormat(q.Get("format")))
	if err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", ctype)
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	hd.Set("Content-Disposition", `inline; filename="`+id+"-"+string(kind)+`.pdf"`)
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}
