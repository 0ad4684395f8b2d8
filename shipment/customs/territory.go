// Package customs decides when a parcel crosses a customs or fiscal
// border, and so needs a customs declaration, and which document a
// declaration travels with (CN22, CN23, commercial invoice).
//
// # Territories
//
// Sources: the Union Customs Code, Regulation (EU) No 952/2013, Article 4
// (the customs territory of the Union); the VAT Directive 2006/112/EC,
// Article 6 (territories outside the EU VAT area) and the excise
// directive (EU) 2020/262, Article 5; the Windsor Framework (2023) for
// Northern Ireland. A declaration is needed when goods leave or enter the
// EU customs territory, and also when they cross into or out of a part of
// a member state that is outside the EU VAT area (Åland, the Canary
// Islands, …): those movements are declared to customs like exports.
//
// Each address belongs to one territory, from its country and, for the
// special territories that carriers address under their member state's
// country code, its postal code:
//
//	| territory | members                                                               |
//	|-----------|-----------------------------------------------------------------------|
//	| EU        | the 27 member states and Monaco (in the French customs and VAT area), |
//	|           | Northern Ireland (GB postcodes BT…, for goods; see below)             |
//	| CH        | Switzerland, Liechtenstein (customs union) and Büsingen (DE 78266)    |
//	| GB        | Great Britain and the Isle of Man (IM)                                |
//	| AX        | Åland: AX, or FI with postal codes 22xxx (outside EU VAT and excise)  |
//	| IC        | Canary Islands: IC, or ES with postal codes 35xxx and 38xxx           |
//	| EA        | Ceuta and Melilla: EA, or ES 51xxx, 52xxx (outside the customs union) |
//	| DE-HGL    | Heligoland, DE 27498 (outside EU VAT)                                 |
//	| IT-LIV    | Livigno, IT 23041 (outside EU VAT)                                    |
//	| IT-CMP    | Campione d'Italia, IT 22061 (outside EU VAT)                          |
//	| GR-ATH    | Mount Athos, GR 63086 (outside EU VAT)                                |
//	| GP MQ GF  | the French overseas departments (outside EU VAT), under their own     |
//	| RE YT     | country codes or FR 971xx–976xx                                       |
//	| (country) | every other country is its own territory: NO, IS, SM, AD, JE, GG, …   |
//
// Northern Ireland: under the Windsor Framework Northern Ireland applies
// the EU's rules for goods, so a parcel between Northern Ireland and the
// EU needs no declaration, one from Great Britain to Northern Ireland does
// (it enters the EU goods area, even in the UK's "green lane"), and one
// from Northern Ireland to Great Britain does not (the UK guarantees
// unfettered access for those goods).
package customs

import (
	"strings"

	"github.com/deliverykit/deliverykit"
)

// Territory names a customs territory (see the package doc).
type Territory string

// The territories with more than one country or a postal-code rule.
const (
	EU           Territory = "EU"
	Swiss        Territory = "CH"
	GreatBritain Territory = "GB"
	Aland        Territory = "AX"
	Canaries     Territory = "IC"
	CeutaMel     Territory = "EA"
	Heligoland   Territory = "DE-HGL"
	Livigno      Territory = "IT-LIV"
	Campione     Territory = "IT-CMP"
	MountAthos   Territory = "GR-ATH"
)

// euMembers are the EU member states' ISO 3166-1 codes (Greece is GR;
// "EL" is the EU's own code for it) and Monaco.
var euMembers = map[string]bool{
	"AT": true, "BE": true, "BG": true, "HR": true, "CY": true, "CZ": true, "DK": true, "EE": true, "FI": true,
	"FR": true, "DE": true, "GR": true, "EL": true, "HU": true, "IE": true, "IT": true, "LV": true, "LT": true,
	"LU": true, "MT": true, "NL": true, "PL": true, "PT": true, "RO": true, "SK": true, "SI": true, "ES": true,
	"SE": true, "MC": true,
}

// overseas are the French overseas departments' postal prefixes and codes.
var overseas = map[string]Territory{"971": "GP", "972": "MQ", "973": "GF", "974": "RE", "976": "YT"}

// postalDigits is the postal code without spaces and dashes, upper-cased.
func postalDigits(pc string) string {
	return strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(pc))
}

// TerritoryOf returns the territory of an address given by its ISO 3166-1
// country code and postal code; "" when the country is not a code.
func TerritoryOf(country, postalCode string) Territory {
	c := strings.ToUpper(strings.TrimSpace(country))
	pc := postalDigits(postalCode)
	if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
		return "" // not a country code: the address is refused elsewhere
	}
	switch c {
	case "CH", "LI":
		return Swiss
	case "GB":
		if northernIreland(pc) {
			return EU
		}
		return GreatBritain
	case "IM":
		return GreatBritain
	case "XI": // the EU's code for Northern Ireland in VAT and customs numbers
		return EU
	case "FI":
		if strings.HasPrefix(pc, "22") {
			return Aland
		}
	case "ES":
		switch {
		case strings.HasPrefix(pc, "35"), strings.HasPrefix(pc, "38"):
			return Canaries
		case strings.HasPrefix(pc, "51"), strings.HasPrefix(pc, "52"):
			return CeutaMel
		}
	case "DE":
		switch pc {
		case "27498":
			return Heligoland
		case "78266":
			return Swiss
		}
	case "IT":
		switch pc {
		case "23041":
			return Livigno
		case "22061":
			return Campione
		}
	case "GR", "EL":
		if pc == "63086" {
			return MountAthos
		}
	case "FR":
		if len(pc) >= 3 {
			if t, ok := overseas[pc[:3]]; ok {
				return t
			}
		}
	}
	if euMembers[c] {
		return EU
	}
	return Territory(c)
}

// northernIreland reports whether a UK postcode is in Northern Ireland
// (the BT area).
func northernIreland(pc string) bool {
	return len(pc) > 2 && pc[:2] == "BT" && pc[2] >= '0' && pc[2] <= '9'
}

// RequiresDeclaration reports whether goods sent from one address to
// another need a customs declaration, with the reason in words. An address
// without a country needs none: its territory is not known.
func RequiresDeclaration(from, to deliverykit.Address) (bool, string) {
	ft, tt := TerritoryOf(from.Country, from.PostalCode), TerritoryOf(to.Country, to.PostalCode)
	fromNI := ft == EU && strings.EqualFold(strings.TrimSpace(from.Country), "GB")
	switch {
	case ft == "" || tt == "":
		return false, "the territory of an address without a country is not known"
	case ft == tt && fromNI:
		return false, "Northern Ireland is in the EU's area for goods (Windsor Framework)"
	case ft == tt:
		return false, "both addresses are in customs territory " + string(ft)
	case fromNI && tt == GreatBritain:
		return false, "goods from Northern Ireland reach Great Britain without a declaration (Windsor Framework)"
	}
	return true, "the goods cross from customs territory " + string(ft) + " to " + string(tt)
}
