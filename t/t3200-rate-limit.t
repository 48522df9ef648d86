#!/bin/bash
# t3200: admission control: a fixed window per account and, for requests
# answered 401, per client network (IPv4 /24, IPv6 /64), counted in
# MariaDB (a MEMORY table of at most rate_limit_buckets buckets) so every
# worker, CGI run and host shares it; a request that cannot be counted is
# refused, never served.
. ./test-lib.sh

start_db
config_set rate_limit 5
config_set rate_window 600
config_set rate_limit_anonymous 3
# the default token cache: sequential requests must still be counted exactly
config_set token_cache_seconds 1
start_server 2
start_nginx
mcp_client_start
make_user alice
make_user bob
make_user carol
ALICE=$(make_token alice read)
BOB=$(make_token bob read)
CAROL=$(make_token carol read)
ALICE_ID=$(db_sql "SELECT id FROM users WHERE login = 'alice'")
legacy_body ping null 7 >ping.json
mapfile -t CGIENV < <(cgi_env_ ping.json)
# flood COUNT FORMAT: COUNT requests without a token straight to the
# FastCGI socket from one process, REMOTE_ADDR from FORMAT (t/lib/fcgi-flood.pl)
flood () {
	perl "$TEST_DIRECTORY/lib/fcgi-flood.pl" "$FCGI_SOCK" ping.json "$1" "$2" "${CGIENV[@]}"
}
ONE_24='198.51.100.%3$d'
ONE_64='2001:db8:5:6::%3$x'

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
		FORGEMCP_TOKEN="$ALICE" timeout 30 "$FORGEMCP" stdio >stdio.out 2>stdio.err &&
	test "$(jq -s "map(select(.result == {})) | length" stdio.out)" = 7
'

test_expect_success 'without a valid token: 401 up to rate_limit_anonymous per network, then 429' '
	mcp_legacy ping null --no-auth && test_status 401 &&
	mcp_legacy ping null --token "fm_not-a-token-000000000000000000" && test_status 401 &&
	mcp_legacy ping null --no-auth && test_status 401 &&
	mcp_legacy ping null --no-auth &&
	too_many 1 &&
	test_jq ".error.message | test(\"3 requests per 600 seconds per client network\")" &&
	test_no_header WWW-Authenticate &&
	mcp_legacy ping null --token "fm_not-a-token-000000000000000000" &&
	too_many 1 &&
	# the count stops at the limit: a refused request is not counted
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'a'"' AND principal = '"'127.0.0.0/24'"'")" = 3
'

test_expect_success 'a client in another network has its own anonymous window' '
	TOKEN= cgi_request ping.json REMOTE_ADDR=192.0.2.7 &&
	test_status 401 &&
	mcp_legacy ping null --token "$BOB" &&
	test_status 200
'

test_expect_success 'the addresses of one IPv4 /24 share one bucket' '
	flood 4 "$ONE_24" >out &&
	printf "401 3\n429 1\n" >expect &&
	sed /^seconds/d out >actual &&
	test_cmp expect actual &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'a'"' AND principal = '"'198.51.100.0/24'"'")" = 3 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=198.51.100.200 &&
	too_many 7 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=198.51.101.1 &&
	test_status 401
'

test_expect_success 'the addresses of one IPv6 /64 share one bucket' '
	flood 4 "$ONE_64" >out &&
	printf "401 3\n429 1\n" >expect &&
	sed /^seconds/d out >actual &&
	test_cmp expect actual &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'a'"' AND principal = '"'2001:db8:5:6::/64'"'")" = 3 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=2001:db8:5:6:ffff:1:2:3 &&
	too_many 7 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=::ffff:198.51.100.9 &&
	too_many 7 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=2001:db8:5:7::1 &&
	test_status 401
'

test_expect_success 'the table is ENGINE=MEMORY' '
	test "$(db_sql "SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '"'rate_limits'"'")" = MEMORY
'

