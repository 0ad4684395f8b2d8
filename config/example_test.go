package config_test

import (
	"encoding/json"
	"fmt"

	"github.com/deliverykit/deliverykit/config"
)

// The JSON Schema of the configuration file, for editors and for tools
// that check a file before it reaches a server.
func ExampleJSONSchema() {
	var schema struct {
		Title    string   `json:"title"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(config.JSONSchema(), &schema); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(schema.Title)
	fmt.Println(schema.Required)
	// Output:
	// deliverykit configuration
	// [sites]
}
