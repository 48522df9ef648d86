# lib-mcp.sh: users, tokens and fixtures; MCP requests through nginx and assertions on the last response.
#
# Sourced by t/test-lib.sh; not meant to be run or sourced on its own.
# Licensed under the ISC license, see LICENSE.

# ---------------------------------------------------------------------------
# Users, tokens and fixture repositories

# make_user LOGIN: creates a user.
make_user () {
	fm user add "$1" --name "User $1" --email "$1@example.com" >/dev/null 2>>"$TRASH/cli.stderr"
}

# make_token LOGIN SCOPES [more args]: prints a new token.
make_token () {
	local u=$1 s=$2
	shift 2
	fm token create --user "$u" --scopes "$s" "$@" 2>>"$TRASH/cli.stderr"
}

TEST_TICK=1700000000

test_tick () {
	TEST_TICK=$((TEST_TICK + 60))
	GIT_AUTHOR_DATE="$TEST_TICK +0000"
	GIT_COMMITTER_DATE="$TEST_TICK +0000"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL=author@example.com
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# make_fixture_repo DIR.git: a deterministic bare repository:
#   commit 1: README.md, src/lib/deep/nested.txt, docs/guide.md
#   commit 2: logo.bin (binary), big.txt (exactly 10240 bytes)      <- tag v1.0
#   commit 3: README.md changed
# Sets FIXTURE_C1, FIXTURE_C2, FIXTURE_C3 (commit ids).
make_fixture_repo () {
	bare=$1
	work=$TRASH/fixture-work.$$
	rm -rf "$work" "$bare"
	git -c init.defaultBranch=main init -q "$work" || return 1
	(
		cd "$work" &&
		git config user.useConfigOnly false &&
		printf '# fixture\n\nA repository for tests.\n' >README.md &&
		mkdir -p src/lib/deep docs &&
		printf 'deep inside\n' >src/lib/deep/nested.txt &&
		printf 'Guide\n=====\n\nUnicode: caf\303\251 \342\234\223\n' >docs/guide.md &&
		git add . && test_tick && git commit -q -m 'first commit' &&
		printf '\211PNG\r\n\032\n\000\001\002\003\377\376binary\000data' >logo.bin &&
		perl -e 'for my $i (0..255) { printf "line %03d: %s\n", $i, "x" x 29 }' >big.txt &&
		test "$(wc -c <big.txt)" = 10240 &&
		git add . && test_tick && git commit -q -m 'add binary and big files' &&
		test_tick && git tag -a -m 'release 1.0' v1.0 &&
		printf '# fixture\n\nA repository for tests.\nVersion two.\n' >README.md &&
		git add . && test_tick && git commit -q -m 'third commit'
	) || return 1
	FIXTURE_C1=$(git -C "$work" rev-parse HEAD~2)
	FIXTURE_C2=$(git -C "$work" rev-parse HEAD~1)
	FIXTURE_C3=$(git -C "$work" rev-parse HEAD)
	git clone -q --bare "$work" "$bare" || return 1
	rm -rf "$work"
}

# setup_fixtures: the standard cast for tool and auth tests.
#   alice: owns alice/fixture (public, imported fixture) and alice/secret (private)
#   bob:   owns bob/hidden (private, imported fixture), bob/tools (public, empty)
#   carol: reader on bob/hidden
# Tokens: ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN (read,write), WRITE_ONLY_TOKEN (alice, write)
setup_fixtures () {
	make_user alice &&
	make_user bob &&
	make_user carol &&
	make_fixture_repo "$TRASH/fixture.git" &&
	fm repo import alice/fixture --from "$TRASH/fixture.git" --description 'the fixture' >/dev/null &&
	fm repo create alice/secret --private --description 'alice private' >/dev/null &&
	fm repo import bob/hidden --from "$TRASH/fixture.git" --private >/dev/null &&
	fm repo create bob/tools --description 'bob public tools' >/dev/null &&
	fm collaborator add bob/hidden carol reader >/dev/null &&
	ALICE_TOKEN=$(make_token alice read,write) &&
	BOB_TOKEN=$(make_token bob read,write) &&
	CAROL_TOKEN=$(make_token carol read) &&
	WRITE_ONLY_TOKEN=$(make_token alice write) &&
	TOKEN=$ALICE_TOKEN
}

# ---------------------------------------------------------------------------
# HTTP requests through nginx

RESP=$TRASH/resp
EMPTY_OBJ='{}'
TOKEN=
MODERN_VERSION=2026-07-28

# mcp_post [options] [BODY]: POSTs BODY (or --file F) to the endpoint.
# Options:
#   -H 'Name: value'    extra header (repeatable)
#   --no-auth           send no Authorization header
#   --token T           use T as the bearer token
#   --no-ctype          send no Content-Type header
#   --ctype VALUE       Content-Type value
#   -X METHOD           HTTP method (default POST)
#   --path PATH         request path (default /mcp)
#   --url URL           whole URL
#   --file F            body from file F
# Leaves $RESP.status, $RESP.headers (CR stripped) and $RESP.body.
mcp_post () {
	local method=POST path=/mcp url= auth=yes tok=$TOKEN ctype=application/json file=
	set -- "$@" --end-of-options--
	while test "$1" != --end-of-options--; do
		case $1 in
		-H) set -- "$@" -H "$2"; shift 2 ;;
		--no-auth) auth=no; shift ;;
		--token) tok=$2; shift 2 ;;
		--no-ctype) ctype=; shift ;;
		--ctype) ctype=$2; shift 2 ;;
		-X) method=$2; shift 2 ;;
		--path) path=$2; shift 2 ;;
		--url) url=$2; shift 2 ;;
		--file) file=$2; shift 2 ;;
		*) printf '%s' "$1" >"$RESP.req"; file=$RESP.req; shift ;;
		esac
	done
	shift
	test -n "$url" || url=$BASE_URL$path
	if test "$auth" = yes && test -n "$tok"; then
		set -- "$@" -H "Authorization: Bearer $tok"
	fi
	if test -n "$ctype"; then
		set -- "$@" -H "Content-Type: $ctype"
	else
		set -- "$@" -H "Content-Type:"
	fi
	case $method in
	POST|PUT|PATCH)
		test -n "$file" || { : >"$RESP.req"; file=$RESP.req; }
		set -- "$@" --data-binary "@$file" ;;
	esac
	rm -f "$RESP.status" "$RESP.headers" "$RESP.body"
	curl -sS -X "$method" -H 'Accept: application/json, text/event-stream' \
		-H 'Expect:' "$@" -o "$RESP.body" -D "$RESP.headers.raw" \
		-w '%{http_code}' "$url" >"$RESP.status" || {
		echo "curl failed for $method $url"
		return 1
	}
	tr -d '\r' <"$RESP.headers.raw" >"$RESP.headers"
	local status
	read -r status <"$RESP.status" || :
	{ printf '### %s -> %s\n' "$method" "$status"
	  cat "$RESP.headers" "$RESP.body" 2>/dev/null; echo; } >>"$RESPONSES_LOG"
	if test "${TEST_VERBOSE:-}" = 1; then
		echo "> $method $url: $status"
		cat "$RESP.headers" "$RESP.body"
		echo
	fi
	return 0
}

