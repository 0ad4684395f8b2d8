package deliverykittest_test

import (
	"strings"
)

// reached collects the values path reaches in v, a decoded JSON document.
// A path is dot-separated member names; "[]" after a name steps into every
// element of that array ("orders[].parcels[].exceptions[].status").
func reached(v any, path string) []any {
	if path == "" {
		return []any{v}
	}
	head, rest, _ := strings.Cut(path, ".")
	name, each := strings.CutSuffix(head, "[]")
	obj, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	child, ok := obj[name]
	if !ok {
		return nil
	}
	if !each {
		return reached(child, rest)
	}
	arr, _ := child.([]any)
	var out []any
	for _, el := range arr {
		out = append(out, reached(el, rest)...)
	}
	return out
}

// meaningful reports whether a value says something: a non-empty string,
// a non-zero number, a boolean, a non-empty array or object.
func meaningful(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case string:
		return v != ""
	case float64:
		return v != 0
	case bool:
		return true
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return false
}

// populated reports whether path reaches at least one meaningful value.
func populated(v any, path string) bool {
	for _, x := range reached(v, path) {
		if meaningful(x) {
			return true
		}
	}
	return false
}

// Every field the interface lists for the read resources of tracking
// (GET /orders, GET /parcels), notifications (GET /notifications) and
// returns (order and return detail, refund list), as paths into the
// responses the walk reads. exempt names the ones the walk cannot fill,
// each with its reason; docs/decisions/0018-fields-no-walk-fills.md lists the same.
var (
	addressFields = []string{"address_lines", "apartment_number", "attn", "building_name", "care_of", "city", "coordinates.lat",
		"coordinates.lng", "country", "door_code", "floor_number", "name", "po_box_id", "postal_code", "region", "street",
		"street_number", "subregion"}

	privateOrderFields = concat([]string{
		"analytics_id", "external_id", "tos_id", "sender_name", "site_name", "preselected_parcel_index",
		"tracking_links.links[].type", "tracking_links.links[].url",
		"cart.currency",
		"cart.prices.shipping_components[].name", "cart.prices.shipping_components[].price", "cart.prices.shipping_components[].discount",
		"cart.prices.total.discount", "cart.prices.total.items_discount", "cart.prices.total.items_price", "cart.prices.total.price",
		"cart.prices.total.shipping_discount", "cart.prices.total.shipping_price", "cart.prices.total.tax",
		"items[].discount", "items[].image", "items[].name", "items[].price", "items[].quantity", "items[].sku", "items[].total_price",
	}, prefixed("cart.items[].", itemFields), prefixed("parcels[].", privateParcelFields))

	itemFields = []string{
		"attributes", "cancelled_quantity", "cancelled_total_price", "discount",
		"display_attributes[].key", "display_attributes[].label", "display_attributes[].value",
		"image", "name", "price", "quantity", "sku", "total_price", "variant.color", "variant.size",
	}

	privateParcelFields = concat([]string{
		"tracking_number", "alerts[].type", "alerts[].created_at",
		"alerts[].awaiting_supplier.estimated_time.earliest", "alerts[].awaiting_supplier.estimated_time.latest",
		"alerts[].awaiting_supplier.estimated_time_range.start", "alerts[].awaiting_supplier.estimated_time_range.end",
		"alerts[].linehaul.estimated_time.earliest", "alerts[].linehaul.estimated_time.latest",
		"alerts[].linehaul.estimated_time_range.start", "alerts[].linehaul.estimated_time_range.end",
		"carrier", "carrier_fallback_enabled", "carrier_link", "carrier_logo_pattern", "carrier_product_id", "carrier_product_ref",
		"delivery_type", "direction_type", "display_carrier_name", "estimated_delivery_time.start", "estimated_delivery_time.end",
		"exceptions[].created_at", "exceptions[].status", "index",
		"line_items[].sku", "line_items[].quantity", "line_items[].price", "line_items[].currency", "line_items[].discount",
		"line_items[].image", "line_items[].name", "line_items[].properties", "line_items[].total_price",
		"progress[].step", "progress[].time", "progress[].estimated_time.start", "progress[].estimated_time.end",
		"requested_shipping_method", "sender_name", "tracking_link",
	}, prefixed("location.", locationFields))

	locationFields = concat([]string{
		"location_external_id", "location_type", "pickup_instructions",
		"operational_hours.mon", "operational_hours.tue", "operational_hours.wed", "operational_hours.thu", "operational_hours.fri",
		"operational_hours.sat", "operational_hours.sun", "operational_hours.free_text",
	}, prefixed("address.", addressFields))

	trackingParcelsFields = concat([]string{
		"external_id", "tos_id", "tracking_link", "tracking_links.links[].type", "tracking_links.links[].url",
		"parcels[].carrier_name", "parcels[].current_progress.step", "parcels[].current_progress.time",
		"parcels[].progress_history[].step", "parcels[].progress_history[].time",
	}, prefixed("parcels[].destination.", locationFields))

	notificationFields = []string{
		"notifications[].id", "notifications[].status", "notifications[].name", "notifications[].channel",
		"notifications[].tracking_number", "notifications[].scheduled_at", "notifications[].triggered_at", "notifications[].origin",
	}

	returnItemFields = []string{
		"id", "foreignLineItemId", "quantity", "status", "refundStatus",
		"purchasePriceAmount.currencyCode", "purchasePriceAmount.amount", "purchasePriceAmount.itemTax",
		"productVariant.id", "productVariant.foreignProductId", "productVariant.foreignVariantId",
		"productVariant.properties[].type", "productVariant.properties[].value", "productVariant.sku",
		"productVariant.productTitle", "productVariant.variantTitle",
		"returnReasons[].id", "returnReasons[].reason", "returnReasons[].subReason", "returnReasons[].subReasonId",
		"returnedToWarehouseAt", "restockStatus", "approvedForRestock",
		"customerComplaint.id", "customerComplaint.status", "customerComplaint.complaintReason.id",
		"customerComplaint.complaintReason.reason", "customerComplaint.complaintText",
		"customerComplaint.image.id", "customerComplaint.image.uuid", "customerComplaint.image.downloadUrl",
	}

	refundTransactionFields = []string{
		"foreignId", "refundType", "currencyCode", "source", "totalAmount", "itemsAmount", "shippingRefundAmount",
		"exchangeCost", "returnCost", "giftCardAddition",
	}

	shipmentFields = []string{"id", "foreignId", "type", "carrier", "trackingReference"}

	returnFields = concat([]string{
		"id", "createdAt", "status", "statusUrl", "order.id", "order.foreignId", "order.createdAt",
		"returnCosts.currencyCode", "returnCosts.returnShipmentCost", "returnCosts.returnHandlingCost", "returnCosts.exchangeCost",
		"returnCosts.failedDeliveryCost", "returnCosts.totalCost",
		"calculatedRefund.currencyCode", "calculatedRefund.totalRefundAmount", "calculatedRefund.lines",
	}, prefixed("refundTransactions[].", refundTransactionFields), prefixed("items[].", returnItemFields),
		prefixed("shipments[].", shipmentFields), []string{"exchanges"})

	orderDetailFields = concat([]string{
		"id", "foreignId", "createdAt", "foreignName", "foreignNumber",
		"orderRefund.currencyCode", "orderRefund.amountRefunded", "orderRefund.refundStatus",
	}, prefixed("orderRefund.transactions[].", refundTransactionFields), prefixed("returns[].", []string{"id", "status"}),
		prefixed("items[].", []string{"id", "foreignLineItemId", "quantity", "status"}),
		prefixed("shipments[].", shipmentFields), []string{"exchanges"})

	pageFields = []string{"content", "pageable.sort.sorted", "pageable.sort.unsorted", "pageable.sort.empty", "pageable.offset",
		"pageable.pageSize", "pageable.pageNumber", "pageable.unpaged", "pageable.paged", "totalPages", "totalElements", "last",
		"size", "number", "sort.sorted", "sort.unsorted", "sort.empty", "numberOfElements", "first", "empty"}

	refundEntryFields = []string{
		"content[].refundId", "content[].createdAt", "content[].order.id", "content[].order.foreignId", "content[].order.createdAt",
		"content[].order.status", "content[].status", "content[].currencyCode", "content[].amountToRefund",
		"content[].refundDetails.refundAmounts.totalItemRefundAmount", "content[].refundDetails.refundAmounts.shippingRefundAmount",
		"content[].refundDetails.returnCosts.currencyCode", "content[].refundDetails.returnCosts.returnShipmentCost",
		"content[].refundDetails.returnCosts.returnHandlingCost", "content[].refundDetails.returnCosts.failedDeliveryCost",
		"content[].refundDetails.returnCosts.exchangeCost", "content[].refundDetails.returnCosts.totalReturnCost",
		"content[].refundDetails.items[].foreignOrderLineItemId", "content[].refundDetails.items[].refundAmount",
		"content[].refundDetails.items[].name",
	}
)

// exemptFields are the fields the walk cannot fill, by the end of their
// path, with the reason; docs/decisions/0018-fields-no-walk-fills.md
// names each of them too.
var exemptFields = map[string]string{
	"refundTransactions[].exchangeCost":       "an exchange never creates a refund transaction; its cost is the return's returnCosts.exchangeCost",
	"refundDetails.returnCosts.exchangeCost":  "as refundTransactions[].exchangeCost: a refunded return is never an exchange",
	"orderRefund.transactions[].exchangeCost": "as refundTransactions[].exchangeCost",
}

// exempt is the reason field may stay empty, or "".
func exempt(field string) string {
	for suffix, why := range exemptFields {
		if strings.HasSuffix(field, suffix) {
			return why
		}
	}
	return ""
}

func prefixed(p string, fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = p + f
	}
	return out
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
