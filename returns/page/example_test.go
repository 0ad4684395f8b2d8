package page_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/returns/page"
)

// The language is the return's own locale first, then the link's
// ?locale=, then the browser's Accept-Language.
func ExampleLanguage() {
	for _, prefs := range [][]string{
		{"", "", "de-CH,de;q=0.9,en;q=0.8"},
		{"", "sv", "de-CH"},
		{"fi-FI", "sv", "de-CH"},
		{"", "", "fr-FR"},
	} {
		base, _ := page.Language(prefs...).Base()
		fmt.Println(base)
	}
	// Output:
	// de
	// sv
	// fi
	// en
}

// Render writes a whole HTML page; here only its status line is printed.
func ExampleRender() {
	var b strings.Builder
	v := returns.StatusPageView{Return: returns.Return{ID: 1, Status: returns.StatusInTransit, Order: returns.OrderSummary{ForeignID: "1001"}}}
	if err := page.Render(&b, page.Language("nb-NO"), v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, `id="status"`) {
			fmt.Println(line)
		}
	}
	// Output:
	// <p class="status" id="status" data-status="IN_TRANSIT">Pakken din er på vei til oss</p>
}
