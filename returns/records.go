package returns

import (
	"time"

	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/storage"
)

// Collections. Every primary key is storage.Key(site, storage.Uint64Key(id)),
// so a prefix scan of one site reads that site's rows in id order and never
// another's. Ids are per site and kind: one more than the id of the site's
// last record of that kind (ranked.next), so they count that site's
// records only. Records stored before were numbered by one sequence per
// kind shared by every site (Tx.NextSequence); they keep their ids, and a
// site's new ids continue above its highest one.
//
// The rank collections hold, per site, the n-th record in id order at
// storage.Key(site, storage.Uint64Key(n)) (n = 1, 2, 3 … without gaps,
// because ranks are given in the same transaction as the record). They
// make an exact offset page in id order a read of one rank record plus one
// page, and the site's row count a read of its last rank. Returns and
// refunds are deleted by retention (retention.go): the ranks of deleted
// ones go, the live ones keep no gap between them, and returnFirsts and
// refundFirsts say, per site, how many ranks went, so that the live ranks
// are first+1 … last (ranked.bounds).
var (
	ordersColl  = storage.Collection[orderRecord]{Name: "returns.orders"}
	returnsColl = storage.Collection[returnRecord]{Name: "returns.returns"}
	refundsColl = storage.Collection[refundRecord]{Name: "returns.refunds"}

	orderRanks  = storage.Collection[rankRecord]{Name: "returns.order_ranks"}
	returnRanks = storage.Collection[rankRecord]{Name: "returns.return_ranks"}
	refundRanks = storage.Collection[rankRecord]{Name: "returns.refund_ranks"}

	returnFirsts = storage.Collection[firstRecord]{Name: "returns.return_firsts"} // Key(site)
	refundFirsts = storage.Collection[firstRecord]{Name: "returns.refund_firsts"} // Key(site)

	// Index records, written in the same Update as what they point to.
	orderByForeignID   = storage.Collection[idRecord]{Name: "returns.order_by_foreign_id"}     // Key(site, foreignId) → order id; unique
	orderByForeignNum  = storage.Collection[idRecord]{Name: "returns.order_by_foreign_number"} // Key(site, number, id); first = oldest
	orderByForeignName = storage.Collection[idRecord]{Name: "returns.order_by_foreign_name"}   // Key(site, name, id); first = oldest
	returnByTracking   = storage.Collection[idRecord]{Name: "returns.return_by_tracking"}      // Key(site, trackingReference) → return id
	// returnByToken maps the status-page token to its return. It is the one
	// key that does not start with the site: the public page knows only
	// the token, which is 128 random bits.
	returnByToken = storage.Collection[tokenRecord]{Name: "returns.return_by_token"}
	// returnTokens lists every status-page token a return has had,
	// Key(site, return id, token): a renewed link keeps its old token
	// (expired), which the return no longer names, and retention deletes
	// them all with the return.
	returnTokens = storage.Collection[struct{}]{Name: "returns.return_tokens"}
)

// firstRecord is what deletions left of a site's ranks: ranks 1 …
// Deleted are gone, and LastID is the highest id deleted, where the
// site's ids continue when none is left.
type firstRecord struct {
	Deleted uint64 `json:"deleted"`
	LastID  uint64 `json:"lastId"`
}

type rankRecord struct {
	ID uint64 `json:"id"`
}

type idRecord struct {
	ID uint64 `json:"id"`
	// EmailDigest is emailDigest of the order's e-mail, in the
	// foreign-id index only: the customer return decides on it without
	// reading the order (see CreateReturn). Orders imported before it
	// existed have none.
	EmailDigest []byte `json:"emailDigest,omitempty"`
}

