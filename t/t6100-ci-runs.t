#!/bin/bash
# t6100: CI runs started by hand: create_run (workflow files read at a pinned
# commit, inputs, job selection with closure and matrix, roles and scopes, and
# every refusal leaving nothing behind), list_runs and get_run.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# On alice/project: alice owns it, mona manages, dave writes, erin reads, frank
# is a stranger.  The *_X tokens carry the execute scope.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_X=$(make_token mona read,execute) &&
DAVE_X=$(make_token dave read,execute) &&
ERIN_X=$(make_token erin read,execute) &&
FRANK_X=$(make_token frank read,execute) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
W=.forgemcp/workflows

# put BRANCH PATH CONTENT [PATH CONTENT]...: a commit on BRANCH of alice/project
put () { repo_put "$PROJECT_GIT" "$@"; }

CI_YML='name: CI
on:
  pull_request: { branches: [main] }
  manual: true
inputs:
  level:   { type: choice, choices: [fast, full], required: true }
  verbose: { type: boolean, default: false }
  count:   { type: number, default: 1 }
  note:    { type: string }
jobs:
  build:   { steps: [ { run: make } ] }
  test:
    needs: [build]
    matrix: { os: [debian, alpine], cc: [gcc, clang] }
    timeout_minutes: 45
    env: { MODE: "${{ inputs.level }}" }
    steps: [ { name: check, run: make check } ]
  deploy:  { needs: [test], steps: [ { run: ./deploy } ] }
'
PR_YML='on: { pull_request: { branches: [main] } }
jobs:
  lint: { steps: [ { run: make lint } ] }
  test: { needs: [lint], steps: [ { run: make check } ] }
'
PUSH_YML='on: { push: { branches: [main] } }
jobs: { build: { steps: [ { run: make } ] } }
'

# run ARGS_JSON [TOKEN]: create_run on alice/project (ARGS_JSON without repo)
run () {
	tool_call create_run "$(jq -nc --arg r "$P" --argjson a "$1" '{repo: $r} + $a')" \
		--token "${2:-$DAVE_X}"
}
# get N [TOKEN]: get_run N; the answer goes to out.json
get () {
	tool_call get_run "{\"repo\":\"$P\",\"run\":$1}" --token "${2:-$ERIN_TOKEN}" && forge_ok
}
runs_count () {
	db_sql "select (select count(*) from ci_runs) + (select count(*) from ci_jobs)"
}

test_expect_success 'workflows committed on main and on a branch of broken ones' '
	put main "$W/ci.yml" "$CI_YML" "$W/pr.yaml" "$PR_YML" "$W/push.yml" "$PUSH_YML" &&
	MAIN1=$(git --git-dir="$PROJECT_GIT" rev-parse main) &&
	CI_BLOB=$(git --git-dir="$PROJECT_GIT" rev-parse "main:$W/ci.yml") &&
	git --git-dir="$PROJECT_GIT" tag v1 main &&
	git --git-dir="$PROJECT_GIT" branch broken main &&
	put broken "$W/cycle.yml" "on: { manual: true }
jobs:
  a: { needs: [c], steps: [ { run: x } ] }
  b: { needs: [a], steps: [ { run: x } ] }
  c: { needs: [b], steps: [ { run: x } ] }
" "$W/empty-axis.yml" "on: { manual: true }
jobs:
  t: { matrix: { os: [] }, steps: [ { run: x } ] }
" "$W/typo.yml" "on: { manual: true }
jobs:
  build:
    steps: [ { run: make } ]
    nedds: [x]
" "$W/needs.yml" "on: { manual: true }
jobs:
  a: { steps: [ { run: x } ] }
  b: { needs: [biuld], steps: [ { run: x } ] }
" &&
	BEFORE=$(runs_count) && test "$BEFORE" = 0
'

test_expect_success 'tools/list: the ci tools, their scopes in the descriptions and hints' '
	mcp_modern tools/list && test_status 200 &&
	test_jq "[.result.tools[] | select(.name == \"create_run\" or .name == \"list_runs\" or .name == \"get_run\")] | length == 3" &&
	test_jq ".result.tools[] | select(.name == \"create_run\") | .annotations.readOnlyHint == false and .annotations.openWorldHint == false and .annotations.destructiveHint == false" &&
	test_jq ".result.tools[] | select(.name == \"list_runs\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"get_run\") | .annotations.readOnlyHint == true"
