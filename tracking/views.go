package tracking

import "github.com/deliverykit/deliverykit/internal/stored"

// This file converts between the stored records (records.go) and the
// orderRecord and parcelRecord the service works with: their requests are
// the wire requests as registered, their progress and alerts the wire
// items read.go shows. The requests go in as records (requests to
// records) and come out as the wire requests again; nothing is lost either
// way.

// storeOrder is the record that stores o.
func storeOrder(o *orderRecord) storedOrder {
	return storedOrder{Schema: orderSchema, TosID: o.TosID, AnalyticsID: o.AnalyticsID, Token: o.Token,
		Request: orderRequestRecordOf(o.Request), CreatedAt: o.CreatedAt, ActiveAt: o.ActiveAt, Parcels: o.Parcels, LinkTokens: o.LinkTokens,
		CancelledLines: stored.Slice(o.Cancelled, func(c CancelledLine) cancelledLineRecord { return cancelledLineRecord{c.SKU, c.CancelledQuantity} })}
}

// loadStoredOrder upgrades a stored order and returns what it holds.
func loadStoredOrder(r *storedOrder) (orderRecord, error) {
	if err := upgradeOrder(r); err != nil {
		return orderRecord{}, err
	}
	return orderRecord{TosID: r.TosID, AnalyticsID: r.AnalyticsID, Token: r.Token,
		Request: r.Request.wire(), CreatedAt: r.CreatedAt, ActiveAt: r.ActiveAt, Parcels: r.Parcels, LinkTokens: r.LinkTokens,
		Cancelled: stored.Slice(r.CancelledLines, func(c cancelledLineRecord) CancelledLine { return CancelledLine{c.SKU, c.Quantity} })}, nil
}

// storeParcel is the record that stores p.
func storeParcel(p *parcelRecord) storedParcel {
	return storedParcel{Schema: parcelSchema, TosID: p.TosID, CarrierID: p.CarrierID, Index: p.Index,
		Request: parcelRequestRecordOf(p.Request), CreatedAt: p.CreatedAt,
		Progress: stored.Slice(p.Progress, progressRecordOf), Alerts: stored.Slice(p.Alerts, alertRecordOf),
		Estimate: stored.Ptr(p.Estimate, rangeRecordOf), LastEventAt: p.LastEventAt,
		Exceptions: stored.Slice(p.Exceptions, func(x ParcelException) exceptionRecord { return exceptionRecord(x) })}
}

// loadStoredParcel upgrades a stored parcel and returns what it holds.
func loadStoredParcel(r *storedParcel) (parcelRecord, error) {
	if err := upgradeParcel(r); err != nil {
		return parcelRecord{}, err
	}
	return parcelRecord{TosID: r.TosID, CarrierID: r.CarrierID, Index: r.Index,
		Request: r.Request.wire(), CreatedAt: r.CreatedAt,
		Progress: stored.Slice(r.Progress, progressRecord.wire), Alerts: stored.Slice(r.Alerts, alertRecord.wire),
		Estimate: stored.Ptr(r.Estimate, rangeRecord.wire), LastEventAt: r.LastEventAt,
		Exceptions: stored.Slice(r.Exceptions, func(x exceptionRecord) ParcelException { return ParcelException(x) })}, nil
}

func orderRequestRecordOf(q CreateTrackingOrderRequest) orderRequestRecord {
	return orderRequestRecord{
		SiteID: q.SiteID, ExternalID: q.ExternalID, CarrierProductRef: q.CarrierProductRef,
		Sender: stored.Ptr(q.Sender, senderRecordOf), Receiver: stored.Ptr(q.Receiver, receiverRecordOf),
		Destination: stored.Ptr(q.Destination, destinationRecordOf), DeliveryType: q.DeliveryType,
		Cart: stored.Ptr(q.Cart, cartRecordOf), Promises: stored.Ptr(q.Promises, promisesRecordOf), Locale: q.Locale,
		MerchantTrackingLink: q.MerchantTrackingLink,
	}
}

func (r orderRequestRecord) wire() CreateTrackingOrderRequest {
	return CreateTrackingOrderRequest{
		SiteID: r.SiteID, ExternalID: r.ExternalID, CarrierProductRef: r.CarrierProductRef,
		Sender: stored.Ptr(r.Sender, senderRecord.wire), Receiver: stored.Ptr(r.Receiver, receiverRecord.wire),
		Destination: stored.Ptr(r.Destination, destinationRecord.wire), DeliveryType: r.DeliveryType,
		Cart: stored.Ptr(r.Cart, cartRecord.wire), Promises: stored.Ptr(r.Promises, promisesRecord.wire), Locale: r.Locale,
		MerchantTrackingLink: r.MerchantTrackingLink,
	}
}

func senderRecordOf(s Sender) senderRecord {
	return senderRecord{Name: s.Name, Address: stored.Ptr(s.Address, stored.AddressOf)}
}

func (s senderRecord) wire() Sender {
	return Sender{Name: s.Name, Address: stored.Ptr(s.Address, stored.Address.Value)}
}

