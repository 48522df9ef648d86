#!/bin/bash
# t2000: the 2026-07-28 era (mcp-wire.md §7, M1-M39).
. ./test-lib.sh

start_all
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

M=$(json_meta)
b64 () { printf '%s' "$1" | base64 -w0; }

# post_modern BODY [headers...]: POST a hand-made body with extra headers only.
post_modern () {
	local body=$1
	shift
	mcp_post "$@" "$body"
}

test_expect_success 'M1: server/discover' '
	mcp_modern server/discover "{\"_meta\":$(json_meta "{\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t2000\",\"version\":\"1\"}}")}" &&
	test_status 200 &&
	test_header Content-Type "^application/json" &&
	test_json .id 1 &&
	test_json .result.resultType "\"complete\"" &&
	test_json .result.supportedVersions "[\"2026-07-28\"]" &&
	test_json .result.capabilities "{\"tools\":{}}" &&
	test_jq ".result.ttlMs | type == \"number\" and . >= 0 and . == floor" &&
	test_json .result.cacheScope "\"private\"" &&
	test_jq ".result.instructions | type == \"string\" and length > 0" &&
	test_json ".result._meta[\"io.modelcontextprotocol/serverInfo\"].name" "\"forgemcp\"" &&
	test_jq ".result._meta[\"io.modelcontextprotocol/serverInfo\"].version | type == \"string\" and length > 0" &&
	test_no_header Mcp-Session-Id &&
	test_common_headers
'

test_expect_success 'M2: server/discover without _meta is 400 / -32602, id echoed' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\",\"params\":{}}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: server/discover" &&
	test_rpc_error 400 -32602 7
'

test_expect_success 'M2b: a modern request without params is 400 / -32602' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 8
'

test_expect_success 'M3: _meta without protocolVersion is 400 / -32602' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/clientCapabilities\":{}}}}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 9
'

test_expect_success 'M4: _meta without clientCapabilities is 400 / -32602' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 10
'

test_expect_success 'M4b: clientCapabilities that is not an object is 400 / -32602' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":[]}}}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 11
'

test_expect_success 'M5: _meta without clientInfo is served' '
	mcp_modern server/discover &&
	test_status 200 &&
	test_json .result.resultType "\"complete\""
'

v999_body () {
	echo "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"v999.0.0\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}"
}

test_expect_success 'M6: an unsupported version is 400 / -32022 with data' '
	post_modern "$(v999_body)" -H "MCP-Protocol-Version: v999.0.0" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32022 12 &&
	test_json .error.data.requested "\"v999.0.0\"" &&
	test_jq ".error.data.supported | type == \"array\" and length > 0" &&
	jq -c ".error.data.supported" "$RESP.body" >supported &&
	mcp_modern server/discover &&
	jq -c --slurpfile s supported "(\$s[0] - .result.supportedVersions) == []" "$RESP.body" >subset &&
	test "$(cat subset)" = true
'

test_expect_success 'M7: body v999.0.0 with header 2026-07-28 is -32020, not -32022' '
	post_modern "$(v999_body)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32020 12
'

test_expect_success 'M8: MCP-Protocol-Version omitted is 400 / -32020' '
	post_modern "$(modern_body tools/list "{}" 13)" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32020 13
'

test_expect_success 'M9: Mcp-Method omitted is 400 / -32020' '
	post_modern "$(modern_body tools/list "{}" 14)" -H "MCP-Protocol-Version: 2026-07-28" &&
	test_rpc_error 400 -32020 14
'

test_expect_success 'M10: Mcp-Method disagreeing with the body is 400 / -32020' '
	post_modern "$(modern_body tools/list "{}" 15)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: prompts/list" &&
	test_rpc_error 400 -32020 15
'

test_expect_success 'M11: Mcp-Method compares case-sensitively' '
	post_modern "$(modern_body tools/list "{}" 16)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: TOOLS/LIST" &&
	test_rpc_error 400 -32020 16
'

