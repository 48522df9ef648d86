#!/bin/bash
# t1000: the HTTP gate in front of JSON-RPC: method, Content-Type, size,
# Origin, Host, and the headers every response carries.
. ./test-lib.sh

start_all
mcp_client_start
make_user alice
TOKEN=$(make_token alice read,write)

ok_body () {
	modern_body tools/list
}

# post_ok [mcp_post options]: a valid modern tools/list.
post_ok () {
	mcp_modern tools/list '{}' "$@"
}

test_expect_success 'a valid POST is answered 200' '
	post_ok &&
	test_status 200 &&
	test_jq ".result.tools | length > 0" &&
	test_header Content-Type "^application/json" &&
	test_common_headers
'

for m in GET DELETE PUT PATCH; do
	test_expect_success "$m /mcp is 405 with Allow: POST" "
		mcp_post -X $m &&
		test_status 405 &&
		test_header Allow '^POST\$' &&
		test_json .jsonrpc '\"2.0\"' &&
		test_jq '.error.code | type == \"number\"' &&
		test_common_headers
	"
done

test_expect_success 'GET with Accept: text/event-stream is 405 too' '
	mcp_post -X GET -H "Accept: text/event-stream" &&
	test_status 405 &&
	test_header Allow "^POST$"
'

test_expect_success 'the method is checked before the Content-Type and the token' '
	mcp_post -X DELETE --no-auth --ctype text/plain &&
	test_status 405
'

test_expect_success 'POST without Content-Type is 415' '
	mcp_post --no-ctype "$(ok_body)" &&
	test_status 415 &&
	test_json .jsonrpc "\"2.0\"" &&
	test_jq ".error.code | type == \"number\"" &&
	test_common_headers
'

for ct in text/plain application/jsonx 'application/x-www-form-urlencoded' 'text/json' 'multipart/form-data; boundary=x'; do
	test_expect_success "Content-Type '$ct' is 415" "
		mcp_post --ctype '$ct' \"\$(ok_body)\" &&
		test_status 415
	"
done

test_expect_success 'Content-Type is checked before the token' '
	mcp_post --no-auth --ctype text/plain "$(ok_body)" &&
	test_status 415
'

for ct in 'application/json; charset=utf-8' 'application/json;charset=UTF-8' 'Application/JSON'; do
	test_expect_success "Content-Type '$ct' is accepted" "
		mcp_modern tools/list '{}' --ctype '$ct' &&
		test_status 200
	"
done

# pad_to FILE SIZE: a valid tools/list body padded with spaces to SIZE bytes.
pad_to () {
	ok_body | tr -d '\n' >"$1" &&
	n=$(( $2 - $(wc -c <"$1") )) &&
	head -c "$n" /dev/zero | tr '\0' ' ' >>"$1" &&
	test "$(wc -c <"$1")" = "$2"
}

test_expect_success 'a body of exactly 64 KiB is served' '
	pad_to exact 65536 &&
	mcp_post -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" --file exact &&
	test_status 200 &&
	test_jq ".result.tools | length > 0"
'

test_expect_success 'a body of 64 KiB + 1 is 413 through nginx, as JSON' '
	pad_to big 65537 &&
	mcp_post -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" --file big &&
	test_status 413 &&
	test_header Content-Type "^application/json" &&
	test_json .jsonrpc "\"2.0\"" &&
	test_json .id null &&
	test_jq ".error.code | type == \"number\"" &&
	test_common_headers
'

test_expect_success 'a body of 64 KiB + 1 straight to the FastCGI socket is 413' '
	pad_to big 65537 &&
	fcgi_request "$FCGI_SOCK" big HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/list &&
	test_status 413 &&
	test_json .jsonrpc "\"2.0\"" &&
	test_jq ".error.code | type == \"number\"" &&
	test_common_headers
'

test_expect_success '413 comes before the Content-Type check (FastCGI socket)' '
	pad_to big 65537 &&
	fcgi_request "$FCGI_SOCK" big CONTENT_TYPE=text/plain &&
	test_status 413
'

test_expect_success 'a large Content-Length is refused without reading the body' '
	printf "{}" >tiny &&
	fcgi_request "$FCGI_SOCK" tiny CONTENT_LENGTH=1000000000 &&
	test_status 413
'

test_expect_success 'the FastCGI socket serves a normal request (sanity)' '
	ok_body >small &&
	fcgi_request "$FCGI_SOCK" small HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/list &&
	test_status 200 &&
	test_jq ".result.tools | length > 0"
'

test_expect_success 'no Origin header: served' '
	post_ok && test_status 200
'

for o in "http://127.0.0.1:\$HTTP_PORT" "http://localhost:\$HTTP_PORT"; do
	test_expect_success "an allowed Origin ($o) is served" "
		post_ok -H \"Origin: $o\" &&
		test_status 200
	"
done

for o in http://evil.example.com null "http://localhost:\$HTTP_PORT/" "http://LOCALHOST:\$HTTP_PORT" \
	"https://127.0.0.1:\$HTTP_PORT" "http://127.0.0.1:\$((HTTP_PORT + 1))" "http://127.0.0.1"; do
	test_expect_success "Origin '$o' is 403 with a JSON-RPC error" "
		post_ok -H \"Origin: $o\" &&
		test_status 403 &&
		test_json .jsonrpc '\"2.0\"' &&
		test_jq '.error.code | type == \"number\"' &&
		test_jq 'has(\"result\") | not' &&
		test_common_headers
	"
