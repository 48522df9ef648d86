#!/bin/bash
# t8010: FastCGI workers killed under load.  A worker killed with SIGKILL
# costs at most its one in-flight request; the master replaces it and the
# other workers keep serving.  A worker sent SIGTERM finishes its request
# first, so nothing fails.  Acknowledged writes are all stored, numbered
# without a gap.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/faults.sh"

# This script kills workers with SIGKILL on purpose.
TEST_ALLOW_SIGKILL=1

start_all 4
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
R=alice/fixture
KILLS=6

# bodies PREFIX: reads and writes; new issues are titled "PREFIX <conn>-<seq>".
bodies () {
	legacy_body tools/list
	legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\"}}"
	legacy_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"$1 @SEQ@\"}}"
	legacy_body tools/call "{\"name\":\"search_code\",\"arguments\":{\"repo\":\"$R\",\"query\":\"line\"}}"
	modern_body tools/call "{\"name\":\"get_issue\",\"arguments\":{\"repo\":\"$R\",\"number\":1}}"
	legacy_body tools/call "{\"name\":\"list_commits\",\"arguments\":{\"repo\":\"$R\"}}"
}

# acked_stored NAME: every issue acknowledged in NAME.all is stored with its number.
acked_stored () {
	acked_issues "$1" "$1.all" >"$1.acked" &&
	test -s "$1.acked" &&
	issue_rows >rows &&
	comm -23 "$1.acked" rows >"$1.missing" &&
	test_cmp /dev/null "$1.missing" &&
	note "$1: $(wc -l <"$1.acked") issues acknowledged, all stored"
}

test_expect_success 'set-up: issue #1 exists, 4 workers run' '
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"the first\"}" &&
	test_status 200 && test_text_jq ".number == 1" &&
	wait_for 10 worker_count_is 4 &&
	workers >workers.start
'

test_expect_success "SIGKILL to a busy worker, $KILLS times under load at 8 connections" '
	bodies kill >kill.bodies &&
	load_start kill 8 kill.bodies &&
	sleep 1 &&
	: >victims &&
	for k in $(seq $KILLS); do
		victim=$(workers | sed -n "$(( (k - 1) % 4 + 1 ))p") &&
		kill -KILL "$victim" &&
		echo "$victim" >>victims &&
		now >kill.last &&
		wait_for 10 eval "worker_count_is 4 && ! workers | grep -qx $victim" || return 1
		sleep 0.5
	done &&
	sleep 1 &&
	load_stop kill &&
	load_say "kill" kill.all
'

test_expect_success "at most one failed answer per kill ($KILLS kills)" '
	awk -F "\t" "\$5 != 200 || \$8 != \"result\"" kill.all >kill.failed &&
	n=$(wc -l <kill.failed) &&
	note "$n of $(wc -l <kill.all) answers failed across $KILLS kills:" &&
	sed "s/^/  /" kill.failed &&
	test "$n" -le "$KILLS"
'

test_expect_success 'the failed answers are the web server saying the worker went away' '
	awk -F "\t" "\$5 != 502" kill.failed >other &&
	test_cmp /dev/null other
'

test_expect_success 'the master replaced every killed worker and kept 4' '
	worker_count_is 4 &&
	workers >workers.now &&
	sort victims | comm -12 - workers.now >still &&
	test_cmp /dev/null still &&
	proc_alive "$SERVER_PID" &&
	test "$(grep -c "died on signal 9; starting another" "$SERVER_LOG")" = "$KILLS"
'

test_expect_success 'the workers kept serving: 200s after the last kill' '
	n=$(awk -F "\t" -v t="$(cat kill.last)" "\$5 == 200 && \$3 > t" kill.all | wc -l) &&
	note "$n answers 200 after the last kill" &&
	test "$n" -gt 0 &&
	mcp_legacy tools/list && test_status 200
'

test_expect_success 'every acknowledged write survived the kills, numbers without a gap' '
	acked_stored kill &&
	check_numbering
'

test_expect_success 'SIGTERM to a busy worker, 6 times under load: nothing fails' '
	bodies term >term.bodies &&
	load_start term 8 term.bodies &&
	sleep 1 &&
	for k in 1 2 3 4 5 6; do
		victim=$(workers | sed -n "$(( (k - 1) % 4 + 1 ))p") &&
		kill -TERM "$victim" &&
		wait_for 10 eval "worker_count_is 4 && ! workers | grep -qx $victim" || return 1
		sleep 0.5
	done &&
	sleep 1 &&
	load_stop term &&
	load_say "term" term.all &&
	awk -F "\t" "\$5 != 200 || \$8 != \"result\"" term.all >term.failed &&
	test_cmp /dev/null term.failed &&
	test "$(grep -c "exited with status 0; starting another" "$SERVER_LOG")" = 6 &&
	acked_stored term &&
	check_numbering
'

test_expect_success 'SIGTERM to the master under load: it exits 0, leaves no worker, every 200 is whole' '
	bodies stop >stop.bodies &&
	proc_stamps $(workers) >workers.last &&
	load_start stop 8 stop.bodies --timeout 5 &&
	sleep 1 &&
	kill -TERM "$SERVER_PID" &&
	wait_for 15 eval "! proc_alive $SERVER_PID" &&
	wait "$SERVER_PID"
	code=$?
	SERVER_PID=
	load_stop stop &&
	load_say "stop" stop.all &&
	test "$code" = 0 &&
	for p in $(cat workers.last); do test_must_fail proc_alive "$p" || return 1; done &&
	# after the stop nginx answers 502; before it, only whole results
	awk -F "\t" "(\$5 == 200 && \$8 != \"result\") || (\$5 != 200 && \$5 != 502)" stop.all >bad &&
	test_cmp /dev/null bad &&
	acked_stored stop &&
	check_numbering
'

test_done
