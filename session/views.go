package session

import (
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/internal/stored"
)

// This file converts between the stored records (records.go) and the
// record the service works with: a session in its wire types plus the
// inputs its options were computed from. Times are stored in UTC, as the
// wire writes them.

// storeSession is the record that stores r.
func storeSession(r *record) storedSession {
	return storedSession{
		Schema: sessionSchema, Name: r.Name, State: r.State,
		Purchase:       stored.Ptr(r.Purchase, purchaseRecordOf),
		Deliveries:     stored.Slice(r.Deliveries, deliveryRecordOf),
		CreateTime:     r.CreateTime.UTC(),
		UpdateTime:     r.UpdateTime.UTC(),
		ReturnsPromise: stored.Ptr(r.ReturnsPromise, promiseRecordOf),
		OptionsInputs:  stored.Slice(r.OptionsInputs, inputRecordOf),
	}
}

// loadStoredSession upgrades a stored session and returns what it holds.
func loadStoredSession(r *storedSession) (record, error) {
	if err := upgradeSession(r); err != nil {
		return record{}, err
	}
	return record{
		Session: Session{
			Name: r.Name, State: r.State,
			Purchase:       stored.Ptr(r.Purchase, purchaseRecord.wire),
			Deliveries:     stored.Slice(r.Deliveries, deliveryRecord.wire),
			CreateTime:     At(r.CreateTime),
			UpdateTime:     At(r.UpdateTime),
			ReturnsPromise: stored.Ptr(r.ReturnsPromise, promiseRecord.wire),
		},
		OptionsInputs: stored.Slice(r.OptionsInputs, inputRecord.input),
	}, nil
}

func inputRecordOf(in optionsInput) inputRecord {
	return inputRecord{At: in.At, Coordinates: stored.Ptr(in.Coordinates, func(c catalog.Coordinates) coordinatesRecord {
		return coordinatesRecord{Lat: c.Lat, Lng: c.Lng}
	})}
}

func (r inputRecord) input() optionsInput {
	return optionsInput{At: r.At, Coordinates: stored.Ptr(r.Coordinates, func(c coordinatesRecord) catalog.Coordinates {
		return catalog.Coordinates{Lat: c.Lat, Lng: c.Lng}
	})}
}

func purchaseRecordOf(p Purchase) purchaseRecord {
	return purchaseRecord{CountryCode: p.CountryCode, CurrencyCode: p.CurrencyCode, TotalDiscount: int64(p.TotalDiscount),
		TotalValue: int64(p.TotalValue), Vouchers: p.Vouchers, Locales: p.Locales}
}

func (p purchaseRecord) wire() Purchase {
	return Purchase{CountryCode: p.CountryCode, CurrencyCode: p.CurrencyCode, TotalDiscount: Int64(p.TotalDiscount),
		TotalValue: Int64(p.TotalValue), Vouchers: p.Vouchers, Locales: p.Locales}
}

func deliveryRecordOf(d Delivery) deliveryRecord {
	return deliveryRecord{
		ID: d.ID, LineItems: stored.Slice(d.LineItems, lineItemRecordOf), Fulfillments: stored.Slice(d.Fulfillments, fulfillmentRecordOf),
		RecipientContact: stored.Ptr(d.RecipientContact, contactRecordOf), Attributes: d.Attributes, Nodes: stored.Slice(d.Nodes, nodeRecordOf),
		DeliveryCategories: stored.Slice(d.DeliveryCategories, categoryRecordOf), TosID: d.TosID, ExternalID: d.ExternalID,
	}
}

func (d deliveryRecord) wire() Delivery {
	return Delivery{
		ID: d.ID, LineItems: stored.Slice(d.LineItems, lineItemRecord.wire), Fulfillments: stored.Slice(d.Fulfillments, fulfillmentRecord.wire),
		RecipientContact: stored.Ptr(d.RecipientContact, contactRecord.wire), Attributes: d.Attributes, Nodes: stored.Slice(d.Nodes, nodeRecord.wire),
		DeliveryCategories: stored.Slice(d.DeliveryCategories, categoryRecord.wire), TosID: d.TosID, ExternalID: d.ExternalID,
	}
}

