package config

import (
	"bytes"
	_ "embed"
)

//go:embed config.schema.json
var schemaJSON []byte

// JSONSchema returns the JSON Schema (draft 2020-12) of the configuration
// file. It is generated from the Go types (schema_test.go) and describes
// every member, its type, the values an enumeration takes, the members
// that are required, and that no other member is allowed. Editors that
// know JSON Schema check and complete a file whose "$schema" names it.
//
// The schema says what a file may look like; Parse says more: it checks
// the references between ids, the key digests, time zones, locales and
// the other rules of package catalog.
func JSONSchema() []byte { return bytes.Clone(schemaJSON) }
