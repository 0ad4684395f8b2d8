// Package config loads the configuration of a deliverykit deployment: the
// sites (merchants) it serves, the digests of their API keys and each
// site's delivery catalog (package catalog: warehouses, carriers, delivery
// categories, pickup locations, return policy).
//
// The file is JSON. Unknown fields are rejected, unlike on the wire: a typo
// in a configuration file should stop the server at start, not be ignored.
// Every problem is reported with the JSON path of the field.
//
//	{
//	  "sites": [
//	    {"id": "demo-site", "name": "Demo Outdoor Store",
//	     "api_key_sha256": ["<64 hex characters: printf %s "$KEY" | sha256sum>"]}
//	  ]
//	}
//
// API keys are never written in the file, only their SHA-256 digests. A
// site's "catalog" is optional (a site that only tracks parcels needs
// none); when present it is validated at load, and its problems are
// reported under "sites[i].catalog.…".
package config

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/testmode"
	"github.com/deliverykit/deliverykit/webhook"
)

// Config is a whole deployment's configuration.
type Config struct {
	// Schema names the JSON Schema of the file, so that editors check
	// and complete it: a path relative to the file (the repository's
	// config/config.schema.json) or a running server's
	// /openapi/config.schema.json. The server ignores it.
	Schema string `json:"$schema,omitempty"`
	Sites  []Site `json:"sites"`
	// Returns configures the returns area across sites (returns.go).
	Returns *Returns `json:"returns,omitempty"`
	// Retention says how long records are kept once no longer in use;
	// missing, every default applies.
	Retention *Retention `json:"retention,omitempty"`
	// WebhookPorts are the ports webhook URLs may name besides 443, 80
	// and 8443 (webhook.DefaultPorts), e.g. a receiver on 9443.
	WebhookPorts []int `json:"webhook_ports,omitempty"`
}

// Site is one merchant site. Its id scopes every record the site owns.
type Site struct {
	// ID is the site id clients send as site_id (areas A and B) and that
	// owns every record created with the site's keys.
	ID string `json:"id"`
	// Name is shown to customers (tracking page, sender_name, site_name).
	Name string `json:"name"`
	// APIKeySHA256 lists the hexadecimal SHA-256 digests of the site's API
	// keys. Several keys allow rotation without downtime.
	APIKeySHA256 []string `json:"api_key_sha256"`
	// Catalog is the site's delivery offering, used by the checkout and
	// delivery sessions; nil when the site offers none.
	Catalog *catalog.Catalog `json:"catalog,omitempty"`
	// Webhooks are the site's webhook endpoints (package webhook): where
	// events are POSTed, signed with which secrets, and which event types
	// each wants. Their problems are reported under "sites[i].webhooks[j].…".
	Webhooks []webhook.Endpoint `json:"webhooks,omitempty"`
	// Mode is live (the default: real orders) or test: a test-mode
	// site's key creates isolated test sites with clocks of their own
	// (package testmode, POST /v1/test/sites). The demo sites are test.
	Mode testmode.Mode `json:"mode,omitempty"`
	// Staff are the site's merchant console accounts (package console),
	// used when the console is enabled. An e-mail logs in to one site
	// only: it appears once across all sites.
	Staff []StaffAccount `json:"staff,omitempty"`
}

// StaffAccount is a merchant console login.
type StaffAccount struct {
	// Email names the account at login (compared without case).
	Email string `json:"email"`
	// Role is viewer (reads) or operator (also acts: resends
	// notifications, decides returns and complaints, marks refunds,
	// redelivers webhooks, retries dead events).
	Role auth.Role `json:"role"`
	// PasswordHash is the password's argon2id hash in the PHC string
	// format ($argon2id$v=19$m=…,t=…,p=…$salt$key): the example server
	// prints one with -hash-password.
	PasswordHash string `json:"password_hash"`
}

// maxStaffEmail is the longest staff e-mail address (RFC 5321's path
// limit).
const maxStaffEmail = 254

//go:embed demo.json
var demoJSON []byte