func lineItemRecordOf(li LineItem) lineItemRecord {
	return lineItemRecord{SKU: li.SKU, Title: li.Title, Quantity: li.Quantity, Weight: li.Weight,
		Dimensions: stored.Ptr(li.Dimensions, func(d Dimensions) dimensionsRecord { return dimensionsRecord(d) }),
		Discount:   int64(li.Discount), Price: int64(li.Price), ImageURI: li.ImageURI, Attributes: li.Attributes}
}

func (li lineItemRecord) wire() LineItem {
	return LineItem{SKU: li.SKU, Title: li.Title, Quantity: li.Quantity, Weight: li.Weight,
		Dimensions: stored.Ptr(li.Dimensions, func(d dimensionsRecord) Dimensions { return Dimensions(d) }),
		Discount:   Int64(li.Discount), Price: Int64(li.Price), ImageURI: li.ImageURI, Attributes: li.Attributes}
}

func fulfillmentRecordOf(f Fulfillment) fulfillmentRecord {
	return fulfillmentRecord{CategoryTags: f.CategoryTags, Readiness: stored.Ptr(f.Readiness, func(r Readiness) windowRecord {
		return windowRecord{EarliestTime: r.EarliestTime.UTC(), LatestTime: r.LatestTime.UTC()}
	})}
}

func (f fulfillmentRecord) wire() Fulfillment {
	return Fulfillment{CategoryTags: f.CategoryTags, Readiness: stored.Ptr(f.Readiness, func(w windowRecord) Readiness {
		return Readiness{EarliestTime: At(w.EarliestTime), LatestTime: At(w.LatestTime)}
	})}
}

func contactRecordOf(c Contact) contactRecord {
	return contactRecord{Name: c.Name, Address: stored.Ptr(c.Address, addressRecordOf), Email: c.Email,
		PhoneNumber: stored.Ptr(c.PhoneNumber, func(p PhoneNumber) phoneRecord { return phoneRecord(p) })}
}

func (c contactRecord) wire() Contact {
	return Contact{Name: c.Name, Address: stored.Ptr(c.Address, addressRecord.wire), Email: c.Email,
		PhoneNumber: stored.Ptr(c.PhoneNumber, func(p phoneRecord) PhoneNumber { return PhoneNumber(p) })}
}

func addressRecordOf(a Address) addressRecord {
	return addressRecord{CountryCode: a.CountryCode, RegionCode: a.RegionCode, PostalCode: a.PostalCode, City: a.City, AddressLines: a.AddressLines,
		Coordinates: stored.Ptr(a.Coordinates, func(c Coordinates) coordinatesRecord { return coordinatesRecord(c) })}
}

func (a addressRecord) wire() Address {
	return Address{CountryCode: a.CountryCode, RegionCode: a.RegionCode, PostalCode: a.PostalCode, City: a.City, AddressLines: a.AddressLines,
		Coordinates: stored.Ptr(a.Coordinates, func(c coordinatesRecord) Coordinates { return Coordinates(c) })}
}

func nodeRecordOf(n DeliveryNode) nodeRecord {
	return nodeRecord{Roles: n.Roles, Tags: n.Tags, Location: stored.Ptr(n.Location, locationRecordOf),
		Handoff: stored.Ptr(n.Handoff, func(h Handoff) windowRecord {
			return windowRecord{EarliestTime: h.EarliestTime.UTC(), LatestTime: h.LatestTime.UTC()}
		})}
}

func (n nodeRecord) wire() DeliveryNode {
	return DeliveryNode{Roles: n.Roles, Tags: n.Tags, Location: stored.Ptr(n.Location, locationRecord.wire),
		Handoff: stored.Ptr(n.Handoff, func(w windowRecord) Handoff {
			return Handoff{EarliestTime: At(w.EarliestTime), LatestTime: At(w.LatestTime)}
		})}
}

