package returns

import (
	"time"

	"github.com/deliverykit/deliverykit"
)

// ReturnStatus is the state of a return; the package doc has the table of
// transitions.
type ReturnStatus string

// The return states.
const (
	StatusAwaitingReturn   ReturnStatus = "AWAITING_RETURN"
	StatusInTransit        ReturnStatus = "IN_TRANSIT"
	StatusAwaitingRefund   ReturnStatus = "AWAITING_REFUND"
	StatusAwaitingExchange ReturnStatus = "AWAITING_EXCHANGE"
	StatusCompleted        ReturnStatus = "COMPLETED"
)

// ItemStatus is the state of one line of a return.
type ItemStatus string

// The item states: a line waits until the merchant reports it, then it is
// RETURNED when at least one of its units was approved, DECLINED otherwise.
// While it waits it is AWAITING_RETURN, or AWAITING_INSPECTION (an
// extension) once the carrier delivered the return parcel to the merchant.
const (
	ItemAwaitingReturn ItemStatus = "AWAITING_RETURN"
	ItemReturned       ItemStatus = "RETURNED"
	ItemDeclined       ItemStatus = "DECLINED"
	// ItemAwaitingInspection: the return parcel was delivered to the
	// merchant (its carrier said so), and the merchant has not yet
	// reported the line's units (POST /merchant/items/returned). The
	// item's returnedToWarehouseAt is the delivery's time.
	ItemAwaitingInspection ItemStatus = "AWAITING_INSPECTION"
	// ItemNotReturned (an extension) is the status of an order's line
	// (order detail items) none of whose units is on a return. An order
	// line is AWAITING_RETURN while units of it are on a return and not
	// yet inspected, and RETURNED once units of it were approved.
	ItemNotReturned ItemStatus = "NOT_RETURNED"
)

// RefundStatus is the refund state of a return line or of an order.
type RefundStatus string

// The refund states of lines and orders. NOT_REFUNDED is also what a
// declined line ends with.
const (
	RefundNone     RefundStatus = "NOT_REFUNDED"
	RefundAwaiting RefundStatus = "AWAITING_REFUND"
	RefundDone     RefundStatus = "REFUNDED"
)

// RestockStatus says whether a returned line goes back to stock.
type RestockStatus string

// The restock states: approved units are restocked, declined ones are not.
const (
	RestockPending RestockStatus = "PENDING"
	RestockYes     RestockStatus = "RESTOCK"
	RestockNo      RestockStatus = "NO_RESTOCK"
)

// TransactionStatus is the state of a refund transaction.
type TransactionStatus string

// The refund transaction states; the package doc has the table of
// transitions. Without a refund executor a transaction starts
// AWAITING_EXTERNAL_REFUND, with one PENDING; SUCCESS and REFUNDED are
// final, FAILED may be retried.
const (
	TxAwaitingExternalRefund TransactionStatus = "AWAITING_EXTERNAL_REFUND"
	TxPending                TransactionStatus = "PENDING"
	TxSuccess                TransactionStatus = "SUCCESS"
	TxFailed                 TransactionStatus = "FAILED"
	TxRefunded               TransactionStatus = "REFUNDED"
)

// IDType selects which identifier GET /merchant/order/{orderId} looks up.
type IDType string

// The identifier kinds of an order.
const (
	IDService       IDType = "SERVICE_ID"
	IDForeign       IDType = "FOREIGN_ID"
	IDForeignNumber IDType = "FOREIGN_NUMBER"
	IDForeignName   IDType = "FOREIGN_NAME"
)

// Timestamp is a time on the wire of this area: RFC 3339 in UTC with
// exactly six fractional digits (microseconds), the precision the service
// stores.
type Timestamp time.Time

// TimestampLayout is the wire layout of Timestamp.
const TimestampLayout = "2006-01-02T15:04:05.000000Z07:00"

