#!/bin/bash
# t5100: the pull request tools: create_pull_request, list_pull_requests, get_pull_request.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }

P=alice/project

# pr TITLE HEAD BASE [TOKEN]: create_pull_request on alice/project
pr () {
	tool_call create_pull_request "$(jq -nc --arg r "$P" --arg t "$1" --arg h "$2" --arg b "$3" \
		'{repo: $r, title: $t, head: $h, base: $b}')" --token "${4:-$ALICE_TOKEN}"
}

# next_number: the repository counter of alice/project
next_number () {
	db_sql "select next_number from repositories r join users u on u.id = r.owner_id where u.login = 'alice' and r.name = 'project'"
}

# get_pr N: get_pull_request; the answer goes to out.json
get_pr () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" && forge_ok
}

test_expect_success 'tools/list shows the pull request tools with titles and hints' '
	mcp_modern tools/list &&
	for t in list_pull_requests get_pull_request create_pull_request; do
		test_jq ".result.tools[] | select(.name == \"$t\") | .title | length > 0" || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"list_pull_requests\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"get_pull_request\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == false"
'

test_expect_success 'the owner opens a pull request: {number, state, url}' '
	pr "Greet the world" feature main && forge_ok &&
	jq -e ". == {number: 1, state: \"open\", url: \"$BASE_URL/alice/project/pulls/1\"}" out.json &&
	test "$(db_sql "select number, head_ref, base_ref, state from pull_requests")" = "$(printf "1\tfeature\tmain\topen")"
'

test_expect_success 'get_pull_request: the real three-dot diff, as git prints it' '
	get_pr 1 &&
	jq -e ".number == 1 and .title == \"Greet the world\" and .state == \"open\" and .author == \"alice\"" out.json &&
	jq -e ".head == \"feature\" and .base == \"main\" and .url == \"$BASE_URL/alice/project/pulls/1\"" out.json &&
	jq -e ".body == null and .comments == [] and .diff_truncated == false and .diff_note == null" out.json &&
	jq -e ".edit_version == 1 and .activity.page == 1 and .activity.has_more == false" out.json &&
	jq -e "[.activity.entries[] | \"\\(.type):\\(.actor)\"] == [\"opened:alice\"]" out.json &&
	jq -j .diff out.json >got &&
	git --git-dir="$PROJECT_GIT" diff main...feature >expect &&
	test -s expect &&
	test_cmp expect got
'

test_expect_success 'the three-dot diff leaves out what base did since the merge base' '
	grep "hello, world" got &&
	grep "^+++ b/src/new.c" got &&
	test_must_fail grep "Main moved on" got &&
	git --git-dir="$PROJECT_GIT" diff main feature >two-dot &&
	grep "Main moved on" two-dot
'

test_expect_success 'a writer collaborator opens a pull request' '
	pr "Other work" other main "$DAVE_TOKEN" && forge_ok &&
	jq -e ".number == 2" out.json &&
	get_pr 2 && jq -e ".author == \"dave\"" out.json
'

test_expect_success 'a reader collaborator is refused in band, taking no number' '
	before=$(next_number) &&
	pr "From a reader" huge main "$ERIN_TOKEN" &&
	forge_error "^you cannot open a pull request on alice/project: that needs the writer role or more" &&
	grep "your role is reader" errtext &&
	test "$(next_number)" = "$before"
'

test_expect_success 'a stranger on a public repository is refused in band' '
	pr "From a stranger" huge main "$FRANK_TOKEN" &&
	forge_error "^you cannot open a pull request on alice/project: that needs the writer role or more" &&
	grep "your role is none" errtext
'

test_expect_success 'a reader collaborator of a private repository is refused too' '
	tool_call create_pull_request "{\"repo\":\"bob/hidden\",\"title\":\"x\",\"head\":\"main\",\"base\":\"other\"}" --token "$CAROL_RW_TOKEN" &&
	forge_error "^you cannot open a pull request on bob/hidden"
'

test_expect_success 'a read-only token gets HTTP 403 before the tool runs' '
	pr "x" huge main "$CAROL_TOKEN" &&
	test_status 403
'

test_expect_success 'a missing head branch' '
	before=$(next_number) &&
	pr "x" nope main && forge_error "^head branch '\''nope'\'' not found in alice/project" &&
	test "$(next_number)" = "$before"