func locationRecordOf(l PickupLocation) locationRecord {
	return locationRecord{
		ID: l.ID, ExternalID: l.ExternalID, Title: l.Title, LocationType: l.LocationType,
		VisitingContact: stored.Ptr(l.VisitingContact, contactRecordOf), DeliveryContact: stored.Ptr(l.DeliveryContact, contactRecordOf),
		OperationalHours: stored.Ptr(l.OperationalHours, func(h OperationalHours) hoursRecord { return hoursRecord(h) }),
		Sections:         stored.Slice(l.Sections, sectionRecordOf),
		Distances: stored.Ptr(l.Distances, func(d Distances) distancesRecord {
			return distancesRecord{Walking: stored.Ptr(d.Walking, distanceRecordOf), Driving: stored.Ptr(d.Driving, distanceRecordOf)}
		}),
	}
}

func (l locationRecord) wire() PickupLocation {
	return PickupLocation{
		ID: l.ID, ExternalID: l.ExternalID, Title: l.Title, LocationType: l.LocationType,
		VisitingContact: stored.Ptr(l.VisitingContact, contactRecord.wire), DeliveryContact: stored.Ptr(l.DeliveryContact, contactRecord.wire),
		OperationalHours: stored.Ptr(l.OperationalHours, func(h hoursRecord) OperationalHours { return OperationalHours(h) }),
		Sections:         stored.Slice(l.Sections, sectionRecord.wire),
		Distances: stored.Ptr(l.Distances, func(d distancesRecord) Distances {
			return Distances{Walking: stored.Ptr(d.Walking, distanceRecord.wire), Driving: stored.Ptr(d.Driving, distanceRecord.wire)}
		}),
	}
}

func sectionRecordOf(s Section) sectionRecord {
	return sectionRecord{Title: s.Title, Columns: stored.Slice(s.Columns, func(c Column) columnRecord {
		return columnRecord{Items: stored.Slice(c.Items, func(it ColumnItem) columnItemRecord { return columnItemRecord(it) })}
	})}
}

func (s sectionRecord) wire() Section {
	return Section{Title: s.Title, Columns: stored.Slice(s.Columns, func(c columnRecord) Column {
		return Column{Items: stored.Slice(c.Items, func(it columnItemRecord) ColumnItem { return ColumnItem(it) })}
	})}
}

func distanceRecordOf(d Distance) distanceRecord {
	return distanceRecord{Meters: int64(d.Meters), Minutes: int64(d.Minutes)}
}

func (d distanceRecord) wire() Distance {
	return Distance{Meters: Int64(d.Meters), Minutes: Int64(d.Minutes)}
}

func categoryRecordOf(c DeliveryCategory) categoryRecord {
	return categoryRecord{
		ID: c.ID, DeliveryType: c.DeliveryType, DisplayName: c.DisplayName, SortOrder: c.SortOrder, OptionsSource: c.OptionsSource,
		DeliveryOptions: stored.Slice(c.DeliveryOptions, optionRecordOf), ExternalID: c.ExternalID,
		Addons: stored.Slice(c.Addons, func(a Addon) addonRecord {
			return addonRecord{ID: a.ID, DisplayName: a.DisplayName, Price: int64(a.Price), AddonType: a.AddonType, Preselected: a.Preselected, Chosen: a.Chosen}
		}),
		Preselected: c.Preselected, Chosen: c.Chosen,
		Warehouse: stored.Ptr(c.Warehouse, func(w Warehouse) warehouseRecord {
			return warehouseRecord{ID: w.ID, Address: addressRecordOf(w.Address), ExternalID: w.ExternalID}
		}),
	}
}

