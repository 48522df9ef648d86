#!/bin/bash
# t6105: CI job logs read in windows with cursors (get_run_logs: paging,
# running jobs, foreign and damaged cursors, UTF-8 cut and repair) and
# cancel_run (waiting jobs at once, running ones flagged for the runner,
# who may cancel).  The logs are stored as the runner stores them: chunks
# of at most 16 KiB in ci_log_chunks, log_bytes their sum.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# On alice/project: mona manages, dave writes, erin reads.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_X=$(make_token mona read,execute) &&
DAVE_X=$(make_token dave read,execute) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# A workflow with a 12-child matrix, committed on main.
CI_YML='on: { manual: true }
jobs:
  build: { steps: [ { run: make } ] }
  test:
    needs: [build]
    matrix: { os: [debian, alpine, fedora, arch], cc: [gcc, clang, tcc] }
    steps: [ { run: make check } ]
'
put_workflow () {
	local g=$PROJECT_GIT blob tree commit
	blob=$(printf '%s' "$CI_YML" | git --git-dir="$g" hash-object -w --stdin) &&
	tree=$(printf "100644 blob %s\tci.yml\n" "$blob" | git --git-dir="$g" mktree) &&
	tree=$(printf "040000 tree %s\tworkflows\n" "$tree" | git --git-dir="$g" mktree) &&
	tree=$({ git --git-dir="$g" ls-tree main && printf "040000 tree %s\t.forgemcp\n" "$tree"; } |
		git --git-dir="$g" mktree) &&
	test_tick &&
	commit=$(git --git-dir="$g" commit-tree -p main -m "ci: a workflow" "$tree") &&
	git --git-dir="$g" update-ref refs/heads/main "$commit"
}

# new_run TOKEN: create_run of ci; prints the run's number.
new_run () {
	tool_call create_run "{\"repo\":\"$P\",\"workflow\":\"ci\"}" --token "$1" &&
	forge_ok && jq -r .run out.json
}

# job_row RUN JOB: the ci_jobs row of JOB in run RUN.
job_row () {
	db_sql "select j.id from ci_jobs j join ci_runs r on r.id = j.run_id
		where r.number = $1 and j.job_id = '$2'"
}

# job_state RUN JOB STATE: sets a job's state as the runner would.
job_state () {
	db_sql "update ci_jobs set state = '$3' where id = $(job_row "$1" "$2")"
}

# log_add RUN JOB FILE: appends FILE to the job's log as the runner does:
# chunks of at most 16 KiB (seq and byte_offset following the last one) and
# log_bytes grown in the same transaction.
log_add () {
	local row at seq size off=0 n sql=$TRASH/log-add.sql
	row=$(job_row "$1" "$2") &&
	at=$(db_sql "select log_bytes from ci_jobs where id = $row") &&
	seq=$(db_sql "select count(*) from ci_log_chunks where job_id = $row") &&
	size=$(wc -c <"$3") &&
	{
		echo "start transaction;"
		while test $off -lt "$size"; do
			n=$((size - off < 16384 ? size - off : 16384))
			printf "insert into ci_log_chunks (job_id, seq, byte_offset, bytes) values (%s, %s, %s, unhex('%s'));\n" \
				"$row" "$seq" $((at + off)) \
				"$(dd if="$3" bs=16384 skip=$((off / 16384)) count=1 2>/dev/null | xxd -p | tr -d '\n')"
			seq=$((seq + 1)) off=$((off + n))
		done
		echo "update ci_jobs set log_bytes = log_bytes + $size where id = $row;"
		echo "commit;"
	} >"$sql" &&
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" <"$sql"
}

