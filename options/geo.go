package options

import (
	"context"
	"math"
	"slices"
	"strings"

	"github.com/deliverykit/deliverykit/catalog"
)

// earthRadius is the mean Earth radius in metres.
const earthRadius = 6371008.8

// Geocoder finds the coordinates of a search address. ok is false when the
// address cannot be placed; the engine then answers without distances
// rather than inventing them. An error aborts the computation.
type Geocoder interface {
	Geocode(ctx context.Context, addr catalog.Address) (c catalog.Coordinates, ok bool, err error)
}

// PostalGeocoder resolves postal codes from catalog data: the catalog's
// postal areas and the postal codes of its pickup locations, by longest
// matching prefix within the country. It needs no network, which makes it
// the default and keeps tests deterministic.
type PostalGeocoder struct {
	byCountry map[string]map[string]catalog.Coordinates // country → normalized prefix → centre
	maxLen    int
}

// NewPostalGeocoder indexes the catalog's postal data.
func NewPostalGeocoder(c *catalog.Catalog) *PostalGeocoder {
	g := &PostalGeocoder{byCountry: map[string]map[string]catalog.Coordinates{}}
	add := func(country, prefix string, co catalog.Coordinates) {
		prefix = catalog.NormalizePostalCode(prefix)
		if prefix == "" {
			return
		}
		m := g.byCountry[country]
		if m == nil {
			m = map[string]catalog.Coordinates{}
			g.byCountry[country] = m
		}
		if _, dup := m[prefix]; !dup {
			m[prefix] = co
		}
		g.maxLen = max(g.maxLen, len(prefix))
	}
	// Explicit areas first: they win over a location's own code.
	for _, a := range c.PostalAreas {
		add(a.Country, a.Prefix, a.Coordinates)
	}
	for _, l := range c.PickupLocations {
		if l.Address.Coordinates != nil {
			add(l.Address.Country, l.Address.PostalCode, *l.Address.Coordinates)
		}
	}
	return g
}

// Geocode implements Geocoder. Coordinates already on the address win.
func (g *PostalGeocoder) Geocode(_ context.Context, a catalog.Address) (catalog.Coordinates, bool, error) {
	if a.Coordinates != nil {
		return *a.Coordinates, true, nil
	}
	m := g.byCountry[strings.ToUpper(a.Country)]
	code := catalog.NormalizePostalCode(a.PostalCode)
	for n := min(len(code), g.maxLen); n > 0; n-- {
		if c, ok := m[code[:n]]; ok {
			return c, true, nil
		}
	}
	return catalog.Coordinates{}, false, nil
}

// Distance estimates the way to a pickup location. Walking and driving
// figures derive from the great-circle distance with detour factors typical
// of street networks (1.25 on foot, 1.4 by car), at 5 km/h on foot and by
// car 35 km/h for the first 10 km (town streets) and 80 km/h beyond. They
// are estimates, not routes.
type Distance struct {
	WalkingMeters, WalkingMinutes int64
	DrivingMeters, DrivingMinutes int64
}

// DistanceBetween estimates the way from a to b as the engine estimates
// the way to a pickup location: from the great-circle distance. The
// delivery session gives its nodes' locations distances with it.
func DistanceBetween(a, b catalog.Coordinates) Distance {
	return estimate(haversine(a, b))
}

func estimate(meters float64) Distance {
	walk := meters * 1.25
	drive := meters * 1.4
	return Distance{
		WalkingMeters:  int64(math.Round(walk)),
		WalkingMinutes: int64(math.Ceil(walk / (5000.0 / 60))),
		DrivingMeters:  int64(math.Round(drive)),
		DrivingMinutes: int64(math.Ceil(min(drive, 10000)/(35000.0/60) + max(drive-10000, 0)/(80000.0/60))),
	}
}

