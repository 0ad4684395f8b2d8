package httpapi

import (
	"bytes"
	"embed"
	"encoding/json"
	"html/template"
	"net/http"
	"sync"

	"github.com/deliverykit/deliverykit"
)

// The API documentation, served without a key:
//
//   - GET /openapi lists the OpenAPI documents the handler serves (title,
//     version, path) in JSON;
//   - GET /openapi/reference is a page listing them, and
//     GET /openapi/reference/{name} shows one, rendered in the browser by
//     Redoc from the bundle embedded here, so the pages load nothing from
//     elsewhere (their Content-Security-Policy says so);
//   - GET /openapi/config.schema.json is the JSON Schema of the
//     configuration file, when Options.ConfigSchema holds it (wiring's
//     Handler passes config.JSONSchema); the index and the pages link it
//     only then.

const (
	docsBase          = "/openapi"
	docsReferencePath = docsBase + "/reference"
	docsAssetsPath    = docsBase + "/assets/"
	configSchemaPath  = docsBase + "/config.schema.json"
)

// areaDocs is the documentation: public, answered in the REST error shape.
var areaDocs = area{name: "docs", base: docsBase, style: styleREST, scheme: schemeBearerBase64}

// apiDocument is an OpenAPI document the handler serves.
type apiDocument struct {
	name   string // its reference page is /openapi/reference/{name}
	label  string // its name in the reference pages' navigation
	path   string // where it is served
	body   []byte
	served func(*Options) bool // whether New serves it
}

// apiDocuments lists every OpenAPI document the handler can serve, in the
// order the index and the reference pages show them. An API, or a new
// generation of one, adds its line; TestDocsIndexListsEveryDocument fails
// while a served document is missing here.
var apiDocuments = []apiDocument{
	{name: "tracking", label: "Tracking and notifications", path: areaTracking.base + "/_/openapi.json", body: trackingOpenAPI, served: func(o *Options) bool { return o.Tracking != nil }},
	{name: "checkout", label: "Checkout", path: areaCheckout.base + "/_/swagger.json", body: checkoutOpenAPI, served: func(o *Options) bool { return o.Checkout != nil }},
	{name: "delivery_checkout", label: "Checkout, newer generation", path: areaDeliveryCheckout.base + "/_/swagger.json", body: deliveryCheckoutOpenAPI, served: func(o *Options) bool { return o.Checkout != nil }},
	{name: "session", label: "Delivery session", path: areaSession.base + "/openapi.json", body: sessionOpenAPI, served: func(o *Options) bool { return o.Session != nil }},
	{name: "returns", label: "Returns", path: areaReturns.base + "/openapi.json", body: returnsOpenAPI, served: func(o *Options) bool { return o.Returns != nil }},
	{name: "shipment", label: "Shipments", path: areaShipment.base + "/openapi.json", body: shipmentOpenAPI, served: func(o *Options) bool { return o.Shipment != nil }},
	{name: "test", label: "Test mode", path: areaTest.base + "/openapi.json", body: testOpenAPI, served: func(o *Options) bool { return o.TestSites != nil }},
	{name: "webhooks", label: "Webhooks", path: areaWebhooks.base + "/openapi.json", body: webhooksOpenAPI, served: func(o *Options) bool { return o.Webhooks != nil || o.Outbox != nil }},
}

// openAPIInfo is the info object of a document.
type openAPIInfo struct {
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
}

// apiDocumentInfos are the info objects of apiDocuments, by name, read
// once.
var apiDocumentInfos = sync.OnceValue(func() map[string]openAPIInfo {
	m := make(map[string]openAPIInfo, len(apiDocuments))
	for _, d := range apiDocuments {
		var doc struct {
			Info openAPIInfo `json:"info"`
		}
		// The documents are embedded and tested; one that does not
		// parse is listed without a title.
		_ = json.Unmarshal(d.body, &doc)
		m[d.name] = doc.Info
	}
	return m
})

// docsIndex is the answer of GET /openapi.
type docsIndex struct {
	Documents    []docsIndexEntry `json:"documents"`
	Reference    string           `json:"reference"`
	ConfigSchema string           `json:"config_schema,omitempty"`
}

