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
	fast := marshal
	marshal = func(v any) ([]byte, error) {
		b, err := fast(v)
		want, wantErr := json.Marshal(v)
		mu.Lock()
		defer mu.Unlock()
		checked++
		if (err != nil) != (wantErr != nil) || !bytes.Equal(b, want) {
			mismatches = append(mismatches, fmt.Sprintf("%T:\n  fast:          %s (err %v)\n  encoding/json: %s (err %v)", v, b, err, want, wantErr))
		}
		return b, err
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