# json_meta [EXTRA_JSON_OBJECT]: the modern per-request _meta object.
json_meta () {
	if test -z "${1:-}"; then
		# the common case, without a jq run: MODERN_VERSION needs no escaping
		printf '{"io.modelcontextprotocol/protocolVersion":"%s","io.modelcontextprotocol/clientCapabilities":{}}\n' \
			"$MODERN_VERSION"
		return
	fi
	jq -nc --arg v "$MODERN_VERSION" --argjson extra "$1" \
		'{"io.modelcontextprotocol/protocolVersion": $v,
		  "io.modelcontextprotocol/clientCapabilities": {}} + $extra'
}

# modern_body METHOD [PARAMS_JSON] [ID]: a modern request body (params gain _meta).
# ID "none" makes a notification.
modern_body () {
	jq -nc --arg m "$1" --argjson p "${2:-$EMPTY_OBJ}" --argjson meta "$(json_meta)" \
		--arg id "${3:-1}" \
		'{jsonrpc: "2.0", method: $m, params: ({_meta: $meta} + $p)}
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# legacy_body METHOD [PARAMS_JSON] [ID]
legacy_body () {
	jq -nc --arg m "$1" --argjson p "${2:-null}" --arg id "${3:-1}" \
		'{jsonrpc: "2.0", method: $m}
		 + (if $p == null then {} else {params: $p} end)
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# mcp_modern METHOD [PARAMS_JSON] [mcp_post options]: a modern request with
# the standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
mcp_modern () {
	local m=$1 p=${2:-$EMPTY_OBJ} name
	shift
	test $# -gt 0 && shift
	name=$(printf '%s' "$p" | jq -r '.name // .uri // empty')
	if test -n "$name"; then
		set -- -H "Mcp-Name: $name" "$@"
	fi
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m" "$@" \
		"$(modern_body "$m" "$p")"
}

# mcp_legacy METHOD [PARAMS_JSON] [mcp_post options]: no _meta, no modern headers.
mcp_legacy () {
	local m=$1 p=${2:-null}
	shift
	test $# -gt 0 && shift
	mcp_post "$@" "$(legacy_body "$m" "$p")"
}

# tool_call NAME ARGS_JSON [mcp_post options]: a modern tools/call, as
# mcp_modern tools/call '{"name":NAME,"arguments":ARGS_JSON}' sends it
# (the body built by one jq run instead of three).
tool_call () {
	local n=$1 a=${2:-$EMPTY_OBJ} body
	shift
	test $# -gt 0 && shift
	body=$(jq -nc --arg n "$n" --argjson a "$a" --argjson meta "$(json_meta)" \
		'{jsonrpc: "2.0", method: "tools/call",
		  params: ({_meta: $meta} + {name: $n, arguments: $a}), id: 1}')
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: tools/call" \
		-H "Mcp-Name: $n" "$@" "$body"
}

# tool_text: prints result.content[0].text of the last response.
tool_text () {
	jq -r '.result.content[0].text' "$RESP.body"
}

# ---------------------------------------------------------------------------
# Assertions on the last response

show_response_ () {
	echo "--- status: $(cat "$RESP.status" 2>/dev/null)"
	cat "$RESP.headers" 2>/dev/null
	echo "--- body:"
	head -c 2000 "$RESP.body" 2>/dev/null
	echo
}

# test_status CODE
test_status () {
	local status=
	read -r status <"$RESP.status" || :
	if test "$status" != "$1"; then
		echo "expected HTTP status $1"
		show_response_
		return 1
	fi
}

# JSON texts that jq -cS prints unchanged (in the C locale).
JSON_SELF_NORMAL_='^(-?(0|[1-9][0-9]*)|true|false|null|"[] !#-[^-~]*")$'

# test_json FILTER EXPECTED: jq -c FILTER on the body equals EXPECTED.
test_json () {
	local actual expect
	actual=$(jq -cS "$1" "$RESP.body" 2>&1)
	# An integer, true, false, null or a plain ASCII string is its own
	# normal form; anything else is normalised by jq.
	if [[ $2 =~ $JSON_SELF_NORMAL_ ]]; then
		expect=$2
	else
		expect=$(printf '%s' "$2" | jq -cS . 2>/dev/null) || expect=$2
	fi
	if test "$actual" != "$expect"; then
		echo "expected $1 == $2, got: $actual"
		show_response_
		return 1
	fi
}

# test_jq FILTER: jq -e FILTER on the body is true.
test_jq () {
	if ! jq -e "$1" "$RESP.body" >/dev/null 2>&1; then
		echo "expected true: $1"
		show_response_
		return 1
	fi
}

# test_text_jq FILTER: the tool result's text parses as JSON and FILTER is true.
test_text_jq () {
	if ! tool_text | jq -e "$1" >/dev/null 2>&1; then
		echo "expected true on the tool text: $1"
		show_response_
		return 1
	fi
}

# test_header NAME REGEX: a header NAME exists and its value matches REGEX.
test_header () {
	local v
	v=$(sed -n "s/^$1: *//Ip" "$RESP.headers" | head -n 1)
	if ! grep -i "^$1:" "$RESP.headers" >/dev/null ||
	   ! printf '%s\n' "$v" | grep -E -- "$2" >/dev/null; then
		echo "expected header $1 matching /$2/"
		show_response_
		return 1
	fi
}

# test_no_header NAME
test_no_header () {
	if grep -i "^$1:" "$RESP.headers" >/dev/null; then
		echo "unexpected header $1"
		show_response_
		return 1
	fi
}

header_value () {
	sed -n "s/^$1: *//Ip" "$RESP.headers" | head -n 1
}

test_body_empty () {
	if test -s "$RESP.body"; then
		echo "expected an empty body"
		show_response_
		return 1
	fi
}

# test_rpc_error STATUS CODE [ID_JSON]: a JSON-RPC error with that HTTP status,
# code and (when given) echoed id.
test_rpc_error () {
	test_status "$1" &&
	test_json .jsonrpc '"2.0"' &&
	test_json .error.code "$2" &&
	test_jq '.error.message | type == "string" and length > 0' &&
	test_jq 'has("result") | not' &&
	if test $# -ge 3; then test_json .id "$3"; fi
}

# test_common_headers: every response carries these.
test_common_headers () {
	test_header Cache-Control 'no-store' &&
	test_header X-Request-Id '^[0-9a-f]{32}$' &&
	test_no_header Mcp-Session-Id
}

# tool_ok TOOL ARGS_JSON [TOKEN]: a successful call (HTTP 200, no isError);
# the tool's text, parsed, goes to out.json.
tool_ok () {
	tool_call "$1" "$2" --token "${3:-$ALICE_TOKEN}" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	tool_text >out.json
}

# tool_error TEXT_REGEX: the last response is an in-band tool error (HTTP
# 200, a result with isError, no JSON-RPC error) whose text matches.
tool_error () {
	test_status 200 &&
	test_json .result.isError true &&
	test_jq "has(\"error\") | not" &&
	tool_text >errtext &&
	grep -E -- "$1" errtext || { echo "error text: $(cat errtext)"; return 1; }
}
