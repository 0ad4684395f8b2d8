package config

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/event"
	"github.com/invopop/jsonschema"
	jsv "github.com/santhosh-tekuri/jsonschema/v6"
)

// The JSON Schema of the configuration file (config.schema.json) is
// generated from the Go types by this file, so it cannot drift from them:
//
//	go test ./config -run TestJSONSchemaUpToDate -update-config-schema
//
// invopop/jsonschema reflects the types: member names and types, no other
// members (the loader refuses unknown fields), and descriptions from the Go
// comments. Enumerations are listed here. Which members are required is
// learnt from the loader itself: a member is required when removing it
// from a valid configuration (the demo, the README's minimal one and
// webhookConfig) makes Parse refuse the file naming that member or a
// member inside it, wherever the member occurs.
var updateSchema = flag.Bool("update-config-schema", false, "rewrite config.schema.json")

const schemaFile = "config.schema.json"

// module is the import path of the module's root package.
const module = "github.com/deliverykit/deliverykit"

// schemaEnums gives the values of the file's enumerated types.
func schemaEnums(t reflect.Type) *jsonschema.Schema {
	if t == reflect.TypeFor[catalog.Text]() {
		return &jsonschema.Schema{
			Description: "A plain string for every locale, or an object of the catalog's locales to strings.",
			OneOf: []*jsonschema.Schema{{Type: "string"},
				{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "string"}, PropertyNames: &jsonschema.Schema{Pattern: "^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})+$"}}},
		}
	}
	var vals []string
	switch t {
	case reflect.TypeFor[catalog.DeliveryType]():
		vals = []string{string(catalog.DeliveryHome), string(catalog.DeliveryPickup), string(catalog.DeliveryMailbox), string(catalog.DeliveryInStore)}
	case reflect.TypeFor[catalog.AddonType]():
		vals = []string{string(catalog.AddonCustom), string(catalog.AddonCarryIn), string(catalog.AddonLeaveAtDoor), string(catalog.AddonUnwrapping)}
	case reflect.TypeFor[catalog.LocationType]():
		vals = []string{string(catalog.LocationLocker), string(catalog.LocationStore), string(catalog.LocationPostOffice), string(catalog.LocationManned)}
	case reflect.TypeFor[auth.Role]():
		vals = []string{string(auth.Viewer), string(auth.Operator)}
	case reflect.TypeFor[event.Type]():
		for _, e := range event.Types {
			vals = append(vals, string(e))
		}
	default:
		return nil
	}
	s := &jsonschema.Schema{Type: "string"}
	for _, v := range vals {
		s.Enum = append(s.Enum, v)
	}
	return s
}

// schemaSources are the files and directories, relative to the module's
// root, whose comments describe the file's types.
var schemaSources = []string{"config", "catalog", "webhook", "event", "console", "values.go"}