test_expect_success 'a bad rate_limit, rate_window, rate_limit_anonymous or rate_limit_buckets stops start-up naming the key' '
	FORGEMCP_RATE_LIMIT=1000001 test_must_fail fm migrate --status 2>err &&
	grep -F rate_limit err &&
	FORGEMCP_RATE_WINDOW=3601 test_must_fail fm migrate --status 2>err &&
	grep -F rate_window err &&
	FORGEMCP_RATE_LIMIT_ANONYMOUS=many test_must_fail fm migrate --status 2>err &&
	grep -F rate_limit_anonymous err &&
	FORGEMCP_RATE_LIMIT_BUCKETS=15 test_must_fail fm migrate --status 2>err &&
	grep -F "rate_limit_buckets must be a whole number from 16 to 65536" err &&
	FORGEMCP_RATE_LIMIT_BUCKETS=65537 test_must_fail fm migrate --status 2>err &&
	grep -F rate_limit_buckets err &&
	FORGEMCP_RATE_LIMIT_BUCKETS=16 fm migrate --status
'

# A 2-second window: the limit resets in the next one and old windows go.
stop_server
config_set rate_limit 2
config_set rate_window 2
config_set rate_limit_anonymous 1
start_fcgi_only 2

# hit_until_429 --token TOKEN | --no-auth: sends four pings back to back on
# one connection (one curl, so a slow machine cannot spread them over two
# 2-second windows) and makes the last one, which must be refused, the last
# response (test_status and the other assertions read it).  The last, not
# the first refused: when a window ends during the burst, an earlier 429's
# Retry-After points at a window the later pings already counted in.  A
# burst whose last ping was served (it opened a new window) is sent again,
# at most three times.
hit_until_429 () {
	local auth=() args=() i try last
	test "$1" = --token && auth=(-H "Authorization: Bearer $2")
	legacy_body ping null 1 >burst.json
	for i in 1 2 3 4; do
		test $i = 1 || args+=(--next)
		args+=(-sS -H "Content-Type: application/json" -H "Accept: application/json, text/event-stream"
			"${auth[@]}" --data-binary @burst.json -o "$RESP.body.$i" -D "$RESP.headers.raw.$i"
			-w "%{http_code}\n" "$BASE_URL/mcp")
	done
	for try in 1 2 3; do
		curl "${args[@]}" >burst.status || return 1
		last=$(tail -n 1 burst.status)
		if test "$last" = 429; then
			printf '%s' "$last" >"$RESP.status"
			cp "$RESP.body.4" "$RESP.body"
			tr -d '\r' <"$RESP.headers.raw.4" >"$RESP.headers"
			return 0
		fi
	done
	echo "the last ping of three bursts was never refused: $(tr '\n' ' ' <burst.status)"
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

test_expect_success 'when the table cannot be written nothing is served: 503, with a token or without' '
	db_sql "RENAME TABLE rate_limits TO rate_limits_away" &&
	test_when_finished "db_sql \"RENAME TABLE rate_limits_away TO rate_limits\"" &&
	for i in 1 2 3; do
		mcp_legacy ping null --token "$CAROL" &&
		test_rpc_error 503 -32603 1 &&
		test_header Retry-After "^1$" || return 1
	done &&
	mcp_legacy ping null --no-auth &&
	test_rpc_error 503 -32603 1 &&
	test_header Retry-After "^1$" &&
	mcp_legacy ping null --token "fm_not-a-token-000000000000000000" &&
	test_rpc_error 503 -32603 1 &&
	grep -F "rate limit not kept (request refused)" "$SERVER_LOG" &&
	test_must_fail grep -F "rate limit not applied" "$SERVER_LOG"
'

# ---- a flood from many networks turns no limit off -----------------------
# rate_limit_buckets 1024, and requests without a token from 5,000
# networks.  The MEMORY table is also made smaller than MariaDB's default
# (room for about 2,500 of 004's rows), as 140,000 addresses fill a default
# one: a limiter that serves what it cannot count would show it here.
stop_server
config_set rate_limit 5
config_set rate_window 3600
config_set rate_limit_anonymous 3
config_set rate_limit_buckets 1024
start_fcgi_only 2
make_user dave
DAVE=$(make_token dave read)
DAVE_ID=$(db_sql "SELECT id FROM users WHERE login = 'dave'")
SPREAD='10.%2$d.%3$d.9'
db_sql "DELETE FROM rate_limits; SET SESSION max_heap_table_size = 393216; ALTER TABLE rate_limits ENGINE=MEMORY"
room_in_window 3600 120
WINDOW=$(( $(date +%s) / 3600 * 3600 ))

test_expect_success 'requests without a token from 5,000 /24s: 401 while there are buckets, then 429' '
	flood 5000 "$SPREAD" >out &&
	note "$(tr "\n" " " <out)" &&
	printf "401 1024\n429 3976\n" >expect &&
	sed /^seconds/d out >actual &&
	test_cmp expect actual &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits")" = 1024 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=172.16.9.9 &&
	too_many 7 3600 &&
	test_jq ".error.message | test(\"every rate limit bucket is in use\")" &&
	test_no_header WWW-Authenticate &&
	grep -F "no rate limit bucket is free (rate_limit_buckets is 1024)" "$SERVER_LOG"
'

test_expect_success 'a fresh account is still held to rate_limit: it takes a network'"'"'s bucket' '
	for i in 1 2 3 4 5; do
		mcp_legacy ping null --token "$DAVE" && test_status 200 || return 1
	done &&
	mcp_legacy ping null --token "$DAVE" &&
	too_many 1 3600 &&
	test_jq ".error.message | test(\"5 requests per 3600 seconds per account\")" &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'u'"' AND principal = '"'$DAVE_ID'"'")" = 5 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE kind = '"'a'"'")" = 1023
