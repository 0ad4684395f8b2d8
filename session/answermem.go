package session

import (
	"sync"

	"github.com/deliverykit/deliverykit/internal/pieces"
)

// answerMemory is the memory of a session answer's delivery options (an
// optionMemory per delivery) kept for the next answer: CreateAnd takes
// one from answers and puts it back, reset, once its caller has used the
// session. Each piece an optionMemory takes is clipped and never handed
// out twice before reset, so the deliveries of one answer share nothing.
type answerMemory struct {
	options    pieces.Of[DeliveryOption]
	addons     pieces.Of[Addon]
	warehouses pieces.Of[Warehouse]
	etds       pieces.Of[AbsoluteETD]
	locations  pieces.Of[PickupLocation]
	contacts   pieces.Of[Contact]
	addresses  pieces.Of[Address]
	coords     pieces.Of[Coordinates]
	phones     pieces.Of[PhoneNumber]
	hours      pieces.Of[OperationalHours]
	distances  pieces.Of[Distances]
	distance   pieces.Of[Distance]
	strings    pieces.Of[string]
	sections   pieces.Of[Section]
	columns    pieces.Of[Column]
	items      pieces.Of[ColumnItem]
	metas      mapChunk
}

// answers are the answerMemory of CreateAnd.
var answers = sync.Pool{New: func() any { return new(answerMemory) }}

// reset zeroes what the answer took, so that the memory keeps nothing
// alive and the next answer finds it zero.
func (a *answerMemory) reset() {
	a.options.Reset()
	a.addons.Reset()
	a.warehouses.Reset()
	a.etds.Reset()
	a.locations.Reset()
	a.contacts.Reset()
	a.addresses.Reset()
	a.coords.Reset()
	a.phones.Reset()
	a.hours.Reset()
	a.distances.Reset()
	a.distance.Reset()
	a.strings.Reset()
	a.sections.Reset()
	a.columns.Reset()
	a.items.Reset()
	a.metas.reset()
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
