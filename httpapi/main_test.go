package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sync"
	"testing"
)

// TestMain makes every response the package's tests provoke also go
// through encoding/json and fails the run when the two encodings differ:
// responses are encoded with a faster drop-in codec, and clients written
// for the service must see exactly the bytes encoding/json would write.
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
	code := m.Run()
	if len(mismatches) > 0 {
		fmt.Fprintf(os.Stderr, "%d of %d responses encode differently from encoding/json:\n", len(mismatches), checked)
		for _, s := range mismatches[:min(len(mismatches), 10)] {
			fmt.Fprintln(os.Stderr, s)
		}
		code = 1
	}
	os.Exit(code)
}
