#!/bin/bash
# t2100: the legacy era, initialize handshake revisions (mcp-wire.md §7, L1-L15).
. ./test-lib.sh

start_all
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

init_params () {
	echo "{\"protocolVersion\":\"$1\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t2100\",\"version\":\"1.0\"}}"
}

test_expect_success 'L1: initialize 2025-11-25' '
	mcp_legacy initialize "$(init_params 2025-11-25)" &&
	test_status 200 &&
	test_json .id 1 &&
	test_json .result.protocolVersion "\"2025-11-25\"" &&
	test_json .result.capabilities "{\"tools\":{\"listChanged\":false}}" &&
	test_json .result.serverInfo.name "\"forgemcp\"" &&
	test_jq ".result.serverInfo.version | type == \"string\" and length > 0" &&
	test_jq ".result.instructions | type == \"string\"" &&
	test_no_header Mcp-Session-Id &&
	test_common_headers
'

for v in 2025-06-18 2025-03-26 2024-11-05; do
	test_expect_success "L2: initialize $v is echoed" "
		mcp_legacy initialize \"\$(init_params $v)\" &&
		test_status 200 &&
		test_json .result.protocolVersion '\"$v\"'
	"
done

for v in 1999-01-01 2026-07-28 2025-99-99 garbage; do
	test_expect_success "L3: initialize $v gets the newest legacy version" "
		mcp_legacy initialize \"\$(init_params $v)\" &&
		test_status 200 &&
		test_json .result.protocolVersion '\"2025-11-25\"'
	"
done

test_expect_success 'L4: initialize with MCP-Protocol-Version and Mcp-Method headers' '
	mcp_legacy initialize "$(init_params 2025-11-25)" -H "MCP-Protocol-Version: 2025-11-25" -H "Mcp-Method: initialize" &&
	test_status 200 &&
	test_json .result.protocolVersion "\"2025-11-25\""
'

test_expect_success 'L5: notifications/initialized is 202 with an empty body' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" &&
	test_status 202 &&
	test_body_empty &&
	test_common_headers &&
	mcp_post -H "MCP-Protocol-Version: 2025-11-25" "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" &&
	test_status 202 &&
	test_body_empty
'

for v in 2025-11-25 2025-06-18 2025-03-26 2024-11-05; do
	test_expect_success "L6: tools/list with MCP-Protocol-Version: $v" "
		mcp_legacy tools/list '{}' -H 'MCP-Protocol-Version: $v' &&
		test_status 200 &&
		test_jq '.result.tools | length >= 2' &&
		test_jq '[.result.tools[].name] | index(\"get_file_contents\")'
	"
done

for v in 1999-01-01 2026-13-45 garbage; do
	test_expect_success "L7: tools/list with MCP-Protocol-Version: $v is 400" "
		mcp_legacy tools/list '{}' -H 'MCP-Protocol-Version: $v' &&
		test_status 400 &&
		test_json .jsonrpc '\"2.0\"' &&
		test_jq '.error.code | type == \"number\"' &&
		test_json .id 1
	"
done

test_expect_success 'L8: tools/list without a version header (2025-03-26)' '
	mcp_legacy tools/list &&
	test_status 200 &&
	test_jq ".result.tools | length >= 2"
'

test_expect_success 'L9: ping is {}' '
	mcp_legacy ping &&
	test_status 200 &&
	test_json .result "{}" &&
	test_json .id 1
'

test_expect_success 'L10: GET with Accept: text/event-stream is 405' '
	mcp_post -X GET -H "Accept: text/event-stream" -H "MCP-Protocol-Version: 2025-11-25" &&
	test_status 405 &&
	test_header Allow "^POST$"
'

test_expect_success 'L11: DELETE is 405' '
	mcp_post -X DELETE -H "Mcp-Session-Id: abc" &&
	test_status 405 &&
	test_header Allow "^POST$"
'

batch2 () {
	echo "[$(legacy_body tools/list "{}" 1),$(legacy_body ping null 2)]"
}

test_expect_success 'L12: a batch without a version header gets an array of responses' '
	mcp_post "$(batch2)" &&
	test_status 200 &&
	test_jq "type == \"array\" and length == 2" &&
	test_jq "(map(.id) | sort) == [1, 2]" &&
	test_jq "(.[] | select(.id == 1) | .result.tools | length) >= 2" &&
	test_jq "(.[] | select(.id == 2) | .result) == {}" &&
	test_common_headers
'

