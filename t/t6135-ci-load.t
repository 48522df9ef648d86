#!/bin/bash
# t6135: a load of 200 runs of 3 jobs on 4 runners (two `forgemcp runner`
# processes, two jobs at once each).  20 pull requests each get a run of
# each of 10 workflows; they are approved while the runners work, two runs
# are cancelled on the way.  At the end every run is final, every job ran
# at most once and ended as its step decides, and every CI check of
# get_pull_request_checks is what the table of doc/ci.md makes of its
# job's states.  The wall time of the load is printed, never asserted.
# The runners run with runner_sandbox = none: what is under test is the
# queue, the claims and the checks, and the sandbox (t6115, t6125) would
# cost each job two bubblewrap starts, some 80 s for the 600 jobs on 2
# cores against 16 s without it; the script takes about 35 s.  The
# sanitizer pass runs 80 of the 200 runs.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"

# 200 runs wait for approval at once: past the default of 100
export FORGEMCP_CI_WAITING_RUNS=1000
start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
ALICE_X=$(make_token alice read,write,execute) || { echo "Bail out! fixtures"; exit 1; }
DAVE_X=$ALICE_X
config_set runner_dir "$TRASH/runner"

P=alice/project
W=.forgemcp/workflows
PRS=20
# Under the sanitizers the same paths with fewer runs: 80 runs, 240 jobs
# (the full load costs some 220 CPU seconds there, a third of its batch's
# share of one core for the whole script).
if asan_build; then
	PRS=8
fi
WORKFLOWS=10
G="git --git-dir=$PROJECT_GIT"

# workflow I: a -> b -> c; b fails on pull request N when (N + I) % 4 == 0
workflow () {
	cat <<EOF
on: { pull_request: { branches: [main] } }
jobs:
  a: { steps: [ { name: a, run: echo a } ] }
  b: { needs: [a], steps: [ { name: b, run: "test \$(( (\$(cat n.txt) + $1) % 4 )) != 0" } ] }
  c: { needs: [b], steps: [ { name: c, run: echo c } ] }
EOF
}
# all_final: no run and no job of the repository is unfinished
all_final () {
	test "$(db_sql "SELECT (SELECT COUNT(*) FROM ci_runs WHERE state NOT IN
		('success', 'failure', 'cancelled')) + (SELECT COUNT(*) FROM ci_jobs WHERE state NOT IN
		('success', 'failure', 'skipped', 'cancelled', 'timed_out'))")" = 0
}

test_expect_success "$WORKFLOWS workflows on main, $PRS branches each with its number" '
	args=() &&
	for i in $(seq 0 $((WORKFLOWS - 1))); do
		args+=("$W/w$i.yml" "$(workflow $i)") || return 1
	done &&
	repo_put "$PROJECT_GIT" main "${args[@]}" &&
	for n in $(seq $PRS); do
		$G update-ref refs/heads/pr-$n main &&
		repo_put "$PROJECT_GIT" pr-$n n.txt "$n" || return 1
	done
'

test_expect_success "$PRS pull requests: $((PRS * WORKFLOWS)) runs of 3 jobs awaiting approval" '
	for n in $(seq $PRS); do
		tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"load $n\",\"head\":\"pr-$n\",\"base\":\"main\"}" \
			--token "$ALICE_X" && forge_ok &&
		test "$(jq -r .number out.json)" = $n || return 1
	done &&
	test "$(db_sql "SELECT COUNT(*) FROM ci_runs WHERE state = \"awaiting_approval\"")" = $((PRS * WORKFLOWS)) &&
	test "$(db_sql "SELECT COUNT(*) FROM ci_jobs")" = $((PRS * WORKFLOWS * 3))
'

