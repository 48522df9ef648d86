#!/bin/bash
# t9110: one account holds at most account_concurrency of the workers of
# forgemcp fcgi --workers; its next request is refused at once (429 with
# Retry-After: 1) while other accounts are served; the last free worker goes
# only to an account that holds none, so two accounts flooding together
# leave it to a third; and the place of a worker that dies is given back.  Calls are held busy with the pause hook of
# --enable-debug builds (FORGEMCP_PAUSE_TOOL, FORGEMCP_PAUSE_FILE).
. ./test-lib.sh

test_have_prereq DEBUG_HOOKS || skip_all "$TEST_PREREQ_WHY_DEBUG_HOOKS"
# This script kills a worker with SIGKILL on purpose.
TEST_ALLOW_SIGKILL=1

PAUSE=$TRASH/pause
FORGEMCP_PAUSE_TOOL=get_user
FORGEMCP_PAUSE_FILE=$PAUSE
export FORGEMCP_PAUSE_TOOL FORGEMCP_PAUSE_FILE

start_db
config_unset account_concurrency
start_server 4
start_nginx
mcp_client_start
make_user alice
make_user bob
make_user carol
ALICE=$(make_token alice read)
BOB=$(make_token bob read)
CAROL=$(make_token carol read)

# held N: the number of calls waiting in the pause hook so far.
held () {
	grep -c "FORGEMCP_PAUSE_TOOL=get_user: waiting" "$SERVER_LOG" || :
}

# hold NAME [TOKEN]: a get_user of alice (or of TOKEN's account) in the
# background, its answer in NAME.*
hold () {
	curl -sS -o "$1.body" -w '%{http_code}' -H "Authorization: Bearer ${2:-$ALICE}" \
		-H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
		--data-binary "$(legacy_body tools/call '{"name":"get_user","arguments":{}}')" \
		"$BASE_URL/mcp" >"$1.status" &
}

test_expect_success 'by default one account may hold half of the 4 workers' '
	grep "serving with 4 workers, at most 2 per account" "$SERVER_LOG"
'

test_expect_success 'two of alice'\''s calls hold two workers' '
	touch "$PAUSE" &&
	before=$(held) &&
	hold a1 && A1=$! && hold a2 && A2=$! &&
	wait_for 20 eval "test \$(held) -ge \$((before + 2))"
'

test_expect_success 'alice'\''s third request is refused at once with 429 and Retry-After: 1' '
	mcp_legacy ping null --token "$ALICE" &&
	test_status 429 &&
	grep -ix "retry-after: 1" "$RESP.headers" &&
	test_json .error.code -32600 &&
	test_json .error.data.concurrency 2 &&
	jq -r .error.message "$RESP.body" | grep "already has 2 requests in progress" &&
	jq -r .error.message "$RESP.body" | grep account_concurrency
'

test_expect_success 'bob is served while alice holds her two workers' '
	mcp_legacy tools/list null --token "$BOB" &&
	test_status 200 &&
	test "$(jq ".result.tools | length" "$RESP.body")" -gt 10
'

test_expect_success 'alice'\''s held calls are answered once let go, and she is served again' '
	rm -f "$PAUSE" &&
	wait "$A1" && wait "$A2" &&
	test "$(cat a1.status)" = 200 && test "$(cat a2.status)" = 200 &&
	jq -e ".result.isError != true and (.result.content[0].text | contains(\"alice\"))" a1.body &&
	mcp_legacy ping null --token "$ALICE" &&
	test_status 200
'

test_expect_success 'with alice on two workers and carol on one, carol'\''s next request may not take the last' '
	touch "$PAUSE" &&
	before=$(held) &&
	hold c1 && C1=$! && hold c2 && C2=$! && hold c3 "$CAROL" && C3=$! &&
	wait_for 20 eval "test \$(held) -ge \$((before + 3))" &&
	mcp_legacy ping null --token "$CAROL" &&
	test_status 429 &&
	grep -ix "retry-after: 1" "$RESP.headers" &&
	test_json .error.code -32600 &&
	jq -r .error.message "$RESP.body" | grep "the last free worker is kept for other accounts" &&
	mcp_legacy ping null --token "$ALICE" &&
	test_status 429 &&
	jq -r .error.message "$RESP.body" | grep "already has 2 requests in progress"
'

test_expect_success 'the last worker serves bob, who holds none' '
	mcp_legacy tools/list null --token "$BOB" &&
	test_status 200 &&
	test "$(jq ".result.tools | length" "$RESP.body")" -gt 10 &&
	rm -f "$PAUSE" &&
	wait "$C1" && wait "$C2" && wait "$C3" &&
	test "$(cat c1.status)" = 200 && test "$(cat c2.status)" = 200 && test "$(cat c3.status)" = 200 &&
	mcp_legacy ping null --token "$CAROL" &&
	test_status 200
'

test_expect_success 'a worker killed while it held alice'\''s call gives its place back' '
	touch "$PAUSE" &&
	before=$(held) &&
	hold k1 && K1=$! && hold k2 && K2=$! &&
	wait_for 20 eval "test \$(held) -ge \$((before + 2))" &&
	victim=$(grep "FORGEMCP_PAUSE_TOOL=get_user: waiting" "$SERVER_LOG" | tail -n 1 |
		sed -E "s/^[^[]*\\[([0-9]+)\\].*/\\1/") &&
	test -n "$victim" && kill -0 "$victim" &&
	kill -KILL "$victim" &&
	wait_for 10 eval "! kill -0 $victim 2>/dev/null" &&
	wait_for 10 eval "test \"\$(pgrep -P $SERVER_PID | wc -l)\" = 4" &&
	mcp_legacy ping null --token "$ALICE" &&
	test_status 200 &&
	rm -f "$PAUSE" &&
	{ wait "$K1"; wait "$K2"; true; }
'

test_expect_success 'account_concurrency = 1 allows one call per account' '
	stop_server &&
	config_set account_concurrency 1 &&
	start_fcgi_only 4 &&
	grep "serving with 4 workers, at most 1 per account" "$SERVER_LOG" &&
	touch "$PAUSE" &&
	before=$(held) &&
	hold b1 && B1=$! &&
	wait_for 20 eval "test \$(held) -ge \$((before + 1))" &&
	mcp_legacy ping null --token "$ALICE" &&
	test_status 429 &&
	mcp_legacy ping null --token "$BOB" &&
	test_status 200 &&
	rm -f "$PAUSE" &&
	wait "$B1" && test "$(cat b1.status)" = 200
'

stop_all
test_done
