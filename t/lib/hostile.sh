# hostile.sh: helpers of the hostile-input scripts (t7000-t7499), sourced
# after test-lib.sh.
#
# A script starts the stack with a fixed number of FastCGI workers
# (start_all "$HOSTILE_WORKERS"), records their pids (workers_record) and
# groups its requests in families: family_begin NAME, the tests, family_end.
# family_end adds one test asserting that the workers are the very processes
# recorded at the start (no crash, no restart by the master) and puts the
# family's request count in its title.
#
# The request helpers are built for hundreds of cases: one keep-alive HTTP
# client process for the whole script (hclient_start), and the answer
# checked by the shell itself (no jq), on the compact JSON the server
# writes.  Each leaves the HTTP status in STATUS and the body in BODY
# (jq_body runs jq on it); no file is written per request.
#
# Licensed under the ISC license, see LICENSE.

HOSTILE_WORKERS=2
FAMILY=
FAMILY_N=0
HOSTILE_TOTAL=0
HOSTILE_SUMMARY=

# workers_now: the pids of the master's children, sorted, on one line.
workers_now () {
	pgrep -P "$SERVER_PID" | sort -n | tr '\n' ' ' | sed 's/ $//'
}

# workers_record: notes the workers' pids; fails unless exactly
# $HOSTILE_WORKERS of them run.
workers_record () {
	WORKERS_START=$(workers_now)
	set -- $WORKERS_START
	test "$#" = "$HOSTILE_WORKERS"
}

# workers_unchanged: the workers are the ones recorded, and the master
# logged no worker death.
workers_unchanged () {
	local now
	now=$(workers_now)
	if test "$now" != "$WORKERS_START"; then
		echo "the workers were: $WORKERS_START; now: $now"
		return 1
	fi
	if grep -E 'worker [0-9]+ (died|exited)' "$SERVER_LOG"; then
		echo "the master replaced a worker"
		return 1
	fi
}

family_begin () {
	FAMILY=$1
	FAMILY_N=0
}

# family_end: the survival test closing a family, with its request count.
family_end () {
	test_expect_success "$FAMILY: $FAMILY_N requests answered; the $HOSTILE_WORKERS workers kept their pids" '
		workers_unchanged
	'
	HOSTILE_TOTAL=$((HOSTILE_TOTAL + FAMILY_N))
	HOSTILE_SUMMARY="$HOSTILE_SUMMARY$FAMILY: $FAMILY_N
"
}

# hostile_summary MIN: says the count of each family and the total, and
# tests that the total reached MIN.
hostile_summary () {
	local line
	while IFS= read -r line; do
		test -n "$line" && say "$line"
	done <<<"$HOSTILE_SUMMARY"
	say "total: $HOSTILE_TOTAL requests"
	C_MIN=$1
	test_expect_success "$HOSTILE_TOTAL requests in all, each answer asserted" '
		test "$HOSTILE_TOTAL" -ge "$C_MIN"
	'
}

# count_request: counts one request sent outside hpost (raw sockets, cgi-fcgi).
count_request () {
	FAMILY_N=$((FAMILY_N + 1))
}

# load_response_: STATUS and BODY from $RESP.status and $RESP.body (the
# answers of curl, raw-http.pl and cgi-fcgi).
load_response_ () {
	STATUS=
	BODY=
	read -r STATUS <"$RESP.status"
	IFS= read -r -d '' BODY <"$RESP.body"
	log_response_
}

log_response_ () {
	if test -n "${RESPONSES_LOG:-}"; then
		printf '### POST -> %s\n%s\n' "$STATUS" "$BODY" >>"$RESPONSES_LOG"
	fi
	return 0
}

# jq_body ARGS...: jq on the last answer's body.
jq_body () {
	jq "$@" <<<"$BODY"
}

# hclient_start: starts the keep-alive HTTP client (t/lib/http-client.pl)
# as a coprocess; hpost sends through it, so that hundreds of requests do
# not cost a curl process each.  Call it once, after start_all.
hclient_start () {
	coproc HCLIENT { exec perl "$TEST_DIRECTORY/lib/http-client.pl" 127.0.0.1 "$HTTP_PORT" /mcp \
		2>>"$TRASH/http-client.stderr"; }
	test_register_pid "$HCLIENT_PID"
}