// MarshalJSON implements json.Marshaler.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	// The layout has nothing to escape; one allocation (a page has
	// dozens of timestamps).
	b := make([]byte, 0, len(TimestampLayout)+8)
	b = append(b, '"')
	b = time.Time(t).UTC().AppendFormat(b, TimestampLayout)
	return append(b, '"'), nil
}

// ---- inputs ----

// OrderInput is an order to import (POST /merchant/order, or the caller's
// checkout wiring). Amounts are decimals in major units of CurrencyCode.
type OrderInput struct {
	ForeignID     string `json:"foreignId" validate:"required,max_ref"`
	ForeignName   string `json:"foreignName" validate:"max_ref"`
	ForeignNumber int64  `json:"foreignNumber" validate:"gte=0"`
	CurrencyCode  string `json:"currencyCode" validate:"required,max_code"`
	Email         string `json:"email" validate:"required,max_email,email"`
	// ShippingAmount is what the customer paid for shipping (an extension
	// of the returns API); it is refunded when the policy says so.
	ShippingAmount Decimal          `json:"shippingAmount" validate:"max_decimal"`
	Items          []OrderItemInput `json:"items" validate:"required,min=1,max_lines,dive"`
	// Locale is the language the customer shopped in ("sv-SE", an
	// extension): the status page of the order's returns speaks it.
	Locale string `json:"locale" validate:"omitempty,max_locale,bcp47_language_tag"`
	// DeliveryAddress is where the order went (an extension): the status
	// page shows the return carrier's drop-off points nearest to it, and
	// a return label names it as the sender.
	DeliveryAddress *Address `json:"deliveryAddress" validate:"omitempty"`
}

// Address is a customer's postal address (an extension of the returns
// API).
// Coordinates, when given, place it; otherwise its postal code does.
type Address struct {
	Name         string       `json:"name,omitempty" validate:"max_name"`
	AddressLines []string     `json:"addressLines,omitempty" validate:"max=5,dive,max_name"`
	PostalCode   string       `json:"postalCode,omitempty" validate:"max=32"`
	City         string       `json:"city,omitempty" validate:"max_id"`
	Country      string       `json:"country" validate:"required,iso3166_1_alpha2"`
	Coordinates  *Coordinates `json:"coordinates,omitempty" validate:"omitempty"`
}

// Coordinates are WGS 84 degrees.
type Coordinates = deliverykit.Coordinates

// OrderItemInput is one line of an imported order. PurchasePriceAmount is
// per unit, tax included; ItemTax is the tax part of it.
type OrderItemInput struct {
	ForeignLineItemID   string     `json:"foreignLineItemId" validate:"required,max_ref"`
	SKU                 string     `json:"sku" validate:"required,max_ref"`
	ProductTitle        string     `json:"productTitle" validate:"max_title"`
	VariantTitle        string     `json:"variantTitle" validate:"max_title"`
	Quantity            int        `json:"quantity" validate:"gte=1,max_quantity"`
	PurchasePriceAmount PriceInput `json:"purchasePriceAmount"`
	// ExchangeSKUs are the SKUs the customer may take instead of this
	// line in an exchange (an extension): the other variants of the same
	// product the merchant offers, at the same price. None: the line can
	// only be exchanged for its own SKU.
	ExchangeSKUs []string `json:"exchangeSkus,omitempty" validate:"max=50,dive,required,max_ref"`
	// ForeignProductID, ForeignVariantID and Properties describe the
	// product as the merchant's shop knows it (productVariant).
	ForeignProductID string            `json:"foreignProductId" validate:"max_ref"`
	ForeignVariantID string            `json:"foreignVariantId" validate:"max_ref"`
	Properties       []VariantProperty `json:"properties" validate:"max_properties,dive"`
}

// PriceInput is a unit price as decimals in major units.
type PriceInput struct {
	Amount  Decimal `json:"amount" validate:"max_decimal"`
	ItemTax Decimal `json:"itemTax" validate:"max_decimal"`
}