test_expect_success 'L12: a batch with MCP-Protocol-Version: 2025-03-26 is served' '
	mcp_post -H "MCP-Protocol-Version: 2025-03-26" "$(batch2)" &&
	test_status 200 &&
	test_jq "type == \"array\" and length == 2"
'

test_expect_success 'L12: a batch of a request and a notification answers only the request' '
	mcp_post "[$(legacy_body ping null 5),{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]" &&
	test_status 200 &&
	test_jq "type == \"array\" and length == 1 and .[0].id == 5"
'

test_expect_success 'L12: a batch of only notifications is 202' '
	mcp_post "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}]" &&
	test_status 202 &&
	test_body_empty
'

for v in 2025-06-18 2025-11-25; do
	test_expect_success "L12: a batch with MCP-Protocol-Version: $v is 400 / -32600" "
		mcp_post -H 'MCP-Protocol-Version: $v' \"\$(batch2)\" &&
		test_rpc_error 400 -32600
	"
done

test_expect_success 'L12: a batch containing initialize is 400 / -32600' '
	mcp_post "[$(legacy_body initialize "$(init_params 2025-03-26)" 1),$(legacy_body ping null 2)]" &&
	test_rpc_error 400 -32600
'

test_expect_success 'L12: an empty batch is 400 / -32600' '
	mcp_post "[]" &&
	test_rpc_error 400 -32600
'

test_expect_success 'L12: a batch element that is not a request gets its own -32600' '
	mcp_post "[$(legacy_body ping null 7),42]" &&
	test_status 200 &&
	test_jq "type == \"array\" and length == 2" &&
	test_jq "any(.[]; .id == 7 and .result == {})" &&
	test_jq "any(.[]; .id == null and .error.code == -32600)"
'

test_expect_success 'L13: a JSON-RPC response object is 202' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}" &&
	test_status 202 &&
	test_body_empty &&
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":-32000,\"message\":\"no\"}}" &&
	test_status 202
'

test_expect_success 'L14: a bad Origin is 403' '
	mcp_legacy ping null -H "Origin: http://evil.example.com" &&
	test_status 403
'

test_expect_success 'L15: resources/read of a missing resource is -32002' '
	mcp_legacy resources/read "{\"uri\":\"forge://missing\"}" &&
	test_json .error.code -32002 &&
	test_json .id 1 &&
	test_jq "has(\"result\") | not"
'

for m in resources/list resources/templates/list prompts/list; do
	test_expect_success "legacy $m is an empty list" "
		mcp_legacy $m '{}' &&
		test_status 200 &&
		test_jq '[.result.resources, .result.resourceTemplates, .result.prompts] | map(select(. != null)) | . == [[]]'
	"
done

test_expect_success 'legacy tools/call list_repositories' '
	mcp_legacy tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" -H "MCP-Protocol-Version: 2025-11-25" &&
	test_status 200 &&
	test_json ".result.content[0].type" "\"text\"" &&
	test_jq ".result.isError != true" &&
	jq -r ".result.content[0].text" "$RESP.body" | jq -e "map(.full_name) | index(\"alice/fixture\")"
'

test_expect_success 'legacy tools/call of an unknown tool is -32602' '
	mcp_legacy tools/call "{\"name\":\"nope\",\"arguments\":{}}" &&
	test_json .error.code -32602 &&
	test_json .id 1
'

test_expect_success 'legacy: an unknown method is -32601 with the id' '
	mcp_legacy no/such/method "{}" &&
	test_json .error.code -32601 &&
	test_json .id 1
'

# call ID NAME ARGS: one legacy tools/call batch element.
call () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"%s","arguments":%s}}' "$1" "$2" "$3"
}

# issue_titles: the titles of alice/fixture's issues, one a line.
issue_titles () {
	mcp_legacy tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"alice/fixture\",\"state\":\"all\"}}" &&
	test_status 200 &&
	jq -r ".result.content[0].text" "$RESP.body" | jq -r ".issues[]?.title, .[]?.title? // empty"
}

test_expect_success 'L12: a batch of 600 calls is 400 / -32600 naming the limit, and none runs' '
	{
		printf "[" &&
		for i in $(seq 1 599); do call $i get_user "{}"; printf ","; done &&
		call 600 create_issue "{\"repo\":\"alice/fixture\",\"title\":\"from a batch of 600\"}" &&
		printf "]"
	} >big-batch &&
	test "$(wc -c <big-batch)" -lt 65536 &&
	mcp_post --file big-batch &&
	test_rpc_error 400 -32600 &&
	test_json .error.message "\"Invalid Request: a batch holds at most 20 calls; none was run\"" &&
	issue_titles >titles &&
	! grep -F "from a batch of 600" titles