'

test_expect_success 'a missing base branch' '
	pr "x" feature nope && forge_error "^base branch '\''nope'\'' not found in alice/project"
'

test_expect_success 'head equal to base' '
	pr "x" main main && forge_error "^head and base are the same branch '\''main'\''"
'

test_expect_success 'a tag or a commit is not a branch' '
	pr "x" "$PROJECT_FEATURE" main && forge_error "^head branch .* not (found|valid)"
'

for b in 'a..b' '../x' 'main^' 'a b' '-x'; do
	test_expect_success "branch name '$b' is refused in band" "
		pr x '$b' main && forge_error '^head branch'
	"
done

for t in '' '   '; do
	test_expect_success "a blank title '$t' is refused, taking no number" "
		before=\$(next_number) &&
		pr '$t' huge main && forge_error '^title must not be blank' &&
		test \"\$(next_number)\" = \"\$before\"
	"
done

test_expect_success 'a second open pull request for the same head and base is refused' '
	pr "Again" feature main && forge_error "^a pull request from '\''feature'\'' into '\''main'\'' is already open: #1"
'

for a in 'title' 'head' 'base'; do
	test_expect_success "create_pull_request without $a names it" "
		tool_call create_pull_request \"\$(jq -nc --arg r $P '{repo: \$r, title: \"t\", head: \"huge\", base: \"main\"} | del(.$a)')\" &&
		forge_error $a
	"
done

test_expect_success 'a diff past 100 kB is cut, flagged, and points to compare_refs' '
	pr "A big file" huge main && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n &&
	jq -e ".diff_truncated == true" out.json &&
	jq -j .diff out.json >got &&
	size=$(wc -c <got) &&
	test "$size" -le 100000 && test "$size" -gt 90000 &&
	git --git-dir="$PROJECT_GIT" diff main...huge >expect &&
	test "$(wc -c <expect)" -gt 100000 &&
	head -c "$size" expect >expect.head &&
	test_cmp expect.head got &&
	jq -r .diff_note out.json >note &&
	grep "compare_refs" note &&
	grep "\"three_dot\": true" note &&
	grep "\"offset\": $size" note &&
	grep "\"head\": \"huge\"" note && grep "\"base\": \"main\"" note
'

test_expect_success 'following the note with compare_refs gives the rest of the diff' '
	offset=$(wc -c <got) &&
	cp got whole &&
	while :; do
		tool_call compare_refs "{\"repo\":\"$P\",\"base\":\"main\",\"head\":\"huge\",\"three_dot\":true,\"offset\":$offset}" &&
		forge_ok &&
		jq -j .patch out.json >>whole &&
		jq -e ".truncated == true" out.json >/dev/null || break
		offset=$(jq -r .next_offset out.json)
	done &&
	test_cmp expect whole
'

test_expect_success 'a deleted head branch: diff null, the note names it' '
	pr "Doomed" doomed main && forge_ok && head_gone=$(jq -r .number out.json) &&
	pr "Into doomed" other doomed && forge_ok && base_gone=$(jq -r .number out.json) &&
	git --git-dir="$PROJECT_GIT" update-ref -d refs/heads/doomed &&
	get_pr $head_gone &&
	jq -e ".diff == null and .diff_truncated == false" out.json &&
	jq -e ".diff_note | test(\"head branch .doomed. no longer exists\")" out.json &&
	get_pr $base_gone &&
	jq -e ".diff == null" out.json &&
	jq -e ".diff_note | test(\"base branch .doomed. no longer exists\")" out.json
'

test_expect_success 'list_pull_requests: open ones, highest number first, with the documented fields' '
	tool_call list_pull_requests "{\"repo\":\"$P\"}" && forge_ok &&
	jq -e "[.pull_requests[].number] == [5, 4, 3, 2, 1] and .page == 1 and .has_more == false" out.json &&
	jq -e ".pull_requests[] | select(.number == 1) | .title == \"Greet the world\" and .state == \"open\" and .head == \"feature\" and .base == \"main\" and .author == \"alice\" and .url == \"$BASE_URL/alice/project/pulls/1\"" out.json
'

