package carrier

import (
	"testing"
	"time"

	"github.com/deliverykit/deliverykit/catalog"
)

// TestProfileDay: a simulated lead time picks the business day it ends on,
// counted from the timetable's first transit day.
func TestProfileDay(t *testing.T) {
	// Handed over Thursday 2026-11-19 15:00 UTC: 9 hours of Thursday
	// left; business days Friday, Monday, Tuesday, …
	handover := time.Date(2026, 11, 19, 15, 0, 0, 0, time.UTC)
	p := catalog.LeadTimeProfile{P10: 20, P50: 40, P90: 60}
	tests := []struct {
		name       string
		transitMin int
		u          float64
		want       int
	}{
		{"p10 and below: Friday", 1, 0.05, 0},           // 20 h: Friday
		{"p50: Monday", 1, 0.5, 1},                      // 40 h: 9 + 24 + 7, Monday
		{"between p50 and p90", 1, 0.7, 1},              // 50 h: Monday
		{"p90 and above: Tuesday", 1, 0.95, 2},          // 60 h: 9 + 48 + 3, Tuesday
		{"shorter than the fewest transit", 2, 0.05, 0}, // Friday, but the first day is Monday
		{"same-day product", 0, 0.05, 1},                // Days start on Thursday
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt2 := Timetable{Handover: handover, TransitMin: tt.transitMin}
			if got := profileDay(&tt2, p, tt.u); got != tt.want {
				t.Errorf("profileDay = %d, want %d", got, tt.want)
			}
		})
	}
	short := catalog.LeadTimeProfile{P10: 2, P50: 4, P90: 6}
	if got := profileDay(&Timetable{Handover: handover}, short, 0.5); got != 0 {
		t.Errorf("a lead time within the hand-over day: day %d, want 0", got)
	}
}
