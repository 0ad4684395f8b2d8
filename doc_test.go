package deliverykit_test

import (
	"errors"
	"fmt"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	pathpkg "path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/deliverykit/deliverykit"

// docPackage is a line of the package list in doc.go: a tab, the
// package's path in the module, two spaces or more, what it is.
var docPackage = regexp.MustCompile(`^\t([a-z0-9/]+)  +\S`)

// The package doc lists every package of the module once, by layer, and
// the imports keep to it: no package imports one of a layer above its own
// (the root package is the bottom layer and imports none), an area imports
// no other area, and a package in another's folder is in that package's
// layer, so the folders show the layering. Only the imports of a
// package's non-test files count: tests may drive a package from above (a
// store's tests run the retention suite on it).
func TestDocListsEveryPackageByLayer(t *testing.T) {
	layer, headings := docLayers(t)
	imports := moduleImports(t)

	var missing []string
	for path := range imports {
		if _, ok := layer[path]; !ok && path != "." {
			missing = append(missing, path)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("doc.go does not list %v", missing)
	}
	layer["."] = len(headings) // the root: below every listed layer
	for path, l := range layer {
		if _, ok := imports[path]; !ok {
			t.Errorf("doc.go lists %s, which is not a package of the module", path)
		}
		for _, v := range layerViolations(path, imports[path], layer, headings) {
			t.Error(v)
		}
		if parent := enclosingPackage(path, layer); parent != "" && layer[parent] != l {
			t.Errorf("%s is in %q but the folder it is in, %s, is in %q: the folder misstates its layer", path, headings[l], parent, headings[layer[parent]])
		}
	}
}

// The rules catch each way an import can break the layering.
func TestLayerViolations(t *testing.T) {
	headings := []string{"Programs", "Assembly", "Areas (they never import each other)", "Services", "Storage", "root"}
	layer := map[string]int{"examples/server": 0, "wiring": 1, "tracking": 2, "tracking/page": 2, "checkout": 2,
		"outbox": 3, "retention": 3, "storage": 4, ".": 5}
	tests := []struct {
		name    string
		path    string
		imports []string
		want    int
	}{
		{"down, across layers", "wiring", []string{module + "/tracking", module + "/storage", module}, 0},
		{"within a layer", "outbox", []string{module + "/retention"}, 0},
		{"within an area", "tracking/page", []string{module + "/tracking"}, 0},
		{"outside the module", "tracking", []string{"github.com/google/go-cmp/cmp", "context"}, 0},
		{"a layer up", "outbox", []string{module + "/tracking"}, 1},
		{"two layers up", "storage", []string{module + "/wiring"}, 1},
		{"the root imports a package", ".", []string{module + "/storage"}, 1},
		{"another area", "tracking", []string{module + "/checkout"}, 1},
		{"another area's subpackage", "checkout", []string{module + "/tracking/page"}, 1},
		{"both", "checkout", []string{module + "/tracking", module + "/wiring"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layerViolations(tt.path, tt.imports, layer, headings)
			if len(got) != tt.want {
				t.Errorf("layerViolations = %q, want %d", got, tt.want)
			}
		})
	}
	for path, want := range map[string]string{"tracking/page": "tracking", "tracking": "", "examples/server": "", "storage/postgres/internal/pgtest": "storage", "bench/http": ""} {
		if got := enclosingPackage(path, layer); got != want {
			t.Errorf("enclosingPackage(%s) = %q, want %q", path, got, want)
		}
	}
}

// docLayers reads the package list of doc.go: each package's layer (0 the
// top) and the layers' headings.
func docLayers(t *testing.T) (map[string]int, []string) {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	layer := map[string]int{}
	var headings []string
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasPrefix(line, "# ") {
			break // the sections after the package list
		}
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "\t") {
			headings = append(headings, line)
			continue
		}
		if m := docPackage.FindStringSubmatch(line); m != nil {
			if _, dup := layer[m[1]]; dup {
				t.Errorf("doc.go lists %s twice", m[1])
			}
			layer[m[1]] = len(headings) - 1
		}
	}
	if !slices.ContainsFunc(headings, isAreas) {
		t.Fatalf("doc.go has no layer of areas among %q", headings)
	}
	return layer, headings
}