// Demo returns the embedded demo configuration: sites "demo-site" (API key
// "demo-key", a Swedish store pricing in SEK) and "demo-site-2" (API key
// "demo-key-2", a German store pricing in EUR). Both have a delivery catalog
// for Sweden and Germany: home delivery (with addons), pickup points and
// lockers of two carriers, mailbox and in-store collection, free shipping
// above a cart value and a return policy. The keys are public: never use the
// demo configuration outside development.
func Demo() *Config {
	c, err := Parse(bytes.NewReader(demoJSON))
	if err != nil {
		panic("config: embedded demo configuration is invalid: " + err.Error())
	}
	return c
}

// Load reads and validates the configuration file at path.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	defer f.Close()
	c, err := Parse(f)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}

// MaxFileBytes bounds a configuration file: catalogs with many pickup
// locations are large, but not this large.
const MaxFileBytes = 64 << 20

// Parse decodes and validates a configuration. Errors are
// *deliverykit.Error values of KindInvalidArgument whose violations name
// the fields.
func Parse(r io.Reader) (*Config, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if len(data) > MaxFileBytes {
		return nil, deliverykit.InvalidField("", "size", fmt.Sprintf("the configuration is larger than %d bytes", MaxFileBytes))
	}
	if err := checkShape(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, decodeError(err)
	}
	if dec.More() {
		return nil, deliverykit.InvalidField("", "json", "unexpected data after the configuration object")
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

func decodeError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return deliverykit.InvalidField("", "json", fmt.Sprintf("malformed JSON at byte %d: %v", syn.Offset, syn))
	case errors.As(err, &typ):
		return deliverykit.InvalidField(typ.Field, "type", fmt.Sprintf("expected %s, got JSON %s", typ.Type, typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return deliverykit.InvalidField(field, "unknown", "unknown field (check its spelling)")
	case errors.Is(err, io.EOF):
		return deliverykit.InvalidField("", "required", "configuration is empty")
	}
	return deliverykit.InvalidField("", "json", err.Error())
}

// maxWebhookPorts bounds webhook_ports: a few receivers' ports, not a
// range that would undo the limit.
const maxWebhookPorts = 16

// siteID allows what is safe in a storage key and in a URL.
var siteID = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// Validate checks the configuration and returns an InvalidArgument error
// listing every problem.
func (c *Config) Validate() error {
	var vs []deliverykit.FieldViolation
	bad := func(field, rule, msg string) {
		vs = append(vs, deliverykit.FieldViolation{Field: field, Rule: rule, Message: msg})
	}
	if len(c.Sites) == 0 {
		bad("sites", "required", "at least one site is required")
	}
	if len(c.WebhookPorts) > maxWebhookPorts {
		bad("webhook_ports", "max", fmt.Sprintf("must have at most %d entries", maxWebhookPorts))
	}
	for i, port := range c.WebhookPorts {
		if port < 1 || port > 65535 {
			bad(fmt.Sprintf("webhook_ports[%d]", i), "port", "must be a port number, 1 to 65535")
		}
	}
	ids := map[string]int{}
	digests := map[string]string{}
	staff := map[string]string{} // e-mail → the account that has it
	for i, s := range c.Sites {
		p := fmt.Sprintf("sites[%d]", i)
		switch {
		case s.ID == "":
			bad(p+".id", "required", "is required")
		case !siteID.MatchString(s.ID):
			bad(p+".id", "format", "must be 1-64 lower-case letters, digits, '-' or '_', starting with a letter or digit")
		case testmode.IsTestSite(s.ID):
			bad(p+".id", "format", "must not start with "+testmode.SiteIDPrefix+", which names the test sites a test-mode site creates")
		default:
			if j, dup := ids[s.ID]; dup {
				bad(p+".id", "unique", fmt.Sprintf("%q is already the id of sites[%d]", s.ID, j))
			}
			ids[s.ID] = i
		}
		if s.Mode != "" && s.Mode != testmode.ModeLive && s.Mode != testmode.ModeTest {
			bad(p+".mode", "oneof", fmt.Sprintf("want live or test, got %q", s.Mode))
		}
		if strings.TrimSpace(s.Name) == "" {
			bad(p+".name", "required", "is required")
		}
		if len(s.APIKeySHA256) == 0 {
			bad(p+".api_key_sha256", "required", "at least one API key digest is required")
		}
		for k, h := range s.APIKeySHA256 {
			f := fmt.Sprintf("%s.api_key_sha256[%d]", p, k)
			d, err := auth.ParseDigest(strings.ToLower(h))
			if err != nil {
				bad(f, "sha256", err.Error())
				continue
			}
			if other, dup := digests[d.String()]; dup {
				bad(f, "unique", "the same key is already configured for "+other)
				continue
			}
			digests[d.String()] = p
		}
		if s.Catalog != nil {
			for _, v := range deliverykit.ViolationsOf(s.Catalog.Validate()) {
				bad(p+".catalog."+v.Field, v.Rule, v.Message)
			}
		}
		for _, v := range deliverykit.ViolationsOf(webhook.Validate(s.Webhooks, c.WebhookPorts...)) {
			bad(p+"."+v.Field, v.Rule, v.Message)
		}
		for k, st := range s.Staff {
			f := fmt.Sprintf("%s.staff[%d]", p, k)
			email := strings.ToLower(strings.TrimSpace(st.Email))
			switch {
			case email == "":
				bad(f+".email", "required", "is required")
			case len(email) > maxStaffEmail || !strings.Contains(email, "@"):
				bad(f+".email", "email", fmt.Sprintf("want an e-mail address of at most %d bytes", maxStaffEmail))
			default:
				if other, dup := staff[email]; dup {
					bad(f+".email", "unique", "the same e-mail is already an account of "+other)
				}
				staff[email] = f
			}
			if st.Role != auth.Viewer && st.Role != auth.Operator {
				bad(f+".role", "oneof", fmt.Sprintf("want viewer or operator, got %q", st.Role))
			}
			if err := auth.CheckPasswordHash(st.PasswordHash); err != nil {
				bad(f+".password_hash", "argon2id", err.Error())
			}
		}
	}
	vs = append(vs, c.Returns.validate()...)
	vs = append(vs, c.Retention.violations()...)
	if len(vs) > 0 {
		return deliverykit.Invalid(vs...)
	}
	return nil
}

// Staff returns every site's console accounts. c must be valid.
func (c *Config) Staff() []auth.Staff {
	var out []auth.Staff
	for _, s := range c.Sites {
		for _, st := range s.Staff {
			out = append(out, auth.Staff{Site: s.ID, Email: st.Email, Role: st.Role, PasswordHash: st.PasswordHash})
		}
	}
	return out
}

// Keyring returns the keyring of all sites' API keys. c must be valid.
func (c *Config) Keyring() *auth.Keyring {
	var k auth.Keyring
	for _, s := range c.Sites {
		for _, h := range s.APIKeySHA256 {
			d, err := auth.ParseDigest(strings.ToLower(h))
			if err != nil {
				continue // Validate rejects it; a Config built in code may skip Validate
			}
			k.Add(s.ID, d)
		}
	}
	return &k
}

// Catalogs returns the catalog of every site that has one, by site id.
func (c *Config) Catalogs() map[string]*catalog.Catalog {
	m := map[string]*catalog.Catalog{}
	for _, s := range c.Sites {
		if s.Catalog != nil {
			m[s.ID] = s.Catalog
		}
	}
	return m
}

// Names returns every site's display name, by site id.
func (c *Config) Names() map[string]string {
	m := make(map[string]string, len(c.Sites))
	for _, s := range c.Sites {
		m[s.ID] = s.Name
	}
	return m
}

// Webhooks returns the webhook endpoints of every site that has some, by
// site id (webhook.Options.Endpoints).
func (c *Config) Webhooks() map[string][]webhook.Endpoint {
	m := map[string][]webhook.Endpoint{}
	for _, s := range c.Sites {
		if len(s.Webhooks) > 0 {
			m[s.ID] = s.Webhooks
		}
	}
	return m
}

// Site returns the site with the given id.
func (c *Config) Site(id string) (Site, bool) {
	for _, s := range c.Sites {
		if s.ID == id {
			return s, true
		}
	}
	return Site{}, false
}
