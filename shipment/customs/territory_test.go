package customs_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/deliverykit/deliverykit"
	"github.com/deliverykit/deliverykit/shipment/customs"
)

func TestRequiresDeclaration(t *testing.T) {
	addr := func(country, pc string) deliverykit.Address {
		return deliverykit.Address{Country: country, PostalCode: pc}
	}
	se := addr("SE", "111 22")
	type result struct {
		From, To customs.Territory
		Required bool
	}
	tests := []struct {
		name     string
		from, to deliverykit.Address
		want     result
	}{
		{"SE to DE", se, addr("DE", "10115"), result{"EU", "EU", false}},
		{"SE to NO", se, addr("NO", "0150"), result{"EU", "NO", true}},
		{"SE to CH", se, addr("CH", "8001"), result{"EU", "CH", true}},
		{"CH to LI", addr("CH", "8001"), addr("LI", "9490"), result{"CH", "CH", false}},
		{"SE to GB", se, addr("GB", "SW1A 1AA"), result{"EU", "GB", true}},
		{"GB to SE", addr("GB", "M1 1AE"), se, result{"GB", "EU", true}},
		{"SE to IS", se, addr("IS", "101"), result{"EU", "IS", true}},
		{"SE to Isle of Man", se, addr("IM", "IM1 1AA"), result{"EU", "GB", true}},
		{"SE to Monaco", se, addr("MC", "98000"), result{"EU", "EU", false}},
		{"SE to San Marino", se, addr("SM", "47890"), result{"EU", "SM", true}},
		{"SE to Aland by FI postal code", se, addr("FI", "22100"), result{"EU", "AX", true}},
		{"SE to Aland by AX", se, addr("ax", "22100"), result{"EU", "AX", true}},
		{"SE to Helsinki", se, addr("FI", "00100"), result{"EU", "EU", false}},
		{"SE to Canary Islands Las Palmas", se, addr("ES", "35001"), result{"EU", "IC", true}},
		{"SE to Canary Islands Tenerife", se, addr("ES", "38001"), result{"EU", "IC", true}},
		{"SE to Madrid", se, addr("ES", "28001"), result{"EU", "EU", false}},
		{"SE to Ceuta", se, addr("ES", "51001"), result{"EU", "EA", true}},
		{"SE to Melilla", se, addr("ES", "52001"), result{"EU", "EA", true}},
		{"Tenerife to Las Palmas", addr("ES", "38001"), addr("ES", "35001"), result{"IC", "IC", false}},
		{"SE to Heligoland", se, addr("DE", "27498"), result{"EU", "DE-HGL", true}},
		{"SE to Büsingen", se, addr("DE", "78266"), result{"EU", "CH", true}},
		{"Büsingen to Zurich", addr("DE", "78266"), addr("CH", "8001"), result{"CH", "CH", false}},
		{"SE to Livigno", se, addr("IT", "23041"), result{"EU", "IT-LIV", true}},
		{"SE to Campione", se, addr("IT", "22061"), result{"EU", "IT-CMP", true}},
		{"SE to Mount Athos", se, addr("GR", "630 86"), result{"EU", "GR-ATH", true}},
		{"SE to Athens", se, addr("GR", "105 57"), result{"EU", "EU", false}},
		{"SE to Réunion by FR", se, addr("FR", "97400"), result{"EU", "RE", true}},
		{"SE to Guadeloupe by GP", se, addr("GP", "97100"), result{"EU", "GP", true}},
		{"SE to Paris", se, addr("FR", "75001"), result{"EU", "EU", false}},
		{"SE to Belfast", se, addr("GB", "BT1 1AA"), result{"EU", "EU", false}},
		{"Belfast to SE", addr("GB", "BT1 1AA"), se, result{"EU", "EU", false}},
		{"London to Belfast", addr("GB", "SW1A 1AA"), addr("GB", "BT1 1AA"), result{"GB", "EU", true}},
		{"Belfast to London", addr("GB", "BT1 1AA"), addr("GB", "SW1A 1AA"), result{"EU", "GB", false}},
		{"Bath is not Belfast", addr("GB", "BA1 1AA"), se, result{"GB", "EU", true}},
		{"Oslo to Bergen", addr("NO", "0150"), addr("NO", "5003"), result{"NO", "NO", false}},
		{"no country", se, addr("", "0150"), result{"EU", "", false}},
		{"not a country code", se, addr("Norway", "0150"), result{"EU", "", false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, reason := customs.RequiresDeclaration(tt.from, tt.to)
			got := result{customs.TerritoryOf(tt.from.Country, tt.from.PostalCode), customs.TerritoryOf(tt.to.Country, tt.to.PostalCode), req}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if reason == "" {
				t.Error("no reason given")
			}
		})
	}
}
