#!/bin/bash
# t8000: MariaDB goes away under load (a clean shutdown, then a crash) and
# comes back.  Every answer meanwhile is a 200 result or a clean 503 with
# Retry-After and a JSON-RPC error -- also for a request whose tool was
# inside a query when the database went -- no worker dies, service resumes
# within a second of the database accepting connections, and every write
# that was acknowledged is in the database exactly once.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/faults.sh"

# Every acknowledged commit must survive the crash round: flush the redo log
# at each commit (the suite's default trades that for speed).
DB_OPTS=$(printf '%s\n' "$DB_OPTS" | sed 's/--innodb-flush-log-at-trx-commit=0/--innodb-flush-log-at-trx-commit=1/')

start_all 4
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
R=alice/fixture

# bodies PREFIX: a mix of reads and writes, both eras; new issues are titled
# "PREFIX <conn>-<seq>".
bodies () {
	legacy_body tools/list
	legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}"
	modern_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"$1 @SEQ@\"}}"
	legacy_body tools/call "{\"name\":\"get_issue\",\"arguments\":{\"repo\":\"$R\",\"number\":1}}"
	modern_body tools/list
	legacy_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"$1 @SEQ@\"}}"
	legacy_body tools/call "{\"name\":\"get_file_contents\",\"arguments\":{\"repo\":\"$R\",\"path\":\"README.md\"}}"
}

# in_background NAME CMD...: runs a request helper with its own $RESP;
# BG_PIDS collects the pids.
BG_PIDS=
in_background () {
	local name=$1
	shift
	( RESP=$TRASH/$name; "$@" ) >"$name.out" 2>&1 &
	BG_PIDS="$BG_PIDS $!"
}

# locker_sleeps: the session holding the table lock is in its SLEEP.
locker_sleeps () {
	test "$(db_sql "SELECT COUNT(*) FROM information_schema.processlist
		WHERE id <> CONNECTION_ID() AND command = 'Query' AND info LIKE '%SLEEP(120)%'")" = 1
}

# waiting_for_lock N: N queries wait for a table lock.
waiting_for_lock () {
	test "$(db_sql "SELECT COUNT(*) FROM information_schema.processlist
		WHERE state LIKE 'Waiting for table%lock'")" = "$1"
}

# A token no worker has seen: its check must reach the database (a worker
# may answer a token it checked a moment ago without asking again).
FRESH_TOKEN=$(make_token alice read)

test_expect_success 'set-up: issue #1 exists, 4 workers run' '
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"the first\"}" &&
	test_status 200 && test_text_jq ".number == 1" &&
	wait_for 10 worker_count_is 4 &&
	workers >workers.before &&
	test "$(wc -l <workers.before)" = 4
'

# The database is killed here, not shut down: a clean shutdown ends the
# session that holds the lock before the sessions waiting for it, and a
# waiting query may then run and answer before its own session is ended (a
# read answered 200 once in the sanitizer pass).  A kill ends them all at
# once, so each request is still inside its query when the database goes.
test_expect_success 'a read, a write and a batch waiting inside their queries when MariaDB is killed' '
	"$(mariadb_client)" --no-defaults -S "$DB_SOCK" -u root "$DB_NAME" \
		-e "LOCK TABLES issues WRITE; SELECT SLEEP(120)" >lock.out 2>&1 &
	locker=$!
	test_register_pid "$locker"
	wait_for 10 locker_sleeps || return 1
	in_background inflight-read mcp_post "$(legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}" 41)" &&
	in_background inflight-write tool_call create_issue "{\"repo\":\"$R\",\"title\":\"in flight\"}" &&
	in_background inflight-batch mcp_post "[$(legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}" 7),$(legacy_body tools/list null 8)]" &&
	wait_for 20 waiting_for_lock 3 &&
	t0=$(now) &&
	stop_db --kill &&
	for p in $BG_PIDS; do wait "$p" || return 1; done &&
	t1=$(now) &&
	note "MariaDB killed and the three answers came in $(elapsed "$t0" "$t1") s" &&
	RESP=$TRASH/inflight-read &&
	test_rpc_error 503 -32603 41 &&
	test_header Retry-After "^1$" &&
	test_header Content-Type "^application/json" &&
	test_jq ".error.message | test(\"database\")" &&
	RESP=$TRASH/inflight-write &&
	test_rpc_error 503 -32603 1 &&
	test_header Retry-After "^1$" &&
	test_common_headers
'

test_expect_success 'in a batch only the element that lost the database fails' '
	RESP=$TRASH/inflight-batch &&
	test_status 200 &&
	test_json "length" 2 &&
	test_json ".[0].id" 7 &&
	test_json ".[0].error.code" -32603 &&
	test_jq ".[0].error.message | test(\"database\")" &&
	test_json ".[1].id" 8 &&
	test_jq ".[1].result.tools | length > 0"
'

test_expect_success 'the log names the tools that lost the database' '
	grep "tool list_issues failed: service unavailable" "$SERVER_LOG" &&
	grep "tool create_issue failed: service unavailable" "$SERVER_LOG"
