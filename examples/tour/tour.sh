#!/usr/bin/env bash
# A short tour of every area of the example server, over HTTP: a checkout
# shipping session (C), its tracking order with a parcel and carrier events
# (A), the notifications they caused (B), a delivery session (D), a shipment
# (F) and two returns, one with a complaint photo (E).
#
#   go run ./examples/server -store memory &
#   examples/tour/tour.sh                      # or: examples/tour/tour.sh http://host:port
#
# It needs bash, curl and jq, and the demo configuration (config/demo.json,
# what the server uses without -config) or one with its catalog and sites:
# APIKEY=<demo-site's key> names a key of your own. Every order number, tracking number
# and external id ends in this run's suffix ($RUN), so the tour runs again
# and again against the same server. Each call states the status it expects;
# any other status, or a server that does not answer, stops the tour. Two
# calls answer an error on purpose: the unauthenticated session.get (401) and
# the delivery session completed with a stale etag (409 ABORTED).
set -euo pipefail

B=${1:-${B:-http://127.0.0.1:8080}}
B=${B%/}
for tool in curl jq; do
	command -v "$tool" >/dev/null || { echo "tour.sh needs $tool" >&2; exit 1; }
done
# The time and this shell's process id: no two runs share them.
RUN=${RUN:-$(date +%s)$$}
APIKEY=${APIKEY:-demo-key}        # demo-site's API key (the demo configuration's by default)
KEY=$(printf %s "$APIKEY" | base64 -w0) # areas A, B, C, F take base64(key)
AUTH="Authorization: Bearer $KEY"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# A day from now, for the pickup window and the delivery session's
# readiness (GNU date, then BSD date).
TOMORROW=$(date -u -d tomorrow +%F 2>/dev/null || date -u -v+1d +%F)

# call STATUS METHOD PATH [curl options…] prints the answer's body, and
# stops the tour unless the server answered with STATUS. PATH is under $B,
# or a whole URL the server handed out.
call() {
	local want=$1 method=$2 path=$3 url=$B$3 status
	shift 3
	case $path in http://* | https://*) url=$path ;; esac
	if ! status=$(curl -sS -o "$WORK/body" -w '%{http_code}' -X "$method" "$@" "$url"); then
		echo "tour.sh: $method $path: no answer from $url" >&2
		exit 1
	fi
	if [ "$status" != "$want" ]; then
		echo "tour.sh: $method $path answered $status, want $want:" >&2
		head -c 2000 "$WORK/body" >&2
		echo >&2
		exit 1
	fi
	cat "$WORK/body"
}

step() { printf '\n== %s\n' "$*"; }

step "health, and a call without a key"
call 200 GET /healthz # {"status":"ok"}
echo
call 401 GET /v1/siw/session.get | jq -c . # on purpose: no key

step "C. a checkout shipping session, completed"
# Options for the cart, the preselected one chosen. external_id is the
# merchant's order number; vouchers price through the catalog (the demo's
# "freeship" makes shipping free). Two tents: one is returned, then the
# other with a complaint.
ORDER=order-$RUN
ID=$(call 200 POST /v1/siw/session.create -H "$AUTH" -d '{
  "purchase_country": "SE", "purchase_currency": "SEK", "locales": ["sv-SE"], "external_id": "'"$ORDER"'",
  "cart": {"cart_id": "cart-'"$RUN"'", "total_value": 90000, "vouchers": [],
           "items": [{"sku": "tent-2p", "name": "Tent", "quantity": 2, "price": 45000, "weight": 2400}]},
  "search_address": {"postal_code": "111 57", "country": "SE"}}' | jq -r .session.id)
# result.shipping.shipping_method is the carrier product reference
# (north-parcel-point), external_method_id the merchant's id for it (NP-PP);
# result.pricing has the price and its components with value, vat and
# vat_rate. The answer also has the options and the widget's html_snippet.
call 200 GET "/v1/siw/session.get?id=$ID" -H "$AUTH" |
	jq -c '.session | {id, status, shipping_method: .result.shipping.shipping_method, external_method_id: .result.shipping.external_method_id, price: .result.pricing.price}'
# Completing it freezes the session and opens a tracking order under its
# tos_id, with the session's external_id (a number already in use is a 409
# naming external_id).
call 200 POST /v1/siw/session.complete -H "$AUTH" -d '{"id": "'"$ID"'",
  "customer": {"email": "anna@example.com", "address": {"name": "Anna Svensson",
  "address_lines": ["Sergels torg 1"], "street": "Sergels torg", "street_number": "1",
  "city": "Stockholm", "postal_code": "111 57", "country": "SE", "door_code": "1234"}}}' | jq -c '{status: .session.status, tos_id: .session.tos_id}'

step "A. the order, a parcel of it, carrier events, the customer's tracking link"
TOS=$(call 200 GET "/v1/delivery_tracking/orders?external_id=$ORDER" -H "$AUTH" | jq -r '.orders[0].tos_id')
TRACKING=NP${RUN}SE
call 200 POST /v1/delivery_tracking/parcel -H "$AUTH" -d '{"site_id": "demo-site", "tos_id": "'"$TOS"'",
  "tracking_number": "'"$TRACKING"'", "carrier_product_ref": "north-parcel-point", "direction_type": "OUTBOUND"}' | jq -c .
