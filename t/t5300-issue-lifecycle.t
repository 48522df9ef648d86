#!/bin/bash
# t5300: the issue lifecycle through nginx: edit_issue with edit_version,
# close_issue and reopen_issue, the activity of get_issue and its pages,
# get_user, and list_issues 50 a page.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# call TOOL ARGS_JSON [TOKEN]: tool_call as TOKEN (default alice)
call () {
	tool_call "$1" "$2" --token "${3:-$ALICE_TOKEN}"
}

# raw_call TOOL ARGS_TEXT [TOKEN]: a tools/call whose arguments are sent as
# written (jq, which tool_call uses, would turn 3.0 into 3)
raw_call () {
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: tools/call" \
		-H "Mcp-Name: $1" --token "${3:-$ALICE_TOKEN}" \
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"_meta\":$(json_meta),\"name\":\"$1\",\"arguments\":$2}}"
}

# issue_row N: title, body, state, edit_version and whether closed_at is
# NULL, of issue N of alice/project as stored
issue_row () {
	db_sql "select i.title, coalesce(i.body, '(none)'), i.state, i.edit_version, i.closed_at is null from issues i join repositories r on r.id = i.repo_id join users u on u.id = r.owner_id where u.login = 'alice' and r.name = 'project' and i.number = $1"
}

# row TITLE BODY STATE VERSION OPEN: what issue_row prints
row () {
	printf '%s\t%s\t%s\t%s\t%s' "$@"
}

# state: what a refused or empty call must leave as it is
state () {
	db_sql "checksum table issues, events, comments, pull_requests"
}

# activity N [PAGE]: get_issue of N (activity page PAGE); the answer goes to out.json
activity () {
	call get_issue "{\"repo\":\"$P\",\"number\":$1${2:+,\"page\":$2}}" && forge_ok
}

# kinds: the activity entries of out.json as "type:actor", space-separated
kinds () {
	jq -r '[.activity.entries[] | .type + ":" + .actor] | join(" ")' out.json
}

# ---- the tools ------------------------------------------------------------

test_expect_success 'tools/list shows the lifecycle tools and get_user with titles and hints' '
	mcp_modern tools/list &&
	test_status 200 &&
	for t in edit_issue close_issue reopen_issue get_user; do
		test_jq ".result.tools[] | select(.name == \"$t\") | (.title | length > 0) and (.description | length > 0)" || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"close_issue\") | .annotations.idempotentHint == true and .annotations.readOnlyHint == false and .annotations.destructiveHint == false" &&
	test_jq ".result.tools[] | select(.name == \"reopen_issue\") | .annotations.idempotentHint == true and .annotations.readOnlyHint == false" &&
	test_jq ".result.tools[] | select(.name == \"edit_issue\") | .annotations.readOnlyHint == false and .annotations.idempotentHint == false" &&
	test_jq ".result.tools[] | select(.name == \"get_user\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"edit_issue\") | .inputSchema.required == [\"repo\", \"number\", \"edit_version\"]" &&
	test_jq ".result.tools[] | select(.name == \"list_issues\") | (.inputSchema.properties | has(\"page\") and (has(\"limit\") | not) and (has(\"cursor\") | not))"
'

# ---- editing --------------------------------------------------------------

test_expect_success 'a reader opens issue #1: edit_version 1, the activity shows it opened' '
	call create_issue "{\"repo\":\"$P\",\"title\":\"Broken build\",\"body\":\"It fails.\"}" "$ERIN_TOKEN" &&
	forge_ok && jq -e ".number == 1" out.json &&
	activity 1 &&
	jq -e ".edit_version == 1 and .activity.page == 1 and .activity.has_more == false" out.json &&
	test "$(kinds)" = "opened:erin" &&
	jq -e ".activity.entries[0] | (keys == [\"actor\", \"created_at\", \"id\", \"type\"]) and (.created_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$\"))" out.json
'

