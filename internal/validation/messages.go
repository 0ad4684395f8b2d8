package validation

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"

	"github.com/go-playground/validator/v10"
)

// message words a violation: the area's own rule first, then the shared
// table, then a sentence naming the tag, so that a tag nobody has worded
// yet still yields a usable violation rather than an empty message.
func (v *Validator) message(fe validator.FieldError) string {
	if m, ok := v.custom[fe.ActualTag()]; ok {
		return m
	}
	if f, ok := messages[fe.ActualTag()]; ok {
		return f(fe)
	}
	return fmt.Sprintf("breaks the rule %q", fe.ActualTag())
}

// messages is the one wording of every built-in tag an area uses. Each
// sentence completes "<field> …" and says what a valid value looks like,
// never what the client sent (see the package documentation).
var messages = map[string]func(validator.FieldError) string{
	"required":             required,
	"required_if":          required,
	"required_unless":      required,
	"required_with":        required,
	"required_with_all":    required,
	"required_without":     required,
	"required_without_all": required,

	"gt":  bound("must be greater than %s", "must be longer than %s", "must have more than %s", "must be in the future"),
	"gte": atLeast,
	"min": atLeast,
	"lt":  bound("must be less than %s", "must be shorter than %s", "must have fewer than %s", "must be in the past"),
	"lte": atMost,
	"max": atMost,
	"len": bound("must be exactly %s", "must be exactly %s long", "must have exactly %s", ""),

	"oneof": func(fe validator.FieldError) string {
		return "must be one of " + strings.Join(oneOfValues(fe.Param()), ", ")
	},
	"datetime": func(fe validator.FieldError) string {
		switch fe.Param() {
		case time.RFC3339, time.RFC3339Nano:
			return "must be an RFC 3339 timestamp"
		case time.DateOnly:
			return "must be a date YYYY-MM-DD"
		case time.TimeOnly:
			return "must be a time of day HH:MM:SS"
		}
		return "must be a time in the layout " + fe.Param()
	},
	"unique": fixed("must not contain duplicates"),

	"email":    fixed("must be an e-mail address"),
	"url":      fixed("must be a URL"),
	"keysafe":  fixed("must not contain NUL characters"),
	"httpsurl": fixed(fmt.Sprintf("must be an absolute https URL with a host, at most %d characters long", MaxURLLength)),
	"jsonsize": func(fe validator.FieldError) string {
		return "must take at most " + fe.Param() + " bytes as JSON"
	},
	"http_url":           fixed("must be an http or https URL"),
	"uri":                fixed("must be a URI"),
	"uuid":               fixed("must be a UUID"),
	"e164":               fixed("must be a phone number in E.164 form, like +46701234567"),
	"iso4217":            fixed("must be an ISO 4217 currency code"),
	"iso3166_1_alpha2":   fixed("must be an ISO 3166-1 alpha-2 country code"),
	"iso3166_1_alpha3":   fixed("must be an ISO 3166-1 alpha-3 country code"),
	"bcp47_language_tag": fixed("must be a BCP 47 language tag"),
}

func required(validator.FieldError) string { return "is required" }

func fixed(msg string) func(validator.FieldError) string {
	return func(validator.FieldError) string { return msg }
}

// atLeast words gte and min, which the validator treats alike: a lower
// bound on a number's value or on a string's or collection's length.
// gte=0 on a number is the common "no negative prices" rule and says so.
func atLeast(fe validator.FieldError) string {
	if shapeOf(fe) == number && fe.Param() == "0" {
		return "must not be negative"
	}
	return bound("must be at least %s", "must be at least %s long", "must have at least %s", "must not be in the past")(fe)
}

// atMost words lte and max.
func atMost(fe validator.FieldError) string {
	return bound("must be at most %s", "must be at most %s long", "must have at most %s", "must not be in the future")(fe)
}

// bound words a comparison tag for the shape of the field: numbers compare
// their value, strings their length in characters, slices and maps their
// number of entries. A time.Time without a parameter is compared with now,
// which is what the fourth wording says.
func bound(num, text, coll, now string) func(validator.FieldError) string {
	return func(fe validator.FieldError) string {
		p := fe.Param()
		switch shapeOf(fe) {
		case textual:
			return fmt.Sprintf(text, count(p, "character", "characters"))
		case collection:
			return fmt.Sprintf(coll, count(p, "entry", "entries"))
		case instant:
			if p == "" && now != "" {
				return now
			}
		}
		return fmt.Sprintf(num, p)
	}
}

type shape int

const (
	number shape = iota
	textual
	collection
	instant
)

var timeType = reflect.TypeFor[time.Time]()

func shapeOf(fe validator.FieldError) shape {
	switch fe.Kind() {
	case reflect.String:
		return textual
	case reflect.Slice, reflect.Array, reflect.Map:
		return collection
	case reflect.Struct:
		if fe.Type() == timeType {
			return instant
		}
	}
	return number
}

func count(n, one, many string) string {
	if n == "1" {
		return n + " " + one
	}
	return n + " " + many
}

// oneOfParam splits a oneof parameter the way the validator does: by
// spaces, with single quotes around a value that holds spaces.
var oneOfParam = regexp.MustCompile(`'[^']*'|\S+`)

func oneOfValues(param string) []string {
	vals := oneOfParam.FindAllString(param, -1)
	for i, v := range vals {
		vals[i] = strings.ReplaceAll(v, "'", "")
	}
	return vals
}
