#!/bin/bash
# t2250: a tools/list answer goes gzip-compressed to a client that accepts
# gzip (as the SDKs' HTTP clients do), and is then byte for byte the answer
# a client without it gets; answers without the tools list are not.
. ./test-lib.sh

start_all
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# list ERA ID [mcp_post options]: tools/list in that era with that id
list () {
	local era=$1 id=$2
	shift 2
	if test "$era" = modern; then
		mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: tools/list" "$@" \
			"$(modern_body tools/list "$EMPTY_OBJ" "$id")"
	else
		mcp_post "$@" "$(legacy_body tools/list null "$id")"
	fi
}

# identity ERA ID: the answer without Accept-Encoding, kept in identity.json
identity () {
	list "$1" "$2" &&
	test_status 200 &&
	test_no_header Content-Encoding &&
	cp "$RESP.body" identity.json &&
	test_jq '.result.tools | length > 30'
}

# same_gzipped: the last answer is gzip that unpacks to identity.json
same_gzipped () {
	test_status 200 &&
	test_header Content-Encoding '^gzip$' &&
	test_header Vary 'Accept-Encoding' &&
	test_header Content-Type '^application/json' &&
	gzip -t <"$RESP.body" &&
	gunzip <"$RESP.body" >unpacked.json &&
	test_cmp identity.json unpacked.json &&
	test "$(wc -c <"$RESP.body")" -lt $(( $(wc -c <identity.json) / 3 ))
}

for era in legacy modern; do
	for id in 1 0 -5 9007199254740991 '"abc"' '"\u00e9\"x\\\u0001"' '"'"$(printf 'i%.0s' $(seq 120))"'"'; do
		test_expect_success "$era tools/list, id $(printf '%.20s' "$id"): gzip unpacks to the plain answer" "
			identity $era '$id' &&
			list $era '$id' -H 'Accept-Encoding: gzip, deflate' &&
			same_gzipped
		"
	done
done

for v in 'gzip' 'GZIP' 'x-gzip' '*' 'br;q=1.0, gzip;q=0.5' 'deflate, gzip ; q=1' 'identity, gzip;q=0.001'; do
	test_expect_success "Accept-Encoding: $v takes gzip" "
		identity legacy 3 &&
		list legacy 3 -H 'Accept-Encoding: $v' &&
		same_gzipped
	"
done

for v in 'gzip;q=0' 'gzip; q=0.000' 'identity' 'deflate, br' '*, gzip;q=0' 'gzipped' ''; do
	test_expect_success "Accept-Encoding: '$v' gets the plain answer" "
		identity legacy 4 &&
		list legacy 4 -H 'Accept-Encoding: $v' &&
		test_status 200 &&
		test_no_header Content-Encoding &&
		test_cmp identity.json \"\$RESP.body\"
	"
done

test_expect_success 'a tool answer is not compressed' '
	mcp_modern tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" -H "Accept-Encoding: gzip" &&
	test_status 200 &&
	test_no_header Content-Encoding &&
	test_jq ".result.content | length > 0"
'

test_expect_success 'a legacy batch holding tools/list is compressed as a whole' '
	batch="[$(legacy_body tools/list null 1),$(legacy_body ping null 2)]" &&
	mcp_post "$batch" &&
	test_status 200 &&
	test_no_header Content-Encoding &&
	cp "$RESP.body" identity.json &&
	test_jq "length == 2 and (.[0].result.tools | length > 30)" &&
	mcp_post -H "Accept-Encoding: gzip" "$batch" &&
	same_gzipped
'

test_expect_success 'an error answer is not compressed' '
	mcp_post -H "Accept-Encoding: gzip" \
		"$(legacy_body tools/list "{\"cursor\":\"nope\"}" 5)" &&
	test_no_header Content-Encoding &&
	test_jq ".error.code == -32602"
'

test_done
