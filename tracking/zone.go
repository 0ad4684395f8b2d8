package tracking

import "github.com/deliverykit/deliverykit/storage"

// countryZones gives the time zone of the countries the catalogs deliver
// to that have exactly one. A country with several zones is left out: its
// orders fall back to the site's zone rather than show a guessed one.
var countryZones = map[string]string{
	"AT": "Europe/Vienna",
	"CH": "Europe/Zurich",
	"DE": "Europe/Berlin",
	"DK": "Europe/Copenhagen",
	"FI": "Europe/Helsinki",
	"NO": "Europe/Oslo",
	"SE": "Europe/Stockholm",
}

// timeZone is the zone the order's times are shown in: where the goods are
// delivered (a parcel's pickup point or address, the order's destination,
// the receiver's address), else the site's zone, else where they leave
// from (the sender's address); "" when none of these is known.
func (s *Service) timeZone(site string, o *orderRecord, ps []storage.Item[parcelRecord]) string {
	var countries []string
	for i := range ps {
		if r := ps[i].Value.Request.Receiver; r != nil && r.Destination != nil {
			if p := r.Destination.Pickup; p != nil && p.Address != nil {
				countries = append(countries, p.Address.Country)
			}
			if a := r.Destination.Address; a != nil {
				countries = append(countries, a.Country)
			}
		}
	}
	if d := o.Request.Destination; d != nil && d.Address != nil {
		countries = append(countries, d.Address.Country)
	}
	if r := o.Request.Receiver; r != nil && r.Address != nil {
		countries = append(countries, r.Address.Country)
	}
	for _, c := range countries {
		if z, ok := countryZones[c]; ok {
			return z
		}
	}
	if z := s.opts.Sites[site].TimeZone; z != "" {
		return z
	}
	if snd := o.Request.Sender; snd != nil && snd.Address != nil {
		return countryZones[snd.Address.Country]
	}
	return ""
}
