#!/bin/bash
# t2300: toolsets and read-only mode: a client chooses the tools it sees with
# the X-MCP-Toolsets and X-MCP-Readonly headers, the paths /mcp/x/<sets> and
# /mcp/readonly (through nginx), or stdio's --toolsets and --read-only.  A
# tool outside the choice is not listed and a call to it is refused exactly
# as a call to a tool that does not exist.
. ./test-lib.sh

start_all
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# Each tool's toolset, from its table entry in src/tools/*.c.
perl -ne '
	$n = $1 if /^\s*\.name = "([a-z_]+)"/;
	print "$n $1\n" if /^\s*\.toolset = "([a-z_]+)"/;
' "$SRC_DIR"/src/tools/*.c | sort >toolsets.all

# expected SET...: the names of the tools in those toolsets, sorted.
expected () {
	local s
	for s in "$@"; do
		awk -v s="$s" '$2 == s { print $1 }' toolsets.all
	done | sort
}

# listed: the names in the last tools/list answer, sorted.
listed () {
	jq -r '.result.tools[].name' "$RESP.body" | sort
}

# read_only_names: the tools of the last answer with readOnlyHint, sorted.
read_only_names () {
	jq -r '.result.tools[] | select(.annotations.readOnlyHint) | .name' "$RESP.body" | sort
}

list_modern () {
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: tools/list" "$@" \
		"$(modern_body tools/list)"
}

test_expect_success 'the table names seven toolsets, each with tools' '
	test "$(awk "{ print \$2 }" toolsets.all | sort -u | tr "\n" " ")" = \
		"ci issues notifications pull_requests repos search users " &&
	test "$(wc -l <toolsets.all)" -ge 30
'

test_expect_success 'without a choice a client gets every tool (the snapshot)' '
	list_modern &&
	test_status 200 &&
	listed >names &&
	awk "{ print \$1 }" toolsets.all >all &&
	test_cmp all names &&
	jq -S ".result.tools" "$RESP.body" >tools.json &&
	jq -S . "$TEST_DIRECTORY/tools-list.json" >snapshot.json &&
	test_cmp snapshot.json tools.json
'

test_expect_success 'X-MCP-Toolsets: repos,issues lists exactly those toolsets (modern)' '
	list_modern -H "X-MCP-Toolsets: repos,issues" &&
	test_status 200 &&
	listed >names &&
	expected repos issues >want &&
	test_cmp want names
'

test_expect_success 'the same in the legacy era' '
	mcp_legacy tools/list null -H "X-MCP-Toolsets: repos, issues" &&
	test_status 200 &&
	listed >names &&
	expected repos issues >want &&
	test_cmp want names
'

test_expect_success 'the path /mcp/x/pull_requests,users chooses as the header does' '
	list_modern --path /mcp/x/pull_requests,users &&
	test_status 200 &&
	listed >names &&
	expected pull_requests users >want &&
	test_cmp want names
'

test_expect_success 'a tool outside the choice is refused as an unknown tool' '
	tool_call get_issue "{\"repo\":\"alice/fixture\",\"number\":1}" -H "X-MCP-Toolsets: repos" &&
	test_rpc_error 200 -32602 1 &&
	jq -r .error.message "$RESP.body" >outside &&
	grep -F get_issue outside &&
	tool_call no_such_tool "{}" -H "X-MCP-Toolsets: repos" &&
	test_rpc_error 200 -32602 1 &&
	jq -r .error.message "$RESP.body" | sed "s/no_such_tool/get_issue/" >unknown &&
	test_cmp unknown outside
'

test_expect_success 'a tool inside the choice is served' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\"}" \
		-H "X-MCP-Toolsets: repos" &&
	test_status 200 &&
	test_jq ".result.isError != true"
'

test_expect_success 'X-MCP-Readonly: true lists only the read-only tools, of every toolset' '
	list_modern -H "X-MCP-Readonly: true" &&
	test_status 200 &&
	listed >names &&
	read_only_names >ro &&
	test_cmp ro names &&
	list_modern &&
	read_only_names >all_ro &&
	test_cmp all_ro names &&
	test "$(wc -l <names)" -ge 15
