#!/bin/bash
# t6110: `forgemcp runner` executes CI jobs: claims, workspaces at the
# pinned commit, the job's environment, steps and their logs, needs that
# unblock or skip, timeouts, cancel_run, lost runners and a stopped runner;
# get_run_logs paging a log the runner wrote, and polling a running job.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"

ci_start

# put BRANCH PATH CONTENT...: a commit on BRANCH of the served repository writing each file
put () { repo_put "$PROJECT_GIT" "$@"; }

job_state () {
	db_sql "SELECT j.state FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number = $1 AND j.job_id = '$2'"
}
# wait_state RUN JOB_ID STATE: waits (at most 15 s) for the job to reach STATE
wait_state () {
	local i=0
	while test "$(job_state "$1" "$2")" != "$3"; do
		test $i -lt 150 || return 1
		sleep 0.1
		i=$((i + 1))
	done
}
# wait_gone PID: waits (at most 15 s) for the process to exit
wait_gone () {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		test $i -lt 150 || return 1
		sleep 0.1
		i=$((i + 1))
	done
	wait "$1" 2>/dev/null
	return 0
}

cat >"$TRASH/ci.yml" <<'EOF'
name: CI
on: { manual: true }
inputs:
  level: { type: choice, choices: [fast, full], required: true }
jobs:
  build:
    steps:
      - name: compile
        run: test -f README.md && test -f src/app.c && test ! -e .git && echo built
  test:
    needs: [build]
    matrix: { os: [a, b], cc: [x, y] }
    env: { MODE: "${{ inputs.level }}-${{ matrix.os }}-${{ vars.TARGET }}", NONE: "[${{ vars.NOPE }}]" }
    steps:
      - name: env
        run: echo "env:$INPUT_LEVEL $MATRIX_OS $MATRIX_CC $FORGEMCP_COMMIT $CI"
      - name: more
        run: |
          echo "mode:$MODE none:$NONE vars:$VARS_TARGET run:$FORGEMCP_RUN ref:$FORGEMCP_REF"
          echo "home:$HOME pwd:$(pwd) path:$PATH"
          env
  deploy: { needs: [test], steps: [ { run: echo deployed } ] }
EOF
cat >"$TRASH/fail.yml" <<'EOF'
on: { manual: true }
jobs:
  a: { steps: [ { run: "echo a-ran; exit 3" }, { run: echo not-reached } ] }
  b: { needs: [a], steps: [ { run: echo b } ] }
  c: { needs: [b], steps: [ { run: echo c } ] }
  d: { steps: [ { run: echo d-ran } ] }
  e: { needs: [d], steps: [ { run: echo e-ran } ] }
EOF
cat >"$TRASH/slow.yml" <<'EOF'
on: { manual: true }
inputs:
  marker: { type: string, required: true }
jobs:
  slow:
    timeout_minutes: 1
    steps:
      - run: |
          echo started
          sh -c 'sleep 600; echo never' "marker-$INPUT_MARKER"

  after: { needs: [slow], steps: [ { run: echo after } ] }
EOF
cat >"$TRASH/logs.yml" <<'EOF'
on: { manual: true }
inputs:
  flag: { type: string, default: /nonexistent }
jobs:
  numbered: { steps: [ { name: count, run: "seq -f 'line %06g of the numbered log' 1 9600" } ] }
  wait:
    env: { FLAG: "${{ inputs.flag }}" }
    steps:
      - name: wait
        run: |
          echo start
          while test ! -e "$FLAG"; do sleep 0.1; done
          echo done
EOF
cat >"$TRASH/big.yml" <<'EOF'
on: { manual: true }
jobs:
  big: { steps: [ { run: "head -c 17000000 /dev/zero | tr '\\0' x; echo; echo big-end" }, { run: echo second } ] }
EOF

test_expect_success 'workflows committed, a repository variable' '
	put main "$W/ci.yml" "$(cat "$TRASH/ci.yml")" "$W/fail.yml" "$(cat "$TRASH/fail.yml")" \
		"$W/slow.yml" "$(cat "$TRASH/slow.yml")" "$W/big.yml" "$(cat "$TRASH/big.yml")" \
		"$W/logs.yml" "$(cat "$TRASH/logs.yml")" \
		"$W/pin.yml" "on: { manual: true }