'

test_expect_success 'while MariaDB is down: 503 with a token and without one (nothing uncounted is served)' '
	mcp_legacy tools/list null --token "$FRESH_TOKEN" &&
	test_rpc_error 503 -32603 1 &&
	test_header Retry-After "^1$" &&
	tool_call get_file_contents "{\"repo\":\"$R\",\"path\":\"README.md\"}" &&
	test_rpc_error 503 -32603 1 &&
	test_header Retry-After "^1$" &&
	mcp_legacy tools/list null --no-auth &&
	test_rpc_error 503 -32603 1 &&
	test_header Retry-After "^1$" &&
	grep "rate limit not kept (request refused)" "$SERVER_LOG"
'

test_expect_success 'service resumes within 1 s of MariaDB accepting connections' '
	legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}" >probe &&
	db_start_in "$TRASH/db" "$DB_SOCK" "$TRASH/db.pid" "$TRASH/db.log" &&
	DB_PID=$DB_STARTED &&
	i=0 &&
	until db_ping "$DB_SOCK"; do
		i=$((i + 1)); test $i -lt 6000 || return 1; sleep 0.01
	done &&
	up=$(now) &&
	i=0 &&
	until mcp_post --file probe && test "$(cat "$RESP.status")" = 200; do
		i=$((i + 1)); test $i -lt 1000 || return 1
	done &&
	back=$(now) &&
	delay=$(elapsed "$up" "$back") &&
	note "first 200 came $delay s after MariaDB accepted connections ($i 503s before it)" &&
	test_jq ".result.isError != true" &&
	at_most "$delay" 1
'

test_expect_success 'the interrupted write left nothing behind' '
	issue_rows >rows &&
	test_must_fail grep "^in flight	" rows &&
	check_numbering &&
	check_titles_once
'

# round NAME HOW: 4 clients for 1.5 s, MariaDB stopped (HOW=term: SIGTERM,
# HOW=kill: SIGKILL) for 2 s, started again, 2 s more.
round () {
	bodies "$1" >"$1.bodies" &&
	load_start "$1" 4 "$1.bodies" &&
	sleep 1.5 &&
	now >"$1.t_down" &&
	if test "$2" = kill; then
		stop_db --kill
	else
		stop_db_only
	fi &&
	sleep 2 &&
	start_db_again &&
	now >"$1.t_up" &&
	sleep 2 &&
	load_stop "$1" &&
	load_say "$1 ($2)" "$1.all"
}

for how in term kill; do
	test_expect_success "load while MariaDB stops ($how) and restarts: only 200 results and clean 503s" '
		round r-$how $how &&
		load_check_clean r-$how.all
	'

	test_expect_success "load ($how): the outage was seen, and answers were 200 again after it" '
		down=$(cat r-$how.t_down) && up=$(cat r-$how.t_up) &&
		n503=$(awk -F "\t" "\$5 == 503" r-$how.all | wc -l) &&
		before=$(awk -F "\t" -v t=$down "\$5 == 200 && \$4 < t" r-$how.all | wc -l) &&
		after=$(awk -F "\t" -v t=$up "\$5 == 200 && \$3 > t" r-$how.all | wc -l) &&
		late=$(awk -F "\t" -v t=$up "\$5 == 503 && \$3 > t + 1" r-$how.all | wc -l) &&
		note "$how: $before answers 200 before, $n503 answers 503, $after answers 200 after; $late 503s started more than 1 s after the database was back" &&
		test "$n503" -gt 0 && test "$before" -gt 0 && test "$after" -gt 0 && test "$late" = 0
	'

	test_expect_success "load ($how): no worker died" '
		workers >workers.now &&
		test_cmp workers.before workers.now
	'

	test_expect_success "load ($how): every acknowledged issue is stored once with its number" '
		acked_issues r-$how r-$how.all >acked &&
		test -s acked &&
		issue_rows >rows &&
		comm -23 acked rows >missing &&
		test_cmp /dev/null missing &&
		check_numbering &&
		check_titles_once &&
		note "$how: $(wc -l <acked) issues acknowledged, $(grep -c "^r-$how " rows) stored"
	'
done

test_expect_success 'MariaDB restarted while idle: the next requests are served at once' '
	stop_db_only &&
	start_db_again &&
	: >idle.statuses &&
	for i in 1 2 3 4 5 6 7 8; do
		mcp_post --token "$(make_token alice read)" \
			"$(legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}")" &&
		cat "$RESP.status" >>idle.statuses && echo >>idle.statuses &&
		test_jq ".result.isError != true" || return 1
	done &&
	note "after an idle restart: $(sort idle.statuses | uniq -c | tr -s " \n" " ")" &&
	test_must_fail grep -vx 200 idle.statuses
'

test_expect_success 'the server logged no 5xx other than 503' '
	grep -E "status=5[0-9]{2}" "$SERVER_LOG" | grep -v "status=503" >bad5xx
	test_cmp /dev/null bad5xx
'

test_done
