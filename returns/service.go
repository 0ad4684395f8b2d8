package returns

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/checked"
	"github.com/deliverykit/deliverykit/retention"
	"github.com/deliverykit/deliverykit/storage"
)

// StatusPagePath is the path of the customer status page; the page of a
// return is StatusPagePath + token. httpapi serves it there, and Options.
// PublicURL is put in front of it to make a return's statusUrl.
const StatusPagePath = "/returns/customer/return/"

// Options configures a Service. Every field has a default.
type Options struct {
	// Clock stamps createdAt and inspection times. Default: the system
	// clock.
	Clock deliverykit.Clock
	// IDs makes the status-page tokens. Default: deliverykit.RandomIDs{};
	// tokens must be unguessable in production.
	IDs deliverykit.IDSource
	// Policies gives each site's return policy. Default: none, so every
	// site gets free returns without a time limit.
	Policies Policies
	// PublicURL is the scheme and host customers reach the status page at,
	// e.g. "https://returns.example.com". Default: none, so statusUrl is
	// the bare path.
	PublicURL string
	// LabelPDFs renders the labels of booked return parcels for the
	// status page (shipment.Service is one). Return parcels themselves
	// are asked for by event (event.ReturnShipmentRequested) for sites
	// whose policy names a ReturnProduct, and recorded by
	// HandleParcelBooked. Default: none, so no label PDF is served.
	LabelPDFs LabelPDFs
	// DropOffs finds the return carrier's drop-off points near the
	// customer for the status page. Default: none, so none are shown.
	DropOffs DropOffs
	// Logger receives what cannot be returned to a caller: drop-off
	// points that could not be found for a status page. Default:
	// slog.Default().
	Logger *slog.Logger
	// StatusLinkLifetime is how long a return's status page link works
	// after it was made (when the return was created, or when
	// RenewStatusLink replaced it). An expired link shows a page saying so,
	// never the return. Default DefaultStatusLinkLifetime.
	StatusLinkLifetime time.Duration
	// RefundExecutor pays refunds out: new refund transactions are
	// PENDING and HandleRefundChanged (an outbox consumer) executes them.
	// Default: none, so refunds are AWAITING_EXTERNAL_REFUND until the
	// merchant reports them. An executor with a SetReporter method (as
	// DemoRefunds) is given the new Service, to report late outcomes to.
	RefundExecutor RefundExecutor
	// Reasons gives each site's return and complaint reasons. Default:
	// Policies when it implements Reasons (CatalogPolicies does), else
	// none, so customers give reasons in their own words only.
	Reasons Reasons
	// Blobs keeps complaint photos. Default: a MemoryBlobs, lost at exit;
	// servers pass a FileBlobs (or StoreBlobs).
	Blobs Blobs
	// ImageURLSecret signs complaint photo download URLs (HMAC-SHA256;
	// at least 32 random bytes). Every server of a deployment needs the
	// same secret. Default: a random secret, so URLs work only in this
	// process.
	ImageURLSecret []byte
	// ImageURLLifetime is how long a photo's download URL works.
	// Default DefaultImageURLLifetime.
	ImageURLLifetime time.Duration
	// Retention is how long a return is kept after its last change, with
	// its refunds, complaint photos and status links (retention.go);
	// retention.Never keeps returns forever. Default
	// retention.DefaultReturns (730 days).
	Retention time.Duration
}

// DefaultStatusLinkLifetime is how long a status page link works: a return
// takes weeks to ship back, inspect and refund, and customers look at the
// page until the money has arrived, or later when they dispute a card
// payment (which card schemes allow for about 120 days). Past half a year
// an old link in a mailbox should no longer show what was returned.
const DefaultStatusLinkLifetime = 180 * 24 * time.Hour

// Service is the returns area: orders, returns, inspections and refund
// transactions of every site, kept in one store. It is safe for concurrent
// use.
type Service struct {
	store        storage.Store
	clock        deliverykit.Clock
	ids          deliverykit.IDSource
	policies     Policies
	publicURL    string
	linkLifetime time.Duration
	labelPDFs    LabelPDFs
	dropOffs     DropOffs
	log          *slog.Logger
	executor     RefundExecutor

	orders  ranked[orderRecord]
	returns ranked[returnRecord]
	refunds ranked[refundRecord]
	// summaries are the kept renderings of ListReturnsRendered.
	summaries summaryCache

	reasons       Reasons
	blobs         Blobs
	signer        urlSigner
	imageLifetime time.Duration

	retention time.Duration
	// backfilled is Sweep's first-sweep backfill (retention.go).
	backfilled retention.Once
}

