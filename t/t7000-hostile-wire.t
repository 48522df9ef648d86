#!/bin/bash
# t7000: hostile bytes on the wire, through nginx to the FastCGI workers:
# malformed and truncated JSON, trailing bytes, deep nesting, repeated keys,
# NUL, invalid UTF-8 and surrogates, ids of every wrong type in both eras,
# body size and lying Content-Length, slow clients, repeated and broken
# headers.  Every answer is asserted, and after each family the two workers
# must be the processes that started.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/hostile.sh"

start_all "$HOSTILE_WORKERS"
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

test_expect_success "the server runs $HOSTILE_WORKERS workers; their pids are recorded" '
	workers_record
'
hclient_start

PING='{"jsonrpc":"2.0","id":1,"method":"ping"}'

# Two slow clients start now and run while the other families go on; the
# Content-Length family checks what they saw (nginx gives a body 10 s).
printf '%s' "$PING" >ping.json
raw_request --cl 1000 ping.json && cp "$RESP.rawreq" lie-long.req
raw_request ping.json && cp "$RESP.rawreq" stall.req
perl "$TEST_DIRECTORY/lib/raw-http.pl" --timeout 30 "$HTTP_PORT" lie-long.req lie-long &
LIE_PID=$!
perl "$TEST_DIRECTORY/lib/raw-http.pl" --timeout 30 --stall-after "$(( $(wc -c <stall.req) - 20 ))" \
	"$HTTP_PORT" stall.req stall &
STALL_PID=$!
test_register_pid $LIE_PID
test_register_pid $STALL_PID

PE='^Parse error: the body is not valid JSON$'
PU='^Parse error: the body is not valid UTF-8$'
PD='^Parse error: JSON nested deeper than 64 levels$'
PK='^Parse error: a key is repeated in a JSON object$'
PN='^Parse error: an object key contains U\+0000$'
NOT_OBJECT='^Invalid Request: a message must be a JSON object$'
BAD_ID='^Invalid Request: .*id.* must be a string or an integer within'

# body_case TITLE FORMAT STATUS CODE ERE [ID_JSON]: the body printf FORMAT
# writes is answered with a JSON-RPC error: STATUS, CODE, a message matching
# ERE and the id (null unless given: the id is echoed when it can be read).
body_case () {
	C_FMT=$2 C_ST=$3 C_CODE=$4 C_RE=$5 C_ID=${6:-null}
	test_expect_success "$FAMILY: $1 -> $3 / $4" '
		printf "$C_FMT" >body &&
		hpost body &&
		expect_rpc_error "$C_ST" "$C_CODE" "$C_RE" "$C_ID"
	'
}

# ---------------------------------------------------------------------------
family_begin 'malformed JSON, truncated bodies, trailing bytes'

body_case 'an empty body' '' 400 -32700 "$PE"
body_case 'whitespace only' ' \r\n\t ' 400 -32700 "$PE"
body_case 'a lone {' '{' 400 -32700 "$PE"
body_case 'a lone }' '}' 400 -32700 "$PE"
body_case 'a lone [' '[' 400 -32700 "$PE"
body_case 'a lone ]' ']' 400 -32700 "$PE"
body_case 'truncated after the first member' '{"jsonrpc":"2.0"' 400 -32700 "$PE"
body_case 'truncated inside a key' '{"jsonrpc":"2.0","id":1,"meth' 400 -32700 "$PE"
body_case 'truncated inside a string' '{"jsonrpc":"2.0","id":1,"method":"pi' 400 -32700 "$PE"
body_case 'truncated after a colon' '{"jsonrpc":"2.0","id":1,"method":' 400 -32700 "$PE"
body_case 'truncated before the last brace' '{"jsonrpc":"2.0","id":1,"method":"ping"' 400 -32700 "$PE"
body_case 'truncated after a backslash' '{"jsonrpc":"2.0","id":1,"method":"p\\' 400 -32700 "$PE"
body_case 'truncated inside a \u escape' '{"jsonrpc":"2.0","id":1,"method":"p\\u00' 400 -32700 "$PE"
body_case 'truncated inside a number' '{"jsonrpc":"2.0","id":-' 400 -32700 "$PE"
body_case 'truncated inside a literal' '{"jsonrpc":"2.0","id":1,"method":"ping","params":tr' 400 -32700 "$PE"
body_case 'trailing garbage' "${PING}x" 400 -32700 "$PE"
body_case 'a second object after the first' "$PING$PING" 400 -32700 "$PE"
body_case 'a trailing comma' "$PING," 400 -32700 "$PE"
body_case 'a trailing closing brace' "$PING}" 400 -32700 "$PE"
body_case 'a trailing null' "$PING null" 400 -32700 "$PE"
body_case 'a trailing comment' "$PING/* c */" 400 -32700 "$PE"
body_case 'a trailing NUL byte' "$PING\\000" 400 -32700 "$PE"
body_case 'a trailing form feed (not JSON whitespace)' "$PING\\f" 400 -32700 "$PE"
body_case 'a leading byte order mark' "\\357\\273\\277$PING" 400 -32700 "$PE"
body_case 'single quotes' "{'jsonrpc':'2.0','id':1,'method':'ping'}" 400 -32700 "$PE"
body_case 'unquoted keys' '{jsonrpc:"2.0",id:1,method:"ping"}' 400 -32700 "$PE"
body_case 'a trailing comma inside the object' '{"jsonrpc":"2.0","id":1,"method":"ping",}' 400 -32700 "$PE"
body_case 'a trailing comma inside an array' '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,]}' 400 -32700 "$PE"
body_case 'a missing comma' '{"jsonrpc":"2.0" "id":1,"method":"ping"}' 400 -32700 "$PE"
body_case 'a missing colon' '{"jsonrpc" "2.0","id":1,"method":"ping"}' 400 -32700 "$PE"
body_case 'a block comment inside' '{"jsonrpc":"2.0",/* c */"id":1,"method":"ping"}' 400 -32700 "$PE"
body_case 'a line comment inside' '{"jsonrpc":"2.0", // c\n"id":1,"method":"ping"}' 400 -32700 "$PE"
for n in NaN Infinity -Infinity 0x1 01 +1 .5 1. 1e 1e+ - '1 2' TRUE nul tru; do
	body_case "the number or literal '$n' as id" "{\"jsonrpc\":\"2.0\",\"id\":$n,\"method\":\"ping\"}" 400 -32700 "$PE"
