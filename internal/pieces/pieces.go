// Package pieces hands out pieces of reused slices: memory a computation
// takes its values from and gives back all at once (Reset), for values
// that are garbage as soon as one answer is encoded.
package pieces

// Of hands out consecutive pieces of one slice of T. A piece that does not
// fit is taken from a new slice, twice as large, which replaces the old one
// for reuse (the old one is left to the pieces already handed out). The
// zero value is ready; an Of is not safe for concurrent use.
type Of[T any] struct {
	buf  []T
	used int
}

// Take returns n zero elements, clipped so that an append to them never
// writes into the next piece. Zero elements are an empty slice, not nil,
// as make gives them.
func (c *Of[T]) Take(n int) []T {
	if n == 0 {
		return []T{}
	}
	if len(c.buf)-c.used < n {
		c.buf, c.used = make([]T, max(n, 2*len(c.buf))), 0
	}
	out := c.buf[c.used : c.used+n : c.used+n]
	c.used += n
	return out
}

// Used is how many elements the pieces handed out since the last Reset
// hold, in the current slice.
func (c *Of[T]) Used() int { return c.used }

// Reset zeroes what was handed out, so that the pieces keep nothing alive
// and the next Take finds them zero. The pieces handed out before must no
// longer be used.
func (c *Of[T]) Reset() {
	clear(c.buf[:c.used])
	c.used = 0
}
