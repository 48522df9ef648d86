#!/bin/bash
# t3200: admission control: a fixed window per account and, for requests
# answered 401, per client address, counted in MariaDB (a MEMORY table) so
# every worker, CGI run and host shares it.
. ./test-lib.sh

start_db
config_set rate_limit 5
config_set rate_window 600
config_set rate_limit_anonymous 3
# the default token cache: sequential requests must still be counted exactly
config_set token_cache_seconds 1
start_server 2
start_nginx
make_user alice
make_user bob
make_user carol
ALICE=$(make_token alice read)
BOB=$(make_token bob read)
CAROL=$(make_token carol read)
ALICE_ID=$(db_sql "SELECT id FROM users WHERE login = 'alice'")
legacy_body ping null 7 >ping.json

# room_in_window SECONDS: waits until at least SECONDS remain in the current
# window, so a run of requests is not split by a window boundary.
room_in_window () {
	local w=$1 need=$2
	while test $((w - $(date +%s) % w)) -lt "$need"; do sleep 1; done
}

too_many () {
	test_rpc_error 429 -32600 "${1:-1}" &&
	test_jq ".error.message | startswith(\"Too Many Requests: \")" &&
	test_header Retry-After "^[0-9]+$" &&
	ra=$(header_value Retry-After) &&
	test "$ra" -ge 1 && test "$ra" -le "${2:-600}" &&
	test_json .error.data.retryAfter "$ra" &&
	test_common_headers
}

room_in_window 600 60

test_expect_success 'an account gets rate_limit requests, counted across workers and a CGI run' '
	for i in 1 2 3; do
		mcp_legacy ping null --token "$ALICE" && test_status 200 || return 1
	done &&
	TOKEN=$ALICE fcgi_request "$FCGI_SOCK" ping.json &&
	test_status 200 &&
	TOKEN=$ALICE cgi_request ping.json &&
	test_status 200 &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'u'"' AND principal = '"'$ALICE_ID'"'")" = 5
'

test_expect_success 'the request over the limit is 429 with Retry-After and a JSON-RPC body' '
	mcp_post --token "$ALICE" "{\"jsonrpc\":\"2.0\",\"id\":\"r-6\",\"method\":\"ping\"}" &&
	too_many "\"r-6\"" &&
	test_jq ".error.message | test(\"5 requests per 600 seconds per account\")" &&
	mcp_modern tools/list "{}" --token "$ALICE" &&
	too_many 1
'

test_expect_success 'the limit holds on every worker and for CGI too' '
	for i in 1 2 3 4; do
		mcp_legacy ping null --token "$ALICE" && test_status 429 || return 1
	done &&
	TOKEN=$ALICE cgi_request ping.json &&
	test_status 429 &&
	test_header Retry-After "^[0-9]+$" &&
	test_json .id 7
'

test_expect_success 'another account is unaffected' '
	mcp_legacy ping null --token "$BOB" &&
	test_status 200 &&
	mcp_modern tools/list "{}" --token "$BOB" &&
	test_status 200
'

test_expect_success 'stdio is not limited' '
	for i in 1 2 3 4 5 6 7; do cat ping.json; echo; done |
		timeout 30 "$FORGEMCP" stdio --token "$ALICE" >stdio.out 2>stdio.err &&
	test "$(jq -s "map(select(.result == {})) | length" stdio.out)" = 7
'

test_expect_success 'without a valid token: 401 up to rate_limit_anonymous per address, then 429' '
	mcp_legacy ping null --no-auth && test_status 401 &&
	mcp_legacy ping null --token "fm_not-a-token-000000000000000000" && test_status 401 &&
	mcp_legacy ping null --no-auth && test_status 401 &&
	mcp_legacy ping null --no-auth &&
	too_many 1 &&
	test_jq ".error.message | test(\"3 requests per 600 seconds per client address\")" &&
	test_no_header WWW-Authenticate &&
	mcp_legacy ping null --token "fm_not-a-token-000000000000000000" &&
	too_many 1 &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'a'"' AND principal = '"'127.0.0.1'"'")" = 5
'