done
body_case 'an invalid escape \x41' '{"jsonrpc":"2.0","id":1,"method":"\\x41"}' 400 -32700 "$PE"
body_case 'an invalid escape \uZZZZ' '{"jsonrpc":"2.0","id":1,"method":"\\uZZZZ"}' 400 -32700 "$PE"
body_case 'a raw tab inside a string' '{"jsonrpc":"2.0","id":1,"method":"pi\tng"}' 400 -32700 "$PE"
body_case 'a raw newline inside a string' '{"jsonrpc":"2.0","id":1,"method":"pi\nng"}' 400 -32700 "$PE"
body_case 'a form-encoded body' 'jsonrpc=2.0&id=1&method=ping' 400 -32700 "$PE"
body_case 'an XML body' '<?xml version="1.0"?><methodCall/>' 400 -32700 "$PE"
body_case 'a JSON string' '"{\\"jsonrpc\\":\\"2.0\\"}"' 400 -32600 "$NOT_OBJECT"
body_case 'a bare number' '42' 400 -32600 "$NOT_OBJECT"
body_case 'a bare true' 'true' 400 -32600 "$NOT_OBJECT"
body_case 'a bare null' 'null' 400 -32600 "$NOT_OBJECT"
body_case 'an empty batch' '[]' 400 -32600 '^Invalid Request: empty batch$'

test_expect_success "$FAMILY: 60,000 bytes of garbage -> 400 / -32700" '
	head -c 60000 /dev/zero | tr "\0" "a" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PE" null
'

test_expect_success "$FAMILY: trailing JSON whitespace is fine -> 200" '
	printf "%s \r\n\t\n" "$PING" >body &&
	hpost body &&
	expect_result 200 1
'

family_end

# ---------------------------------------------------------------------------
family_begin 'deep nesting, repeated keys, NUL, invalid UTF-8, surrogates'

# nest N OPEN CLOSE: OPEN N times, then CLOSE N times.
nest () {
	perl -e 'print $ARGV[1] x $ARGV[0], $ARGV[2] x $ARGV[0]' "$@"
}

test_expect_success "$FAMILY: 10,000 nested arrays -> 400 / -32700" '
	nest 10000 "[" "]" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PD" null
'

test_expect_success "$FAMILY: 10,000 nested objects -> 400 / -32700" '
	perl -e "print q({\"a\":) x 10000, 1, q(}) x 10000" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PD" null
'

test_expect_success "$FAMILY: 10,000 nested arrays in params -> 400 / -32700" '
	{ printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":"; nest 10000 "[" "]"; printf "}}"; } >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PD" null
'