// buildSchema generates the schema. It runs in the module's root (the
// comments are found by path).
func buildSchema(valid [][]byte) ([]byte, error) {
	var comments jsonschema.Reflector
	for _, src := range schemaSources {
		if err := comments.AddGoComments(module, src); err != nil {
			return nil, err
		}
	}
	r := jsonschema.Reflector{
		Anonymous:      true,
		ExpandedStruct: true,
		// Required members are learnt from the loader (markRequired).
		RequiredFromJSONSchemaTags: true,
		Mapper:                     schemaEnums,
		LookupComment:              commentOf(comments.CommentMap),
	}
	s := r.Reflect(&Config{})
	s.Title = "deliverykit configuration"
	s.Description = "The sites a deliverykit server serves, their API key digests, delivery catalogs and webhook endpoints. " +
		"Check a file with the example server's -check-config: it also checks what a schema cannot (references between ids, time zones, locales)."
	if err := markRequired(s, valid); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// commentOf looks up the comment of a type or a field, on one line, and
// names a field by its JSON name where the comment starts with its Go name
// ("Locales lists …" becomes "locales lists …").
func commentOf(comments map[string]string) func(reflect.Type, string) string {
	return func(t reflect.Type, field string) string {
		key := t.PkgPath() + "." + t.Name()
		if field != "" {
			key += "." + field
		}
		text := strings.Join(strings.Fields(comments[key]), " ")
		if field == "" || t.Kind() != reflect.Struct {
			return text
		}
		if f, ok := t.FieldByName(field); ok {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if rest, ok := strings.CutPrefix(text, field+" "); ok && name != "" {
				text = name + " " + rest
			}
		}
		return text
	}
}

// markRequired sets the required members of every object of s: those
// whose removal from each of the valid configurations, at every place the
// member occurs (indices aside), makes Parse name the member.
func markRequired(s *jsonschema.Schema, valid [][]byte) error {
	// required[schema][member] is false once one removal was accepted.
	required := map[*jsonschema.Schema]map[string]bool{}
	for i, doc := range valid {
		if _, err := Parse(bytes.NewReader(doc)); err != nil {
			return fmt.Errorf("configuration %d is not valid: %w", i, err)
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.UseNumber()
		var root any
		if err := dec.Decode(&root); err != nil {
			return err
		}
		p := prober{root: root, defs: s.Definitions, required: required, seen: map[string]bool{}}
		if err := p.walk(root, s, "", ""); err != nil {
			return err
		}
	}
	for obj, members := range required {
		obj.Required = nil
		for pair := obj.Properties.Oldest(); pair != nil; pair = pair.Next() {
			if members[pair.Key] {
				obj.Required = append(obj.Required, pair.Key)
			}
		}
	}
	return nil
}

type prober struct {
	root     any
	defs     jsonschema.Definitions
	required map[*jsonschema.Schema]map[string]bool
	seen     map[string]bool // the places probed, as patterns without indices
}

// resolve follows a reference to its definition.
func (p *prober) resolve(s *jsonschema.Schema) *jsonschema.Schema {
	if s != nil && s.Ref != "" {
		return p.defs[strings.TrimPrefix(s.Ref, "#/$defs/")]
	}
	return s
}

// walk probes the members of the objects in v, described by s, at path
// (as Parse names it) and pattern (path without indices).
func (p *prober) walk(v any, s *jsonschema.Schema, path, pattern string) error {
	s = p.resolve(s)
	if s == nil {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		if s.Properties != nil && s.Properties.Len() > 0 {
			if p.required[s] == nil {
				p.required[s] = map[string]bool{}
			}
			for _, k := range sortedKeys(v) {
				sub, ok := s.Properties.Get(k)
				if !ok {
					return fmt.Errorf("%s: %s is not in the schema", path, k)
				}
				at, atPattern := join(path, k), join(pattern, k)
				if !p.seen[atPattern] {
					p.seen[atPattern] = true
					needed, err := p.needed(v, k, at)
					if err != nil {
						return err
					}
					was, probed := p.required[s][k]
					p.required[s][k] = needed && (was || !probed)
				}
				if err := p.walk(v[k], sub, at, atPattern); err != nil {
					return err
				}
			}
			return nil
		}
		if s.AdditionalProperties != nil {
			for _, k := range sortedKeys(v) {
				if err := p.walk(v[k], s.AdditionalProperties, join(path, k), join(pattern, "*")); err != nil {
					return err
				}
			}
		}
	case []any:
		for i, e := range v {
			if err := p.walk(e, s.Items, fmt.Sprintf("%s[%d]", path, i), pattern+"[]"); err != nil {
				return err
			}
		}
	}
	return nil
}

// needed removes member k of obj (at path) from the whole configuration,
// parses it and puts k back: whether Parse named the member.
func (p *prober) needed(obj map[string]any, k, path string) (bool, error) {
	v := obj[k]
	delete(obj, k)
	b, err := json.Marshal(p.root)
	obj[k] = v
	if err != nil {
		return false, err
	}
	_, err = Parse(bytes.NewReader(b))
	if err != nil && deliverykit.KindOf(err) != deliverykit.KindInvalidArgument {
		return false, err
	}
	// A member whose absence is reported inside it (an address without
	// its country) is required too.
	for _, fv := range deliverykit.ViolationsOf(err) {
		if fv.Field == path || strings.HasPrefix(fv.Field, path+".") || strings.HasPrefix(fv.Field, path+"[") {
			return true, nil
		}
	}
	return false, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// readmeMinimalConfig is the README's minimal configuration.
func readmeMinimalConfig(t *testing.T) []byte {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- minimal-config -->\n```json\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no minimal configuration block")
	}
	return m[1]
}

// webhookConfig is a valid configuration with a webhook endpoint (neither
// the demo nor the README has one).
const webhookConfig = `{"sites": [{"id": "shop", "name": "Shop", "api_key_sha256": ["` + digestA + `"],
  "webhooks": [{"id": "orders", "url": "https://shop.example/hooks", "secrets": ["whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3"],
    "events": ["order.completed", "parcel.booked"]}]}]}`

func TestJSONSchemaUpToDate(t *testing.T) {
	valid := [][]byte{demoJSON, readmeMinimalConfig(t), []byte(webhookConfig)}
	t.Chdir("..")
	want, err := buildSchema(valid)
	if err != nil {
		t.Fatal(err)
	}
	file := "config/" + schemaFile
	if *updateSchema {
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) || !bytes.Equal(JSONSchema(), want) {
		t.Fatalf("%s is stale; run: go test ./config -run TestJSONSchemaUpToDate -update-config-schema", file)
	}
}

// compiledSchema is config.schema.json, compiled by a validator that
// follows the JSON Schema specification (santhosh-tekuri/jsonschema).
func compiledSchema(t *testing.T) *jsv.Schema {
	t.Helper()
	doc, err := jsv.UnmarshalJSON(bytes.NewReader(JSONSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := jsv.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestJSONSchemaValidates: the valid configurations pass the schema, and
// files with the mistakes an editor should point out do not.
func TestJSONSchemaValidates(t *testing.T) {
	s := compiledSchema(t)
	minimal := string(readmeMinimalConfig(t))
	tests := []struct {
		name  string
		file  string
		valid bool
	}{
		{"demo", string(demoJSON), true},
		{"README minimal", minimal, true},
		{"webhooks", webhookConfig, true},
		{"$schema named", strings.Replace(minimal, `{`, `{"$schema": "https://shop.example/openapi/config.schema.json",`, 1), true},
		{"unknown member", strings.Replace(minimal, `"cut_off": "15:00"`, `"cut_off": "15:00", "colour": "red"`, 1), false},
		{"unknown top-level member", strings.Replace(minimal, `{`, `{"site": [],`, 1), false},
		{"not an enumerated value", strings.Replace(minimal, `"delivery_type": "DELIVERY",`, `"delivery_type": "DRONE",`, 1), false},
		{"unknown event type", strings.Replace(webhookConfig, `"parcel.booked"`, `"parcel.lost"`, 1), false},
		{"wrong type", strings.Replace(minimal, `"price": 4900`, `"price": "49.00"`, 1), false},
		{"required member missing", strings.Replace(minimal, `"name": "My Shop",`, ``, 1), false},
		{"required nested member missing", strings.Replace(minimal, `, "country": "SE"`, ``, 1), false},
		{"no sites", `{}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inst, err := jsv.UnmarshalJSON(strings.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(inst)
			if (err == nil) != tt.valid {
				t.Errorf("valid = %v, want %v: %v", err == nil, tt.valid, err)
			}
			// What the schema refuses, the loader refuses too.
			if _, perr := Parse(strings.NewReader(tt.file)); (perr == nil) != tt.valid {
				t.Errorf("Parse: %v, want valid %v", perr, tt.valid)
			}
		})
	}
}

// join appends key to a dotted path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
