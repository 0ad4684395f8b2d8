package validation

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
)

// request carries one field per tag of the shared table. valid returns a
// request that passes; each test case breaks one field.
type request struct {
	Name     string            `json:"name" validate:"required"`
	Count    int               `json:"count" validate:"gt=0"`
	Price    int64             `json:"price" validate:"gte=0"`
	Weight   *int32            `json:"weight,omitempty" validate:"omitnil,gt=0"`
	Rating   float64           `json:"rating" validate:"gte=1,lte=5"`
	Below    int               `json:"below" validate:"lt=10"`
	Code     string            `json:"code" validate:"min=3,max=5"`
	Letter   string            `json:"letter" validate:"omitempty,len=1"`
	Short    string            `json:"short" validate:"lte=4,gt=1"`
	Shorter  string            `json:"shorter" validate:"lt=3"`
	Tags     []string          `json:"tags" validate:"min=1,max=2,unique,dive,required"`
	Pair     []int             `json:"pair" validate:"len=2"`
	Labels   map[string]string `json:"labels" validate:"max=1,dive,keys,min=2,endkeys,max=3"`
	Quantity uint              `json:"quantity" validate:"min=2,max=9"`
	Kind     string            `json:"kind" validate:"oneof=HOME PICKUP 'IN STORE'"`
	Email    string            `json:"email" validate:"omitempty,email"`
	Link     string            `json:"link" validate:"omitempty,url"`
	Web      string            `json:"web" validate:"omitempty,http_url"`
	URI      string            `json:"uri" validate:"omitempty,uri"`
	UUID     string            `json:"uuid" validate:"omitempty,uuid"`
	Phone    string            `json:"phone" validate:"omitempty,e164"`
	Currency string            `json:"currency" validate:"iso4217"`
	Country  string            `json:"country" validate:"iso3166_1_alpha2"`
	Country3 string            `json:"country3" validate:"omitempty,iso3166_1_alpha3"`
	Language string            `json:"language" validate:"omitempty,bcp47_language_tag"`
	At       string            `json:"at" validate:"omitempty,datetime=2006-01-02T15:04:05Z07:00"`
	Day      string            `json:"day" validate:"omitempty,datetime=2006-01-02"`
	Clock    string            `json:"clock" validate:"omitempty,datetime=15:04:05"`
	Month    string            `json:"month" validate:"omitempty,datetime=2006-01"`
	Due      time.Time         `json:"due" validate:"omitempty,gt"`
	Sent     time.Time         `json:"sent" validate:"omitempty,lte"`
	Street   string            `json:"street" validate:"required_with=City"`
	City     string            `json:"city"`
	Postal   string            `json:"postal" validate:"omitempty,alpha"`
}

func valid() request {
	return request{
		Name: "n", Count: 1, Rating: 3, Code: "abcd", Short: "ab", Tags: []string{"a"}, Pair: []int{1, 2},
		Quantity: 2, Kind: "IN STORE", Currency: "SEK", Country: "SE",
	}
}