call 200 POST /v1/delivery_tracking/parcel.event -H "$AUTH" -d '{"site_id": "demo-site",
  "tracking_number": "'"$TRACKING"'", "time": "'"$(date -u +%FT%TZ)"'", "step": "STEP_SUBMITTED_TO_CARRIER"}' | jq -c .
call 200 POST /v1/delivery_tracking/parcel.event -H "$AUTH" -d '{"site_id": "demo-site",
  "tracking_number": "'"$TRACKING"'", "time": "'"$(date -u +%FT%TZ)"'", "alert": "ALERT_OUT_FOR_DELIVERY"}' | jq -c .
call 200 GET "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number=$TRACKING" -H "$AUTH" |
	jq -c '.parcels[0] | {tracking_number, steps: [.progress_history[].step], alerts}'
# Open tracking_link in a browser.
call 200 POST /v1/delivery_tracking/generate_tracking_page_link -H "$AUTH" \
	-d '{"site_id": "demo-site", "order_id": "'"$ORDER"'", "locale": "sv-SE"}' | jq -c '{tracking_link, expires_at}'

step "B. the notifications those events caused"
# The server's notification loop sends them (every -notify-interval), so
# right after the events the list may still be empty.
call 200 GET "/v1/delivery_tracking/notifications?site_id=demo-site&external_id=$ORDER" -H "$AUTH" |
	jq -c '[.notifications[] | {name, channel, status}]'

step "D. a delivery session: resource-style, with etags"
# The key goes in `authorization` as is.
NAME=$(call 200 POST /delivery/v1/sessions -H "authorization: $APIKEY" -d '{
  "purchase": {"country_code": "SE", "currency_code": "SEK", "total_value": "45000", "locales": ["sv-SE"]},
  "deliveries": [{"id": "d1",
    "line_items": [{"sku": "tent-2p", "title": "Tent", "quantity": 1, "weight": 2400, "price": "45000"}],
    "fulfillments": [{"readiness": {"earliest_time": "'"$TOMORROW"'T08:00:00Z"}}],
    "recipient_contact": {"email": "erik@example.com", "address": {"country_code": "SE",
      "postal_code": "118 26", "city": "Stockholm", "address_lines": ["Götgatan 1"]}}}]}' | jq -r .name)
# The session's categories and options, and its etag.
call 200 GET "/delivery/v1/$NAME" -H "authorization: $APIKEY" | jq -c '{name, state, etag, categories: [.deliveries[0].delivery_categories[].id]}'
# On purpose: an etag that is not the session's is 409 ABORTED.
call 409 POST "/delivery/v1/$NAME:complete" -H "authorization: $APIKEY" -d '{"etag": "\"stale\"",
  "delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home"}]}' | jq -c .
call 200 POST "/delivery/v1/$NAME:complete" -H "authorization: $APIKEY" -d '{
  "delivery_choices": [{"delivery_id": "d1", "option_id": "home/north-parcel-home", "external_id": "web-'"$RUN"'"}]}' | jq -c '.session | {name, state, etag}'