test_expect_success "$FAMILY: 10,000 nested objects in tool arguments -> 400 / -32700" '
	{ printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{%s,\"name\":\"list_repositories\",\"arguments\":" "$HOSTILE_META"
	  perl -e "print q({\"q\":) x 10000, 1, q(}) x 10000"; printf "}}"; } >body &&
	hpost_modern body tools/call list_repositories &&
	expect_rpc_error 400 -32700 "$PD" null
'

test_expect_success "$FAMILY: 10,000 unclosed arrays -> 400 / -32700" '
	perl -e "print q([) x 10000" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "^Parse error" null
'

test_expect_success "$FAMILY: 10,000 unclosed objects -> 400 / -32700" '
	perl -e "print q({\"a\":) x 10000" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "^Parse error" null
'

test_expect_success "$FAMILY: 10,000 closing brackets -> 400 / -32700" '
	perl -e "print q(]) x 10000" >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PE" null
'

# The message is level 1, params level 2: 62 arrays inside make 64.
test_expect_success "$FAMILY: nesting of exactly 64 levels is served -> 200" '
	{ printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":"; nest 62 "[" "]"; printf "}}"; } >body &&
	hpost body &&
	expect_result 200 1
'

test_expect_success "$FAMILY: nesting of 65 levels -> 400 / -32700" '
	{ printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":"; nest 63 "[" "]"; printf "}}"; } >body &&
	hpost body &&
	expect_rpc_error 400 -32700 "$PD" null
'

body_case 'the id twice' '{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}' 400 -32700 "$PK"
body_case 'the method twice (ping, then tools/list)' '{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}' 400 -32700 "$PK"
body_case 'jsonrpc twice' '{"jsonrpc":"1.0","jsonrpc":"2.0","id":1,"method":"ping"}' 400 -32700 "$PK"
body_case 'params twice' '{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"params":{}}' 400 -32700 "$PK"
body_case 'a key twice with the same value' '{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"ping"}' 400 -32700 "$PK"
body_case 'a key repeated through an escape' '{"jsonrpc":"2.0","id":1,"\\u006dethod":"tools/list","method":"ping"}' 400 -32700 "$PK"
body_case 'a key twice deep in params' '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":[{"a":1,"b":2,"a":3}]}}' 400 -32700 "$PK"
body_case 'a tool argument twice' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_repositories","arguments":{"query":"zzz","query":"fixture"}}}' 400 -32700 "$PK"
body_case 'the tool name twice' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_branches","name":"list_repositories"}}' 400 -32700 "$PK"

test_expect_success "$FAMILY: the _meta protocol version twice -> 400 / -32700" '
	printf "%s" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2025-06-18\",\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}" >body &&
	hpost_modern body tools/list &&
	expect_rpc_error 400 -32700 "$PK" null
'

body_case 'a raw NUL inside a string' '{"jsonrpc":"2.0","id":1,"method":"pi\000ng"}' 400 -32700 "$PE"
body_case 'a raw NUL between tokens' '{"jsonrpc":"2.0",\000"id":1,"method":"ping"}' 400 -32700 "$PE"
body_case 'a raw NUL first' "\\000$PING" 400 -32700 "$PE"
body_case '\u0000 in the method' '{"jsonrpc":"2.0","id":1,"method":"ping\\u0000x"}' 400 -32600 '^Invalid Request: .*method.* must be a non-empty string$' 1
body_case '\u0000 in jsonrpc' '{"jsonrpc":"2.0\\u0000x","id":1,"method":"ping"}' 400 -32600 '^Invalid Request: .*jsonrpc.* must be .*2\.0' 1
body_case '\u0000 in a string id' '{"jsonrpc":"2.0","id":"a\\u0000b","method":"ping"}' 400 -32600 "$BAD_ID"
body_case '\u0000 in a key of the message' '{"jsonrpc":"2.0","id":1,"method\\u0000x":"ping"}' 400 -32700 "$PN"
body_case '\u0000 as a whole key' '{"jsonrpc":"2.0","id":1,"method":"ping","params":{"\\u0000":1}}' 400 -32700 "$PN"
body_case '\u0000 in a tool argument name' '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_repositories","arguments":{"query\\u0000x":"fixture"}}}' 400 -32700 "$PN"

test_expect_success "$FAMILY: \\u0000 in the tool name -> -32602, the tool does not run" '
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"create_issue\\u0000x\",\"arguments\":{\"repo\":\"alice/fixture\",\"title\":\"nul\"}}}" &&
	expect_rpc_error 200 -32602 "name.* must be a string without NUL" 1 &&
	test "$(db_sql "select count(*) from issues")" = 0
'

test_expect_success "$FAMILY: \\u0000 in the _meta protocol version -> 400 / -32602" '
	printf "%s" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\\u0000x\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}" >body &&
	hpost_modern body tools/list &&
	expect_rpc_error 400 -32602 "protocolVersion.* must be a string" 1
'

test_expect_success "$FAMILY: \\u0000 in a tool argument value -> tool error naming it" '
	call_modern get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\\u0000/etc/passwd\"}" &&
	expect_tool_error "^argument .path. must not contain NUL bytes$"
'

