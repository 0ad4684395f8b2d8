package shipment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/stored"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/storage"
)

// MaxManifestParcels bounds a manifest: a close finding more parcels
// takes the first ones (by shipment id) and leaves the others for the
// next close, so a manifest's transaction and PDF stay bounded.
const MaxManifestParcels = 500

// CreateManifestRequest closes the day for a carrier
// (POST /v1/som/manifests). Carrier is a carrier id, as the catalog's
// products name it (Product.CarrierID); PickupDate is the day the carrier
// collects the parcels, YYYY-MM-DD, at most a week back or 30 days ahead.
type CreateManifestRequest struct {
	SiteID     string `json:"site_id,omitempty" validate:"max_id"`
	Carrier    string `json:"carrier" validate:"required,max_id"`
	PickupDate string `json:"pickup_date" validate:"required,datetime=2006-01-02"`
}

// Manifest is the list of parcels handed over to a carrier at one
// pickup: the driver signs for it.
type Manifest struct {
	ID      string `json:"id"`
	SiteID  string `json:"site_id"`
	Carrier string `json:"carrier"`
	// CarrierName is the carrier's name as its products give it.
	CarrierName string           `json:"carrier_name,omitempty"`
	PickupDate  string           `json:"pickup_date"`
	CreatedAt   time.Time        `json:"created_at"`
	Parcels     []ManifestParcel `json:"parcels"`
	Totals      ManifestTotals   `json:"totals"`
}

// ManifestParcel is one booked delivery of a manifest.
type ManifestParcel struct {
	TrackingNumber string `json:"tracking_number"`
	ShipmentID     string `json:"shipment_id"`
	// Weight is the parcel's, in grams.
	Weight int32 `json:"weight"`
}

// ManifestTotals sums a manifest's parcels; Weight is in grams.
type ManifestTotals struct {
	Parcels int   `json:"parcels"`
	Weight  int64 `json:"weight"`
}

// manifestSchema is the schema of stored manifests (manifestRecord).
// A change of a stored name or meaning needs a new number and an upgrade
// step in loadManifest.
const manifestSchema = 1

// manifests holds the manifests, keyed by site and manifest id.
var manifests = stored.Collection[Manifest, manifestRecord]{
	Name: "shipment.manifests", Record: storeManifest, Value: loadManifest,
}

// manifestRecord is a manifest as stored; it names its fields itself.
type manifestRecord struct {
	Schema      int                    `json:"schema"`
	ID          string                 `json:"id"`
	SiteID      string                 `json:"site_id"`
	Carrier     string                 `json:"carrier"`
	CarrierName string                 `json:"carrier_name,omitempty"`
	PickupDate  string                 `json:"pickup_date"`
	CreatedAt   time.Time              `json:"created_at"`
	Parcels     []manifestParcelRecord `json:"parcels"`
}

type manifestParcelRecord struct {
	TrackingNumber string `json:"tracking_number"`
	ShipmentID     string `json:"shipment_id"`
	Weight         int32  `json:"weight"`
}

func storeManifest(m *Manifest) manifestRecord {
	r := manifestRecord{Schema: manifestSchema, ID: m.ID, SiteID: m.SiteID, Carrier: m.Carrier, CarrierName: m.CarrierName, PickupDate: m.PickupDate, CreatedAt: m.CreatedAt,
		Parcels: make([]manifestParcelRecord, len(m.Parcels))}
	for i, p := range m.Parcels {
		r.Parcels[i] = manifestParcelRecord{TrackingNumber: p.TrackingNumber, ShipmentID: p.ShipmentID, Weight: p.Weight}
	}
	return r
}

// loadManifest reads a stored manifest; the totals are derived, not
// stored, so they always agree with the parcels.
func loadManifest(r *manifestRecord) (Manifest, error) {
	if err := stored.CheckSchema("manifest", r.Schema, manifestSchema); err != nil {
		return Manifest{}, err
	}
	m := Manifest{ID: r.ID, SiteID: r.SiteID, Carrier: r.Carrier, CarrierName: r.CarrierName, PickupDate: r.PickupDate, CreatedAt: r.CreatedAt,
		Parcels: make([]ManifestParcel, len(r.Parcels))}
	for i, p := range r.Parcels {
		m.Parcels[i] = ManifestParcel{TrackingNumber: p.TrackingNumber, ShipmentID: p.ShipmentID, Weight: p.Weight}
	}
	m.Totals = totalsOf(m.Parcels)
	return m, nil
}

func totalsOf(ps []ManifestParcel) ManifestTotals {
	t := ManifestTotals{Parcels: len(ps)}
	for _, p := range ps {
		t.Weight += int64(p.Weight)
	}
	return t
}

// manifestable reports whether a delivery waits for a manifest: booked,
// not collected, not cancelled and in no manifest yet.
func manifestable(d *Delivery) bool {
	return d.ManifestID == "" && d.TrackingNumber != "" &&
		(d.State == DeliveryBooked || d.State == DeliveryPickupBooked)
}