func TestMessages(t *testing.T) {
	v := New()
	w := int32(0)
	tests := []struct {
		name   string
		modify func(r *request)
		want   []deliverykit.FieldViolation
	}{
		{"valid", func(r *request) {}, nil},
		{"required", func(r *request) { r.Name = "" }, []deliverykit.FieldViolation{{Field: "name", Rule: "required", Message: "is required"}}},
		{"required_with", func(r *request) { r.City = "Malmö" }, []deliverykit.FieldViolation{{Field: "street", Rule: "required_with", Message: "is required"}}},
		{"gt number", func(r *request) { r.Count = 0 }, []deliverykit.FieldViolation{{Field: "count", Rule: "gt", Message: "must be greater than 0"}}},
		{"gt through a pointer", func(r *request) { r.Weight = &w }, []deliverykit.FieldViolation{{Field: "weight", Rule: "gt", Message: "must be greater than 0"}}},
		{"gte=0 is not negative", func(r *request) { r.Price = -1 }, []deliverykit.FieldViolation{{Field: "price", Rule: "gte", Message: "must not be negative"}}},
		{"gte number", func(r *request) { r.Rating = 0.5 }, []deliverykit.FieldViolation{{Field: "rating", Rule: "gte", Message: "must be at least 1"}}},
		{"lte number", func(r *request) { r.Rating = 5.5 }, []deliverykit.FieldViolation{{Field: "rating", Rule: "lte", Message: "must be at most 5"}}},
		{"lt number", func(r *request) { r.Below = 10 }, []deliverykit.FieldViolation{{Field: "below", Rule: "lt", Message: "must be less than 10"}}},
		{"min string", func(r *request) { r.Code = "ab" }, []deliverykit.FieldViolation{{Field: "code", Rule: "min", Message: "must be at least 3 characters long"}}},
		{"max string counts characters", func(r *request) { r.Code = "åäöåäö" }, []deliverykit.FieldViolation{{Field: "code", Rule: "max", Message: "must be at most 5 characters long"}}},
		{"len string, singular", func(r *request) { r.Letter = "ab" }, []deliverykit.FieldViolation{{Field: "letter", Rule: "len", Message: "must be exactly 1 character long"}}},
		{"lte string", func(r *request) { r.Short = "abcde" }, []deliverykit.FieldViolation{{Field: "short", Rule: "lte", Message: "must be at most 4 characters long"}}},
		{"gt string, singular", func(r *request) { r.Short = "a" }, []deliverykit.FieldViolation{{Field: "short", Rule: "gt", Message: "must be longer than 1 character"}}},
		{"lt string", func(r *request) { r.Shorter = "abc" }, []deliverykit.FieldViolation{{Field: "shorter", Rule: "lt", Message: "must be shorter than 3 characters"}}},
		{"min slice, singular", func(r *request) { r.Tags = nil }, []deliverykit.FieldViolation{{Field: "tags", Rule: "min", Message: "must have at least 1 entry"}}},
		{"max slice", func(r *request) { r.Tags = []string{"a", "b", "c"} }, []deliverykit.FieldViolation{{Field: "tags", Rule: "max", Message: "must have at most 2 entries"}}},
		{"unique", func(r *request) { r.Tags = []string{"a", "a"} }, []deliverykit.FieldViolation{{Field: "tags", Rule: "unique", Message: "must not contain duplicates"}}},
		{"dive into a slice", func(r *request) { r.Tags = []string{"a", ""} }, []deliverykit.FieldViolation{{Field: "tags[1]", Rule: "required", Message: "is required"}}},
		{"len slice", func(r *request) { r.Pair = []int{1} }, []deliverykit.FieldViolation{{Field: "pair", Rule: "len", Message: "must have exactly 2 entries"}}},
		{"max map, singular", func(r *request) { r.Labels = map[string]string{"ab": "x", "cd": "y"} }, []deliverykit.FieldViolation{{Field: "labels", Rule: "max", Message: "must have at most 1 entry"}}},
		{"dive into map keys and values", func(r *request) { r.Labels = map[string]string{"a": "long"} }, []deliverykit.FieldViolation{
			{Field: "labels[a]", Rule: "min", Message: "must be at least 2 characters long"},
			{Field: "labels[a]", Rule: "max", Message: "must be at most 3 characters long"},
		}},
		{"min and max unsigned", func(r *request) { r.Quantity = 1 }, []deliverykit.FieldViolation{{Field: "quantity", Rule: "min", Message: "must be at least 2"}}},
		{"max unsigned", func(r *request) { r.Quantity = 10 }, []deliverykit.FieldViolation{{Field: "quantity", Rule: "max", Message: "must be at most 9"}}},
		{"oneof lists quoted values without quotes", func(r *request) { r.Kind = "MAILBOX" }, []deliverykit.FieldViolation{{Field: "kind", Rule: "oneof", Message: "must be one of HOME, PICKUP, IN STORE"}}},
		{"email", func(r *request) { r.Email = "anna" }, []deliverykit.FieldViolation{{Field: "email", Rule: "email", Message: "must be an e-mail address"}}},
		{"url", func(r *request) { r.Link = "no url" }, []deliverykit.FieldViolation{{Field: "link", Rule: "url", Message: "must be a URL"}}},
		{"http_url", func(r *request) { r.Web = "ftp://example.com" }, []deliverykit.FieldViolation{{Field: "web", Rule: "http_url", Message: "must be an http or https URL"}}},
		{"uri", func(r *request) { r.URI = "no uri" }, []deliverykit.FieldViolation{{Field: "uri", Rule: "uri", Message: "must be a URI"}}},
		{"uuid", func(r *request) { r.UUID = "123" }, []deliverykit.FieldViolation{{Field: "uuid", Rule: "uuid", Message: "must be a UUID"}}},
		{"e164", func(r *request) { r.Phone = "0701234567" }, []deliverykit.FieldViolation{{Field: "phone", Rule: "e164", Message: "must be a phone number in E.164 form, like +46701234567"}}},
		{"iso4217", func(r *request) { r.Currency = "KRONA" }, []deliverykit.FieldViolation{{Field: "currency", Rule: "iso4217", Message: "must be an ISO 4217 currency code"}}},
		{"iso3166_1_alpha2", func(r *request) { r.Country = "se" }, []deliverykit.FieldViolation{{Field: "country", Rule: "iso3166_1_alpha2", Message: "must be an ISO 3166-1 alpha-2 country code"}}},
		{"iso3166_1_alpha3", func(r *request) { r.Country3 = "SE" }, []deliverykit.FieldViolation{{Field: "country3", Rule: "iso3166_1_alpha3", Message: "must be an ISO 3166-1 alpha-3 country code"}}},
		{"bcp47_language_tag", func(r *request) { r.Language = "not a tag" }, []deliverykit.FieldViolation{{Field: "language", Rule: "bcp47_language_tag", Message: "must be a BCP 47 language tag"}}},
		{"datetime RFC 3339", func(r *request) { r.At = "2026-11-22 10:00" }, []deliverykit.FieldViolation{{Field: "at", Rule: "datetime", Message: "must be an RFC 3339 timestamp"}}},
		{"datetime date", func(r *request) { r.Day = "22.11.2026" }, []deliverykit.FieldViolation{{Field: "day", Rule: "datetime", Message: "must be a date YYYY-MM-DD"}}},
		{"datetime time of day", func(r *request) { r.Clock = "25:00:00" }, []deliverykit.FieldViolation{{Field: "clock", Rule: "datetime", Message: "must be a time of day HH:MM:SS"}}},
		{"datetime other layout", func(r *request) { r.Month = "11/2026" }, []deliverykit.FieldViolation{{Field: "month", Rule: "datetime", Message: "must be a time in the layout 2006-01"}}},
		{"gt time is the future", func(r *request) { r.Due = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) }, []deliverykit.FieldViolation{{Field: "due", Rule: "gt", Message: "must be in the future"}}},
		{"lte time is not the future", func(r *request) { r.Sent = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC) }, []deliverykit.FieldViolation{{Field: "sent", Rule: "lte", Message: "must not be in the future"}}},
		{"a tag without wording", func(r *request) { r.Postal = "211 20" }, []deliverykit.FieldViolation{{Field: "postal", Rule: "alpha", Message: `breaks the rule "alpha"`}}},
		{"everything wrong is listed, sorted by field", func(r *request) {
			*r = request{Tags: []string{"a"}, Pair: []int{1, 2}, Code: "abc", Short: "ab", Quantity: 2}
		}, []deliverykit.FieldViolation{
			{Field: "count", Rule: "gt", Message: "must be greater than 0"},
			{Field: "country", Rule: "iso3166_1_alpha2", Message: "must be an ISO 3166-1 alpha-2 country code"},
			{Field: "currency", Rule: "iso4217", Message: "must be an ISO 4217 currency code"},
			{Field: "kind", Rule: "oneof", Message: "must be one of HOME, PICKUP, IN STORE"},
			{Field: "name", Rule: "required", Message: "is required"},
			{Field: "rating", Rule: "gte", Message: "must be at least 1"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.modify(&r)
			err := v.Check(&r)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
				t.Fatalf("Check = %v, want InvalidArgument", err)
			}
			if diff := cmp.Diff(tt.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

type Address struct {
	Country string `json:"country_code" validate:"required"`
	Lines   []Line `json:"address_lines" validate:"required,dive"`
}

type Line struct {
	Text string `json:"text" validate:"required,max=4"`
}

type Base struct {
	ID string `json:"id" validate:"required"`
}

type Page[T any] struct {
	Items []T `json:"items" validate:"dive"`
}

type Item struct {
	SKU string `json:"sku" validate:"required"`
}

type Order struct {
	Base
	Shipping *Address `json:"shipping_address" validate:"required"`
	Billing  *Address `json:"billing_address,omitempty"`
	Note     string   `json:",omitempty" validate:"max=3"`
	Secret   string   `json:"-" validate:"max=1"`
	Parts    []Item   `json:"parts" validate:"dive"`
}

func TestPaths(t *testing.T) {
	v := New()
	lines := func(n int) []Line {
		out := make([]Line, n)
		for i := range out {
			out[i] = Line{Text: "ok"}
		}
		return out
	}
	tests := []struct {
		name string
		in   any
		want []string
	}{
		{"embedded struct is flattened like encoding/json", &Order{Shipping: &Address{Country: "SE", Lines: lines(1)}}, []string{"id required"}},
		{"nested pointer", &Order{Base: Base{ID: "1"}}, []string{"shipping_address required"}},
		{"optional nested struct still validated", &Order{Base: Base{ID: "1"}, Shipping: &Address{Country: "SE", Lines: lines(1)}, Billing: &Address{Lines: lines(1)}},
			[]string{"billing_address.country_code required"}},
		{"json name missing: Go name", &Order{Base: Base{ID: "1"}, Shipping: &Address{Country: "SE", Lines: lines(1)}, Note: "long"}, []string{"Note max"}},
		{"json hidden: Go name", &Order{Base: Base{ID: "1"}, Shipping: &Address{Country: "SE", Lines: lines(1)}, Secret: "xy"}, []string{"Secret max"}},
		{"indices sort as numbers", func() any {
			ls := lines(12)
			ls[10].Text, ls[2].Text, ls[1].Text = "", "", "toolong"
			return &Order{Base: Base{ID: "1"}, Shipping: &Address{Country: "SE", Lines: ls}}
		}(), []string{
			"shipping_address.address_lines[1].text max",
			"shipping_address.address_lines[2].text required",
			"shipping_address.address_lines[10].text required",
		}},
		{"a value, not a pointer", Order{Base: Base{ID: "1"}, Shipping: &Address{Country: "SE", Lines: lines(1)}, Parts: []Item{{}}}, []string{"parts[0].sku required"}},
		{"generic type name with dots is cut whole", &Page[Item]{Items: []Item{{SKU: "a"}, {}}}, []string{"items[1].sku required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, fv := range deliverykit.ViolationsOf(v.Check(tt.in)) {
				got = append(got, fv.Field+" "+fv.Rule)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
		})
	}
}

var hhmm = Rule{
	Tag: "hhmm",
	Func: func(fl validator.FieldLevel) bool {
		s := fl.Field().String()
		_, err := time.Parse("15:04", s)
		return err == nil && len(s) == 5
	},
	Message: "must be a time of day HH:MM",
}

type opening struct {
	Start string `json:"start" validate:"required,hhmm"`
	End   string `json:"end" validate:"required,hhmm"`
}

type hours struct {
	Ranges []opening `json:"ranges" validate:"required,dive"`
}

func TestCheckRulesAndExtras(t *testing.T) {
	v := New(hhmm)
	tests := []struct {
		name  string
		in    hours
		extra []deliverykit.FieldViolation
		want  []deliverykit.FieldViolation
	}{
		{"valid", hours{Ranges: []opening{{"08:00", "12:00"}}}, nil, nil},
		{"the area's own rule and message", hours{Ranges: []opening{{"8", "12:00"}}}, nil, []deliverykit.FieldViolation{
			{Field: "ranges[0].start", Rule: "hhmm", Message: "must be a time of day HH:MM"},
		}},
		{"extras alone make the request invalid", hours{Ranges: []opening{{"12:00", "08:00"}}},
			[]deliverykit.FieldViolation{{Field: "ranges[0].end", Rule: "gtfield", Message: "must be after start"}},
			[]deliverykit.FieldViolation{{Field: "ranges[0].end", Rule: "gtfield", Message: "must be after start"}}},
		{"extras sort among tag violations; a field's own violations keep their order", hours{Ranges: []opening{
			{"08:00", "12:00"}, {"", "13:00"}, {"x", "y"},
		}}, []deliverykit.FieldViolation{
			{Field: "ranges[2].end", Rule: "order", Message: "second"},
			{Field: "ranges[0].end", Rule: "order", Message: "first"},
			{Field: "ranges", Rule: "overlap", Message: "overlap"},
		}, []deliverykit.FieldViolation{
			{Field: "ranges", Rule: "overlap", Message: "overlap"},
			{Field: "ranges[0].end", Rule: "order", Message: "first"},
			{Field: "ranges[1].start", Rule: "required", Message: "is required"},
			{Field: "ranges[2].end", Rule: "hhmm", Message: "must be a time of day HH:MM"},
			{Field: "ranges[2].end", Rule: "order", Message: "second"},
			{Field: "ranges[2].start", Rule: "hhmm", Message: "must be a time of day HH:MM"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Check(&tt.in, tt.extra...)
			if diff := cmp.Diff(tt.want, deliverykit.ViolationsOf(err)); diff != "" {
				t.Errorf("violations (-want +got):\n%s", diff)
			}
			if (err == nil) != (tt.want == nil) {
				t.Errorf("Check = %v, want violations %v", err, tt.want)
			}
		})
	}
}

func TestViolationsAndJoin(t *testing.T) {
	v := New(hhmm)
	var all []deliverykit.FieldViolation
	for i, o := range []opening{{"08:00", ""}, {"9", "10:00"}} {
		vs, err := v.Violations("ranges["+string(rune('0'+i))+"].", &o)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, vs...)
	}
	all = append(all, deliverykit.FieldViolation{Field: "ranges[0].end", Rule: "after", Message: "must be after start"})
	before := append([]deliverykit.FieldViolation(nil), all...)
	err := Join(all...)
	want := []deliverykit.FieldViolation{
		{Field: "ranges[0].end", Rule: "required", Message: "is required"},
		{Field: "ranges[0].end", Rule: "after", Message: "must be after start"},
		{Field: "ranges[1].start", Rule: "hhmm", Message: "must be a time of day HH:MM"},
	}
	if deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		t.Fatalf("Join = %v, want InvalidArgument", err)
	}
	if diff := cmp.Diff(want, deliverykit.ViolationsOf(err)); diff != "" {
		t.Errorf("Join violations (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, all); diff != "" {
		t.Errorf("Join changed its argument (-before +after):\n%s", diff)
	}
	if err := Join(); err != nil {
		t.Errorf("Join() = %v, want nil", err)
	}
	if vs, err := v.Violations("x.", &opening{"08:00", "09:00"}); vs != nil || err != nil {
		t.Errorf("Violations of a valid value = %v, %v", vs, err)
	}
}

func TestNotValidatable(t *testing.T) {
	v := New()
	for _, in := range []any{nil, 42, "text", (*request)(nil)} {
		err := v.Check(in)
		if deliverykit.KindOf(err) != deliverykit.KindInternal {
			t.Errorf("Check(%#v) = %v, want an internal error", in, err)
		}
		var ive *validator.InvalidValidationError
		if !errors.As(err, &ive) {
			t.Errorf("Check(%#v) = %v, want the validator's error as cause", in, err)
		}
		if _, err := v.Violations("p.", in); deliverykit.KindOf(err) != deliverykit.KindInternal {
			t.Errorf("Violations(%#v) = %v, want an internal error", in, err)
		}
	}
}

func TestNewRefusesBadRules(t *testing.T) {
	ok := func(validator.FieldLevel) bool { return true }
	tests := []struct {
		name  string
		rules []Rule
		want  string
	}{
		{"no tag", []Rule{{Func: ok, Message: "m"}}, "needs a tag"},
		{"no func", []Rule{{Tag: "t", Message: "m"}}, "needs a tag"},
		{"no message", []Rule{{Tag: "t", Func: ok}}, "needs a tag"},
		{"twice", []Rule{{Tag: "t", Func: ok, Message: "m"}, {Tag: "t", Func: ok, Message: "m"}}, "registered twice"},
		{"refused by the validator", []Rule{{Tag: "a,b", Func: ok, Message: "m"}}, "a,b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if msg, _ := r.(string); !strings.Contains(msg, tt.want) {
					t.Errorf("panic = %v, want one containing %q", r, tt.want)
				}
			}()
			New(tt.rules...)
		})
	}
}

func TestComparePaths(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "a", 0},
		{"a", "b", -1},
		{"a", "a.b", -1},
		{"a.b", "a_b", -1},
		{"a[2]", "a[10]", -1},
		{"a[10].x", "a[2].x", 1},
		{"a[2].x", "a[2].y", -1},
		{"a[02]", "a[2]", 1},
		{"a[2]", "a[x]", -1},
		{"a[12]", "a[13]", -1},
		{"a[1]", "a.b", 1},
		{"", "a", -1},
	}
	for _, tt := range tests {
		if got := comparePaths(tt.a, tt.b); got != tt.want {
			t.Errorf("comparePaths(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := comparePaths(tt.b, tt.a); got != -tt.want {
			t.Errorf("comparePaths(%q, %q) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}
