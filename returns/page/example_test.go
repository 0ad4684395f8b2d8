package page_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/returns/page"
)

// The language comes from an explicit choice first, then the browser.
func ExampleLanguage() {
	fmt.Println(page.Language("", "de-CH,de;q=0.9,en;q=0.8"))
	fmt.Println(page.Language("sv", "de-CH"))
	fmt.Println(page.Language("", "fr-FR"))
	// Output:
	// de
	// sv
	// en
}

// Render writes a whole HTML page; here only its status line is printed.
func ExampleRender() {
	var b strings.Builder
	r := returns.Return{ID: 1, Status: returns.StatusInTransit, Order: returns.OrderSummary{ForeignID: "1001"}}
	if err := page.Render(&b, page.Language("en", ""), r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, `id="status"`) {
			fmt.Println(line)
		}
	}
	// Output:
	// <p class="status" id="status" data-status="IN_TRANSIT">Your parcel is on its way to us</p>
}