# hclient_ SOURCE TEXT [-H 'Name: value']...: one exchange with the client;
# SOURCE is a body file, or "=N" with the N bytes of TEXT as the body.
hclient_ () {
	local src=$1 text=$2 line len
	shift 2
	count_request
	line="$src	Authorization: Bearer ${HTOKEN:-$TOKEN}	Content-Type: application/json	Accept: application/json, text/event-stream"
	while test $# -gt 0; do
		case $1 in
		-H) line="$line	$2"; shift 2 ;;
		*) echo "hpost: unknown option $1"; return 1 ;;
		esac
	done
	printf '%s\n%s' "$line" "$text" >&"${HCLIENT[1]}" || { echo "the HTTP client is gone"; return 1; }
	STATUS=
	BODY=
	read -r STATUS len <&"${HCLIENT[0]}" || { echo "the HTTP client is gone"; return 1; }
	if test "${len:-0}" -gt 0; then
		IFS= read -r -N "$len" BODY <&"${HCLIENT[0]}" || { echo "short answer"; return 1; }
	fi
	log_response_
}

# hpost FILE [-H 'Name: value']...: POSTs FILE to /mcp through nginx with
# the test token (HTOKEN, default $TOKEN) and Content-Type: application/json.
hpost () {
	local f=$1
	shift
	hclient_ "$f" "" "$@"
}

# hpost_str TEXT [-H 'Name: value']...: hpost with TEXT as the body.
hpost_str () {
	local t=$1
	shift
	hclient_ "=${#t}" "$t" "$@"
}

# hpost_curl FILE [curl options]: hpost with curl, for what the keep-alive
# client does not send (a chunked body).
hpost_curl () {
	local f=$1
	shift
	count_request
	rm -f "$RESP.status" "$RESP.body"
	curl -sS -o "$RESP.body" -w '%{http_code}' -H "Authorization: Bearer ${HTOKEN:-$TOKEN}" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		-H 'Expect:' "$@" --data-binary "@$f" "$BASE_URL/mcp" >"$RESP.status" || {
		echo "curl failed"
		return 1
	}
	load_response_
}

# hpost_modern FILE METHOD [NAME]: hpost with the 2026-07-28 headers
# (MCP-Protocol-Version, Mcp-Method and, when given, Mcp-Name).
hpost_modern () {
	local f=$1 m=$2 n=${3:-}
	if test -n "$n"; then
		hpost "$f" -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m" -H "Mcp-Name: $n"
	else
		hpost "$f" -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m"
	fi
}

# hpost_str_modern TEXT METHOD [NAME]: the same with TEXT as the body.
hpost_str_modern () {
	local t=$1 m=$2 n=${3:-}
	if test -n "$n"; then
		hpost_str "$t" -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m" -H "Mcp-Name: $n"
	else
		hpost_str "$t" -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m"
	fi
}

HOSTILE_META="\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"$MODERN_VERSION\",\"io.modelcontextprotocol/clientCapabilities\":{}}"

# call_modern NAME ARGS_JSON [ID_JSON]: a 2026-07-28 tools/call of tool NAME.
call_modern () {
	hpost_str_modern "{\"jsonrpc\":\"2.0\",\"id\":${3:-1},\"method\":\"tools/call\",\"params\":{$HOSTILE_META,\"name\":\"$1\",\"arguments\":$2}}" \
		tools/call "$1"
}

# call_legacy NAME ARGS_JSON [ID_JSON]: the same call without _meta or MCP headers.
call_legacy () {
	hpost_str "{\"jsonrpc\":\"2.0\",\"id\":${3:-1},\"method\":\"tools/call\",\"params\":{\"name\":\"$1\",\"arguments\":$2}}"
}

show_ () {
	echo "$*"
	echo "--- HTTP $STATUS, body:"
	printf '%s\n' "${BODY:0:2000}"
	return 1
}

# json_string_at_ KEY: the raw (still escaped) text of the first "KEY":"..."
# member of BODY, into JSTR; fails when there is none.
json_string_at_ () {
	local re="\"$1\":\"(([^\"\\\\]|\\\\.)*)\""
	JSTR=
	[[ $BODY =~ $re ]] || return 1
	JSTR=${BASH_REMATCH[1]}
}

# expect_rpc_error STATUS CODE MESSAGE_ERE [ID_JSON]: the answer is a JSON-RPC
# error with that HTTP status and code, no result, a message matching the
# extended regular expression (on its JSON-escaped text) and, when given,
# that id echoed.
expect_rpc_error () {
	local st=$1 code=$2 re=$3 id=${4:-}
	test "$STATUS" = "$st" || show_ "expected HTTP $st" || return 1
	[[ $BODY == '{"jsonrpc":"2.0",'* ]] || show_ "expected a JSON-RPC 2.0 object" || return 1
	[[ $BODY == *'"error":{"code":'"$code"[,}]* ]] || show_ "expected error code $code" || return 1
	[[ $BODY != *'"result":'* ]] || show_ "an error must not carry a result" || return 1
	json_string_at_ message || show_ "expected an error message" || return 1
	[[ $JSTR =~ $re ]] || show_ "expected the message to match /$re/" || return 1
	if test -n "$id"; then
		[[ $BODY == *'"id":'"$id"[,}]* ]] || show_ "expected the id $id echoed" || return 1
	fi
	return 0
}

