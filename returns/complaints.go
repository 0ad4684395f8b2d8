package returns

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/event"
	"github.com/deliverykit/deliverykit/storage"
)

// This file is customer complaints: a complaint about a returned line
// (a catalog complaint reason, the customer's text and photos), the
// photos' storage and signed download links, and the merchant's decision.

// ComplaintStatus is the merchant's decision on a complaint.
type ComplaintStatus string

// The complaint states: PENDING until the merchant approves or rejects
// it, once.
const (
	ComplaintPending  ComplaintStatus = "PENDING"
	ComplaintApproved ComplaintStatus = "APPROVED"
	ComplaintRejected ComplaintStatus = "REJECTED"
)

// Limits of complaints. A photo is at most MaxComplaintImageBytes and a
// complaint has at most MaxComplaintImages; MaxComplaintTextRunes bounds
// its text (characters).
const (
	MaxComplaintImages     = 5
	MaxComplaintImageBytes = 5 << 20
	// MaxReturnImages bounds the photos of all complaints of one return,
	// so that a return's token cannot fill the photo store (a return may
	// have hundreds of lines).
	MaxReturnImages       = 20
	MaxComplaintTextRunes = 2000
)

// ComplaintImageTypes are the photo types accepted, as sniffed from the
// bytes (the type a client declares is ignored).
var ComplaintImageTypes = []string{"image/jpeg", "image/png", "image/gif", "image/webp"}

// ComplaintImagePath is the path of a complaint photo: ComplaintImagePath
// + uuid, with the query expires (Unix seconds) and signature. Like the
// status page it needs no key: the signature is the credential.
const ComplaintImagePath = "/returns/customer/complaint-image/"

// ComplaintPathSuffix is the path of a line's complaint under a status
// page token: StatusPagePath + token + "/items/" + item id +
// ComplaintPathSuffix. The customer's photos are POSTed there.
const ComplaintPathSuffix = "/complaint"

// MaxVariantProperties bounds the properties of an imported order line.
const MaxVariantProperties = 20

// DefaultImageURLLifetime is how long a photo's download URL works: long
// enough to look at a return's photos, short enough that a URL copied
// into a ticket or a log stops working the same day.
const DefaultImageURLLifetime = time.Hour

// VariantProperty is a property of a product variant ("color": "blue").
type VariantProperty struct {
	Type  string `json:"type" validate:"required,max_id"`
	Value string `json:"value" validate:"max_name"`
}

// ComplaintInput is a customer's complaint about a returned line.
type ComplaintInput struct {
	// ReasonID is one of the site's catalog complaint reasons.
	ReasonID string `json:"reasonId" validate:"required,max_id"`
	Text     string `json:"text" validate:"max_text"`
}

// ComplaintDecision is the merchant's decision on a complaint.
type ComplaintDecision struct {
	Status ComplaintStatus `json:"status" validate:"required,oneof=APPROVED REJECTED"`
}

// CustomerComplaint is a complaint as the returns API shows it. Image is
// the first photo; Images (an extension) all of them.
type CustomerComplaint struct {
	ID              uint64           `json:"id"`
	Status          ComplaintStatus  `json:"status"`
	ComplaintReason ComplaintReason  `json:"complaintReason"`
	ComplaintText   string           `json:"complaintText,omitempty"`
	Image           *ComplaintImage  `json:"image,omitempty"`
	Images          []ComplaintImage `json:"images"`
}

// ComplaintReason is a complaint's catalog reason, its text in the
// catalog's first locale when the complaint was made.
type ComplaintReason struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// ComplaintImage is a complaint photo. ID is unique within the return;
// UUID is its store key; DownloadURL is signed and works until the
// service's image URL lifetime has passed.
type ComplaintImage struct {
	ID          uint64 `json:"id"`
	UUID        string `json:"uuid"`
	DownloadURL string `json:"downloadUrl"`
}

// UploadedImage is one photo of an upload: Field names it in errors.
type UploadedImage struct {
	Field string
	Data  []byte
}

// ComplaintUpload is what a customer sends to a line's complaint: photos,
// and, when the line has no complaint yet, its reason and text.
type ComplaintUpload struct {
	ReasonID string
	Text     string
	Images   []UploadedImage
}