test_expect_success 'the author edits the title with the version read: the version advances' '
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":1,\"title\":\"  Broken build on main \"}" "$ERIN_TOKEN" &&
	forge_ok &&
	jq -e ". == {number: 1, title: \"Broken build on main\", state: \"open\", edit_version: 2, changed: true, url: \"$BASE_URL/alice/project/issues/1\"}" out.json &&
	test "$(issue_row 1)" = "$(row "Broken build on main" "It fails." open 2 1)" &&
	activity 1 &&
	jq -e ".edit_version == 2 and .title == \"Broken build on main\"" out.json &&
	test "$(kinds)" = "opened:erin edited:erin"
'

test_expect_success 'a writer edits the body alone; the title is kept' '
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":2,\"body\":\"It fails on main.\"}" "$DAVE_TOKEN" &&
	forge_ok &&
	jq -e ".edit_version == 3 and .title == \"Broken build on main\" and .changed == true" out.json &&
	test "$(issue_row 1)" = "$(row "Broken build on main" "It fails on main." open 3 1)" &&
	activity 1 &&
	test "$(kinds)" = "opened:erin edited:erin edited:dave" &&
	jq -e ".body == \"It fails on main.\"" out.json
'

test_expect_success 'a stale edit_version is refused: it says to reload, and nothing changes' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":2,\"title\":\"Stale title\"}" &&
	forge_error "^issue #1 of alice/project has changed since you read it \(edit_version is now 3, you passed 2\): reload it with get_issue and retry$" &&
	grep reload errtext &&
	test "$(state)" = "$before" &&
	test "$(issue_row 1)" = "$(row "Broken build on main" "It fails on main." open 3 1)"
'

test_expect_success 'a version from the future is stale too' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":9,\"body\":\"x\"}" &&
	forge_error "edit_version is now 3, you passed 9" &&
	test "$(state)" = "$before"
'

test_expect_success 'an edit to the same text changes nothing and records nothing' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":3,\"title\":\" Broken build on main\",\"body\":\"It fails on main.\"}" &&
	forge_ok &&
	jq -e ".edit_version == 3 and .changed == false and .title == \"Broken build on main\"" out.json &&
	test "$(state)" = "$before"
'

for t in '""' '"   "' '"\n\t"'; do
	test_expect_success "edit_issue with title $t is refused and changes nothing" "
		before=\$(state) &&
		call edit_issue '{\"repo\":\"$P\",\"number\":1,\"edit_version\":3,\"title\":$t}' &&
		forge_error '^title must not be blank' &&
		test \"\$(state)\" = \"\$before\"
	"
done

test_expect_success 'edit_issue with neither title nor body says what to give' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":3}" &&
	forge_error "^nothing to edit: give title, body or both$" &&
	test "$(state)" = "$before"
'

test_expect_success 'edit_issue refuses a NUL byte' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":1,\"edit_version\":3,\"body\":\"a\\u0000b\"}" &&
	forge_error NUL &&
	test "$(state)" = "$before"
'

for a in '"edit_version":"3",' '"edit_version":3.0,' '"edit_version":0,' ''; do
	test_expect_success "edit_issue {$a} names edit_version and changes nothing" "
		before=\$(state) &&
		raw_call edit_issue '{$a\"repo\":\"$P\",\"number\":1,\"title\":\"x\"}' &&
		forge_error edit_version &&
		test \"\$(state)\" = \"\$before\"
	"
done

# ---- roles ----------------------------------------------------------------

test_expect_success 'the owner opens issue #2' '
	call create_issue "{\"repo\":\"$P\",\"title\":\"Owner issue\"}" && forge_ok &&
	jq -e ".number == 2" out.json
'

test_expect_success 'a reader who is not the author may not edit, close or reopen; nothing changes' '
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":2,\"edit_version\":1,\"title\":\"mine now\"}" "$ERIN_TOKEN" &&
	forge_error "^you cannot edit issue #2 on alice/project: that needs the writer role or more, and your role is reader$" &&
	call close_issue "{\"repo\":\"$P\",\"number\":2}" "$ERIN_TOKEN" &&
	forge_error "^you cannot close issue #2 on alice/project: that needs the writer role or more, and your role is reader$" &&
	call reopen_issue "{\"repo\":\"$P\",\"number\":2}" "$ERIN_TOKEN" &&
	forge_error "needs the writer role" &&
	test "$(state)" = "$before" &&
	test "$(issue_row 2)" = "$(row "Owner issue" "(none)" open 1 1)"
