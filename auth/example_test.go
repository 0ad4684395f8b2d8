package auth_test

import (
	"fmt"

	"github.com/deliverykit/deliverykit/auth"
)

func ExampleKeyring() {
	var keys auth.Keyring
	// In a configuration file the digest is written in hexadecimal;
	// ParseDigest reads it. Here it is computed from the key.
	keys.Add("demo-site", auth.HashKey("demo-key"))

	site, ok := keys.Authenticate("demo-key")
	fmt.Println(site, ok)
	_, ok = keys.Authenticate("wrong-key")
	fmt.Println(ok)
	// Output:
	// demo-site true
	// false
}