# expect_tool_error TEXT_ERE: HTTP 200, a result with isError true whose
# first text matches TEXT_ERE (JSON-escaped text), no JSON-RPC error.
expect_tool_error () {
	test "$STATUS" = 200 || show_ "expected HTTP 200" || return 1
	[[ $BODY == '{"jsonrpc":"2.0",'* ]] || show_ "expected a JSON-RPC 2.0 object" || return 1
	[[ $BODY == *'"result":{'* ]] || show_ "expected a result" || return 1
	[[ $BODY == *'"isError":true'* ]] || show_ "expected isError true" || return 1
	[[ $BODY != *'"error":{"code"'* ]] || show_ "expected no JSON-RPC error" || return 1
	json_string_at_ text || show_ "expected a text content block" || return 1
	[[ $JSTR =~ $1 ]] || show_ "expected the tool text to match /$1/" || return 1
	return 0
}

# expect_tool_ok: HTTP 200, a result that is not a tool error.
expect_tool_ok () {
	test "$STATUS" = 200 || show_ "expected HTTP 200" || return 1
	[[ $BODY == '{"jsonrpc":"2.0",'* ]] || show_ "expected a JSON-RPC 2.0 object" || return 1
	[[ $BODY == *'"result":{'* ]] || show_ "expected a result" || return 1
	[[ $BODY != *'"isError":true'* ]] || show_ "expected a tool success" || return 1
	return 0
}

# expect_result STATUS [ID_JSON]: a JSON-RPC result (not an error) with that id.
expect_result () {
	test "$STATUS" = "$1" || show_ "expected HTTP $1" || return 1
	[[ $BODY == '{"jsonrpc":"2.0",'* ]] || show_ "expected a JSON-RPC 2.0 object" || return 1
	[[ $BODY == *'"result":'* ]] || show_ "expected a result" || return 1
	[[ $BODY != *'"error":{"code"'* ]] || show_ "expected no error" || return 1
	if test -n "${2:-}"; then
		[[ $BODY == *'"id":'"$2"','* ]] || show_ "expected the id $2 echoed" || return 1
	fi
	return 0
}

# ---------------------------------------------------------------------------
# Raw requests for what curl will not send (t/lib/raw-http.pl)

# raw_request [-H LINE]... [--no-auth] [--no-ctype] [--cl N] [--keep-alive]
#             BODYFILE: writes a raw HTTP/1.1 POST of BODYFILE to $RESP.rawreq.
# LINE is written as given, then CR LF (it may hold CR, LF or NUL bytes
# written with printf escapes by the caller).  --cl sets Content-Length
# (default: the body's size); without --keep-alive the request asks for
# Connection: close.
raw_request () {
	local auth=yes ctype=yes cl= conn=close l
	local -a extra=()
	while test $# -gt 1; do
		case $1 in
		-H) extra+=("$2"); shift 2 ;;
		--no-auth) auth=no; shift ;;
		--no-ctype) ctype=no; shift ;;
		--cl) cl=$2; shift 2 ;;
		--keep-alive) conn=keep-alive; shift ;;
		*) echo "raw_request: unknown option $1"; return 1 ;;
		esac
	done
	test -n "$cl" || cl=$(wc -c <"$1")
	{
		printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: %s\r\n' "$HTTP_PORT" "$conn"
		printf 'Accept: application/json, text/event-stream\r\n'
		if test $auth = yes; then printf 'Authorization: Bearer %s\r\n' "${HTOKEN:-$TOKEN}"; fi
		if test $ctype = yes; then printf 'Content-Type: application/json\r\n'; fi
		for l in "${extra[@]}"; do printf '%s\r\n' "$l"; done
		printf 'Content-Length: %s\r\n\r\n' "$cl"
		cat "$1"
	} >"$RESP.rawreq"
}

# raw_send [raw-http.pl options]: sends $RESP.rawreq to nginx; the first
# answer is loaded like hpost's (STATUS, BODY); RAW_END, RAW_TIME and
# $RESP.rest describe the rest of the exchange.
raw_send () {
	count_request
	perl "$TEST_DIRECTORY/lib/raw-http.pl" "$@" "$HTTP_PORT" "$RESP.rawreq" "$RESP" || return 1
	read -r RAW_END <"$RESP.end"
	read -r RAW_TIME <"$RESP.time"
	load_response_
}

# expect_not_served: the answer, if any, is not a JSON-RPC result.
expect_not_served () {
	[[ $BODY != *'"result":'* ]] || show_ "the request must not be served" || return 1
}
