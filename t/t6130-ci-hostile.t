#!/bin/bash
# t6130: hostile workflows (issue 19, spec section 4 WP2).  Files that try
# the loader (anchors and aliases, a 1 MB file, nesting 100 deep, 500
# matrix children) are refused by create_run with the documented message
# and leave nothing behind; steps that fork-bomb, write a file past the
# file size limit, print 20 MiB and print invalid UTF-8, NUL and terminal
# escapes each end as documented, through one long-lived runner.  After it
# all the forge's FastCGI workers and that runner are the very processes
# that started, and both still answer.  (A needs cycle is t6100's, the
# rlimits one by one t6115's.)
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"
. "$TEST_DIRECTORY/lib/hostile.sh"

ci_need_bwrap
ci_start "$HOSTILE_WORKERS"
# steps run as a uid of this script's own (see t6115): its fork bomb fills
# this uid's process limit, no other script's
config_set runner_uid 65532

# refused WORKFLOW REGEX: create_run of WORKFLOW on main is refused with REGEX
refused () {
	tool_call create_run "{\"repo\":\"$P\",\"workflow\":\"$1\"}" --token "$DAVE_X" &&
	forge_error "$2"
}
job_state () {
	db_sql "SELECT j.state FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
		WHERE r.number = $1 AND j.job_id = '$2'"
}
# final RUN: the run is in a final state
final () {
	case $(db_sql "SELECT state FROM ci_runs WHERE number = $1") in
	success|failure|cancelled) return 0 ;;
	esac
	return 1
}
# bomb_gone: no process of the fork bomb is left
bomb_gone () {
	! pgrep -u 65532 -f "sleep 1.6130" && ! pgrep -u 65532 -f "bomb\(\) \{"
}
# ran WORKFLOW: a run of WORKFLOW, waited for (60 s at most) until final; get_run in out.json
ran () {
	run "$1" && wait_for 60 final $RUN && get $RUN
}

nest=$(printf '[%.0s' $(seq 100))1$(printf ']%.0s' $(seq 100))
axis=$(seq -s ', ' 25)
axis2=$(seq -s ', ' 20)
pad=$(head -c 1048576 /dev/zero | tr '\0' x | fold -w 100 | sed 's/^/# /')

cat >"$TRASH/hostile.yml" <<'EOF'
on: { manual: true }
jobs:
  bomb:
    steps:
      - run: |
          bomb() { bomb | bomb & }
          bomb
          sleep 1.6130
          echo after-bomb
  disk: { steps: [ { run: "head -c 3000000 /dev/zero >big; echo filled" } ] }
  loud: { steps: [ { run: "head -c 20971520 /dev/zero | tr '\\0' y; echo; echo loud-end" }, { run: echo second } ] }
  bytes: { steps: [ { name: bytes, run: "printf 'ok \\033[31mred\\033[0m nul:\\000: bad:\\377\\376: euro:\\342\\202\\254 end\\n'" } ] }
EOF

test_expect_success 'hostile workflow files committed; the workers and a runner recorded' '
	repo_put "$PROJECT_GIT" main \
		"$W/anchor.yml" "on: { manual: true }
jobs:
  a: &j { steps: [ { run: echo a } ] }
  b: *j
" \
		"$W/alias.yml" "on: { manual: true }
jobs:
  a: { steps: [ { run: echo a } ] }
  b: *nothing
" \
		"$W/laughs.yml" "on: { manual: true }
x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]
x1: &x1 [*x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0, *x0]
x2: &x2 [*x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1, *x1]
jobs: { a: { steps: [ { run: echo a } ] } }
" \
		"$W/big.yml" "on: { manual: true }
jobs: { a: { steps: [ { run: echo a } ] } }
$pad
" \
		"$W/deep.yml" "on: { manual: true }
jobs:
  a: { env: { X: $nest }, steps: [ { run: echo a } ] }
" \
		"$W/wide.yml" "on: { manual: true }
jobs:
  a: { matrix: { x: [$axis], y: [$axis2] }, steps: [ { run: echo a } ] }
" \
		"$W/hostile.yml" "$(cat "$TRASH/hostile.yml")" \
		"$W/plain.yml" "on: { manual: true }
