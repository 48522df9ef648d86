#!/bin/bash
# t6120: CI runs of pull requests: a run awaiting approval for every matching
# workflow whenever a revision is recorded (opening, a push noticed, a target
# change), approve_pull_request_checks starting them, the checks
# <workflow>/<job> their job states make, the merge gate on them, list_runs
# by pull request, get_run's approval, and rerun_run.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
config_set runner_dir "$TRASH/runner"
# On alice/project: alice owns it, mona manages, dave writes and authors the
# pull request.  The *_X tokens carry the execute scope, MONA_M the merge one.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_X=$(make_token mona read,execute) &&
MONA_M=$(make_token mona read,write,merge) &&
DAVE_X=$(make_token dave read,execute) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
W=.forgemcp/workflows
G="git --git-dir=$PROJECT_GIT"

# put BRANCH PATH CONTENT [PATH CONTENT]...: a commit on BRANCH of the served repository
put () {
	repo_put "$PROJECT_GIT" "$@"
}

CI_YML='name: CI
on:
  pull_request: { branches: [main, develop] }
inputs:
  level: { type: choice, choices: [fast, full], default: fast }
jobs:
  build: { steps: [ { run: make } ] }
  test:
    needs: [build]
    matrix: { os: [debian, alpine] }
    steps: [ { run: make check } ]
'
# A required input nobody can give a pull request's run: no run.
NEEDS_INPUT_YML='on: { pull_request: { branches: [main] } }
inputs:
  who: { type: string, required: true }
jobs: { greet: { steps: [ { run: echo hi } ] } }
'
# Another target branch only: no run.
RELEASE_YML='on: { pull_request: { branches: [release] } }
jobs: { pack: { steps: [ { run: tar } ] } }
'
# A file that does not load: no run, and the pull request still opens.
BROKEN_YML='on: { pull_request: {} }
jobs:
  build: { steps: [ { run: make } ], nedds: [x] }
'

# The same jobs with steps that succeed, for the runner.
GREEN_YML='on: { pull_request: { branches: [main] } }
jobs:
  build: { steps: [ { run: "true" } ] }
  test:
    needs: [build]
    matrix: { os: [debian, alpine] }
    steps: [ { run: "true" } ]
'

# checks N: get_pull_request_checks of #N; the answer goes to out.json
checks () {
	tool_call get_pull_request_checks "{\"repo\":\"$P\",\"number\":$1}" --token "$ALICE_TOKEN" &&
	forge_ok
}
# ci_status: the <workflow>/<job> checks of out.json as name=status lines
ci_status () {
	jq -r '[.checks[] | select(.name | startswith("ci/")) | .name + "=" + .status] | join(" ")' out.json
}
# runs N: list_runs {pull_request: N}; the answer goes to out.json
runs () {
	tool_call list_runs "{\"repo\":\"$P\",\"pull_request\":$1}" --token "$ERIN_TOKEN" && forge_ok
}
get () {
	tool_call get_run "{\"repo\":\"$P\",\"run\":$1}" --token "$ERIN_TOKEN" && forge_ok
}
approve () {
	tool_call approve_pull_request_checks "{\"repo\":\"$P\",\"number\":$1,\"version\":$2}" \
		--token "$MONA_X"
}
merge () {
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$1,\"version\":$2}" --token "$MONA_M"
}
rerun () {
	tool_call rerun_run "$(jq -nc --arg r "$P" --argjson a "$1" '{repo: $r} + $a')" \
		--token "${2:-$MONA_X}"
}
# job_states RUN: the states of run RUN's job instances, in order
job_states () {
	db_sql "select group_concat(j.state order by j.seq separator ' ') from ci_jobs j
		join ci_runs r on r.id = j.run_id where r.number = $1"
}

test_expect_success 'workflows on main; topic and develop branch from it' '
	put main "$W/ci.yml" "$CI_YML" "$W/needs-input.yml" "$NEEDS_INPUT_YML" \
		"$W/release.yml" "$RELEASE_YML" "$W/broken.yml" "$BROKEN_YML" &&
	$G update-ref refs/heads/develop "$($G rev-parse main)" &&
	$G update-ref refs/heads/topic "$($G rev-parse main)" &&
	put topic src/topic.c "int topic;" &&
	TOPIC1=$($G rev-parse topic) &&
	fm branch-rule set $P main --require-check ci/test >/dev/null &&
	fm branch-rule set $P develop --require-check ci/test >/dev/null
'

