package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/jsonshape"
)

// maxShapeProblems bounds the problems checkShape reports: a file of
// another format would otherwise list every one of its fields.
const maxShapeProblems = 20

// checkShape walks the JSON document against the Go type of Config before
// it is decoded, and reports every unknown field and every value of the
// wrong JSON type with its full path ("sites[0].catalog.products[3].colour"),
// and a syntax error with its line and column. encoding/json stops at the
// first problem and names an unknown field without its path; a
// configuration file's author needs all of them, located.
func checkShape(data []byte) error {
	vs, err := jsonshape.Check(data, reflect.TypeFor[Config](), jsonshape.Options{Unknown: true, Max: maxShapeProblems})
	if err != nil {
		return syntaxError(data, err)
	}
	if len(vs) > 0 {
		return deliverykit.Invalid(vs...)
	}
	return nil
}

// syntaxError locates a syntax error by line and column.
func syntaxError(data []byte, err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &syn):
		line, col := position(data, syn.Offset)
		return deliverykit.InvalidField("", "json", fmt.Sprintf("malformed JSON at line %d, column %d: %v", line, col, syn))
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0:
		return deliverykit.InvalidField("", "required", "configuration is empty")
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		line, col := position(data, int64(len(data)))
		return deliverykit.InvalidField("", "json", fmt.Sprintf("malformed JSON: the file ends at line %d, column %d, inside a value", line, col))
	}
	return deliverykit.InvalidField("", "json", err.Error())
}

// position is the 1-based line and column (in bytes) of offset in data.
func position(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - bytes.LastIndexByte(before, '\n')
	return line, col
}
