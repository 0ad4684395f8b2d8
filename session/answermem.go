package session

import "sync"

// answerMemory is the memory of a session answer's delivery options (an
// optionMemory per delivery) kept for the next answer: CreateAnd takes
// one from answers and puts it back, reset, once its caller has used the
// session. Each piece an optionMemory takes is clipped and never handed
// out twice before reset, so the deliveries of one answer share nothing.
type answerMemory struct {
	options    chunk[DeliveryOption]
	addons     chunk[Addon]
	warehouses chunk[Warehouse]
	etds       chunk[AbsoluteETD]
	locations  chunk[PickupLocation]
	contacts   chunk[Contact]
	addresses  chunk[Address]
	coords     chunk[Coordinates]
	phones     chunk[PhoneNumber]
	hours      chunk[OperationalHours]
	distances  chunk[Distances]
	distance   chunk[Distance]
	strings    chunk[string]
	sections   chunk[Section]
	columns    chunk[Column]
	items      chunk[ColumnItem]
	metas      mapChunk
}

// answers are the answerMemory of CreateAnd.
var answers = sync.Pool{New: func() any { return new(answerMemory) }}

// reset zeroes what the answer took, so that the memory keeps nothing
// alive and the next answer finds it zero.
func (a *answerMemory) reset() {
	a.options.reset()
	a.addons.reset()
	a.warehouses.reset()
	a.etds.reset()
	a.locations.reset()
	a.contacts.reset()
	a.addresses.reset()
	a.coords.reset()
	a.phones.reset()
	a.hours.reset()
	a.distances.reset()
	a.distance.reset()
	a.strings.reset()
	a.sections.reset()
	a.columns.reset()
	a.items.reset()
	a.metas.reset()
}

// chunk hands out consecutive pieces of one slice; a piece that does not
// fit is taken from a new slice, which replaces the old one for reuse
// (the old one is left to the pieces already handed out).
type chunk[T any] struct {
	buf  []T
	used int
}

// take returns n zero elements, clipped so that an append to them never
// writes into the next piece; zero elements are an empty slice, as make
// gives.
func (c *chunk[T]) take(n int) []T {
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

// reset zeroes what was handed out and makes it available again.
func (c *chunk[T]) reset() {
	clear(c.buf[:c.used])
	c.used = 0
}

// mapChunk hands out the meta maps of an answer's options: maps of an
// earlier answer, cleared, before new ones.
type mapChunk struct {
	maps []map[string]string
	used int
}

// take returns an empty map no other option of the answer has; a nil c
// makes one.
func (c *mapChunk) take() map[string]string {
	if c == nil {
		return make(map[string]string, 1)
	}
	if c.used == len(c.maps) {
		c.maps = append(c.maps, make(map[string]string, 1))
	}
	m := c.maps[c.used]
	c.used++
	return m
}

// reset clears the maps handed out, which the next answer reuses.
func (c *mapChunk) reset() {
	for _, m := range c.maps[:c.used] {
		clear(m)
	}
	c.used = 0
}