// CustomerReturnInput is a customer's return request (POST
// /customer/return). SiteID names the merchant; the e-mail must be the
// order's.
type CustomerReturnInput struct {
	SiteID         string                    `json:"siteId" validate:"required,max_id"`
	ForeignOrderID string                    `json:"foreignOrderId" validate:"required,max_ref"`
	Email          string                    `json:"email" validate:"required,max_email"`
	Items          []CustomerReturnItemInput `json:"items" validate:"required,min=1,max_lines,dive"`
	// Exchange asks for replacement goods instead of money (an extension
	// of the returns API): the policy's exchange cost applies and an
	// inspected return waits in AWAITING_EXCHANGE instead of creating a
	// refund.
	Exchange bool `json:"exchange"`
	// Locale is the language of the customer's return form ("de-DE", an
	// extension); the status page speaks it. Default: the order's.
	Locale string `json:"locale" validate:"omitempty,max=35,bcp47_language_tag"`
	// RefundMethod is how the customer wants the money (an extension):
	// ORIGINAL_PAYMENT (default) or GIFT_CARD, which adds the policy's
	// gift card addition to the refund. An exchange takes none.
	RefundMethod RefundMethod `json:"refundMethod" validate:"omitempty,oneof=ORIGINAL_PAYMENT GIFT_CARD"`
}

// CustomerReturnItemInput is one line the customer sends back.
type CustomerReturnItemInput struct {
	ForeignLineItemID string `json:"foreignLineItemId" validate:"required,max_ref"`
	Quantity          int    `json:"quantity" validate:"gte=1,max_quantity"`
	Reason            string `json:"reason" validate:"max_title"`
	// ExchangeSKU asks for this SKU instead of the line (an extension):
	// the line's own SKU or one of the order line's exchangeSkus. It makes
	// the return an exchange.
	ExchangeSKU string `json:"exchangeSku" validate:"max_ref"`
	// ReasonID and SubReasonID pick a reason of the site's catalog
	// (returnReasons); Reason, the customer's own words, may be given
	// with them or alone. An id the catalog does not list is refused.
	ReasonID    string `json:"reasonId" validate:"max_id"`
	SubReasonID string `json:"subReasonId" validate:"max_id"`
	// Complaint says the line is faulty or damaged (an extension);
	// photos are uploaded afterwards under the return's status page
	// token.
	Complaint *ComplaintInput `json:"complaint" validate:"omitempty"`
}

// ReturnedItemsInput is the merchant's inspection report (POST
// /merchant/items/returned). Exactly one of ForeignOrderID, ReturnID and
// TrackingReference selects the return(s).
type ReturnedItemsInput struct {
	ForeignOrderID    string              `json:"foreignOrderId" validate:"max_ref"`
	ReturnID          uint64              `json:"returnId"`
	TrackingReference string              `json:"trackingReference" validate:"max_ref"`
	Items             []ReturnedItemInput `json:"items" validate:"required,min=1,max_lines,dive"`
	// FailedDelivery says the parcel came back because the delivery
	// failed (refused or not collected; an extension): each return the
	// report selects is charged the policy's failed delivery cost.
	FailedDelivery bool `json:"failedDelivery"`
}

// ReturnedItemInput reports units of one SKU as approved or declined.
type ReturnedItemInput struct {
	SKU      string `json:"sku" validate:"required,max_ref"`
	Quantity int    `json:"quantity" validate:"gte=1,max_quantity"`
	Approved bool   `json:"approved"`
	Comment  string `json:"comment" validate:"max_text"`
}

// ShipmentInput is the return parcel handed to a carrier (MarkInTransit).
type ShipmentInput struct {
	ForeignID         string `json:"foreignId" validate:"max_ref"`
	Carrier           string `json:"carrier" validate:"required,max_ref"`
	TrackingReference string `json:"trackingReference" validate:"required,max_ref"`
}