test_expect_success 'M12: header names are case-insensitive' '
	post_modern "$(modern_body tools/list)" -H "mcp-protocol-version: 2026-07-28" -H "mcp-method: tools/list" &&
	test_status 200 &&
	post_modern "$(modern_body tools/list)" -H "MCP-PROTOCOL-VERSION: 2026-07-28" -H "MCP-METHOD: tools/list" &&
	test_status 200 &&
	test_jq ".result.tools | length > 0"
'

call_body () {
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" "${1:-20}"
}

test_expect_success 'M13: Mcp-Name disagreeing with params.name is 400 / -32020' '
	post_modern "$(call_body 21)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" -H "Mcp-Name: wrong" &&
	test_rpc_error 400 -32020 21
'

test_expect_success 'M14: tools/call without Mcp-Name is 400 / -32020' '
	post_modern "$(call_body 22)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" &&
	test_rpc_error 400 -32020 22
'

test_expect_success 'M15: surrounding whitespace in Mcp-Name is stripped' '
	post_modern "$(call_body 23)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" -H "Mcp-Name:   list_repositories  " &&
	test_status 200 &&
	test_json .id 23 &&
	test_json .result.resultType "\"complete\""
'

test_expect_success 'M16: a base64 sentinel in Mcp-Name is decoded' '
	post_modern "$(call_body 24)" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/call" \
		-H "Mcp-Name: =?base64?$(b64 list_repositories)?=" &&
	test_status 200 &&
	test_json .result.resultType "\"complete\""
'

for bad in '=?base64?SGVsbG8?=' '=?base64?SGVs!!!bG8=?=' "=?base64?$(b64 list_repositories)" \
	"=?BASE64?$(b64 list_repositories)?=" "=?base64?$(b64 list_repositories | tr -d =)?=" \
	"=?base64?$(printf 'list_repositories\377' | base64 -w0)?="; do
	test_expect_success "M17: Mcp-Name '$bad' is 400 / -32020" "
		post_modern \"\$(call_body 25)\" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' -H 'Mcp-Name: $bad' &&
		test_rpc_error 400 -32020 25
	"
done

test_expect_success 'M18: resources/read with a matching Mcp-Name reaches the method' '
	mcp_modern resources/read "{\"uri\":\"forge://nothing/here\"}" &&
	test_status 200 &&
	test_json .error.code -32602 &&
	test_json .error.data.uri "\"forge://nothing/here\""
'

test_expect_success 'M18: resources/read with a different Mcp-Name is 400 / -32020' '
	post_modern "$(modern_body resources/read "{\"uri\":\"forge://a\"}" 26)" -H "MCP-Protocol-Version: 2026-07-28" \
		-H "Mcp-Method: resources/read" -H "Mcp-Name: forge://b" &&
	test_rpc_error 400 -32020 26
'

test_expect_success 'M18: resources/read without Mcp-Name is 400 / -32020' '
	post_modern "$(modern_body resources/read "{\"uri\":\"forge://a\"}" 27)" -H "MCP-Protocol-Version: 2026-07-28" \
		-H "Mcp-Method: resources/read" &&
	test_rpc_error 400 -32020 27
'

test_expect_success 'M19: an unknown method is 404 / -32601, id echoed' '
	post_modern "$(modern_body unknown/method "{}" "\"u-1\"")" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: unknown/method" &&
	test_rpc_error 404 -32601 "\"u-1\""
'

