package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
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
	s.routePublic(a, returns.StatusPagePath+"{token}/items/{itemId}"+returns.ComplaintPathSuffix, post(func(w http.ResponseWriter, r *http.Request, _ string) error {
		return s.uploadComplaint(w, r, h.svc)
	}))
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
// Nothing of the body is read before the upload is known to be wanted:
// the address has fewer than its uploads in progress (429), the token,
// return and line take photos (404, 400), and the process's upload budget
// has room for the body (503). The body is then read as a stream under a
// read deadline (408), each photo sniffed from its first bytes and
// streamed into the photo store through a limit one byte past the largest
// allowed. A form a browser posted (Accept names text/html) is answered
// with a redirect to the status page, which says so next to the form when
// the upload was refused (?complaint_error=item id); other clients get
// the line (201) or the error.
func (s *server) uploadComplaint(w http.ResponseWriter, r *http.Request, svc *returns.Service) error {
	item, err := returnsPathID(r, "itemId")
	if err != nil {
		return err
	}
	if !isUploadAdmitted(r) {
		addr := addressKey(clientAddr(r, s.limits.proxies))
		if !s.uploads.enter(addr) {
			w.Header().Set("Connection", "close")
			s.writeRefusal(w, r, styleSpring, errUploadsFromAddress)
			return nil
		}
		defer s.uploads.leave(addr)
	}
	browser := strings.Contains(r.Header.Get("Accept"), "text/html")
	token := r.PathValue("token")
	ret, err := s.upload(w, r, svc, token, item)
	if err != nil {
		// The body may be unread: closing the connection spares
		// reading the rest of it just to reuse the connection.
		w.Header().Set("Connection", "close")
	}
	if browser && err != nil && refusedUpload(err) {
		w.Header().Set("Location", returns.StatusPagePath+token+"?complaint_error="+strconv.FormatUint(item, 10)+"#complaint-"+strconv.FormatUint(item, 10))
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusSeeOther)
		return nil
	}
	if err != nil {
		if s.writeRefusal(w, r, styleSpring, err) {
			return nil
		}
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
	var wr *wireRefusal
	if errors.As(err, &wr) {
		return false
	}
	k := deliverykit.KindOf(err)
	return k == deliverykit.KindInvalidArgument || k == deliverykit.KindFailedPrecondition
}

// upload reads the upload of r and adds it to line item of the return of
// token. Its checks come before the first read of the body.
func (s *server) upload(w http.ResponseWriter, r *http.Request, svc *returns.Service, token string, item uint64) (returns.Return, error) {
	var none returns.Return
	limit := requestInfoFrom(r.Context()).maxBody
	if limit > 0 && r.ContentLength > limit {
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
	u, err := svc.StartComplaintUpload(r.Context(), token, item)
	if err != nil {
		return none, err
	}
	defer u.Abort(r.Context())
	// The body takes its declared length of the budget, or the whole
	// limit when it declares none (it cannot pass either).
	size := limit
	if r.ContentLength >= 0 {
		size = r.ContentLength
	}
	// A socket deadline is wall-clock time, whatever the handler's clock.
	// Without a connection to set it on (a handler called directly), the
	// server's own timeouts are all there is.
	rc := http.NewResponseController(w)
	if !isUploadAdmitted(r) { // else it was read under the limits already
		if !s.uploads.reserve(size) {
			return none, errUploadBudget
		}
		defer s.uploads.release(size)
		_ = rc.SetReadDeadline(time.Now().Add(s.uploads.readTimeout))
	}
	var reasonID, text string
	images := 0
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
			body := io.Reader(&bodyReader{part})
			if part.FileName() == "" {
				// A browser form's file input with no file chosen
				// sends an empty part without a file name.
				var first [1]byte
				n, err := io.ReadFull(body, first[:])
				if errors.Is(err, io.EOF) {
					continue
				}
				if err != nil {
					return none, uploadReadError(err)
				}
				body = io.MultiReader(bytes.NewReader(first[:n]), body)
			}
			field := "image[" + strconv.Itoa(images) + "]"
			images++
			if err := u.AddPhoto(r.Context(), field, body); err != nil {
				// A refused photo or a failing photo store is
				// answered as it is; a failed read of the body as one.
				if bre := (*bodyReadError)(nil); errors.As(err, &bre) {
					return none, uploadReadError(bre.err)
				}
				return none, err
			}
		case name == "reasonId" || name == "text":
			data, err := io.ReadAll(io.LimitReader(part, complaintFieldLimit+1))
			if err != nil {
				return none, uploadReadError(err)
			}
			if len(data) > complaintFieldLimit {
				return none, deliverykit.InvalidField(name, "max", "is too long")
			}
			if name == "reasonId" {
				reasonID = string(data)
			} else {
				text = strings.ReplaceAll(string(data), "\r\n", "\n")
			}
		default:
			// Unknown fields are ignored, as in JSON bodies, but not
			// buffered.
			if _, err := io.Copy(io.Discard, part); err != nil {
				return none, uploadReadError(err)
			}
		}
	}
	// The body is read: the deadline must not cut the connection's idle
	// read (which would cancel the request) while the store works.
	_ = rc.SetReadDeadline(time.Time{})
	return u.Finish(r.Context(), reasonID, text)
}

// bodyReader marks the errors of reading the body, so that they are told
// apart from the photo store's once AddPhoto has wrapped them.
type bodyReader struct{ r io.Reader }

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = &bodyReadError{err}
	}
	return n, err
}

type bodyReadError struct{ err error }

func (e *bodyReadError) Error() string { return "reading the body: " + e.err.Error() }
func (e *bodyReadError) Unwrap() error { return e.err }

// uploadReadError is a failed read of an upload: over the body limit is
// 413, past the read deadline 408, anything else a malformed body.
func uploadReadError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fmt.Errorf("%w: the limit is %d bytes", errBodyTooLarge, mbe.Limit)
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return errUploadTimeout
	}
	return deliverykit.InvalidField("body", "multipart", "is not a readable multipart/form-data body")
}

// complaintPhoto serves a photo a signed URL names. The signature is the
// credential: altered or expired URLs are 403. The type is the one sniffed
// from the bytes, never sniffed again by the browser, and the answer may
// be cached privately until the URL expires. Its security headers
// (policyPhoto) sandbox it should a browser open it as a page.
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
	hd.Set("Cache-Control", "private, max-age="+strconv.FormatInt(int64(img.MaxAge/time.Second), 10))
	hd.Set("Expires", img.Expires.UTC().Format(http.TimeFormat))
	hd.Set("Content-Length", strconv.Itoa(len(img.Data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(img.Data)
	}
	return nil
}