test_expect_success 'another client address has its own anonymous window' '
	TOKEN= cgi_request ping.json REMOTE_ADDR=192.0.2.7 &&
	test_status 401 &&
	mcp_legacy ping null --token "$BOB" &&
	test_status 200
'

test_expect_success 'the first request of a new window purges windows that ended long ago' '
	db_sql "INSERT INTO rate_limits VALUES ('"'u'"', '"'999999'"', 1000, 3), ('"'a'"', '"'198.51.100.1'"', 1200, 9)" &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE window_start < 2000")" = 2 &&
	mcp_legacy ping null --token "$CAROL" &&
	test_status 200 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE window_start < 2000")" = 0 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE principal = '"'$ALICE_ID'"'")" = 1
'

test_expect_success 'the table is ENGINE=MEMORY' '
	test "$(db_sql "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '"'rate_limits'"'")" = MEMORY
'

test_expect_success 'a bad rate_limit, rate_window or rate_limit_anonymous stops start-up naming the key' '
	FORGEMCP_RATE_LIMIT=1000001 test_must_fail fm migrate --status 2>err &&
	grep -F rate_limit err &&
	FORGEMCP_RATE_WINDOW=3601 test_must_fail fm migrate --status 2>err &&
	grep -F rate_window err &&
	FORGEMCP_RATE_LIMIT_ANONYMOUS=many test_must_fail fm migrate --status 2>err &&
	grep -F rate_limit_anonymous err
'

# A 2-second window: the limit resets in the next one and old windows go.
stop_server
config_set rate_limit 2
config_set rate_window 2
config_set rate_limit_anonymous 1
start_fcgi_only 2

# hit_until_429 --token TOKEN | --no-auth: sends four pings back to back on
# one connection (one curl, so a slow machine cannot spread them over two
# 2-second windows), and makes the first one refused the last response
# (test_status and the other assertions read it).  Fails when none was.
hit_until_429 () {
	local auth=() args=() i status
	test "$1" = --token && auth=(-H "Authorization: Bearer $2")
	legacy_body ping null 1 >burst.json
	for i in 1 2 3 4; do
		test $i = 1 || args+=(--next)
		args+=(-sS -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream"
			"${auth[@]}" --data-binary @burst.json -o "$RESP.body.$i" -D "$RESP.headers.raw.$i"
			-w "%{http_code}\n" "$BASE_URL/mcp")
	done
	curl "${args[@]}" >burst.status || return 1
	i=0
	while read -r status; do
		i=$((i + 1))
		if test "$status" = 429; then
			printf '%s' "$status" >"$RESP.status"
			cp "$RESP.body.$i" "$RESP.body"
			tr -d '\r' <"$RESP.headers.raw.$i" >"$RESP.headers"
			return 0
		fi
	done <burst.status
	echo "never refused: $(tr '\n' ' ' <burst.status)"
	return 1
}

test_expect_success 'with rate_window 2 the limit resets in the next window' '
	hit_until_429 --token "$ALICE" &&
	too_many 1 2 &&
	sleep "$(header_value Retry-After)" &&
	mcp_legacy ping null --token "$ALICE" &&
	test_status 200
'

test_expect_success 'the anonymous window resets too' '
	hit_until_429 --no-auth &&
	too_many 1 2 &&
	sleep "$(header_value Retry-After)" &&
	mcp_legacy ping null --no-auth &&
	test_status 401
'

test_expect_success 'rows of windows that ended more than a window ago are purged' '
	sleep 5 &&
	now=$(date +%s) &&
	mcp_legacy ping null --token "$BOB" &&
	test_status 200 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE window_start < $now - 5")" = 0
'

test_expect_success 'when the table cannot be written the request is served (fail open) and logged' '
	db_sql "RENAME TABLE rate_limits TO rate_limits_away" &&
	test_when_finished "db_sql \"RENAME TABLE rate_limits_away TO rate_limits\"" &&
	for i in 1 2 3 4; do
		mcp_legacy ping null --token "$ALICE" && test_status 200 || return 1
	done &&
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	grep -F "rate limit not applied" "$SERVER_LOG"
'

test_done
