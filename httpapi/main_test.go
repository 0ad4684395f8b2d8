package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sync"
	"testing"
)

// TestMain makes every response the package's tests provoke and every
// request they send also go through encoding/json, and fails the run when
// the results differ: the handlers use a faster drop-in codec, and clients
// written for the service must see exactly what encoding/json would write
// and have their requests read exactly as encoding/json reads them.
//
// Benchmarks (-test.bench) measure the fast codec alone.
func TestMain(m *testing.M) {
	flag.Parse()
	if flag.Lookup("test.bench").Value.String() != "" {
		os.Exit(m.Run())
	}
	var (
		mu         sync.Mutex
		checked    int
		mismatches []string
	)
	fast := encodeTo
	encodeTo = func(buf *bytes.Buffer, v any) error {
		start := buf.Len()
		err := fast(buf, v)
		var want bytes.Buffer
		wantErr := json.NewEncoder(&want).Encode(v)
		mu.Lock()
		defer mu.Unlock()
		checked++
		if got := buf.Bytes()[start:]; (err != nil) != (wantErr != nil) || !bytes.Equal(got, want.Bytes()) {
			mismatches = append(mismatches, fmt.Sprintf("%T:\n  fast:          %s (err %v)\n  encoding/json: %s (err %v)", v, got, err, want.Bytes(), wantErr))
		}
		return err
	}
	fastDecode := decodeRequest
	decodeRequest = func(body []byte, v any) error {
		// v is a pointer to the request type: decode into a fresh one
		// with encoding/json and compare.
		want := reflect.New(reflect.TypeOf(v).Elem())
		wantErr := json.Unmarshal(body, want.Interface())
		err := fastDecode(body, v)
		mu.Lock()
		defer mu.Unlock()
		checked++
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(v, want.Interface())) {
			mismatches = append(mismatches, fmt.Sprintf("decoding %q into %T:\n  fast:          %+v (err %v)\n  encoding/json: %+v (err %v)", body, v, v, err, want.Interface(), wantErr))
		}
		return err
	}
	code := m.Run()
	if len(mismatches) > 0 {
		fmt.Fprintf(os.Stderr, "%d of %d encodings or decodings differ from encoding/json:\n", len(mismatches), checked)
		for _, s := range mismatches[:min(len(mismatches), 10)] {
			fmt.Fprintln(os.Stderr, s)
		}
		code = 1
	}
	os.Exit(code)
}
