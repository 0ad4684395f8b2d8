package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/returns"
)

// Customer complaints over HTTP: the customer's photo upload under the
// status page token, the signed photo download, and the merchant's
// decision.

// complaintUploadLimit bounds an upload request: the photos a complaint
// may hold at their largest, plus room for the form fields and the
// multipart framing. The middleware applies it instead of the API body
// limit to upload requests only, before anything is parsed.
const complaintUploadLimit = returns.MaxComplaintImages*returns.MaxComplaintImageBytes + 64<<10

// complaintFieldLimit bounds each text field of an upload (reasonId,
// text): the text is at most 2000 characters of up to 4 bytes.
const complaintFieldLimit = 4 * returns.MaxComplaintTextRunes

func (s *server) registerComplaints(h returnsHandlers) {
	a, base := areaReturns, areaReturns.base
	// Extension: the merchant approves or rejects a line's complaint.
	s.route(a, base+"/merchant/return/{returnId}/items/{itemId}/complaint", post(h.decideComplaint))
	// Extension: the customer adds a complaint and photos to a line,
	// under the status page token (multipart/form-data).
	s.routePublic(a, returns.StatusPagePath+"{token}/items/{itemId}"+returns.ComplaintPathSuffix, post(h.uploadComplaint))
	s.routePublic(a, returns.ComplaintImagePath+"{uuid}", methods{http.MethodGet: h.complaintPhoto, http.MethodHead: h.complaintPhoto})
}

// bodyLimit is the body limit of r: the API's, or complaintUploadLimit
// for a complaint upload.
func (s *server) bodyLimit(r *http.Request) int64 {
	p := r.URL.Path
	if r.Method == http.MethodPost && strings.HasPrefix(p, returns.StatusPagePath) && strings.HasSuffix(p, returns.ComplaintPathSuffix) &&
		strings.Contains(p, "/items/") {
		return max(s.maxBody, complaintUploadLimit)
	}
	return s.maxBody
}

func (h returnsHandlers) decideComplaint(w http.ResponseWriter, r *http.Request, site string) error {
	id, err := returnsPathID(r, "returnId")
	if err != nil {
		return err
	}
	item, err := returnsPathID(r, "itemId")
	if err != nil {
		return err
	}
	var in returns.ComplaintDecision
	return handle(w, r, site, &in, nil, func(ctx context.Context, site string, in returns.ComplaintDecision) (returns.Return, error) {
		return h.svc.DecideComplaint(ctx, site, id, item, in)
	})
}