// New returns a Service keeping its state in store.
func New(store storage.Store, opts Options) *Service {
	s := &Service{
		store:        store,
		clock:        opts.Clock,
		ids:          opts.IDs,
		policies:     opts.Policies,
		publicURL:    strings.TrimRight(opts.PublicURL, "/"),
		linkLifetime: cmp.Or(max(opts.StatusLinkLifetime, 0), DefaultStatusLinkLifetime),
		labelPDFs:    opts.LabelPDFs,
		dropOffs:     opts.DropOffs,
		log:          cmp.Or(opts.Logger, slog.Default()),
		executor:     opts.RefundExecutor,
		retention:    opts.Retention,
		orders: ranked[orderRecord]{coll: ordersColl, ranks: orderRanks,
			id: func(o orderRecord) uint64 { return o.ID }, created: func(o orderRecord) time.Time { return o.CreatedAt }},
		returns: ranked[returnRecord]{coll: returnsColl, ranks: returnRanks, firsts: &returnFirsts,
			id: func(r returnRecord) uint64 { return r.ID }, created: func(r returnRecord) time.Time { return r.CreatedAt }},
		refunds: ranked[refundRecord]{coll: refundsColl, ranks: refundRanks, firsts: &refundFirsts,
			id: func(r refundRecord) uint64 { return r.ID }, created: func(r refundRecord) time.Time { return r.CreatedAt }},
	}
	if s.clock == nil {
		s.clock = deliverykit.SystemClock{}
	}
	s.reasons = opts.Reasons
	if r, ok := opts.Policies.(Reasons); ok && s.reasons == nil {
		s.reasons = r
	}
	s.blobs = cmp.Or[Blobs](opts.Blobs, &MemoryBlobs{})
	s.signer = urlSigner{key: opts.ImageURLSecret}
	if len(s.signer.key) == 0 {
		s.signer.key = newImageSecret()
	}
	s.imageLifetime = cmp.Or(max(opts.ImageURLLifetime, 0), DefaultImageURLLifetime)
	s.summaries.Budget = SummaryCacheBytes
	if s.ids == nil {
		s.ids = deliverykit.RandomIDs{}
	}
	// An executor that settles later (DemoRefunds with a delay) reports
	// its outcomes to the service it pays out for.
	if r, ok := opts.RefundExecutor.(interface{ SetReporter(RefundReporter) }); ok {
		r.SetReporter(s)
	}
	return s
}

// now is the clock's time in UTC at the precision the wire shows, so that
// what is stored, listed and filtered by afterDate is the same instant.
func (s *Service) now() time.Time { return s.clock.Now().UTC().Truncate(time.Microsecond) }

func orderKey(site string, id uint64) string { return storage.Key(site, storage.Uint64Key(id)) }

func notFound(what string) error { return deliverykit.E(deliverykit.KindNotFound, what+" not found") }

// ImportOrder records an order a customer may later return (the extension
// endpoint POST /merchant/order, or the caller's wiring of orders completed
// at checkout). foreignId is unique per site: importing it again is a
// Conflict.
func (s *Service) ImportOrder(ctx context.Context, site string, in OrderInput) (Order, error) {
	if err := checkStruct(in); err != nil {
		return Order{}, err
	}
	if hasNUL(in.ForeignID) || hasNUL(in.ForeignName) {
		return Order{}, deliverykit.InvalidField("foreignId", "printable", "foreignId and foreignName must not contain NUL characters")
	}
	code, scale, err := currencyScale(in.CurrencyCode, "currencyCode")
	if err != nil {
		return Order{}, err
	}
	rec, vs := newOrder(in, code, scale, s.now())
	if len(vs) > 0 {
		return Order{}, deliverykit.Invalid(vs...)
	}
	err = s.store.Update(ctx, func(tx storage.Tx) error {
		return s.insertOrder(tx, site, rec)
	})
	if err != nil {
		return Order{}, err
	}
	// Read back in a View: the detail is assembled from what was stored.
	var out Order
	err = s.store.View(ctx, func(tx storage.Tx) error {
		it, err := s.lookupOrder(tx, site, in.ForeignID, IDForeign)
		if err != nil {
			return err
		}
		out, err = s.orderView(tx, site, it.Value)
		return err
	})
	return out, err
}

