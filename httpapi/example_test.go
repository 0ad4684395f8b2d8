package httpapi_test

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"

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