body_case 'a lone continuation byte' '{"jsonrpc":"2.0","id":1,"method":"p\200ng"}' 400 -32700 "$PU"
body_case 'a lead byte without continuation' '{"jsonrpc":"2.0","id":1,"method":"\303("}' 400 -32700 "$PU"
body_case "an overlong '/' in 2 bytes" '{"jsonrpc":"2.0","id":1,"method":"\300\257"}' 400 -32700 "$PU"
body_case "an overlong '/' in 3 bytes" '{"jsonrpc":"2.0","id":1,"method":"\340\200\257"}' 400 -32700 "$PU"
body_case "an overlong '/' in 4 bytes" '{"jsonrpc":"2.0","id":1,"method":"\360\200\200\257"}' 400 -32700 "$PU"
body_case 'an overlong NUL (C0 80)' '{"jsonrpc":"2.0","id":1,"method":"ping\300\200"}' 400 -32700 "$PU"
body_case 'a 5-byte sequence' '{"jsonrpc":"2.0","id":1,"method":"\370\210\200\200\200"}' 400 -32700 "$PU"
body_case 'a 0xFF byte' '{"jsonrpc":"2.0","id":1,"method":"\377"}' 400 -32700 "$PU"
body_case 'a 0xFE byte' '{"jsonrpc":"2.0","id":1,"method":"\376"}' 400 -32700 "$PU"
body_case 'a sequence cut by the closing quote' '{"jsonrpc":"2.0","id":1,"method":"\342\202"}' 400 -32700 "$PU"
body_case 'a code point above U+10FFFF' '{"jsonrpc":"2.0","id":1,"method":"\364\220\200\200"}' 400 -32700 "$PU"
body_case 'invalid UTF-8 in a key' '{"jsonrpc":"2.0","id":1,"\377":1,"method":"ping"}' 400 -32700 "$PU"
body_case 'invalid UTF-8 after the value' "$PING\\377" 400 -32700 "$PU"
body_case 'a Latin-1 body' '{"jsonrpc":"2.0","id":1,"method":"caf\351"}' 400 -32700 "$PU"
body_case 'an escaped lone high surrogate' '{"jsonrpc":"2.0","id":1,"method":"\\ud800"}' 400 -32700 "$PU"
body_case 'an escaped lone low surrogate' '{"jsonrpc":"2.0","id":1,"method":"\\udc00"}' 400 -32700 "$PU"
body_case 'an escaped pair in the wrong order' '{"jsonrpc":"2.0","id":1,"method":"\\udc00\\ud800"}' 400 -32700 "$PU"
body_case 'a high surrogate before a plain escape' '{"jsonrpc":"2.0","id":1,"method":"\\ud800\\u0041"}' 400 -32700 "$PU"
body_case 'a high surrogate before a plain character' '{"jsonrpc":"2.0","id":1,"method":"\\ud800x"}' 400 -32700 "$PU"
body_case 'two high surrogates' '{"jsonrpc":"2.0","id":1,"method":"\\ud800\\ud800"}' 400 -32700 "$PU"
body_case 'a high surrogate in a key' '{"jsonrpc":"2.0","id":1,"\\ud83d":1,"method":"ping"}' 400 -32700 "$PU"
body_case 'a raw CESU-8 high surrogate' '{"jsonrpc":"2.0","id":1,"method":"\355\240\200"}' 400 -32700 "$PU"
body_case 'a raw CESU-8 low surrogate' '{"jsonrpc":"2.0","id":1,"method":"\355\260\200"}' 400 -32700 "$PU"
body_case 'a raw CESU-8 surrogate pair' '{"jsonrpc":"2.0","id":1,"method":"\355\240\275\355\270\200"}' 400 -32700 "$PU"

test_expect_success "$FAMILY: an escaped lone surrogate in a tool argument -> 400 / -32700" '
	call_modern list_repositories "{\"query\":\"fix\\udfffture\"}" &&
	expect_rpc_error 400 -32700 "$PU" null
'

test_expect_success "$FAMILY: an escaped surrogate pair is fine -> 200, tool result" '
	call_modern list_repositories "{\"query\":\"\\ud83d\\ude00\"}" &&
	expect_tool_ok &&
	[[ $BODY == *"\"structuredContent\":[]"* ]] || show_ "expected no repository"
'

test_expect_success "$FAMILY: raw 4-byte UTF-8 is fine -> 200, tool result" '
	call_modern list_repositories "{\"query\":\"$(printf "\360\237\230\200")\"}" &&
	expect_tool_ok
'

family_end

# ---------------------------------------------------------------------------
family_begin 'JSON-RPC envelope of the wrong shape'

