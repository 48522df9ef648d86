#!/bin/bash
# t6125: several runners and a runner killed.  Two `forgemcp runner`
# processes, each with a runner_dir of its own as two hosts would have,
# share one queue of 50 jobs: each job is claimed once, runs once and
# succeeds, and both runners work.  A runner killed with SIGKILL while a
# step runs takes the step's processes with it (in the sandbox and with
# runner_sandbox = none); a later runner ends the job `runner lost` and
# never runs it again.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"

ci_need_bwrap
ci_start

job_sql () {
	db_sql "SELECT $3 FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number = $1 AND j.job_id = '$2'"
}
# runs_final RUN...: every run named is final
runs_final () {
	test "$(db_sql "SELECT COUNT(*) FROM ci_runs WHERE number IN ($(echo "$@" | tr " " ,))
		AND state IN ('success', 'failure', 'cancelled')")" = $#
}
# lost_ready RUN JOB: the job's heartbeat is over a second old
lost_ready () {
	test "$(job_sql "$1" "$2" "heartbeat_at < UTC_TIMESTAMP(3) - INTERVAL 1 SECOND")" = 1
}
# host_runner N ARGS...: runner N in the background with runner_dir
# $TRASH/host-N and its own log; its pid in HOST_PID[N]
host_runner () {
	local n=$1
	shift
	mkdir -p "$TRASH/host-$n" || return 1
	FORGEMCP_RUNNER_DIR=$TRASH/host-$n "$FORGEMCP" runner --interval 0.1 "$@" \
		>>"$TRASH/runner-$n.log" 2>&1 &
	HOST_PID[$n]=$!
}

cat >"$TRASH/many.yml" <<EOF
on: { manual: true }
jobs:
  j:
    matrix: { n: [$(seq -s ', ' 25)] }
    steps:
      - name: once
        run: echo "ran \$FORGEMCP_JOB"
EOF
cat >"$TRASH/kill.yml" <<'EOF'
on: { manual: true }
inputs:
  marker: { type: string, required: true }
jobs:
  k:
    steps:
      - name: long
        run: |
          sh -c 'sleep 60' "bg-$INPUT_MARKER" &
          echo started
          sh -c 'sleep 10; touch late; echo late' "marker-$INPUT_MARKER"
          echo finished
  after: { needs: [k], steps: [ { run: echo after } ] }
EOF

test_expect_success 'workflows committed' '
	repo_put "$PROJECT_GIT" main "$W/many.yml" "$(cat "$TRASH/many.yml")" \
		"$W/kill.yml" "$(cat "$TRASH/kill.yml")"
'

