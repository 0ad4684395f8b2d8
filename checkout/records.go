package checkout

import (
	"encoding/json"
	"fmt"
	"time"

	gojson "github.com/goccy/go-json"

	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/internal/stored"
	"github.com/deliverykit/deliverykit/options"
)

// Stored sessions. A session is stored as a storedSession, whose types
// below name their JSON fields themselves: changing a wire type's tags, or
// the catalog's, changes no stored byte. views.go converts between them
// and the record the service works with.
//
// Schemas:
//   - 1: records without a schema field. Their layout is schema 2's: the
//     record types took the names the wire and catalog types had when
//     those records were written (the cart, customer, addresses and the
//     options' address were stored as those types then). The first of
//     them (before options inputs, see record.Options) stored the options
//     themselves under "options", as the options engine encodes its
//     Result, and no inputs.
//   - 2: a schema field; every record has its options' inputs.
//   - 3: the addresses the shopper entered in the widget
//     (delivery_address, billing_address) and whether the widget collects
//     them (collect_addresses). A schema 2 record has none and reads as
//     it did; the number changes so that a release before addresses
//     refuses a record that holds them instead of dropping them at its
//     next write.
//   - 4: shipping dates are objects (shippingDateRecord, "ship_date") on
//     the cart and its items, the cart keeps its attributes and the
//     options' inputs when the goods are ready. An item's
//     "shipping_date" of an earlier schema, a timestamp, becomes a date
//     starting and ending then. And the session's snippet_configuration
//     (the names of its widget's container and global): a schema 3
//     record has none, and its snippet uses the defaults, as it did.
//
// A change of a stored name or meaning needs a new schema number and a
// step in upgradeSession.
const sessionSchema = 4

// sessions holds the sessions, keyed by site and session id. Every read
// goes through upgradeSession.
var sessions = stored.Collection[record, storedSession]{Name: "checkout.sessions", Record: storeSession, Value: loadStoredSession}

