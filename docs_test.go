package deliverykit_test

import (
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// The module's documents are references a reader looks things up in: they
// stay short enough to read (history goes to docs/bench/ and
// docs/decisions/), and every link between them, and every document a
// code comment cites, must lead somewhere.

// TestDocumentSizes holds the reference documents to their length.
func TestDocumentSizes(t *testing.T) {
	for _, tt := range []struct {
		file     string
		maxLines int
	}{
		{"BENCHMARKS.md", 250},
		{"docs/ARCHITECTURE.md", 400},
		{"webhook/doc.go", 60},
	} {
		src, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(src, []byte("\n")); n > tt.maxLines {
			t.Errorf("%s has %d lines, over its %d: move history to docs/bench/ or docs/decisions/", tt.file, n, tt.maxLines)
		}
	}
}

// relativeLinks lists the destinations of the links and images of a
// Markdown document that point into the repository: no scheme, not only
// a fragment. Fragments and queries are cut off.
func relativeLinks(src []byte) []string {
	var links []string
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var dest []byte
		switch n := n.(type) {
		case *ast.Link:
			dest = n.Destination
		case *ast.Image:
			dest = n.Destination
		default:
			return ast.WalkContinue, nil
		}
		u, err := url.Parse(string(dest))
		if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" {
			return ast.WalkContinue, nil
		}
		links = append(links, u.Path)
		return ast.WalkContinue, nil
	})
	return links
}

func TestRelativeLinks(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"none", "text `docs/x.md`\n", nil},
		{"relative", "see [a](docs/a.md) and ![i](img/x.png)\n", []string{"docs/a.md", "img/x.png"}},
		{"fragment cut", "[b](../B.md#targets)\n", []string{"../B.md"}},
		{"absolute and anchors skipped", "[x](https://e.com/a.md) [y](#top) [z](mailto:a@b.c)\n", nil},
		{"reference style", "[r][1]\n\n[1]: decisions/0001-x.md\n", []string{"decisions/0001-x.md"}},
		{"inside code is no link", "```\n[a](missing.md)\n```\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, relativeLinks([]byte(tt.src))); diff != "" {
				t.Errorf("relativeLinks(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// moduleFiles lists the module's files with the suffix, skipping hidden
// directories and testdata.
func moduleFiles(t *testing.T, suffix string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, suffix) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestMarkdownLinksExist checks that every relative link of every
// Markdown file names a file or directory of the repository.
func TestMarkdownLinksExist(t *testing.T) {
	for _, f := range moduleFiles(t, ".md") {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(src) {
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), filepath.FromSlash(l))); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, l)
			}
		}
	}
}

// A cited document is a path ending in .md; a cited section follows it as
// `, "Section"` and must be text of that document (a heading or the bold
// lead of an entry). Comments wrap, so a citation may span lines.
var (
	docCitation = regexp.MustCompile(`([A-Za-z0-9_./-]+\.md)(?:,\s+"([^"]+)")?`)
	spaces      = regexp.MustCompile(`\s+`)
)

func citations(comment string) [][2]string {
	var out [][2]string
	for _, m := range docCitation.FindAllStringSubmatch(spaces.ReplaceAllString(comment, " "), -1) {
		out = append(out, [2]string{m[1], m[2]})
	}
	return out
}

func TestCitations(t *testing.T) {
	tests := []struct {
		comment string
		want    [][2]string
	}{
		{"no document here", nil},
		{"(BENCHMARKS.md, \"Targets\")", [][2]string{{"BENCHMARKS.md", "Targets"}}},
		{"(docs/decisions/0002-storage.md, \"The\ndelivery calendar\")", [][2]string{{"docs/decisions/0002-storage.md", "The delivery calendar"}}},
		{"docs/WEBHOOKS.md and README.md", [][2]string{{"docs/WEBHOOKS.md", ""}, {"README.md", ""}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, citations(tt.comment)); diff != "" {
			t.Errorf("citations(%q) (-want +got):\n%s", tt.comment, diff)
		}
	}
}

// TestGoCommentsCiteExistingDocuments checks every comment of every Go
// file: a Markdown document it names exists (from the module's root, or
// from the Go file's directory), and a section it names is in it.
func TestGoCommentsCiteExistingDocuments(t *testing.T) {
	for _, f := range moduleFiles(t, ".go") {
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range file.Comments {
			for _, c := range citations(g.Text()) {
				doc, section := c[0], c[1]
				src, err := os.ReadFile(filepath.FromSlash(doc))
				if err != nil {
					src, err = os.ReadFile(filepath.Join(filepath.Dir(f), filepath.FromSlash(doc)))
				}
				if err != nil {
					t.Errorf("%s cites %s, which does not exist", f, doc)
					continue
				}
				if section != "" && !strings.Contains(spaces.ReplaceAllString(string(src), " "), section) {
					t.Errorf("%s cites %s, %q, which it does not contain", f, doc, section)
				}
			}
		}
	}
}