// ImageFile is a complaint photo to serve.
type ImageFile struct {
	Data        []byte
	ContentType string
	// Expires is when the URL it was fetched with stops working, MaxAge
	// the time until then: how long the answer may be cached.
	Expires time.Time
	MaxAge  time.Duration
}

type complaintRecord struct {
	ReasonID   string          `json:"reasonId"`
	ReasonText string          `json:"reasonText,omitempty"`
	Text       string          `json:"text,omitempty"`
	Status     ComplaintStatus `json:"status"`
	CreatedAt  time.Time       `json:"createdAt"`
	DecidedAt  *time.Time      `json:"decidedAt,omitempty"`
	Images     []imageRecord   `json:"images,omitempty"`
}

type imageRecord struct {
	ID          uint64    `json:"id"`
	UUID        string    `json:"uuid"`
	ContentType string    `json:"contentType"`
	Size        int       `json:"size"`
	UploadedAt  time.Time `json:"uploadedAt"`
}

// SniffImage reports the type of an image from its first bytes (the
// WHATWG sniffing algorithm of net/http), and whether it is one of
// ComplaintImageTypes.
func SniffImage(data []byte) (string, bool) {
	ct := http.DetectContentType(data)
	for _, t := range ComplaintImageTypes {
		if ct == t {
			return ct, true
		}
	}
	return ct, false
}

// urlSigner signs and checks photo URLs: HMAC-SHA256 over the path and the
// expiry.
type urlSigner struct{ key []byte }

func (u urlSigner) mac(path string, expires int64) []byte {
	m := hmac.New(sha256.New, u.key)
	m.Write([]byte(path))
	m.Write([]byte{0})
	m.Write(strconv.AppendInt(nil, expires, 10))
	return m.Sum(nil)
}

func (u urlSigner) sign(path string, expires int64) string {
	return path + "?expires=" + strconv.FormatInt(expires, 10) + "&signature=" + base64.RawURLEncoding.EncodeToString(u.mac(path, expires))
}

// errImageLink is every refusal of a photo URL: altered, expired or
// malformed all read the same.
func errImageLink() error {
	return deliverykit.E(deliverykit.KindPermissionDenied, "the image link is invalid or has expired")
}

// verify checks a URL's expiry and signature at now, comparing in
// constant time.
func (u urlSigner) verify(path, expires, signature string, now time.Time) (time.Time, error) {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil {
		return time.Time{}, errImageLink()
	}
	sig, err := base64.RawURLEncoding.DecodeString(signature)
	if err != nil || !hmac.Equal(sig, u.mac(path, exp)) {
		return time.Time{}, errImageLink()
	}
	at := time.Unix(exp, 0)
	if !now.Before(at) {
		return time.Time{}, errImageLink()
	}
	return at, nil
}

// newImageSecret is the signing key of a service configured without one:
// random, so URLs work only in this process.
func newImageSecret() []byte {
	b := make([]byte, 32)
	rand.Read(b)
	return b
}

// imageUUID makes a photo's UUID (RFC 9562 version 8) from an id of the
// service's IDSource: random in production, predictable in tests.
func imageUUID(id string) string {
	h := sha256.Sum256([]byte("deliverykit/returns image\x00" + id))
	b := h[:16]
	b[6] = b[6]&0x0f | 0x80
	b[8] = b[8]&0x3f | 0x80
	x := hex.EncodeToString(b)
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:]
}

// complaintView shows l's complaint with download URLs signed at now.
func (s *Service) complaintView(l returnLine, now time.Time) *CustomerComplaint {
	c := l.Complaint
	if c == nil {
		return nil
	}
	out := &CustomerComplaint{ID: l.ID, Status: c.Status, ComplaintReason: ComplaintReason{ID: c.ReasonID, Reason: c.ReasonText},
		ComplaintText: c.Text, Images: make([]ComplaintImage, len(c.Images))}
	exp := now.Add(s.imageLifetime).Unix()
	for i, im := range c.Images {
		out.Images[i] = ComplaintImage{ID: im.ID, UUID: im.UUID, DownloadURL: s.publicURL + s.signer.sign(ComplaintImagePath+im.UUID, exp)}
	}
	if len(out.Images) > 0 {
		first := out.Images[0]
		out.Image = &first
	}
	return out
}

