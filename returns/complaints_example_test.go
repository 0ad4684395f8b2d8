package returns_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/catalog"
	"github.com/deliverykit/deliverykit/returns"
	"github.com/deliverykit/deliverykit/storage/memory"
)

// A customer returns a damaged mug with a catalog reason and a complaint,
// uploads a photo under the status page token, and the merchant approves
// the complaint. The photo's download URL is signed and expires.
func ExampleService_AddComplaintPhotos() {
	ctx := context.Background()
	clock := deliverykit.NewManualClock(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC))
	svc := returns.New(memory.New(), returns.Options{
		Clock: clock, IDs: &deliverykit.SequentialIDs{}, PublicURL: "https://shop.example",
		Reasons: returns.StaticReasons{"my-site": {
			Locales:   []string{"en-GB"},
			Return:    []catalog.ReturnReason{{ID: "quality", DisplayName: map[string]string{"en-GB": "Quality"}}},
			Complaint: []catalog.ComplaintReason{{ID: "damaged", DisplayName: map[string]string{"en-GB": "Arrived damaged"}}},
		}},
		Blobs:          &returns.MemoryBlobs{}, // returns.NewFileBlobs(dir) on a server
		ImageURLSecret: []byte("an example secret of 32 bytes!!!"),
	})
	if _, err := svc.ImportOrder(ctx, "my-site", returns.OrderInput{ForeignID: "1001", CurrencyCode: "EUR", Email: "anna@example.com",
		Items: []returns.OrderItemInput{{ForeignLineItemID: "a", SKU: "MUG-RED", ProductTitle: "Mug", Quantity: 1,
			ForeignProductID: "mug", ForeignVariantID: "mug-red", Properties: []returns.VariantProperty{{Type: "color", Value: "red"}},
			PurchasePriceAmount: returns.PriceInput{Amount: "12.00"}}}}); err != nil {
		fmt.Println(err)
		return
	}
	ret, err := svc.CreateReturn(ctx, returns.CustomerReturnInput{SiteID: "my-site", ForeignOrderID: "1001", Email: "anna@example.com",
		Items: []returns.CustomerReturnItemInput{{ForeignLineItemID: "a", Quantity: 1, ReasonID: "quality",
			Complaint: &returns.ComplaintInput{ReasonID: "damaged", Text: "The handle broke off."}}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	token := strings.TrimPrefix(ret.StatusURL, "https://shop.example"+returns.StatusPagePath)
	gif := []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;")
	ret, err = svc.AddComplaintPhotos(ctx, token, ret.Items[0].ID, returns.ComplaintUpload{Images: []returns.UploadedImage{{Field: "image[0]", Data: gif}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	it := ret.Items[0]
	fmt.Println(it.ProductVariant.ForeignVariantID, it.ProductVariant.Properties, it.ReturnReasons[0].Reason)
	c := it.CustomerComplaint
	fmt.Println(c.Status, c.ComplaintReason.Reason, c.Image.ID)

	u, _ := url.Parse(c.Image.DownloadURL)
	q := u.Query()
	uuid := strings.TrimPrefix(u.Path, returns.ComplaintImagePath)
	photo, err := svc.ComplaintPhoto(ctx, uuid, q.Get("expires"), q.Get("signature"))
	fmt.Println(photo.ContentType, photo.MaxAge, err)
	clock.Advance(returns.DefaultImageURLLifetime)
	_, err = svc.ComplaintPhoto(ctx, uuid, q.Get("expires"), q.Get("signature"))
	fmt.Println(err)

	ret, err = svc.DecideComplaint(ctx, "my-site", ret.ID, it.ID, returns.ComplaintDecision{Status: returns.ComplaintApproved})
	fmt.Println(ret.Items[0].CustomerComplaint.Status, err)
	// Output:
	// mug-red [{color red}] Quality
	// PENDING Arrived damaged 1
	// image/gif 1h0m0s <nil>
	// the image link is invalid or has expired
	// APPROVED <nil>
}
