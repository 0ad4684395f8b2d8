#!/usr/bin/env bash
# Test mode over HTTP: a test site of the demo site, a parcel booked for the
# LOST scenario, six days on the site's clock, then the parcel's exception
# and the webhook deliveries it caused. The server's other sites, and its
# clock, do not move.
#
#   go run ./examples/server -store memory &
#   examples/tour/testmode.sh                  # or: examples/tour/testmode.sh http://host:port
#
# It needs bash, curl and jq, and a test-mode site (the demo configuration's
# are): APIKEY=<its key> names another. Each call states the status it
# expects; any other stops the script.
set -euo pipefail

B=${1:-${B:-http://127.0.0.1:8080}}
B=${B%/}
for tool in curl jq; do
	command -v "$tool" >/dev/null || { echo "testmode.sh needs $tool" >&2; exit 1; }
done
APIKEY=${APIKEY:-demo-key}

# call STATUS METHOD PATH KEY [BODY] prints the answer's body, and stops
# unless the server answered with STATUS. Areas A, B, C and F take the
# key's base64 as a bearer.
call() {
	local want=$1 method=$2 path=$3 key=$4 body=${5:-} out status
	out=$(mktemp)
	status=$(curl -sS -o "$out" -w '%{http_code}' -X "$method" "$B$path" \
		-H "Authorization: Bearer $(printf %s "$key" | base64 -w0)" -H 'Content-Type: application/json' \
		${body:+--data "$body"}) || { echo "$method $path: no answer" >&2; rm -f "$out"; exit 1; }
	if [ "$status" != "$want" ]; then
		echo "$method $path: $status, want $want: $(head -c 2000 "$out")" >&2
		rm -f "$out"
		exit 1
	fi
	cat "$out"
	rm -f "$out"
}

# 1. A test site whose webhooks go to the test host, which answers 500:
#    its deliveries are retried, and can be read, without a receiver.
SITE=$(call 200 POST /v1/test/sites "$APIKEY" '{"webhook_url": "https://fail.invalid/hooks"}')
TEST_KEY=$(jq -r .api_key <<<"$SITE")
echo "test site $(jq -r .site_id <<<"$SITE"), its clock at $(jq -r .now <<<"$SITE")"

# 2. A parcel booked for the LOST scenario, with the test site's key.
SHIPMENT=$(call 200 POST /v1/som/shipments.createAndBook "$TEST_KEY" '{
  "external_id": "SO-LOST-1",
  "sender": {"name": "Demo Outdoor Warehouse", "address": {"address_lines": ["Lagervägen 1"], "postal_code": "121 62", "city": "Stockholm", "country": "SE"}},
  "receiver": {"name": "Alva Berg", "email": "alva@example.com", "address": {"street": "Storgatan", "street_number": "5", "postal_code": "753 20", "city": "Uppsala", "country": "SE"}},
  "parcels": [{"weight": 1250, "deliveries": [{"carrier_product_ref": "north-parcel-home", "meta": {"test_scenario": "LOST"}}]}]}')
TN=$(jq -r '.parcels[0].deliveries[0].tracking_number' <<<"$SHIPMENT")
echo "booked $TN"

# 3. Six days on the test site's clock; what fell due ran before the answer.
call 200 POST /v1/test/clock:advance "$TEST_KEY" '{"duration": "144h"}' | jq -c .

# 4. The exception, and the webhook deliveries of the parcel's changes.
call 200 GET "/v1/delivery_tracking/orders?external_id=SO-LOST-1" "$TEST_KEY" |
	jq -c '.orders[0].parcels[0] | {tracking_number, exceptions}'
call 200 GET /v1/webhooks/endpoints/test/deliveries "$TEST_KEY" |
	jq -c '[.deliveries[] | select(.event_type == "parcel.changed") | {event_type, status, attempts, last_response_code}] | .[0:3]'

# The same parcel number means nothing to the demo site: its data is its own.
call 200 GET "/v1/delivery_tracking/orders?external_id=SO-LOST-1" "$APIKEY" | jq -c '{orders: (.orders | length)}'