'

test_expect_success 'L12: a batch of 1,000 tools/list is 400; one of 20 is answered whole, under 8 MiB' '
	perl -e "print q([), join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"tools/list\"}) } 1..1000), q(])" >list-batch &&
	mcp_post --file list-batch &&
	test_rpc_error 400 -32600 &&
	test "$(wc -c <"$RESP.body")" -lt 1000 &&
	perl -e "print q([), join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"tools/list\"}) } 1..20), q(])" >list-batch &&
	mcp_post --file list-batch &&
	test_status 200 &&
	test_jq "length == 20 and all(.[]; .result.tools | length >= 2)" &&
	test "$(wc -c <"$RESP.body")" -lt 8388608
'

test_expect_success 'L12: a call the token may not make refuses the whole batch before any runs' '
	batch="[$(call 1 create_issue "{\"repo\":\"alice/fixture\",\"title\":\"before a refused merge\"}"),$(call 2 merge_pull_request "{\"repo\":\"alice/fixture\",\"number\":1}")]" &&
	mcp_post "$batch" &&
	test_status 403 &&
	test_json .error.code -32001 &&
	test_json .id 2 &&
	test_jq ".error.message | test(\"merge_pull_request.*merge\")" &&
	test_header WWW-Authenticate "insufficient_scope" &&
	issue_titles >titles &&
	! grep -F "before a refused merge" titles
'

test_expect_success 'L12: calls after the answer passed 8 MiB are not run and say so' '
	work=$TRASH/quotes-work &&
	rm -rf "$work" &&
	git -c init.defaultBranch=main init -q "$work" &&
	perl -e "print q(\") x 1000, qq(\n) for 1..300" >"$work/quotes.txt" &&
	git -C "$work" add quotes.txt &&
	git -C "$work" -c user.name=A -c user.email=a@example.com commit -q -m quotes &&
	git clone -q --bare "$work" "$TRASH/quotes.git" &&
	fm repo import alice/quotes --from "$TRASH/quotes.git" >/dev/null &&
	{
		printf "[" &&
		for i in $(seq 1 19); do call $i get_file_contents "{\"repo\":\"alice/quotes\",\"path\":\"quotes.txt\",\"limit\":100000}"; printf ","; done &&
		call 20 create_issue "{\"repo\":\"alice/fixture\",\"title\":\"after the bound\"}" &&
		printf "]"
	} >read-batch &&
	mcp_post --file read-batch &&
	test_status 200 &&
	test_jq "length == 20 and ([.[].id] == [range(1; 21)])" &&
	test_jq ".[0].result.isError != true" &&
	test_jq "[.[] | select(.result)] | length >= 5" &&
	test_jq "[.[] | has(\"result\")] | . == (sort | reverse)" &&
	test_jq "[.[] | select(.error)] | length >= 1 and all(.[]; .error.code == -32600 and .error.message == \"Invalid Request: the batch answer passed 8 MiB; this call was not run\")" &&
	test_jq ".[19].error.code == -32600" &&
	test "$(wc -c <"$RESP.body")" -lt $((10 * 1024 * 1024)) &&
	issue_titles >titles &&
	! grep -F "after the bound" titles
'

test_expect_success 'L12: each call of a batch counts against the rate limit' '
	stop_server &&
	config_set rate_limit 30 &&
	config_set rate_window 600 &&
	# the two batches in one window: not in its last 30 s
	while test $((600 - $(date +%s) % 600)) -lt 30; do sleep 1; done &&
	start_fcgi_only 2 &&
	make_user dora &&
	DORA=$(make_token dora read,write) &&
	pings=$(perl -e "print join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"ping\"}) } 1..20)") &&
	mcp_post --token "$DORA" "[$pings]" &&
	test_status 200 &&
	test_jq "length == 20" &&
	test "$(db_sql "SELECT r.n FROM rate_limits r JOIN users u ON r.principal = u.id WHERE r.kind = \"u\" AND u.login = \"dora\"")" = 20 &&
	mcp_post --token "$DORA" "[$(call 1 get_user "{}"),$(legacy_body ping null 2),$(legacy_body ping null 3),$(legacy_body ping null 4),$(legacy_body ping null 5),$(legacy_body ping null 6),$(legacy_body ping null 7),$(legacy_body ping null 8),$(legacy_body ping null 9),$(legacy_body ping null 10),$(legacy_body ping null 11)]" &&
	test_rpc_error 429 -32600 &&
	test_header Retry-After "^[0-9]+$" &&
	test_jq ".error.data.limit == 30"
'

test_done
