#!/bin/bash
# t5800: pull request checks: branch rules and check reports (the CLI), then
# get_pull_request_checks and approve_pull_request_checks through nginx, on
# the current revision only.
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
ALICE_X=$(make_token alice read,execute) &&
DAVE_X=$(make_token dave read,execute) &&
ERIN_X=$(make_token erin read,execute) &&
FRANK_X=$(make_token frank read,execute) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
DATE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$'

# checks N [TOKEN]: get_pull_request_checks of #N; the answer goes to out.json
checks () {
	tool_call get_pull_request_checks "{\"repo\":\"$P\",\"number\":$1}" --token "${2:-$ALICE_TOKEN}" &&
	forge_ok
}

# approve N TOKEN [VERSION]: approve_pull_request_checks of #N
approve () {
	tool_call approve_pull_request_checks "$(jq -nc --arg r "$P" --argjson n "$1" --arg v "${3:-}" \
		'{repo: $r, number: $n} + (if $v == "" then {} else {version: ($v | tonumber)} end)')" \
		--token "$2"
}

# approvals: every check_approvals row as pr-number<TAB>version<TAB>login
approvals () {
	db_sql "select p.number, a.version, u.login from check_approvals a
		join pull_requests p on p.id = a.pull_request_id join users u on u.id = a.approved_by
		order by p.number, a.version"
}

# push BRANCH: a new commit on BRANCH of the served repository (same tree)
push () {
	test_tick &&
	new=$(git --git-dir="$PROJECT_GIT" commit-tree -p "$1" -m "$1: one more" "$1^{tree}") &&
	git --git-dir="$PROJECT_GIT" update-ref "refs/heads/$1" "$new"
}

test_expect_success 'tools/list: both tools, their hints, and what the descriptions promise' '
	mcp_modern tools/list && test_status 200 &&
	test_jq ".result.tools[] | select(.name == \"get_pull_request_checks\") | .annotations.readOnlyHint == true and (.title | length > 0)" &&
	test_jq ".result.tools[] | select(.name == \"approve_pull_request_checks\") | .annotations.readOnlyHint == false and .annotations.idempotentHint == true and .annotations.destructiveHint == false" &&
	test_jq ".result.tools[] | select(.name == \"approve_pull_request_checks\") | .description | test(\"never approves\") and test(\"execute scope\") and test(\"manager role\")" &&
	test_jq ".result.tools[] | select(.name == \"get_pull_request_checks\") | .description | test(\"never approves\") and test(\"expected\")"
'

test_expect_success 'no rule: no required checks, passing, not approved' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Greet\",\"head\":\"feature\",\"base\":\"main\"}" &&
	forge_ok && jq -e ".number == 1" out.json &&
	checks 1 &&
	jq -e ". == {version: 1, target: \"main\", head_commit: \"$PROJECT_FEATURE\", checks: [], required_passing: true, approval: {approved: false, by: null, at: null}}" out.json
'

test_expect_success 'a rule with two checks: both expected, not passing' '
	fm branch-rule set $P main --require-check build --require-check test >/dev/null &&
	checks 1 &&
	jq -e ".checks == [{name: \"build\", status: \"expected\", required: true, details: null, updated_at: null}, {name: \"test\", status: \"expected\", required: true, details: null, updated_at: null}]" out.json &&
	jq -e ".required_passing == false and .version == 1" out.json
'

test_expect_success 'reports from the CLI show on the head commit; an unrequired one is listed last' '
	fm check report $P feature build success --details "built in 3s" >/dev/null &&
	fm check report $P "$PROJECT_FEATURE" test failure --details "2 of 40 failed" >/dev/null &&
	fm check report $P feature 0-lint success >/dev/null &&
	checks 1 &&
	jq -e "[.checks[] | [.name, .status, .required, .details]] == [[\"build\", \"success\", true, \"built in 3s\"], [\"test\", \"failure\", true, \"2 of 40 failed\"], [\"0-lint\", \"success\", false, null]]" out.json &&
	jq -e "[.checks[].updated_at | test(\"$DATE\")] == [true, true, true]" out.json &&
	jq -e ".required_passing == false" out.json
'

test_expect_success 'a report on another commit or a rule of another branch changes nothing' '
	fm check report $P main test success >/dev/null &&
	fm check report $P main other success >/dev/null &&
	fm branch-rule set $P other --require-check deploy >/dev/null &&
	checks 1 &&
	jq -e "[.checks[] | .name + \"=\" + .status] == [\"build=success\", \"test=failure\", \"0-lint=success\"]" out.json
'

test_expect_success 'every required check a success: passing' '
	fm check report $P feature test success >/dev/null &&
	checks 1 &&
	jq -e ".required_passing == true and ([.checks[] | select(.required) | .status] == [\"success\", \"success\"])" out.json &&
	jq -e ".approval.approved == false" out.json
'

for s in pending running cancelled; do
	test_expect_success "a required check $s is not passing" "
		fm check report $P feature test $s >/dev/null &&
		checks 1 &&
		jq -e '.required_passing == false and (.checks[] | select(.name == \"test\") | .status == \"$s\")' out.json
	"