// newOrder builds the record of an imported order from the merchant's
// input, its amounts parsed in minor units of the currency (code, with
// scale decimals), or answers every violation: amounts that do not parse
// or are negative, tax above the price, a line id used twice, and an order
// whose value (Σ price × quantity + shipping) does not fit, since every
// refund is a part of it.
func newOrder(in OrderInput, code string, scale int, now time.Time) (orderRecord, []deliverykit.FieldViolation) {
	rec := orderRecord{
		ForeignID: in.ForeignID, ForeignName: in.ForeignName, ForeignNumber: in.ForeignNumber,
		Currency: code, Scale: scale, Email: in.Email, CreatedAt: now,
		Locale: in.Locale, Address: in.DeliveryAddress,
	}
	var vs []deliverykit.FieldViolation
	addErr := func(err error) {
		if err != nil {
			vs = append(vs, deliverykit.ViolationsOf(err)...)
		}
	}
	var err error
	rec.Shipping, err = parseMinor(in.ShippingAmount, scale, "shippingAmount")
	addErr(err)
	if rec.Shipping < 0 {
		vs = append(vs, deliverykit.FieldViolation{Field: "shippingAmount", Rule: "gte", Message: "must not be negative"})
	}
	seen := map[string]bool{}
	var value checked.Sum[int64]
	value.Add(max(rec.Shipping, 0))
	for i, it := range in.Items {
		p := "items[" + strconv.Itoa(i) + "]"
		if seen[it.ForeignLineItemID] {
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".foreignLineItemId", Rule: "unique", Message: "is used by an earlier line"})
		}
		seen[it.ForeignLineItemID] = true
		price, perr := parseMinor(it.PurchasePriceAmount.Amount, scale, p+".purchasePriceAmount.amount")
		addErr(perr)
		tax, terr := parseMinor(it.PurchasePriceAmount.ItemTax, scale, p+".purchasePriceAmount.itemTax")
		addErr(terr)
		if perr == nil && terr == nil && (price < 0 || tax < 0 || tax > price) {
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".purchasePriceAmount", Rule: "range", Message: "amount and itemTax must not be negative and itemTax must not exceed amount"})
		}
		if value.AddProduct(max(price, 0), int64(it.Quantity)); value.Overflowed() == i+1 {
			vs = append(vs, deliverykit.FieldViolation{Field: p + ".quantity", Rule: checked.Rule,
				Message: "makes the order's value (price × quantity over the items plus shipping) larger than an amount can be"})
		}
		rec.Lines = append(rec.Lines, orderLine{
			ID: uint64(i + 1), ForeignLineItemID: it.ForeignLineItemID, SKU: it.SKU,
			ProductTitle: it.ProductTitle, VariantTitle: it.VariantTitle,
			Quantity: it.Quantity, Price: price, Tax: tax,
			ForeignProductID: it.ForeignProductID, ForeignVariantID: it.ForeignVariantID, Properties: it.Properties,
		})
		rec.Lines[len(rec.Lines)-1].ExchangeSKUs = exchangeSKUs(it)
	}
	return rec, vs
}

// insertOrder gives rec the site's next order id and stores it with its
// indexes: foreign id (unique: a second import is a Conflict naming
// foreignId, and the entry carries the e-mail digest customers are checked
// against), foreign number and foreign name.
func (s *Service) insertOrder(tx storage.Tx, site string, rec orderRecord) error {
	id, rank, err := s.orders.next(tx, site)
	if err != nil {
		return err
	}
	rec.ID, rec.Rank = id, rank
	if _, err := orderByForeignID.Put(tx, storage.Key(site, rec.ForeignID), idRecord{ID: id, EmailDigest: emailDigest(rec.Email)}, storage.MustNotExist()); err != nil {
		if errors.Is(err, deliverykit.ErrConflict) {
			return &deliverykit.Error{Kind: deliverykit.KindConflict, Message: "an order with this foreignId already exists",
				Violations: []deliverykit.FieldViolation{{Field: "foreignId", Rule: "unique", Message: "is already imported"}}}
		}
		return err
	}
	if rec.ForeignNumber != 0 {
		if _, err := orderByForeignNum.Put(tx, storage.Key(site, storage.Uint64Key(uint64(rec.ForeignNumber)), storage.Uint64Key(id)), idRecord{ID: id}, storage.AnyVersion); err != nil {
			return err
		}
	}
	if rec.ForeignName != "" {
		if _, err := orderByForeignName.Put(tx, storage.Key(site, rec.ForeignName, storage.Uint64Key(id)), idRecord{ID: id}, storage.AnyVersion); err != nil {
			return err
		}
	}
	return s.orders.insert(tx, site, id, rec.Rank, rec)
}

// ForeignName and ForeignID keys must not contain storage.KeySep; they come
// from merchants, so a NUL byte is refused rather than breaking the key.
func hasNUL(s string) bool { return strings.Contains(s, storage.KeySep) }

