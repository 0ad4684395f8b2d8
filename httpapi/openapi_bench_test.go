package httpapi

import "testing"

// BenchmarkOpenAPICheckCheckoutCreate measures what validating one answer
// adds to a test: a full session.create response (session, options,
// pricing) checked against openapi/checkout.json. Compare with
// BenchmarkCheckoutCreateHTTP, the cost of producing it.
func BenchmarkOpenAPICheckCheckoutCreate(b *testing.B) {
	req, rec := benchCreate(b, newBenchCheckoutServer(b))
	d := checkoutAPI(b)
	body := rec.Body.Bytes()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if err := d.check(req, rec.Code, rec.Header(), body); err != nil {
			b.Fatal(err)
		}
	}
}