done

test_expect_success 'anyone who can read the repository may read the checks' '
	for tok in "$ERIN_TOKEN" "$FRANK_TOKEN" "$DAVE_TOKEN"; do
		checks 1 "$tok" && jq -e ".version == 1 and (.checks | length == 3)" out.json || return 1
	done
'

test_expect_success 'approval: a read,write token is refused at the gate (403, execute) and nothing changes' '
	approve 1 "$ALICE_TOKEN" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\", scope=\"execute\"" &&
	test -z "$(approvals)"
'

test_expect_success 'approval: a writer is refused, needing the manager role; nothing changes' '
	approve 1 "$DAVE_X" &&
	forge_error "^you cannot approve the checks of pull request #1 on alice/project: that needs the manager role or more, and your role is writer" &&
	test -z "$(approvals)"
'

test_expect_success 'approval: a reader and a stranger are refused too' '
	approve 1 "$ERIN_X" &&
	forge_error "needs the manager role or more, and your role is reader" &&
	approve 1 "$FRANK_X" &&
	forge_error "needs the manager role or more, and your role is none" &&
	test -z "$(approvals)"
'

test_expect_success 'approval: a manager approves the version it read' '
	approve 1 "$MONA_X" 1 && forge_ok &&
	jq -e ".version == 1 and .approved == true and .by == \"mona\" and .changed == true" out.json &&
	jq -e ".at | test(\"$DATE\")" out.json &&
	jq -e "keys == [\"approved\", \"at\", \"by\", \"changed\", \"runs_started\", \"version\"]" out.json &&
	at=$(jq -r .at out.json) &&
	test "$(approvals)" = "$(printf "1\t1\tmona")" &&
	checks 1 &&
	jq -e ".approval == {approved: true, by: \"mona\", at: \"$at\"}" out.json
'

test_expect_success 'approval is idempotent: the owner approves again, the first approver stays' '
	approve 1 "$ALICE_X" && forge_ok &&
	jq -e ".version == 1 and .approved == true and .by == \"mona\" and .changed == false" out.json &&
	approve 1 "$MONA_X" 1 && forge_ok &&
	jq -e ".changed == false" out.json &&
	test "$(approvals)" = "$(printf "1\t1\tmona")"
'

test_expect_success 'a push makes a new revision: its checks are expected again, its approval is not inherited' '
	push feature &&
	head=$(git --git-dir="$PROJECT_GIT" rev-parse feature) &&
	test "$head" != "$PROJECT_FEATURE" &&
	checks 1 &&
	jq -e ".version == 2 and .head_commit == \"$head\" and .target == \"main\"" out.json &&
	jq -e ".checks == [{name: \"build\", status: \"expected\", required: true, details: null, updated_at: null}, {name: \"test\", status: \"expected\", required: true, details: null, updated_at: null}]" out.json &&
	jq -e ".required_passing == false and .approval == {approved: false, by: null, at: null}" out.json
'

test_expect_success 'approving the old version is refused as stale, naming the current one' '
	approve 1 "$MONA_X" 1 &&
	forge_error "revision 2, not the revision 1 you passed: reload .* and retry" &&
	test "$(approvals)" = "$(printf "1\t1\tmona")"
'

test_expect_success 'a version that does not exist yet is refused too' '
	approve 1 "$MONA_X" 9 &&
	forge_error "reload" &&
	test "$(approvals)" = "$(printf "1\t1\tmona")"
'

test_expect_success 'without a version the current revision is approved' '
	approve 1 "$ALICE_X" && forge_ok &&
	jq -e ".version == 2 and .by == \"alice\" and .changed == true" out.json &&
	test "$(approvals)" = "$(printf "1\t1\tmona\n1\t2\talice")" &&
	checks 1 && jq -e ".approval.approved == true and .approval.by == \"alice\"" out.json
'

test_expect_success 'reports on the new head show; the old head keeps its own' '
	fm check report $P feature build success >/dev/null &&
	fm check report $P feature test success >/dev/null &&
	checks 1 &&
	jq -e ".required_passing == true and (.checks | length == 2)" out.json &&
	test "$(db_sql "select count(*) from check_results where commit_id = '\''$PROJECT_FEATURE'\''")" = 3
'

test_expect_success 'a new pull request is never approved, even when a manager with execute opens it' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Other\",\"head\":\"other\",\"base\":\"main\"}" --token "$MONA_X" &&
	forge_ok && n=$(jq -r .number out.json) &&
	checks $n &&
	jq -e ".version == 1 and .approval == {approved: false, by: null, at: null}" out.json &&
	test "$(db_sql "select count(*) from check_approvals a join pull_requests p on p.id = a.pull_request_id where p.number = $n")" = 0
'