type tokenRecord struct {
	Site     string `json:"site"`
	ReturnID uint64 `json:"returnId"`
	// ExpiresAt is when the status link stops working. Tokens stored
	// before links expired have none: they expire StatusLinkLifetime after
	// their return's creation.
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// orderRecord is an order as stored. Money is in minor units of Currency.
type orderRecord struct {
	ID            uint64      `json:"id"`
	Rank          uint64      `json:"rank"`
	ForeignID     string      `json:"foreignId"`
	ForeignName   string      `json:"foreignName,omitempty"`
	ForeignNumber int64       `json:"foreignNumber,omitempty"`
	Currency      string      `json:"currency"`
	Scale         int         `json:"scale"`
	Email         string      `json:"email"`
	Shipping      int64       `json:"shipping,omitempty"`
	CreatedAt     time.Time   `json:"createdAt"`
	Lines         []orderLine `json:"lines"`
	ReturnIDs     []uint64    `json:"returnIds,omitempty"`
	RefundIDs     []uint64    `json:"refundIds,omitempty"`
	// ShippingRefunded records that a refund transaction already carries
	// the shipping refund, so it is never refunded twice.
	ShippingRefunded bool `json:"shippingRefunded,omitempty"`
	// Locale and Address are the language the customer shopped in and
	// the delivery address; orders imported before they existed, or
	// without them, have none.
	Locale  string   `json:"locale,omitempty"`
	Address *Address `json:"address,omitempty"`
}

type orderLine struct {
	ID                uint64 `json:"id"`
	ForeignLineItemID string `json:"foreignLineItemId"`
	SKU               string `json:"sku"`
	ProductTitle      string `json:"productTitle,omitempty"`
	VariantTitle      string `json:"variantTitle,omitempty"`
	Quantity          int    `json:"quantity"`
	Price             int64  `json:"price"`
	Tax               int64  `json:"tax"`
	// InReturn counts units on returns minus units declined at
	// inspection: what the customer may not ask to return again.
	InReturn int `json:"inReturn,omitempty"`
	// Approved counts units approved at inspection.
	Approved int `json:"approved,omitempty"`
	// ExchangeSKUs are what the line may be exchanged for.
	ExchangeSKUs []string `json:"exchangeSkus,omitempty"`
	// The product as the import named it (productVariant).
	ForeignProductID string            `json:"foreignProductId,omitempty"`
	ForeignVariantID string            `json:"foreignVariantId,omitempty"`
	Properties       []VariantProperty `json:"properties,omitempty"`
}

type costsRecord struct {
	Shipment int64 `json:"shipment,omitempty"`
	Handling int64 `json:"handling,omitempty"`
	Exchange int64 `json:"exchange,omitempty"`
	// FailedDelivery is charged when the merchant reports the parcel came
	// back undelivered; GiftCard is not a cost but the policy's addition
	// for a gift card refund, kept with the costs it offsets.
	FailedDelivery int64 `json:"failedDelivery,omitempty"`
	GiftCard       int64 `json:"giftCard,omitempty"`
}

// total is the sum of the costs, or false when it does not fit; a policy
// with costs outside 0…maxMinor is refused (policyCosts), so stored costs
// always fit.
func (c costsRecord) total() (int64, bool) {
	t, ok := checked.Add(c.Shipment, c.Handling)
	if ok {
		t, ok = checked.Add(t, c.Exchange)
	}
	if ok {
		t, ok = checked.Add(t, c.FailedDelivery)
	}
	return t, ok
}

// returnCost is the label and handling part of the costs (the wire's
// returnCost), with the same guarantee as total.
func (c costsRecord) returnCost() int64 {
	t, _ := checked.Add(c.Shipment, c.Handling)
	return t
}

// returnRecord is a return as stored.
type returnRecord struct {
	ID      uint64 `json:"id"`
	Rank    uint64 `json:"rank"`
	OrderID uint64 `json:"orderId"`
	// Order is the order's summary, which never changes once the order
	// is imported, kept here so that a page of returns is read without
	// reading (and decoding) each return's order. Returns stored before
	// it existed have none; their order is read.
	Order     *orderSummaryRecord `json:"order,omitempty"`
	Token     string              `json:"token"`
	Status    ReturnStatus        `json:"status"`
	Exchange  bool                `json:"exchange,omitempty"`
	CreatedAt time.Time           `json:"createdAt"`
	Costs     costsRecord         `json:"costs"`
	// Estimate is the calculated refund at creation.
	Estimate    int64         `json:"estimate"`
	Lines       []returnLine  `json:"lines"`
	Shipments   []shipmentRec `json:"shipments,omitempty"`
	RefundIDs   []uint64      `json:"refundIds,omitempty"`
	CompletedAt *time.Time    `json:"completedAt,omitempty"`
	// Locale is the language of the customer's return request, else the
	// order's; empty on returns stored before it existed.
	Locale string `json:"locale,omitempty"`
	// Label is the return parcel booked for the return, once booked.
	Label *labelRecord `json:"label,omitempty"`
	// ShipmentRequestedAt is when the return parcel was asked for
	// (event.ReturnShipmentRequested); ArrivedAt when the carrier
	// delivered it to the merchant (its items await inspection).
	ShipmentRequestedAt *time.Time `json:"shipmentRequestedAt,omitempty"`
	ArrivedAt           *time.Time `json:"arrivedAt,omitempty"`
	// RefundMethod is the customer's choice; empty is ORIGINAL_PAYMENT.
	RefundMethod RefundMethod `json:"refundMethod,omitempty"`
	// ExchangeForeignID is the merchant's replacement order, once the
	// exchange is completed.
	ExchangeForeignID string `json:"exchangeForeignId,omitempty"`
	// UpdatedAt is the return's last change (its refunds' included),
	// which its retention counts from; returns stored before it existed
	// have none (lastChange).
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// labelRecord is a booked return parcel: what its label and QR code show.
type labelRecord struct {
	TrackingNumber string    `json:"trackingNumber"`
	CarrierName    string    `json:"carrierName,omitempty"`
	Product        string    `json:"product"`
	BookedAt       time.Time `json:"bookedAt"`
	// ShipmentID is the shipments area's id of the parcel's shipment;
	// labels booked before returns asked for them by event have none.
	ShipmentID string `json:"shipmentId,omitempty"`
}

// orderSummaryRecord is what a return keeps of its order (OrderSummary).
type orderSummaryRecord struct {
	ForeignID string    `json:"foreignId"`
	CreatedAt time.Time `json:"createdAt"`
}

type returnLine struct {
	ID         uint64     `json:"id"`
	OrderLine  int        `json:"orderLine"` // index into orderRecord.Lines
	Quantity   int        `json:"quantity"`
	Reason     string     `json:"reason,omitempty"`
	Approved   int        `json:"approved,omitempty"`
	Declined   int        `json:"declined,omitempty"`
	Comment    string     `json:"comment,omitempty"`
	ReturnedAt *time.Time `json:"returnedAt,omitempty"`
	Refunded   bool       `json:"refunded,omitempty"`
	// ExchangeSKU is what the customer takes instead, on an exchange.
	ExchangeSKU string `json:"exchangeSku,omitempty"`
	// ReasonID and SubReasonID are the catalog reason the customer
	// picked, ReasonText and SubReasonText its texts then.
	ReasonID      string `json:"reasonId,omitempty"`
	ReasonText    string `json:"reasonText,omitempty"`
	SubReasonID   string `json:"subReasonId,omitempty"`
	SubReasonText string `json:"subReasonText,omitempty"`
	// Complaint is the customer's complaint about the line.
	Complaint *complaintRecord `json:"complaint,omitempty"`
}

func (l returnLine) handled() bool { return l.Approved+l.Declined == l.Quantity }

type shipmentRec struct {
	ID                uint64 `json:"id"`
	ForeignID         string `json:"foreignId,omitempty"`
	Carrier           string `json:"carrier"`
	TrackingReference string `json:"trackingReference"`
}

// refundRecord is a refund transaction as stored.
type refundRecord struct {
	ID uint64 `json:"id"`
	// Rank is the refund's rank when it was made; deleting an older
	// refund may move it (ranked.remove), so it is not read.
	Rank       uint64            `json:"rank"`
	ReturnID   uint64            `json:"returnId"`
	OrderID    uint64            `json:"orderId"`
	Status     TransactionStatus `json:"status"`
	CreatedAt  time.Time         `json:"createdAt"`
	Currency   string            `json:"currency"`
	Scale      int               `json:"scale"`
	Items      int64             `json:"items"`
	Shipping   int64             `json:"shipping"`
	Costs      costsRecord       `json:"costs"`
	Amount     int64             `json:"amount"`
	Lines      []refundLine      `json:"lines"`
	RefundedAt *time.Time        `json:"refundedAt,omitempty"`
	// GiftCard is the policy's gift card addition included in Amount.
	GiftCard int64 `json:"giftCard,omitempty"`
	// Method is the customer's refund method; empty is ORIGINAL_PAYMENT.
	Method RefundMethod `json:"method,omitempty"`
	// ForeignID is the payout's id at the merchant or executor; Attempt
	// counts executions (0 on transactions stored before it existed:
	// the first); FailureReason says why the latest one failed.
	ForeignID     string `json:"foreignId,omitempty"`
	Attempt       int    `json:"attempt,omitempty"`
	FailureReason string `json:"failureReason,omitempty"`
	// UpdatedAt is the refund's last change; refunds stored before it
	// existed have none.
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

type refundLine struct {
	ForeignLineItemID string `json:"foreignLineItemId"`
	Amount            int64  `json:"amount"`
	Name              string `json:"name"`
}