// uploadComplaint reads a multipart/form-data upload: fields reasonId and
// text (when the line has no complaint yet) and files "image" (repeated).
// The body is read as a stream, each photo through a limit one byte past
// the largest allowed, so nothing past the limits is buffered or written
// to disk. A form a browser posted (Accept names text/html) is answered
// with a redirect to the status page, which says so next to the form when
// the upload was refused (?complaint_error=item id); other clients get
// the line (201) or the error.
func (h returnsHandlers) uploadComplaint(w http.ResponseWriter, r *http.Request, _ string) error {
	item, err := returnsPathID(r, "itemId")
	if err != nil {
		return err
	}
	browser := strings.Contains(r.Header.Get("Accept"), "text/html")
	token := r.PathValue("token")
	ret, err := h.upload(r, token, item)
	if browser && err != nil && refusedUpload(err) {
		w.Header().Set("Location", returns.StatusPagePath+token+"?complaint_error="+strconv.FormatUint(item, 10)+"#complaint-"+strconv.FormatUint(item, 10))
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	if err != nil {
		return err
	}
	if browser {
		w.Header().Set("Location", returns.StatusPagePath+token)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	for _, it := range ret.Items {
		if it.ID == item {
			writeJSON(w, http.StatusCreated, it)
			return nil
		}
	}
	return deliverykit.E(deliverykit.KindInternal, "the updated line is missing")
}

// refusedUpload reports whether err refuses what the customer sent (a bad
// photo, too many, too large, a decided complaint), which the page
// explains, rather than the link or the service.
func refusedUpload(err error) bool {
	if errors.Is(err, errBodyTooLarge) {
		return true
	}
	k := deliverykit.KindOf(err)
	return k == deliverykit.KindInvalidArgument || k == deliverykit.KindFailedPrecondition
}

// upload reads the upload of r and adds it to line item of the return of
// token.
func (h returnsHandlers) upload(r *http.Request, token string, item uint64) (returns.Return, error) {
	var none returns.Return
	if limit := requestInfoFrom(r.Context()).maxBody; limit > 0 && r.ContentLength > limit {
		return none, fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, limit)
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return none, deliverykit.InvalidField("Content-Type", "multipart", "must be multipart/form-data")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return none, deliverykit.InvalidField("Content-Type", "multipart", "must be multipart/form-data with a boundary")
	}
	var in returns.ComplaintUpload
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return none, uploadReadError(err)
		}
		name := part.FormName()
		switch {
		case name == "image":
			field := "image[" + strconv.Itoa(len(in.Images)) + "]"
			if len(in.Images) == returns.MaxComplaintImages {
				return none, deliverykit.InvalidField("image", "max", "at most "+strconv.Itoa(returns.MaxComplaintImages)+" photos per complaint")
			}
			data, err := io.ReadAll(io.LimitReader(part, returns.MaxComplaintImageBytes+1))
			if err != nil {
				return none, uploadReadError(err)
			}
			if len(data) > returns.MaxComplaintImageBytes {
				return none, deliverykit.InvalidField(field, "max", "must be at most "+strconv.Itoa(returns.MaxComplaintImageBytes)+" bytes")
			}
			if len(data) == 0 && part.FileName() == "" {
				continue // a browser form's file input with no file chosen
			}
			in.Images = append(in.Images, returns.UploadedImage{Field: field, Data: data})
		case name == "reasonId" || name == "text":
			data, err := io.ReadAll(io.LimitReader(part, complaintFieldLimit+1))
			if err != nil {
				return none, uploadReadError(err)
			}
			if len(data) > complaintFieldLimit {
				return none, deliverykit.InvalidField(name, "max", "is too long")
			}
			if name == "reasonId" {
				in.ReasonID = string(data)
			} else {
				in.Text = strings.ReplaceAll(string(data), "\r\n", "\n")
			}
		default:
			// Unknown fields are ignored, as in JSON bodies, but not
			// buffered.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return none, uploadReadError(err)
			}
		}
	}
	return h.svc.AddComplaintPhotos(r.Context(), token, item, in)
}

// uploadReadError is a failed read of an upload: over the body limit is
// 413, anything else a malformed body.
func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, mbe.Limit)
	}
	return deliverykit.InvalidField("body", "multipart", "is not a readable multipart/form-data body")
}

// complaintPhoto serves a photo a signed URL names. The signature is the
// credential: altered or expired URLs are 403. The type is the one sniffed
// from the bytes, never sniffed again by the browser, and the answer may
// be cached privately until the URL expires.
func (h returnsHandlers) complaintPhoto(w http.ResponseWriter, r *http.Request, _ string) error {
	q := r.URL.Query()
	img, err := h.svc.ComplaintPhoto(r.Context(), r.PathValue("uuid"), q.Get("expires"), q.Get("signature"))
	if err != nil {
		return err
	}
	hd := w.Header()
	hd.Set("Content-Type", img.ContentType)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Disposition", "inline")
	hd.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	hd.Set("Cache-Control", "private, max-age="+strconv.FormatInt(int64(img.MaxAge/time.Second), 10))
	hd.Set("Expires", img.Expires.UTC().Format(http.TimeFormat))
	hd.Set("Content-Length", strconv.Itoa(len(img.Data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(img.Data)
	}
	return nil
}
