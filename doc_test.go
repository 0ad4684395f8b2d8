package deliverykit_test

import (
	"errors"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/deliverykit/deliverykit"

// docPackage is a line of the package list in doc.go: a tab, the
// package's path in the module, two spaces or more, what it is.
var docPackage = regexp.MustCompile(`^\t([a-z0-9/]+)  +\S`)

// The package doc lists every package of the module once, by layer, and
// no package imports one of a layer above its own.
func TestDocListsEveryPackageByLayer(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		t.Fatal(err)
	}
	layer := map[string]int{} // package path → its layer, 0 the top
	n := -1
	for _, line := range strings.Split(f.Doc.Text(), "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, "\t") {
			n++ // a layer's heading
			continue
		}
		if m := docPackage.FindStringSubmatch(line); m != nil {
			if _, dup := layer[m[1]]; dup {
				t.Errorf("doc.go lists %s twice", m[1])
			}
			layer[m[1]] = n
		}
	}

	imports := map[string][]string{}
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
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
	for path, l := range layer {
		if _, ok := imports[path]; !ok {
			t.Errorf("doc.go lists %s, which is not a package of the module", path)
		}
		for _, imp := range imports[path] {
			dep, ok := strings.CutPrefix(imp, module+"/")
			if up, listed := layer[dep]; ok && listed && up < l {
				t.Errorf("%s imports %s, a layer above its own in doc.go", path, dep)
			}
		}
	}
}