// ---- wire output ----

// OrderSummary is a row of GET /merchant/order.
type OrderSummary struct {
	ID        uint64    `json:"id"`
	ForeignID string    `json:"foreignId"`
	CreatedAt Timestamp `json:"createdAt"`
}

// Order is the order detail.
type Order struct {
	ID            uint64       `json:"id"`
	ForeignID     string       `json:"foreignId"`
	CreatedAt     Timestamp    `json:"createdAt"`
	ForeignName   string       `json:"foreignName,omitempty"`
	ForeignNumber int64        `json:"foreignNumber,omitempty"`
	OrderRefund   OrderRefund  `json:"orderRefund"`
	Returns       []Return     `json:"returns"`
	Items         []ReturnItem `json:"items"`
	Shipments     []Shipment   `json:"shipments"`
	Exchanges     []Exchange   `json:"exchanges"`
}

// OrderRefund sums up an order's refunds. RefundStatus is NOT_REFUNDED
// without transactions, AWAITING_REFUND while one awaits its refund and
// REFUNDED once all are refunded.
type OrderRefund struct {
	CurrencyCode   string              `json:"currencyCode"`
	AmountRefunded Amount              `json:"amountRefunded"`
	RefundStatus   RefundStatus        `json:"refundStatus"`
	Transactions   []RefundTransaction `json:"transactions"`
}

// RefundTransaction is a refund as shown in order and return details. ID,
// ReturnID and Status are extensions of the shape returns clients know.
type RefundTransaction struct {
	ID                   uint64            `json:"id"`
	ReturnID             uint64            `json:"returnId"`
	Status               TransactionStatus `json:"status"`
	ForeignID            string            `json:"foreignId,omitempty"`
	RefundType           string            `json:"refundType"`
	CurrencyCode         string            `json:"currencyCode"`
	Source               string            `json:"source"`
	TotalAmount          Amount            `json:"totalAmount"`
	ItemsAmount          Amount            `json:"itemsAmount"`
	ShippingRefundAmount Amount            `json:"shippingRefundAmount"`
	ExchangeCost         Amount            `json:"exchangeCost"`
	ReturnCost           Amount            `json:"returnCost"`
	GiftCardAddition     Amount            `json:"giftCardAddition"`
	// RefundMethod and FailureReason are extensions: how the customer
	// takes the money, and why the latest attempt failed (FAILED only).
	RefundMethod  RefundMethod `json:"refundMethod,omitempty"`
	FailureReason string       `json:"failureReason,omitempty"`
}

// ReturnSummary is a row of GET /merchant/return.
type ReturnSummary struct {
	ID        uint64       `json:"id"`
	CreatedAt Timestamp    `json:"createdAt"`
	Status    ReturnStatus `json:"status"`
	StatusURL string       `json:"statusUrl"`
	Order     OrderSummary `json:"order"`
}

// Return is the return detail.
type Return struct {
	ID                 uint64              `json:"id"`
	CreatedAt          Timestamp           `json:"createdAt"`
	Status             ReturnStatus        `json:"status"`
	StatusURL          string              `json:"statusUrl"`
	Order              OrderSummary        `json:"order"`
	ReturnCosts        ReturnCosts         `json:"returnCosts"`
	CalculatedRefund   CalculatedRefund    `json:"calculatedRefund"`
	RefundTransactions []RefundTransaction `json:"refundTransactions"`
	Items              []ReturnItem        `json:"items"`
	Shipments          []Shipment          `json:"shipments"`
	Exchanges          []Exchange          `json:"exchanges"`
}

// ReturnCosts are what the policy charges for a return.
type ReturnCosts struct {
	CurrencyCode       string `json:"currencyCode"`
	ReturnShipmentCost Amount `json:"returnShipmentCost"`
	ReturnHandlingCost Amount `json:"returnHandlingCost"`
	ExchangeCost       Amount `json:"exchangeCost"`
	FailedDeliveryCost Amount `json:"failedDeliveryCost"`
	TotalCost          Amount `json:"totalCost"`
}