call 200 POST "/delivery/v1/$NAME:convert?format=AGENTIC_CHECKOUT" -H "authorization: $APIKEY" | jq -c 'keys'

step "F. a shipment: created, booked and a pickup booked in one call"
# Booked with the demo carrier (UPU S10 tracking numbers); the booked
# delivery is a tracking parcel at once.
TN=$(call 200 POST /v1/som/shipments.createAndBook -H "$AUTH" -d '{"external_id": "ORD-'"$RUN"'",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"],
    "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"address_lines": ["Storgatan 5"],
    "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "dimensions": {"length": 300, "width": 200, "height": 100},
    "deliveries": [{"carrier_product_ref": "north-parcel-home"}]}],
  "pickup_window": {"start": "'"$TOMORROW"'T09:00:00Z", "end": "'"$TOMORROW"'T12:00:00Z"}}' |
	jq -r '[.. | .tracking_number? // empty][0]')
echo "tracking number $TN"
# An A6 label with a Code 128 barcode (or format=zpl).
call 200 GET "/v1/som/labels/$TN?format=pdf" -H "$AUTH" >"$WORK/label.pdf"
echo "label: $(head -c 5 "$WORK/label.pdf"), $(wc -c <"$WORK/label.pdf") bytes"
call 200 GET "/v1/delivery_tracking/parcels?site_id=demo-site&tracking_number=$TN" -H "$AUTH" |
	jq -c '.parcels[0] | {tracking_number, carrier_name, delivery_type}'

step "E. the customer returns a tent; the merchant lists returns"
# No key: the order's e-mail identifies the customer. Open the answer's
# statusUrl in a browser: the return page, in the checkout's language
# (sv-SE here), with the return label (a PDF at statusUrl + /label.pdf,
# booked as a tracked RETURN shipment), a QR code of its tracking number and
# the nearest drop-off points.
call 201 POST /returns/customer/return -d '{"siteId": "demo-site", "foreignOrderId": "'"$ORDER"'",
  "email": "anna@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1, "reason": "too small"}]}' | jq -c '{id, status, statusUrl}'
call 200 GET "/returns/merchant/return?size=20&sort=createdAt,desc" -H "x-api-key: $APIKEY" |
	jq -c '{newest: [.content[:2][] | {id, status, order: .order.foreignId}]}'

step "E. the other tent: a reason from the catalog and a complaint with a photo"
# The reason is from the catalog (return_policy.return_reasons). The photo
# goes to the line's complaint under the status page's token (multipart, no
# key); the merchant sees it as customerComplaint.image.downloadUrl, a signed
# link that works for an hour, then approves the complaint.
RETURN=$(call 201 POST /returns/customer/return -d '{"siteId": "demo-site", "foreignOrderId": "'"$ORDER"'",
  "email": "anna@example.com", "items": [{"foreignLineItemId": "1", "quantity": 1,
  "reasonId": "size", "subReasonId": "too-small", "complaint": {"reasonId": "damaged", "text": "Torn seam"}}]}')
STATUS_URL=$(jq -r .statusUrl <<<"$RETURN")
RETURN_ID=$(jq -r .id <<<"$RETURN")
ITEM_ID=$(jq -r '.items[0].id' <<<"$RETURN") # the return's line, not the order's
# A 1×1 PNG stands in for the photo.
base64 -d >"$WORK/photo.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg=='
call 201 POST "$STATUS_URL/items/$ITEM_ID/complaint" -F "image=@$WORK/photo.png;type=image/png" | jq -c '.customerComplaint | {status, complaintText, downloadUrl: .image.downloadUrl}'
call 200 POST "/returns/merchant/return/$RETURN_ID/items/$ITEM_ID/complaint" -H "x-api-key: $APIKEY" -d '{"status": "APPROVED"}' |
	jq -c '{id, complaints: [.items[].customerComplaint.status]}'

# What the README's next sections use: the checkout's order number, the
# shipment's tracking number and external id.
step "done"
echo "ORDER=$ORDER TN=$TN SHIPMENT=ORD-$RUN"
