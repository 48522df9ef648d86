#!/bin/bash
# t9500: real MCP clients against the nginx-fronted server: the pinned
# @modelcontextprotocol/sdk 1.x (legacy handshake) and
# @modelcontextprotocol/client 2.x (2026-07-28 and legacy) each list the
# tools, call a read tool (get_file_contents) and a write tool (create_issue),
# then a CI pair: create_run with an execute token, and list_runs.
# Skipped, with the reason, when the npm registry is unreachable.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/npm-clients.sh"
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

install_clients
# The SDKs run on the machine's Node (>= 20) or the pinned Node 22.
NODE=node
node22_ok && NODE=$NODE22
say "clients in $CLIENTS, $("$NODE" --version)"

start_all
setup_fixtures || { echo "Bail out! setup_fixtures failed"; exit 1; }

URL=$BASE_URL/mcp
READ_ARGS='{"repo":"alice/fixture","path":"README.md"}'

# run_client SCRIPT NAME [ENV=VALUE...]: runs one client, its JSON in NAME.json.
# CLIENT_CALLS, when set, replaces the token and the two calls: TOKEN READ_TOOL
# READ_ARGS WRITE_TOOL WRITE_ARGS.
run_client () {
	local script=$1 name=$2 calls
	shift 2
	if test -n "${CLIENT_CALLS:-}"; then
		eval "calls=($CLIENT_CALLS)"
	else
		calls=("$ALICE_TOKEN" get_file_contents "$READ_ARGS" create_issue \
			"$(jq -nc --arg t "issue from $name" \
			'{repo: "alice/fixture", title: $t, body: "filed by a real client"}')")
	fi
	env "$@" timeout 60 "$NODE" "$CLIENTS/$script" "$URL" "${calls[@]}" \
		>"$name.json" 2>"$name.err"
	rc=$?
	if test $rc != 0; then
		echo "$script ($name) exited with $rc:"
		cat "$name.err" "$name.json"
		return 1
	fi
	cat "$name.json"
}

# check_client NAME PROTOCOL: what the client printed.
check_client () {
	jq -e --arg p "$2" --arg t "issue from $1" '
		.protocol == $p and
		(.tools | index("get_file_contents") and index("create_issue") and
		          index("list_repositories")) and
		.read.isError == false and (.read.text | contains("Version two.")) and
		.write.isError == false and (.write.text | contains($t) or test("\"number\""))
	' "$1.json" || { echo "unexpected output of $1:"; cat "$1.json"; return 1; }
}

# check_issue NAME: the issue a client filed exists in the database.
check_issue () {
	test "$(db_sql "SELECT COUNT(*) FROM issues WHERE title = 'issue from $1'")" = 1 || {
		echo "no issue titled 'issue from $1'"; db_sql 'SELECT id, title FROM issues'; return 1; }
}

test_expect_success 'sdk 1.x: legacy handshake, tools/list, a read and a write call' '
	run_client sdk1.mjs sdk1-legacy &&
	check_client sdk1-legacy 2025-11-25 &&
	jq -e ".session == null" sdk1-legacy.json &&
	check_issue sdk1-legacy
'

test_expect_success 'client 2.x pinned to 2026-07-28: tools/list, a read and a write call' '
	run_client sdk2.mjs sdk2-modern MODE=2026-07-28 &&
	check_client sdk2-modern 2026-07-28 &&
	check_issue sdk2-modern
'

test_expect_success 'client 2.x in legacy mode: tools/list, a read and a write call' '
	run_client sdk2.mjs sdk2-legacy MODE=legacy &&
	check_client sdk2-legacy 2025-11-25 &&
	check_issue sdk2-legacy
'

test_expect_success 'client 2.x in auto mode settles on 2026-07-28' '
	run_client sdk2.mjs sdk2-auto MODE=auto &&
	check_client sdk2-auto 2026-07-28
'

# A workflow on alice/fixture for the CI calls, and a token that may start runs.
repo_put "$TRASH/repos/alice/fixture.git" main .forgemcp/workflows/hello.yml \
	'on: { manual: true }
jobs: { hello: { steps: [ { run: echo hello } ] } }
' &&
ALICE_X=$(make_token alice read,execute) || { echo "Bail out! CI fixture"; exit 1; }
CI_CALLS='"$ALICE_X" list_runs "{\"repo\":\"alice/fixture\"}" create_run "{\"repo\":\"alice/fixture\",\"workflow\":\"hello\"}"'

# check_ci NAME PROTOCOL: the client listed the CI tools and started a run.
check_ci () {
	jq -e --arg p "$2" '
		.protocol == $p and
		(.tools | index("create_run") and index("get_run_logs") and index("cancel_run")) and
		.read.isError == false and (.read.text | fromjson | .runs | type == "array") and
		.write.isError == false and (.write.text | fromjson |
			.state == "queued" and .workflow == "hello" and .jobs == ["hello"])
	' "$1.json" || { echo "unexpected output of $1:"; cat "$1.json"; return 1; }
}

test_expect_success 'sdk 1.x and client 2.x (both eras) start CI runs with create_run' '
	CLIENT_CALLS=$CI_CALLS run_client sdk1.mjs ci-sdk1 &&
	check_ci ci-sdk1 2025-11-25 &&
	CLIENT_CALLS=$CI_CALLS run_client sdk2.mjs ci-sdk2-modern MODE=2026-07-28 &&
	check_ci ci-sdk2-modern 2026-07-28 &&
	CLIENT_CALLS=$CI_CALLS run_client sdk2.mjs ci-sdk2-legacy MODE=legacy &&
	check_ci ci-sdk2-legacy 2025-11-25 &&
	test "$(db_sql "SELECT COUNT(*) FROM ci_runs WHERE workflow = '"'"'hello'"'"'")" = 3
'

test_expect_success 'sdk 1.x over stdio starts forgemcp mcp jira: sdlc-jira, its tools, issues of the project' '
	ANN_HUB=$(make_token alice read,write) &&
	printf "%s" "{\"projects\":[{\"label\":\"SDK\",\"name\":\"SDK\"}],\"issues\":[{\"id\":1,\"key\":\"SDK-1\",\"summary\":\"Из SDK\",\"status\":\"Новая\",\"labels\":[\"SDK\"],\"created\":\"2026-12-01T09:00:00Z\"}]}" >sdk-tracker.json &&
	fm tracker import sdk-tracker.json >/dev/null &&
	FORGEMCP_HUB_URL=$BASE_URL/hub FORGEMCP_HUB_TOKEN=$ANN_HUB timeout 60 "$NODE" "$CLIENTS/sdk1-stdio.mjs" \
		issues "{}" -- "$FORGEMCP" mcp jira --project SDK >stdio.json 2>stdio.err ||
		{ cat stdio.err; false; } &&
	jq -e ".server.name == \"sdlc-jira\" and (.tools | index(\"batch_create\") and index(\"issues\")) and
		.call.isError == false and (.call.text | contains(\"SDK-1 | Из SDK | Новая\"))" stdio.json
'

test_expect_success 'the server logged each client call with its tool' '
	grep -E "rpc=tools/call tool=create_issue" "$SERVER_LOG" >calls &&
	test "$(wc -l <calls)" -ge 4 &&
	! grep -F "$ALICE_TOKEN" "$SERVER_LOG"
'

test_done