// CreateManifest closes the day for a carrier of the site: every booked
// parcel (delivery) of the carrier that is in no manifest yet goes into a
// new manifest, up to MaxManifestParcels. The manifest is stored in the
// transaction that marks its deliveries manifested, each shipment written
// with a compare-and-set, so two closes never share a parcel: the one that
// loses the race is a Conflict and may be repeated. Parcels booked later
// go into the next manifest. With no parcel waiting, the answer is a
// Conflict naming carrier (an empty manifest would hand nothing over).
func (s *Service) CreateManifest(ctx context.Context, site string, req CreateManifestRequest) (*Manifest, error) {
	if err := checkSite(site, req.SiteID); err != nil {
		return nil, err
	}
	if err := check(&req, nil); err != nil {
		return nil, err
	}
	now := s.opts.Clock.Now().UTC()
	day, _ := time.Parse(time.DateOnly, req.PickupDate) // checked by the datetime rule
	today := now.Truncate(24 * time.Hour)
	if day.Before(today.AddDate(0, 0, -7)) || day.After(today.AddDate(0, 0, 30)) {
		return nil, deliverykit.InvalidField("pickup_date", "range", "must be at most 7 days back and 30 days ahead")
	}
	return s.closeDay(ctx, site, req.Carrier, req.PickupDate, nil)
}

// closeDay makes the manifest of carrier's waiting parcels of site for
// date: every one, or, when only is not nil, those whose tracking numbers
// it holds (the ones the carrier was told of, see closeForPickup).
func (s *Service) closeDay(ctx context.Context, site, carrier, date string, only map[string]bool) (*Manifest, error) {
	now := s.opts.Clock.Now().UTC()
	m := Manifest{ID: s.opts.IDs.NewID("mfst_"), SiteID: site, Carrier: carrier, PickupDate: date, CreatedAt: now}
	if err := s.pendingDone.Do(ctx, s.pendingBackfill); err != nil {
		return nil, err
	}
	nothing := &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "nothing to manifest",
		Violations: []deliverykit.FieldViolation{{Field: "carrier", Rule: "manifestable", Message: "no booked parcel of carrier " + carrier + " waits for a manifest"}}}
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		// A retried transaction starts over.
		m.Parcels, m.CarrierName = m.Parcels[:0], ""
		healed := false
		// The carrier's pending parcels (pending.go), not the site's
		// shipments: a close costs what the day booked.
		waiting, err := pendingShipments(tx, site, carrier, MaxManifestParcels)
		if err != nil {
			return err
		}
		for _, ps := range waiting {
			if len(m.Parcels) == MaxManifestParcels {
				break
			}
			it, err := shipments.Get(tx, storage.Key(site, ps.ID))
			if errors.Is(err, storage.ErrNotFound) {
				dropped, err := dropStale(tx, site, ps, nil)
				if err != nil {
					return err
				}
				healed = healed || dropped
				continue
			}
			if err != nil {
				return err
			}
			rec, touched := &it.Value, false
			for i := range rec.Shipment.Parcels {
				p := &rec.Shipment.Parcels[i]
				for j := range p.Deliveries {
					d := &p.Deliveries[j]
					if len(m.Parcels) == MaxManifestParcels || !manifestable(d) || rec.CarrierIDs[d.ID] != carrier || (only != nil && !only[d.TrackingNumber]) {
						continue
					}
					d.ManifestID, touched = m.ID, true
					if m.CarrierName == "" {
						m.CarrierName = d.CarrierName
					}
					m.Parcels = append(m.Parcels, ManifestParcel{TrackingNumber: d.TrackingNumber, ShipmentID: rec.Shipment.ID, Weight: p.Weight})
				}
			}
			if touched {
				rec.Shipment.UpdatedAt = now
				if err := putShipmentRecord(tx, it.Key, *rec, storage.VersionIs(it.Version)); err != nil {
					return err
				}
			}
			dropped, err := dropStale(tx, site, ps, rec)
			if err != nil {
				return err
			}
			healed = healed || dropped
		}
		if len(m.Parcels) == 0 && !healed {
			return nothing
		}
		if len(m.Parcels) == 0 {
			return nil // committed, so the entries dropped stay dropped
		}
		key := storage.Key(site, m.ID)
		if _, err := manifests.Put(tx, key, m, storage.MustNotExist()); err != nil {
			return err
		}
		return expiry.Move(tx, key, retention.Entry{}, retention.Entry{Class: classManifest, At: now})
	})
	if err != nil {
		return nil, concurrent(err)
	}
	if len(m.Parcels) == 0 {
		return nil, nothing
	}
	m.Totals = totalsOf(m.Parcels)
	return &m, nil
}