jobs: { p: { steps: [ { run: echo old-step } ] } }
" &&
	MAIN=$(git --git-dir="$PROJECT_GIT" rev-parse main) &&
	tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"TARGET\",\"value\":\"prod\"}" \
		--token "$(make_token alice read,write)" && forge_ok
'

test_expect_success 'runner --help and a bad option' '
	"$FORGEMCP" runner --help >out && grep -q "^usage: forgemcp runner" out &&
	{ "$FORGEMCP" runner --concurrency 0 2>err; test $? = 2; } &&
	grep -q -- "--concurrency takes a count" err
'

test_expect_success 'jobs [test]: build, then the 2x2 matrix, all success' '
	run ci "{\"jobs\":[\"test\"],\"inputs\":{\"level\":\"full\"}}" && R1=$RUN &&
	FORGEMCP_SECRET_MARKER=leaky runner --once --concurrency 2 &&
	get $R1 &&
	jq -e ".state == \"success\" and .started_at != null and .finished_at != null" out.json &&
	jq -e "[.jobs[] | .job_id] == [\"build\", \"test (os=a, cc=x)\", \"test (os=a, cc=y)\", \"test (os=b, cc=x)\", \"test (os=b, cc=y)\"]" out.json &&
	jq -e "all(.jobs[]; .state == \"success\" and .exit_code == 0 and .started_at != null and .finished_at != null and .log_bytes > 0)" out.json &&
	test -z "$(ls -A "$TRASH/runner")"
'

test_expect_success 'the log: step headers, the environment, nothing of the runner' '
	job_log $R1 build >log && grep -x "==> step 1/1: compile" log && grep -x built log &&
	job_log $R1 "test (os=b, cc=y)" >log &&
	grep -x "==> step 1/2: env" log && grep -x "==> step 2/2: more" log &&
	grep -x "env:full b y $MAIN true" log &&
	grep -x "mode:full-b-prod none:\[\] vars:prod run:$R1 ref:main" log &&
	grep -x "home:/workspace pwd:/workspace path:/usr/local/bin:/usr/bin:/bin" log &&
	grep -x "FORGEMCP_JOB=test (os=b, cc=y)" log &&
	grep -x "MATRIX_CC=y" log && grep -x "INPUT_LEVEL=full" log &&
	! grep -e FORGEMCP_CONFIG -e FORGEMCP_SECRET_MARKER -e leaky -e "^DB_" log &&
	! grep -F "$DB_PASSWORD" log &&
	test "$(db_sql "SELECT SUM(LENGTH(c.bytes)) = j.log_bytes FROM ci_log_chunks c JOIN ci_jobs j
		ON j.id = c.job_id JOIN ci_runs r ON r.id = j.run_id WHERE r.number = $R1
		AND j.job_id = \"build\" GROUP BY j.id")" = 1
'

test_expect_success 'a failing job: its dependents skipped, an independent branch success, run failure' '
	run fail && R2=$RUN &&
	runner --once &&
	get $R2 &&
	jq -e ".state == \"failure\" and .finished_at != null" out.json &&
	jq -e "[.jobs[] | .state] == [\"failure\", \"skipped\", \"skipped\", \"success\", \"success\"]" out.json &&
	jq -e ".jobs[0].exit_code == 3 and .jobs[1].exit_code == null and .jobs[1].started_at == null" out.json &&
	job_log $R2 a >log && grep -x a-ran log && ! grep not-reached log &&
	job_log $R2 e >log && grep -x e-ran log
'

test_expect_success 'the run uses its pinned workflow blob, not the branch' '
	run pin && R3=$RUN &&
	put main "$W/pin.yml" "on: { manual: true }
jobs: { p: { steps: [ { run: echo new-step } ] } }
" &&
	runner --once &&
	get $R3 && jq -e ".state == \"success\"" out.json &&
	job_log $R3 p >log && grep -x old-step log && ! grep new-step log
'

test_expect_success DEBUG_HOOKS 'timeout_minutes: the step group stopped, timed_out, dependents skipped' '
	run slow "{\"inputs\":{\"marker\":\"tmo$$\"}}" && R4=$RUN &&
	FORGEMCP_RUNNER_MINUTE=1 runner --once &&
	get $R4 &&
	jq -e ".state == \"failure\" and .jobs[0].state == \"timed_out\" and .jobs[0].timed_out == true and .jobs[1].state == \"skipped\"" out.json &&
	job_log $R4 slow >log && grep -x started log && grep -x "job exceeded timeout_minutes=1" log &&
	wait_for 10 eval "! pgrep -f marker-tmo$$"