// moduleImports are the imports of the non-test files of every package of
// the module, by the package's path in the module ("." the root).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		var none *build.NoGoError
		if errors.As(err, &none) {
			return nil
		}
		if err != nil {
			return err
		}
		imports[filepath.ToSlash(path)] = pkg.Imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// layerViolations says what in imports, the imports of the package at
// path, breaks the layering of layer.
func layerViolations(path string, imports []string, layer map[string]int, headings []string) []string {
	var v []string
	l := layer[path]
	for _, imp := range imports {
		dep, ok := strings.CutPrefix(imp, module+"/")
		if imp == module {
			dep, ok = ".", true
		}
		up, listed := layer[dep]
		switch {
		case !ok || !listed:
		case up < l:
			v = append(v, fmt.Sprintf("%s (%q) imports %s, of %q above it", path, headings[l], dep, headings[up]))
		case up == l && isAreas(headings[l]) && area(dep) != area(path):
			v = append(v, fmt.Sprintf("area %s imports %s, another area", path, dep))
		}
	}
	return v
}

// isAreas reports whether a heading of doc.go is the areas' layer.
func isAreas(heading string) bool { return strings.HasPrefix(heading, "Areas") }

// area is the area a package of the areas' layer belongs to: the first
// element of its path.
func area(path string) string { return strings.Split(path, "/")[0] }

// enclosingPackage is the listed package whose folder holds path's, the
// nearest one, or "" when none does.
func enclosingPackage(path string, layer map[string]int) string {
	for dir := pathpkg.Dir(path); dir != "."; dir = pathpkg.Dir(dir) {
		if _, ok := layer[dir]; ok {
			return dir
		}
	}
	return ""
}

// Only internal/queue claims, leases and retries: the other packages with
// background work (the outbox, webhook deliveries, notify's sends, the
// carrier simulator) use it, so that a guarantee fixed there holds for
// all. A package of its own that takes a lease (adds a Lease or
// ClaimTimeout to a time), computes backoffs (imports internal/retry) or
// writes index times in a layout of its own fails here.
func TestOnlyTheQueueClaims(t *testing.T) {
	imports := moduleImports(t)
	for path := range imports {
		if path == "internal/queue" || path == "internal/retry" {
			continue
		}
		files, err := filepath.Glob(filepath.Join(filepath.FromSlash(path), "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range queueViolations(string(src)) {
				t.Errorf("%s: %s: use internal/queue", filepath.ToSlash(f), v)
			}
		}
	}
}

// The scan finds each way around the queue.
func TestQueueViolations(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"a user", "q.Claim(tx, key, now, nil)\nqueue.TimeKey(now)\n", 0},
		{"a lease of its own", "r.NextAttempt = now.Add(s.opts.Lease)\n", 1},
		{"a claim timeout of its own", "next := now.Add(opts.ClaimTimeout)\n", 1},
		{"backoffs of its own", "import \"github.com/deliverykit/deliverykit/internal/retry\"\n", 1},
		{"a time layout of its own", "t.Format(\"2006-01-02T15:04:05.000000000Z\")\n", 1},
	}
	for _, tt := range tests {
		if got := queueViolations(tt.src); len(got) != tt.want {
			t.Errorf("%s: queueViolations = %q, want %d", tt.name, got, tt.want)
		}
	}
}

var ownLease = regexp.MustCompile(`\.Add\([^)]*\b(Lease|ClaimTimeout)\)`)

// queueViolations says what in the source of a non-test file does
// internal/queue's work.
func queueViolations(src string) []string {
	var v []string
	if loc := ownLease.FindString(src); loc != "" {
		v = append(v, fmt.Sprintf("takes a lease (%s)", loc))
	}
	if strings.Contains(src, `"`+module+`/internal/retry"`) {
		v = append(v, "computes backoffs (imports internal/retry)")
	}
	if strings.Contains(src, "2006-01-02T15:04:05.000000000Z") {
		v = append(v, "formats index times itself")
	}
	return v
}
