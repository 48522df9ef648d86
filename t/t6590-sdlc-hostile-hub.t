#!/bin/bash
# t6590: the module servers against a hub that answers every request with
# members of the wrong shapes (t/lib/fake-hub.pl): each tool of
# `forgemcp mcp jira` and `forgemcp mcp wiki`, called with valid arguments,
# gets an answer, and the process ends cleanly at the end of its input.
. ./test-lib.sh

HUB_LOG=$TRASH/fake-hub.log
: >"$HUB_LOG"
perl "$TEST_DIRECTORY/lib/fake-hub.pl" --port-file "$TRASH/hub.port" --log "$HUB_LOG" \
	>"$TRASH/hub.out" 2>"$TRASH/hub.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/hub.port" || { echo "Bail out! the fake hub did not start"; exit 1; }
FAKE_URL=http://127.0.0.1:$(cat "$TRASH/hub.port")/hub

INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
# every tool of module $1 with a value for each required argument (batch_wait
# aside: against a hub whose batch never ends it waits its ten minutes)
calls () {
	jq -c --argjson first 2 '[.result.tools[] | select(.name != "batch_wait")] | to_entries[] |
		{jsonrpc: "2.0", id: (.key + $first), method: "tools/call",
		 params: {name: .value.name, arguments: ([.value.inputSchema.required // [] | .[] |
			{(.): ({key: "AURORA-1", comment_id: "1", id: 1, attachment: "#1",
			        code: "DOC-1", query: "отчёт", label: "AURORA", name: "x",
			        title: "t", value: "1", wiki_root: "DOC-1",
			        commands: [{type: "refresh", full: true}]}[.] // "x")}] | add // {})}}' "$1.tools"
}

for module in jira wiki; do
	test_expect_success "mcp $module: every tool answers a hub of the wrong shapes; the process ends cleanly" "
		{ echo '$INIT'; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}'; } |
			FORGEMCP_HUB_URL=$FAKE_URL FORGEMCP_HUB_TOKEN=t FORGEMCP_STATE=$TRASH/state \
			timeout 30 \"\$FORGEMCP\" mcp $module --project AURORA | sed -n 2p >$module.tools &&
		n=\$(jq '[.result.tools[] | select(.name != \"batch_wait\")] | length' $module.tools) &&
		test \"\$n\" -gt 5 &&
		calls $module >$module.calls && test \"\$(wc -l <$module.calls)\" = \"\$n\" &&
		{ echo '$INIT'; cat $module.calls; } |
			FORGEMCP_HUB_URL=$FAKE_URL FORGEMCP_HUB_TOKEN=t FORGEMCP_STATE=$TRASH/state \
			timeout 120 \"\$FORGEMCP\" mcp $module --project AURORA >$module.out 2>$module.err &&
		test \"\$(jq -s '[.[] | select(.id > 1) | select(.result != null or .error != null)] | length' $module.out)\" = \"\$n\" &&
		grep -q 'GET /hub/' '$HUB_LOG'
	"
done

test_done