// haversine returns the great-circle distance in metres.
func haversine(a, b catalog.Coordinates) float64 {
	const rad = math.Pi / 180
	dLat := (b.Lat - a.Lat) * rad
	dLng := (b.Lng - a.Lng) * rad
	s := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(a.Lat*rad)*math.Cos(b.Lat*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 2 * earthRadius * math.Asin(math.Min(1, math.Sqrt(s)))
}

// point is a location on the unit sphere. Euclidean (chord) distance
// between such points grows monotonically with great-circle distance, so a
// k-d tree over them answers exact nearest-neighbour queries without the
// distortions of a latitude/longitude grid (poles, the antimeridian).
type point [3]float64

func toPoint(c catalog.Coordinates) point {
	const rad = math.Pi / 180
	lat, lng := c.Lat*rad, c.Lng*rad
	return point{math.Cos(lat) * math.Cos(lng), math.Cos(lat) * math.Sin(lng), math.Sin(lat)}
}

func dist2(a, b point) float64 {
	dx, dy, dz := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return dx*dx + dy*dy + dz*dz
}

// Index is a static k-d tree over pickup locations. It is built once per
// catalog; queries allocate only their result and are safe for concurrent
// use.
type Index struct {
	pts  []point // tree order: the median of each range is its node
	ids  []int32 // caller's item number per tree slot
	axes []uint8
}

// NewIndex builds the index over coords; Nearest reports positions in coords.
func NewIndex(coords []catalog.Coordinates) *Index {
	n := len(coords)
	ix := &Index{pts: make([]point, n), ids: make([]int32, n), axes: make([]uint8, n)}
	for i, c := range coords {
		ix.pts[i] = toPoint(c)
		ix.ids[i] = int32(i)
	}
	ix.build(0, n, 0)
	return ix
}

// build arranges [lo,hi) so its median is split on the axis of greatest
// spread, recursively.
func (ix *Index) build(lo, hi, depth int) {
	if hi-lo <= 0 {
		return
	}
	// Spread per axis decides the split: clusters of pickup points in
	// cities make a fixed axis rotation unbalanced in practice.
	var mn, mx [3]float64
	for a := range 3 {
		mn[a], mx[a] = math.Inf(1), math.Inf(-1)
	}
	for i := lo; i < hi; i++ {
		for a := range 3 {
			mn[a] = math.Min(mn[a], ix.pts[i][a])
			mx[a] = math.Max(mx[a], ix.pts[i][a])
		}
	}
	axis := 0
	for a := 1; a < 3; a++ {
		if mx[a]-mn[a] > mx[axis]-mn[axis] {
			axis = a
		}
	}
	mid := (lo + hi) / 2
	ix.selectNth(lo, hi, mid, axis)
	ix.axes[mid] = uint8(axis)
	ix.build(lo, mid, depth+1)
	ix.build(mid+1, hi, depth+1)
}

// selectNth partially orders [lo,hi) on axis so position k holds the value
// it would hold if sorted (quickselect, median-of-three pivot).
func (ix *Index) selectNth(lo, hi, k, axis int) {
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		a, b, c := ix.pts[lo][axis], ix.pts[m][axis], ix.pts[hi-1][axis]
		pv := max(min(a, b), min(max(a, b), c))
		i, j := lo, hi-1
		for i <= j {
			for ix.pts[i][axis] < pv {
				i++
			}
			for ix.pts[j][axis] > pv {
				j--
			}
			if i <= j {
				ix.swap(i, j)
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j + 1
		case k >= i:
			lo = i
		default:
			return
		}
	}
}

func (ix *Index) swap(i, j int) {
	ix.pts[i], ix.pts[j] = ix.pts[j], ix.pts[i]
	ix.ids[i], ix.ids[j] = ix.ids[j], ix.ids[i]
}

// Len returns the number of indexed locations.
func (ix *Index) Len() int { return len(ix.pts) }

// Neighbor is one result of Nearest.
type Neighbor struct {
	Item   int     // position in the coordinates given to NewIndex
	Meters float64 // great-circle distance
}

// Nearest returns up to k items nearest to c, nearest first (ties by item
// number, so results are deterministic).
func (ix *Index) Nearest(c catalog.Coordinates, k int) []Neighbor {
	if k <= 0 || len(ix.pts) == 0 {
		return nil
	}
	return ix.appendNearest(make([]Neighbor, 0, min(k, len(ix.pts))), c, k)
}

// maxStackNeighbors is how many candidates appendNearest keeps on the
// stack, and the engine how many neighbors (above DefaultMaxLocations):
// more take an allocation.
const maxStackNeighbors = 16

// appendNearest is Nearest appending to dst. Its candidates are on the
// stack for a k up to maxStackNeighbors: a search allocates nothing but
// what dst grows by.
func (ix *Index) appendNearest(dst []Neighbor, c catalog.Coordinates, k int) []Neighbor {
	if k <= 0 || len(ix.pts) == 0 {
		return dst
	}
	q := toPoint(c)
	var buf [maxStackNeighbors]cand
	h := maxHeap(buf[:0])
	if k > len(buf) {
		h = make(maxHeap, 0, k)
	}
	ix.search(q, 0, len(ix.pts), k, &h)
	slices.SortFunc(h, func(a, b cand) int {
		if a.d2 != b.d2 {
			if a.d2 < b.d2 {
				return -1
			}
			return 1
		}
		return int(a.id - b.id)
	})
	for _, cd := range h {
		// chord length → central angle → metres
		chord := math.Sqrt(cd.d2)
		dst = append(dst, Neighbor{Item: int(cd.id), Meters: 2 * earthRadius * math.Asin(math.Min(1, chord/2))})
	}
	return dst
}

func (ix *Index) search(q point, lo, hi, k int, h *maxHeap) {
	for hi > lo {
		mid := (lo + hi) / 2
		p := ix.pts[mid]
		d := dist2(q, p)
		if len(*h) < k {
			h.push(cand{d, ix.ids[mid]})
		} else if top := (*h)[0]; d < top.d2 || d == top.d2 && ix.ids[mid] < top.id {
			(*h)[0] = cand{d, ix.ids[mid]}
			h.down(0)
		}
		axis := ix.axes[mid]
		diff := q[axis] - p[axis]
		nearLo, nearHi, farLo, farHi := lo, mid, mid+1, hi
		if diff > 0 {
			nearLo, nearHi, farLo, farHi = mid+1, hi, lo, mid
		}
		ix.search(q, nearLo, nearHi, k, h)
		// Visit the far side only if the splitting plane is closer
		// than the current k-th best.
		if len(*h) == k && diff*diff > (*h)[0].d2 {
			return
		}
		lo, hi = farLo, farHi
	}
}

type cand struct {
	d2 float64
	id int32
}

// maxHeap keeps the k best candidates with the worst on top. It sifts
// itself rather than going through container/heap, whose Push takes an
// interface: a candidate boxed per point visited, on every search.
type maxHeap []cand

// worse reports whether h[i] is a worse candidate than h[j]: farther, or
// as far with a larger item number.
func (h maxHeap) worse(i, j int) bool {
	if h[i].d2 != h[j].d2 {
		return h[i].d2 > h[j].d2
	}
	return h[i].id > h[j].id
}

// push adds c and restores the heap order. h has room for it (search
// pushes only below k, the capacity it is given): a reslice rather than
// an append, which would make the heap's array escape to the heap.
func (h *maxHeap) push(c cand) {
	*h = (*h)[:len(*h)+1]
	s := *h
	s[len(s)-1] = c
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.worse(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

// down restores the heap order after h[i] became better.
func (h maxHeap) down(i int) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && h.worse(l, worst) {
			worst = l
		}
		if r < len(h) && h.worse(r, worst) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}