type docsIndexEntry struct {
	Name      string `json:"name"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Path      string `json:"path"`
	Reference string `json:"reference"`
}

// servedDocument is a document New serves, as the pages show it.
type servedDocument struct {
	Name, Label, Path, Reference string
	openAPIInfo
}

//go:embed reference/*.html reference/reference.js reference/redoc.standalone.js
var referenceFiles embed.FS

// redocVersion is the version of the embedded Redoc bundle
// (reference/redoc.standalone.js, npm package redoc, MIT licence); its
// asset path carries it, so browsers may cache the file for good.
const redocVersion = "2.5.4"

var referenceTemplates = template.Must(template.ParseFS(referenceFiles, "reference/*.html"))

// docsPage is what the reference templates show.
type docsPage struct {
	Documents    []servedDocument
	Current      *servedDocument // nil on the list
	IndexPath    string
	ListPath     string
	ConfigSchema string
	RedocJS      string
	ReferenceJS  string
}

// registerDocs serves the index, the reference pages, their scripts and
// the configuration schema.
func (s *server) registerDocs(opts *Options) {
	var docs []servedDocument
	schemaPath := "" // no link to a schema that is not served
	if len(opts.ConfigSchema) > 0 {
		schemaPath = configSchemaPath
	}
	index := docsIndex{Documents: []docsIndexEntry{}, Reference: docsReferencePath, ConfigSchema: schemaPath}
	for _, d := range apiDocuments {
		if !d.served(opts) {
			continue
		}
		info := apiDocumentInfos()[d.name]
		ref := docsReferencePath + "/" + d.name
		docs = append(docs, servedDocument{Name: d.name, Label: d.label, Path: d.path, Reference: ref, openAPIInfo: info})
		index.Documents = append(index.Documents, docsIndexEntry{Name: d.name, Title: info.Title, Version: info.Version, Path: d.path, Reference: ref})
	}
	indexJSON, err := json.Marshal(index)
	if err != nil {
		panic("httpapi: the documentation index does not encode: " + err.Error())
	}
	h := docsHandlers{page: docsPage{
		Documents:    docs,
		IndexPath:    docsBase,
		ListPath:     docsReferencePath,
		ConfigSchema: schemaPath,
		RedocJS:      redocAsset.path,
		ReferenceJS:  referenceAsset.path,
	}}
	a := areaDocs
	s.routePublic(a, docsBase, getOrHead(sharedDocument(indexJSON)))
	if schemaPath != "" {
		s.routePublic(a, configSchemaPath, getOrHead(sharedDocument(opts.ConfigSchema)))
	}
	s.routePublic(a, docsReferencePath, getOrHead(h.list))
	s.routePublic(a, docsReferencePath+"/{name}", getOrHead(h.reference))
	s.routePublic(a, redocAsset.path, getOrHead(redocAsset.serve))
	s.routePublic(a, referenceAsset.path, getOrHead(referenceAsset.serve))
}

// getOrHead serves GET and HEAD (net/http sends no body for HEAD).
func getOrHead(h endpoint) methods { return methods{http.MethodGet: h, http.MethodHead: h} }

type docsHandlers struct {
	page docsPage
}

// list is the page listing the documents.
func (h docsHandlers) list(w http.ResponseWriter, r *http.Request, _ string) error {
	return writeDocsPage(w, "list.html", h.page)
}

// reference is one document's reference page.
func (h docsHandlers) reference(w http.ResponseWriter, r *http.Request, _ string) error {
	name := r.PathValue("name")
	for i := range h.page.Documents {
		if h.page.Documents[i].Name == name {
			p := h.page
			p.Current = &p.Documents[i]
			return writeDocsPage(w, "reference.html", p)
		}
	}
	return deliverykit.E(deliverykit.KindNotFound, "no such API document")
}

func writeDocsPage(w http.ResponseWriter, name string, p docsPage) error {
	var buf bytes.Buffer
	if err := referenceTemplates.ExecuteTemplate(&buf, name, p); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
	return nil
}

// The reference pages' scripts.
var (
	redocAsset = referenceScript(docsAssetsPath+"redoc-"+redocVersion+".standalone.js", "reference/redoc.standalone.js",
		"public, max-age=31536000, immutable")
	referenceAsset = referenceScript(docsAssetsPath+"reference.js", "reference/reference.js", "no-cache")
)

func referenceScript(path, file, cacheControl string) *staticAsset {
	body, err := referenceFiles.ReadFile(file)
	if err != nil {
		panic("httpapi: " + err.Error())
	}
	return newStaticAsset(path, "text/javascript; charset=utf-8", body, cacheControl)
}