// lookupOrder finds an order of the site by an identifier of the given type.
func (s *Service) lookupOrder(tx storage.Tx, site, ref string, typ IDType) (storage.Item[orderRecord], error) {
	var id uint64
	switch typ {
	case IDService, "":
		n, err := strconv.ParseUint(ref, 10, 64)
		if err != nil {
			return storage.Item[orderRecord]{}, deliverykit.InvalidField("orderId", "type", "must be an integer with idType SERVICE_ID")
		}
		id = n
	case IDForeign:
		it, err := orderByForeignID.Get(tx, storage.Key(site, ref))
		if err != nil {
			return storage.Item[orderRecord]{}, notFoundOr(err, "order")
		}
		id = it.Value.ID
	case IDForeignNumber, IDForeignName:
		coll, part := orderByForeignName, ref
		if typ == IDForeignNumber {
			n, err := strconv.ParseUint(ref, 10, 63)
			if err != nil {
				return storage.Item[orderRecord]{}, deliverykit.InvalidField("orderId", "type", "must be an integer with idType FOREIGN_NUMBER")
			}
			coll, part = orderByForeignNum, storage.Uint64Key(n)
		}
		found := false
		for it, err := range coll.Scan(tx, storage.Range{Prefix: storage.KeyPrefix(site, part), Limit: 1}) {
			if err != nil {
				return storage.Item[orderRecord]{}, err
			}
			id, found = it.Value.ID, true
		}
		if !found {
			return storage.Item[orderRecord]{}, notFound("order")
		}
	default:
		return storage.Item[orderRecord]{}, deliverykit.InvalidField("idType", "oneof", "must be SERVICE_ID, FOREIGN_ID, FOREIGN_NUMBER or FOREIGN_NAME")
	}
	it, err := ordersColl.Get(tx, orderKey(site, id))
	if err != nil {
		return it, notFoundOr(err, "order")
	}
	return it, nil
}

// notFoundOr turns a storage not-found into the area's message and keeps
// other errors.
func notFoundOr(err error, what string) error {
	if errors.Is(err, deliverykit.ErrNotFound) {
		return notFound(what)
	}
	return err
}

// GetOrder returns an order detail. ref is read as typ (SERVICE_ID when
// empty); FOREIGN_NUMBER and FOREIGN_NAME need not be unique, and the
// oldest order carrying the value is returned.
func (s *Service) GetOrder(ctx context.Context, site, ref string, typ IDType) (Order, error) {
	if hasNUL(ref) {
		return Order{}, notFound("order")
	}
	var out Order
	err := s.store.View(ctx, func(tx storage.Tx) error {
		it, err := s.lookupOrder(tx, site, ref, typ)
		if err != nil {
			return err
		}
		out, err = s.orderView(tx, site, it.Value)
		return err
	})
	return out, err
}

// GetReturn returns a return detail.
func (s *Service) GetReturn(ctx context.Context, site string, id uint64) (Return, error) {
	var out Return
	err := s.store.View(ctx, func(tx storage.Tx) error {
		r, err := returnsColl.Get(tx, orderKey(site, id))
		if err != nil {
			return notFoundOr(err, "return")
		}
		o, err := ordersColl.Get(tx, orderKey(site, r.Value.OrderID))
		if err != nil {
			return err
		}
		out, err = s.returnView(tx, site, o.Value, r.Value)
		return err
	})
	return out, err
}

// ReturnByToken returns the site and detail of the return whose status
// page token is token: what the public status page shows. An unknown token
// is NotFound; an expired or replaced one is NotFound with
// ErrStatusLinkExpired as its cause.
func (s *Service) ReturnByToken(ctx context.Context, token string) (string, Return, error) {
	now := s.now()
	var site string
	var out Return
	err := s.store.View(ctx, func(tx storage.Tx) error {
		var r returnRecord
		var err error
		site, r, err = s.byToken(tx, token, now)
		if err != nil {
			return err
		}
		o, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		out, err = s.returnView(tx, site, o.Value, r)
		return err
	})
	return site, out, err
}

// byToken finds the site and return of a status page token: NotFound for
// an unknown token, NotFound with ErrStatusLinkExpired as its cause for
// an expired or replaced one.
func (s *Service) byToken(tx storage.Tx, token string, now time.Time) (string, returnRecord, error) {
	if token == "" || hasNUL(token) {
		return "", returnRecord{}, notFound("return")
	}
	t, err := returnByToken.Get(tx, token)
	if err != nil {
		return "", returnRecord{}, notFoundOr(err, "return")
	}
	site := t.Value.Site
	r, err := returnsColl.Get(tx, orderKey(site, t.Value.ReturnID))
	if err != nil {
		return "", returnRecord{}, err
	}
	if !now.Before(s.linkExpiry(t.Value, r.Value)) {
		return "", returnRecord{}, errStatusLinkExpired()
	}
	return site, r.Value, nil
}

