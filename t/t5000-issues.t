#!/bin/bash
# t5000: the issue tools: list_issues, get_issue, create_issue, add_issue_comment.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# issue TITLE [BODY] [TOKEN]: create_issue on alice/project; the answer goes to out.json
issue () {
	tool_call create_issue "$(jq -nc --arg r "$P" --arg t "$1" --arg b "${2:-}" \
		'{repo: $r, title: $t} + (if $b == "" then {} else {body: $b} end)')" \
		--token "${3:-$ALICE_TOKEN}" &&
	forge_ok
}

# numbers: the issue numbers in the list_issues answer, space-separated
numbers () {
	tool_text | jq -r '[.issues[].number] | map(tostring) | join(" ")'
}

test_expect_success 'tools/list shows the issue tools with titles and hints' '
	mcp_modern tools/list &&
	test_status 200 &&
	for t in list_issues get_issue create_issue add_issue_comment; do
		test_jq ".result.tools[] | select(.name == \"$t\") | (.title | length > 0) and (.annotations.title | length > 0)" || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"list_issues\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"get_issue\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"create_issue\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == false" &&
	test_jq ".result.tools[] | select(.name == \"add_issue_comment\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == false"
'

test_expect_success 'create_issue opens issue #1 and answers {number, state, url}' '
	issue "First bug" "It *breaks*." &&
	jq -e ". == {number: 1, state: \"open\", url: \"$BASE_URL/alice/project/issues/1\"}" out.json
'

test_expect_success 'the issue is stored with its author, open, in UTC' '
	db_sql "select i.number, i.title, i.body, i.state, u.login from issues i join users u on u.id = i.author_id" >actual &&
	printf "1\tFirst bug\tIt *breaks*.\topen\talice\n" >expect &&
	test_cmp expect actual
'

test_expect_success 'anyone who can read a public repository may open an issue' '
	issue "From a stranger" "" "$FRANK_TOKEN" &&
	jq -e ".number == 2" out.json &&
	issue "From a reader" "" "$ERIN_TOKEN" &&
	jq -e ".number == 3" out.json
'

test_expect_success 'the title is trimmed; Unicode survives' '
	issue "  Caf$(printf "\303\251") \"quoted\" $(printf "\342\234\223")  " "body" &&
	jq -e ".number == 4" out.json &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":4}" && forge_ok &&
	jq -e ".title == \"Caf\u00e9 \\\"quoted\\\" \u2713\"" out.json
'

for t in '""' '"   "' '"\t\n"'; do
	test_expect_success "create_issue with title $t is refused and takes no number" "
		tool_call create_issue '{\"repo\":\"$P\",\"title\":$t}' &&
		forge_error '^title must not be blank' &&
		test \"\$(db_sql 'select next_number from repositories r join users u on u.id = r.owner_id where u.login = \"alice\" and r.name = \"project\"')\" = 5
	"
done

test_expect_success 'create_issue without a title names the argument' '
	tool_call create_issue "{\"repo\":\"$P\"}" &&
	forge_error title
'

test_expect_success 'create_issue with a wrong type names the argument' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":5}" &&
	forge_error title
'

test_expect_success 'create_issue refuses a NUL byte in the title' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"a\\u0000b\"}" &&
	forge_error NUL &&
	test "$(db_sql "select count(*) from issues")" = 4
'

test_expect_success 'create_issue needs the write scope (HTTP 403 before the tool runs)' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"x\"}" --token "$CAROL_TOKEN" &&
	test_status 403 &&
	test_header WWW-Authenticate "insufficient_scope"
'

test_expect_success 'list_issues: open issues, highest number first, with the documented fields' '
	tool_call list_issues "{\"repo\":\"$P\"}" && forge_ok &&
	test "$(numbers)" = "4 3 2 1" &&
	jq -e ".page == 1 and .has_more == false" out.json &&
	jq -e ".issues[] | select(.number == 2) | . == {number: 2, title: \"From a stranger\", state: \"open\", author: \"frank\", url: \"$BASE_URL/alice/project/issues/2\", created_at: .created_at}" out.json &&
	jq -e "all(.issues[]; .created_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$\"))" out.json
'

test_expect_success 'list_issues by state' '
	db_sql "update issues set state = \"closed\", closed_at = utc_timestamp() where number = 1" &&
	tool_call list_issues "{\"repo\":\"$P\"}" && test "$(numbers)" = "4 3 2" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"open\"}" && test "$(numbers)" = "4 3 2" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"closed\"}" && test "$(numbers)" = "1" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\"}" && test "$(numbers)" = "4 3 2 1"
'

test_expect_success 'list_issues refuses an unknown state, naming it' '
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"merged\"}" &&
	forge_error state
'

