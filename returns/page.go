package returns

import (
	"cmp"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/deliverykit/deliverykit"
)

// Paging limits. Spring Data falls back to 20 when the size is absent or
// 0, and this service clamps larger sizes to 2000.
const (
	DefaultPageSize = 20
	MaxPageSize     = 2000
)

// AfterDateLayout is the layout of the afterDate parameter; it is read as
// UTC.
const AfterDateLayout = "2006-01-02T15:04:05"

// Direction is a sort direction.
type Direction string

// The sort directions.
const (
	Asc  Direction = "asc"
	Desc Direction = "desc"
)

// SortOrder is one field of a sort, as in sort=field,direction.
type SortOrder struct {
	Field     string
	Direction Direction
}

// PageRequest is the paging query of the list endpoints. The zero value is
// the first page of the default size in id order.
type PageRequest struct {
	Page int // zero-based
	// Size is the page size; 0 means DefaultPageSize and values above
	// MaxPageSize are clamped.
	Size int
	// Sort applies in order; empty means id ascending.
	Sort []SortOrder
	// AfterID keeps only rows whose id is greater (0: no filter).
	AfterID uint64
	// AfterDate keeps only rows created strictly after it (zero: no
	// filter).
	AfterDate time.Time
}

// ParsePageQuery reads page, size, sort, afterId and afterDate from a query
// string. A negative or non-numeric page or size, a malformed sort, afterId
// or afterDate is an InvalidArgument naming the parameter; sort fields are
// checked by the list call, which knows its entity's properties.
//
// sort follows Spring Data: "sort=a,desc" sorts by a descending, "sort=a"
// ascending, "sort=a,b,desc" applies desc to both a and b, and repeated
// sort parameters apply in the given order.
func ParsePageQuery(q url.Values) (PageRequest, error) {
	var pr PageRequest
	var vs []deliverykit.FieldViolation
	num := func(name string) int {
		s := q.Get(name)
		if s == "" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil || n < 0 {
			vs = append(vs, deliverykit.FieldViolation{Field: name, Rule: "gte", Message: "must be a whole number from 0 to 2147483647"})
			return 0
		}
		return int(n)
	}
	pr.Page = num("page")
	pr.Size = num("size")
	for _, raw := range q["sort"] {
		parts := strings.Split(raw, ",")
		dir := Asc
		if last := strings.ToLower(strings.TrimSpace(parts[len(parts)-1])); len(parts) > 1 && (last == string(Asc) || last == string(Desc)) {
			dir = Direction(last)
			parts = parts[:len(parts)-1]
		}
		for _, f := range parts {
			f = strings.TrimSpace(f)
			if f == "" {
				vs = append(vs, deliverykit.FieldViolation{Field: "sort", Rule: "format", Message: "must be field,direction with direction asc or desc"})
				continue
			}
			pr.Sort = append(pr.Sort, SortOrder{Field: f, Direction: dir})
		}
	}
	if s := q.Get("afterId"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			vs = append(vs, deliverykit.FieldViolation{Field: "afterId", Rule: "type", Message: "must be a non-negative integer"})
		}
		pr.AfterID = n
	}
	if s := q.Get("afterDate"); s != "" {
		t, err := time.ParseInLocation(AfterDateLayout, s, time.UTC)
		if err != nil {
			vs = append(vs, deliverykit.FieldViolation{Field: "afterDate", Rule: "datetime", Message: "must be YYYY-MM-DDThh:mm:ss (read as UTC)"})
		}
		pr.AfterDate = t
	}
	if len(vs) > 0 {
		return PageRequest{}, deliverykit.Invalid(vs...)
	}
	return pr, nil
}

// Page is Spring Data's page envelope, field for field.
type Page[T any] struct {
	Content          []T      `json:"content"`
	Pageable         Pageable `json:"pageable"`
	TotalPages       int      `json:"totalPages"`
	TotalElements    int64    `json:"totalElements"`
	Last             bool     `json:"last"`
	Size             int      `json:"size"`
	Number           int      `json:"number"`
	Sort             SortInfo `json:"sort"`
	NumberOfElements int      `json:"numberOfElements"`
	First            bool     `json:"first"`
	Empty            bool     `json:"empty"`
}