'

test_expect_success 'create_run by a writer: run 1, queued, every job and matrix child in order' '
	run "{\"workflow\":\"ci\",\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e "keys_unsorted == [\"run\", \"state\", \"commit\", \"workflow\", \"jobs\", \"closure_added\"]" out.json &&
	jq -e ".run == 1 and .state == \"queued\" and .commit == \"$MAIN1\" and .workflow == \"ci\" and .closure_added == []" out.json &&
	jq -e ".jobs == [\"build\", \"test (os=debian, cc=gcc)\", \"test (os=debian, cc=clang)\", \"test (os=alpine, cc=gcc)\", \"test (os=alpine, cc=clang)\", \"deploy\"]" out.json
'

test_expect_success 'get_run: pinned commit and blob, inputs after defaults, jobs blocked or queued' '
	get 1 &&
	jq -e ".run == 1 and .workflow == \"ci\" and .workflow_name == \"CI\" and .event == \"manual\" and .ref == \"main\"" out.json &&
	jq -e ".commit == \"$MAIN1\" and .workflow_path == \"$W/ci.yml\" and .workflow_blob == \"$CI_BLOB\"" out.json &&
	jq -e ".inputs == {level: \"fast\", verbose: false, count: 1}" out.json &&
	jq -e ".selected_jobs == null and .closure_added == [] and .approval == null and .pull_request == null" out.json &&
	jq -e ".actor == \"dave\" and .state == \"queued\" and .jobs_total == 6 and .jobs_finished == 0 and .rerun_of == null" out.json &&
	jq -e "[.jobs[] | .state] == [\"queued\", \"blocked\", \"blocked\", \"blocked\", \"blocked\", \"blocked\"]" out.json &&
	jq -e ".jobs[2] == {job_id: \"test (os=debian, cc=clang)\", job: \"test\", name: \"test\",
		matrix: {os: \"debian\", cc: \"clang\"}, needs: [\"build\"], state: \"blocked\",
		exit_code: null, timeout_minutes: 45, started_at: null, finished_at: null,
		timed_out: false, log_bytes: 0}" out.json &&
	jq -e ".jobs[0].matrix == {} and .jobs[0].needs == [] and .jobs[0].timeout_minutes == 30" out.json
'

test_expect_success '1.6.9 #1: the workflow changed, then deleted: run 1 keeps its commit and blob' '
	put main "$W/ci.yml" "$(printf "%s" "$CI_YML" | sed "s/name: CI/name: Changed/")" &&
	run "{\"workflow\":\"ci\",\"inputs\":{\"level\":\"full\"}}" && forge_ok &&
	jq -e ".run == 2 and .commit != \"$MAIN1\"" out.json &&
	put main "$W/ci.yml" - &&
	get 1 &&
	jq -e ".commit == \"$MAIN1\" and .workflow_blob == \"$CI_BLOB\" and .workflow_name == \"CI\"" out.json &&
	get 2 && jq -e ".workflow_name == \"Changed\" and .workflow_blob != \"$CI_BLOB\"" out.json
'

test_expect_success '1.6.9 #2: a tag and a full commit id run the workflow there' '
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e ".run == 3 and .commit == \"$MAIN1\"" out.json &&
	run "{\"workflow\":\"ci\",\"ref\":\"$MAIN1\",\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e ".run == 4 and .commit == \"$MAIN1\"" out.json &&
	get 4 && jq -e ".ref == \"$MAIN1\" and .workflow_blob == \"$CI_BLOB\"" out.json
'

test_expect_success '1.6.9 #3: jobs [deploy] brings test (2x2) and build; closure_added names them' '
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"jobs\":[\"deploy\"],\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e ".run == 5 and .closure_added == [\"build\", \"test\"] and (.jobs | length) == 6" out.json &&
	get 5 &&
	jq -e ".selected_jobs == [\"deploy\"] and .closure_added == [\"build\", \"test\"]" out.json &&
	jq -e "[.jobs[] | .job] == [\"build\", \"test\", \"test\", \"test\", \"test\", \"deploy\"]" out.json
'

test_expect_success 'jobs [build] alone: nothing downstream joins it' '
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"jobs\":[\"build\"],\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e ".run == 6 and .jobs == [\"build\"] and .closure_added == []" out.json
'

test_expect_success '1.6.9 #7: a fractional number is accepted and kept as written' '
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"full\",\"count\":1.5,\"verbose\":true,\"note\":\"hi\"}}" && forge_ok &&
	get 7 &&
	jq -e ".inputs == {level: \"full\", count: 1.5, verbose: true, note: \"hi\"}" out.json
'

test_expect_success 'a pull-request-only workflow: a manager naming jobs may start it' '
	run "{\"workflow\":\"pr\",\"ref\":\"v1\",\"jobs\":[\"test\"]}" "$MONA_X" && forge_ok &&
	jq -e ".run == 8 and .jobs == [\"lint\", \"test\"] and .closure_added == [\"lint\"]" out.json &&
	get 8 && jq -e ".event == \"manual\" and .workflow_path == \"$W/pr.yaml\" and .actor == \"mona\"" out.json
'

BEFORE=$(runs_count)

# refused ARGS_JSON REGEX [TOKEN]: create_run is refused with a message matching REGEX
refused () {
	run "$1" "${3:-$DAVE_X}" && forge_error "$2"
}

test_expect_success 'the error table of create_run' '
	refused "{\"workflow\":\"nope\",\"ref\":\"v1\"}" \
		"^no workflow .nope. at v1 \(${MAIN1:0:12}\): the workflows there are ci, pr, push$" &&
	refused "{\"workflow\":\"pr\",\"ref\":\"v1\"}" \
		"^workflow .pr. runs only for pull requests: a manager may start it by naming jobs$" &&
	refused "{\"workflow\":\"pr\",\"ref\":\"v1\",\"jobs\":[\"test\"]}" \
		"^you cannot start runs on alice/project: that needs the manager role or more, and your role is writer$" &&
	refused "{\"workflow\":\"push\",\"ref\":\"v1\"}" "^workflow .push. cannot be started by hand" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"levle\":\"fast\"}}" \
		"^workflow .ci. has no input .levle.: its inputs are level, verbose, count, note$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"slow\"}}" \
		"^input .level. must be one of fast, full; got .slow.$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{}}" \
		"^input .level. is required by workflow .ci.$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\",\"count\":\"2\"}}" \
		"^input .count. must be a number, not a string$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":[\"fast\"]}}" \
		"^input .level. must be a string, boolean or number$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":{\"a\":1}}}" \
		"^input .level. must be a string, boolean or number$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":$(jq -nc "[range(26)] | map({key: \"i\(.)\", value: 1}) | from_entries")}" \
		"^inputs has 26 entries: at most 25$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"},\"jobs\":[\"test (os=debian, cc=gcc)\"]}" \
		"^workflow .ci. has no job .test \(os=debian, cc=gcc\).: name logical jobs \(build, test, deploy\); their matrix children are included$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"},\"jobs\":[\"tset\"]}" \
		"^workflow .ci. has no job .tset." &&
	refused "{\"workflow\":\"Bad!\"}" "^workflow .Bad!. is not a workflow id"
'

test_expect_success '1.6.9 #2: an unknown ref and an ambiguous one get the usual ref messages' '
	refused "{\"workflow\":\"ci\",\"ref\":\"nope\"}" "^ref .nope. not found$" &&
	pair=$(perl -MDigest::SHA=sha1_hex -e "my %s; for my \$i (0..100000) { my \$c = \"amb\$i\n\"; my \$p = substr(sha1_hex(\"blob \" . length(\$c) . \"\\0\" . \$c), 0, 4); if (exists \$s{\$p}) { print \"\$s{\$p} \$i \$p\"; exit } \$s{\$p} = \$i }") &&
	set -- $pair &&
	printf "amb%s\n" "$1" | git --git-dir="$PROJECT_GIT" hash-object -w --stdin >/dev/null &&
	printf "amb%s\n" "$2" | git --git-dir="$PROJECT_GIT" hash-object -w --stdin >/dev/null &&
	refused "{\"workflow\":\"ci\",\"ref\":\"$3\"}" "^ref .$3. is ambiguous: give more digits$"
'

test_expect_success '1.6.9 #4: jobs twice the same, empty, or 17 entries' '
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"},\"jobs\":[\"build\",\"build\"]}" \
		"^jobs names .build. twice$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"},\"jobs\":[]}" "^jobs is empty" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"},\"jobs\":$(jq -nc "[range(17)] | map(\"j\(.)\")")}" \
		"^jobs names 17 jobs: at most 16$"
'

test_expect_success '1.6.9 #5, #6: a cycle and an empty matrix axis are refused at load, with file and line' '
	refused "{\"workflow\":\"cycle\",\"ref\":\"broken\"}" \
		"^$W/cycle.yml line 3: needs make a cycle: a -> c -> b -> a$" &&
	refused "{\"workflow\":\"empty-axis\",\"ref\":\"broken\"}" \
		"^$W/empty-axis.yml line 3: matrix.os has no values" &&
	refused "{\"workflow\":\"typo\",\"ref\":\"broken\"}" \
		"^$W/typo.yml line 5: unknown key .nedds. in jobs.build" &&
	refused "{\"workflow\":\"needs\",\"ref\":\"broken\"}" \
		"^$W/needs.yml line 4: jobs.b.needs names .biuld., which is not a job$"
'

test_expect_success '1.6.9 #7: a string for a boolean and a null are refused' '
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\",\"verbose\":\"true\"}}" \
		"^input .verbose. must be a boolean, not a string$" &&
	refused "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\",\"note\":null}}" \
		"^input .note. must be a string, boolean or number$"
'

test_expect_success '1.6.9 #8: a private repository the caller cannot see answers like a missing one' '
	tool_call create_run "{\"repo\":\"bob/hidden\",\"workflow\":\"ci\"}" --token "$FRANK_X" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call create_run "{\"repo\":\"bob/nothing\",\"workflow\":\"ci\"}" --token "$FRANK_X" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call get_run "{\"repo\":\"bob/hidden\",\"run\":1}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$"
'

test_expect_success '1.6.9 #16: an execute token of a reader or a stranger gets the role refusal' '
	refused "{\"workflow\":\"ci\",\"inputs\":{\"level\":\"fast\"}}" \
		"^you cannot start runs on alice/project: that needs the writer role or more, and your role is reader$" "$ERIN_X" &&
	refused "{\"workflow\":\"ci\",\"inputs\":{\"level\":\"fast\"}}" \
		"and your role is none$" "$FRANK_X"
'

test_expect_success '1.6.9 #17: a read,write token gets HTTP 403 for create_run' '
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"}}" "$DAVE_TOKEN" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\", scope=\"execute\""
'

test_expect_success 'a failure after the run row was written leaves nothing: one transaction' '
	# the trigger makes the last job row break a CHECK constraint
	db_sql "create trigger ci_jobs_fail before insert on ci_jobs for each row
		set new.timeout_minutes = if(new.job = \"deploy\", 0, new.timeout_minutes)" &&
	test_when_finished "db_sql \"drop trigger if exists ci_jobs_fail\"" &&
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"}}" &&
	forge_error "^internal error" &&
	test "$(runs_count)" = "$BEFORE" &&
	db_sql "drop trigger ci_jobs_fail" &&
	run "{\"workflow\":\"ci\",\"ref\":\"v1\",\"jobs\":[\"build\"],\"inputs\":{\"level\":\"fast\"}}" && forge_ok &&
	jq -e ".run == 9" out.json &&
	db_sql "delete from ci_runs where number = 9" &&
	test "$(runs_count)" = "$BEFORE"
'

test_expect_success 'no refusal left a run or a job behind' '
	test "$(runs_count)" = "$BEFORE"
'

test_expect_success 'get_run of an unknown run names it and the repository' '
	tool_call get_run "{\"repo\":\"$P\",\"run\":99}" &&
	forge_error "^run 99 not found in alice/project$"
'

test_expect_success 'list_runs: newest first, with the list fields' '
	tool_call list_runs "{\"repo\":\"$P\"}" --token "$FRANK_TOKEN" && forge_ok &&
	jq -e "[.runs[].run] == [8, 7, 6, 5, 4, 3, 2, 1] and .page == 1 and .has_more == false" out.json &&
	jq -e ".runs[7] | .workflow == \"ci\" and .event == \"manual\" and .ref == \"main\" and .commit == \"$MAIN1\" and .state == \"queued\" and .actor == \"dave\" and .jobs_total == 6 and .jobs_finished == 0 and .pull_request == null and .version == null and .rerun_of == null and .started_at == null and .finished_at == null and (.created_at | test(\"^[0-9]{4}-\"))" out.json &&
	jq -e ".runs[0] | has(\"inputs\") | not" out.json
'

test_expect_success 'list_runs filters: workflow, ref, state' '
	tool_call list_runs "{\"repo\":\"$P\",\"workflow\":\"pr\"}" && forge_ok &&
	jq -e "[.runs[].run] == [8]" out.json &&
	tool_call list_runs "{\"repo\":\"$P\",\"ref\":\"main\"}" && forge_ok &&
	jq -e "[.runs[].run] == [2, 1]" out.json &&
	db_sql "update ci_runs set state = \"success\" where number = 3" &&
	tool_call list_runs "{\"repo\":\"$P\",\"state\":\"success\"}" && forge_ok &&
	jq -e "[.runs[].run] == [3]" out.json &&
	tool_call list_runs "{\"repo\":\"$P\",\"state\":\"queued\",\"ref\":\"v1\"}" && forge_ok &&
	jq -e "[.runs[].run] == [8, 7, 6, 5]" out.json &&
	tool_call list_runs "{\"repo\":\"$P\",\"state\":\"bogus\"}" && forge_error state
'

test_expect_success 'list_runs pages of 50' '
	db_sql "insert into ci_runs (repo_id, number, workflow, workflow_name, workflow_path, workflow_blob, event, ref, commit_id, state, actor_id, inputs, closure_added)
		select r.repo_id, 100 + s.seq, r.workflow, r.workflow_name, r.workflow_path, r.workflow_blob, r.event, r.ref, r.commit_id, r.state, r.actor_id, r.inputs, r.closure_added
		from ci_runs r join seq_1_to_50 s where r.number = 1" &&
	tool_call list_runs "{\"repo\":\"$P\"}" && forge_ok &&
	jq -e "(.runs | length) == 50 and .runs[0].run == 150 and .runs[49].run == 101 and .has_more == true" out.json &&
	tool_call list_runs "{\"repo\":\"$P\",\"page\":2}" && forge_ok &&
	jq -e "[.runs[].run] == [8, 7, 6, 5, 4, 3, 2, 1] and .page == 2 and .has_more == false" out.json
'

test_expect_success 'a repository holds at most 100 runs waiting: the next create_run is refused, nothing stored' '
	one="{\"workflow\":\"ci\",\"ref\":\"v1\",\"inputs\":{\"level\":\"fast\"}}" &&
	waiting=$(db_sql "select count(*) from ci_runs where state in (\"queued\", \"awaiting_approval\")") &&
	while test $waiting -lt 100; do
		run "$one" && forge_ok || return 1
		waiting=$((waiting + 1))
	done &&
	before=$(db_sql "select count(*) from ci_runs") &&
	jobs_before=$(db_sql "select count(*) from ci_jobs") &&
	run "$one" && forge_error "100 runs waiting" &&
	grep -q "cancel some with cancel_run" errtext &&
	test "$(db_sql "select count(*) from ci_runs")" = "$before" &&
	test "$(db_sql "select count(*) from ci_jobs")" = "$jobs_before" &&
	tool_call cancel_run "{\"repo\":\"$P\",\"run\":150}" --token "$DAVE_X" && forge_ok &&
	run "$one" && forge_ok
'

test_done