// CalculatedRefund is the refund expected when every requested unit is
// approved: the lines, plus any shipping refund, minus the return costs,
// never below zero.
type CalculatedRefund struct {
	CurrencyCode      string                 `json:"currencyCode"`
	TotalRefundAmount Amount                 `json:"totalRefundAmount"`
	Lines             []CalculatedRefundLine `json:"lines"`
}

// CalculatedRefundLine is one requested line at its purchase price.
type CalculatedRefundLine struct {
	ForeignLineItemID string `json:"foreignLineItemId"`
	Quantity          int    `json:"quantity"`
	Amount            Amount `json:"amount"`
}

// ReturnItem is a line of an order (order detail) or of a return.
type ReturnItem struct {
	ID                    uint64         `json:"id"`
	ForeignLineItemID     string         `json:"foreignLineItemId"`
	Quantity              int            `json:"quantity"`
	Status                ItemStatus     `json:"status,omitempty"`
	RefundStatus          RefundStatus   `json:"refundStatus,omitempty"`
	PurchasePriceAmount   PurchasePrice  `json:"purchasePriceAmount"`
	ProductVariant        ProductVariant `json:"productVariant"`
	ReturnReasons         []ReturnReason `json:"returnReasons,omitempty"`
	ReturnedToWarehouseAt *Timestamp     `json:"returnedToWarehouseAt,omitempty"`
	RestockStatus         RestockStatus  `json:"restockStatus,omitempty"`
	ApprovedForRestock    *bool          `json:"approvedForRestock,omitempty"`
	ApprovedQuantity      *int           `json:"approvedQuantity,omitempty"`
	Comment               string         `json:"comment,omitempty"`
	// ExchangeSKUs (order items) are the SKUs a line may be exchanged
	// for; ExchangeSKU (return items of an exchange) is the one the
	// customer takes instead. Extensions.
	ExchangeSKUs []string `json:"exchangeSkus,omitempty"`
	ExchangeSKU  string   `json:"exchangeSku,omitempty"`
	// CustomerComplaint is the customer's complaint about the line, if
	// any (return details only).
	CustomerComplaint *CustomerComplaint `json:"customerComplaint,omitempty"`
}

// PurchasePrice is a unit price, tax included.
type PurchasePrice struct {
	CurrencyCode string `json:"currencyCode"`
	Amount       Amount `json:"amount"`
	ItemTax      Amount `json:"itemTax"`
}

// ProductVariant names the product of a line.
type ProductVariant struct {
	SKU          string `json:"sku"`
	ProductTitle string `json:"productTitle,omitempty"`
	VariantTitle string `json:"variantTitle,omitempty"`
	// ID is the order line's id; the others are the import's.
	ID               uint64            `json:"id"`
	ForeignProductID string            `json:"foreignProductId,omitempty"`
	ForeignVariantID string            `json:"foreignVariantId,omitempty"`
	Properties       []VariantProperty `json:"properties"`
}

// ReturnReason is the customer's reason for a line.
type ReturnReason struct {
	Reason string `json:"reason"`
	// ID and SubReasonID are the catalog's ids of a picked reason;
	// Reason and SubReason their texts in the catalog's first locale as
	// they were when the return was created. A reason in the customer's
	// own words has neither id.
	ID          string `json:"id,omitempty"`
	SubReason   string `json:"subReason,omitempty"`
	SubReasonID string `json:"subReasonId,omitempty"`
}

// Shipment is a return parcel. Type is C2B (customer to business).
type Shipment struct {
	ID                uint64 `json:"id"`
	ForeignID         string `json:"foreignId,omitempty"`
	Type              string `json:"type"`
	Carrier           string `json:"carrier"`
	TrackingReference string `json:"trackingReference"`
}

