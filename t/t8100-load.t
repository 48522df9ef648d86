#!/bin/bash
# t8100: 20,000 mixed requests through nginx at 32 connections to 4 workers
# (70% reads: tools/list, get_issue, list_issues, get_file_contents; 30%
# writes: create_issue, add_issue_comment on three repositories), driven by
# wrk with t/lib/load.lua, which writes down every answer.  Nothing may be
# lost: no 5xx, every write that was answered is stored exactly once, and
# issue numbers stay unique and gapless per repository.
# LOAD_REQUESTS overrides the number of requests (a multiple of 4).
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/faults.sh"

test_skip_unless command -v wrk

REQUESTS=${LOAD_REQUESTS:-20000}
THREADS=4
CONNS=32
REPOS_LIST="alice/fixture alice/load2 alice/load3"

# wrk_pid PID: PID when it is wrk, else its child wrk (the shell may keep
# a process between itself and a background command).
wrk_pid () {
	if test "$(cat "/proc/$1/comm" 2>/dev/null)" = wrk; then
		echo "$1"
	else
		pgrep -x -P "$1" wrk
	fi
}

start_all 4
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

test_expect_success 'set-up: three repositories with issues #1 to #5' '
	fm repo import alice/load2 --from "$TRASH/fixture.git" >/dev/null &&
	fm repo import alice/load3 --from "$TRASH/fixture.git" >/dev/null &&
	for r in $REPOS_LIST; do
		for i in 1 2 3 4 5; do
			tool_call create_issue "{\"repo\":\"$r\",\"title\":\"seed $i\"}" &&
			test_status 200 && test_text_jq ".number == $i" || return 1
		done
	done &&
	wait_for 10 worker_count_is 4 &&
	workers >workers.before
'

test_expect_success "$REQUESTS requests at $CONNS connections, every one answered" '
	start=$(now)
	(
		LOAD_OUT=$TRASH/load LOAD_QUOTA=$((REQUESTS / THREADS)) LOAD_TOKEN=$TOKEN \
		LOAD_REPOS=$(echo $REPOS_LIST | tr " " ,) \
		exec wrk -t $THREADS -c $CONNS -d 600s --timeout 60s \
			-s "$TEST_DIRECTORY/lib/load.lua" "$BASE_URL/mcp"
	) >wrk.out 2>&1 &
	sub=$!
	test_register_pid "$sub"
	wait_for 10 wrk_pid $sub &&
	wrk=$(wrk_pid $sub) &&
	i=0 &&
	until test "$(ls load.*.done 2>/dev/null | wc -l)" = $THREADS; do
		proc_alive "$wrk" || { echo "wrk ended early:"; cat wrk.out; return 1; }
		i=$((i + 1)); test $i -lt 6000 || { echo "not done after 600 s"; return 1; }
		sleep 0.1
	done &&
	end=$(now) &&
	kill -INT "$wrk" &&
	wait "$sub" &&
	cat load.[0-9] >answers &&
	secs=$(elapsed "$start" "$end") &&
	note "$(wc -l <answers) answers in $secs s: $(awk -v n="$(wc -l <answers)" -v s="$secs" "BEGIN { printf \"%.0f\", n / s }") requests/s at $CONNS connections, 4 workers" &&
	note "wrk (its figures include the padding nginx answered with 404): $(cat load.summary)" &&
	note "answers by status, kind: $(cut -f1,2 answers | sort | uniq -c | tr -s " \t\n" " ")" &&
	test "$(wc -l <answers)" = "$REQUESTS"
'

test_expect_success 'no socket error, no 5xx, every answer a 200 result' '
	jq -e ".connect == 0 and .read == 0 and .write == 0 and .timeout == 0" load.summary &&
	awk -F "\t" "\$1 != 200 || \$2 != \"result\"" answers >bad &&
	test_cmp /dev/null bad &&
	grep -E "status=5[0-9]{2}" "$SERVER_LOG" >bad5xx
	test_cmp /dev/null bad5xx
'

test_expect_success 'the mix was 70% reads, 30% writes' '
	creates=$(grep -c "	issue " answers) &&
	comments=$(grep -c "	comment " answers) &&
	note "$creates issues and $comments comments created" &&
	test "$creates" = $((REQUESTS / 5)) &&
	test "$comments" = $((REQUESTS / 10))
'

test_expect_success 'every answered issue is stored once under its number, no other was made' '
	sed -n "s/^200	result	issue //p" answers | sort >acked &&
	sort -u acked >acked.unique &&
	test_cmp acked acked.unique &&
	db_sql "SELECT CONCAT(u.login, \"/\", r.name), i.number FROM issues i
		JOIN repositories r ON r.id = i.repo_id JOIN users u ON u.id = r.owner_id
		WHERE i.title LIKE \"load %\"" | tr "\t" " " | sort >stored &&
	test_cmp acked stored &&
	db_sql "SELECT title FROM issues GROUP BY repo_id, title HAVING COUNT(*) > 1" >doubles &&
	test_cmp /dev/null doubles
'

test_expect_success 'issue numbers are 1..N per repository, the counter at N + 1' '
	for r in $REPOS_LIST; do
		set -- $(db_sql "SELECT COUNT(*), COUNT(DISTINCT i.number), MIN(i.number), MAX(i.number),
			MAX(r.next_number) FROM issues i JOIN repositories r ON r.id = i.repo_id
			JOIN users u ON u.id = r.owner_id
			WHERE CONCAT(u.login, \"/\", r.name) = \"$r\"") &&
		note "$r: $1 issues, numbers $3..$4, next $5" &&
		test "$1" = "$2" && test "$3" = 1 && test "$4" = "$1" && test "$5" = $(($1 + 1)) ||
			return 1
	done
'

test_expect_success 'every answered comment is stored once, no other was made' '
	sed -n "s/^200	result	comment //p" answers | sort >acked-comments &&
	sort -u acked-comments >acked-comments.unique &&
	test_cmp acked-comments acked-comments.unique &&
	db_sql "SELECT id FROM comments WHERE body LIKE \"load %\"" | sort >stored-comments &&
	test_cmp acked-comments stored-comments &&
	db_sql "SELECT body FROM comments GROUP BY body HAVING COUNT(*) > 1" >comment-doubles &&
	test_cmp /dev/null comment-doubles
'

test_expect_success 'the same 4 workers served it all' '
	workers >workers.now &&
	test_cmp workers.before workers.now
'

test_done