'

test_expect_success 'a user with no role on the repository is refused the same way' '
	before=$(state) &&
	call close_issue "{\"repo\":\"$P\",\"number\":2}" "$FRANK_TOKEN" &&
	forge_error "^you cannot close issue #2 on alice/project: that needs the writer role or more, and your role is none$" &&
	test "$(state)" = "$before"
'

test_expect_success 'a read-only token cannot call the lifecycle tools (403 before they run)' '
	before=$(state) &&
	for t in edit_issue close_issue reopen_issue; do
		call $t "{\"repo\":\"$P\",\"number\":2,\"edit_version\":1,\"title\":\"x\"}" "$CAROL_TOKEN" &&
		test_status 403 || return 1
	done &&
	test "$(state)" = "$before"
'

# ---- closing and reopening ------------------------------------------------

test_expect_success 'a writer closes #2: {number, state, changed, url}, an event with the actor' '
	call close_issue "{\"repo\":\"$P\",\"number\":2}" "$DAVE_TOKEN" && forge_ok &&
	jq -e ". == {number: 2, state: \"closed\", changed: true, url: \"$BASE_URL/alice/project/issues/2\"}" out.json &&
	test "$(issue_row 2)" = "$(row "Owner issue" "(none)" closed 1 0)" &&
	activity 2 &&
	test "$(kinds)" = "opened:alice closed:dave" &&
	jq -e ".state == \"closed\" and (.closed_at | test(\"Z$\")) and .edit_version == 1" out.json &&
	jq -e ".activity.entries[1] | .cause == \"user\" and (has(\"source_number\") | not) and (has(\"comment_id\") | not)" out.json &&
	call list_issues "{\"repo\":\"$P\",\"state\":\"closed\"}" && forge_ok &&
	jq -e "[.issues[].number] == [2]" out.json
'

test_expect_success 'closing a closed issue succeeds, says it was already closed, records nothing' '
	before=$(state) &&
	call close_issue "{\"repo\":\"$P\",\"number\":2}" && forge_ok &&
	jq -e ". == {number: 2, state: \"closed\", changed: false, url: \"$BASE_URL/alice/project/issues/2\"}" out.json &&
	test "$(state)" = "$before"
'

test_expect_success 'the owner reopens #2: closed_at cleared, a reopened event; again changes nothing' '
	call reopen_issue "{\"repo\":\"$P\",\"number\":2}" && forge_ok &&
	jq -e ". == {number: 2, state: \"open\", changed: true, url: \"$BASE_URL/alice/project/issues/2\"}" out.json &&
	test "$(issue_row 2)" = "$(row "Owner issue" "(none)" open 1 1)" &&
	before=$(state) &&
	call reopen_issue "{\"repo\":\"$P\",\"number\":2}" "$DAVE_TOKEN" && forge_ok &&
	jq -e ".state == \"open\" and .changed == false" out.json &&
	test "$(state)" = "$before" &&
	activity 2 &&
	test "$(kinds)" = "opened:alice closed:dave reopened:alice" &&
	jq -e ".closed_at == null and .activity.entries[2].cause == \"user\"" out.json
'

test_expect_success 'the author closes and reopens their own issue with only the reader role' '
	call close_issue "{\"repo\":\"$P\",\"number\":1}" "$ERIN_TOKEN" && forge_ok &&
	jq -e ".state == \"closed\" and .changed == true" out.json &&
	call reopen_issue "{\"repo\":\"$P\",\"number\":1}" "$ERIN_TOKEN" && forge_ok &&
	jq -e ".state == \"open\" and .changed == true" out.json &&
	activity 1 &&
	test "$(kinds)" = "opened:erin edited:erin edited:dave closed:erin reopened:erin" &&
	jq -e ".edit_version == 3" out.json
'

