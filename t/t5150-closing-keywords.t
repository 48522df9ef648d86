#!/bin/bash
# t5150: closing keywords and pull request metadata: closing_issue_numbers from
# the description only, the linked issue, draft.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
add_branches "$PROJECT_GIT" topic 60 || { echo "Bail out! branches"; exit 1; }

P=alice/project
BRANCH=0

# open_pr BODY [EXTRA_JSON]: create_pull_request on alice/project from the next
# topic branch into main, with BODY as description (no body when BODY is "-"),
# passed as the argument named by PR_FIELD (default body); EXTRA_JSON is merged
# into the arguments.
open_pr () {
	local extra=${2:-'{}'}
	BRANCH=$((BRANCH + 1))
	tool_call create_pull_request "$(jq -nc --arg r "$P" --arg h "topic$(printf %03d $BRANCH)" \
		--arg b "$1" --arg f "${PR_FIELD:-body}" --argjson x "$extra" \
		'{repo: $r, title: "a change", head: $h, base: "main"} +
		 (if $b == "-" then {} else {($f): $b} end) + $x')"
}

# get_pr N: get_pull_request; the answer goes to out.json
get_pr () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" && forge_ok
}

# listed N FILTER: list_pull_requests (all states) has #N and FILTER holds on it
listed () {
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	jq -e "[.pull_requests[] | select(.number == $1)] | length == 1" out.json >/dev/null &&
	jq -e ".pull_requests[] | select(.number == $1) | $2" out.json
}

# column N COL: a column of pull request #N of alice/project ("NULL" for NULL)
column () {
	db_sql "select ifnull($2, 'NULL') from pull_requests p join repositories r on r.id = p.repo_id where r.name = 'project' and p.number = $1"
}

pr_rows () {
	db_sql "select count(*) from pull_requests"
}

next_number () {
	db_sql "select next_number from repositories where name = 'project'"
}

issue_state () {
	db_sql "select state from issues i join repositories r on r.id = i.repo_id where r.name = 'project' and i.number = $1"
}

test_expect_success 'five issues to declare' '
	for i in 1 2 3 4 5; do
		tool_call create_issue "{\"repo\":\"$P\",\"title\":\"issue $i\"}" && forge_ok &&
		jq -e ".number == $i" out.json || return 1
	done
'