# logs RUN JOB [AFTER [LIMIT]]: get_run_logs as erin, a reader; the answer
# goes to out.json (or errtext), the text alone to text.out.
logs () {
	local a
	a=$(jq -nc --arg r "$P" --argjson n "$1" --arg j "$2" --arg c "${3:-}" --arg l "${4:-}" \
		'{repo: $r, run: $n, job: $j} + (if $c != "" then {after: $c} else {} end)
		 + (if $l != "" then {limit: ($l | tonumber)} else {} end)') &&
	tool_call get_run_logs "$a" --token "$ERIN_TOKEN"
}
logs_ok () {
	logs "$@" && forge_ok && jq -j .text out.json >text.out
}

test_expect_success 'a workflow, and runs 1 and 2 of it' '
	put_workflow &&
	test "$(new_run "$DAVE_X")" = 1 &&
	test "$(new_run "$DAVE_X")" = 2
'

test_expect_success 'tools/list: get_run_logs is read-only, cancel_run destructive and idempotent' '
	mcp_modern tools/list && test_status 200 &&
	test_jq ".result.tools[] | select(.name == \"get_run_logs\") | .annotations.readOnlyHint == true and (.description | test(\"untrusted data\")) and .inputSchema.properties.limit.maximum == 65536" &&
	test_jq ".result.tools[] | select(.name == \"cancel_run\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == true and .annotations.idempotentHint == true"
'

test_expect_success 'a 300 KiB log of a finished job read in 64 KiB pages is the log, byte for byte' '
	seq -f "line %06g of the numbered log" 1 9600 >numbered.log &&
	test $(wc -c <numbered.log) = 307200 &&
	log_add 1 build numbered.log &&
	job_state 1 build success &&
	test "$(db_sql "select count(*), max(length(bytes)) from ci_log_chunks where job_id = $(job_row 1 build)")" = "$(printf "19\t16384")" &&
	: >joined && : >flags && cursor= && pages=0 &&
	while :; do
		logs_ok 1 build "$cursor" || return 1
		pages=$((pages + 1)) &&
		test $(wc -c <text.out) -le 65536 &&
		cat text.out >>joined &&
		jq -r "\"\(.has_more) \(.complete)\"" out.json >>flags &&
		jq -e ".run == 1 and .job == \"build\" and (.next_cursor | test(\"^[A-Za-z0-9_-]+$\"))" out.json &&
		cursor=$(jq -r .next_cursor out.json) || return 1
		test "$(jq -r .has_more out.json)" = true || break
		test $pages -lt 20 || return 1
	done &&
	test $pages = 5 &&
	printf "true false\ntrue false\ntrue false\ntrue false\nfalse true\n" >expect &&
	test_cmp expect flags &&
	cmp numbered.log joined &&
	logs_ok 1 build "$cursor" &&
	jq -e ".text == \"\" and .has_more == false and .complete == true and .next_cursor == \"$cursor\"" out.json
'

T1="test (os=debian, cc=gcc)"
test_expect_success 'a running job: no more and not complete; the same cursor later reads the rest, complete' '
	job_state 1 "$T1" running &&
	printf "step 1\nsleeping\n" >part1 &&
	log_add 1 "$T1" part1 &&
	logs_ok 1 "$T1" &&
	test_cmp part1 text.out &&
	jq -e ".has_more == false and .complete == false" out.json &&
	cursor=$(jq -r .next_cursor out.json) &&
	logs_ok 1 "$T1" "$cursor" &&
	jq -e ".text == \"\" and .has_more == false and .complete == false and .next_cursor == \"$cursor\"" out.json &&
	printf "done\n" >part2 &&
	log_add 1 "$T1" part2 &&
	job_state 1 "$T1" success &&
	logs_ok 1 "$T1" "$cursor" &&
	jq -e ".text == \"done\n\" and .has_more == false and .complete == true" out.json
'

test_expect_success 'a cursor of another job, of another run, damaged, or a limit out of bounds: refused' '
	logs_ok 1 build "" 100 &&
	cursor=$(jq -r .next_cursor out.json) &&
	logs 1 "$T1" "$cursor" &&
	forge_error "^invalid cursor for run 1 job test \(os=debian, cc=gcc\): pass the next_cursor of a previous answer, or omit after$" &&
	log_add 2 build part1 &&
	logs 2 build "$cursor" &&
	forge_error "^invalid cursor for run 2 job build: pass the next_cursor of a previous answer, or omit after$" &&
	bad=${cursor:0:31}$(test "${cursor:31}" = A && echo B || echo A) &&
	logs 1 build "$bad" &&
	forge_error "^invalid cursor for run 1 job build: pass the next_cursor" &&
	logs 1 build "${cursor}AAAA" &&
	forge_error "^invalid cursor for run 1 job build" &&
	logs 1 build "not a cursor!" &&
	forge_error "^invalid cursor for run 1 job build" &&
	logs 1 build "" 15 && forge_error limit &&
	logs 1 build "" 65537 && forge_error limit &&
	logs_ok 1 build "" 16 &&
	test "$(cat text.out)" = "line 000001 of t"
'

test_expect_success 'a cursor past the end of the log is refused' '
	logs_ok 2 build &&
	cursor=$(jq -r .next_cursor out.json) &&
	logs_ok 2 build "$cursor" &&
	db_sql "delete from ci_log_chunks where job_id = $(job_row 2 build); update ci_jobs set log_bytes = 0 where id = $(job_row 2 build)" &&
	logs 2 build "$cursor" &&
	forge_error "^invalid cursor for run 2 job build: pass the next_cursor"
'

T2="test (os=debian, cc=clang)"
# Invalid bytes, a NUL, an ANSI escape, and a euro sign split across the
# chunk boundary (the log is stored as two chunks).
printf "ok \033[31mred\033[0m nul:\000: bad:\377\376: euro:\342\202" >u1
printf "\254 end\n" >u2
U_TEXT='ok \u001b[31mred\u001b[0m nul:\ufffd: bad:\ufffd\ufffd: euro:\u20ac end\n'
test_expect_success 'UTF-8: invalid bytes and NUL become U+FFFD, escapes stay, a split character is whole' '
	log_add 1 "$T2" u1 &&
	log_add 1 "$T2" u2 &&
	job_state 1 "$T2" failure &&
	logs_ok 1 "$T2" &&
	jq -e ".text == \"$U_TEXT\" and .has_more == false and .complete == true" out.json &&
	grep -F "\\u001b[31mred" "$RESP.body" &&
	iconv -f UTF-8 -t UTF-8 "$RESP.body" >/dev/null
'

test_expect_success 'UTF-8: a limit that cuts a character ends the page before it' '
	euro=$(($(wc -c <u1) - 2)) &&
	logs_ok 1 "$T2" "" $((euro + 1)) &&
	jq -e ".text == \"ok \u001b[31mred\u001b[0m nul:\ufffd: bad:\ufffd\ufffd: euro:\" and .has_more == true and .complete == false" out.json &&
	logs_ok 1 "$T2" "$(jq -r .next_cursor out.json)" &&
	jq -e ".text == \"\u20ac end\n\" and .has_more == false and .complete == true" out.json
'

T3="test (os=alpine, cc=gcc)"
test_expect_success 'UTF-8: an incomplete character ending a running log waits; when the job ends it is U+FFFD' '
	job_state 1 "$T3" running &&
	printf "wait:\342\202" >w1 &&
	log_add 1 "$T3" w1 &&
	logs_ok 1 "$T3" &&
	jq -e ".text == \"wait:\" and .has_more == false and .complete == false" out.json &&
	cursor=$(jq -r .next_cursor out.json) &&
	job_state 1 "$T3" cancelled &&
	logs_ok 1 "$T3" "$cursor" &&
	jq -e ".text == \"\ufffd\" and .has_more == false and .complete == true" out.json
'

test_expect_success 'an unknown job names the run'"'"'s jobs, the list cut; an unknown run as get_run says it' '
	logs 1 tset &&
	forge_error "^run 1 has no job '"'"'tset'"'"': its jobs are build, test \(os=debian, cc=gcc\), test \(os=debian, cc=clang\), .*, …$" &&
	test $(wc -c <errtext) -lt 400 &&
	logs 99 build &&
	forge_error "^run 99 not found in alice/project$"
'

# run_jobs RUN: "job_id state" lines of get_run.
run_jobs () {
	tool_call get_run "{\"repo\":\"$P\",\"run\":$1}" --token "$ERIN_TOKEN" && forge_ok &&
	jq -r ".jobs[] | \"\(.job_id)|\(.state)|\(.finished_at != null)\"" out.json
}
ci_state () {
	db_sql "checksum table ci_runs, ci_jobs"
}

test_expect_success 'cancel_run of a queued run: every job cancelled at once, the run too' '
	test "$(new_run "$DAVE_X")" = 3 &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":3}" --token "$DAVE_X" && forge_ok &&
	jq -e "keys_unsorted == [\"run\", \"state\", \"changed\", \"cancelled_jobs\"]" out.json &&
	jq -e ".run == 3 and .state == \"cancelled\" and .changed == true and (.cancelled_jobs | length) == 13 and .cancelled_jobs[0] == \"build\" and .cancelled_jobs[1] == \"$T1\"" out.json &&
	run_jobs 3 >jobs &&
	test $(grep -c "|cancelled|true$" jobs) = 13 &&
	jq -e ".state == \"cancelled\" and .finished_at != null and .jobs_finished == 13" out.json
'

test_expect_success 'cancel_run again: changed false, nothing cancelled, nothing changes' '
	ci_state >before &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":3}" --token "$DAVE_X" && forge_ok &&
	jq -e ".run == 3 and .state == \"cancelled\" and .changed == false and .cancelled_jobs == []" out.json &&
	ci_state >after &&
	test_cmp before after &&
	db_sql "update ci_runs set state = \"success\" where number = 1" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":1}" --token "$DAVE_X" && forge_ok &&
	jq -e ".state == \"success\" and .changed == false and .cancelled_jobs == []" out.json
'

test_expect_success 'cancel_run of a run with a running job: the job is flagged for the runner and stays running' '
	test "$(new_run "$DAVE_X")" = 4 &&
	job_state 4 build running &&
	db_sql "update ci_runs set state = \"running\" where number = 4" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":4}" --token "$DAVE_X" && forge_ok &&
	jq -e ".state == \"cancelled\" and .changed == true and (.cancelled_jobs | length) == 13 and .cancelled_jobs[0] == \"build\"" out.json &&
	run_jobs 4 >jobs &&
	grep -x "build|running|false" jobs &&
	test $(grep -c "|cancelled|true$" jobs) = 12 &&
	jq -e ".state == \"cancelled\" and .finished_at != null" out.json &&
	test "$(db_sql "select u.login, j.cancel_requested_at is not null from ci_jobs j join users u on u.id = j.cancel_requested_by where j.id = $(job_row 4 build)")" = "$(printf "dave\t1")" &&
	test "$(db_sql "select count(*) from ci_jobs where cancel_requested_at is not null")" = 1
'

test_expect_success 'cancel_run of an awaiting_approval run cancels all its jobs' '
	test "$(new_run "$DAVE_X")" = 5 &&
	db_sql "update ci_runs set state = \"awaiting_approval\" where number = 5" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":5}" --token "$DAVE_X" && forge_ok &&
	jq -e ".state == \"cancelled\" and .changed == true and (.cancelled_jobs | length) == 13" out.json &&
	run_jobs 5 >jobs &&
	test $(grep -c "|cancelled|true$" jobs) = 13
'

test_expect_success 'a writer may not cancel another user'"'"'s run, and nothing changes' '
	test "$(new_run "$MONA_X")" = 6 &&
	ci_state >before &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":6}" --token "$DAVE_X" &&
	forge_error "^you cannot cancel another user'"'"'s run 6 on alice/project: that needs the manager role or more, and your role is writer$" &&
	ci_state >after &&
	test_cmp before after
'

test_expect_success 'a manager may cancel another user'"'"'s run; an unknown run is not found' '
	test "$(new_run "$DAVE_X")" = 7 &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":7}" --token "$MONA_X" && forge_ok &&
	jq -e ".state == \"cancelled\" and .changed == true" out.json &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":99}" --token "$MONA_X" &&
	forge_error "^run 99 not found in alice/project$"
'

test_expect_success 'a read,write token gets HTTP 403 for cancel_run' '
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":6}" --token "$DAVE_TOKEN" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\", scope=\"execute\""
'

test_done
