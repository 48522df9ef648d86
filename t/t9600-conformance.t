#!/bin/bash
# t9600: the official MCP conformance suite (@modelcontextprotocol/conformance
# 0.2.0-alpha.12 on Node 22, pinned in t/lib/clients) against the
# nginx-fronted server, for --requirements 2026-07-28 and 2025-11-25, with the
# no-fixture baselines of t/lib/conformance.  A bearer token is added to every
# request by t/lib/conformance/auth-preload.mjs.  The suite's own output goes
# to a log file in the trash directory; its counts are reported as TAP
# diagnostics.  Skipped, with the reason, when the npm registry is unreachable.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/npm-clients.sh"

install_clients
node22_ok || skip_all "the npm package node@22 gave no working Node 22 ($NODE22)"
CONFORMANCE=$CLIENTS/node_modules/@modelcontextprotocol/conformance/dist/index.js
test -f "$CONFORMANCE" || { echo "Bail out! no conformance suite at $CONFORMANCE"; exit 1; }
CONF_DIR=$TEST_DIRECTORY/lib/conformance

# The test configuration allows the instance's own loopback origins
# (http://127.0.0.1:PORT, http://localhost:PORT) and refuses every other one.
start_all
setup_fixtures || { echo "Bail out! setup_fixtures failed"; exit 1; }
grep -q "^allowed_origins = http://127.0.0.1:$HTTP_PORT,http://localhost:$HTTP_PORT\$" "$CONFIG" ||
	{ echo "Bail out! the test configuration lacks the loopback allowed_origins"; exit 1; }

# conformance REQUIREMENTS: one run; output in conf-REQUIREMENTS.log, per
# scenario results under results-REQUIREMENTS/.  Returns the suite's status.
conformance () {
	local req=$1 rc
	rm -rf "$TRASH/results-$req"
	MCP_BEARER=$ALICE_TOKEN MCP_AUTH_ORIGIN=$BASE_URL \
	NODE_OPTIONS="--import $CONF_DIR/auth-preload.mjs" \
	timeout 300 "$NODE22" "$CONFORMANCE" server --url "$BASE_URL/mcp" \
		--requirements "$req" --expected-failures "$CONF_DIR/baseline-$req.yml" \
		-o "$TRASH/results-$req" >"$TRASH/conf-$req.log" 2>&1
	rc=$?
	echo "$rc" >"$TRASH/conf-$req.status"
	return $rc
}

# summary REQUIREMENTS: the suite's counts as one diagnostic line.
summary () {
	local req=$1 counts checks verdict
	counts=$(sed -n 's/.*Total: *\([0-9]*\) passed, *\([0-9]*\) failed.*/passed=\1 failed=\2/p' \
		"$TRASH/conf-$req.log" | tail -n 1)
	checks=$(cat "$TRASH/results-$req"/*/checks.json 2>/dev/null |
		jq -rs 'add // [] | group_by(.status) | map("\(.[0].status)=\(length)") | join(" ")' 2>/dev/null)
	verdict=$(sed 's/\x1b\[[0-9;]*m//g' "$TRASH/conf-$req.log" | grep -i '^Baseline check' | tail -n 1)
	say "conformance --requirements $req: exit $(cat "$TRASH/conf-$req.status" 2>/dev/null)," \
		"suite totals ${counts:-not found}; checks ${checks:-none};" \
		"${verdict:-no baseline verdict}; log $TRASH/conf-$req.log"
}

# failures REQUIREMENTS: the failed checks, for a failing test's output.
failures () {
	echo "conformance --requirements $1 failed; last lines of its log:"
	tail -n 40 "$TRASH/conf-$1.log"
	echo "failed checks:"
	jq -r '.[] | select(.status == "FAILURE" or .status == "WARNING") |
		"\(.id) \(.errorMessage // "")"' "$TRASH/results-$1"/*/checks.json 2>/dev/null | head -n 40
}

for req in 2026-07-28 2025-11-25; do
	test_expect_success "the conformance suite passes --requirements $req (baseline: fixture-only checks)" '
		conformance '"$req"' || { failures '"$req"'; false; }
	'
	summary "$req"
done

test_expect_success 'the suite really talked to the server with the token' '
	grep -E "rpc=tools/list" "$SERVER_LOG" >/dev/null &&
	grep -E "status=200 user=[1-9]" "$SERVER_LOG" >/dev/null &&
	! grep -F "$ALICE_TOKEN" "$SERVER_LOG"
'

test_done