body_case 'no jsonrpc member' '{"id":1,"method":"ping"}' 400 -32600 '^Invalid Request: .*jsonrpc.* must be .*2\.0' 1
body_case 'jsonrpc 1.0' '{"jsonrpc":"1.0","id":1,"method":"ping"}' 400 -32600 '^Invalid Request: .*jsonrpc.* must be .*2\.0' 1
body_case 'jsonrpc as a number' '{"jsonrpc":2.0,"id":1,"method":"ping"}' 400 -32600 '^Invalid Request: .*jsonrpc.* must be .*2\.0' 1
body_case 'no method and no result' '{"jsonrpc":"2.0","id":1}' 400 -32600 '^Invalid Request: .*method.* is missing$' 1
body_case 'a number as method' '{"jsonrpc":"2.0","id":1,"method":5}' 400 -32600 'method.* must be a non-empty string$' 1
body_case 'an empty method' '{"jsonrpc":"2.0","id":1,"method":""}' 400 -32600 'method.* must be a non-empty string$' 1
body_case 'an object as method' '{"jsonrpc":"2.0","id":1,"method":{"x":1}}' 400 -32600 'method.* must be a non-empty string$' 1
body_case 'a string as params' '{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}' 400 -32600 'params.* must be an object$' 1
body_case 'a number as params' '{"jsonrpc":"2.0","id":1,"method":"ping","params":5}' 400 -32600 'params.* must be an object$' 1
body_case 'a response without an id' '{"jsonrpc":"2.0","result":{}}' 400 -32600 'a response must carry an id$'

test_expect_success "$FAMILY: an array as tools/call params -> -32602" '
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":[\"list_repositories\"]}" &&
	expect_rpc_error 200 -32602 "params.* must be an object" 7
'

test_expect_success "$FAMILY: a number as the tool name -> -32602" '
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":5}}" &&
	expect_rpc_error 200 -32602 "name.* must be a string" 7
'

test_expect_success "$FAMILY: an unknown method in the legacy era -> -32601" '
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":\"m\",\"method\":\"tools/explode\"}" &&
	expect_rpc_error 200 -32601 "^Method not found: tools/explode$" "\"m\""
'

test_expect_success "$FAMILY: a legacy batch of 1,500 pings -> 400, none answered" '
	perl -e "print q([), join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"ping\"}) } 1..1500), q(])" >body &&
	test "$(wc -c <body)" -lt 65536 &&
	hpost body &&
	expect_rpc_error 400 -32600 "^Invalid Request: a batch holds at most 20 calls; none was run$" null
'

test_expect_success "$FAMILY: a legacy batch of 20 pings -> 20 answers" '
	perl -e "print q([), join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"ping\"}) } 1..20), q(])" >body &&
	hpost body &&
	test "$STATUS" = 200 &&
	jq_body -e "length == 20 and ([.[].id] == [range(1; 21)]) and all(.[]; .result == {})"
'

test_expect_success "$FAMILY: a batch of non-objects -> one -32600 per element" '
	hpost_str "[1,\"x\",null,[],{}]" &&
	test "$STATUS" = 200 &&
	jq_body -e "length == 5 and all(.[]; .error.code == -32600 and .id == null)"
'

test_expect_success "$FAMILY: a method name of 5,000 bytes -> -32601, cut in the answer" '
	m=$(head -c 5000 /dev/zero | tr "\0" "m") &&
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$m\"}" &&
	expect_rpc_error 200 -32601 "^Method not found: m{1,200}$" 1
'

family_end

# ---------------------------------------------------------------------------
family_begin 'ids of every wrong type and size, both eras'

LONG257=$(head -c 257 /dev/zero | tr '\0' 'i')
LONG256=$(head -c 256 /dev/zero | tr '\0' 'i')
HUGE_ID=$(head -c 60000 /dev/zero | tr '\0' 'i')

# legacy_id_body ID_JSON / modern_id_body ID_JSON: a prompts/list request
# (it exists in both eras and answers with a tiny result).
legacy_id_body () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"prompts/list"}' "$1"
}
modern_id_body () {
	printf '{"jsonrpc":"2.0","id":%s,"method":"prompts/list","params":{%s}}' "$1" "$HOSTILE_META"
}

# id_case ERA ID_JSON DESCRIPTION: an invalid id is 400 / -32600, id null.
id_case () {
	C_ERA=$1 C_ID=$2
	test_expect_success "$FAMILY: $1 id $3 -> 400 / -32600, id null" '
		if test "$C_ERA" = legacy; then
			legacy_id_body "$C_ID" >body && hpost body
		else
			modern_id_body "$C_ID" >body && hpost_modern body prompts/list
		fi &&
		expect_rpc_error 400 -32600 "$BAD_ID" null
	'
}

# id_ok ERA ID_JSON DESCRIPTION: a valid id is echoed with the result.
id_ok () {
	C_ERA=$1 C_ID=$2
	test_expect_success "$FAMILY: $1 id $3 is echoed -> 200" '
		if test "$C_ERA" = legacy; then
			legacy_id_body "$C_ID" >body && hpost body
		else
			modern_id_body "$C_ID" >body && hpost_modern body prompts/list
		fi &&
		expect_result 200 "$C_ID" &&
		[[ $BODY == *"\"prompts\":[]"* ]] || show_ "expected the empty prompt list"
	'
}