'

test_expect_success 'a log over 16 MiB stops with a line; the job goes on and succeeds' '
	run big && R5=$RUN &&
	runner --once &&
	get $R5 && jq -e ".state == \"success\" and .jobs[0].exit_code == 0" out.json &&
	test "$(db_sql "SELECT j.log_bytes = 16777216 + LENGTH(\"log truncated at 16 MiB\n\") AND
		SUM(LENGTH(c.bytes)) = j.log_bytes AND MAX(LENGTH(c.bytes)) <= 16384
		FROM ci_log_chunks c JOIN ci_jobs j ON j.id = c.job_id JOIN ci_runs r
		ON r.id = j.run_id WHERE r.number = $R5 GROUP BY j.id")" = 1 &&
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B -r "$DB_NAME" -e "
		SELECT c.bytes FROM ci_log_chunks c JOIN ci_jobs j ON j.id = c.job_id
		JOIN ci_runs r ON r.id = j.run_id WHERE r.number = $R5 ORDER BY c.seq DESC LIMIT 1" >last &&
	grep -x "log truncated at 16 MiB" last
'

test_expect_success 'cancel_run: the step group stopped within seconds, cancelled by the login' '
	run slow "{\"inputs\":{\"marker\":\"cxl$$\"}}" && R6=$RUN &&
	runner_bg --once --grace 1 &&
	test_when_finished "kill $PID 2>/dev/null; true" &&
	wait_state $R6 slow running &&
	wait_for 15 pgrep -f "marker-cxl$$" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":$R6}" --token "$DAVE_X" && forge_ok &&
	jq -e ".changed == true and .state == \"cancelled\" and .cancelled_jobs == [\"slow\", \"after\"]" out.json &&
	wait_gone $PID &&
	get $R6 && jq -e ".state == \"cancelled\" and .jobs[0].state == \"cancelled\" and .jobs[1].state == \"cancelled\"" out.json &&
	job_log $R6 slow >log && grep -x "job cancelled by dave" log &&
	wait_for 10 eval "! pgrep -f marker-cxl$$" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":$R6}" --token "$DAVE_X" && forge_ok &&
	jq -e ".changed == false and .state == \"cancelled\" and .cancelled_jobs == []" out.json
'

# logs RUN JOB [AFTER]: get_run_logs as erin (a reader) into out.json, the text in text.out
logs () {
	tool_call get_run_logs "$(jq -nc --arg r "$P" --argjson n "$1" --arg j "$2" --arg c "${3:-}" \
		'{repo: $r, run: $n, job: $j} + (if $c != "" then {after: $c} else {} end)')" \
		--token "$ERIN_TOKEN" && forge_ok && jq -j .text out.json >text.out
}

test_expect_success 'get_run_logs: a 300 KiB log the runner wrote, in 64 KiB pages, byte for byte' '
	run logs "{\"jobs\":[\"numbered\"]}" && R9=$RUN &&
	runner --once &&
	{ echo "==> step 1/1: count"; seq -f "line %06g of the numbered log" 1 9600; } >expect.log &&
	: >joined && : >flags && cursor= && pages=0 &&
	while :; do
		logs $R9 numbered "$cursor" || return 1
		pages=$((pages + 1)) &&
		test $(wc -c <text.out) -le 65536 &&
		cat text.out >>joined &&
		jq -r "\"\(.has_more) \(.complete)\"" out.json >>flags &&
		cursor=$(jq -r .next_cursor out.json) || return 1
		test "$(jq -r .has_more out.json)" = true || break
		test $pages -lt 20 || return 1
	done &&
	test $pages = 5 &&
	printf "true false\ntrue false\ntrue false\ntrue false\nfalse true\n" >expect.flags &&
	test_cmp expect.flags flags &&
	cmp expect.log joined
'

test_expect_success 'get_run_logs on a running job: nothing more yet, not complete; the same cursor later gets the rest' '
	run logs "{\"jobs\":[\"wait\"],\"inputs\":{\"flag\":\"go.flag\"}}" && R10=$RUN &&
	runner_bg --once &&
	test_when_finished "kill $PID 2>/dev/null; true" &&
	wait_state $R10 wait running &&
	i=0 && while logs $R10 wait && ! grep -qx start text.out; do
		test $i -lt 50 || return 1; sleep 0.1; i=$((i + 1)); done &&
	jq -e ".has_more == false and .complete == false" out.json &&
	cursor=$(jq -r .next_cursor out.json) &&
	logs $R10 wait "$cursor" && test ! -s text.out &&
	jq -e ".has_more == false and .complete == false and .next_cursor == \"$cursor\"" out.json &&
	for d in "$TRASH"/runner/*/; do touch "$d/go.flag" || return 1; done &&
	wait_gone $PID &&
	logs $R10 wait "$cursor" &&
	test "$(cat text.out)" = done &&
	jq -e ".has_more == false and .complete == true" out.json
'

test_expect_success 'a running job whose runner went away: failure, runner lost' '
	run fail && R7=$RUN &&
	db_sql "UPDATE ci_jobs j JOIN ci_runs r ON r.id = j.run_id SET j.state = \"running\",
		j.claimed_by = \"elsewhere:1\", j.started_at = UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE,
		j.heartbeat_at = UTC_TIMESTAMP(3) - INTERVAL 5 MINUTE, r.state = \"running\"
		WHERE r.number = $R7 AND j.job_id = \"a\"" &&
	runner --once --lost-after 60 &&
	get $R7 &&
	jq -e ".state == \"failure\" and ([.jobs[] | .state] == [\"failure\", \"skipped\", \"skipped\", \"success\", \"success\"])" out.json &&
	job_log $R7 a >log && test "$(cat log)" = "runner lost"
'

test_expect_success 'SIGTERM: a running job gets the grace, then is cancelled; nothing left' '
	run slow "{\"inputs\":{\"marker\":\"trm$$\"}}" && R8=$RUN &&
	runner_bg --grace 1 &&
	test_when_finished "kill $PID 2>/dev/null; true" &&
	wait_state $R8 slow running &&
	wait_for 15 pgrep -f "marker-trm$$" &&
	kill -TERM $PID &&
	wait_gone $PID &&
	test "$(job_state $R8 slow)" = cancelled &&
	get $R8 && jq -e ".state == \"failure\" and .jobs[1].state == \"skipped\"" out.json &&
	job_log $R8 slow >log && grep -x "job cancelled: the runner stopped" log &&
	wait_for 10 eval "! pgrep -f marker-trm$$"
'

# legacy NAME ARGS_JSON TOKEN: a tools/call in the 2025-11-25 era (no
# MCP-Protocol-Version header); the tool's JSON answer in legacy.json
legacy () {
	mcp_legacy tools/call "{\"name\":\"$1\",\"arguments\":$2}" --token "$3" && test_status 200 &&
	jq -e ".result.isError != true" "$RESP.body" >/dev/null &&
	jq -r ".result.content[0].text" "$RESP.body" >legacy.json
}

test_expect_success 'the 2025-11-25 era: create_run, get_run, get_run_logs, cancel_run and rerun_run' '
	legacy create_run "{\"repo\":\"$P\",\"workflow\":\"fail\",\"jobs\":[\"e\"]}" "$DAVE_X" &&
	jq -e ".state == \"queued\" and .jobs == [\"d\", \"e\"] and .closure_added == [\"d\"]" legacy.json &&
	RL=$(jq -r .run legacy.json) &&
	runner --once &&
	legacy get_run "{\"repo\":\"$P\",\"run\":$RL}" "$ERIN_TOKEN" &&
	jq -e ".state == \"success\" and ([.jobs[] | .state] == [\"success\", \"success\"])" legacy.json &&
	legacy get_run_logs "{\"repo\":\"$P\",\"run\":$RL,\"job\":\"e\"}" "$ERIN_TOKEN" &&
	jq -e ".text == \"==> step 1/1: echo e-ran\ne-ran\n\" and .has_more == false and .complete == true" legacy.json &&
	legacy cancel_run "{\"repo\":\"$P\",\"run\":$RL}" "$DAVE_X" &&
	jq -e ".changed == false and .state == \"success\"" legacy.json &&
	legacy rerun_run "{\"repo\":\"$P\",\"run\":$RL}" "$DAVE_X" &&
	jq -e ".rerun_of == $RL and .state == \"queued\" and .jobs == [\"d\", \"e\"]" legacy.json &&
	legacy cancel_run "{\"repo\":\"$P\",\"run\":$(jq -r .run legacy.json)}" "$DAVE_X" &&
	jq -e ".changed == true and .cancelled_jobs == [\"d\", \"e\"]" legacy.json
'

test_done
