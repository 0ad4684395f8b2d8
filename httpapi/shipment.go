package httpapi

import (
	_ "embed"
	"net/http"
	"strconv"

	"github.com/deliverykit/deliverykit/shipment"
)

// shipmentOpenAPI is the OpenAPI 3 document of area F, served at
// GET /v1/som/openapi.json without a key. It is generated from the wire
// types by shipment_openapi_test.go.
//
//go:embed openapi/shipment.json
var shipmentOpenAPI []byte

// registerShipment serves area F (spec §4.6) under /v1/som: the shipment
// operations behind the Bearer key, the extension endpoints
// POST /deliveries.confirmPickup (carrier pickup scans) and
// GET /labels/{tracking_number}, and the OpenAPI document. Bodies and
// queries may carry site_id; naming another site than the key's is 403.
// Every operation answers with the shipment, except deliveries.get (the
// delivery) and labels (the document).
func (s *server) registerShipment(svc *shipment.Service) {
	base := areaShipment.base
	post := func(path string, fn func(r *http.Request, site string) (any, error)) {
		s.route(areaShipment, base+path, map[string]endpoint{
			http.MethodPost: func(w http.ResponseWriter, r *http.Request, site string) error {
				res, err := fn(r, site)
				if err != nil {
					return err
				}
				writeJSON(w, http.StatusOK, res)
				return nil
			},
		})
	}
	post("/shipments.create", func(r *http.Request, site string) (any, error) {
		var req shipment.CreateShipmentRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.Create(r.Context(), site, req)
	})
	post("/shipments.createAndBook", func(r *http.Request, site string) (any, error) {
		var req shipment.CreateShipmentRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.CreateAndBook(r.Context(), site, req)
	})
	post("/shipments.bookParcels", func(r *http.Request, site string) (any, error) {
		var req shipment.ShipmentRef
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.BookParcels(r.Context(), site, req)
	})
	post("/shipments.update", func(r *http.Request, site string) (any, error) {
		var req shipment.UpdateShipmentRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.Update(r.Context(), site, req)
	})
	post("/shipments.cancel", func(r *http.Request, site string) (any, error) {
		var req shipment.ShipmentRef
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.CancelShipment(r.Context(), site, req)
	})
	post("/shipments.addParcel", func(r *http.Request, site string) (any, error) {
		var req shipment.AddParcelRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.AddParcel(r.Context(), site, req)
	})
	post("/deliveries.bookPickup", func(r *http.Request, site string) (any, error) {
		var req shipment.BookPickupRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.BookPickup(r.Context(), site, req)
	})
	post("/deliveries.cancel", func(r *http.Request, site string) (any, error) {
		var req shipment.DeliveryRef
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.CancelDelivery(r.Context(), site, req)
	})
	// Extension: a carrier integration reports that it collected a delivery.
	post("/deliveries.confirmPickup", func(r *http.Request, site string) (any, error) {
		var req shipment.ConfirmPickupRequest
		if err := decodeJSON(r, &req); err != nil {
			return nil, err
		}
		if err := checkSite(site, req.SiteID, "site_id"); err != nil {
			return nil, err
		}
		return svc.ConfirmPickup(r.Context(), site, req)
	})
	s.route(areaShipment, base+"/shipments.get", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			res, err := svc.Get(r.Context(), site, shipment.GetShipmentQuery{
				ID: q.Get("id"), ExternalID: q.Get("external_id"), TrackingNumber: q.Get("tracking_number"),
			})
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	s.route(areaShipment, base+"/deliveries.get", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			res, err := svc.GetDelivery(r.Context(), site, q.Get("tracking_number"))
			if err != nil {
				return err
			}
			writeJSON(w, http.StatusOK, res)
			return nil
		},
	})
	// Extension: the printable label of a booked delivery. It holds names
	// and addresses, so it is never cached.
	s.route(areaShipment, base+"/labels/{tracking_number}", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, site string) error {
			q := r.URL.Query()
			if err := checkSite(site, q.Get("site_id"), "site_id"); err != nil {
				return err
			}
			tn := r.PathValue("tracking_number")
			format := shipment.LabelFormat(q.Get("format"))
			body, ctype, err := svc.Label(r.Context(), site, tn, format)
			if err != nil {
				return err
			}
			ext := "pdf"
			if format == shipment.LabelZPL {
				ext = "zpl"
			}
			h := w.Header()
			h.Set("Content-Type", ctype)
			h.Set("Content-Length", strconv.Itoa(len(body)))
			h.Set("Content-Disposition", `inline; filename="`+tn+"."+ext+`"`)
			h.Set("Cache-Control", "no-store")
			h.Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			w.Write(body)
			return nil
		},
	})
	s.routePublic(areaShipment, base+"/openapi.json", map[string]endpoint{
		http.MethodGet: func(w http.ResponseWriter, r *http.Request, _ string) error {
			h := w.Header()
			h.Set("Content-Type", "application/json")
			h.Set("Content-Length", strconv.Itoa(len(shipmentOpenAPI)))
			w.WriteHeader(http.StatusOK)
			w.Write(shipmentOpenAPI)
			return nil
		},
	})
}