for era in legacy modern; do
	id_case $era '{}' 'an empty object'
	id_case $era '{"id":1}' 'an object'
	id_case $era '[]' 'an empty array'
	id_case $era '[1]' 'an array'
	id_case $era true 'true'
	id_case $era false 'false'
	id_case $era null 'null'
	id_case $era 1.5 '1.5'
	id_case $era 1.0 '1.0'
	id_case $era -0.5 '-0.5'
	id_case $era 1e3 '1e3'
	id_case $era 1E-3 '1E-3'
	id_case $era 9007199254740992 '2^53'
	id_case $era -9007199254740992 '-2^53'
	id_case $era 9223372036854775807 '2^63-1'
	id_case $era 18446744073709551616 '2^64'
	id_case $era 99999999999999999999999999999 'of 29 digits'
	id_case $era 1e400 '1e400'
	id_case $era "\"$LONG257\"" 'of 257 characters'
	id_case $era "\"$HUGE_ID\"" 'of 60,000 characters'
	id_case $era '"a\u0000b"' 'with \u0000'
	id_ok $era 0 '0'
	id_ok $era -1 '-1'
	id_ok $era 9007199254740991 '2^53-1'
	id_ok $era -9007199254740991 '-(2^53-1)'
	id_ok $era '""' 'the empty string'
	id_ok $era "\"$LONG256\"" 'of 256 characters'
	id_ok $era '"1"' '"1"'
	id_ok $era "\"$(printf 'caf\303\251 \360\237\230\200')\"" 'in UTF-8'
done

test_expect_success "$FAMILY: a modern notification (no id) -> 202, no body" '
	printf "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\",\"params\":{%s}}" "$HOSTILE_META" >body &&
	hpost_modern body notifications/initialized &&
	test "$STATUS" = 202 && test -z "$BODY"
'

family_end

# ---------------------------------------------------------------------------
family_begin 'body size, lying Content-Length, slow clients'

# the two slow clients started at the top
count_request
count_request


