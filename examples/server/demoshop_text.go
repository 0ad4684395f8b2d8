package main

// shopText is the demo shop's text in one language.
type shopText struct {
	LangName, Language                               string
	Title, Store, DemoNote                           string
	Products, Add, Cart, CartEmpty                   string
	Items, Shipping, Total                           string
	Delivery, Details, Name, Email, Street           string
	PostalCode, City, Place                          string
	Placing, Updating, Failed                        string
	Thanks, OrderNumber, Track, TrackHint            string
	StartReturn, ReturnPage, ReturnReason            string
	More, Less, Quantity, NoDelivery, ShippingChosen string
}

// shopTexts are the shop's texts by language (shopLangs).
var shopTexts = map[string]shopText{
	"en-US": {
		LangName: "English", Language: "Language",
		Title: "Demo Outdoor Store", Store: "Demo Outdoor Store",
		DemoNote: "A demo shop of the deliverykit example server: orders are real on this server, nothing is charged or sent.",
		Products: "Products", Add: "Add to cart", Cart: "Your cart", CartEmpty: "Your cart is empty: add a product to see the delivery options.",
		Items: "Products", Shipping: "Shipping", Total: "Total",
		Delivery: "Delivery", Details: "Your details", Name: "Full name", Email: "E-mail", Street: "Street address",
		PostalCode: "Postal code", City: "City", Place: "Place order",
		Placing: "Placing your order…", Updating: "Updating the delivery options…", Failed: "That did not work:",
		Thanks: "Thank you for your order!", OrderNumber: "Order number", Track: "Track your parcel",
		TrackHint:   "The parcel travels by itself: open the tracking page again in a minute or two to see it move.",
		StartReturn: "Return the order", ReturnPage: "Open the return page", ReturnReason: "Changed my mind",
		More: "One more", Less: "One less", Quantity: "Quantity", NoDelivery: "not chosen yet", ShippingChosen: "Delivery",
	},
	"sv-SE": {
		LangName: "Svenska", Language: "Språk",
		Title: "Demo Outdoor Store", Store: "Demo Outdoor Store",
		DemoNote: "En demobutik i deliverykits exempelserver: beställningarna är riktiga på servern, men inget debiteras eller skickas.",
		Products: "Produkter", Add: "Lägg i varukorgen", Cart: "Din varukorg", CartEmpty: "Varukorgen är tom: lägg till en produkt för att se leveranssätten.",
		Items: "Produkter", Shipping: "Frakt", Total: "Totalt",
		Delivery: "Leverans", Details: "Dina uppgifter", Name: "För- och efternamn", Email: "E-post", Street: "Gatuadress",
		PostalCode: "Postnummer", City: "Ort", Place: "Slutför köpet",
		Placing: "Beställningen skickas…", Updating: "Leveranssätten uppdateras…", Failed: "Det gick inte:",
		Thanks: "Tack för din beställning!", OrderNumber: "Ordernummer", Track: "Spåra ditt paket",
		TrackHint:   "Paketet reser av sig självt: öppna spårningssidan igen om en minut eller två så ser du det röra sig.",
		StartReturn: "Returnera beställningen", ReturnPage: "Öppna retursidan", ReturnReason: "Ångrat köpet",
		More: "En till", Less: "En mindre", Quantity: "Antal", NoDelivery: "inte valt än", ShippingChosen: "Leverans",
	},
}

// script is the part of t that shop.js shows.
func (t shopText) script() map[string]string {
	return map[string]string{"cartEmpty": t.CartEmpty, "placing": t.Placing, "updating": t.Updating, "failed": t.Failed,
		"more": t.More, "less": t.Less, "quantity": t.Quantity, "noDelivery": t.NoDelivery, "returnPage": t.ReturnPage}
}