test_expect_success 'a closed issue can still be edited; the state stays' '
	call close_issue "{\"repo\":\"$P\",\"number\":2}" && forge_ok &&
	call edit_issue "{\"repo\":\"$P\",\"number\":2,\"edit_version\":1,\"body\":\"Closed, explained.\"}" "$DAVE_TOKEN" &&
	forge_ok &&
	jq -e ".state == \"closed\" and .edit_version == 2" out.json &&
	test "$(issue_row 2)" = "$(row "Owner issue" "Closed, explained." closed 2 0)"
'

# ---- what is not an issue -------------------------------------------------

test_expect_success 'a pull request number is not an issue; its opening is recorded' '
	call create_pull_request "{\"repo\":\"$P\",\"title\":\"A change\",\"head\":\"feature\",\"base\":\"main\"}" &&
	forge_ok && jq -e ".number == 3" out.json &&
	before=$(state) &&
	call edit_issue "{\"repo\":\"$P\",\"number\":3,\"edit_version\":1,\"title\":\"x\"}" &&
	forge_error "^#3 in alice/project is a pull request, not an issue: edit_issue works on issues only$" &&
	call close_issue "{\"repo\":\"$P\",\"number\":3}" &&
	forge_error "^#3 in alice/project is a pull request, not an issue: close_issue works on issues only$" &&
	call reopen_issue "{\"repo\":\"$P\",\"number\":3}" &&
	forge_error "reopen_issue works on issues only" &&
	test "$(state)" = "$before" &&
	test "$(db_sql "select e.kind, u.login from events e join users u on u.id = e.actor_id join pull_requests p on p.id = e.pull_request_id where p.number = 3")" = "$(printf "opened\talice")" &&
	call get_pull_request "{\"repo\":\"$P\",\"number\":3}" && forge_ok &&
	jq -e ".edit_version == 1" out.json
'

test_expect_success 'an unknown number names the issue' '
	for t in close_issue reopen_issue; do
		call $t "{\"repo\":\"$P\",\"number\":999}" &&
		forge_error "^issue #999 not found in alice/project" || return 1
	done &&
	call edit_issue "{\"repo\":\"$P\",\"number\":999,\"edit_version\":1,\"title\":\"x\"}" &&
	forge_error "^issue #999 not found in alice/project"
'

test_expect_success 'a private repository stays invisible to a stranger through every lifecycle tool' '
	call create_issue "{\"repo\":\"bob/hidden\",\"title\":\"hidden issue\"}" "$BOB_TOKEN" && forge_ok &&
	before=$(state) &&
	for c in "edit_issue {\"number\":1,\"edit_version\":1,\"title\":\"x\"}" \
		"close_issue {\"number\":1}" "reopen_issue {\"number\":1}"; do
		t=${c%% *} a=${c#* } &&
		call $t "$(jq -nc --argjson a "$a" "{repo: \"bob/hidden\"} + \$a")" "$FRANK_TOKEN" &&
		forge_error "^Repository not found or not accessible$" &&
		cp errtext hidden.txt &&
		call $t "$(jq -nc --argjson a "$a" "{repo: \"bob/nothing\"} + \$a")" "$FRANK_TOKEN" &&
		forge_error . &&
		test_cmp errtext hidden.txt || return 1
	done &&
	test "$(state)" = "$before"
'

test_expect_success 'a reader of the private repository sees the role message instead' '
	before=$(state) &&
	call close_issue "{\"repo\":\"bob/hidden\",\"number\":1}" "$CAROL_RW_TOKEN" &&
	forge_error "^you cannot close issue #1 on bob/hidden: that needs the writer role or more, and your role is reader$" &&
	test "$(state)" = "$before"
'

# ---- concurrent edits -----------------------------------------------------

test_expect_success 'two edits with the same version at once: exactly one wins, the other says reload' '
	v=$(db_sql "select i.edit_version from issues i join repositories r on r.id = i.repo_id where r.name = \"project\" and i.number = 2") &&
	edits=$(db_sql "select count(*) from events where kind = \"edited\"") &&
	{ fast_tool edit_issue "{\"repo\":\"$P\",\"number\":2,\"edit_version\":$v,\"title\":\"Title A\"}" "$ALICE_TOKEN" a.out >a.status & } &&
	pa=$! &&
	{ fast_tool edit_issue "{\"repo\":\"$P\",\"number\":2,\"edit_version\":$v,\"title\":\"Title B\"}" "$DAVE_TOKEN" b.out >b.status & } &&
	pb=$! &&
	wait $pa && wait $pb &&
	test "$(cat a.status)" = 200 && test "$(cat b.status)" = 200 &&
	ok=0 && stale=0 && winner= &&
	for f in a b; do
		if jq -e ".result.isError == true" $f.out >/dev/null; then
			jq -r ".result.content[0].text" $f.out | grep "reload it with get_issue and retry" &&
			stale=$((stale + 1))
		else
			ok=$((ok + 1)) && winner=$(jq -r ".result.structuredContent.title" $f.out)
		fi || return 1
	done &&
	test $ok = 1 && test $stale = 1 &&
	test "$(issue_row 2 | cut -f1,4)" = "$(printf "%s\t%s" "$winner" $((v + 1)))" &&
	test "$(db_sql "select count(*) from events where kind = \"edited\"")" = $((edits + 1))
