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
# into the arguments.  Written without jq when BODY is printable ASCII (tabs
# and newlines allowed) and EXTRA_JSON, an object, names none of the other
# members.
open_pr () {
	local extra=${2:-'{}'} f=${PR_FIELD:-body} h a b inner
	BRANCH=$((BRANCH + 1))
	printf -v h 'topic%03d' "$BRANCH"
	if [[ ! $1 =~ [^[:print:]$'\t\n'] ]] && [[ $extra =~ ^\{(.*)\}$ ]] &&
	   [[ $extra != *\"repo\"* && $extra != *\"title\"* && $extra != *\"head\"* &&
	      $extra != *\"base\"* && $extra != *\"$f\"* ]]; then
		inner=${BASH_REMATCH[1]}
		a="{\"repo\":\"$P\",\"title\":\"a change\",\"head\":\"$h\",\"base\":\"main\""
		if test "$1" != -; then
			json_str b "$1"
			a="$a,\"$f\":$b"
		fi
		if [[ $inner =~ [^[:space:]] ]]; then a="$a,$inner"; fi
		a="$a}"
	else
		a=$(jq -nc --arg r "$P" --arg h "$h" --arg b "$1" --arg f "$f" --argjson x "$extra" \
			'{repo: $r, title: "a change", head: $h, base: "main"} +
			 (if $b == "-" then {} else {($f): $b} end) + $x') || return 1
	fi
	tool_call create_pull_request "$a"
}

# get_pr N: get_pull_request; the answer goes to out.json
get_pr () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" && forge_ok
}

# listed N FILTER: list_pull_requests (all states) has #N once and FILTER
# holds on it (one jq run)
listed () {
	tool_call list_pull_requests "{\"repo\":\"$P\",\"state\":\"all\"}" && forge_ok &&
	jq -e "([.pull_requests[] | select(.number == $1)] | length == 1) and
		(.pull_requests[] | select(.number == $1) | $2)" out.json
}

# The database, asked through one MariaDB client kept open (db_value).
# column_is N COL EXPECTED: a column of pull request #N of alice/project
# ("NULL" for NULL) is EXPECTED
column_is () {
	local v=
	db_value v "select ifnull($2, 'NULL') from pull_requests p join repositories r on r.id = p.repo_id where r.name = 'project' and p.number = $1" &&
	test "$v" = "$3" || { echo "pull request #$1: $2 is '$v', expected '$3'"; return 1; }
}

# pr_rows VAR: the number of pull requests
pr_rows () {
	db_value "$1" "select count(*) from pull_requests"
}

# next_number VAR: alice/project's next number
next_number () {
	db_value "$1" "select next_number from repositories where name = 'project'"
}

# issue_state_is N STATE: issue #N of alice/project is in STATE
issue_state_is () {
	local v=
	db_value v "select state from issues i join repositories r on r.id = i.repo_id where r.name = 'project' and i.number = $1" &&
	test "$v" = "$2" || { echo "issue #$1 is '$v', expected '$2'"; return 1; }
}

# unchanged_rows BEFORE COUNTER: no pull request was added, no number taken
unchanged_rows () {
	local rows counter
	pr_rows rows && next_number counter &&
	test "$rows" = "$1" && test "$counter" = "$2" ||
		{ echo "pull requests $rows (before: $1), next number $counter (before: $2)"; return 1; }
}

test_expect_success 'five issues to declare' '
	for i in 1 2 3 4 5; do
		tool_call create_issue "{\"repo\":\"$P\",\"title\":\"issue $i\"}" && forge_ok &&
		jq -e ".number == $i" out.json || return 1
	done
'

test_expect_success 'create_pull_request documents draft and issue, and that issue never closes' '
	mcp_modern tools/list &&
	test_jq \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.draft.type == \"boolean\"" \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.issue.type == \"integer\"" \
		".result.tools[] | select(.name == \"create_pull_request\") | .description | test(\"Closes #N in the body declares issues to close when the pull request is merged\")" \
		".result.tools[] | select(.name == \"create_pull_request\") | .description | test(\"only links an issue and never closes it\")" \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.issue.description | test(\"only links the issue and never closes it\")" \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.body.description | test(\"Closes #N\")" \
		".result.tools[] | select(.name == \"get_pull_request\") | .description | test(\"closing_issue_numbers\")"
'

# BODY<TAB>EXPECTED closing_issue_numbers (JSON)<TAB>STORED column
while IFS='	' read -r body want stored; do
	test_expect_success "description '$body' declares $want" '
		open_pr "$(printf "%b" "$body")" && forge_ok &&
		json_int n out.json number &&
		get_pr $n &&
		jq -e ".closing_issue_numbers == $want" out.json &&
		listed $n ".closing_issue_numbers == $want" &&
		column_is $n closing_issue_numbers "$stored"
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
		json_int n out.json number &&
		get_pr $n &&
		jq -e --arg b "$(printf "%b" "$body")" ".body == \$b" out.json &&
		jq -e ".closing_issue_numbers == $want" out.json &&
		listed $n ".closing_issue_numbers == $want" &&
		column_is $n closing_issue_numbers "$stored" &&
		issue_state_is 1 open
	'
done <<'EOF'
Closes #1, #2 and #3	[1,2,3]	1,2,3
Fixes owner/repo#3	[]	NULL
```\nFixes #1\n```\nResolves #4	[4]	4
EOF

test_expect_success 'body and description together are refused, naming both, and nothing is created' '
	pr_rows before && next_number counter &&
	open_pr "Closes #1" "{\"description\": \"Closes #2\"}" &&
	forge_error "^give body or description, not both" &&
	open_pr "" "{\"description\": \"\"}" &&
	forge_error "^give body or description, not both" &&
	unchanged_rows "$before" "$counter"
'

test_expect_success 'description is in the schema of create_pull_request' '
	mcp_modern tools/list &&
	test_jq \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.description.type == \"string\"" \
		".result.tools[] | select(.name == \"create_pull_request\") | .inputSchema.properties.description.maxLength == 65536"
'

test_expect_success 'a 100-number cap: 150 references keep the first 100' '
	body="Fixes $(seq 1 150 | sed "s/^/#/" | paste -sd, | sed "s/,/, /g")" &&
	open_pr "$body" && forge_ok &&
	json_int n out.json number &&
	get_pr $n &&
	jq -e ".closing_issue_numbers == [range(1; 101)]" out.json
'

test_expect_success 'a title saying "Fixes #1" declares nothing' '
	BRANCH=$((BRANCH + 1)) &&
	printf -v h "topic%03d" "$BRANCH" &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"title\":\"Fixes #1\",\"head\":\"$h\",\"base\":\"main\"}" && forge_ok &&
	json_int n out.json number &&
	get_pr $n &&
	jq -e ".title == \"Fixes #1\" and .closing_issue_numbers == []" out.json &&
	column_is $n closing_issue_numbers NULL
'

test_expect_success 'a comment saying "closes #1" changes nothing and closes nothing' '
	open_pr "Resolves #2" && forge_ok &&
	json_int n out.json number &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"closes #1, fixes #3\"}" &&
	forge_ok &&
	get_pr $n &&
	jq -e ".closing_issue_numbers == [2] and .comments_total == 1" out.json &&
	column_is $n closing_issue_numbers 2 &&
	issue_state_is 1 open && issue_state_is 3 open &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":1}" && forge_ok &&
	jq -e ".state == \"open\"" out.json
'

test_expect_success 'declaring closures closes nothing when the pull request is opened' '
	for i in 1 2 3 4 5; do
		issue_state_is $i open || return 1
	done
'

test_expect_success 'issue links an issue: shown as issue, closes nothing, declares nothing' '
	pr_rows before &&
	open_pr - "{\"issue\": 1}" && forge_ok &&
	json_int n out.json number &&
	pr_rows rows && test "$rows" = $((before + 1)) &&
	get_pr $n &&
	jq -e ".issue == 1 and .closing_issue_numbers == [] and .draft == false" out.json &&
	listed $n ".issue == 1 and .closing_issue_numbers == []" &&
	column_is $n linked_issue 1 &&
	issue_state_is 1 open
'

test_expect_success 'issue and a declaration together are kept apart' '
	open_pr "Closes #3" "{\"issue\": 2}" && forge_ok &&
	json_int n out.json number &&
	get_pr $n &&
	jq -e ".issue == 2 and .closing_issue_numbers == [3]" out.json
'

test_expect_success 'without issue, issue is null' '
	open_pr "Fixes #4" && forge_ok &&
	json_int n out.json number &&
	get_pr $n && jq -e ".issue == null" out.json &&
	listed $n ".issue == null" &&
	column_is $n linked_issue NULL
'

test_expect_success 'an issue number that does not exist is refused, and nothing is created' '
	pr_rows before && next_number counter &&
	open_pr "Fixes #1" "{\"issue\": 500}" &&
	forge_error "^issue #500 not found in alice/project: the issue argument must name an existing issue" &&
	unchanged_rows "$before" "$counter"
'

test_expect_success 'a pull request number as issue is refused, and nothing is created' '
	pr_rows before && next_number counter &&
	open_pr - "{\"issue\": 6}" &&
	forge_error "^#6 in alice/project is a pull request, not an issue" &&
	unchanged_rows "$before" "$counter"
'

for bad in '0' '-1' '"1"' 'true' '2147483648'; do
	test_expect_success "issue $bad is refused by the schema, naming issue" "
		pr_rows before &&
		open_pr - '{\"issue\": $bad}' &&
		forge_error issue &&
		pr_rows rows && test \"\$rows\" = \"\$before\"
	"
done

for bad in '"yes"' '1' 'null'; do
	test_expect_success "draft $bad is refused by the schema, naming draft" "
		pr_rows before &&
		open_pr - '{\"draft\": $bad}' &&
		forge_error draft &&
		pr_rows rows && test \"\$rows\" = \"\$before\"
	"
done

test_expect_success 'draft true is shown, stored, and listed' '
	open_pr "Fixes #5" "{\"draft\": true}" && forge_ok &&
	json_int n out.json number &&
	get_pr $n &&
	jq -e ".draft == true and .closing_issue_numbers == [5]" out.json &&
	listed $n ".draft == true" &&
	column_is $n draft 1
'

test_expect_success 'draft false, and no draft at all, are not drafts' '
	open_pr - "{\"draft\": false}" && forge_ok &&
	json_int n out.json number &&
	get_pr $n && jq -e ".draft == false" out.json &&
	listed $n ".draft == false" &&
	column_is $n draft 0 &&
	open_pr - && forge_ok &&
	json_int n out.json number &&
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
