#!/bin/bash
# t2200: the JSON-RPC envelope: ids, strict JSON, UTF-8, depth, error echoes.
. ./test-lib.sh

start_all
mcp_client_start
make_user alice
TOKEN=$(make_token alice read)

# ping_with_id ID_JSON: a legacy ping whose id is the raw JSON text given.
ping_with_id () {
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":$1,\"method\":\"ping\"}"
}

for id in '"abc"' '""' '"ü-1"' 0 42 -7 9007199254740991 -9007199254740991; do
	test_expect_success "id $id is accepted and echoed exactly" "
		ping_with_id '$id' &&
		test_status 200 &&
		test_json .result '{}' &&
		test_json .id '$id'
	"
done

test_expect_success 'a large id is echoed digit for digit' '
	ping_with_id 9007199254740991 &&
	grep -F "9007199254740991" "$RESP.body" &&
	ping_with_id -9007199254740991 &&
	grep -F -- "-9007199254740991" "$RESP.body"
'

for id in 1.0 1e3 1E3 1.5 9007199254740992 -9007199254740992 18446744073709551616 true false '{}' '[]' '[1]' null; do
	test_expect_success "id $id is 400 / -32600" "
		ping_with_id '$id' &&
		test_rpc_error 400 -32600
	"
done

test_expect_success 'a request without an id is a notification: 202' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}" &&
	test_status 202 &&
	test_body_empty
'

test_expect_success 'a readable id is echoed on envelope errors' '
	mcp_post "{\"jsonrpc\":\"1.0\",\"id\":55,\"method\":\"ping\"}" &&
	test_rpc_error 400 -32600 55 &&
	mcp_post "{\"id\":\"x-56\",\"method\":\"ping\"}" &&
	test_rpc_error 400 -32600 "\"x-56\"" &&
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":57,\"method\":5}" &&
	test_rpc_error 400 -32600 57 &&
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":58}" &&
	test_rpc_error 400 -32600 58
'

for body in '"hello"' 42 null true '{}'; do
	test_expect_success "body $body is not a request: 400 / -32600" "
		mcp_post '$body' &&
		test_rpc_error 400 -32600
	"
done

for body in '{' '' ' ' '{"jsonrpc":"2.0","id":1,"method":"ping"' "{'jsonrpc':'2.0'}" \
	'{"jsonrpc":"2.0","id":1,"method":"ping",}' '{"jsonrpc":"2.0","id":01,"method":"ping"}' \
	'{"jsonrpc":"2.0","id":1,"method":"ping"} x' \
	'{"jsonrpc":"2.0","id":1,"method":"ping"}{"jsonrpc":"2.0","id":2,"method":"ping"}' \
	'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":NaN}}' \
	'/* c */{"jsonrpc":"2.0","id":1,"method":"ping"}'; do
	test_expect_success "invalid JSON [$body] is 400 / -32700, id null" "
		mcp_post '$body' &&
		test_rpc_error 400 -32700 null &&
		test_common_headers
	"
done

test_expect_success 'a raw control character inside a string is 400 / -32700' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi\nng\"}" >ctl &&
	mcp_post --file ctl &&
	test_rpc_error 400 -32700 null
'

test_expect_success 'trailing whitespace after the JSON value is fine' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\r\n\t \n" >ws &&
	mcp_post --file ws &&
	test_status 200 &&
	test_json .id 3
'

test_expect_success 'a NUL byte after the document is refused' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\000" >nul &&
	mcp_post --file nul &&
	test_rpc_error 400 -32700 null
'

for bytes in '\377' '\300\257' '\355\240\200' '\340\200\257' '\364\220\200\200' '\303' '\200'; do
	test_expect_success "invalid UTF-8 ($bytes) in a string is 400 / -32700" "
		printf '{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"x\":\"a${bytes}b\"}}' >bad &&
		mcp_post --file bad &&
		test_rpc_error 400 -32700 null
	"
done

test_expect_success 'invalid UTF-8 in a key is 400 / -32700' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{\"\377\":1}}" >bad &&
	mcp_post --file bad &&
	test_rpc_error 400 -32700 null
'

test_expect_success 'valid multi-byte UTF-8 is fine' '
	printf "{\"jsonrpc\":\"2.0\",\"id\":\"caf\303\251-\360\237\230\200\",\"method\":\"ping\"}" >good &&
	mcp_post --file good &&
	test_status 200 &&
	test_json .id "\"café-😀\""
'

# nested DEPTH: a ping whose document nests DEPTH levels (the outer object is 1).
nested () {
	perl -e 'my $n = shift() - 2;
		print q({"jsonrpc":"2.0","id":9,"method":"ping","params":{"x":),
		      "[" x $n, "1", "]" x $n, "}}"' "$1"
}

test_expect_success 'nesting of exactly 64 levels is parsed' '
	nested 64 >d64 &&
	perl -ne "\$m = 0; \$d = 0; for (split //) { \$d++ if /[\[{]/; \$d-- if /[\]}]/; \$m = \$d if \$d > \$m } print \"\$m\n\"" d64 >depth &&
	test "$(cat depth)" = 64 &&
	mcp_post --file d64 &&
	test_status 200 &&
	test_json .id 9
'

test_expect_success 'nesting of 65 levels is 400 / -32700' '
	nested 65 >d65 &&
	mcp_post --file d65 &&
	test_rpc_error 400 -32700 null
'

test_expect_success 'very deep nesting does not crash the worker' '
	perl -e "print q({\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":), q([) x 60000" >deep &&
	mcp_post --file deep &&
	test_rpc_error 400 -32700 null &&
	mcp_legacy ping &&
	test_status 200
'

test_expect_success 'errors echo ids of every type' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"no/such\"}" &&
	test_json .id "\"s-1\"" &&
	test_json .error.code -32601 &&
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":-3,\"method\":\"no/such\"}" &&
	test_json .id -3 &&
	test_json .error.code -32601
'

test_expect_success 'params that are not an object or array are -32600 or -32602' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\",\"params\":\"x\"}" &&
	test_json .id 12 &&
	test_jq ".error.code == -32600 or .error.code == -32602"
'

test_expect_success 'every error above left the worker serving' '
	mcp_legacy ping &&
	test_status 200 &&
	test_json .result "{}"
'

test_done