func (c categoryRecord) wire() DeliveryCategory {
	return DeliveryCategory{
		ID: c.ID, DeliveryType: c.DeliveryType, DisplayName: c.DisplayName, SortOrder: c.SortOrder, OptionsSource: c.OptionsSource,
		DeliveryOptions: stored.Slice(c.DeliveryOptions, optionRecord.wire), ExternalID: c.ExternalID,
		Addons: stored.Slice(c.Addons, func(a addonRecord) Addon {
			return Addon{ID: a.ID, DisplayName: a.DisplayName, Price: Int64(a.Price), AddonType: a.AddonType, Preselected: a.Preselected, Chosen: a.Chosen}
		}),
		Preselected: c.Preselected, Chosen: c.Chosen,
		Warehouse: stored.Ptr(c.Warehouse, func(w warehouseRecord) Warehouse {
			return Warehouse{ID: w.ID, Address: w.Address.wire(), ExternalID: w.ExternalID}
		}),
	}
}

func optionRecordOf(o DeliveryOption) optionRecord {
	return optionRecord{
		ID: o.ID, Carrier: carrierRecord(o.Carrier), Price: int64(o.Price), PickupLocation: stored.Ptr(o.PickupLocation, locationRecordOf),
		Preselected: o.Preselected, Chosen: o.Chosen, ExpireTime: o.ExpireTime.UTC(), VATRate: o.VATRate,
		ETD: etdRecord{
			Relative: stored.Ptr(o.ETD.Relative, func(r RelativeETD) relativeRecord { return relativeRecord(r) }),
			Absolute: stored.Ptr(o.ETD.Absolute, func(a AbsoluteETD) windowRecord {
				return windowRecord{EarliestTime: a.EarliestTime.UTC(), LatestTime: a.LatestTime.UTC()}
			}),
			Custom: stored.Ptr(o.ETD.Custom, func(c CustomETD) customRecord { return customRecord(c) }),
		},
	}
}

func (o optionRecord) wire() DeliveryOption {
	return DeliveryOption{
		ID: o.ID, Carrier: Carrier(o.Carrier), Price: Int64(o.Price), PickupLocation: stored.Ptr(o.PickupLocation, locationRecord.wire),
		Preselected: o.Preselected, Chosen: o.Chosen, ExpireTime: At(o.ExpireTime), VATRate: o.VATRate,
		ETD: ETD{
			Relative: stored.Ptr(o.ETD.Relative, func(r relativeRecord) RelativeETD { return RelativeETD(r) }),
			Absolute: stored.Ptr(o.ETD.Absolute, func(w windowRecord) AbsoluteETD {
				return AbsoluteETD{EarliestTime: At(w.EarliestTime), LatestTime: At(w.LatestTime)}
			}),
			Custom: stored.Ptr(o.ETD.Custom, func(c customRecord) CustomETD { return CustomETD(c) }),
		},
	}
}

func promiseRecordOf(p ReturnsPromise) promiseRecord {
	return promiseRecord{ID: p.ID, CurrencyCode: p.CurrencyCode, ReturnsEnabled: p.ReturnsEnabled, ReturnCost: int64(p.ReturnCost),
		ExchangesEnabled: p.ExchangesEnabled, ExchangeCost: int64(p.ExchangeCost), ReturnTimeDays: p.ReturnTimeDays,
		ReturnPolicyText: p.ReturnPolicyText, ReturnPolicyURL: p.ReturnPolicyURL, IsUnavailable: p.IsUnavailable}
}

func (p promiseRecord) wire() ReturnsPromise {
	return ReturnsPromise{ID: p.ID, CurrencyCode: p.CurrencyCode, ReturnsEnabled: p.ReturnsEnabled, ReturnCost: Int64(p.ReturnCost),
		ExchangesEnabled: p.ExchangesEnabled, ExchangeCost: Int64(p.ExchangeCost), ReturnTimeDays: p.ReturnTimeDays,
		ReturnPolicyText: p.ReturnPolicyText, ReturnPolicyURL: p.ReturnPolicyURL, IsUnavailable: p.IsUnavailable}
}