// Exchange is the replacement of an exchange return: REQUESTED from the
// customer's request until the merchant completes it (COMPLETED, with
// completedAt and the merchant's foreignId for the replacement order).
// Status, ForeignID and Items are extensions.
type Exchange struct {
	ReturnID    uint64         `json:"returnId"`
	CompletedAt *Timestamp     `json:"completedAt,omitempty"`
	Status      ExchangeStatus `json:"status"`
	ForeignID   string         `json:"foreignId,omitempty"`
	Items       []ExchangeItem `json:"items"`
}

// RefundEntry is a row of GET /merchant/refund/transaction and the answer
// of marking a transaction refunded. ReturnID is an extension.
type RefundEntry struct {
	RefundID       uint64            `json:"refundId"`
	ReturnID       uint64            `json:"returnId"`
	CreatedAt      Timestamp         `json:"createdAt"`
	Order          RefundEntryOrder  `json:"order"`
	Status         TransactionStatus `json:"status"`
	CurrencyCode   string            `json:"currencyCode"`
	AmountToRefund Amount            `json:"amountToRefund"`
	RefundDetails  RefundDetails     `json:"refundDetails"`
	// ForeignID, FailureReason and Attempt are extensions: the merchant's
	// (or the executor's) id of the payout, why the latest attempt failed,
	// and which attempt this is (1, then one more per retry).
	ForeignID     string `json:"foreignId,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
	Attempt       int    `json:"attempt,omitempty"`
}

// RefundEntryOrder is the order of a refund entry; Status is the order's
// refund status.
type RefundEntryOrder struct {
	ID        uint64       `json:"id"`
	ForeignID string       `json:"foreignId"`
	CreatedAt Timestamp    `json:"createdAt"`
	Status    RefundStatus `json:"status"`
}

// RefundDetails explains AmountToRefund.
type RefundDetails struct {
	RefundAmounts RefundAmounts     `json:"refundAmounts"`
	ReturnCosts   EntryReturnCosts  `json:"returnCosts"`
	Items         []RefundEntryItem `json:"items"`
}

// RefundAmounts are the positive parts of a refund.
type RefundAmounts struct {
	TotalItemRefundAmount Amount `json:"totalItemRefundAmount"`
	ShippingRefundAmount  Amount `json:"shippingRefundAmount"`
	// GiftCardAddition is the policy's bonus for a gift card refund (an
	// extension).
	GiftCardAddition Amount `json:"giftCardAddition"`
}

// EntryReturnCosts are the deducted parts of a refund.
type EntryReturnCosts struct {
	CurrencyCode       string `json:"currencyCode"`
	ReturnShipmentCost Amount `json:"returnShipmentCost"`
	ReturnHandlingCost Amount `json:"returnHandlingCost"`
	FailedDeliveryCost Amount `json:"failedDeliveryCost"`
	ExchangeCost       Amount `json:"exchangeCost"`
	TotalReturnCost    Amount `json:"totalReturnCost"`
}

// RefundEntryItem is one approved line of a refund.
type RefundEntryItem struct {
	ForeignOrderLineItemID string `json:"foreignOrderLineItemId"`
	RefundAmount           Amount `json:"refundAmount"`
	Name                   string `json:"name"`
}

// ReturnedItemsResult answers a report of returned items: the returns it
// touched, as they are afterwards, and the refund transactions it created.
type ReturnedItemsResult struct {
	Returns            []Return      `json:"returns"`
	RefundTransactions []RefundEntry `json:"refundTransactions"`
}

// Equal reports whether t and u are the same instant.
func (t Timestamp) Equal(u Timestamp) bool { return time.Time(t).Equal(time.Time(u)) }

// String formats t as it appears on the wire.
func (t Timestamp) String() string { return time.Time(t).UTC().Format(TimestampLayout) }

// Time returns t as a time.Time.
func (t Timestamp) Time() time.Time { return time.Time(t) }