test_expect_success 'list_issues query: title or body, ignoring case; wildcards are data' '
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"query\":\"BREAKS\"}" && test "$(numbers)" = "1" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"query\":\"from a\"}" && test "$(numbers)" = "3 2" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"query\":\"%\"}" && test "$(numbers)" = "" &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"query\":\"_\"}" && test "$(numbers)" = ""
'

test_expect_success 'list_issues pages 50 issues at a time until nothing is left' '
	for i in 5 6 7 8 9; do issue "Bulk $i" || return 1; done &&
	for i in $(seq 10 55); do
		{ tool_call create_issue "{\"repo\":\"$P\",\"title\":\"more $i\"}" --token "$ALICE_TOKEN" && test_status 200; } || return 1
	done &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	test "$(numbers)" = "$(seq -s " " 55 -1 6)" &&
	jq -e ".page == 1 and .has_more == true" out.json &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"page\":2}" && forge_ok &&
	test "$(numbers)" = "5 4 3 2 1" &&
	jq -e ".page == 2 and .has_more == false" out.json &&
	tool_call list_issues "{\"repo\":\"$P\",\"state\":\"all\",\"page\":3}" && forge_ok &&
	test "$(numbers)" = "" &&
	jq -e ".page == 3 and .has_more == false" out.json
'

test_expect_success 'list_issues pages what the state keeps: the closed #1 is not on the open pages' '
	tool_call list_issues "{\"repo\":\"$P\",\"page\":2}" && forge_ok &&
	test "$(numbers)" = "5 4 3 2" &&
	jq -e ".has_more == false" out.json
'

for a in '{"page":0}' '{"page":2147483648}' '{"page":"2"}' '{"limit":50}' '{"cursor":6}' '{"query":5}'; do
	test_expect_success "list_issues $a is an in-band error naming the argument" "
		tool_call list_issues \"\$(jq -nc --argjson a '$a' '{repo: \"$P\"} + \$a')\" &&
		forge_error '$(printf '%s' "$a" | jq -r 'keys[0]')'
	"
done

test_expect_success 'get_issue: the whole issue, no comments yet' '
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1}" && forge_ok &&
	jq -e ".number == 1 and .title == \"First bug\" and .state == \"closed\" and .author == \"alice\"" out.json &&
	jq -e ".body == \"It *breaks*.\" and .url == \"$BASE_URL/alice/project/issues/1\"" out.json &&
	jq -e ".comments == [] and .comments_total == 0 and .comments_truncated == false" out.json &&
	jq -e "(.closed_at | test(\"Z$\")) and (.updated_at | test(\"Z$\"))" out.json &&
	jq -e ".edit_version == 1 and .activity.page == 1 and .activity.has_more == false" out.json &&
	jq -e "[.activity.entries[] | .type + \":\" + .actor] == [\"opened:alice\"]" out.json
'

test_expect_success 'get_issue: an issue without a body has body null' '
	tool_call get_issue "{\"repo\":\"$P\",\"number\":2}" && forge_ok &&
	jq -e ".body == null and .closed_at == null" out.json
'

test_expect_success 'add_issue_comment answers {id, url} anchored to the issue' '
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":1,\"body\":\"first!\"}" && forge_ok &&
	id=$(jq -r .id out.json) &&
	jq -e ". == {id: $id, url: \"$BASE_URL/alice/project/issues/1#issuecomment-$id\"}" out.json &&
	test "$(db_sql "select issue_id is not null, pull_request_id is null, body from comments where id = $id")" = "$(printf "1\t1\tfirst!")"
'

test_expect_success 'comments from a stranger and a reader; get_issue shows them oldest first' '
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":1,\"body\":\"second\"}" --token "$FRANK_TOKEN" && forge_ok &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":1,\"body\":\"third\"}" --token "$ERIN_TOKEN" && forge_ok &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1}" && forge_ok &&
	jq -e "[.comments[] | .author + \":\" + .body] == [\"alice:first!\", \"frank:second\", \"erin:third\"]" out.json &&
	jq -e ".comments_total == 3 and .comments_truncated == false" out.json &&
	jq -e "all(.comments[]; (.id | type == \"number\") and (.created_at | test(\"Z$\")) and (.url | startswith(\"$BASE_URL/alice/project/issues/1#issuecomment-\")))" out.json
'

test_expect_success 'get_issue pages the comments' '
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1,\"comments_limit\":2}" && forge_ok &&
	jq -e "[.comments[].body] == [\"first!\", \"second\"] and .comments_total == 3" out.json &&
	jq -e ".comments_truncated == true and .next_comments_offset == 2" out.json &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1,\"comments_limit\":2,\"comments_offset\":2}" && forge_ok &&
	jq -e "[.comments[].body] == [\"third\"] and .comments_truncated == false" out.json &&
	jq -e "has(\"next_comments_offset\") | not" out.json
