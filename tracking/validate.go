package tracking

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/go-playground/validator/v10"
	"golang.org/x/text/language"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/validation"
)

// validate checks struct tags with the module's shared validator, so a
// violation's Field is the path a client sent ("receiver.email"), plus the
// tags only tracking uses.
var validate = validation.New(
	validation.Max("max_cart_items", MaxCartItems),
	validation.Max("max_parcel_line_items", MaxParcelLineItems),
	validation.Max("max_item_properties", MaxItemProperties),
	validation.Max("max_parcel_attributes", MaxParcelAttributes),
	validation.Max("max_opening_ranges", MaxOpeningRanges),
	validation.Rule{Tag: "hhmmss", Message: "must be a time of day HH:MM:SS", Func: func(fl validator.FieldLevel) bool {
		return hhmmss.MatchString(fl.Field().String())
	}},
	validation.Rule{Tag: "step", Message: "must be a Step value other than STEP_UNKNOWN", Func: func(fl validator.FieldLevel) bool {
		return knownSteps[Step(fl.Field().String())]
	}},
	validation.Rule{Tag: "alert", Message: "must be an AlertType value other than ALERT_UNDEFINED", Func: func(fl validator.FieldLevel) bool {
		return knownAlerts[AlertType(fl.Field().String())]
	}},
	validation.Rule{Tag: "exception", Message: "must be an ExceptionStatus value", Func: func(fl validator.FieldLevel) bool {
		return slices.Contains(ExceptionStatuses, ExceptionStatus(fl.Field().String()))
	}},
)

// The limits of the area's requests, besides the shared ones of strings
// (see internal/validation): each is named once here and referred to by
// name in the struct tags. A list over its limit is refused with one
// violation, before any of its entries is looked at.
const (
	// MaxCartItems bounds the lines of an order's cart.
	MaxCartItems = 500
	// MaxParcelLineItems bounds the lines of one parcel.
	MaxParcelLineItems = 500
	// MaxItemProperties bounds the properties of one parcel line.
	MaxItemProperties = 50
	// MaxParcelAttributes bounds a parcel's free-form attributes; each
	// value takes at most 1 KiB as JSON.
	MaxParcelAttributes = 50
	// MaxOpeningRanges bounds the opening intervals of one weekday.
	MaxOpeningRanges = 10
)

var hhmmss = regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$`)

// knownSteps and knownAlerts are the step and alert values a carrier may
// report: every value of Step and AlertType but their "unknown" defaults.
var (
	knownSteps = map[Step]bool{
		StepConfirmedByMerchant: true, StepPreparedByMerchant: true, StepSubmittedToCarrier: true,
		StepOnRoute: true, StepDeliveredToPickupPoint: true, StepDeliveredToConsumer: true,
		StepTerminated: true, StepSentBack: true, StepReturnRequested: true,
		StepDeliveredToMerchant: true, StepAwaitingSupplier: true, StepLinehaulToCarrier: true,
		StepReturnApproved: true, StepReturnDeclined: true, StepReturnCompleted: true,
		StepReplacementSent: true, StepReturnCancelled: true,
	}
	knownAlerts = map[AlertType]bool{
		AlertDeliveryDelayed: true, AlertEstimatedDeliveryTimeUpdated: true,
		AlertDeliveryAttemptFailed: true, AlertOutForDelivery: true, AlertSubmissionDelayed: true,
		AlertDeliveryDelayedFromCarrier: true, AlertAwaitingSupplier: true, AlertLinehaulToCarrier: true,
	}
)

// check validates v's tags and returns an InvalidArgument error listing
// every violation with its JSON path, plus the violations in extra (the
// cross-field rules the caller checked in code), sorted by field.
func check(v any, extra validation.Violations) error {
	return validate.Check(v, extra...)
}

// violation is one violation of a rule checked in code, for errors that
// name a single field; requests that can break several rules collect them
// in a validation.Violations.
func violation(field, rule, msg string) deliverykit.FieldViolation {
	return deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg}
}

// checkSite applies the module's site rule to a request's site_id, worded
// for a service's callers, and fills an empty site_id with the caller's
// site: tracking keeps its requests with their site.
var checkSite = validation.SiteRule{
	Field:     "site_id",
	Message:   "site_id is not the caller's site",
	Violation: "is not the caller's site",
}.Fill

// parseTime parses an RFC 3339 timestamp already checked by the validator.
func parseTime(s string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// rangeOrder reports a violation when a range ends before it starts.
func rangeOrder(field, start, end string) []deliverykit.FieldViolation {
	s, ok1 := parseTime(start)
	e, ok2 := parseTime(end)
	if ok1 && ok2 && e.Before(s) {
		return []deliverykit.FieldViolation{violation(field+".end", "gtefield", "must not be before start")}
	}
	return nil
}

// orderRules checks what tags cannot say about a CreateTrackingOrderRequest:
// cart products and sums that fit the wire's int32, time ranges in order,
// opening intervals that end after they start and do not overlap within a
// day.
func orderRules(r *CreateTrackingOrderRequest) validation.Violations {
	var vs validation.Violations
	if r.Locale != "" && len(r.Locale) <= 35 {
		if _, err := language.Parse(r.Locale); err != nil {
			vs.Add("locale", "locale", "must be a locale such as sv-SE")
		}
	}
	if p := r.Promises; p != nil {
		for _, x := range []struct {
			name string
			r    *DateTimeRangeStrict
		}{{"estimated_delivery_time", p.EstimatedDeliveryTime}, {"estimated_preparation_time", p.EstimatedPreparationTime}, {"estimated_submission_time", p.EstimatedSubmissionTime}} {
			if x.r != nil {
				vs = append(vs, rangeOrder("promises."+x.name, x.r.Start, x.r.End)...)
			}
		}
	}
	if r.Cart != nil {
		_, bad := sumCart(r.Cart)
		vs = append(vs, bad...)
	}
	if d := r.Destination; d != nil && d.OperationalHours != nil {
		for _, day := range d.OperationalHours.days() {
			if len(day.ranges) > MaxOpeningRanges {
				continue // reported by the tags, without a look at the ranges
			}
			prevEnd := ""
			for i, tr := range day.ranges {
				if !hhmmss.MatchString(tr.Start) || !hhmmss.MatchString(tr.End) {
					continue // reported by the tags
				}
				f := fmt.Sprintf("destination.operational_hours.%s[%d]", day.name, i)
				if tr.End <= tr.Start {
					vs.Add(f+".end", "gtfield", "must be after start")
				}
				if prevEnd != "" && tr.Start < prevEnd {
					vs.Add(f+".start", "order", "must not be before the end of the previous range of the day")
				}
				prevEnd = tr.End
			}
		}
	}
	return vs
}

// notFoundField is a NotFound error that names the request field that
// pointed at nothing.
func notFoundField(what, field, msg string) error {
	return &deliverykit.Error{Kind: deliverykit.KindNotFound, Message: what + " not found",
		Violations: []deliverykit.FieldViolation{violation(field, "exists", msg)}}
}