func parcelSenderRecordOf(s ParcelSender) senderRecord {
	return senderRecord{Name: s.Name, Address: stored.Ptr(s.Address, stored.AddressOf)}
}

func (s senderRecord) parcelSender() ParcelSender {
	return ParcelSender{Name: s.Name, Address: stored.Ptr(s.Address, stored.Address.Value)}
}

func receiverRecordOf(r Receiver) receiverRecord {
	return receiverRecord{Name: r.Name, Address: stored.Ptr(r.Address, stored.AddressOf),
		BillingAddress: stored.Ptr(r.BillingAddress, stored.AddressOf), Email: r.Email, PhoneNumber: r.PhoneNumber}
}

func (r receiverRecord) wire() Receiver {
	return Receiver{Name: r.Name, Address: stored.Ptr(r.Address, stored.Address.Value),
		BillingAddress: stored.Ptr(r.BillingAddress, stored.Address.Value), Email: r.Email, PhoneNumber: r.PhoneNumber}
}

func destinationRecordOf(d Destination) destinationRecord {
	return destinationRecord{Address: stored.Ptr(d.Address, stored.AddressOf), LocationExternalID: d.LocationExternalID,
		LocationType: d.LocationType, OperationalHours: stored.Ptr(d.OperationalHours, hoursRecordOf)}
}

func (d destinationRecord) wire() Destination {
	return Destination{Address: stored.Ptr(d.Address, stored.Address.Value), LocationExternalID: d.LocationExternalID,
		LocationType: d.LocationType, OperationalHours: stored.Ptr(d.OperationalHours, hoursRecord.wire)}
}

func hoursRecordOf(h OperationalHours) hoursRecord {
	r := func(tr TimeRange) timeRangeRecord { return timeRangeRecord(tr) }
	return hoursRecord{Mon: stored.Slice(h.Mon, r), Tue: stored.Slice(h.Tue, r), Wed: stored.Slice(h.Wed, r), Thu: stored.Slice(h.Thu, r),
		Fri: stored.Slice(h.Fri, r), Sat: stored.Slice(h.Sat, r), Sun: stored.Slice(h.Sun, r)}
}

func (h hoursRecord) wire() OperationalHours {
	w := func(tr timeRangeRecord) TimeRange { return TimeRange(tr) }
	return OperationalHours{Mon: stored.Slice(h.Mon, w), Tue: stored.Slice(h.Tue, w), Wed: stored.Slice(h.Wed, w), Thu: stored.Slice(h.Thu, w),
		Fri: stored.Slice(h.Fri, w), Sat: stored.Slice(h.Sat, w), Sun: stored.Slice(h.Sun, w)}
}

func cartRecordOf(c Cart) cartRecord {
	return cartRecord{Items: stored.Slice(c.Items, func(it CartItem) cartItemRecord { return cartItemRecord(it) }),
		Total: c.Total, Discount: c.Discount, Currency: c.Currency, ShippingPrice: c.ShippingPrice, Tax: c.Tax}
}

func (c cartRecord) wire() Cart {
	return Cart{Items: stored.Slice(c.Items, func(it cartItemRecord) CartItem { return CartItem(it) }),
		Total: c.Total, Discount: c.Discount, Currency: c.Currency, ShippingPrice: c.ShippingPrice, Tax: c.Tax}
}

func promisesRecordOf(p Promises) promisesRecord {
	r := func(w DateTimeRangeStrict) windowRecord { return windowRecord(w) }
	return promisesRecord{EstimatedDeliveryTime: stored.Ptr(p.EstimatedDeliveryTime, r),
		EstimatedPreparationTime: stored.Ptr(p.EstimatedPreparationTime, r), EstimatedSubmissionTime: stored.Ptr(p.EstimatedSubmissionTime, r)}
}

func (p promisesRecord) wire() Promises {
	w := func(r windowRecord) DateTimeRangeStrict { return DateTimeRangeStrict(r) }
	return Promises{EstimatedDeliveryTime: stored.Ptr(p.EstimatedDeliveryTime, w),
		EstimatedPreparationTime: stored.Ptr(p.EstimatedPreparationTime, w), EstimatedSubmissionTime: stored.Ptr(p.EstimatedSubmissionTime, w)}
}

func parcelRequestRecordOf(q CreateParcelRequest) parcelRequestRecord {
	return parcelRequestRecord{
		SiteID: q.SiteID, TosID: q.TosID, TrackingNumber: q.TrackingNumber, CarrierProductRef: q.CarrierProductRef,
		DirectionType: q.DirectionType, DeliveryType: q.DeliveryType, Attributes: q.Attributes,
		LineItems: stored.Slice(q.LineItems, func(it ParcelLineItem) parcelLineItemRecord { return parcelLineItemRecord(it) }),
		Receiver:  stored.Ptr(q.Receiver, parcelReceiverRecordOf), Sender: stored.Ptr(q.Sender, parcelSenderRecordOf),
	}
}