// newComplaint is the complaint of a line from the customer's input at
// now, or a violation under field (the input's path).
func (s *Service) newComplaint(site, field string, in ComplaintInput, now time.Time) (*complaintRecord, []deliverykit.FieldViolation) {
	var vs []deliverykit.FieldViolation
	rc := s.reasonCatalog(site)
	cr, ok := rc.complaint(in.ReasonID)
	if !ok {
		vs = append(vs, deliverykit.FieldViolation{Field: field + "reasonId", Rule: "oneof", Message: "is not one of the site's complaint reasons"})
	}
	if utf8.RuneCountInString(in.Text) > MaxComplaintTextRunes || !utf8.ValidString(in.Text) {
		vs = append(vs, deliverykit.FieldViolation{Field: field + "text", Rule: "max", Message: "must be UTF-8 of at most " + strconv.Itoa(MaxComplaintTextRunes) + " characters"})
	}
	if len(vs) > 0 {
		return nil, vs
	}
	return &complaintRecord{ReasonID: cr.ID, ReasonText: rc.defaultText(cr.DisplayName), Text: in.Text, Status: ComplaintPending, CreatedAt: now}, nil
}

// AddComplaintPhotos adds photos to the complaint about line itemID of
// the return whose status page token is token, making the complaint first
// when the line has none (then in.ReasonID is required). Photos must sniff
// as one of ComplaintImageTypes, be at most MaxComplaintImageBytes, and a
// complaint holds at most MaxComplaintImages; a complaint the merchant
// decided, or a completed return, takes none. The photos are stored
// before the return is updated, and deleted again when the update fails.
// It is StartComplaintUpload with the photos in memory; every photo is
// checked before anything is stored.
func (s *Service) AddComplaintPhotos(ctx context.Context, token string, itemID uint64, in ComplaintUpload) (Return, error) {
	if err := checkUpload(in); err != nil {
		return Return{}, err
	}
	u, err := s.StartComplaintUpload(ctx, token, itemID)
	if err != nil {
		return Return{}, err
	}
	defer u.Abort(ctx)
	for _, im := range in.Images {
		if err := u.AddPhoto(ctx, im.Field, bytes.NewReader(im.Data)); err != nil {
			return Return{}, err
		}
	}
	return u.Finish(ctx, in.ReasonID, in.Text)
}

// PhotoUpload is one upload of complaint photos in progress: each photo
// is checked and stored as it arrives (AddPhoto), then Finish adds them
// all to the complaint in one update, or Abort deletes them. It is made
// by StartComplaintUpload once the token and the line are known to take
// photos, so that nothing of an upload is read for a stranger's token.
// A PhotoUpload is not safe for concurrent use.
type PhotoUpload struct {
	s      *Service
	token  string
	item   uint64
	now    time.Time
	images []imageRecord // stored, in the order they came
	// room is how many photos the line may still take, and roomRule
	// the refusal once it has none.
	room     int
	roomRule string
	done     bool
}