'

test_expect_success 'a network that has a bucket is still counted in it' '
	TOKEN= cgi_request ping.json REMOTE_ADDR=10.0.200.1 &&
	test_status 401 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=10.0.200.2 &&
	test_status 401 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=10.0.200.3 &&
	too_many 7 3600 &&
	test_jq ".error.message | test(\"3 requests per 3600 seconds per client network\")"
'

test_expect_success 'buckets of an ended window go first when a new one is needed' '
	db_sql "UPDATE rate_limits SET window_start = $WINDOW - 7200 WHERE kind = '"'a'"' AND principal LIKE '"'10.1.%'"'" &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE window_start < $WINDOW")" = 256 &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=172.16.9.9 &&
	test_status 401 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE window_start < $WINDOW")" = 0 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits")" = $((1024 - 256 + 1)) &&
	flood 256 "10.200.%3\$d.9" >out &&
	printf "401 255\n429 1\n" >expect &&
	sed /^seconds/d out >actual &&
	test_cmp expect actual &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits")" = 1024
'

test_expect_success 'with every bucket an active account'"'"'s, a new account gets 429, not service' '
	db_sql "DELETE FROM rate_limits WHERE kind = '"'a'"'" &&
	db_sql "INSERT INTO rate_limits SELECT '"'u'"', CONCAT('"'other-'"', seq), $WINDOW, 1, 0
		FROM seq_1_to_1023" &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits")" = 1024 &&
	make_user erin &&
	ERIN=$(make_token erin read) &&
	for i in 1 2 3; do
		mcp_legacy ping null --token "$ERIN" &&
		too_many 1 3600 &&
		test_jq ".error.message | test(\"every rate limit bucket is in use\")" || return 1
	done &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE kind = '"'u'"' AND principal = (SELECT id FROM users WHERE login = '"'erin'"')")" = 0 &&
	mcp_legacy ping null --token "$DAVE" &&
	too_many 1 3600 &&
	test_jq ".error.message | test(\"per account\")" &&
	mcp_legacy ping null --no-auth &&
	too_many 1 3600 &&
	test_jq ".error.message | test(\"every rate limit bucket is in use\")"
'

test_done
