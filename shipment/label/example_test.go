package label_test

import (
	"fmt"
	"strings"

	"github.com/deliverykit/deliverykit/shipment/label"
	"github.com/deliverykit/deliverykit/shipment/label/labeltest"
)

// A label for a thermal printer: input that looks like ZPL commands is
// escaped, and the tracking number is a Code 128 barcode.
func ExampleZPL() {
	zpl, _ := label.ZPL(label.Data{
		TrackingNumber: "CP000000014SE", CarrierName: "North Parcel", ProductName: "Home Delivery",
		SenderName: "My Shop", ReceiverName: "Alva ^Berg", ReceiverLines: []string{"753 20 Uppsala"}, WeightGrams: 1250,
	})
	for _, line := range strings.Split(string(zpl), "\n") {
		if strings.Contains(line, "Alva") || strings.Contains(line, "^BC") {
			fmt.Println(line)
		}
	}
	// Output:
	// ^FO40,276^A0N,44,44^FH_^FDAlva _5EBerg^FS
	// ^FO60,930^BY3^BCN,200,Y,N,N,A^FDCP000000014SE^FS
}

// The PDF label's barcode reads back with labeltest, the way a scanner
// would read the printed page.
func ExamplePDF() {
	pdf, err := label.PDF(label.Data{TrackingNumber: "CP000000014SE", CarrierName: "North Parcel", SenderName: "My Shop", ReceiverName: "Alva Berg", WeightGrams: 1250})
	if err != nil {
		panic(err)
	}
	fmt.Println(labeltest.CheckPDF(pdf))
	fmt.Println(labeltest.PDFBarcodes(pdf))
	// Output:
	// <nil>
	// [CP000000014SE] <nil>
}