# The state is decided on the locked row: a close committed while the
# approval waits for the repository's lock refuses it.
test_expect_success 'a close committed while an approval waits for the lock: refused, nothing approved' '
	db_sql "select id, repo_id, number from pull_requests where head_ref = \"other\" and base_ref = \"main\" and state = \"open\"" >pr.row &&
	read -r prid rid n <pr.row || return 1
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" -e "BEGIN;
		SELECT id FROM repositories WHERE id = $rid FOR UPDATE; SELECT SLEEP(2);
		UPDATE pull_requests SET state = \"closed\", closed_at = UTC_TIMESTAMP() WHERE id = $prid;
		COMMIT" >holder.out 2>&1 &
	holder=$!
	sleep 0.5 &&
	approve $n "$MONA_X" &&
	wait $holder &&
	forge_error "^pull request #$n of alice/project is closed: only the checks of an open pull request can be approved" &&
	test "$(db_sql "select count(*) from check_approvals where pull_request_id = $prid")" = 0 &&
	db_sql "update pull_requests set state = \"open\", closed_at = NULL where id = $prid"
'

test_expect_success 'a pull request into a branch with its own rule gets that rule' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Into other\",\"head\":\"latin\",\"base\":\"other\"}" &&
	forge_ok && n=$(jq -r .number out.json) &&
	checks $n &&
	jq -e ".target == \"other\" and ([.checks[] | .name + \"=\" + .status] == [\"deploy=expected\"]) and .required_passing == false" out.json
'

test_expect_success 'clearing the rule: no required checks, passing again' '
	fm branch-rule set $P main >/dev/null &&
	checks 1 &&
	jq -e ".required_passing == true and ([.checks[] | select(.required)] == [])" out.json &&
	jq -e "[.checks[].name] == [\"build\", \"test\"]" out.json
'

test_expect_success 'an issue number, a missing number, an invisible repository' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"an issue\"}" && forge_ok &&
	i=$(jq -r .number out.json) &&
	tool_call get_pull_request_checks "{\"repo\":\"$P\",\"number\":$i}" &&
	forge_error "^#$i in alice/project is an issue, not a pull request" &&
	tool_call get_pull_request_checks "{\"repo\":\"$P\",\"number\":999}" &&
	forge_error "^pull request #999 not found in alice/project" &&
	approve 999 "$MONA_X" &&
	forge_error "^pull request #999 not found in alice/project" &&
	tool_call get_pull_request_checks "{\"repo\":\"bob/hidden\",\"number\":1}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call approve_pull_request_checks "{\"repo\":\"bob/hidden\",\"number\":1}" --token "$FRANK_X" &&
	forge_error "^Repository not found or not accessible$"
'

test_expect_success 'bad arguments are refused in band' '
	tool_call approve_pull_request_checks "{\"repo\":\"$P\",\"number\":1,\"version\":0}" --token "$MONA_X" &&
	forge_error version &&
	tool_call approve_pull_request_checks "{\"repo\":\"$P\",\"number\":1,\"version\":\"2\"}" --token "$MONA_X" &&
	forge_error version &&
	tool_call get_pull_request_checks "{\"repo\":\"$P\"}" &&
	forge_error number &&
	test "$(approvals | wc -l)" = 2
'

test_expect_success 'a target change: results reported before it no longer count, and the merge is refused' '
	MONA_M=$(make_token mona read,write,merge) &&
	G="git --git-dir=$PROJECT_GIT" &&
	$G update-ref refs/heads/retarget "$PROJECT_FEATURE" &&
	$G update-ref refs/heads/develop "$($G rev-parse main)" &&
	fm branch-rule set $P main --require-check ci >/dev/null &&
	fm branch-rule set $P develop --require-check ci >/dev/null &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Retarget\",\"head\":\"retarget\",\"base\":\"main\"}" &&
	forge_ok && n=$(jq -r .number out.json) &&
	fm check report $P retarget ci success >/dev/null &&
	checks $n &&
	jq -e ".version == 1 and .required_passing == true and ([.checks[] | select(.required) | .name + \"=\" + .status] == [\"ci=success\"])" out.json &&
	tool_call edit_pull_request "{\"repo\":\"$P\",\"number\":$n,\"edit_version\":1,\"target\":\"develop\"}" --token "$MONA_M" &&
	forge_ok && jq -e ".version == 2 and .target_changed == true" out.json &&
	checks $n &&
	jq -e ".version == 2 and .target == \"develop\" and .head_commit == \"$PROJECT_FEATURE\" and .required_passing == false" out.json &&
	jq -e "[.checks[] | select(.required)] == [{name: \"ci\", status: \"expected\", required: true, details: null, updated_at: null}]" out.json &&
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$n,\"version\":2}" --token "$MONA_M" &&
	forge_error "required checks of branch .develop. have not all passed on revision 2 .* ci is expected" &&
	test "$(db_sql "select count(*) from merges m join pull_requests p on p.id = m.pull_request_id where p.number = $n")" = 0 &&
	fm check report $P "$PROJECT_FEATURE" ci success >/dev/null &&
	checks $n &&
	jq -e ".required_passing == true and ([.checks[] | select(.required) | .name + \"=\" + .status] == [\"ci=success\"])" out.json &&
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$n,\"version\":2}" --token "$MONA_M" &&
	forge_ok && jq -e ".queued == true and .version == 2" out.json
'

test_done
