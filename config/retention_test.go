package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/retention"
)

func TestRetention(t *testing.T) {
	site := `"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"]}]`
	tests := []struct {
		name   string
		in     string
		want   retention.Policy
		fields []string
	}{
		{"missing: every default", `{` + site + `}`, retention.Policy{}, nil},
		{"empty: every default", `{` + site + `, "retention": {}}`, retention.Policy{}, nil},
		{"days", `{` + site + `, "retention": {"active_session_days": 2, "completed_session_days": 365, "dead_event_days": 3, "tracking_days": 30,
			"webhook_delivery_days": 7, "shipment_days": 3650, "return_days": 1000}}`,
			retention.Policy{ActiveSessions: 2 * 24 * time.Hour, CompletedSessions: 365 * 24 * time.Hour, DeadEvents: 3 * 24 * time.Hour, Tracking: 30 * 24 * time.Hour,
				WebhookDeliveries: 7 * 24 * time.Hour, Shipments: 3650 * 24 * time.Hour, Returns: 1000 * 24 * time.Hour}, nil},
		{"zero keeps forever", `{` + site + `, "retention": {"active_session_days": 0, "completed_session_days": 0, "dead_event_days": 0, "tracking_days": 0,
			"webhook_delivery_days": 0, "shipment_days": 0, "return_days": 0}}`,
			retention.Policy{ActiveSessions: retention.Never, CompletedSessions: retention.Never, DeadEvents: retention.Never, Tracking: retention.Never,
				WebhookDeliveries: retention.Never, Shipments: retention.Never, Returns: retention.Never}, nil},
		{"out of range", `{` + site + `, "retention": {"active_session_days": -1, "completed_session_days": 36501, "dead_event_days": -3, "tracking_days": 36501,
			"webhook_delivery_days": -1, "shipment_days": 36501, "return_days": -1}}`, retention.Policy{},
			[]string{"retention.active_session_days", "retention.completed_session_days", "retention.dead_event_days", "retention.tracking_days",
				"retention.webhook_delivery_days", "retention.shipment_days", "retention.return_days"}},
		{"unknown member", `{` + site + `, "retention": {"returns_days": 5}}`, retention.Policy{}, []string{"retention.returns_days"}},
		{"wrong type", `{` + site + `, "retention": {"active_session_days": "7d"}}`, retention.Policy{}, []string{"retention.active_session_days"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(strings.NewReader(tt.in))
			if tt.fields != nil {
				if !errors.Is(err, deliverykit.ErrInvalidArgument) {
					t.Fatalf("Parse error = %v, want invalid argument", err)
				}
				var got []string
				for _, v := range deliverykit.ViolationsOf(err) {
					got = append(got, v.Field)
				}
				if diff := cmp.Diff(tt.fields, got); diff != "" {
					t.Errorf("violation fields (-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, c.Retention.Policy()); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
}
