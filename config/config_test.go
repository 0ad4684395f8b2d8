package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/google/go-cmp/cmp"
)

const digestA = "c48a01f49fd0f2cc404bc3cbbc80e91457a3d41bb429a695243de4c61794155c"

func TestDemo(t *testing.T) {
	c := Demo()
	keys := c.Keyring()
	for key, want := range map[string]string{"demo-key": "demo-site", "demo-key-2": "demo-site-2"} {
		got, ok := keys.Authenticate(key)
		if !ok || got != want {
			t.Errorf("Authenticate(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if s, ok := c.Site("demo-site"); !ok || s.Name == "" {
		t.Errorf("Site(demo-site) = %+v, %v", s, ok)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		fields []string
	}{
		{"empty", ``, []string{""}},
		{"malformed", `{"sites": [`, []string{""}},
		{"trailing", `{"sites":[{"id":"a","name":"A","api_key_sha256":["` + digestA + `"]}]} {}`, []string{""}},
		{"unknown field", `{"sitez": []}`, []string{"sitez"}},
		{"wrong type", `{"sites": {}}`, []string{"sites"}},
		{"no sites", `{"sites": []}`, []string{"sites"}},
		{"site problems", `{"sites": [{"id": "Bad Id", "name": " ", "api_key_sha256": ["abc"]}, {"id": "", "name": "x"}]}`,
			[]string{"sites[0].id", "sites[0].name", "sites[0].api_key_sha256[0]", "sites[1].id", "sites[1].api_key_sha256"}},
		{"duplicates", `{"sites": [{"id": "a", "name": "A", "api_key_sha256": ["` + digestA + `"]}, {"id": "a", "name": "B", "api_key_sha256": ["` + strings.ToUpper(digestA) + `"]}]}`,
			[]string{"sites[1].id", "sites[1].api_key_sha256[0]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			if !errors.Is(err, deliverykit.ErrInvalidArgument) {
				t.Fatalf("Parse error = %v, want invalid argument", err)
			}
			var got []string
			for _, v := range deliverykit.ViolationsOf(err) {
				got = append(got, v.Field)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("violation fields (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, []byte(`{"sites":[{"id":"shop-1","name":"Shop","api_key_sha256":["`+digestA+`"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if site, ok := c.Keyring().Authenticate("demo-key"); !ok || site != "shop-1" {
		t.Errorf("Authenticate = %q, %v", site, ok)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("Load(missing) error = %v, want one naming the file", err)
	}
}
