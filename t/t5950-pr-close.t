#!/bin/bash
# t5950: close_pull_request and reopen_pull_request: who may, idempotence,
# the refusals (merged, a merge queued, a gone source branch, a duplicate),
# the declared issues staying open, the activity get_pull_request shows, and
# a closed pull request that cannot be merged.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# On alice/project: alice owns it, mona manages, dave writes (and opens the
# pull requests), erin reads, frank is a stranger.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_M=$(make_token mona read,write,merge) &&
ERIN_RO=$(make_token erin read) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
G="git --git-dir=$PROJECT_GIT"

# close N [TOKEN] / reopen N [TOKEN]: the tool on #N (dave's token by default)
close () {
	tool_call close_pull_request "{\"repo\":\"$P\",\"number\":$1}" --token "${2:-$DAVE_TOKEN}"
}
reopen () {
	tool_call reopen_pull_request "{\"repo\":\"$P\",\"number\":$1}" --token "${2:-$DAVE_TOKEN}"
}

# state N: state and closed_at (set or null) of #N as get_pull_request shows them
state () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" --token "$ALICE_TOKEN" &&
	forge_ok && jq -r '"\(.state) \(if .closed_at == null then "null" else "set" end)"' out.json
}

# events N: the activity of pull request #N as get_pull_request shows it,
# type:actor oldest first (its first page; the tests stay within it)
events () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" --token "$ALICE_TOKEN" &&
	forge_ok && jq -r '[.activity.entries[] | "\(.type):\(.actor)"] | join(" ")' out.json
}

test_expect_success 'tools/list: both tools, write scope, idempotent, each listing under 1,200 bytes' '
	mcp_modern tools/list && test_status 200 &&
	for t in close_pull_request reopen_pull_request; do
		test_jq ".result.tools[] | select(.name == \"$t\") | .annotations.readOnlyHint == false and .annotations.idempotentHint == true and .inputSchema.required == [\"repo\", \"number\"]" &&
		test_jq ".result.tools[] | select(.name == \"$t\") | .description | test(\"writer role\") and test(\"author\")" &&
		test "$(jq -c ".result.tools[] | select(.name == \"$t\")" "$RESP.body" | wc -c)" -lt 1200 || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"close_pull_request\") | .description | test(\"stay open\")"
'

test_expect_success 'the author (a writer) closes a pull request; its declared issues stay open' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"keep me open\"}" --token "$DAVE_TOKEN" &&
	forge_ok && i=$(jq -r .number out.json) &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Greet\",\"head\":\"feature\",\"base\":\"main\",\"body\":\"Closes #$i\"}" --token "$DAVE_TOKEN" &&
	forge_ok && n=$(jq -r .number out.json) && test "$n" = 2 &&
	close 2 && forge_ok &&
	jq -e ".number == 2 and .state == \"closed\" and .changed == true and .note == null and (.url | endswith(\"/pulls/2\"))" out.json &&
	test "$(state 2)" = "closed set" &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$i}" && forge_ok &&
	jq -e ".state == \"open\" and .closed_at == null" out.json &&
	test "$(events 2)" = "opened:dave closed:dave" &&
	jq -e ".activity.page == 1 and .activity.has_more == false and (.activity.entries[1] | .type == \"closed\" and .cause == \"user\" and (.created_at | type == \"string\"))" out.json &&
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":2,\"page\":2}" --token "$ALICE_TOKEN" &&
	forge_ok && jq -e ".activity == {entries: [], page: 2, has_more: false}" out.json &&
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":2,\"page\":0}" --token "$ALICE_TOKEN" &&
	forge_error page
'

test_expect_success 'closing a closed pull request succeeds, says so, and records nothing' '
	close 2 "$ALICE_TOKEN" && forge_ok &&
	jq -e ".state == \"closed\" and .changed == false and (.note | test(\"already closed\"))" out.json &&
	test "$(events 2)" = "opened:dave closed:dave"
'

test_expect_success 'a closed pull request cannot be merged: the message says to reopen it' '
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":2,\"version\":1,\"edit_version\":1}" --token "$MONA_M" &&
	forge_error "^pull request #2 of alice/project is closed: reopen it with reopen_pull_request before merging" &&
	test "$(db_sql "select count(*) from merges")" = 0