'

# ---- comments and merges in the activity ----------------------------------

test_expect_success 'a comment shows in the activity with its id and body' '
	call add_issue_comment "{\"repo\":\"$P\",\"number\":1,\"body\":\"me *too*\"}" "$FRANK_TOKEN" &&
	forge_ok && id=$(jq -r .id out.json) &&
	activity 1 &&
	jq -e ".activity.entries[-1] | . == {id: .id, type: \"commented\", actor: \"frank\", created_at: .created_at, comment_id: $id, body: \"me *too*\"}" out.json &&
	jq -e "[.comments[].body] == [\"me *too*\"] and .comments_total == 1" out.json
'

test_expect_success '"closed by merge of #N": type closed, cause merge, source_number N' '
	db_sql "insert into events (issue_id, actor_id, kind, cause, source_number) select i.id, u.id, \"closed\", \"merge\", 3 from issues i join repositories r on r.id = i.repo_id, users u where r.name = \"project\" and i.number = 1 and u.login = \"dave\"" &&
	activity 1 &&
	jq -e ".activity.entries[-1] | . == {id: .id, type: \"closed\", actor: \"dave\", created_at: .created_at, cause: \"merge\", source_number: 3}" out.json &&
	jq -e "[.activity.entries[].id] | . == sort" out.json
'

# ---- activity pages -------------------------------------------------------

test_expect_success 'the activity pages 50 entries, oldest first; the comments keep their own paging' '
	call create_issue "{\"repo\":\"$P\",\"title\":\"Busy\"}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	for i in $(seq 1 55); do
		{ tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"c$i\"}" --token "$ALICE_TOKEN" && test_status 200; } || return 1
	done &&
	activity $n &&
	jq -e ".activity.page == 1 and .activity.has_more == true and (.activity.entries | length) == 50" out.json &&
	jq -e ".activity.entries[0].type == \"opened\" and .activity.entries[1].body == \"c1\" and .activity.entries[49].body == \"c49\"" out.json &&
	jq -e "[.activity.entries[].id] | . == sort and . == unique" out.json &&
	jq -e "(.comments | length) == 50 and .comments_total == 55 and .comments_truncated == true" out.json &&
	last=$(jq ".activity.entries[49].id" out.json) &&
	activity $n 2 &&
	jq -e ".activity.page == 2 and .activity.has_more == false" out.json &&
	jq -e "[.activity.entries[].body] == [\"c50\", \"c51\", \"c52\", \"c53\", \"c54\", \"c55\"]" out.json &&
	jq -e ".activity.entries[0].id > $last" out.json &&
	activity $n 3 &&
	jq -e ".activity == {entries: [], page: 3, has_more: false}" out.json
'

test_expect_success 'exactly 50 entries: one page, has_more false' '
	call create_issue "{\"repo\":\"$P\",\"title\":\"Fifty\"}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	for i in $(seq 1 49); do
		{ tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"d$i\"}" --token "$ALICE_TOKEN" && test_status 200; } || return 1
	done &&
	activity $n &&
	jq -e "(.activity.entries | length) == 50 and .activity.has_more == false" out.json