test_expect_success 'create_pull_request documents draft and issue, and that issue never closes' '
	mcp_modern tools/list &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.draft.type == \"boolean\"" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.issue.type == \"integer\"" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .description | test(\"Closes #N in the body declares issues to close when the pull request is merged\")" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .description | test(\"only links an issue and never closes it\")" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.issue.description | test(\"only links the issue and never closes it\")" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.body.description | test(\"Closes #N\")" &&
	test_jq ".result.tools[] | select(.name == \"get_pull_request\") | .description | test(\"closing_issue_numbers\")"
'

# BODY<TAB>EXPECTED closing_issue_numbers (JSON)<TAB>STORED column
while IFS='	' read -r body want stored; do
	test_expect_success "description '$body' declares $want" '
		open_pr "$(printf "%b" "$body")" && forge_ok &&
		n=$(jq -r .number out.json) &&
		get_pr $n &&
		jq -e ".closing_issue_numbers == $want" out.json &&
		listed $n ".closing_issue_numbers == $want" &&
		test "$(column $n closing_issue_numbers)" = "$stored"
	'
done <<'EOF'
Closes #1	[1]	1
Closes #1, #2 and #3	[1,2,3]	1,2,3
fixes #1 and #2	[1,2]	1,2
Resolves #3,#1	[3,1]	3,1
FIXES #2. Also closes #2 and resolved #4.	[2,4]	2,4
This change fixes #5 in the parser.\n\nCloses #1	[5,1]	5,1
Fixes #99	[99]	99
See #1 for the background	[]	NULL
Fixes owner/repo#3	[]	NULL
Fixes #2, owner/repo#3, #4	[2]	2
prefix#3	[]	NULL
prefixes #3	[]	NULL
Fixes: #1	[]	NULL
Fixes issue #1	[]	NULL
```\nFixes #1\n```	[]	NULL
~~~sh\ncloses #2\n~~~\nResolves #3	[3]	3
    Fixes #1	[]	NULL
Use `Fixes #2` in a commit message	[]	NULL
<!-- Write Fixes #N here -->\n<!-- Fixes #1 -->\nCloses #5	[5]	5
Fixes #0 and #2147483648	[]	NULL
Fixes #2147483647	[2147483647]	2147483647
-	[]	NULL
EOF

# The same declarations given as description (MoonHub's name) instead of body
while IFS='	' read -r body want stored; do
	test_expect_success "description given as description: '$body' declares $want" '
		PR_FIELD=description open_pr "$(printf "%b" "$body")" && forge_ok &&
		n=$(jq -r .number out.json) &&
		get_pr $n &&
		jq -e --arg b "$(printf "%b" "$body")" ".body == \$b" out.json &&
		jq -e ".closing_issue_numbers == $want" out.json &&
		listed $n ".closing_issue_numbers == $want" &&
		test "$(column $n closing_issue_numbers)" = "$stored" &&
		test "$(issue_state 1)" = open
	'
done <<'EOF'
Closes #1, #2 and #3	[1,2,3]	1,2,3
Fixes owner/repo#3	[]	NULL
```\nFixes #1\n```\nResolves #4	[4]	4
EOF

test_expect_success 'body and description together are refused, naming both, and nothing is created' '
	before=$(pr_rows) && counter=$(next_number) &&
	open_pr "Closes #1" "{\"description\": \"Closes #2\"}" &&
	forge_error "^give body or description, not both" &&
	open_pr "" "{\"description\": \"\"}" &&
	forge_error "^give body or description, not both" &&
	test "$(pr_rows)" = "$before" &&
	test "$(next_number)" = "$counter"
'

test_expect_success 'description is in the schema of create_pull_request' '
	mcp_modern tools/list &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.description.type == \"string\"" &&
	test_jq ".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.description.maxLength == 65536"
'

test_expect_success 'a 100-number cap: 150 references keep the first 100' '
	body="Fixes $(seq 1 150 | sed "s/^/#/" | paste -sd, | sed "s/,/, /g")" &&
	open_pr "$body" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n &&
	jq -e ".closing_issue_numbers == [range(1; 101)]" out.json
'

test_expect_success 'a title saying "Fixes #1" declares nothing' '
	BRANCH=$((BRANCH + 1)) &&
	tool_call create_pull_request "$(jq -nc --arg r "$P" --arg h "topic$(printf %03d $BRANCH)" \
		"{repo: \$r, title: \"Fixes #1\", head: \$h, base: \"main\"}")" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n &&
	jq -e ".title == \"Fixes #1\" and .closing_issue_numbers == []" out.json &&
	test "$(column $n closing_issue_numbers)" = NULL
'

test_expect_success 'a comment saying "closes #1" changes nothing and closes nothing' '
	open_pr "Resolves #2" && forge_ok &&
	n=$(jq -r .number out.json) &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"closes #1, fixes #3\"}" &&
	forge_ok &&
	get_pr $n &&
	jq -e ".closing_issue_numbers == [2] and .comments_total == 1" out.json &&
	test "$(column $n closing_issue_numbers)" = 2 &&
	test "$(issue_state 1)" = open && test "$(issue_state 3)" = open &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1}" && forge_ok &&
	jq -e ".state == \"open\"" out.json
'

test_expect_success 'declaring closures closes nothing when the pull request is opened' '
	for i in 1 2 3 4 5; do
		test "$(issue_state $i)" = open || return 1
	done
'

test_expect_success 'issue links an issue: shown as issue, closes nothing, declares nothing' '
	before=$(pr_rows) &&
	open_pr - "{\"issue\": 1}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	test "$(pr_rows)" = $((before + 1)) &&
	get_pr $n &&
	jq -e ".issue == 1 and .closing_issue_numbers == [] and .draft == false" out.json &&
	listed $n ".issue == 1 and .closing_issue_numbers == []" &&
	test "$(column $n linked_issue)" = 1 &&
	test "$(issue_state 1)" = open
'

test_expect_success 'issue and a declaration together are kept apart' '
	open_pr "Closes #3" "{\"issue\": 2}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n &&
	jq -e ".issue == 2 and .closing_issue_numbers == [3]" out.json
'

test_expect_success 'without issue, issue is null' '
	open_pr "Fixes #4" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n && jq -e ".issue == null" out.json &&
	listed $n ".issue == null" &&
	test "$(column $n linked_issue)" = NULL
'

test_expect_success 'an issue number that does not exist is refused, and nothing is created' '
	before=$(pr_rows) && counter=$(next_number) &&
	open_pr "Fixes #1" "{\"issue\": 500}" &&
	forge_error "^issue #500 not found in alice/project: the issue argument must name an existing issue" &&
	test "$(pr_rows)" = "$before" &&
	test "$(next_number)" = "$counter"
'

test_expect_success 'a pull request number as issue is refused, and nothing is created' '
	before=$(pr_rows) && counter=$(next_number) &&
	open_pr - "{\"issue\": 6}" &&
	forge_error "^#6 in alice/project is a pull request, not an issue" &&
	test "$(pr_rows)" = "$before" &&
	test "$(next_number)" = "$counter"
'

for bad in '0' '-1' '"1"' 'true' '2147483648'; do
	test_expect_success "issue $bad is refused by the schema, naming issue" "
		before=\$(pr_rows) &&
		open_pr - '{\"issue\": $bad}' &&
		forge_error issue &&
		test \"\$(pr_rows)\" = \"\$before\"
	"
done

for bad in '"yes"' '1' 'null'; do
	test_expect_success "draft $bad is refused by the schema, naming draft" "
		before=\$(pr_rows) &&
		open_pr - '{\"draft\": $bad}' &&
		forge_error draft &&
		test \"\$(pr_rows)\" = \"\$before\"
	"
done

test_expect_success 'draft true is shown, stored, and listed' '
	open_pr "Fixes #5" "{\"draft\": true}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n &&
	jq -e ".draft == true and .closing_issue_numbers == [5]" out.json &&
	listed $n ".draft == true" &&
	test "$(column $n draft)" = 1
'

test_expect_success 'draft false, and no draft at all, are not drafts' '
	open_pr - "{\"draft\": false}" && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n && jq -e ".draft == false" out.json &&
	listed $n ".draft == false" &&
	test "$(column $n draft)" = 0 &&
	open_pr - && forge_ok &&
	n=$(jq -r .number out.json) &&
	get_pr $n && jq -e ".draft == false" out.json
'

test_expect_success 'get_pull_request shows edit_version 1 for a new pull request' '
	get_pr 6 &&
	jq -e ".edit_version == 1" out.json
'

test_expect_success 'every listed pull request carries draft, issue and closing_issue_numbers' '
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	jq -e ".pull_requests | length > 20" out.json &&
	jq -e "all(.pull_requests[]; (.draft | type) == \"boolean\" and has(\"issue\") and (.closing_issue_numbers | type) == \"array\")" out.json &&
	jq -e "all(.pull_requests[]; all(.closing_issue_numbers[]; type == \"number\" and . == floor))" out.json
'

test_done