done

test_expect_success 'two Origin headers are refused, even two allowed ones' '
	post_ok -H "Origin: http://127.0.0.1:$HTTP_PORT" -H "Origin: http://localhost:$HTTP_PORT" &&
	test_status 403
'

test_expect_success 'Origin is checked before the method and the token' '
	mcp_post -X GET --no-auth -H "Origin: http://evil.example.com" &&
	test_status 403 &&
	mcp_post --no-auth -H "Origin: http://evil.example.com" "$(ok_body)" &&
	test_status 403
'

test_expect_success 'without public_hosts any Host is served' '
	post_ok -H "Host: evil.example.com" &&
	test_status 200
'

test_expect_success 'with public_hosts, a foreign Host is 403' '
	config_set public_hosts "127.0.0.1,localhost,127.0.0.1:$HTTP_PORT,localhost:$HTTP_PORT" &&
	restart_server &&
	post_ok -H "Host: evil.example.com" &&
	test_status 403 &&
	test_json .jsonrpc "\"2.0\"" &&
	test_common_headers
'

test_expect_success 'with public_hosts, a listed Host is served' '
	post_ok &&
	test_status 200 &&
	post_ok -H "Host: localhost:$HTTP_PORT" &&
	test_status 200
'

test_expect_success 'with public_hosts, the Host check straight on the FastCGI socket' '
	ok_body >small &&
	fcgi_request "$FCGI_SOCK" small HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/list \
		HTTP_HOST=127.0.0.1:$HTTP_PORT &&
	test_status 200 &&
	fcgi_request "$FCGI_SOCK" small HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/list \
		HTTP_HOST=evil.example.com:$HTTP_PORT &&
	test_status 403
'

test_expect_success 'with public_hosts, Host is checked before the method' '
	mcp_post -X GET -H "Host: evil.example.com" &&
	test_status 403
'

test_expect_success 'DNS rebinding: bad Host and bad Origin together is 403' '
	post_ok -H "Host: evil.example.com" -H "Origin: http://evil.example.com" &&
	test_status 403
'

test_expect_success 'back to no public_hosts' '
	config_unset public_hosts &&
	restart_server &&
	post_ok && test_status 200
'

test_expect_success 'a client Mcp-Session-Id is ignored and none is returned' '
	post_ok -H "Mcp-Session-Id: abc" &&
	test_status 200 &&
	test_no_header Mcp-Session-Id
'

test_expect_success 'every kind of response carries Cache-Control and X-Request-Id' '
	for req in "post_ok" "mcp_post -X GET" "mcp_post --ctype text/plain x" \
		"mcp_post --no-auth \"\$(ok_body)\"" "mcp_post {" \
		"mcp_post -H \"Origin: http://evil.example.com\" \"\$(ok_body)\"" \
		"mcp_post -H \"MCP-Protocol-Version: 2026-07-28\" {\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" \
		"mcp_legacy ping"; do
		eval "$req" && test_common_headers || { echo "for: $req"; return 1; }
	done
'

test_expect_success 'the X-Request-Id differs per request and appears in the server log' '
	post_ok && a=$(header_value X-Request-Id) &&
	post_ok && b=$(header_value X-Request-Id) &&
	test "$a" != "$b" &&
	wait_for 10 grep -F "$a" "$SERVER_LOG" &&
	wait_for 10 grep -F "$b" "$SERVER_LOG"
'

test_expect_success 'one log line per request' '
	mcp_post -X GET && id=$(header_value X-Request-Id) &&
	wait_for 10 grep -F "$id" "$SERVER_LOG" &&
	test "$(grep -c -F "$id" "$SERVER_LOG")" = 1
'

test_expect_success 'a request id of a refused request is logged too' '
	mcp_post -H "Origin: http://evil.example.com" "$(ok_body)" &&
	id=$(header_value X-Request-Id) &&
	wait_for 10 grep -F "$id" "$SERVER_LOG"
'

test_expect_success 'control characters in request data do not forge log lines' '
	mcp_post -H "Origin: http://evil.example.com%0aFORGED" "$(ok_body)" &&
	a=$(header_value X-Request-Id) &&
	printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"no\\nFORGED-LINE\"}" >ctl &&
	mcp_post -H "MCP-Protocol-Version: 2025-11-25" --file ctl &&
	b=$(header_value X-Request-Id) &&
	wait_for 10 grep -F "$a" "$SERVER_LOG" &&
	wait_for 10 grep -F "$b" "$SERVER_LOG" &&
	test_must_fail grep "^FORGED" "$SERVER_LOG"
'

test_expect_success 'database down: 503 with Retry-After and -32603' '
	stop_db &&
	test_when_finished "start_db_again" &&
	post_ok &&
	test_status 503 &&
	test_header Retry-After "^[0-9]+$" &&
	test_json .error.code -32603 &&
	test_common_headers
'

test_expect_success 'the database is back: served again' '
	wait_for 10 eval "post_ok && test_status 200" &&
	post_ok && test_status 200
'

test_done