for m in initialize ping logging/setLevel resources/subscribe resources/unsubscribe subscriptions/listen; do
	test_expect_success "M20/M32: $m in the modern era is 404 / -32601" "
		p='{}'
		case $m in
		logging/setLevel) p='{\"level\":\"info\"}' ;;
		resources/*) p='{\"uri\":\"forge://x\"}' ;;
		initialize) p='{\"protocolVersion\":\"2026-07-28\",\"capabilities\":{},\"clientInfo\":{\"name\":\"x\",\"version\":\"1\"}}' ;;
		esac
		name=\$(printf '%s' \"\$p\" | jq -r '.uri // empty')
		post_modern \"\$(modern_body $m \"\$p\" 30)\" -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: $m' \
			\${name:+-H \"Mcp-Name: \$name\"} &&
		test_rpc_error 404 -32601 30
	"
done

for m in resources/list resources/templates/list prompts/list; do
	test_expect_success "M21: advertised $m works and is an empty cacheable list" "
		mcp_modern $m &&
		test_status 200 &&
		test_json .result.resultType '\"complete\"' &&
		test_jq '.result.ttlMs | type == \"number\" and . >= 0' &&
		test_json .result.cacheScope '\"private\"' &&
		test_jq '[.result.resources, .result.resourceTemplates, .result.prompts] | map(select(. != null)) | . == [[]]'
	"
done

test_expect_success 'M22: tools/list' '
	mcp_modern tools/list &&
	test_status 200 &&
	test_json .result.resultType "\"complete\"" &&
	test_jq ".result.ttlMs | type == \"number\" and . >= 0 and . == floor" &&
	test_jq ".result.cacheScope == \"private\" or .result.cacheScope == \"public\"" &&
	test_jq "[.result.tools[].name] | index(\"list_repositories\") and index(\"get_file_contents\")" &&
	test_jq "all(.result.tools[]; (.name | test(\"^[A-Za-z0-9_.-]{1,128}$\")) and .inputSchema.type == \"object\" and (.description | type == \"string\"))" &&
	test_jq "all(.result.tools[] | select(.name == \"list_repositories\" or .name == \"get_file_contents\"); .annotations.readOnlyHint == true)" &&
	jq -c "[.result.tools[].name]" "$RESP.body" >order1 &&
	mcp_modern tools/list &&
	jq -c "[.result.tools[].name]" "$RESP.body" >order2 &&
	test_cmp order1 order2
'

test_expect_success 'M23: a garbage cursor is -32602 on HTTP 200' '
	mcp_modern tools/list "{\"cursor\":\"garbage\"}" &&
	test_rpc_error 200 -32602 1
'

test_expect_success 'M24: an unknown tool is -32602 on HTTP 200, id echoed' '
	tool_call no_such_tool "{}" &&
	test_rpc_error 200 -32602 1
'

test_expect_success 'M25: a failing tool is an isError result' '
	tool_call get_file_contents "{\"repo\":\"alice/nothing\",\"path\":\"README.md\"}" &&
	test_status 200 &&
	test_json .result.resultType "\"complete\"" &&
	test_json .result.isError true &&
	test_jq ".result.content | length > 0 and .[0].type == \"text\"" &&
	test_jq "has(\"error\") | not"
'

test_expect_success 'M26: tools with an outputSchema return conforming structuredContent and text' '
	mcp_modern tools/list &&
	jq -r ".result.tools[] | select(.outputSchema != null) | .name" "$RESP.body" >with-schema &&
	say "tools with outputSchema: $(cat with-schema | tr "\n" " ")" &&
	if grep -qx list_repositories with-schema; then
		tool_call list_repositories "{}" &&
		test_jq ".result.structuredContent != null" &&
		test_jq "(.result.content[] | select(.type == \"text\") | .text | fromjson) == .result.structuredContent"
	fi
'

test_expect_success 'M27: a notification is 202 with an empty body' '
	post_modern "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"x\"}}" \
		-H "MCP-Protocol-Version: 2026-07-28" &&
	test_status 202 &&
	test_body_empty &&
	test_common_headers
'

test_expect_success 'M27: a notification with the Mcp-Method header is 202 too' '
	post_modern "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: notifications/initialized" &&
	test_status 202 &&
	test_body_empty
'

test_expect_success 'M28: GET and DELETE are 405 with Allow: POST' '
	mcp_post -X GET && test_status 405 && test_header Allow "^POST$" &&
	mcp_post -X DELETE && test_status 405 && test_header Allow "^POST$"
'

test_expect_success 'M29: a bad Origin (and Host) is 403; localhost and no Origin are served' '
	mcp_modern tools/list "{}" -H "Origin: http://evil.example.com" -H "Host: evil.example.com" &&
	test_status 403 &&
	mcp_modern tools/list "{}" -H "Origin: http://localhost:$HTTP_PORT" &&
	test_status 200 &&
	mcp_modern tools/list &&
	test_status 200
'

test_expect_success 'M30: a client Mcp-Session-Id is ignored' '
	mcp_modern tools/list "{}" -H "Mcp-Session-Id: abc" &&
	test_status 200 &&
	test_no_header Mcp-Session-Id
'

test_expect_success 'M31: a request with a progressToken gets its final response' '
	post_modern "$(modern_body tools/list "{\"_meta\":$(json_meta "{\"progressToken\":\"p1\"}")}" 31)" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_status 200 &&
	if test_header Content-Type "^text/event-stream" >/dev/null; then
		test_header X-Accel-Buffering "^no$" &&
		sed -n "s/^data: //p" "$RESP.body" | tail -n 1 | jq -e ".id == 31 and (.result.tools | length > 0)"
	else
		test_header Content-Type "^application/json" &&
		test_json .id 31 &&
		test_jq ".result.tools | length > 0"
	fi
'

test_expect_success 'M33: without logLevel the answer is one JSON object, no log messages' '
	mcp_modern tools/list &&
	test_header Content-Type "^application/json" &&
	test_jq "type == \"object\" and has(\"result\")"
'

test_expect_success 'M34: logLevel "bogus" is -32602' '
	post_modern "$(modern_body tools/list "{\"_meta\":$(json_meta "{\"io.modelcontextprotocol/logLevel\":\"bogus\"}")}" 34)" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 34
'

test_expect_success 'M34: a valid logLevel is accepted' '
	post_modern "$(modern_body tools/list "{\"_meta\":$(json_meta "{\"io.modelcontextprotocol/logLevel\":\"debug\"}")}" 35)" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_status 200 && test_json .id 35
'

test_expect_success 'M35: resources/read of a missing URI is -32602 with data.uri, never empty contents' '
	mcp_modern resources/read "{\"uri\":\"file:///etc/passwd\"}" &&
	test_rpc_error 200 -32602 1 &&
	test_json .error.data.uri "\"file:///etc/passwd\""
'

test_expect_success 'M36: id null is 400 / -32600' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"tools/list\",\"params\":{\"_meta\":$M}}" \
		-H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32600
'

test_expect_success 'M37: invalid JSON is 400 / -32700 with id null' '
	post_modern "{" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32700 null
'

test_expect_success 'M38: an array with a modern element is 400 / -32600' '
	post_modern "[$(modern_body tools/list "{}" 38)]" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32600 &&
	post_modern "[$(modern_body tools/list "{}" 38)]" &&
	test_rpc_error 400 -32600
'

test_expect_success 'M39: every modern result carries resultType and serverInfo-free bodies echo ids' '
	for m in server/discover tools/list resources/list resources/templates/list prompts/list; do
		post_modern "$(modern_body $m "{}" "\"id-$m\"")" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: $m" &&
		test_status 200 &&
		test_json .id "\"id-$m\"" &&
		test_json .result.resultType "\"complete\"" || return 1
	done &&
	tool_call list_repositories "{}" &&
	test_json .result.resultType "\"complete\""
'

test_expect_success 'modern tools/call: list_repositories result shape' '
	tool_call list_repositories "{}" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	test_json ".result.content[0].type" "\"text\"" &&
	test_text_jq "type == \"array\" and length >= 1"
'

test_expect_success 'modern: the era is per request; a legacy request right after is legacy' '
	mcp_legacy ping &&
	test_status 200 &&
	test_json .result "{}"
'

test_expect_success 'modern: a header naming a modern version without _meta is 400 / -32602' '
	post_modern "{\"jsonrpc\":\"2.0\",\"id\":40,\"method\":\"tools/list\"}" -H "MCP-Protocol-Version: 2026-07-28" -H "Mcp-Method: tools/list" &&
	test_rpc_error 400 -32602 40
'

test_done