'

test_expect_success 'the path /mcp/readonly does the same, and refuses a write tool as unknown' '
	list_modern --path /mcp/readonly &&
	test_status 200 &&
	listed >names &&
	test_cmp all_ro names &&
	tool_call create_issue "{\"repo\":\"alice/fixture\",\"title\":\"x\"}" --path /mcp/readonly &&
	test_rpc_error 200 -32602 1 &&
	test "$(db_sql "select count(*) from issues")" = 0
'

test_expect_success 'toolsets and read-only together: /mcp/x/issues/readonly' '
	list_modern --path /mcp/x/issues/readonly &&
	test_status 200 &&
	listed >names &&
	expected issues >issues &&
	comm -12 issues all_ro >want &&
	test_cmp want names &&
	test -s names
'

test_expect_success 'X-MCP-Readonly: false is the default' '
	list_modern -H "X-MCP-Readonly: false" &&
	listed >names &&
	test_cmp all names
'

test_expect_success 'an unknown toolset is a 400 naming it and the toolsets' '
	list_modern -H "X-MCP-Toolsets: repos,wiki" &&
	test_rpc_error 400 -32600 1 &&
	test_jq ".error.message | test(\"unknown toolset .wiki.\")" &&
	test_jq ".error.message | test(\"repos, issues, pull_requests\")" &&
	list_modern --path /mcp/x/wiki &&
	test_rpc_error 400 -32600 1 &&
	test_jq ".error.message | test(\"unknown toolset .wiki.\")"
'

test_expect_success 'a bad X-MCP-Readonly value is a 400 that says what it takes' '
	list_modern -H "X-MCP-Readonly: yes" &&
	test_rpc_error 400 -32600 1 &&
	test_jq ".error.message | test(\"X-MCP-Readonly\")" &&
	test_jq ".error.message | test(\"true or false\")"
'

test_expect_success 'the path and the header may not both choose toolsets' '
	list_modern --path /mcp/x/repos -H "X-MCP-Toolsets: issues" &&
	test_rpc_error 400 -32600 1 &&
	test_jq ".error.message | test(\"not both\")"
'

test_expect_success 'other paths under the endpoint are not found' '
	list_modern --path /mcp/x/ &&
	test_status 404 &&
	list_modern --path /mcp/readonly/x/repos &&
	test_status 404 &&
	list_modern --path /mcp/other &&
	test_status 404
'

test_expect_success 'a batch sees the choice of its request' '
	b1=$(legacy_body tools/call "{\"name\":\"get_user\",\"arguments\":{}}" 1) &&
	b2=$(legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"alice/fixture\"}}" 2) &&
	mcp_post -H "X-MCP-Toolsets: users" "[$b1,$b2]" &&
	test_status 200 &&
	test_jq ".[] | select(.id == 1) | .result.isError != true" &&
	test_jq ".[] | select(.id == 2) | .error.code == -32602"
'

test_expect_success 'the instructions name the toolsets and how to choose them' '
	mcp_legacy initialize "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" &&
	test_status 200 &&
	test_jq ".result.instructions | test(\"X-MCP-Toolsets\")" &&
	test_jq ".result.instructions | test(\"pull_requests\")"
'

test_expect_success 'stdio: --toolsets and --read-only' '
	legacy_body tools/list null 1 >list.json &&
	FORGEMCP_TOKEN=$ALICE_TOKEN "$FORGEMCP" stdio --toolsets repos <list.json >stdio.out 2>stdio.err &&
	jq -r ".result.tools[].name" stdio.out | sort >names &&
	expected repos >want &&
	test_cmp want names &&
	FORGEMCP_TOKEN=$ALICE_TOKEN "$FORGEMCP" stdio --read-only <list.json >stdio.out 2>>stdio.err &&
	jq -r ".result.tools[].name" stdio.out | sort >names &&
	test_cmp all_ro names &&
	test_must_fail "$FORGEMCP" stdio --toolsets repos,wiki </dev/null >stdio.out 2>bad.err &&
	grep -F "unknown toolset '\''wiki'\''" bad.err
'

test_done
