package deliverykit_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// The module's Markdown (README.md, docs/…) is read on GitHub, whose
// renderer follows CommonMark: a fence that does not close swallows the
// rest of the page into one code block. The checks parse each file as a
// GFM renderer does (goldmark with the GFM extensions) and then look at the
// fence lines the parser saw, so they report what a reader would see.

// fenceProblems lists the broken fences of a Markdown document, one
// "line N: …" each (lines count from 1):
//   - a fenced code block that runs to the end of its container (the
//     document, a list item, a block quote) without a closing fence;
//   - a line inside a fenced block that starts with a run of the fence's
//     character at least as long as the fence but has text after it: it was
//     meant to close the block and does not (CommonMark allows only spaces
//     after a closing fence);
//   - a line outside every code block that starts with ``` or ~~~: an
//     opening fence the renderer did not take, such as a backtick fence
//     whose info string holds a backtick.
func fenceProblems(src []byte) []string {
	starts := []int{0} // the offset of each line's first byte
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	line := func(n int) []byte {
		end := len(src)
		if n+1 < len(starts) {
			end = starts[n+1]
		}
		return bytes.TrimRight(src[starts[n]:end], "\r\n")
	}

	var problems []string
	inCode := map[int]bool{} // lines that are a code block's fence or content
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch b := n.(type) {
		case *ast.CodeBlock: // indented: its lines are code, whatever they hold
			for i := 0; i < b.Lines().Len(); i++ {
				inCode[lineOf(b.Lines().At(i).Start)] = true
			}
		case *ast.FencedCodeBlock:
			open := lineOf(b.Pos())
			inCode[open] = true
			char := src[b.Pos()]
			length := len(src[b.Pos():]) - len(bytes.TrimLeft(src[b.Pos():], string(char)))
			last := open
			for i := 0; i < b.Lines().Len(); i++ {
				l := lineOf(b.Lines().At(i).Start)
				inCode[l], last = true, l
				if run, rest := fenceRun(line(l), char); run >= length && strings.TrimSpace(rest) != "" {
					problems = append(problems, fmt.Sprintf("line %d: %q does not close the block of line %d: only spaces may follow a closing fence", l+1, line(l), open+1))
				}
			}
			closing := last + 1
			if run, rest := fenceRun(line(min(closing, len(starts)-1)), char); closing >= len(starts) || run < length || strings.TrimSpace(rest) != "" {
				problems = append(problems, fmt.Sprintf("line %d: the fenced block is never closed (it needs a line of at least %d %q)", open+1, length, char))
			} else {
				inCode[closing] = true
			}
		}
		return ast.WalkContinue, nil
	})
	for n := range starts {
		if inCode[n] {
			continue
		}
		for _, char := range []byte{'`', '~'} {
			if run, _ := fenceRun(line(n), char); run >= 3 {
				problems = append(problems, fmt.Sprintf("line %d: %q is not a fence (a backtick fence's info string may not hold a backtick)", n+1, line(n)))
			}
		}
	}
	sort.SliceStable(problems, func(i, j int) bool { return lineNumber(problems[i]) < lineNumber(problems[j]) })
	return problems
}

// fenceRun is the length of the run of char that starts l once the
// indentation and block-quote markers of its container are skipped, and
// what follows the run.
func fenceRun(l []byte, char byte) (int, string) {
	s := strings.TrimLeft(string(l), " \t>")
	rest := strings.TrimLeft(s, string(char))
	return len(s) - len(rest), rest
}

func lineNumber(problem string) int {
	var n int
	fmt.Sscanf(problem, "line %d:", &n)
	return n
}

func TestFenceProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"closed", "text\n\n```sh\ngo test ./...\n```\n\nmore\n", nil},
		{"closed at the end of the file without a newline", "```\nx\n```", nil},
		{"empty block", "```\n```\n", nil},
		{"tildes", "~~~\n```\n~~~\n", nil},
		{"a longer fence shows a shorter one", "````md\n```sh\nx\n```\n````\n", nil},
		{"closing fence longer than the opening one", "```\nx\n`````\n", nil},
		{"closing fence with trailing spaces", "```\nx\n```   \n", nil},
		{"in a list item", "- step:\n\n  ```sh\n  x\n  ```\n- next\n", nil},
		{"in a block quote", "> ```\n> x\n> ```\n", nil},
		{"indented code shows a fence", "para\n\n    ```\n    x\n", nil},
		{"inline code in a paragraph", "run `go test` and ``a ` b``\n", nil},
		{"unclosed", "# T\n\n```sh\nx\n", []string{
			`line 3: the fenced block is never closed (it needs a line of at least 3 '` + "`" + `')`,
		}},
		{"unclosed in a list item", "- ```\n  x\n\ntext\n", []string{
			`line 1: the fenced block is never closed (it needs a line of at least 3 '` + "`" + `')`,
		}},
		{"closing fence followed by text", "```sh\nx\n``` `GET /x` lists\nmore\n```\n", []string{
			"line 3: \"``` `GET /x` lists\" does not close the block of line 1: only spaces may follow a closing fence",
		}},
		{"closing fence shorter than the opening one", "````\nx\n```\n", []string{
			"line 1: the fenced block is never closed (it needs a line of at least 4 '`')",
		}},
		{"backtick in a backtick fence's info string", "para\n\n``` `x`\ncode\n", []string{
			"line 3: \"``` `x`\" is not a fence (a backtick fence's info string may not hold a backtick)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, fenceProblems([]byte(tt.src))); diff != "" {
				t.Errorf("fenceProblems(%q) (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

// TestMarkdownFences checks every Markdown file of the module.
func TestMarkdownFences(t *testing.T) {
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, "README.md") {
		t.Fatalf("README.md not found among %v", files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range fenceProblems(src) {
			t.Errorf("%s %s", f, p)
		}
	}
}
