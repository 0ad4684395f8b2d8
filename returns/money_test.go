package returns

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAmountString(t *testing.T) {
	tests := []struct {
		a    Amount
		want string
	}{
		{Amount{0, 2}, "0.00"},
		{Amount{5, 2}, "0.05"},
		{Amount{-5, 2}, "-0.05"},
		{Amount{129990, 2}, "1299.90"},
		{Amount{500, 0}, "500"},
		{Amount{1234, 3}, "1.234"},
		{Amount{30, 2}, "0.30"},
	}
	for _, tt := range tests {
		if got := tt.a.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.a, got, tt.want)
		}
		b, _ := json.Marshal(tt.a)
		if string(b) != tt.want {
			t.Errorf("json %+v = %s, want %s", tt.a, b, tt.want)
		}
	}
}

func TestParseMinor(t *testing.T) {
	tests := []struct {
		in    string
		scale int
		want  int64
		err   string
	}{
		{"12.5", 2, 1250, ""},
		{"12.50", 2, 1250, ""},
		{"12.500", 2, 1250, ""},
		{"0.1", 2, 10, ""},
		{"3", 2, 300, ""},
		{"", 2, 0, ""},
		{"-1.25", 2, -125, ""},
		{"500", 0, 500, ""},
		{"1.005", 2, 0, "has more decimals than its currency allows (2)"},
		{"1.5", 0, 0, "has more decimals than its currency allows (0)"},
		{"1e3", 2, 0, "must be a plain decimal number such as 12.50"},
		{".5", 2, 0, "must be a plain decimal number such as 12.50"},
		{"5.", 2, 0, "must be a plain decimal number such as 12.50"},
		{"99999999999999999999", 2, 0, "is too large"},
	}
	for _, tt := range tests {
		got, err := parseMinor(Decimal(tt.in), tt.scale, "amount")
		gotErr := ""
		if err != nil {
			gotErr = err.(interface{ Error() string }).Error()
			gotErr = gotErr[len("invalid request: amount: "):]
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("parseMinor(%q, %d) = %d, %q; want %d, %q", tt.in, tt.scale, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestCurrencyScale(t *testing.T) {
	type res struct {
		Code  string
		Scale int
		Err   bool
	}
	var got []res
	for _, c := range []string{"SEK", "jpy", "KWD", "XXY", "EURO"} {
		code, scale, err := currencyScale(c, "currencyCode")
		got = append(got, res{code, scale, err != nil})
	}
	want := []res{{"SEK", 2, false}, {"JPY", 0, false}, {"KWD", 3, false}, {"", 0, true}, {"", 0, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDecimalFromMinor(t *testing.T) {
	tests := []struct {
		minor int64
		cur   string
		want  Decimal
		err   bool
	}{
		{12950, "SEK", "129.50", false},
		{500, "JPY", "500", false},
		{7, "EUR", "0.07", false},
		{1, "NOPE", "", true},
	}
	for _, tt := range tests {
		got, err := DecimalFromMinor(tt.minor, tt.cur)
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("DecimalFromMinor(%d, %s) = %q, %v", tt.minor, tt.cur, got, err)
		}
		if err == nil {
			_, scale, _ := currencyScale(tt.cur, "c")
			if back, _ := parseMinor(got, scale, "x"); back != tt.minor {
				t.Errorf("round trip of %d %s = %d", tt.minor, tt.cur, back)
			}
		}
	}
}

func TestDecimalJSON(t *testing.T) {
	type body struct {
		Items []struct {
			Price PriceInput `json:"purchasePriceAmount"`
		} `json:"items"`
	}
	tests := []struct {
		in        string
		want      Decimal
		wantField string // the field a type error names; "" for success
	}{
		{`{"items":[{"purchasePriceAmount":{"amount":12.50}}]}`, "12.50", ""},
		{`{"items":[{"purchasePriceAmount":{"amount":-3}}]}`, "-3", ""},
		{`{"items":[{"purchasePriceAmount":{"amount":null}}]}`, "", ""},
		{`{"items":[{"purchasePriceAmount":{"amount":"12.50"}}]}`, "", "items.purchasePriceAmount.amount"},
		{`{"items":[{"purchasePriceAmount":{"amount":true}}]}`, "", "items.purchasePriceAmount.amount"},
		{`{"items":[{"purchasePriceAmount":{"amount":{}}}]}`, "", "items.purchasePriceAmount.amount"},
	}
	for _, tt := range tests {
		var b body
		err := json.Unmarshal([]byte(tt.in), &b)
		var te *json.UnmarshalTypeError
		switch {
		case tt.wantField == "" && err != nil:
			t.Errorf("%s: %v", tt.in, err)
		case tt.wantField == "" && b.Items[0].Price.Amount != tt.want:
			t.Errorf("%s: amount %q, want %q", tt.in, b.Items[0].Price.Amount, tt.want)
		case tt.wantField != "" && (!errors.As(err, &te) || te.Field != tt.wantField):
			t.Errorf("%s: error %v, want a type error naming %s", tt.in, err, tt.wantField)
		}
	}
	out, _ := json.Marshal(PriceInput{Amount: "12.50"})
	if string(out) != `{"amount":12.50,"itemTax":0}` {
		t.Errorf("Marshal = %s", out)
	}
}
