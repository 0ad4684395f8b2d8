// Command webhookreceiver is a merchant's webhook endpoint in a few lines:
// it verifies each delivery's signature, applies each event once per
// webhook-id, and prints it. Run it next to the example server to watch
// the events of a checkout, a shipment and its parcel go by:
//
//	go run ./examples/webhookreceiver -addr 127.0.0.1:9000 -secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
//
// and give the server a configuration whose site has the endpoint
// http://127.0.0.1:9000/hooks/delivery with that secret, started with
// -webhooks-allow-private (see the README, "Effects between areas, and
// webhooks").
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/deliverykit/deliverykit/webhook"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "address to listen on")
	secret := flag.String("secret", "", "the endpoint's secret (whsec_…)")
	flag.Parse()
	if *secret == "" {
		fmt.Fprintln(os.Stderr, "webhookreceiver: -secret is required")
		os.Exit(2)
	}
	h := newReceiver(os.Stdout, time.Now, *secret)
	log.Printf("receiving webhooks on http://%s/hooks/delivery", *addr)
	log.Fatal(http.ListenAndServe(*addr, h))
}

// newReceiver is the endpoint: POST /hooks/delivery.
func newReceiver(out io.Writer, now func() time.Time, secrets ...string) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/delivery", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		if err := webhook.Verify(body, r.Header, now(), secrets...); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get("webhook-id")
		mu.Lock()
		again := seen[id]
		seen[id] = true
		mu.Unlock()
		if again {
			w.WriteHeader(http.StatusNoContent) // delivered before: at least once means maybe twice
			return
		}
		var msg struct {
			Type string `json:"type"`
			Data struct {
				Site    string `json:"site"`
				Subject string `json:"subject"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &msg); err != nil {
			http.Error(w, "bad JSON", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(out, "%s %s %s %s\n", id, msg.Type, msg.Data.Site, msg.Data.Subject)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}
