package checkout

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/deliverykit/deliverykit/internal/validation"
)

// The names html_snippet uses on the merchant's page when the session has
// no SnippetConfiguration: the container existing front-ends look up and
// the global function they call.
const (
	DefaultContainerID = "shipwallet-container"
	DefaultObjectID    = "_sw"
)

// MaxSnippetNameLength bounds container_id and object_id; their patterns
// allow no more. Tag: max_snippet_name.
const MaxSnippetNameLength = 64

// SnippetConfiguration renames, for one session, the element html_snippet
// renders into and the global function the front-end calls: a page with
// two widgets gives each its own ({"container_id": "widget-container-1",
// "object_id": "widget_1"}) and calls window.widget_1(function (api) { … }).
// An empty field is its default (DefaultContainerID, DefaultObjectID).
//
// ContainerID becomes an element id: a letter, then letters, digits, '_'
// and '-'. ObjectID becomes a property of window: a JavaScript identifier
// that is neither a reserved word nor a name the browser or the page
// already relies on (window, document, eval, constructor, onload, …).
type SnippetConfiguration struct {
	ContainerID string `json:"container_id,omitempty" validate:"omitempty,max_snippet_name,checkout_html_id"`
	ObjectID    string `json:"object_id,omitempty" validate:"omitempty,max_snippet_name,checkout_js_name"`
}

// names is c with the defaults filled in.
func (c SnippetConfiguration) names() (container, object string) {
	return cmp.Or(c.ContainerID, DefaultContainerID), cmp.Or(c.ObjectID, DefaultObjectID)
}

var (
	htmlIDPattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z][A-Za-z0-9_-]{0,%d}$`, MaxSnippetNameLength-1))
	jsNamePattern = regexp.MustCompile(fmt.Sprintf(`^[A-Za-z_$][A-Za-z0-9_$]{0,%d}$`, MaxSnippetNameLength-1))
)

// snippetRules are the validation rules of SnippetConfiguration's fields.
var snippetRules = []validation.Rule{
	validation.Max("max_snippet_name", MaxSnippetNameLength),
	{Tag: "checkout_html_id", Message: "must be an HTML id: a letter, then letters, digits, '_' or '-' (at most 64)",
		Func: func(fl validator.FieldLevel) bool { return htmlIDPattern.MatchString(fl.Field().String()) }},
	{Tag: "checkout_js_name", Message: "must be a JavaScript identifier (letters, digits, '_' or '$', not first a digit; at most 64) " +
		"that is not a reserved word or a global the page relies on",
		Func: func(fl validator.FieldLevel) bool { return safeGlobalName(fl.Field().String()) }},
}

// safeGlobalName reports whether name may become window[name]: an
// identifier the widget can define without breaking the language (a
// reserved word cannot be called as window.name()), the page (window,
// document, fetch, …) or objects themselves (__proto__, constructor). Event
// handler properties (onload, onerror) are refused as a family: assigning
// a function to one subscribes it to the window's events.
func safeGlobalName(name string) bool {
	if !jsNamePattern.MatchString(name) || reservedGlobals[name] {
		return false
	}
	if rest, ok := strings.CutPrefix(name, "on"); ok && rest != "" && strings.ToLower(rest) == rest {
		return false
	}
	return true
}

// reservedGlobals are the JavaScript reserved words and the globals
// (window's own properties, the built-in objects, the properties every
// object has) a session must not rename the widget's function to.
var reservedGlobals = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		break case catch class const continue debugger default delete do else enum export extends false finally for
		function if import in instanceof new null return super switch this throw true try typeof var void while with
		yield let static implements interface package private protected public await async of get set arguments
		undefined NaN Infinity
		window self top parent frames opener globalThis document location history navigator screen name status
		origin length closed frameElement customElements visualViewport event external performance crypto
		localStorage sessionStorage indexedDB caches cookieStore
		eval Function Object Array String Number Boolean Symbol BigInt Math JSON Date RegExp Error Promise Proxy
		Reflect Map Set WeakMap WeakSet isNaN isFinite parseInt parseFloat encodeURI encodeURIComponent decodeURI
		decodeURIComponent escape unescape
		alert confirm prompt print open close stop focus blur postMessage fetch XMLHttpRequest WebSocket Worker
		setTimeout setInterval clearTimeout clearInterval requestAnimationFrame cancelAnimationFrame
		queueMicrotask structuredClone atob btoa addEventListener removeEventListener dispatchEvent
		getComputedStyle matchMedia scroll scrollTo scrollBy
		constructor prototype __proto__ __defineGetter__ __defineSetter__ __lookupGetter__ __lookupSetter__
		hasOwnProperty isPrototypeOf propertyIsEnumerable toString toLocaleString valueOf
		deliverykitCheckout`) {
		m[w] = true
	}
	return m
}()
