package session_test

import (
	"testing"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/config"
	"github.com/deliverykit/deliverykit/options"
	"github.com/deliverykit/deliverykit/session"
	"github.com/deliverykit/deliverykit/storage/memory"
	"github.com/google/go-cmp/cmp"
)

// knownLeadTimes knows one lead time for every product.
type knownLeadTimes options.LeadTime

func (k knownLeadTimes) For(string, string, string) options.ProductLeadTimes { return k }

func (k knownLeadTimes) LeadTime(string, string, float64, float64, int, int, time.Time) (options.LeadTime, bool) {
	return options.LeadTime(k), options.LeadTime(k).Samples >= 30
}

// TestPromiseMeta: a learned product's options say in carrier.meta where
// their estimate came from; a configured one's say nothing.
func TestPromiseMeta(t *testing.T) {
	tests := []struct {
		name    string
		mode    catalog.PromiseMode
		samples int
		want    map[string]string
	}{
		{"configured", catalog.PromiseConfigured, 40, map[string]string{}},
		{"learned", catalog.PromiseLearned, 40, map[string]string{"promise_source": "learned", "promise_samples": "40"}},
		{"learned, too few", catalog.PromiseLearned, 12, map[string]string{"promise_source": "configured", "promise_samples": "0"}},
		{"blend", catalog.PromiseBlend, 40, map[string]string{"promise_source": "blend", "promise_samples": "40"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := deliverykit.NewManualClock(testNow)
			out := engines{}
			for site, cat := range config.Demo().Catalogs() {
				cat.Promise = tt.mode
				e, err := options.New(cat, options.Options{Clock: clock, Site: site, LeadTimes: knownLeadTimes{Low: 30, High: 60, Samples: tt.samples}})
				if err != nil {
					t.Fatal(err)
				}
				out[site] = e
			}
			svc, err := session.New(memory.New(), session.Options{Engines: out, Clock: clock, IDs: &deliverykit.SequentialIDs{}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := svc.Create(t.Context(), "demo-site", input(t))
			if err != nil {
				t.Fatal(err)
			}
			meta := s.Deliveries[0].DeliveryCategories[1].DeliveryOptions[0].Carrier.Meta
			got := map[string]string{}
			for _, k := range []string{options.MetaPromiseSource, options.MetaPromiseSamples} {
				if v, ok := meta[k]; ok {
					got[k] = v
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("carrier.meta (-want +got):\n%s", diff)
			}
		})
	}
}