# pad_to FILE SIZE: a valid ping padded with spaces to SIZE bytes.
pad_to () {
	printf '%s' "$PING" >"$1" &&
	head -c $(( $2 - ${#PING} )) /dev/zero | tr '\0' ' ' >>"$1" &&
	test "$(wc -c <"$1")" = "$2"
}

test_expect_success "$FAMILY: a body of exactly 64 KiB is served -> 200" '
	pad_to body 65536 &&
	hpost body &&
	expect_result 200 1
'

test_expect_success "$FAMILY: a body of 64 KiB + 1 -> 413 / -32600" '
	pad_to body 65537 &&
	hpost body &&
	expect_rpc_error 413 -32600 "too large" null
'

test_expect_success "$FAMILY: a body of 1 MiB -> 413 / -32600" '
	pad_to body 1048576 &&
	hpost body &&
	expect_rpc_error 413 -32600 "too large" null
'

test_expect_success "$FAMILY: Content-Length 65537 with 10 bytes sent -> 413 at once" '
	printf "0123456789" >short &&
	raw_request --cl 65537 short &&
	raw_send --first --timeout 10 &&
	expect_rpc_error 413 -32600 "too large" null &&
	test "$RAW_END" = answered
'

test_expect_success "$FAMILY: Content-Length 20 for a 40-byte ping -> 400 / -32700, the rest refused" '
	raw_request --keep-alive --cl 20 ping.json &&
	raw_send --timeout 10 &&
	expect_rpc_error 400 -32700 "$PE" null &&
	grep "^HTTP/1.1 400" "$RESP.rest"
'

test_expect_success "$FAMILY: Content-Length of the ping, then junk -> 200, the junk refused" '
	printf "%sGARBAGE GARBAGE\r\n\r\n" "$PING" >body &&
	raw_request --keep-alive --cl ${#PING} body &&
	raw_send --timeout 10 &&
	expect_result 200 1 &&
	grep "^HTTP/1.1 400" "$RESP.rest"
'

test_expect_success "$FAMILY: Content-Length 0 with a body -> 400 / -32700" '
	raw_request --cl 0 ping.json &&
	raw_send --timeout 10 &&
	expect_rpc_error 400 -32700 "$PE" null
'

for cl in abc -1 99999999999999999999 '1 2' 0x10; do
	C_CL=$cl
	test_expect_success "$FAMILY: Content-Length '$cl' -> 400 from nginx, not served" '
		raw_request --cl "$C_CL" ping.json &&
		raw_send --timeout 10 &&
		test "$STATUS" = 400 &&
		expect_not_served
	'
done

test_expect_success "$FAMILY: two Content-Length headers -> 400 from nginx, not served" '
	raw_request -H "Content-Length: 5" ping.json &&
	raw_send --timeout 10 &&
	test "$STATUS" = 400 &&
	expect_not_served
'

test_expect_success "$FAMILY: straight to FastCGI, CONTENT_LENGTH past the body -> 400 / -32700" '
	count_request &&
	BODY_LEN=500 fcgi_request "$FCGI_SOCK" ping.json &&
	load_response_ &&
	expect_rpc_error 400 -32700 "shorter than its Content-Length" null
'

test_expect_success "$FAMILY: a body dribbled 7 bytes every 30 ms -> 200" '
	raw_request ping.json &&
	raw_send --chunk 7 --delay 30 --first &&
	expect_result 200 1
'

test_expect_success "$FAMILY: a whole request dribbled byte by byte -> 200" '
	raw_request ping.json &&
	raw_send --chunk 1 --delay 1 --first &&
	expect_result 200 1
'

test_expect_success "$FAMILY: a chunked body -> 200" '
	hpost_curl ping.json -H "Transfer-Encoding: chunked" &&
	expect_result 200 1
'

test_expect_success "$FAMILY: a chunked body with a bad chunk size -> 400 from nginx, not served" '
	{ printf "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
	  printf "Authorization: Bearer %s\r\nContent-Type: application/json\r\n" "$TOKEN"
	  printf "Transfer-Encoding: chunked\r\n\r\nzz\r\n%s\r\n0\r\n\r\n" "$PING"; } >"$RESP.rawreq" &&
	raw_send --timeout 10 &&
	test "$STATUS" = 400 &&
	expect_not_served
'

test_expect_success "$FAMILY: Content-Length past the body: no answer, closed by nginx in time" '
	wait $LIE_PID &&
	cat lie-long.status lie-long.end lie-long.time &&
	test "$(cat lie-long.status)" = none &&
	test "$(cat lie-long.end)" = closed &&
	test "$(cut -d. -f1 lie-long.time)" -lt 20
'

test_expect_success "$FAMILY: a body that stalls: no answer, closed by nginx in time" '
	wait $STALL_PID &&
	cat stall.status stall.end stall.time &&
	test "$(cat stall.status)" = none &&
	test "$(cat stall.end)" = closed &&
	test "$(cut -d. -f1 stall.time)" -lt 20
'

test_expect_success "$FAMILY: the workers answer normally afterwards -> 200" '
	hpost ping.json &&
	expect_result 200 1
'

family_end

# ---------------------------------------------------------------------------
family_begin 'repeated, conflicting and broken headers'

REPEAT='^Bad Request: the %s header is repeated; send it once$'

# header_case TITLE STATUS CODE ERE BODYFILE [-H LINE]...: a raw request with
# the extra header lines, answered by forgemcp with that error.
header_case () {
	C_ST=$2 C_CODE=$3 C_RE=$4 C_FILE=$5
	C_ARGS=("${@:6}")
	test_expect_success "$FAMILY: $1 -> $2 / $3" '
		raw_request "${C_ARGS[@]}" "$C_FILE" &&
		raw_send --first --timeout 10 &&
		expect_rpc_error "$C_ST" "$C_CODE" "$C_RE"
	'
}

# nginx_refuses TITLE BODYFILE [-H LINE]...: nginx answers 400 itself.
nginx_refuses () {
	C_FILE=$2
	C_ARGS=("${@:3}")
	test_expect_success "$FAMILY: $1 -> 400 from nginx, not served" '
		raw_request "${C_ARGS[@]}" "$C_FILE" &&
		raw_send --timeout 10 &&
		test "$STATUS" = 400 &&
		expect_not_served
	'
}

printf '%s' "$(modern_body tools/list)" >modern.json
printf '%s' "$(modern_body tools/call '{"name":"list_repositories","arguments":{}}')" >call.json
ORIGIN=http://127.0.0.1:$HTTP_PORT

header_case 'Content-Type twice (JSON, then text/plain)' 400 -32600 "$(printf "$REPEAT" Content-Type)" ping.json \
	-H 'Content-Type: text/plain'
header_case 'Content-Type twice, the same' 400 -32600 "$(printf "$REPEAT" Content-Type)" ping.json \
	-H 'Content-Type: application/json'
header_case 'Content-Type text/plain, then JSON' 415 -32600 '^Unsupported Media Type' ping.json \
	--no-ctype -H 'Content-Type: text/plain' -H 'Content-Type: application/json'
nginx_refuses 'Authorization twice (valid token, then another)' ping.json -H 'Authorization: Bearer fmcp_other'
nginx_refuses 'Authorization twice (another, then the valid token)' ping.json --no-auth \
	-H 'Authorization: Bearer fmcp_other' -H "Authorization: Bearer $TOKEN"
header_case 'MCP-Protocol-Version twice (legacy, then modern)' 400 -32600 "$(printf "$REPEAT" MCP-Protocol-Version)" ping.json \
	-H 'MCP-Protocol-Version: 2025-06-18' -H 'MCP-Protocol-Version: 2026-07-28'
header_case 'MCP-Protocol-Version twice, the same' 400 -32600 "$(printf "$REPEAT" MCP-Protocol-Version)" modern.json \
	-H 'MCP-Protocol-Version: 2026-07-28' -H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list'
header_case 'Mcp-Method twice' 400 -32600 "$(printf "$REPEAT" Mcp-Method)" modern.json \
	-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/list' -H 'mcp-method: tools/call'
header_case 'Mcp-Name twice' 400 -32600 "$(printf "$REPEAT" Mcp-Name)" call.json \
	-H 'MCP-Protocol-Version: 2026-07-28' -H 'Mcp-Method: tools/call' \
	-H 'Mcp-Name: list_repositories' -H 'Mcp-Name: create_issue'
header_case 'Origin twice, both allowed' 403 -32600 '^Forbidden: this Origin is not allowed$' ping.json \
	-H "Origin: $ORIGIN" -H "Origin: $ORIGIN"
header_case 'Origin null' 403 -32600 '^Forbidden: this Origin is not allowed$' ping.json -H 'Origin: null'
header_case 'Origin with a path' 403 -32600 '^Forbidden: this Origin is not allowed$' ping.json -H "Origin: $ORIGIN/mcp"

test_expect_success "$FAMILY: one allowed Origin is served -> 200" '
	raw_request -H "Origin: $ORIGIN" ping.json &&
	raw_send --first --timeout 10 &&
	expect_result 200 1
'

nginx_refuses 'a CR inside a header value' ping.json -H "$(printf 'X-Evil: a\rb')"
nginx_refuses 'a CR inside MCP-Protocol-Version' ping.json -H "$(printf 'MCP-Protocol-Version: 2025-06-18\rX: y')"
nginx_refuses 'an obsolete folded header line' ping.json -H 'X-Folded: a' -H ' continued'
nginx_refuses 'a header of 9,000 bytes' ping.json -H "X-Long: $(head -c 9000 /dev/zero | tr '\0' a)"
nginx_refuses 'a header name with a space' ping.json -H 'X Evil: 1'

test_expect_success "$FAMILY: a bare LF splitting a value into a second header -> 200" '
	raw_request -H "$(printf "X-Evil: a\nX-Injected: b")" ping.json &&
	raw_send --first --timeout 10 &&
	expect_result 200 1
'

test_expect_success "$FAMILY: a control character after the token -> 401" '
	raw_request --no-auth -H "$(printf "Authorization: Bearer %s\001x" "$TOKEN")" ping.json &&
	raw_send --first --timeout 10 &&
	expect_rpc_error 401 -32001 "^Unauthorized$" 1
'

test_expect_success "$FAMILY: a token of 7,000 bytes -> 401" '
	raw_request --no-auth -H "Authorization: Bearer $(head -c 7000 /dev/zero | tr "\0" a)" ping.json &&
	raw_send --first --timeout 10 &&
	expect_rpc_error 401 -32001 "^Unauthorized$" 1
'

test_expect_success "$FAMILY: non-UTF-8 bytes in MCP-Protocol-Version -> 400, the answer is UTF-8" '
	raw_request -H "$(printf "MCP-Protocol-Version: 2025-\377\376")" ping.json &&
	raw_send --first --timeout 10 &&
	expect_rpc_error 400 -32600 "^Bad Request: unsupported MCP-Protocol-Version" 1 &&
	perl -MEncode -0777 -ne "decode(q(UTF-8), \$_, Encode::FB_CROAK)" "$RESP.body"
'

test_expect_success "$FAMILY: an MCP-Protocol-Version of 4,000 bytes -> 400" '
	raw_request -H "MCP-Protocol-Version: $(head -c 4000 /dev/zero | tr "\0" 2)" ping.json &&
	raw_send --first --timeout 10 &&
	expect_rpc_error 400 -32600 "^Bad Request: unsupported MCP-Protocol-Version .2{1,40}.$" 1
'

test_expect_success "$FAMILY: Mcp-Name that is not canonical base64 -> 400 / -32020" '
	hpost_modern call.json tools/call "=?base64?bGlzdF9yZXBvc2l0b3JpZXM?=" &&
	expect_rpc_error 400 -32020 "Mcp-Name header is not a valid value" 1
'

test_expect_success "$FAMILY: Mcp-Name decoding to the name plus a newline -> 400 / -32020" '
	hpost_modern call.json tools/call "=?base64?$(printf "list_repositories\n" | base64)?=" &&
	expect_rpc_error 400 -32020 "Mcp-Name differs" 1
'

test_expect_success "$FAMILY: a method holding a newline cannot forge a log line" '
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\\nforged-line status=200\"}" &&
	expect_rpc_error 200 -32601 "^Method not found: ping.nforged-line" 1 &&
	! grep "^forged-line" "$SERVER_LOG"
'

family_end

hostile_summary 150

test_done
