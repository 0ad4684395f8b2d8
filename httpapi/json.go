package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/internal/jsonshape"
	"github.com/deliverykit/deliverykit/internal/validation"
	"github.com/deliverykit/deliverykit/session"
	// A drop-in encoding/json that is about twice as fast on our types
	// (BENCHMARKS.md, "Figures behind the code's choices"). Errors still
	// come from encoding/json, whose error types name the offending field.
	gojson "github.com/goccy/go-json"
)

// decodeJSON reads the request body into v, leniently: unknown fields are
// ignored and an empty body is an empty object. Errors are InvalidArgument
// naming the field, or errBodyTooLarge.
func decodeJSON(r *http.Request, v any) error {
	// A declared length past the limit is refused before reading a byte,
	// rather than after buffering a megabyte of it.
	if limit := requestInfoFrom(r.Context()).maxBody; limit > 0 && r.ContentLength > limit {
		return fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, limit)
	}
	// The body is read into a recycled buffer: both decoders copy what
	// they keep, so the buffer is free again once v is decoded.
	buf := getBuffer()
	defer putBuffer(buf)
	if _, err := buf.ReadFrom(r.Body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, mbe.Limit)
		}
		return deliverykit.Errorf(deliverykit.KindInvalidArgument, "reading the request body: %v", err)
	}
	return unmarshalJSON(buf.Bytes(), v)
}

// scanListsAbove is the body size from which decodeJSON checks the lists
// of a body against their limits before decoding it
// (validation.CheckJSONLists). Decoding costs memory in proportion to the
// entries a body holds: a megabyte of [{},{},…] becomes hundreds of
// megabytes of structs before the validator refuses the list. A smaller
// body cannot cost much, and ordinary requests skip the scan.
const scanListsAbove = 64 << 10

// unmarshalJSON is decodeJSON's core, separate so fuzz tests can reach it.
func unmarshalJSON(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if len(body) > scanListsAbove {
		if err := validation.CheckJSONLists(body, reflect.TypeOf(v)); err != nil {
			return err
		}
	}
	return decodeRequest(body, v)
}

// decodeRequest decodes a request body with the faster codec; a body it
// refuses is decoded again with encoding/json, whose errors name the field
// (the rare path pays twice). It is a variable so that the package's tests
// can hold every request they send to encoding/json's result (TestMain).
var decodeRequest = decodeFast

func decodeFast(body []byte, v any) error {
	if err := gojson.Unmarshal(body, v); err != nil {
		if err := json.Unmarshal(body, v); err != nil {
			return jsonError(body, reflect.TypeOf(v), err)
		}
		// Accepted by encoding/json after all: its result stands.
	}
	return nil
}

// walkTypesUpTo is the largest body whose type errors are located by
// walking it (jsonshape): the walk costs a few copies of the body, so it
// is kept to bodies that cannot cost much (as scanListsAbove is); no
// client's request comes near it. A larger body's type error names the
// field as encoding/json does, without list indices.
const walkTypesUpTo = scanListsAbove

// jsonError turns an encoding/json error of decoding body into a value of
// type t into an InvalidArgument that names each value of the wrong JSON
// type by its full path (jsonshape), or the byte offset of a syntax error.
func jsonError(body []byte, t reflect.Type, err error) error {
	var syn *json.SyntaxError
	if !errors.As(err, &syn) && t != nil && len(body) <= walkTypesUpTo {
		if vs, _ := jsonshape.Check(body, t, jsonshape.Options{}); len(vs) > 0 {
			return deliverykit.Invalid(vs...)
		}
	}
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return deliverykit.InvalidField("", "json", "malformed JSON at byte "+strconv.FormatInt(syn.Offset, 10)+": "+syn.Error())
	case errors.As(err, &typ):
		field := typ.Field
		msg := "expected " + jsonTypeName(typ.Type.Kind().String()) + ", got " + typ.Value
		if field == "" {
			field = "(body)"
		}
		return deliverykit.InvalidField(field, "type", msg)
	}
	var ve *deliverykit.Error
	if errors.As(err, &ve) {
		// A custom UnmarshalJSON in a domain type reported a field
		// problem; keep it.
		return err
	}
	return deliverykit.InvalidField("", "json", err.Error())
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return goKind
}

// encodeTo appends v's JSON and a newline to buf. It is a variable so that
// the package's tests can check every response they provoke against
// encoding/json, byte for byte (TestMain).
var encodeTo = func(buf *bytes.Buffer, v any) error {
	s, ok := v.(*session.Session)
	if !ok {
		return gojson.NewEncoder(buf).Encode(v)
	}
	// Area D's session answers (create, get, patch) write themselves:
	// the codec's reflection was a quarter of a delivery session create.
	// Room for an answer as large as the last one, so that it is written
	// in place rather than grown by doubling and copied. Nothing is
	// written when it fails, as the codec writes nothing.
	buf.Grow(int(sessionAnswerSize.Load()))
	b, err := s.AppendJSON(buf.AvailableBuffer())
	if err != nil {
		return err
	}
	b = append(b, '\n')
	sessionAnswerSize.Store(int64(len(b)))
	buf.Write(b)
	return nil
}

// sessionAnswerSize is the size of the last session answer encodeTo wrote.
var sessionAnswerSize atomic.Int64

// buffers recycles response buffers: a response is encoded whole before
// its first byte is written, so that an encoding error can still become a
// clean 500 and Content-Length is known.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer keeps the odd large response (a full returns page, a
// shipment with a hundred parcels) from pinning its buffer in the pool.
const maxPooledBuffer = 64 << 10

// getBuffer returns an empty buffer of the pool; putBuffer gives it back.
func getBuffer() *bytes.Buffer {
	buf := buffers.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		buffers.Put(buf)
	}
}

// writeJSON writes v with the status. Encoding errors of our own types are
// bugs; they are answered as a bare 500 rather than a half-written body.
// writeKept writes a rendering a service kept, of n bytes written by
// body, as a 200 answer with the headers writeJSON sets. It is generic so
// that a rendering, a struct, is not copied into an interface value (an
// allocation per answer).
func writeKept[T io.WriterTo](w http.ResponseWriter, n int, body T) {
	h := w.Header()
	h["Content-Type"] = hJSON
	h.Set("Content-Length", strconv.Itoa(n))
	w.WriteHeader(http.StatusOK)
	body.WriteTo(w)
}

// keptJSON is v as writeJSON encodes it (encodeTo, which the package's
// tests hold to encoding/json), in a slice of its own: a service keeps
// the bytes, and the buffer goes back to the pool.
func keptJSON(v any) ([]byte, error) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeTo(buf, v); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeTo(buf, v); err != nil {
		http.Error(w, `{"error":"internal: internal error"}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = hJSON
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