test_expect_success 'list_pull_requests by state' '
	db_sql "update pull_requests set state = \"merged\", merged_at = utc_timestamp() where number = 1" &&
	db_sql "update pull_requests set state = \"closed\", closed_at = utc_timestamp() where number = 2" &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"merged\"}" && forge_ok &&
	jq -e "[.pull_requests[].number] == [1]" out.json &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"closed\"}" && forge_ok &&
	jq -e "[.pull_requests[].number] == [2]" out.json &&
	tool_call list_pull_requests "{\"repo\":\"$P\"}" && forge_ok &&
	jq -e "[.pull_requests[].number] == [5, 4, 3]" out.json &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	jq -e "[.pull_requests[].number] == [5, 4, 3, 2, 1]" out.json &&
	get_pr 1 && jq -e ".state == \"merged\" and (.merged_at | test(\"Z$\"))" out.json
'

test_expect_success 'a merged pull request may be opened again for the same branches' '
	pr "Greet the world, again" feature main && forge_ok &&
	jq -e ".number == 6" out.json
'

test_expect_success 'list_pull_requests refuses an unknown state, naming it' '
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"draft\"}" &&
	forge_error state
'

test_expect_success 'get_pull_request on an unknown number' '
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":999}" &&
	forge_error "^pull request #999 not found in alice/project"
'

test_expect_success 'get_pull_request shows comments oldest first' '
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":6,\"body\":\"looks good\"}" --token "$DAVE_TOKEN" && forge_ok &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":6,\"body\":\"thanks\"}" && forge_ok &&
	get_pr 6 &&
	jq -e "[.comments[] | .author + \":\" + .body] == [\"dave:looks good\", \"alice:thanks\"]" out.json &&
	jq -e ".comments_total == 2 and .comments_truncated == false" out.json &&
	jq -j .diff out.json >got &&
	git --git-dir="$PROJECT_GIT" diff main...feature >expect &&
	test_cmp expect got
'

for call in \
	'list_pull_requests {"repo":"R"}' \
	'get_pull_request {"repo":"R","number":1}' \
	'create_pull_request {"repo":"R","title":"x","head":"main","base":"other"}'
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

test_expect_success 'numbers of issues and pull requests never collide' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"an issue\"}" && forge_ok &&
	jq -e ".number == 7" out.json &&
	test "$(db_sql "select count(*) from (select number from issues where repo_id = (select id from repositories where name = \"project\") union all select number from pull_requests where repo_id = (select id from repositories where name = \"project\")) n")" = 7
'

test_expect_success 'a diff that is not UTF-8 still comes back as valid JSON text' '
	pr "Latin-1" latin main && forge_ok &&
	get_pr $(jq -r .number out.json) &&
	jq -e ".diff | contains(\"+caf\ufffd in Latin-1\")" out.json &&
	jq -e ".diff_truncated == false" out.json
'

test_expect_success 'list_pull_requests pages 50 pull requests at a time' '
	add_branches "$PROJECT_GIT" page 45 &&
	for i in $(seq 1 45); do
		test "$(fast_tool create_pull_request "{\"repo\":\"$P\",\"title\":\"page $i\",\"head\":\"page$(printf %03d $i)\",\"base\":\"main\"}" "$ALICE_TOKEN" fast.out)" = 200 &&
		grep -q "\"state\":\"open\"" fast.out || return 1
	done &&
	db_sql "select p.number from pull_requests p join repositories r on r.id = p.repo_id where r.name = \"project\" order by p.number desc" | jq -s -c . >all.json &&
	test "$(jq length all.json)" = 52 &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	jq -e --slurpfile all all.json "[.pull_requests[].number] == \$all[0][:50] and .page == 1 and .has_more == true" out.json &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\",\"page\":2}" && forge_ok &&
	jq -e --slurpfile all all.json "[.pull_requests[].number] == \$all[0][50:] and .page == 2 and .has_more == false" out.json &&
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"merged\",\"page\":2}" && forge_ok &&
	jq -e ".pull_requests == [] and .page == 2 and .has_more == false" out.json
'

for a in '{"page":0}' '{"limit":4}' '{"cursor":3}'; do
	test_expect_success "list_pull_requests $a is an in-band error naming the argument" "
		tool_call list_pull_requests \"\$(jq -nc --argjson a '$a' '{repo: \"$P\"} + \$a')\" &&
		forge_error '^argument .$(printf '%s' "$a" | jq -r 'keys[0]')|unknown argument .$(printf '%s' "$a" | jq -r 'keys[0]')'
	"
done

test_done