test_expect_success 'approved while 4 runners work, two runs cancelled: every run ends' '
	mkdir -p "$TRASH/host-1" "$TRASH/host-2" || return 1
	FORGEMCP_RUNNER_SANDBOX=none FORGEMCP_RUNNER_DIR=$TRASH/host-1 "$FORGEMCP" runner --interval 0.1 --concurrency 2 \
		>>"$TRASH/runner-1.log" 2>&1 &
	R1=$!
	FORGEMCP_RUNNER_SANDBOX=none FORGEMCP_RUNNER_DIR=$TRASH/host-2 "$FORGEMCP" runner --interval 0.1 --concurrency 2 \
		>>"$TRASH/runner-2.log" 2>&1 &
	R2=$!
	test_when_finished "kill $R1 $R2 2>/dev/null; true" &&
	start=$(date +%s.%N) &&
	for n in $(seq $PRS); do
		tool_call approve_pull_request_checks "{\"repo\":\"$P\",\"number\":$n,\"version\":1}" \
			--token "$ALICE_X" && forge_ok &&
		jq -e ".runs_started | length == $WORKFLOWS" out.json >/dev/null || return 1
	done &&
	for run in $(db_sql "SELECT r.number FROM ci_runs r JOIN pull_requests p ON p.id = r.pull_request_id
		WHERE p.number = $PRS AND r.workflow IN (\"w0\", \"w1\")"); do
		tool_call cancel_run "{\"repo\":\"$P\",\"run\":$run}" --token "$ALICE_X" && forge_ok || return 1
	done &&
	wait_for 600 all_final &&
	end=$(date +%s.%N) &&
	echo "# $((PRS * WORKFLOWS)) runs, $((PRS * WORKFLOWS * 3)) jobs on 4 runners: $(awk "BEGIN { printf \"%.1f\", $end - $start }") s from the first approval" &&
	stop_pid $R1 && test "$STOP_STATUS" = 0 && stop_pid $R2 && test "$STOP_STATUS" = 0 &&
	test "$(db_sql "SELECT COUNT(DISTINCT claimed_by) FROM ci_jobs WHERE claimed_by IS NOT NULL")" = 2
'

test_expect_success 'every job final; each that ran logged its step once; outcomes as the steps decide' '
	test "$(db_sql "SELECT COUNT(*) FROM ci_jobs WHERE state NOT IN
		(\"success\", \"failure\", \"skipped\", \"cancelled\")")" = 0 &&
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" -e "
		SELECT x.id, x.state, HEX(x.t) FROM (SELECT j.id, j.job, j.state,
		GROUP_CONCAT(c.bytes ORDER BY c.seq SEPARATOR \"\") AS t
		FROM ci_jobs j LEFT JOIN ci_log_chunks c ON c.job_id = j.id
		WHERE j.started_at IS NOT NULL GROUP BY j.id, j.job, j.state) x
		WHERE LOCATE(\"==> step\", x.t, 2) <> 0
		OR LEFT(x.t, LENGTH(x.job) + 15) <> CONCAT(\"==> step 1/1: \", x.job, \"\n\")" >bad-logs &&
	{ test ! -s bad-logs || { cat bad-logs; false; }; } &&
	db_sql "SELECT p.number, SUBSTRING(r.workflow, 2), r.state,
		GROUP_CONCAT(j.state ORDER BY j.seq SEPARATOR \" \") FROM ci_runs r
		JOIN pull_requests p ON p.id = r.pull_request_id JOIN ci_jobs j ON j.run_id = r.id
		GROUP BY r.id ORDER BY r.id" >states &&
	test $(wc -l <states) = $((PRS * WORKFLOWS)) &&
	while read n i state jobs; do
		if test $n = $PRS && test $i -lt 2; then
			test $state = cancelled || { echo "run of w$i of #$n: $state"; return 1; }
			continue
		fi
		if test $(( (n + i) % 4 )) = 0; then
			want="failure success failure skipped"
		else
			want="success success success success"
		fi
		test "$state $jobs" = "$want" || { echo "w$i of #$n: $state $jobs, not $want"; return 1; }
	done <states
'

test_expect_success "every CI check of the $PRS pull requests agrees with its job states" '
	db_sql "SELECT p.number, CONCAT(r.workflow, \"/\", j.job), CASE
		WHEN j.state = \"success\" THEN \"success\"
		WHEN j.state IN (\"failure\", \"timed_out\", \"skipped\") THEN \"failure\"
		WHEN j.state = \"cancelled\" THEN \"cancelled\"
		WHEN j.state = \"running\" THEN \"running\" ELSE \"pending\" END
		FROM ci_runs r JOIN pull_requests p ON p.id = r.pull_request_id
		JOIN ci_jobs j ON j.run_id = r.id" | sort >expect &&
	test $(wc -l <expect) = $((PRS * WORKFLOWS * 3)) &&
	: >actual &&
	for n in $(seq $PRS); do
		tool_call get_pull_request_checks "{\"repo\":\"$P\",\"number\":$n}" --token "$ERIN_TOKEN" &&
		forge_ok &&
		jq -r --arg n $n ".checks[] | select(.name | test(\"^w[0-9]+/\")) | \"\(\$n)\t\(.name)\t\(.status)\"" out.json >>actual ||
		return 1
	done &&
	sort actual >actual.sorted &&
	test_cmp expect actual.sorted &&
	grep -c "	cancelled$" expect && grep -c "	failure$" expect
'

test_done
