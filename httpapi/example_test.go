package httpapi_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/deliverykit/deliverykit/auth"
	"github.com/deliverykit/deliverykit/httpapi"
)

// A merchant's HTTP integration code can be unit-tested against deliverykit
// with no listener: the in-process client serves requests with the handler.
func ExampleNewInProcessClient() {
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	client := httpapi.NewInProcessClient(httpapi.New(httpapi.Options{Keys: &keys}))

	req, _ := http.NewRequest("GET", "http://deliverykit.test/v1/delivery_tracking/parcels", nil)
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status)
	fmt.Println(len(body) > 0, resp.Header.Get("X-Trace-Id") != "")

	req.Header.Set("Authorization", "Bearer "+base64.StdEncoding.EncodeToString([]byte("demo-key")))
	resp, _ = client.Do(req)
	resp.Body.Close()
	fmt.Println(resp.StatusCode != http.StatusUnauthorized)
	// Output:
	// 401 Unauthorized
	// true true
	// true
}

// Serving the handler through Listener, with ConnContext, sends every
// answer in one write, however large its header and body.
func ExampleListener() {
	var keys auth.Keyring
	keys.Add("demo-site", auth.HashKey("demo-key"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{
		Handler:           httpapi.New(httpapi.Options{Keys: &keys}),
		ConnContext:       httpapi.ConnContext,
		ReadHeaderTimeout: 5 * time.Second,
	}
	go srv.Serve(httpapi.Listener(ln))
	defer srv.Close()

	resp, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Status)
	// Output:
	// 200 OK
}