// orderSortFields are the order properties sort accepts.
var orderSortFields = []string{"id", "createdAt", "foreignId", "foreignNumber", "foreignName"}

// ListOrders returns a page of the site's order summaries.
func (s *Service) ListOrders(ctx context.Context, site string, pr PageRequest) (Page[OrderSummary], error) {
	w, err := newWindow(pr, orderSortFields)
	if err != nil {
		return Page[OrderSummary]{}, err
	}
	var rows []orderRecord
	var total int64
	err = s.store.View(ctx, func(tx storage.Tx) error {
		rows, total, err = s.orders.list(tx, site, w, nil, func(o orderRecord, f string) (string, int64, time.Time) {
			switch f {
			case "createdAt":
				return "", 0, o.CreatedAt
			case "foreignId":
				return o.ForeignID, 0, time.Time{}
			case "foreignNumber":
				return "", o.ForeignNumber, time.Time{}
			case "foreignName":
				return o.ForeignName, 0, time.Time{}
			}
			return "", int64(o.ID), time.Time{}
		})
		return err
	})
	if err != nil {
		return Page[OrderSummary]{}, err
	}
	content := make([]OrderSummary, len(rows))
	for i, o := range rows {
		content[i] = orderSummary(o)
	}
	return envelope(w, content, total), nil
}

// returnSortFields are the return properties sort accepts.
var returnSortFields = []string{"id", "createdAt", "status"}

// ListReturns returns a page of the site's return summaries.
func (s *Service) ListReturns(ctx context.Context, site string, pr PageRequest) (Page[ReturnSummary], error) {
	w, err := newWindow(pr, returnSortFields)
	if err != nil {
		return Page[ReturnSummary]{}, err
	}
	var content []ReturnSummary
	var total int64
	err = s.store.View(ctx, func(tx storage.Tx) error {
		rows, n, err := s.returns.list(tx, site, w, nil, func(r returnRecord, f string) (string, int64, time.Time) {
			switch f {
			case "createdAt":
				return "", 0, r.CreatedAt
			case "status":
				return string(r.Status), 0, time.Time{}
			}
			return "", int64(r.ID), time.Time{}
		})
		if err != nil {
			return err
		}
		total = n
		content = make([]ReturnSummary, len(rows))
		orders := map[uint64]OrderSummary{} // of returns stored without one
		for i, r := range rows {
			if content[i], err = s.summary(tx, site, r, orders); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Page[ReturnSummary]{}, err
	}
	return envelope(w, content, total), nil
}

// summary is r's row of a page. A return stored without its order's
// summary reads the order, once per page: orders holds those read.
func (s *Service) summary(tx storage.Tx, site string, r returnRecord, orders map[uint64]OrderSummary) (ReturnSummary, error) {
	var o OrderSummary
	switch sum, ok := orders[r.OrderID]; {
	case r.Order != nil:
		o = OrderSummary{ID: r.OrderID, ForeignID: r.Order.ForeignID, CreatedAt: Timestamp(r.Order.CreatedAt)}
	case ok:
		o = sum
	default:
		it, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return ReturnSummary{}, err
		}
		o = orderSummary(it.Value)
		orders[r.OrderID] = o
	}
	return ReturnSummary{ID: r.ID, CreatedAt: Timestamp(r.CreatedAt), Status: r.Status, StatusURL: s.statusURL(r.Token), Order: o}, nil
}

func (s *Service) statusURL(token string) string { return s.publicURL + StatusPagePath + token }

// emailDigest is the SHA-256 of an e-mail address without surrounding
// space, in lower case: what the customer return compares, so that the
// comparison takes the same time whatever the addresses' lengths.
func emailDigest(email string) []byte {
	h := sha256.New()
	h.Write([]byte("deliverykit/returns e-mail\x00"))
	h.Write([]byte(strings.ToLower(strings.TrimSpace(email))))
	return h.Sum(nil)
}

// missingOrderIndex is what the customer return decodes when no order has
// the foreign id: an index record of the same shape and size as a real
// one, so that an unknown order costs what a known one does.
var missingOrderIndex = func() []byte {
	b, err := json.Marshal(idRecord{ID: 1, EmailDigest: emailDigest("")})
	if err != nil {
		panic(err)
	}
	return b
}()