'

test_expect_success 'a reader, a stranger and a read-only token are refused; nothing changes' '
	reopen 2 "$ERIN_TOKEN" &&
	forge_error "^you cannot reopen pull request #2 on alice/project: that needs the writer role or more, and your role is reader" &&
	reopen 2 "$FRANK_TOKEN" &&
	forge_error "that needs the writer role or more, and your role is none" &&
	reopen 2 "$ERIN_RO" && test_status 403 &&
	test_header WWW-Authenticate "scope=\"write\"" &&
	test "$(state 2)" = "closed set" &&
	test "$(events 2)" = "opened:dave closed:dave"
'

test_expect_success 'a manager reopens it; reopening an open one changes nothing' '
	reopen 2 "$MONA_M" && forge_ok &&
	jq -e ".state == \"open\" and .changed == true and .note == null" out.json &&
	test "$(state 2)" = "open null" &&
	reopen 2 && forge_ok &&
	jq -e ".state == \"open\" and .changed == false and (.note | test(\"already open\"))" out.json &&
	test "$(events 2)" = "opened:dave closed:dave reopened:mona" &&
	jq -e ".activity.entries[2] | .type == \"reopened\" and .cause == \"user\"" out.json
'

test_expect_success 'a pull request with a merge queued cannot be closed, and says why' '
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":2,\"version\":1,\"edit_version\":1}" --token "$MONA_M" &&
	forge_ok &&
	close 2 "$ALICE_TOKEN" &&
	forge_error "^pull request #2 of alice/project has a merge queued: it cannot be closed until the merge finishes" &&
	test "$(state 2)" = "open null"
'

test_expect_success 'a merged pull request can be neither closed nor reopened; its issue was closed by the merge' '
	fm worker --once 2>worker.err &&
	test "$(state 2)" = "merged null" &&
	close 2 "$ALICE_TOKEN" &&
	forge_error "^pull request #2 of alice/project is merged: a merged pull request cannot be closed" &&
	reopen 2 "$ALICE_TOKEN" &&
	forge_error "is merged: a merged pull request cannot be reopened" &&
	test "$(state 2)" = "merged null" &&
	test "$(events 2)" = "opened:dave closed:dave reopened:mona merged:mona"
'

test_expect_success 'reopening is refused when the source branch is gone' '
	$G update-ref refs/heads/gone "$($G rev-parse other)" &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Gone\",\"head\":\"gone\",\"base\":\"main\"}" --token "$DAVE_TOKEN" &&
	forge_ok && n=$(jq -r .number out.json) &&
	close $n && forge_ok &&
	$G update-ref -d refs/heads/gone &&
	reopen $n &&
	forge_error "^the source branch .gone. of pull request #$n of alice/project no longer exists: push it again before reopening" &&
	test "$(state $n)" = "closed set"
'

test_expect_success 'reopening is refused while another open pull request has the same head and target' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"First\",\"head\":\"latin\",\"base\":\"main\"}" --token "$DAVE_TOKEN" &&
	forge_ok && a=$(jq -r .number out.json) &&
	close $a && forge_ok &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Second\",\"head\":\"latin\",\"base\":\"main\"}" --token "$DAVE_TOKEN" &&
	forge_ok && b=$(jq -r .number out.json) &&
	reopen $a &&
	forge_error "^pull request #$b of alice/project is already open from .latin. into .main.: reopening #$a would make two" &&
	test "$(state $a)" = "closed set"
'

test_expect_success 'an issue number, a missing number, an invisible repository, bad arguments' '
	close 1 &&
	forge_error "^#1 in alice/project is an issue, not a pull request: close_issue closes issues" &&
	reopen 999 &&
	forge_error "^pull request #999 not found in alice/project" &&
	tool_call close_pull_request "{\"repo\":\"bob/hidden\",\"number\":1}" --token "$FRANK_TOKEN" &&
	forge_error "^Repository not found or not accessible$" &&
	tool_call close_pull_request "{\"repo\":\"$P\",\"number\":\"2\"}" --token "$DAVE_TOKEN" &&
	forge_error number &&
	tool_call reopen_pull_request "{\"repo\":\"$P\"}" --token "$DAVE_TOKEN" &&
	forge_error number
'

test_done