func (r parcelRequestRecord) wire() CreateParcelRequest {
	return CreateParcelRequest{
		SiteID: r.SiteID, TosID: r.TosID, TrackingNumber: r.TrackingNumber, CarrierProductRef: r.CarrierProductRef,
		DirectionType: r.DirectionType, DeliveryType: r.DeliveryType, Attributes: r.Attributes,
		LineItems: stored.Slice(r.LineItems, func(it parcelLineItemRecord) ParcelLineItem { return ParcelLineItem(it) }),
		Receiver:  stored.Ptr(r.Receiver, parcelReceiverRecord.wire), Sender: stored.Ptr(r.Sender, senderRecord.parcelSender),
	}
}

func parcelReceiverRecordOf(r ParcelReceiver) parcelReceiverRecord {
	return parcelReceiverRecord{Name: r.Name, Email: r.Email, PhoneNumber: r.PhoneNumber,
		Destination: stored.Ptr(r.Destination, func(d ParcelDestination) parcelDestinationRecord {
			return parcelDestinationRecord{Address: stored.Ptr(d.Address, stored.AddressOf), Pickup: stored.Ptr(d.Pickup, pickupRecordOf)}
		})}
}

func (r parcelReceiverRecord) wire() ParcelReceiver {
	return ParcelReceiver{Name: r.Name, Email: r.Email, PhoneNumber: r.PhoneNumber,
		Destination: stored.Ptr(r.Destination, func(d parcelDestinationRecord) ParcelDestination {
			return ParcelDestination{Address: stored.Ptr(d.Address, stored.Address.Value), Pickup: stored.Ptr(d.Pickup, pickupRecord.wire)}
		})}
}

func pickupRecordOf(p Pickup) pickupRecord {
	return pickupRecord{ID: p.ID, Address: stored.Ptr(p.Address, stored.AddressOf), LocationType: p.LocationType}
}

func (p pickupRecord) wire() Pickup {
	return Pickup{ID: p.ID, Address: stored.Ptr(p.Address, stored.Address.Value), LocationType: p.LocationType}
}

func progressRecordOf(p ProgressItem) progressRecord {
	return progressRecord{Step: p.Step, Time: p.Time, EstimatedTime: stored.Ptr(p.EstimatedTime, rangeRecordOf)}
}

func (p progressRecord) wire() ProgressItem {
	return ProgressItem{Step: p.Step, Time: p.Time, EstimatedTime: stored.Ptr(p.EstimatedTime, rangeRecord.wire)}
}

func rangeRecordOf(r DateTimeRange) rangeRecord { return rangeRecord(r) }

func (r rangeRecord) wire() DateTimeRange { return DateTimeRange(r) }

func alertRecordOf(a Alert) alertRecord {
	mark := func(struct{}) present { return present{} }
	return alertRecord{Type: a.Type, CreatedAt: a.CreatedAt,
		AwaitingSupplier: stored.Ptr(a.AwaitingSupplier, estimatePayloadRecordOf), Linehaul: stored.Ptr(a.Linehaul, estimatePayloadRecordOf),
		DeliveryAttemptFailed: stored.Ptr(a.DeliveryAttemptFailed, mark), DeliveryDelayed: stored.Ptr(a.DeliveryDelayed, mark),
		DeliveryDelayedFromCarrier:   stored.Ptr(a.DeliveryDelayedFromCarrier, mark),
		EstimatedDeliveryTimeUpdated: stored.Ptr(a.EstimatedDeliveryTimeUpdated, mark),
		OutForDelivery:               stored.Ptr(a.OutForDelivery, mark), SubmissionDelayed: stored.Ptr(a.SubmissionDelayed, mark)}
}

func (a alertRecord) wire() Alert {
	mark := func(present) struct{} { return struct{}{} }
	return Alert{Type: a.Type, CreatedAt: a.CreatedAt,
		AwaitingSupplier: stored.Ptr(a.AwaitingSupplier, estimatePayloadRecord.wire), Linehaul: stored.Ptr(a.Linehaul, estimatePayloadRecord.wire),
		DeliveryAttemptFailed: stored.Ptr(a.DeliveryAttemptFailed, mark), DeliveryDelayed: stored.Ptr(a.DeliveryDelayed, mark),
		DeliveryDelayedFromCarrier:   stored.Ptr(a.DeliveryDelayedFromCarrier, mark),
		EstimatedDeliveryTimeUpdated: stored.Ptr(a.EstimatedDeliveryTimeUpdated, mark),
		OutForDelivery:               stored.Ptr(a.OutForDelivery, mark), SubmissionDelayed: stored.Ptr(a.SubmissionDelayed, mark)}
}

func estimatePayloadRecordOf(p EstimatePayload) estimatePayloadRecord {
	return estimatePayloadRecord{EstimatedTime: stored.Ptr(p.EstimatedTime, func(e EstimatedTime) estimatedTimeRecord { return estimatedTimeRecord(e) }),
		EstimatedTimeRange: stored.Ptr(p.EstimatedTimeRange, rangeRecordOf)}
}

func (p estimatePayloadRecord) wire() EstimatePayload {
	return EstimatePayload{EstimatedTime: stored.Ptr(p.EstimatedTime, func(e estimatedTimeRecord) EstimatedTime { return EstimatedTime(e) }),
		EstimatedTimeRange: stored.Ptr(p.EstimatedTimeRange, rangeRecord.wire)}
}