// Pageable echoes the request that produced a page.
type Pageable struct {
	Sort       SortInfo `json:"sort"`
	Offset     int64    `json:"offset"`
	PageSize   int      `json:"pageSize"`
	PageNumber int      `json:"pageNumber"`
	Unpaged    bool     `json:"unpaged"`
	Paged      bool     `json:"paged"`
}

// SortInfo is how Spring Data serialises a sort: only whether there is one.
type SortInfo struct {
	Sorted   bool `json:"sorted"`
	Unsorted bool `json:"unsorted"`
	Empty    bool `json:"empty"`
}

// window is a validated page request: effective size and offset.
type window struct {
	page, size int
	offset     int64
	sort       []SortOrder
	afterID    uint64
	afterDate  time.Time
}

// newWindow applies the size defaults and checks sort fields against the
// entity's whitelist.
func newWindow(pr PageRequest, fields []string) (window, error) {
	w := window{page: pr.Page, size: pr.Size, sort: pr.Sort, afterID: pr.AfterID, afterDate: pr.AfterDate}
	if w.page < 0 {
		return window{}, deliverykit.InvalidField("page", "gte", "must not be negative")
	}
	if w.page > math.MaxInt32 {
		return window{}, deliverykit.InvalidField("page", "lte", "must be at most 2147483647")
	}
	switch {
	case w.size < 0:
		return window{}, deliverykit.InvalidField("size", "gte", "must not be negative")
	case w.size == 0:
		w.size = DefaultPageSize
	case w.size > MaxPageSize:
		w.size = MaxPageSize
	}
	for _, o := range w.sort {
		if o.Direction != Asc && o.Direction != Desc {
			return window{}, deliverykit.InvalidField("sort", "oneof", "direction must be asc or desc, not "+strconv.Quote(string(o.Direction)))
		}
		known := false
		for _, f := range fields {
			known = known || f == o.Field
		}
		if !known {
			return window{}, deliverykit.InvalidField("sort", "oneof", "cannot sort by "+strconv.Quote(o.Field)+"; sortable: "+strings.Join(fields, ", "))
		}
	}
	w.offset = int64(w.page) * int64(w.size)
	return w, nil
}

// idOrder reports whether the sort is plain id order (the fast path) and
// whether it is descending.
func (w window) idOrder() (ok, desc bool) {
	switch {
	case len(w.sort) == 0:
		return true, false
	case len(w.sort) == 1 && w.sort[0].Field == "id":
		return true, w.sort[0].Direction == Desc
	}
	return false, false
}

// envelope builds the page around content given the filtered total.
func envelope[T any](w window, content []T, total int64) Page[T] {
	if content == nil {
		content = []T{}
	}
	si := SortInfo{Sorted: len(w.sort) > 0, Unsorted: len(w.sort) == 0, Empty: len(w.sort) == 0}
	totalPages := int((total + int64(w.size) - 1) / int64(w.size))
	return Page[T]{
		Content:          content,
		Pageable:         Pageable{Sort: si, Offset: w.offset, PageSize: w.size, PageNumber: w.page, Paged: true},
		TotalPages:       totalPages,
		TotalElements:    total,
		Last:             w.page+1 >= totalPages,
		Size:             w.size,
		Number:           w.page,
		Sort:             si,
		NumberOfElements: len(content),
		First:            w.page == 0,
		Empty:            len(content) == 0,
	}
}

// sortKey extracts a comparable value of a row for one sort field.
type sortKey[R any] func(r R, field string) (s string, n int64, t time.Time)

// sortRows orders rows by the window's sort, ties broken by id ascending so
// pages are stable.
func compareRows[R any](w window, key sortKey[R], id func(R) uint64) func(a, b R) int {
	return func(a, b R) int {
		for _, o := range w.sort {
			as, an, at := key(a, o.Field)
			bs, bn, bt := key(b, o.Field)
			c := cmp.Or(cmp.Compare(as, bs), cmp.Compare(an, bn), at.Compare(bt))
			if o.Direction == Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return cmp.Compare(id(a), id(b))
	}
}
