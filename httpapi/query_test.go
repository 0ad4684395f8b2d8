package httpapi

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzQueryFirst holds queryFirst to url.Values.Get of r.URL.Query(), for
// the parcels read's parameters and for repeated names.
func FuzzQueryFirst(f *testing.F) {
	for _, q := range []string{
		"",
		"site_id=demo-site&tracking_number=TN1",
		"tracking_number=TN1&tracking_number=TN2",
		"tracking_number=&tracking_number=TN2",
		"tracking_number&site_id=x",
		"&&tracking_number=TN1&",
		"=TN1&tracking_number==x",
		"tracking_number=TN%201&site_id=a+b",
		"tracking%5Fnumber=TN1",
		"tracking_number=%zz&tracking_number=TN2",
		"a=1;tracking_number=TN1&tracking_number=TN2",
		"token=t&external_id=e&x=1&y=2",
		strings.Repeat("x=1&", 20) + "tracking_number=TN1",
		strings.Repeat("&", 15) + "tracking_number=TN1",
	} {
		f.Add(q)
	}
	names := []string{"site_id", "tracking_number", "external_id", "token", "tracking_number"}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest("GET", "/v1/delivery_tracking/parcels", nil)
		r.URL.RawQuery = raw
		q := r.URL.Query()
		want := make([]string, len(names))
		for i, n := range names {
			want[i] = q.Get(n)
		}
		got := make([]string, len(names))
		for i := range got {
			got[i] = "stale"
		}
		queryFirst(r, names, got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("query %q (-url.Values +queryFirst):\n%s", raw, diff)
		}
	})
}

// TestQueryFirstAllocates: a plain query is read without allocating.
func TestQueryFirstAllocates(t *testing.T) {
	r := httptest.NewRequest("GET", "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number=TN1", nil)
	names := []string{"site_id", "tracking_number", "external_id", "token"}
	var vals [4]string
	if n := testing.AllocsPerRun(100, func() { queryFirst(r, names, vals[:]) }); n != 0 {
		t.Errorf("queryFirst allocated %v times, want 0", n)
	}
	if diff := cmp.Diff([4]string{"demo-site", "TN1", "", ""}, vals); diff != "" {
		t.Errorf("values (-want +got):\n%s", diff)
	}
}