// closeForPickup manifests, before a pickup is booked for w, the parcels
// waiting for the carriers of the deliveries the booking changes, for w's
// day: the driver who comes in w collects the day's manifest. A carrier
// that takes hand-overs (HandOverCarrier) is told the parcels first and
// the manifest lists only those, so a failed call leaves no manifest and
// a repeated request tells it again. It returns the shipment it as
// stored after the close.
func (s *Service) closeForPickup(ctx context.Context, site string, it storage.Item[shipmentRecord], targets []*Delivery, w TimeSpan) (storage.Item[shipmentRecord], error) {
	var carriers []string
	for _, d := range targets {
		if c := it.Value.CarrierIDs[d.ID]; manifestable(d) && !slices.Contains(carriers, c) {
			carriers = append(carriers, c)
		}
	}
	if len(carriers) == 0 {
		return it, nil
	}
	if err := s.pendingDone.Do(ctx, s.pendingBackfill); err != nil {
		return it, err
	}
	date := w.Start.UTC().Format(time.DateOnly)
	for _, cid := range carriers {
		tns, err := s.waitingNumbers(ctx, site, cid)
		if err != nil {
			return it, err
		}
		if len(tns) == 0 {
			continue
		}
		var only map[string]bool
		if ho, ok := s.carrier(cid).(HandOverCarrier); ok {
			if err := ho.HandOver(ctx, HandOverRequest{Site: site, Window: w, TrackingNumbers: tns}); err != nil {
				return it, carrierError(cid, "handing over the parcels of "+date, err)
			}
			only = make(map[string]bool, len(tns))
			for _, tn := range tns {
				only[tn] = true
			}
		}
		// Nothing left: a concurrent close took the parcels, which are
		// manifested either way.
		if _, err := s.closeDay(ctx, site, cid, date, only); err != nil && !nothingToManifest(err) {
			return it, err
		}
	}
	return s.view(ctx, func(tx storage.Tx) (storage.Item[shipmentRecord], error) {
		return shipments.Get(tx, it.Key)
	})
}

// nothingToManifest reports whether err is closeDay's answer when no
// parcel waits.
func nothingToManifest(err error) bool {
	vs := deliverykit.ViolationsOf(err)
	return deliverykit.KindOf(err) == deliverykit.KindConflict && len(vs) == 1 && vs[0].Rule == "manifestable"
}

// waitingNumbers are the tracking numbers of the parcels of carrier at
// site waiting for a manifest, at most MaxManifestParcels.
func (s *Service) waitingNumbers(ctx context.Context, site, carrier string) ([]string, error) {
	var tns []string
	err := s.store.View(ctx, func(tx storage.Tx) error {
		tns = tns[:0]
		waiting, err := pendingShipments(tx, site, carrier, MaxManifestParcels)
		if err != nil {
			return err
		}
		for _, ps := range waiting {
			it, err := shipments.Get(tx, storage.Key(site, ps.ID))
			if errors.Is(err, storage.ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			for _, p := range it.Value.Shipment.Parcels {
				for _, d := range p.Deliveries {
					if len(tns) < MaxManifestParcels && manifestable(&d) && it.Value.CarrierIDs[d.ID] == carrier {
						tns = append(tns, d.TrackingNumber)
					}
				}
			}
		}
		return nil
	})
	return tns, err
}

// GetManifest returns a manifest of the site (GET /v1/som/manifests/{id}).
func (s *Service) GetManifest(ctx context.Context, site, id string) (*Manifest, error) {
	if err := checkSite(site, ""); err != nil {
		return nil, err
	}
	if id == "" {
		return nil, deliverykit.InvalidField("id", "required", "is required")
	}
	if len(id) > validation.MaxIDLength {
		return nil, deliverykit.InvalidField("id", "max", fmt.Sprintf("must be at most %d characters long", validation.MaxIDLength))
	}
	var m Manifest
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := manifests.Get(tx, storage.Key(site, id))
		if errors.Is(err, storage.ErrNotFound) {
			return notFound("manifest", "id")
		}
		m = it.Value
		return err
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// manifested is the refusal to cancel a delivery handed over in a
// manifest.
func manifested(d *Delivery) error {
	return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "parcel " + d.TrackingNumber + " is in manifest " + d.ManifestID + " and can no longer be cancelled",
		Violations: []deliverykit.FieldViolation{{Field: "tracking_number", Rule: "not_manifested", Message: d.TrackingNumber + " is in manifest " + d.ManifestID}}}
}

// ManifestPDF renders a manifest of the site as an A4 PDF with a Code 128
// barcode per parcel (GET /v1/som/manifests/{id}?format=pdf). Like
// labels, it is rendered on request from the stored manifest, and the
// same manifest always renders the same bytes.
func (s *Service) ManifestPDF(ctx context.Context, site, id string) ([]byte, error) {
	m, err := s.GetManifest(ctx, site, id)
	if err != nil {
		return nil, err
	}
	d := label.ManifestData{ID: m.ID, CarrierName: m.CarrierName, Sender: site, PickupDate: m.PickupDate, Date: m.CreatedAt}
	if d.CarrierName == "" {
		d.CarrierName = m.Carrier
	}
	for _, p := range m.Parcels {
		d.Parcels = append(d.Parcels, label.ManifestParcel{TrackingNumber: p.TrackingNumber, Reference: p.ShipmentID, WeightGrams: p.Weight})
	}
	b, err := label.ManifestPDF(d)
	if err != nil {
		return nil, deliverykit.Errorf(deliverykit.KindInternal, "rendering manifest %s: %w", m.ID, err)
	}
	return b, nil
}