test_expect_success 'opening a pull request makes one run awaiting approval, every job blocked' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Topic\",\"head\":\"topic\",\"base\":\"main\"}" \
		--token "$DAVE_TOKEN" && forge_ok && N=$(jq -r .number out.json) &&
	runs $N &&
	jq -e "[.runs[] | {run, workflow, event, ref, commit, pull_request, version, state, actor, jobs_total}] ==
		[{run: 1, workflow: \"ci\", event: \"pull_request\", ref: \"topic\", commit: \"$TOPIC1\",
		  pull_request: $N, version: 1, state: \"awaiting_approval\", actor: \"dave\", jobs_total: 3}]" out.json &&
	get 1 &&
	jq -e ".inputs == {level: \"fast\"} and .approval == {required: true, approved: false, by: null, at: null}" out.json &&
	jq -e "[.jobs[] | .job_id + \"=\" + .state] == [\"build=blocked\", \"test (os=debian)=blocked\", \"test (os=alpine)=blocked\"]" out.json &&
	test "$(db_sql "select count(*) from ci_runs")" = 1 &&
	runs 99 && jq -e ".runs == [] and .has_more == false" out.json
'

test_expect_success 'its checks are <workflow>/<job>, pending; the required ci/test refuses the merge' '
	checks $N &&
	test "$(ci_status)" = "ci/test=pending ci/build=pending" &&
	jq -e ".version == 1 and .required_passing == false and .approval.approved == false" out.json &&
	merge $N 1 &&
	forge_error "required checks of branch .main. have not all passed on revision 1 .* ci/test is pending" &&
	test "$(db_sql "select count(*) from merges")" = 0
'

test_expect_success 'approval with a stale version is refused and starts nothing' '
	approve $N 2 &&
	forge_error "is at revision 1, not the revision 2 you passed" &&
	test "$(job_states 1)" = "blocked blocked blocked" &&
	runs $N && jq -e ".runs[0].state == \"awaiting_approval\"" out.json
'

test_expect_success 'approval starts the revision'"'"'s runs: queued, jobs without needs queued' '
	approve $N 1 && forge_ok &&
	jq -e ".version == 1 and .changed == true and .runs_started == [1]" out.json &&
	runs $N && jq -e ".runs[0].state == \"queued\"" out.json &&
	test "$(job_states 1)" = "queued blocked blocked" &&
	get 1 && jq -e ".approval.required and .approval.approved and .approval.by == \"mona\" and (.approval.at | type == \"string\")" out.json &&
	checks $N && test "$(ci_status)" = "ci/test=pending ci/build=pending"
'

test_expect_success 'approving again changes nothing' '
	approve $N 1 && forge_ok &&
	jq -e ".changed == false and .runs_started == []" out.json &&
	test "$(job_states 1)" = "queued blocked blocked"
'

test_expect_success 'a push to the head (outside the server): a new revision and its run, awaiting approval' '
	put topic src/topic.c "int topic = 2;" &&
	TOPIC2=$($G rev-parse topic) &&
	checks $N &&
	jq -e ".version == 2 and .head_commit == \"$TOPIC2\" and .approval.approved == false" out.json &&
	test "$(ci_status)" = "ci/test=pending ci/build=pending" &&
	runs $N &&
	jq -e "[.runs[] | [.run, .version, .state, .commit]] == [[2, 2, \"awaiting_approval\", \"$TOPIC2\"], [1, 1, \"queued\", \"$TOPIC1\"]]" out.json &&
	test "$(job_states 2)" = "blocked blocked blocked" &&
	merge $N 1 &&
	forge_error "is at version 2, not the version 1 you passed"
'

test_expect_success 'G14: a target change to a branch at the same commit: new revision, checks pending, merge refused' '
	test "$($G rev-parse develop)" = "$($G rev-parse main)" &&
	tool_call edit_pull_request "{\"repo\":\"$P\",\"number\":$N,\"edit_version\":1,\"target\":\"develop\"}" \
		--token "$DAVE_TOKEN" && forge_ok &&
	jq -e ".version == 3 and .target_changed == true" out.json &&
	runs $N &&
	jq -e "[.runs[] | [.run, .version, .state, .commit, .event]] | .[0] == [3, 3, \"awaiting_approval\", \"$TOPIC2\", \"pull_request\"]" out.json &&
	get 3 && jq -e ".approval.approved == false and .actor == \"dave\"" out.json &&
	checks $N &&
	jq -e ".version == 3 and .target == \"develop\" and .head_commit == \"$TOPIC2\" and .required_passing == false" out.json &&
	test "$(ci_status)" = "ci/test=pending ci/build=pending" &&
	merge $N 3 &&
	forge_error "required checks of branch .develop. have not all passed on revision 3 .* ci/test is pending" &&
	approve $N 3 && forge_ok && jq -e ".runs_started == [3]" out.json
'

# The one place this script sets job states itself: no runner executes jobs
# here, so SQL stands in for it to show how job states map to checks.
set_job () {
	db_sql "update ci_jobs j join ci_runs r on r.id = j.run_id set j.state = '$3'
		where r.number = $1 and j.job_id = '$2'"
}

test_expect_success 'check mapping from job states (SQL stands in for the runner), then the merge goes through' '
	set_job 3 build running &&
	checks $N && test "$(ci_status)" = "ci/test=pending ci/build=running" &&
	set_job 3 build success && set_job 3 "test (os=debian)" success &&
	set_job 3 "test (os=alpine)" running &&
	checks $N && test "$(ci_status)" = "ci/test=running ci/build=success" &&
	set_job 3 "test (os=alpine)" timed_out &&
	checks $N && test "$(ci_status)" = "ci/test=failure ci/build=success" &&
	merge $N 3 && forge_error "ci/test is failure" &&
	set_job 3 "test (os=alpine)" skipped &&
	checks $N && test "$(ci_status)" = "ci/test=failure ci/build=success" &&
	set_job 3 "test (os=alpine)" cancelled &&
	checks $N && test "$(ci_status)" = "ci/test=cancelled ci/build=success" &&
	set_job 3 "test (os=alpine)" success &&
	db_sql "update ci_runs set state = '"'"'success'"'"', finished_at = utc_timestamp(3) where number = 3" &&
	checks $N && test "$(ci_status)" = "ci/test=success ci/build=success" &&
	jq -e ".required_passing == true" out.json &&
	merge $N 3 && forge_ok && jq -e ".queued == true and .version == 3" out.json
'

test_expect_success 'rerun_run of a run that is not final is refused' '
	rerun "{\"run\":1}" && forge_error "^run 1 is still running: cancel it or wait$" &&
	rerun "{\"run\":99}" && forge_error "^run 99 not found in alice/project$"
'

test_expect_success 'a writer cannot rerun a pull request'"'"'s run' '
	rerun "{\"run\":3}" "$DAVE_X" &&
	forge_error "^you cannot rerun a pull request.s run on alice/project: that needs the manager role or more, and your role is writer$"
'

test_expect_success 'rerun_run after the branch moved: the old commit, same inputs and revision, rerun_of' '
	BEFORE=$(db_sql "select count(*) from ci_runs") &&
	put topic src/topic.c "int topic = 3;" &&
	rerun "{\"run\":3}" && forge_ok &&
	jq -e ". == {run: 4, rerun_of: 3, state: \"queued\", commit: \"$TOPIC2\", workflow: \"ci\",
		jobs: [\"build\", \"test (os=debian)\", \"test (os=alpine)\"], closure_added: []}" out.json &&
	get 4 &&
	jq -e ".event == \"rerun\" and .ref == \"topic\" and .version == 3 and .pull_request == $N and .inputs == {level: \"fast\"} and .actor == \"mona\"" out.json &&
	jq -e ".workflow_blob == \"$($G rev-parse "$TOPIC2:$W/ci.yml")\" and .approval.approved == true" out.json &&
	test "$(job_states 4)" = "queued blocked blocked"
'

test_expect_success 'a cancelled run of a revision not approved: its rerun awaits approval, jobs blocked' '
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":2}" --token "$MONA_X" && forge_ok &&
	jq -e ".state == \"cancelled\"" out.json &&
	rerun "{\"run\":2}" && forge_ok &&
	jq -e ".run == 5 and .rerun_of == 2 and .state == \"awaiting_approval\" and .commit == \"$TOPIC2\"" out.json &&
	test "$(job_states 5)" = "blocked blocked blocked" &&
	get 5 && jq -e ".version == 2 and .approval == {required: true, approved: false, by: null, at: null}" out.json
'

test_expect_success 'rerun_run of some jobs: their closure joins; a job the run lacks is refused' '
	rerun "{\"run\":3,\"jobs\":[\"test\"]}" && forge_ok &&
	jq -e ".run == 6 and .rerun_of == 3 and (.jobs | length) == 3" out.json &&
	get 6 && jq -e ".selected_jobs == [\"test\"] and .closure_added == [\"build\"]" out.json &&
	rerun "{\"run\":3,\"jobs\":[\"deploy\"]}" &&
	forge_error "^job .deploy. is not a job of run 3: name logical jobs of that run \(see get_run\)$"
'

# runner: `forgemcp runner --once`, everything runnable now and what it unblocks
runner () {
	"$FORGEMCP" runner --once --interval 0.1 >>"$TRASH/runner.log" 2>&1
}

test_expect_success 'the runner: nothing of a run awaiting approval; approve, run, checks success, merged' '
	$G update-ref refs/heads/green "$($G rev-parse main)" &&
	put green "$W/ci.yml" "$GREEN_YML" &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Green\",\"head\":\"green\",\"base\":\"main\"}" \
		--token "$DAVE_TOKEN" && forge_ok && M=$(jq -r .number out.json) &&
	runs $M && R=$(jq -r ".runs[0].run" out.json) &&
	jq -e ".runs | length == 1 and .[0].state == \"awaiting_approval\"" out.json &&
	runner &&
	test "$(job_states $R)" = "blocked blocked blocked" &&
	checks $M && test "$(ci_status)" = "ci/test=pending ci/build=pending" &&
	approve $M 1 && forge_ok && jq -e ".runs_started == [$R]" out.json &&
	runner &&
	get $R && jq -e ".state == \"success\" and ([.jobs[] | .state] | unique) == [\"success\"]" out.json &&
	checks $M && test "$(ci_status)" = "ci/test=success ci/build=success" &&
	jq -e ".required_passing == true" out.json &&
	merge $M 1 && forge_ok && jq -e ".queued == true and .version == 1" out.json
'

test_done