// StartComplaintUpload checks that the return of token exists, that its
// line itemID exists and may take photos (the return is not completed,
// the complaint not decided), and answers the upload to add them with.
// The caller must Finish or Abort it.
func (s *Service) StartComplaintUpload(ctx context.Context, token string, itemID uint64) (*PhotoUpload, error) {
	now := s.now()
	u := &PhotoUpload{s: s, token: token, item: itemID, now: now}
	err := s.store.View(ctx, func(tx storage.Tx) error {
		_, r, err := s.byToken(tx, token, now)
		if err != nil {
			return err
		}
		idx, err := lineOf(r, itemID)
		if err != nil {
			return err
		}
		if r.Status == StatusCompleted {
			return deliverykit.E(deliverykit.KindFailedPrecondition, "the return is COMPLETED and takes no more photos")
		}
		have := 0
		if c := r.Lines[idx].Complaint; c != nil {
			if c.Status != ComplaintPending {
				return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the complaint is %s and takes no more photos", c.Status)
			}
			have = len(c.Images)
		}
		// Photos are never removed, so the highest id is the return's count.
		n := int(maxImageID(r))
		u.room = MaxComplaintImages - have
		u.roomRule = "a complaint holds at most " + strconv.Itoa(MaxComplaintImages) + " photos; it has " + strconv.Itoa(have)
		if MaxReturnImages-n < u.room {
			u.room = MaxReturnImages - n
			u.roomRule = "a return holds at most " + strconv.Itoa(MaxReturnImages) + " photos; it has " + strconv.Itoa(n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// errPhotoTooLarge is what cappedReader answers past its limit.
var errPhotoTooLarge = errors.New("photo over the size limit")

// cappedReader passes r on until more than left bytes came, then fails
// with errPhotoTooLarge, so a store never keeps an oversized photo.
type cappedReader struct {
	r    io.Reader
	left int64
	over bool
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		c.over = true
		return 0, errPhotoTooLarge
	}
	c.left -= int64(n)
	return n, err
}

// AddPhoto reads one photo from r and stores it; field names it in
// errors (image[0], …). Its type is sniffed from its first 512 bytes,
// before the rest is read: a photo that is empty, not an image, over
// MaxComplaintImageBytes or past the line's room is refused, and nothing
// of it is kept. An error reading r is returned wrapped. At most one
// photo is in memory at a time, and none when the service's Blobs is a
// BlobStreamer.
func (u *PhotoUpload) AddPhoto(ctx context.Context, field string, r io.Reader) error {
	if u.done {
		return deliverykit.E(deliverykit.KindInternal, "the photo upload is finished")
	}
	if len(u.images) >= u.room {
		return deliverykit.InvalidField("image", "max", u.roomRule)
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("returns: reading %s: %w", field, err)
	}
	head = head[:n]
	ct, ok := SniffImage(head)
	switch {
	case n == 0:
		return deliverykit.InvalidField(field, "required", "is empty")
	case !ok:
		return deliverykit.InvalidField(field, "image", "must be a JPEG, PNG, GIF or WebP image")
	}
	uuid := imageUUID(u.s.ids.NewID("img_"))
	body := &cappedReader{r: io.MultiReader(bytes.NewReader(head), r), left: MaxComplaintImageBytes}
	size, err := putBlobFrom(ctx, u.s.blobs, uuid, body)
	switch {
	case body.over:
		return deliverykit.InvalidField(field, "max", "must be at most "+strconv.Itoa(MaxComplaintImageBytes)+" bytes")
	case err != nil:
		// A store that failed after the rename may have kept it.
		u.s.deletePhotos(ctx, []imageRecord{{UUID: uuid}})
		return fmt.Errorf("returns: storing %s: %w", field, err)
	}
	u.images = append(u.images, imageRecord{UUID: uuid, ContentType: ct, Size: int(size), UploadedAt: u.now})
	return nil
}

// Finish adds the stored photos to the line's complaint, making the
// complaint from reasonID and text when the line has none. An upload
// with no photo must name a reason. When Finish fails the photos are
// deleted.
func (u *PhotoUpload) Finish(ctx context.Context, reasonID, text string) (Return, error) {
	if u.done {
		return Return{}, deliverykit.E(deliverykit.KindInternal, "the photo upload is finished")
	}
	out, err := u.finish(ctx, reasonID, text)
	if err != nil {
		u.Abort(ctx)
		return Return{}, err
	}
	u.done = true
	return out, nil
}

func (u *PhotoUpload) finish(ctx context.Context, reasonID, text string) (Return, error) {
	var vs []deliverykit.FieldViolation
	if len(u.images) == 0 && reasonID == "" {
		vs = append(vs, deliverykit.FieldViolation{Field: "image", Rule: "required", Message: "send at least one photo, or a reasonId to make a complaint"})
	}
	if len(reasonID) > 128 {
		vs = append(vs, deliverykit.FieldViolation{Field: "reasonId", Rule: "max", Message: "must be at most 128 bytes"})
	}
	if len(vs) > 0 {
		return Return{}, deliverykit.Invalid(vs...)
	}
	s, in := u.s, ComplaintUpload{ReasonID: reasonID, Text: text}
	var out Return
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		site, r, err := s.byToken(tx, u.token, u.now)
		if err != nil {
			return err
		}
		if r, err = s.withPhotos(site, r, u.item, in, u.images, u.now); err != nil {
			return err
		}
		cur, err := returnsColl.Get(tx, orderKey(site, r.ID))
		if err != nil {
			return err
		}
		r.UpdatedAt = u.now
		if _, err := returnsColl.Put(tx, cur.Key, r, storage.VersionIs(cur.Version)); err != nil {
			return err
		}
		o, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		out, err = s.returnView(tx, site, o.Value, r)
		return err
	})
	return out, err
}

// Abort deletes the photos stored so far, unless Finish added them; it
// may be called any number of times, and after Finish.
func (u *PhotoUpload) Abort(ctx context.Context) {
	if u.done {
		return
	}
	u.done = true
	u.s.deletePhotos(ctx, u.images)
	u.images = nil
}

// deletePhotos deletes photos no record names. Best effort: a photo left
// behind is unreachable, never shown.
func (s *Service) deletePhotos(ctx context.Context, images []imageRecord) {
	for _, im := range images {
		if derr := s.blobs.DeleteBlob(context.WithoutCancel(ctx), im.UUID); derr != nil {
			s.log.WarnContext(ctx, "returns: deleting an orphaned complaint photo", "uuid", im.UUID, "error", derr)
		}
	}
}

// checkUpload checks all of an upload's photos and fields before
// anything is stored, so that one answer names every bad photo.
func checkUpload(in ComplaintUpload) error {
	var vs []deliverykit.FieldViolation
	if len(in.Images) > MaxComplaintImages {
		vs = append(vs, deliverykit.FieldViolation{Field: "image", Rule: "max", Message: "at most " + strconv.Itoa(MaxComplaintImages) + " photos per complaint"})
	}
	for _, im := range in.Images {
		_, ok := SniffImage(im.Data)
		switch {
		case len(im.Data) == 0:
			vs = append(vs, deliverykit.FieldViolation{Field: im.Field, Rule: "required", Message: "is empty"})
		case len(im.Data) > MaxComplaintImageBytes:
			vs = append(vs, deliverykit.FieldViolation{Field: im.Field, Rule: "max", Message: "must be at most " + strconv.Itoa(MaxComplaintImageBytes) + " bytes"})
		case !ok:
			vs = append(vs, deliverykit.FieldViolation{Field: im.Field, Rule: "image", Message: "must be a JPEG, PNG, GIF or WebP image"})
		}
	}
	if len(in.Images) == 0 && in.ReasonID == "" {
		vs = append(vs, deliverykit.FieldViolation{Field: "image", Rule: "required", Message: "send at least one photo, or a reasonId to make a complaint"})
	}
	if len(in.ReasonID) > 128 {
		vs = append(vs, deliverykit.FieldViolation{Field: "reasonId", Rule: "max", Message: "must be at most 128 bytes"})
	}
	if len(vs) > 0 {
		return deliverykit.Invalid(vs...)
	}
	return nil
}

// withPhotos is r with images added to the complaint of its line itemID,
// numbered after r's other photos; the complaint is made from in when the
// line has none. It reads and writes nothing.
func (s *Service) withPhotos(site string, r returnRecord, itemID uint64, in ComplaintUpload, images []imageRecord, now time.Time) (returnRecord, error) {
	idx, err := lineOf(r, itemID)
	if err != nil {
		return r, err
	}
	r.Lines = cloneLines(r.Lines)
	l := &r.Lines[idx]
	switch {
	case r.Status == StatusCompleted:
		return r, deliverykit.E(deliverykit.KindFailedPrecondition, "the return is COMPLETED and takes no more photos")
	case l.Complaint == nil:
		if in.ReasonID == "" {
			return r, deliverykit.InvalidField("reasonId", "required", "the line has no complaint yet: name its reason")
		}
		c, vs := s.newComplaint(site, "", ComplaintInput{ReasonID: in.ReasonID, Text: in.Text}, now)
		if len(vs) > 0 {
			return r, deliverykit.Invalid(vs...)
		}
		l.Complaint = c
	case in.ReasonID != "" || in.Text != "":
		return r, deliverykit.InvalidField("reasonId", "absent", "the line has a complaint already: send photos only")
	case l.Complaint.Status != ComplaintPending:
		return r, deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the complaint is %s and takes no more photos", l.Complaint.Status)
	default:
		cp := *l.Complaint
		l.Complaint = &cp
	}
	have := len(l.Complaint.Images)
	if have+len(images) > MaxComplaintImages {
		return r, deliverykit.InvalidField("image", "max", "a complaint holds at most "+strconv.Itoa(MaxComplaintImages)+" photos; it has "+strconv.Itoa(have))
	}
	// Photos are never removed, so the highest id is the return's count.
	if n := maxImageID(r); n+uint64(len(images)) > MaxReturnImages {
		return r, deliverykit.InvalidField("image", "max", "a return holds at most "+strconv.Itoa(MaxReturnImages)+" photos; it has "+strconv.FormatUint(n, 10))
	}
	next := maxImageID(r) + 1
	l.Complaint.Images = append(l.Complaint.Images[:have:have], images...)
	for i := have; i < len(l.Complaint.Images); i++ {
		l.Complaint.Images[i].ID = next
		next++
	}
	return r, nil
}

// lineOf is the index of the line with id itemID of r, or NotFound.
func lineOf(r returnRecord, itemID uint64) (int, error) {
	for i, l := range r.Lines {
		if l.ID == itemID {
			return i, nil
		}
	}
	return -1, notFound("return item")
}

func cloneLines(ls []returnLine) []returnLine { return append([]returnLine(nil), ls...) }

// maxImageID is the highest photo id of r's complaints.
func maxImageID(r returnRecord) uint64 {
	var n uint64
	for _, l := range r.Lines {
		if l.Complaint != nil {
			for _, im := range l.Complaint.Images {
				n = max(n, im.ID)
			}
		}
	}
	return n
}

// DecideComplaint records the merchant's decision on the complaint about
// line itemID of return returnID (an extension of the returns API): a
// PENDING complaint becomes APPROVED or REJECTED. Deciding the same again
// changes nothing; the other decision is a FailedPrecondition.
func (s *Service) DecideComplaint(ctx context.Context, site string, returnID, itemID uint64, in ComplaintDecision) (Return, error) {
	if err := checkStruct(in); err != nil {
		return Return{}, err
	}
	now := s.now()
	var out Return
	err := s.store.Update(ctx, func(tx storage.Tx) error {
		decided := false // a repeated decision changes nothing and says nothing
		it, err := returnsColl.Get(tx, orderKey(site, returnID))
		if err != nil {
			return notFoundOr(err, "return")
		}
		r := it.Value
		idx, err := lineOf(r, itemID)
		if err != nil {
			return err
		}
		c := r.Lines[idx].Complaint
		switch {
		case c == nil:
			return notFound("complaint")
		case c.Status == in.Status:
		case c.Status != ComplaintPending:
			return deliverykit.Errorf(deliverykit.KindFailedPrecondition, "the complaint is %s already", c.Status)
		default:
			r.Lines = cloneLines(r.Lines)
			cp := *c
			cp.Status, cp.DecidedAt = in.Status, &now
			r.Lines[idx].Complaint = &cp
			r.UpdatedAt = now
			if _, err := returnsColl.Put(tx, it.Key, r, storage.VersionIs(it.Version)); err != nil {
				return err
			}
			decided = true
		}
		o, err := ordersColl.Get(tx, orderKey(site, r.OrderID))
		if err != nil {
			return err
		}
		if decided {
			if err := s.emit(tx, site, o.Value, r, r.Status, now, event.TypeReturnComplaintDecided); err != nil {
				return err
			}
		}
		out, err = s.returnView(tx, site, o.Value, r)
		return err
	})
	return out, err
}

// ComplaintPhoto returns the photo a signed URL names: uuid from the path
// after ComplaintImagePath, expires and signature from its query. An
// altered path, expiry or signature, and an expired URL, are all
// PermissionDenied; a photo no longer stored is NotFound. The content
// type is sniffed from the bytes again.
func (s *Service) ComplaintPhoto(ctx context.Context, uuid, expires, signature string) (ImageFile, error) {
	now := s.clock.Now()
	exp, err := s.signer.verify(ComplaintImagePath+uuid, expires, signature, now)
	if err != nil {
		return ImageFile{}, err
	}
	if !BlobKeyPattern.MatchString(uuid) {
		return ImageFile{}, blobNotFound()
	}
	data, err := s.blobs.GetBlob(ctx, uuid)
	if err != nil {
		return ImageFile{}, err
	}
	ct, ok := SniffImage(data)
	if !ok {
		// Never serve as an image what does not sniff as one.
		ct = "application/octet-stream"
	}
	return ImageFile{Data: data, ContentType: ct, Expires: exp, MaxAge: exp.Sub(now)}, nil
}