test_expect_success 'two runners, two runner_dirs, one queue of 50 jobs: each claimed and run exactly once' '
	run many && R1=$RUN && run many && R2=$RUN &&
	test "$(db_sql "SELECT COUNT(*) FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number IN ($R1, $R2) AND j.state = \"queued\"")" = 50 &&
	host_runner 1 --concurrency 2 && host_runner 2 --concurrency 2 &&
	test_when_finished "kill ${HOST_PID[1]} ${HOST_PID[2]} 2>/dev/null; true" &&
	wait_for 60 runs_final $R1 $R2 &&
	stop_pid ${HOST_PID[1]} && test "$STOP_STATUS" = 0 &&
	stop_pid ${HOST_PID[2]} && test "$STOP_STATUS" = 0 &&
	get $R1 && jq -e ".state == \"success\" and (.jobs | length) == 25 and all(.jobs[]; .state == \"success\" and .exit_code == 0)" out.json &&
	get $R2 && jq -e ".state == \"success\" and (.jobs | length) == 25 and all(.jobs[]; .state == \"success\" and .exit_code == 0)" out.json &&
	db_sql "SELECT j.id, j.job_id, j.claimed_by FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number IN ($R1, $R2) ORDER BY j.id" >jobs &&
	test $(wc -l <jobs) = 50 &&
	host=$(hostname) &&
	n1=$(grep -c "	$host:${HOST_PID[1]}\$" jobs) && n2=$(grep -c "	$host:${HOST_PID[2]}\$" jobs) &&
	echo "runner 1 ran $n1 jobs, runner 2 ran $n2" &&
	test $n1 -gt 0 && test $n2 -gt 0 && test $((n1 + n2)) = 50 &&
	cat "$TRASH/runner-1.log" "$TRASH/runner-2.log" |
		sed -n "s/.*runner: job \([0-9]*\) (.*) of run [0-9]* of alice\/project claimed$/\1/p" |
		sort -n >claims &&
	cut -f1 jobs >ids && test_cmp ids claims &&
	test "$(sed -n "s/.*runner: job [0-9]* (.*) ended success$/x/p" "$TRASH/runner-1.log" | wc -l)" = $n1 &&
	test "$(sed -n "s/.*runner: job [0-9]* (.*) ended success$/x/p" "$TRASH/runner-2.log" | wc -l)" = $n2 &&
	test "$("$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" -e "
		SELECT COUNT(*) FROM (SELECT j.job_id, GROUP_CONCAT(c.bytes ORDER BY c.seq SEPARATOR \"\") AS t
		FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id LEFT JOIN ci_log_chunks c ON c.job_id = j.id
		WHERE r.number IN ($R1, $R2) GROUP BY j.id, j.job_id) x
		WHERE t = CONCAT(\"==> step 1/1: once\nran \", x.job_id, \"\n\")")" = 50 &&
	test -z "$(ls -A "$TRASH/host-1")" && test -z "$(ls -A "$TRASH/host-2")"
'

# killed MODE: a runner (runner_sandbox MODE) killed with SIGKILL while
# the step of run RUN sleeps; no process of the step is left, nothing
# recorded, the workspace removed.  "started" reaches the log up to a
# second after it is printed (the runner's flush), so the step sleeps 10 s
# after it, and its processes must be gone within 8 s of the kill: sooner
# than they would end by themselves.
killed () {
	M=$1$$ &&
	run kill "{\"inputs\":{\"marker\":\"$M\"}}" && RK=$RUN &&
	FORGEMCP_RUNNER_SANDBOX=$1 runner_bg --grace 1 &&
	test_when_finished "kill -9 $PID 2>/dev/null; true" &&
	wait_for 15 eval "job_log $RK k | grep -qx started" &&
	pgrep -f "marker-$M" && pgrep -f "bg-$M" &&
	job_pid=$(pgrep -P $PID) &&
	kill -KILL $PID && { wait $PID; test $? = 137; } &&
	wait_for 8 eval "! pgrep -f marker-$M && ! pgrep -f bg-$M" &&
	wait_for 30 eval "! proc_alive $job_pid" &&
	test "$(job_sql $RK k j.state)" = running &&
	wait_for 30 eval "test -z \"\$(ls -A \"$TRASH/runner\")\"" &&
	wait_for 30 grep -q "runner: job [0-9]* (k): the runner is gone; its step was killed" "$TRASH/runner.log"
}
# lost RUN: a later runner ends the killed job runner lost, once; it never runs again
lost () {
	wait_for 15 lost_ready $1 k &&
	started=$(job_sql $1 k j.started_at) &&
	runner --once --lost-after 1 &&
	get $1 &&
	jq -e ".state == \"failure\" and ([.jobs[] | .state] == [\"failure\", \"skipped\"])" out.json &&
	job_log $1 k >log &&
	printf "==> step 1/1: long\nstarted\nrunner lost\n\n" >expect &&
	test_cmp expect log &&
	runner --once --lost-after 1 &&
	job_log $1 k >log && test_cmp expect log &&
	test "$(job_sql $1 k j.started_at)" = "$started" &&
	test "$(job_sql $1 k "COUNT(*)")" = 1
}

test_expect_success 'kill -9 of a runner mid-step (sandbox): no process of the step survives, nothing recorded' '
	killed bwrap && R3=$RK
'
test_expect_success 'a later runner ends that job runner lost and never runs it again' '
	lost $R3
'
test_expect_success 'kill -9 of a runner mid-step (runner_sandbox = none): no process of the step survives' '
	killed none && R4=$RK
'
test_expect_success 'a later runner ends that job runner lost and never runs it again' '
	lost $R4
'

test_done
