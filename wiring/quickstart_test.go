package wiring_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	gast "github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// firstGoBlock is the text of the first fenced code block of a Markdown
// document whose info string is "go"; false when there is none.
func firstGoBlock(src []byte) (string, bool) {
	var out string
	var found bool
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = gast.Walk(doc, func(n gast.Node, entering bool) (gast.WalkStatus, error) {
		b, ok := n.(*gast.FencedCodeBlock)
		if !entering || !ok || string(b.Language(src)) != "go" {
			return gast.WalkContinue, nil
		}
		var sb strings.Builder
		for i := range b.Lines().Len() {
			seg := b.Lines().At(i)
			sb.Write(seg.Value(src))
		}
		out, found = sb.String(), true
		return gast.WalkStop, nil
	})
	return out, found
}

// quickStartProgram is the program the README shows, made from the
// example in file: its imports, and the body of Example_quickStart as
// main's.
func quickStartProgram(file string) (string, error) {
	src, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	var imports, body string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				imports = string(src[d.Pos()-1 : d.End()-1])
			}
		case *ast.FuncDecl:
			if d.Name.Name == "Example_quickStart" {
				body = string(src[d.Body.Lbrace : d.Body.Rbrace-1])
			}
		}
	}
	return "package main\n\n" + imports + "\n\nfunc main() {" + body + "}\n", nil
}

func TestFirstGoBlock(t *testing.T) {
	tests := []struct {
		name, src, want string
		found           bool
	}{
		{"none", "# T\n\n```sh\nls\n```\n", "", false},
		{"the first of two", "```sh\nls\n```\n\n```go\na := 1\n```\n\n```go\nb := 2\n```\n", "a := 1\n", true},
		{"in a list item", "- step\n\n  ```go\n  x()\n  ```\n", "x()\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := firstGoBlock([]byte(tt.src))
			if got != tt.want || found != tt.found {
				t.Errorf("firstGoBlock(%q) = %q, %v; want %q, %v", tt.src, got, found, tt.want, tt.found)
			}
		})
	}
}

// TestReadmeQuickStart holds the README's first Go code, the quick start,
// to Example_quickStart, which runs with the tests: the README cannot
// show a program that does not compile or prints something else.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	got, ok := firstGoBlock(readme)
	if !ok {
		t.Fatal("README.md has no Go code block")
	}
	want, err := quickStartProgram("quickstart_example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("README.md's first Go block is not Example_quickStart as a program (-want +got):\n%s", diff)
	}
}
