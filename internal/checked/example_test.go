package checked_test

import (
	"fmt"
	"math"

	"github.com/deliverykit/deliverykit/internal/checked"
)

func ExampleSum() {
	// Σ quantity × weight of two lines of 2^31 units weighing 2^31 g:
	// 2^63 g does not fit in an int64.
	var weight checked.Sum[int64]
	for _, line := range [][2]int64{{math.MaxInt32 + 1, math.MaxInt32 + 1}, {math.MaxInt32 + 1, math.MaxInt32 + 1}} {
		weight.AddProduct(line[0], line[1])
	}
	if _, ok := weight.Total(); !ok {
		fmt.Println("line", weight.Overflowed(), "makes the total weight overflow")
	}
	// Output: line 1 makes the total weight overflow
}
