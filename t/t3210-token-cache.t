#!/bin/bash
# t3210: a worker's token cache (token_cache_seconds) and the account limit
# counted in blocks: revocation reaches every worker within the cache's
# lifetime, a burst across workers never gets more than rate_limit answers
# and, once the workers gave back what they held, exactly rate_limit in the
# window, and rate_limit = 0 turns the limit off.
. ./test-lib.sh

start_db
config_set token_cache_seconds 2
config_set rate_limit 200
config_set rate_window 600
start_server 2
start_nginx
make_user alice
make_user bob
ALICE=$(make_token alice read)
BOB=$(make_token bob read)
BOB_ID=$(db_sql "SELECT id FROM users WHERE login = 'bob'")
legacy_body ping null 7 >ping.json

# burst TOKEN N [BODY]: N POSTs of BODY (default ping.json), 16 at a time
# on 16 connections of one curl (--parallel), not a curl process each;
# prints one HTTP status per line.
burst () {
	local i
	for i in $(seq "$2"); do
		printf 'url = "%s/mcp"\noutput = "/dev/null"\n' "$BASE_URL"
	done >burst.cfg &&
	curl -s --parallel --parallel-immediate --parallel-max 16 -w '%{http_code}\n' \
		-H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
		-H 'Accept: application/json, text/event-stream' \
		--data-binary @"${3:-ping.json}" -K burst.cfg
}

room_in_window () {
	local w=$1 need=$2
	while test $((w - $(date +%s) % w)) -lt "$need"; do sleep 1; done
}
room_in_window 600 120

test_expect_success 'a token served from the cache answers as a looked-up one' '
	for i in 1 2 3 4 5 6; do
		mcp_legacy ping null --token "$ALICE" && test_status 200 || return 1
	done
'

test_expect_success 'a revoked token is refused by every worker once token_cache_seconds pass' '
	id=$(db_sql "SELECT t.id FROM tokens t JOIN users u ON u.id = t.user_id WHERE u.login = '"'alice'"'") &&
	fm token revoke "$id" &&
	sleep 2.3 &&
	for i in 1 2 3 4 5 6 7 8; do
		mcp_legacy ping null --token "$ALICE" && test_status 401 || return 1
	done
'

test_expect_success 'a burst of 400 requests across 2 workers gets at most rate_limit (200) answers' '
	burst "$BOB" 400 >codes &&
	test "$(wc -l <codes)" = 400 &&
	ok=$(grep -c "^200$" codes) &&
	over=$(grep -c "^429$" codes) &&
	say "burst: $ok answered, $over refused" &&
	test $((ok + over)) = 400 &&
	test "$ok" -le 200 &&
	echo "$ok" >burst-ok &&
	n=$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'u'"' AND principal = '"'$BOB_ID'"'") &&
	test "$n" -ge "$ok" && test "$n" -le 200
'

test_expect_success 'requests a worker held come back once it is idle: exactly rate_limit (200) answered in the window' '
	sleep 2 &&
	until_refused tail-ok mcp_legacy ping null --token "$BOB" && more=$(cat tail-ok) &&
	say "after the burst: $more more answered" &&
	test $(( $(cat burst-ok) + more )) = 200 &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = '"'u'"' AND principal = '"'$BOB_ID'"'")" = 200
'

test_expect_success 'a request after that is refused with 429' '
	mcp_legacy ping null --token "$BOB" &&
	test_status 429 &&
	test_header Retry-After "^[0-9]+$"
'

test_expect_success 'a burst of 40 batches of 10 calls gets at most rate_limit (200) calls answered' '
	make_user dora &&
	DORA=$(make_token dora read) &&
	perl -e "print q([), join(q(,), map { qq({\"jsonrpc\":\"2.0\",\"id\":\$_,\"method\":\"ping\"}) } 1..10), q(])" >batch.json &&
	burst "$DORA" 40 batch.json >codes &&
	ok=$(grep -c "^200$" codes) &&
	over=$(grep -c "^429$" codes) &&
	say "batches: $ok answered, $over refused" &&
	test $((ok + over)) = 40 &&
	test $((ok * 10)) -le 200 &&
	test "$ok" -ge 10 &&
	echo "$ok" >batches-ok
'

test_expect_success 'the calls of refused batches come back too: exactly 200 calls answered in the window' '
	sleep 2 &&
	until_refused tail-ok mcp_legacy ping null --token "$DORA" && more=$(cat tail-ok) &&
	say "after the batches: $more more answered" &&
	test $(( $(cat batches-ok) * 10 + more )) = 200
'

# erin_count N: erin's count in the window is N (the give-back, a second
# or so after the worker's last request, is waited for, not slept)
erin_count () {
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = 'u' AND principal = '$ERIN_ID'")" = "$1"
}

test_expect_success 'a batch refused for want of room gives back what it was granted' '
	make_user erin &&
	ERIN=$(make_token erin read) &&
	ERIN_ID=$(db_sql "SELECT id FROM users WHERE login = '"'erin'"'") &&
	for i in $(seq 19); do
		mcp_post --token "$ERIN" --file batch.json && test_status 200 || return 1
	done &&
	for i in 1 2 3 4 5; do
		mcp_legacy ping null --token "$ERIN" && test_status 200 || return 1
	done &&
	mcp_post --token "$ERIN" --file batch.json &&
	test_status 429 &&
	wait_for 10 erin_count 195 &&
	for i in 1 2 3 4 5; do
		mcp_legacy ping null --token "$ERIN" && test_status 200 || return 1
	done &&
	mcp_legacy ping null --token "$ERIN" &&
	test_status 429
'

test_expect_success 'every count was kept: nothing refused for want of a bucket or a write' '
	grep -c -e "rate limit not kept" -e "no rate limit bucket is free" \
		-e "token check failed" "$SERVER_LOG" >count || :;
	test "$(cat count)" = 0
'

stop_server
config_set rate_limit 0
config_set token_cache_seconds 0
start_server 2
CAROL=$(make_user carol && make_token carol read)
CAROL_ID=$(db_sql "SELECT id FROM users WHERE login = 'carol'")

test_expect_success 'rate_limit = 0 turns the account limit off: nothing is counted' '
	burst "$CAROL" 60 >codes &&
	test "$(grep -c "^200$" codes)" = 60 &&
	test "$(db_sql "SELECT COUNT(*) FROM rate_limits WHERE kind = '"'u'"' AND principal = '"'$CAROL_ID'"'")" = 0
'

test_expect_success 'token_cache_seconds = 0: a revoked token is refused at once' '
	mcp_legacy ping null --token "$CAROL" && test_status 200 &&
	id=$(db_sql "SELECT t.id FROM tokens t JOIN users u ON u.id = t.user_id WHERE u.login = '"'carol'"'") &&
	fm token revoke "$id" &&
	for i in 1 2 3 4; do
		mcp_legacy ping null --token "$CAROL" && test_status 401 || return 1
	done
'

test_expect_success 'token_cache_seconds above 60 stops start-up naming the key' '
	FORGEMCP_TOKEN_CACHE_SECONDS=61 test_must_fail fm migrate --status 2>err &&
	grep -F token_cache_seconds err
'

test_done