jobs: { plain: { steps: [ { run: echo plain-ran } ] } }
" &&
	test $(git --git-dir="$PROJECT_GIT" cat-file -s "main:$W/big.yml") -gt 1048576 &&
	workers_record &&
	FORGEMCP_RUNNER_LIMIT_PROCESSES=64 FORGEMCP_RUNNER_LIMIT_FILE_SIZE=1M runner_bg &&
	RUNNER_PID=$PID && proc_alive $RUNNER_PID
'

test_expect_success 'anchors and aliases are refused at their line, a billion laughs at its first anchor' '
	refused anchor "^$W/anchor.yml line 3: anchors \(&name\) are not allowed" &&
	refused alias "^$W/alias.yml line 4: aliases \(\*name\) are not allowed" &&
	refused laughs "^$W/laughs.yml line 2: anchors \(&name\) are not allowed"
'

test_expect_success 'a 1 MB file is refused by its size' '
	refused big "^$W/big.yml line 1: the file has 10[0-9]{5} bytes: at most 65536$"
'

test_expect_success 'nesting 100 deep is refused at 16' '
	refused deep "^$W/deep.yml line 3: nested more than 16 deep"
'

test_expect_success '500 matrix children are refused at 64' '
	refused wide "^$W/wide.yml line 3: matrix makes more than 64 children"
'

test_expect_success 'the refusals stored nothing' '
	test "$(db_sql "SELECT COUNT(*) FROM ci_runs")" = 0
'

test_expect_success 'a fork bomb, a file past the limit, 20 MiB of output and raw bytes: each ends as documented' '
	ran hostile && RH=$RUN &&
	jq -e ".state == \"failure\" and ([.jobs[] | .state] == [.jobs[0].state, \"failure\", \"success\", \"success\"])" out.json &&
	jq -e "(.jobs[0].state == \"failure\" or .jobs[0].state == \"success\") and .jobs[1].exit_code == 153" out.json &&
	job_log $RH disk >log && ! grep -x filled log &&
	wait_for 10 bomb_gone &&
	test "$(db_sql "SELECT j.log_bytes = 16777216 + LENGTH(\"log truncated at 16 MiB\n\") AND
		SUM(LENGTH(c.bytes)) = j.log_bytes FROM ci_log_chunks c JOIN ci_jobs j ON j.id = c.job_id
		JOIN ci_runs r ON r.id = j.run_id WHERE r.number = $RH AND j.job_id = \"loud\"
		GROUP BY j.id")" = 1
'

test_expect_success 'invalid UTF-8, NUL and escapes a step printed read back as valid JSON' '
	tool_call get_run_logs "{\"repo\":\"$P\",\"run\":$RH,\"job\":\"bytes\"}" --token "$ERIN_TOKEN" &&
	forge_ok &&
	jq -e ".text == \"==> step 1/1: bytes\nok \u001b[31mred\u001b[0m nul:\ufffd: bad:\ufffd\ufffd: euro:\u20ac end\n\" and .complete == true" out.json &&
	grep -F "\\u001b[31mred" "$RESP.body" &&
	iconv -f UTF-8 -t UTF-8 "$RESP.body" >/dev/null
'

test_expect_success 'the same runner process still runs jobs' '
	ran plain && jq -e ".state == \"success\"" out.json &&
	job_log $RUN plain >log && grep -x plain-ran log &&
	proc_alive $RUNNER_PID &&
	test "$(db_sql "SELECT COUNT(DISTINCT claimed_by) FROM ci_jobs WHERE claimed_by IS NOT NULL")" = 1 &&
	test "$(db_sql "SELECT claimed_by FROM ci_jobs WHERE claimed_by IS NOT NULL LIMIT 1")" = "$(hostname):$RUNNER_PID" &&
	stop_pid $RUNNER_PID && test "$STOP_STATUS" = 0
'

test_expect_success 'the workers kept their pids and still answer' '
	workers_unchanged &&
	tool_call get_run "{\"repo\":\"$P\",\"run\":$RH}" --token "$ERIN_TOKEN" && forge_ok
'

test_done