// storedSession is a session as stored.
type storedSession struct {
	Schema            int                   `json:"schema"`
	ID                string                `json:"id"`
	Site              string                `json:"site"`
	Status            Status                `json:"status"`
	Country           string                `json:"country"`
	Currency          string                `json:"currency"`
	Locales           []string              `json:"locales,omitempty"`
	Cart              cartRecord            `json:"cart"`
	SearchAddress     *searchAddressRecord  `json:"search_address,omitempty"`
	Customer          *customerRecord       `json:"customer,omitempty"`
	SearchCoordinates *coordinatesRecord    `json:"search_coordinates,omitempty"`
	ExternalID        string                `json:"external_id,omitempty"`
	Meta              map[string]string     `json:"meta,omitempty"`
	Origin            string                `json:"origin,omitempty"`
	CollectAddresses  bool                  `json:"collect_addresses,omitempty"`
	DeliveryAddress   *shopperAddressRecord `json:"delivery_address,omitempty"`
	BillingAddress    *shopperAddressRecord `json:"billing_address,omitempty"`
	OptionsInput      *inputRecord          `json:"options_input,omitempty"`
	// FirstOptions are the options the first record format stored in
	// place of inputs: read by upgradeSession, never written.
	FirstOptions  json.RawMessage `json:"options,omitempty"`
	OptionsFor    addressRecord   `json:"options_for"`
	Choice        string          `json:"choice,omitempty"`
	Addons        []string        `json:"addons,omitempty"`
	ChoiceDropped bool            `json:"choice_dropped,omitempty"`
	TosID         string          `json:"tos_id,omitempty"`
	WidgetToken   string          `json:"widget_token"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
	ExpiresAt     time.Time       `json:"expires_at"`
	CompletedAt   time.Time       `json:"completed_at,omitzero"`
	Revision      int             `json:"revision"`
	// Snippet is nil for the default names.
	Snippet *snippetRecord `json:"snippet_configuration,omitempty"`

	// options are FirstOptions decoded by upgradeSession.
	options *options.Result
}

// upgradeSession brings a record of an earlier schema to sessionSchema.
// A schema 1 record that stored its options keeps them, decoded, for the
// session's reads; they are not its inputs, so its next change computes
// options afresh (record.optionsExpired) and writes inputs.
func upgradeSession(r *storedSession) error {
	if err := stored.CheckSchema("checkout session", r.Schema, sessionSchema); err != nil {
		return err
	}
	if r.Schema < 2 {
		if r.OptionsInput == nil && len(r.FirstOptions) > 0 {
			r.options = new(options.Result)
			if err := gojson.Unmarshal(r.FirstOptions, r.options); err != nil {
				return fmt.Errorf("checkout session %s: the stored options: %w", r.ID, err)
			}
		}
		r.FirstOptions = nil
		r.Schema = 2
	}
	if r.Schema < 3 {
		r.Schema = 3 // no addresses yet: nothing else changes
	}
	if r.Schema < 4 {
		for i := range r.Cart.Items {
			it := &r.Cart.Items[i]
			if t := it.LegacyShippingDate; t != nil {
				it.ShippingDate = &shippingDateRecord{Start: t, End: clonePtr(t)}
			}
			it.LegacyShippingDate = nil
		}
		r.Schema = 4
	}
	return nil
}

// snippetRecord is a session's SnippetConfiguration.
type snippetRecord struct {
	ContainerID string `json:"container_id,omitempty"`
	ObjectID    string `json:"object_id,omitempty"`
}

// snippetRecordOf is nil for the defaults, which records need not hold.
func snippetRecordOf(c SnippetConfiguration) *snippetRecord {
	if c == (SnippetConfiguration{}) {
		return nil
	}
	return &snippetRecord{ContainerID: c.ContainerID, ObjectID: c.ObjectID}
}

func (r *snippetRecord) configuration() SnippetConfiguration {
	if r == nil {
		return SnippetConfiguration{}
	}
	return SnippetConfiguration{ContainerID: r.ContainerID, ObjectID: r.ObjectID}
}

type cartRecord struct {
	CartID        string           `json:"cart_id,omitempty"`
	TotalValue    int64            `json:"total_value,omitempty"`
	TotalDiscount int64            `json:"total_discount,omitempty"`
	Currency      string           `json:"currency,omitempty"`
	PreOrder      bool             `json:"pre_order,omitempty"`
	Vouchers      []string         `json:"vouchers,omitempty"`
	Voucher       string           `json:"voucher,omitempty"`
	Items         []cartItemRecord `json:"items,omitempty"`
	// Attributes and ShippingDate: schema 4.
	Attributes   []string            `json:"attributes,omitempty"`
	ShippingDate *shippingDateRecord `json:"ship_date,omitempty"`
}

type cartItemRecord struct {
	SKU          string                `json:"sku,omitempty"`
	Name         string                `json:"name,omitempty"`
	Attributes   []string              `json:"attributes,omitempty"`
	OutOfStock   bool                  `json:"out_of_stock,omitempty"`
	Quantity     int64                 `json:"quantity,omitempty"`
	Price        int64                 `json:"price,omitempty"`
	Discount     int64                 `json:"discount,omitempty"`
	Image        string                `json:"image,omitempty"`
	Weight       int64                 `json:"weight,omitempty"`
	Dimensions   *itemDimensionsRecord `json:"dimensions,omitempty"`
	ShippingDate *shippingDateRecord   `json:"ship_date,omitempty"`
	// LegacyShippingDate is the timestamp records of schema 3 and before
	// stored in place of ShippingDate: read by upgradeSession, never
	// written.
	LegacyShippingDate *time.Time `json:"shipping_date,omitempty"`
}

// shippingDateRecord is a stored ShippingDate.
type shippingDateRecord struct {
	Start        *time.Time          `json:"start,omitempty"`
	End          *time.Time          `json:"end,omitempty"`
	CategoryTags []shippingTagRecord `json:"category_tags,omitempty"`
}

type shippingTagRecord struct {
	Name  string     `json:"name"`
	Start *time.Time `json:"start,omitempty"`
	End   *time.Time `json:"end,omitempty"`
}

func shippingDateRecordOf(d ShippingDate) shippingDateRecord {
	return shippingDateRecord{Start: clonePtr(d.Start), End: clonePtr(d.End),
		CategoryTags: stored.Slice(d.CategoryTags, func(t ShippingDateTag) shippingTagRecord {
			r := shippingTagRecord{Name: t.Name}
			if t.ShippingDate != nil {
				r.Start, r.End = clonePtr(t.ShippingDate.Start), clonePtr(t.ShippingDate.End)
			}
			return r
		})}
}

func (d shippingDateRecord) wire() ShippingDate {
	return ShippingDate{Start: clonePtr(d.Start), End: clonePtr(d.End),
		CategoryTags: stored.Slice(d.CategoryTags, func(t shippingTagRecord) ShippingDateTag {
			w := ShippingDateTag{Name: t.Name}
			if t.Start != nil || t.End != nil {
				w.ShippingDate = &DateRange{Start: clonePtr(t.Start), End: clonePtr(t.End)}
			}
			return w
		})}
}

// itemDimensionsRecord are a cart item's millimetres.
type itemDimensionsRecord struct {
	Height int64 `json:"height,omitempty"`
	Length int64 `json:"length,omitempty"`
	Width  int64 `json:"width,omitempty"`
}

type searchAddressRecord struct {
	PostalCode   string             `json:"postal_code,omitempty"`
	Country      string             `json:"country,omitempty"`
	Region       string             `json:"region,omitempty"`
	City         string             `json:"city,omitempty"`
	AddressLines []string           `json:"address_lines,omitempty"`
	Coordinates  *coordinatesRecord `json:"coordinates,omitempty"`
}

type coordinatesRecord struct {
	Lat float64 `json:"lat"`
	Lng float64 `json:"lng"`
}

type customerRecord struct {
	Email   string                 `json:"email,omitempty"`
	Phone   string                 `json:"phone,omitempty"`
	Address *customerAddressRecord `json:"address,omitempty"`
}

type customerAddressRecord struct {
	Name            string             `json:"name,omitempty"`
	AddressLines    []string           `json:"address_lines,omitempty"`
	Street          string             `json:"street,omitempty"`
	StreetNumber    string             `json:"street_number,omitempty"`
	ApartmentNumber string             `json:"apartment_number,omitempty"`
	City            string             `json:"city,omitempty"`
	PostalCode      string             `json:"postal_code,omitempty"`
	Region          string             `json:"region,omitempty"`
	Country         string             `json:"country,omitempty"`
	CareOf          string             `json:"care_of,omitempty"`
	Attn            string             `json:"attn,omitempty"`
	DoorCode        string             `json:"door_code,omitempty"`
	Coordinates     *coordinatesRecord `json:"coordinates,omitempty"`
}

// shopperAddressRecord is an address the shopper entered in the widget:
// a delivery address, or a billing address (which alone has vat and
// vat_type).
type shopperAddressRecord struct {
	FirstName       string             `json:"first_name,omitempty"`
	LastName        string             `json:"last_name,omitempty"`
	CompanyName     string             `json:"company_name,omitempty"`
	Street          string             `json:"street,omitempty"`
	StreetNumber    string             `json:"street_number,omitempty"`
	ApartmentNumber string             `json:"apartment_number,omitempty"`
	AddressLines    []string           `json:"address_lines,omitempty"`
	City            string             `json:"city,omitempty"`
	PostalCode      string             `json:"postal_code,omitempty"`
	Region          string             `json:"region,omitempty"`
	Country         string             `json:"country,omitempty"`
	Email           string             `json:"email,omitempty"`
	Phone           string             `json:"phone,omitempty"`
	PhoneCountry    string             `json:"phone_country,omitempty"`
	CareOf          string             `json:"care_of,omitempty"`
	Attn            string             `json:"attn,omitempty"`
	ExternalID      string             `json:"external_id,omitempty"`
	Coordinates     *coordinatesRecord `json:"coordinates,omitempty"`
	DoorCode        string             `json:"door_code,omitempty"`
	VAT             string             `json:"vat,omitempty"`
	VATType         string             `json:"vat_type,omitempty"`
}

// inputRecord is what the options were computed from (optionsInput).
type inputRecord struct {
	Currency    string                   `json:"currency"`
	Locales     []string                 `json:"locales,omitempty"`
	CartValue   int64                    `json:"cart_value"`
	Attributes  []string                 `json:"attributes,omitempty"`
	Vouchers    []string                 `json:"vouchers,omitempty"`
	Quantities  []int                    `json:"quantities,omitempty"`
	Weights     []int                    `json:"weights,omitempty"`
	Dimensions  []*inputDimensionsRecord `json:"dimensions,omitempty"`
	At          time.Time                `json:"at"`
	Coordinates *coordinatesRecord       `json:"coordinates,omitempty"`
	// ReadyAt and TagReady: schema 4.
	ReadyAt  *time.Time           `json:"ready_at,omitempty"`
	TagReady map[string]time.Time `json:"tag_ready,omitempty"`
}

// inputDimensionsRecord are an item's millimetres as the options engine
// took them.
type inputDimensionsRecord struct {
	Height int `json:"height"`
	Length int `json:"length"`
	Width  int `json:"width"`
}

// addressRecord is the address the options are for.
type addressRecord struct {
	Name         string             `json:"name,omitempty"`
	AddressLines []string           `json:"address_lines,omitempty"`
	City         string             `json:"city,omitempty"`
	PostalCode   string             `json:"postal_code,omitempty"`
	RegionCode   string             `json:"region_code,omitempty"`
	Country      string             `json:"country"`
	Coordinates  *coordinatesRecord `json:"coordinates,omitempty"`
}

// The conversions between the stored records and the record the service
// works with. Times are stored as given: the service's clock readings,
// which the record keeps.

// storeSession is the record that stores r. Options are not stored: their
// inputs are (see record.Options).
func storeSession(r *record) storedSession {
	return storedSession{
		Schema: sessionSchema, ID: r.ID, Site: r.Site, Status: r.Status, Country: r.Country, Currency: r.Currency, Locales: r.Locales,
		Cart: cartRecordOf(r.Cart), SearchAddress: stored.Ptr(r.SearchAddress, searchAddressRecordOf), Customer: stored.Ptr(r.Customer, customerRecordOf),
		SearchCoordinates: stored.Ptr(r.SearchCoordinates, coordinatesRecordOf), ExternalID: r.ExternalID, Meta: r.Meta, Origin: r.Origin,
		CollectAddresses: r.CollectAddresses, DeliveryAddress: stored.Ptr(r.DeliveryAddress, deliveryAddressRecordOf),
		BillingAddress: stored.Ptr(r.BillingAddress, billingAddressRecordOf),
		OptionsInput:   stored.Ptr(r.OptionsInput, inputRecordOf), OptionsFor: addressRecordOf(r.OptionsFor),
		Choice: r.Choice, Addons: r.Addons, ChoiceDropped: r.ChoiceDropped, TosID: r.TosID, WidgetToken: r.WidgetToken,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt, CompletedAt: r.CompletedAt, Revision: r.Revision,
		Snippet: snippetRecordOf(r.Snippet),
	}
}

// loadStoredSession upgrades a stored session and returns what it holds.
// Its options are computed by the caller (restoreOptions), except those a
// record of the first format stored.
func loadStoredSession(r *storedSession) (record, error) {
	if err := upgradeSession(r); err != nil {
		return record{}, err
	}
	return record{
		ID: r.ID, Site: r.Site, Status: r.Status, Country: r.Country, Currency: r.Currency, Locales: r.Locales,
		Cart: r.Cart.wire(), SearchAddress: stored.Ptr(r.SearchAddress, searchAddressRecord.wire), Customer: stored.Ptr(r.Customer, customerRecord.wire),
		SearchCoordinates: stored.Ptr(r.SearchCoordinates, coordinatesRecord.wire), ExternalID: r.ExternalID, Meta: r.Meta, Origin: r.Origin,
		CollectAddresses: r.CollectAddresses, DeliveryAddress: stored.Ptr(r.DeliveryAddress, shopperAddressRecord.delivery),
		BillingAddress: stored.Ptr(r.BillingAddress, shopperAddressRecord.billing),
		Options:        r.options, OptionsInput: stored.Ptr(r.OptionsInput, inputRecord.input), OptionsFor: r.OptionsFor.catalog(),
		Choice: r.Choice, Addons: r.Addons, ChoiceDropped: r.ChoiceDropped, TosID: r.TosID, WidgetToken: r.WidgetToken,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, ExpiresAt: r.ExpiresAt, CompletedAt: r.CompletedAt, Revision: r.Revision,
		Snippet: r.Snippet.configuration(),
	}, nil
}

func cartRecordOf(c Cart) cartRecord {
	return cartRecord{CartID: c.CartID, TotalValue: c.TotalValue, TotalDiscount: c.TotalDiscount, Currency: c.Currency, PreOrder: c.PreOrder,
		Vouchers: c.Vouchers, Voucher: c.Voucher, Attributes: c.Attributes, ShippingDate: stored.Ptr(c.ShippingDate, shippingDateRecordOf), Items: stored.Slice(c.Items, func(it CartItem) cartItemRecord {
			return cartItemRecord{SKU: it.SKU, Name: it.Name, Attributes: it.Attributes, OutOfStock: it.OutOfStock, Quantity: it.Quantity,
				Price: it.Price, Discount: it.Discount, Image: it.Image, Weight: it.Weight, ShippingDate: stored.Ptr(it.ShippingDate, shippingDateRecordOf),
				Dimensions: stored.Ptr(it.Dimensions, func(d Dimensions) itemDimensionsRecord { return itemDimensionsRecord(d) })}
		})}
}

func (c cartRecord) wire() Cart {
	return Cart{CartID: c.CartID, TotalValue: c.TotalValue, TotalDiscount: c.TotalDiscount, Currency: c.Currency, PreOrder: c.PreOrder,
		Vouchers: c.Vouchers, Voucher: c.Voucher, Attributes: c.Attributes, ShippingDate: stored.Ptr(c.ShippingDate, shippingDateRecord.wire), Items: stored.Slice(c.Items, func(it cartItemRecord) CartItem {
			return CartItem{SKU: it.SKU, Name: it.Name, Attributes: it.Attributes, OutOfStock: it.OutOfStock, Quantity: it.Quantity,
				Price: it.Price, Discount: it.Discount, Image: it.Image, Weight: it.Weight, ShippingDate: stored.Ptr(it.ShippingDate, shippingDateRecord.wire),
				Dimensions: stored.Ptr(it.Dimensions, func(d itemDimensionsRecord) Dimensions { return Dimensions(d) })}
		})}
}

func searchAddressRecordOf(a SearchAddress) searchAddressRecord {
	return searchAddressRecord{PostalCode: a.PostalCode, Country: a.Country, Region: a.Region, City: a.City, AddressLines: a.AddressLines,
		Coordinates: stored.Ptr(a.Coordinates, coordinatesRecordOf)}
}

func (a searchAddressRecord) wire() SearchAddress {
	return SearchAddress{PostalCode: a.PostalCode, Country: a.Country, Region: a.Region, City: a.City, AddressLines: a.AddressLines,
		Coordinates: stored.Ptr(a.Coordinates, coordinatesRecord.wire)}
}

func coordinatesRecordOf(c Coordinates) coordinatesRecord { return coordinatesRecord(c) }

func (c coordinatesRecord) wire() Coordinates { return Coordinates(c) }

func customerRecordOf(c Customer) customerRecord {
	return customerRecord{Email: c.Email, Phone: c.Phone, Address: stored.Ptr(c.Address, func(a CustomerAddress) customerAddressRecord {
		return customerAddressRecord{Name: a.Name, AddressLines: a.AddressLines, Street: a.Street, StreetNumber: a.StreetNumber,
			ApartmentNumber: a.ApartmentNumber, City: a.City, PostalCode: a.PostalCode, Region: a.Region, Country: a.Country,
			CareOf: a.CareOf, Attn: a.Attn, DoorCode: a.DoorCode, Coordinates: stored.Ptr(a.Coordinates, coordinatesRecordOf)}
	})}
}

func (c customerRecord) wire() Customer {
	return Customer{Email: c.Email, Phone: c.Phone, Address: stored.Ptr(c.Address, func(a customerAddressRecord) CustomerAddress {
		return CustomerAddress{Name: a.Name, AddressLines: a.AddressLines, Street: a.Street, StreetNumber: a.StreetNumber,
			ApartmentNumber: a.ApartmentNumber, City: a.City, PostalCode: a.PostalCode, Region: a.Region, Country: a.Country,
			CareOf: a.CareOf, Attn: a.Attn, DoorCode: a.DoorCode, Coordinates: stored.Ptr(a.Coordinates, coordinatesRecord.wire)}
	})}
}

func inputRecordOf(in optionsInput) inputRecord {
	return inputRecord{Currency: in.Currency, Locales: in.Locales, CartValue: in.CartValue, Attributes: in.Attributes, Vouchers: in.Vouchers,
		Quantities: in.Quantities, Weights: in.Weights, At: in.At, ReadyAt: timeRecordOf(in.ReadyAt), TagReady: in.TagReady,
		Dimensions: stored.Slice(in.Dimensions, func(d *catalog.Dimensions) *inputDimensionsRecord {
			return stored.Ptr(d, func(d catalog.Dimensions) inputDimensionsRecord { return inputDimensionsRecord(d) })
		}),
		Coordinates: stored.Ptr(in.Coordinates, func(c catalog.Coordinates) coordinatesRecord { return coordinatesRecord(c) })}
}

// timeRecordOf is t, or nil for the zero time, which is then not stored.
func timeRecordOf(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// timeOf is what timeRecordOf stored.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func (r inputRecord) input() optionsInput {
	return optionsInput{Currency: r.Currency, Locales: r.Locales, CartValue: r.CartValue, Attributes: r.Attributes, Vouchers: r.Vouchers,
		Quantities: r.Quantities, Weights: r.Weights, At: r.At, ReadyAt: timeOf(r.ReadyAt), TagReady: r.TagReady,
		Dimensions: stored.Slice(r.Dimensions, func(d *inputDimensionsRecord) *catalog.Dimensions {
			return stored.Ptr(d, func(d inputDimensionsRecord) catalog.Dimensions { return catalog.Dimensions(d) })
		}),
		Coordinates: stored.Ptr(r.Coordinates, func(c coordinatesRecord) catalog.Coordinates { return catalog.Coordinates(c) })}
}

func addressRecordOf(a catalog.Address) addressRecord {
	return addressRecord{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, RegionCode: a.RegionCode, Country: a.Country,
		Coordinates: stored.Ptr(a.Coordinates, func(c catalog.Coordinates) coordinatesRecord { return coordinatesRecord(c) })}
}

func (a addressRecord) catalog() catalog.Address {
	return catalog.Address{Name: a.Name, AddressLines: a.AddressLines, City: a.City, PostalCode: a.PostalCode, RegionCode: a.RegionCode, Country: a.Country,
		Coordinates: stored.Ptr(a.Coordinates, func(c coordinatesRecord) catalog.Coordinates { return catalog.Coordinates(c) })}
}

func deliveryAddressRecordOf(a DeliveryAddress) shopperAddressRecord {
	return shopperAddressRecord{FirstName: a.FirstName, LastName: a.LastName, CompanyName: a.CompanyName, Street: a.Street,
		StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber, AddressLines: a.AddressLines, City: a.City,
		PostalCode: a.PostalCode, Region: a.Region, Country: a.Country, Email: a.Email, Phone: a.Phone, PhoneCountry: a.PhoneCountry,
		CareOf: a.CareOf, Attn: a.Attn, ExternalID: a.ExternalID, Coordinates: stored.Ptr(a.Coordinates, coordinatesRecordOf), DoorCode: a.DoorCode}
}

func (r shopperAddressRecord) delivery() DeliveryAddress {
	return DeliveryAddress{FirstName: r.FirstName, LastName: r.LastName, CompanyName: r.CompanyName, Street: r.Street,
		StreetNumber: r.StreetNumber, ApartmentNumber: r.ApartmentNumber, AddressLines: r.AddressLines, City: r.City,
		PostalCode: r.PostalCode, Region: r.Region, Country: r.Country, Email: r.Email, Phone: r.Phone, PhoneCountry: r.PhoneCountry,
		CareOf: r.CareOf, Attn: r.Attn, ExternalID: r.ExternalID, Coordinates: stored.Ptr(r.Coordinates, coordinatesRecord.wire), DoorCode: r.DoorCode}
}

func billingAddressRecordOf(a BillingAddress) shopperAddressRecord {
	return shopperAddressRecord{FirstName: a.FirstName, LastName: a.LastName, CompanyName: a.CompanyName, Street: a.Street,
		StreetNumber: a.StreetNumber, ApartmentNumber: a.ApartmentNumber, AddressLines: a.AddressLines, City: a.City,
		PostalCode: a.PostalCode, Region: a.Region, Country: a.Country, Email: a.Email, Phone: a.Phone, PhoneCountry: a.PhoneCountry,
		CareOf: a.CareOf, Attn: a.Attn, ExternalID: a.ExternalID, Coordinates: stored.Ptr(a.Coordinates, coordinatesRecordOf), DoorCode: a.DoorCode,
		VAT: a.VAT, VATType: a.VATType}
}

func (r shopperAddressRecord) billing() BillingAddress {
	return BillingAddress{FirstName: r.FirstName, LastName: r.LastName, CompanyName: r.CompanyName, Street: r.Street,
		StreetNumber: r.StreetNumber, ApartmentNumber: r.ApartmentNumber, AddressLines: r.AddressLines, City: r.City,
		PostalCode: r.PostalCode, Region: r.Region, Country: r.Country, Email: r.Email, Phone: r.Phone, PhoneCountry: r.PhoneCountry,
		CareOf: r.CareOf, Attn: r.Attn, ExternalID: r.ExternalID, Coordinates: stored.Ptr(r.Coordinates, coordinatesRecord.wire), DoorCode: r.DoorCode,
		VAT: r.VAT, VATType: r.VATType}
}
