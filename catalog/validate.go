package catalog

import (
	"cmp"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
	"golang.org/x/text/currency"
	"golang.org/x/text/language"
)

// Weekdays are the day keys used by Product.Days and PickupLocation.Hours,
// Sunday first like time.Weekday.
var Weekdays = [7]string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

var (
	clockRange = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d-([01]\d|2[0-4]):[0-5]\d$`)
	clockTime  = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	countryRe  = regexp.MustCompile(`^[A-Z]{2}$`)
	regionRe   = regexp.MustCompile(`^[A-Z0-9]{1,3}$`)
	digitsRe   = regexp.MustCompile(`^[0-9]{1,32}$`)
	colorRe    = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)
)

// IsCountry reports whether s is an assigned ISO 3166-1 alpha-2 code
// ("SE"; not "XX", "EU" or "se").
func IsCountry(s string) bool {
	if !countryRe.MatchString(s) {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry()
}

// validator collects violations under a path prefix.
type validator struct {
	validation.Violations
}

func (v *validator) required(field, val string) bool {
	if strings.TrimSpace(val) == "" {
		v.Add(field, "required", "is required")
		return false
	}
	return true
}

// newID requires id at field and refuses one already in seen, where it
// names what the earlier one was ("a carrier id"); it adds id to seen.
func (v *validator) newID(field, id string, seen map[string]bool, what string) {
	if !v.required(field, id) {
		return
	}
	if seen[id] {
		v.Addf(field, "unique", "%q is already "+what, id)
	}
	seen[id] = true
}

func (v *validator) country(field, val string) {
	if v.required(field, val) && !countryRe.MatchString(val) {
		v.Add(field, "iso3166_1_alpha2", "must be an upper-case ISO 3166-1 alpha-2 country code")
		return
	}
	if countryRe.MatchString(val) && !IsCountry(val) {
		v.Addf(field, "iso3166_1_alpha2", "%q is not a known country code", val)
	}
}

func (v *validator) currency(field, val string) {
	if !v.required(field, val) {
		return
	}
	if _, err := currency.ParseISO(val); err != nil || strings.ToUpper(val) != val {
		v.Addf(field, "iso4217", "%q is not an upper-case ISO 4217 currency code", val)
	}
}

func (v *validator) date(field, val string) {
	if _, err := time.Parse(time.DateOnly, val); err != nil {
		v.Add(field, "date", "must be a date like 2026-12-24")
	}
}

func (v *validator) coords(field string, c *Coordinates, required bool) {
	if c == nil {
		if required {
			v.Add(field, "required", "coordinates are required")
		}
		return
	}
	if c.Lat < -90 || c.Lat > 90 {
		v.Add(field+".lat", "range", "must be between -90 and 90")
	}
	if c.Lng < -180 || c.Lng > 180 {
		v.Add(field+".lng", "range", "must be between -180 and 180")
	}
}

func (v *validator) names(field string, names map[string]string, locales map[string]bool, required bool) {
	if len(names) == 0 {
		if required {
			v.Add(field, "required", "at least one display name is required")
		}
		return
	}
	for loc, name := range names {
		if !locales[loc] {
			v.Addf(field+"."+loc, "locale", "%q is not one of the catalog's locales", loc)
		}
		if strings.TrimSpace(name) == "" {
			v.Add(field+"."+loc, "required", "must not be empty")
		}
	}
}

// placeholderRe finds the placeholders of a URL template.
var placeholderRe = regexp.MustCompile(`\{[^{}]*\}`)

// maxTemplateLength bounds a URL template: what it becomes is a URL shown
// to customers, which browsers and mail clients cut beyond a few KiB.
const maxTemplateLength = 1024

// urlTemplate checks an optional URL template: an absolute https URL with
// a host once its placeholders are filled, holding only the placeholders
// listed and, when need is set, that one.
func (v *validator) urlTemplate(field, tpl string, known []string, need string) {
	if tpl == "" {
		return
	}
	if len(tpl) > maxTemplateLength {
		v.Addf(field, "max", "must be at most %d characters long", maxTemplateLength)
		return
	}
	for _, ph := range placeholderRe.FindAllString(tpl, -1) {
		if !slices.Contains(known, ph) {
			v.Addf(field, "placeholder", "%s is not a placeholder; use %s", ph, strings.Join(known, ", "))
			return
		}
	}
	if need != "" && !strings.Contains(tpl, need) {
		v.Addf(field, "placeholder", "must contain %s", need)
		return
	}
	filled := placeholderRe.ReplaceAllString(tpl, "x")
	if u, err := url.Parse(filled); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || strings.ContainsAny(filled, "{} \t\n") {
		v.Add(field, "httpsurl", "must be an https URL with a host once its placeholders are filled")
	}
}

// Validate checks the catalog and returns an InvalidArgument error listing
// every problem with the JSON path of the field, relative to the catalog
// (callers prefix it, e.g. "sites[0].catalog.").
func (c *Catalog) Validate() error {
	var v validator
	c.validate(&v)
	if len(v.Violations) > 0 {
		return deliverykit.Invalid(v.Violations...)
	}
	return nil
}

// declared holds what the earlier sections of a catalog declare and the
// later ones refer to: locales, warehouse, carrier and category ids, and
// the delivery type of every carrier product by ref.
type declared struct {
	locales       map[string]bool
	defaultLocale string // the first valid locale
	warehouses    map[string]bool
	carriers      map[string]bool
	products      map[string]DeliveryType
	categories    map[string]bool
}

// validate checks the catalog section by section, in the order of its
// fields, so violations come out in the same order whatever changes.
func (c *Catalog) validate(v *validator) {
	var d declared
	d.locales, d.defaultLocale = c.validateLocales(v)
	for i, h := range c.Holidays {
		v.date(fmt.Sprintf("holidays[%d]", i), h)
	}
	d.warehouses = c.validateWarehouses(v)
	d.products, d.carriers = c.validateCarriers(v, d.locales)
	d.categories = c.validateCategories(v, &d)
	c.validatePickupLocations(v, &d)
	for i, a := range c.PostalAreas {
		p := fmt.Sprintf("postal_areas[%d]", i)
		v.country(p+".country", a.Country)
		v.required(p+".prefix", a.Prefix)
		v.coords(p+".coordinates", &a.Coordinates, true)
	}
	if c.VATRate < 0 || c.VATRate > maxVATRate {
		v.Addf("vat_rate", "range", "must be between 0 and %d basis points", maxVATRate)
	}
	if b := c.Branding; b != nil {
		validateBranding(v, b)
	}
	if fb := c.Fallback; fb != nil {
		validateFallback(v, fb, &d)
	}
	if rp := c.ReturnPolicy; rp != nil {
		c.validateReturnPolicy(v, rp)
		validateReasons(v, rp, &d)
	}
	if n := c.Notifications; n != nil && (n.PickupReminderDays < 0 || n.PickupReminderDays > MaxPickupReminderDays) {
		v.Addf("notifications.pickup_reminder_days", "range", "must be between 0 (the default, %d) and %d days", DefaultPickupReminderDays, MaxPickupReminderDays)
	}
	c.validateBoxes(v, &d)
	c.validatePricePerParcel(v)
	validatePromise(v, c.Promise, c.Learning)
}

// validateLocales checks the catalog's locales and returns the valid ones
// and the first of them, the default.
func (c *Catalog) validateLocales(v *validator) (locales map[string]bool, defaultLocale string) {
	locales = map[string]bool{}
	if len(c.Locales) == 0 {
		v.Add("locales", "required", "at least one locale is required")
	}
	for i, l := range c.Locales {
		f := fmt.Sprintf("locales[%d]", i)
		if _, err := language.Parse(l); err != nil || !strings.Contains(l, "-") {
			v.Addf(f, "locale", "%q is not a locale like en-US", l)
			continue
		}
		if locales[l] {
			v.Addf(f, "unique", "%q is listed twice", l)
		}
		locales[l] = true
		defaultLocale = cmp.Or(defaultLocale, l)
	}
	return locales, defaultLocale
}

// validateWarehouses checks the warehouses and returns their ids.
func (c *Catalog) validateWarehouses(v *validator) map[string]bool {
	warehouses := map[string]bool{}
	if len(c.Warehouses) == 0 {
		v.Add("warehouses", "required", "at least one warehouse is required")
	}
	for i, w := range c.Warehouses {
		p := fmt.Sprintf("warehouses[%d]", i)
		v.newID(p+".id", w.ID, warehouses, "a warehouse id")
		v.country(p+".address.country", w.Address.Country)
		v.region(p+".address.region_code", w.Address.RegionCode)
		v.coords(p+".address.coordinates", w.Address.Coordinates, false)
		if v.required(p+".time_zone", w.TimeZone) {
			if _, err := time.LoadLocation(w.TimeZone); err != nil {
				v.Addf(p+".time_zone", "time_zone", "%q is not a known IANA time zone", w.TimeZone)
			}
		}
	}
	return warehouses
}

// validateCarriers checks the carriers and their products and returns the
// delivery type of every product by ref and the carrier ids.
func (c *Catalog) validateCarriers(v *validator, locales map[string]bool) (products map[string]DeliveryType, carriers map[string]bool) {
	products = map[string]DeliveryType{}
	carriers = map[string]bool{}
	if len(c.Carriers) == 0 {
		v.Add("carriers", "required", "at least one carrier is required")
	}
	for i, cr := range c.Carriers {
		p := fmt.Sprintf("carriers[%d]", i)
		v.newID(p+".id", cr.ID, carriers, "a carrier id")
		v.required(p+".name", cr.Name)
		v.urlTemplate(p+".tracking_url", cr.TrackingURL, TrackingURLPlaceholders, "{tracking_number}")
		v.urlTemplate(p+".logo_pattern", cr.LogoPattern, LogoPlaceholders, "")
		if len(cr.Products) == 0 {
			v.Add(p+".products", "required", "at least one product is required")
		}
		ids := map[string]bool{}
		for j, pr := range cr.Products {
			q := fmt.Sprintf("%s.products[%d]", p, j)
			v.newID(q+".id", pr.ID, ids, "a product id of this carrier")
			if v.required(q+".ref", pr.Ref) {
				if _, dup := products[pr.Ref]; dup {
					v.Addf(q+".ref", "unique", "%q is already the ref of another product", pr.Ref)
				} else {
					products[pr.Ref] = pr.DeliveryType
				}
			}
			validateProduct(v, q, pr, locales)
		}
	}
	return products, carriers
}

// validateProduct checks a carrier product's fields other than its id and
// ref, which must be unique across products.
func validateProduct(v *validator, q string, pr Product, locales map[string]bool) {
	v.text(q+".name", pr.Name, locales, true, MaxProductName)
	if !pr.DeliveryType.Valid() {
		v.Add(q+".delivery_type", "oneof", "must be one of DELIVERY, PICKUP, MAILBOX, INSTORE")
	}
	if pr.LeadTimeDays < 0 {
		v.Add(q+".lead_time_days", "gte", "must not be negative")
	}
	if pr.TransitDays.Min < 0 {
		v.Add(q+".transit_days.min", "gte", "must not be negative")
	}
	if pr.TransitDays.Max < pr.TransitDays.Min {
		v.Add(q+".transit_days.max", "gtefield", "must not be less than min")
	}
	if !pr.Promise.Valid() {
		v.Add(q+".promise", "oneof", "must be one of configured, learned, blend")
	}
	if pr.Simulate != nil {
		validateSimulation(v, q, pr.Simulate)
	}
	if pr.CutOff != "" && !clockTime.MatchString(pr.CutOff) {
		v.Add(q+".cut_off", "time", "must be a time like 15:00")
	}
	if pr.VATRate < 0 || pr.VATRate > maxVATRate {
		v.Addf(q+".vat_rate", "range", "must be between 0 and %d basis points", maxVATRate)
	}
	for k, d := range pr.Days {
		if dayIndex(d) < 0 {
			v.Add(fmt.Sprintf("%s.days[%d]", q, k), "oneof", "must be one of mon, tue, wed, thu, fri, sat, sun")
		}
	}
	if len(pr.Meta) > MaxProductMeta {
		v.Addf(q+".meta", "max", "must have at most %d entries", MaxProductMeta)
	}
	for _, k := range slices.Sorted(maps.Keys(pr.Meta)) {
		switch {
		case k == "" || len(k) > MaxMetaKey:
			v.Addf(q+".meta", "key", "keys must be 1 to %d bytes long", MaxMetaKey)
		case len(pr.Meta[k]) > MaxMetaValue:
			v.Addf(q+".meta."+k, "max", "must be at most %d bytes long", MaxMetaValue)
		}
	}
}

// validateCategories checks the delivery categories against what the
// earlier sections declared and returns the category ids.
func (c *Catalog) validateCategories(v *validator, d *declared) map[string]bool {
	if len(c.Categories) == 0 {
		v.Add("categories", "required", "at least one category is required")
	}
	cats := map[string]bool{}
	for i, cat := range c.Categories {
		p := fmt.Sprintf("categories[%d]", i)
		v.newID(p+".id", cat.ID, cats, "a category id")
		validateCategory(v, p, cat, d)
	}
	return cats
}

// validateCategory checks one category's fields other than its id.
func validateCategory(v *validator, p string, cat Category, d *declared) {
	v.names(p+".display_name", cat.DisplayName, d.locales, true)
	if d.defaultLocale != "" && len(cat.DisplayName) > 0 && cat.DisplayName[d.defaultLocale] == "" {
		// Every session must get a name, whatever its locales.
		v.Add(p+".display_name."+d.defaultLocale, "required", "the default locale needs a name")
	}
	v.names(p+".custom_text", cat.CustomText, d.locales, false)
	if !cat.DeliveryType.Valid() {
		v.Add(p+".delivery_type", "oneof", "must be one of DELIVERY, PICKUP, MAILBOX, INSTORE")
	}
	if cat.Warehouse != "" && !d.warehouses[cat.Warehouse] {
		v.Addf(p+".warehouse", "exists", "%q is not a warehouse id", cat.Warehouse)
	}
	if len(cat.Products) == 0 {
		v.Add(p+".products", "required", "at least one product ref is required")
	}
	for j, ref := range cat.Products {
		f := fmt.Sprintf("%s.products[%d]", p, j)
		dt, ok := d.products[ref]
		switch {
		case !ok:
			v.Addf(f, "exists", "%q is not the ref of a carrier product", ref)
		case dt != cat.DeliveryType:
			v.Addf(f, "delivery_type", "product %q delivers %s, the category %s", ref, dt, cat.DeliveryType)
		}
	}
	validateAddons(v, p, cat.Addons, d.locales)
	if len(cat.Prices) == 0 {
		v.Add(p+".prices", "required", "at least one price rule is required")
	}
	v.prices(p+".prices", cat.Prices)
	v.names(p+".custom_warning_text", cat.CustomWarningText, d.locales, false)
	for j, t := range cat.Tags {
		v.required(fmt.Sprintf("%s.tags[%d]", p, j), t)
	}
	validateFilter(v, p+".filter", cat.Filter)
	if cat.MaxLocations < 0 {
		v.Add(p+".max_locations", "gte", "must not be negative")
	}
	if cat.MaxDistanceKm < 0 || cat.MaxDistanceKm > 20000 {
		v.Add(p+".max_distance_km", "range", "must be between 0 and 20000")
	}
}

// validateAddons checks the addons of the category at p.
func validateAddons(v *validator, p string, list []Addon, locales map[string]bool) {
	addons := map[string]bool{}
	for j, a := range list {
		q := fmt.Sprintf("%s.addons[%d]", p, j)
		v.newID(q+".id", a.ID, addons, "an addon of this category")
		switch a.Type {
		case AddonCustom, AddonCarryIn, AddonLeaveAtDoor, AddonUnwrapping:
		default:
			v.Add(q+".type", "oneof", "must be one of CUSTOM, CARRY_IN, LEAVE_AT_DOOR, UNWRAPPING")
		}
		v.names(q+".display_name", a.DisplayName, locales, true)
		v.names(q+".description", a.Description, locales, false)
		if a.Price < 0 {
			v.Add(q+".price", "gte", "must not be negative")
		}
	}
}

// validateFilter checks a category's filter at field f.
func validateFilter(v *validator, f string, flt Filter) {
	for j, cc := range flt.Countries {
		v.country(fmt.Sprintf("%s.countries[%d]", f, j), cc)
	}
	for j, r := range flt.PostalCodes {
		q := fmt.Sprintf("%s.postal_codes[%d]", f, j)
		v.country(q+".country", r.Country)
		from, to := NormalizePostalCode(r.From), NormalizePostalCode(r.To)
		if v.required(q+".from", from) && v.required(q+".to", to) {
			if len(from) != len(to) || from > to {
				v.Add(q+".to", "range", "must have the length of from and not sort before it")
			}
		}
	}
	if flt.MaxWeight < 0 {
		v.Add(f+".max_weight", "gte", "must not be negative")
	}
	if d := flt.MaxDimensions; d != nil && (d.Height <= 0 || d.Length <= 0 || d.Width <= 0) {
		v.Add(f+".max_dimensions", "gt", "height, length and width must be greater than 0")
	}
}

// validatePickupLocations checks the pickup locations, each of a declared
// carrier.
func (c *Catalog) validatePickupLocations(v *validator, d *declared) {
	locs := map[string]bool{}
	for i, l := range c.PickupLocations {
		p := fmt.Sprintf("pickup_locations[%d]", i)
		v.newID(p+".id", l.ID, locs, "a pickup location id")
		v.required(p+".external_id", l.ExternalID)
		v.required(p+".name", l.Name)
		if !d.carriers[l.Carrier] {
			v.Addf(p+".carrier", "exists", "%q is not a carrier id", l.Carrier)
		}
		switch l.Type {
		case LocationLocker, LocationStore, LocationPostOffice, LocationManned:
		default:
			v.Add(p+".type", "oneof", "must be one of LOCKER, STORE, POSTOFFICE, MANNED")
		}
		v.country(p+".address.country", l.Address.Country)
		v.region(p+".address.region_code", l.Address.RegionCode)
		v.coords(p+".address.coordinates", l.Address.Coordinates, true)
		validateHours(v, p, l)
		validateContact(v, p, l)
		validateSections(v, p+".sections", l.Sections)
		v.text(p+".pickup_instructions", l.PickupInstructions, d.locales, false, MaxPickupInstructions)
		if len(l.HoursText) > MaxHoursText {
			v.Addf(p+".hours_text", "max", "must have at most %d lines", MaxHoursText)
		}
		for k, line := range l.HoursText {
			f := fmt.Sprintf("%s.hours_text[%d]", p, k)
			if strings.TrimSpace(line) == "" {
				v.Add(f, "required", "must not be empty")
			} else if len(line) > MaxHoursTextLine {
				v.Addf(f, "max", "must be at most %d bytes long", MaxHoursTextLine)
			}
		}
	}
}

// region checks an optional ISO 3166-2 subdivision code.
func (v *validator) region(field, val string) {
	if val != "" && !regionRe.MatchString(val) {
		v.Add(field, "iso3166_2", "must be an ISO 3166-2 subdivision code without the country prefix, like AB")
	}
}

// httpsURL checks an optional https URL of at most 2048 bytes.
func (v *validator) httpsURL(field, val string) {
	if val == "" {
		return
	}
	if u, err := url.Parse(val); err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || len(val) > 2048 {
		v.Add(field, "httpsurl", "must be an https URL of at most 2048 bytes")
	}
}

// validateContact checks a pickup location's e-mail and phone.
func validateContact(v *validator, p string, l PickupLocation) {
	if e := l.Email; e != "" && (len(e) > 254 || !strings.Contains(e, "@") || strings.ContainsAny(e, " \t\r\n")) {
		v.Add(p+".email", "email", "must be an e-mail address of at most 254 bytes")
	}
	if ph := l.Phone; ph != nil {
		for _, f := range []struct {
			name, val string
			required  bool
		}{{"country_code", ph.CountryCode, true}, {"number", ph.Number, true}, {"extension", ph.Extension, false}} {
			if f.val == "" && !f.required {
				continue
			}
			if !digitsRe.MatchString(f.val) {
				v.Add(p+".phone."+f.name, "digits", "must be 1 to 32 digits")
			}
		}
	}
}

// validateSections checks a pickup location's sections against their
// bounds (MaxSections and the others).
func validateSections(v *validator, p string, sections []Section) {
	if len(sections) > MaxSections {
		v.Addf(p, "max", "must have at most %d sections", MaxSections)
		return
	}
	text := func(field, val string, required bool) {
		if required && strings.TrimSpace(val) == "" {
			v.Add(field, "required", "is required")
		} else if len(val) > MaxSectionText {
			v.Addf(field, "max", "must be at most %d bytes long", MaxSectionText)
		}
	}
	for i, s := range sections {
		sp := fmt.Sprintf("%s[%d]", p, i)
		text(sp+".title", s.Title, true)
		switch {
		case len(s.Columns) == 0:
			v.Add(sp+".columns", "required", "at least one column is required")
		case len(s.Columns) > MaxSectionColumns:
			v.Addf(sp+".columns", "max", "must have at most %d columns", MaxSectionColumns)
			continue
		}
		for j, c := range s.Columns {
			cp := fmt.Sprintf("%s.columns[%d].items", sp, j)
			switch {
			case len(c.Items) == 0:
				v.Add(cp, "required", "at least one item is required")
			case len(c.Items) > MaxSectionItems:
				v.Addf(cp, "max", "must have at most %d items", MaxSectionItems)
				continue
			}
			for k, it := range c.Items {
				ip := fmt.Sprintf("%s[%d]", cp, k)
				if it.Text == "" && it.IconURI == "" && it.LinkURI == "" {
					v.Add(ip, "required", "needs a text, an icon_uri or a link_uri")
				}
				text(ip+".text", it.Text, false)
				v.httpsURL(ip+".icon_uri", it.IconURI)
				v.httpsURL(ip+".link_uri", it.LinkURI)
			}
		}
	}
}

// validateHours checks a pickup location's opening hours and closed dates.
func validateHours(v *validator, p string, l PickupLocation) {
	for day, ranges := range l.Hours {
		if dayIndex(day) < 0 {
			v.Add(p+".hours."+day, "oneof", "must be one of mon, tue, wed, thu, fri, sat, sun")
		}
		for k, r := range ranges {
			if !clockRange.MatchString(r) || r[6:] <= r[:5] {
				v.Add(fmt.Sprintf("%s.hours.%s[%d]", p, day, k), "hours", "must be a range like 08:00-20:00")
			}
		}
	}
	for k, d := range l.Closed {
		v.date(fmt.Sprintf("%s.closed[%d]", p, k), d)
	}
}

// validateBranding checks the widget's branding.
func validateBranding(v *validator, b *Branding) {
	if len(b.DisplayName) > 128 {
		v.Add("branding.display_name", "max", "must be at most 128 characters long")
	}
	if b.LogoURL != "" {
		if u, err := url.Parse(b.LogoURL); err != nil || u.Scheme != "https" || u.Host == "" || len(b.LogoURL) > 2048 {
			v.Add("branding.logo_url", "httpsurl", "must be an https URL")
		}
	}
	if b.AccentColor != "" && !colorRe.MatchString(b.AccentColor) {
		v.Add("branding.accent_color", "color", "must be a colour like #0a7d44")
	}
}

// validateFallback checks the fallback category: an id of its own and a
// product delivered to the address.
func validateFallback(v *validator, fb *Fallback, d *declared) {
	if v.required("fallback.id", fb.ID) && d.categories[fb.ID] {
		v.Addf("fallback.id", "unique", "%q is already a category id", fb.ID)
	}
	if v.required("fallback.product", fb.Product) {
		switch dt, ok := d.products[fb.Product]; {
		case !ok:
			v.Addf("fallback.product", "exists", "%q is not the ref of a carrier product", fb.Product)
		case dt.AtLocation():
			v.Addf("fallback.product", "delivery_type", "product %q delivers %s; a fallback needs a DELIVERY or MAILBOX product", fb.Product, dt)
		}
	}
	v.names("fallback.display_name", fb.DisplayName, d.locales, true)
	if d.defaultLocale != "" && len(fb.DisplayName) > 0 && fb.DisplayName[d.defaultLocale] == "" {
		v.Add("fallback.display_name."+d.defaultLocale, "required", "the default locale needs a name")
	}
	v.names("fallback.etd_text", fb.ETDText, d.locales, false)
	if len(fb.Prices) == 0 {
		v.Add("fallback.prices", "required", "at least one price rule is required")
	}
	v.prices("fallback.prices", fb.Prices)
}

// validateReturnPolicy checks the return policy.
func (c *Catalog) validateReturnPolicy(v *validator, rp *ReturnPolicy) {
	v.currency("return_policy.currency", rp.Currency)
	if len(rp.ID) > 64 {
		v.Add("return_policy.id", "max", "must be at most 64 bytes long")
	}
	if rp.ReturnCost < 0 {
		v.Add("return_policy.return_cost", "gte", "must not be negative")
	}
	if rp.ExchangeCost < 0 {
		v.Add("return_policy.exchange_cost", "gte", "must not be negative")
	}
	if rp.ReturnTimeDays < 0 {
		v.Add("return_policy.return_time_days", "gte", "must not be negative")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"return_handling_cost", rp.ReturnHandlingCost}, {"failed_delivery_cost", rp.FailedDeliveryCost}, {"gift_card_addition", rp.GiftCardAddition}} {
		if f.v < 0 {
			v.Add("return_policy."+f.name, "gte", "must not be negative")
		}
	}
	if ref := rp.ReturnProduct; ref != "" {
		// The customer hands the parcel in at the product's carrier,
		// so that carrier needs drop-off points.
		switch p, ok := c.Product(ref); {
		case !ok:
			v.Addf("return_policy.return_product", "exists", "%q is not the ref of a carrier product", ref)
		case p.DeliveryType == DeliveryInStore:
			v.Addf("return_policy.return_product", "delivery_type", "product %q is collected in the merchant's stores; a return product needs a carrier", ref)
		case !slices.ContainsFunc(c.PickupLocations, func(l PickupLocation) bool { return l.Carrier == p.CarrierID }):
			v.Addf("return_policy.return_product", "drop_off_points", "carrier %q of product %q has no pickup locations for customers to hand parcels in at", p.CarrierID, ref)
		}
	}
}

// maxVATRate is 100 % in basis points.
const maxVATRate = 10000

// prices checks a list of price rules.
func (v *validator) prices(field string, rules []PriceRule) {
	for j, r := range rules {
		q := fmt.Sprintf("%s[%d]", field, j)
		v.currency(q+".currency", r.Currency)
		if r.Price < 0 {
			v.Add(q+".price", "gte", "must not be negative")
		}
		if r.FreeAbove < 0 {
			v.Add(q+".free_above", "gte", "must not be negative")
		}
		if r.MinWeight < 0 {
			v.Add(q+".min_weight", "gte", "must not be negative")
		}
		if r.MaxWeight != 0 && r.MaxWeight < r.MinWeight {
			v.Add(q+".max_weight", "gtefield", "must not be less than min_weight")
		}
	}
}

// dayIndex returns the time.Weekday of a day key, or -1.
func dayIndex(d string) int {
	for i, w := range Weekdays {
		if w == d {
			return i
		}
	}
	return -1
}

// DayIndex returns the time.Weekday of a day key ("mon") and whether it is one.
func DayIndex(d string) (time.Weekday, bool) {
	i := dayIndex(d)
	return time.Weekday(i), i >= 0
}