'

test_expect_success 'get_issue caps comments at 50 by default' '
	for i in $(seq 1 52); do
		{ tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":2,\"body\":\"c$i\"}" --token "$ALICE_TOKEN" && test_status 200; } || return 1
	done &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":2}" && forge_ok &&
	jq -e "(.comments | length) == 50 and .comments[0].body == \"c1\" and .comments[49].body == \"c50\"" out.json &&
	jq -e ".comments_total == 52 and .comments_truncated == true and .next_comments_offset == 50" out.json
'

for b in '""' '"  "' '"\n\t"'; do
	test_expect_success "add_issue_comment with body $b is refused" "
		tool_call add_issue_comment '{\"repo\":\"$P\",\"number\":1,\"body\":$b}' &&
		forge_error '^body must not be blank'
	"
done

test_expect_success 'add_issue_comment without body names the argument' '
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":1}" &&
	forge_error body
'

test_expect_success 'add_issue_comment on an unknown number' '
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":999,\"body\":\"hello\"}" &&
	forge_error "^no issue or pull request #999 in alice/project"
'

test_expect_success 'get_issue on an unknown number' '
	tool_call get_issue "{\"repo\":\"$P\",\"number\":999}" &&
	forge_error "^issue #999 not found in alice/project"
'

for a in '{"number":"1"}' '{"number":0}' '{"number":1.5}' '{}'; do
	test_expect_success "get_issue $a names the number argument" "
		tool_call get_issue \"\$(jq -nc --argjson a '$a' '{repo: \"$P\"} + \$a')\" &&
		forge_error number
	"
done

test_expect_success 'a pull request number is not an issue, and comments go to the pull request' '
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"A change\",\"head\":\"feature\",\"base\":\"main\"}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$n}" &&
	forge_error "^#$n in alice/project is a pull request, not an issue: read it with get_pull_request" &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"on the PR\"}" && forge_ok &&
	jq -e ".url == \"$BASE_URL/alice/project/pulls/$n#issuecomment-\" + (.id | tostring)" out.json &&
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$n}" && forge_ok &&
	jq -e "[.comments[].body] == [\"on the PR\"]" out.json &&
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":1}" &&
	forge_error "^#1 in alice/project is an issue, not a pull request: read it with get_issue"
'

for call in \
	'list_issues {"repo":"R"}' \
	'get_issue {"repo":"R","number":1}' \
	'create_issue {"repo":"R","title":"x"}' \
	'add_issue_comment {"repo":"R","number":1,"body":"x"}'
do
	tool=${call%% *}
	args=${call#* }
	test_expect_success "$tool: a private repository of another user looks exactly like a missing one" "
		tool_call $tool '$(printf '%s' "$args" | sed 's|\"R\"|"bob/hidden"|')' &&
		forge_error '^Repository not found or not accessible\$' &&
		cp errtext hidden.txt &&
		tool_call $tool '$(printf '%s' "$args" | sed 's|\"R\"|"bob/nothing"|')' &&
		forge_error . &&
		test_cmp errtext hidden.txt
	"
done

test_expect_success 'nothing was written to the private repository' '
	test "$(db_sql "select count(*) from issues i join repositories r on r.id = i.repo_id where r.name = \"hidden\"")" = 0
'

test_expect_success 'a reader collaborator opens and reads issues on the private repository' '
	tool_call create_issue "{\"repo\":\"bob/hidden\",\"title\":\"seen by carol\"}" --token "$CAROL_RW_TOKEN" && forge_ok &&
	jq -e ".number == 1 and .url == \"$BASE_URL/bob/hidden/issues/1\"" out.json &&
	tool_call list_issues "{\"repo\":\"bob/hidden\"}" --token "$BOB_TOKEN" && forge_ok &&
	jq -e "[.issues[] | .author + \":\" + .title] == [\"carol:seen by carol\"]" out.json
'

test_expect_success 'numbers are per repository' '
	tool_call create_issue "{\"repo\":\"bob/tools\",\"title\":\"tools issue\"}" && forge_ok &&
	jq -e ".number == 1" out.json
'

test_expect_success 'repo arguments that are not owner/name are not found' '
	for r in alice "alice/project/x" "/alice/project" "alice/"; do
		tool_call list_issues "{\"repo\":\"$r\"}" &&
		forge_error "^Repository not found or not accessible$" || return 1
	done
'

test_expect_success 'create_issue in the legacy era carries structuredContent' '
	mcp_legacy tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$P\",\"title\":\"legacy\"}}" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	test_jq ".result.structuredContent == (.result.content[0].text | fromjson)" &&
	test_jq ".result.structuredContent.state == \"open\""
'

test_done