'

for a in '"page":0' '"page":"2"' '"page":1.0' '"page":2147483648'; do
	test_expect_success "get_issue {$a} names the page argument" "
		raw_call get_issue '{$a,\"repo\":\"$P\",\"number\":1}' &&
		forge_error page
	"
done

# ---- get_user -------------------------------------------------------------

test_expect_success 'get_user: the caller and the scopes of the token in use' '
	call get_user "{}" && forge_ok &&
	jq -e ". == {login: \"alice\", name: \"User alice\", scopes: [\"read\", \"write\"]}" out.json &&
	call get_user "{}" "$CAROL_TOKEN" && forge_ok &&
	jq -e ". == {login: \"carol\", name: \"User carol\", scopes: [\"read\"]}" out.json
'

test_expect_success 'get_user: an execute token has write too; an account without a name' '
	exec_token=$(make_token dave read,execute) &&
	call get_user "{}" "$exec_token" && forge_ok &&
	jq -e ". == {login: \"dave\", name: \"User dave\", scopes: [\"read\", \"write\", \"execute\"]}" out.json &&
	fm user add nameless >/dev/null &&
	nameless=$(make_token nameless read,merge) &&
	call get_user "{}" "$nameless" && forge_ok &&
	jq -e ". == {login: \"nameless\", name: null, scopes: [\"read\", \"write\", \"merge\"]}" out.json
'

test_expect_success 'get_user needs the read scope and takes no argument' '
	call get_user "{}" "$WRITE_ONLY_TOKEN" &&
	test_status 403 &&
	call get_user "{\"login\":\"bob\"}" &&
	forge_error "^unknown argument .login.$"
'

test_expect_success 'get_user over stdio answers for the token given' '
	modern_body tools/call "{\"name\":\"get_user\",\"arguments\":{}}" 9 |
		FORGEMCP_TOKEN="$CAROL_TOKEN" timeout 30 "$FORGEMCP" stdio >stdio.out 2>stdio.err &&
	cat stdio.out >>"$RESPONSES_LOG" &&
	jq -e ".id == 9 and .result.structuredContent == {login: \"carol\", name: \"User carol\", scopes: [\"read\"]}" stdio.out
'

# ---- list_issues pages ----------------------------------------------------

test_expect_success 'list_issues pages 50 issues at a time until nothing is left' '
	for i in $(seq 1 53); do
		{ tool_call create_issue "{\"repo\":\"bob/tools\",\"title\":\"tool issue $i\"}" --token "$BOB_TOKEN" && test_status 200; } || return 1
	done &&
	call list_issues "{\"repo\":\"bob/tools\"}" && forge_ok &&
	jq -e ".page == 1 and .has_more == true and (.issues | length) == 50" out.json &&
	jq -e "[.issues[].number] == [range(53; 3; -1)]" out.json &&
	jq -e "(has(\"truncated\") | not) and (has(\"next_cursor\") | not)" out.json &&
	call list_issues "{\"repo\":\"bob/tools\",\"page\":2}" && forge_ok &&
	jq -e ".page == 2 and .has_more == false and [.issues[].number] == [3, 2, 1]" out.json &&
	call list_issues "{\"repo\":\"bob/tools\",\"page\":3}" && forge_ok &&
	jq -e ". == {issues: [], page: 3, has_more: false}" out.json
'

test_expect_success 'list_issues pages a filtered list too' '
	call list_issues "{\"repo\":\"bob/tools\",\"query\":\"issue 5\"}" && forge_ok &&
	jq -e "[.issues[].number] == [53, 52, 51, 50, 5] and .has_more == false" out.json
'

for a in '{"limit":10}' '{"cursor":6}' '{"page":0}' '{"page":"2"}'; do
	test_expect_success "list_issues $a is an in-band error naming the argument" "
		call list_issues \"\$(jq -nc --argjson a '$a' '{repo: \"bob/tools\"} + \$a')\" &&
		forge_error '$(printf '%s' "$a" | jq -r 'keys[0]')'
	"
done

test_done
