# t/perf/bench-sdlc.sh: the sdlc hub's cases of `make bench`, sourced by
# bench.sh after the CI cases (its functions and the running stack are in
# scope).
#
#   sdlc-issues    `issues` (50 rows) through `forgemcp mcp jira`, one stdio
#                  session of 200 calls: milliseconds a call, hub request included
#   sdlc-issue     `issue`, a card of an issue with 50 comments, the same way
#   hub-issues     GET /hub/issues?project=BENCH&limit=50 with wrk, 16 connections,
#                  beside the trivial responder's figure
#
# BENCH_ONLY takes these names; "sdlc" asks for all three.

sdlc_wanted () { wanted sdlc || wanted "$1"; }
SDLC_JSON=null
if sdlc_wanted sdlc-issues || sdlc_wanted sdlc-issue || sdlc_wanted hub-issues; then
	note "sdlc: a tracker project of 60 issues, one with 50 comments"
	HUB_TOKEN=$(make_token alice read,write) || die "cannot create the hub token"
	jq -n '{projects: [{label: "BENCH", name: "Bench"}],
		issues: ([range(1; 61) | {id: (100000 + .), key: "BENCH-\(.)", type: "task",
			summary: "Issue \(.) of the bench, a summary of some length to cut",
			status: "Open", assignee: "alice", labels: ["BENCH"],
			created: "2026-12-01T09:00:00Z",
			updated: "2026-12-01T\(10 + (. % 10)):\(10 + (. % 50)):00Z"}]
		| .[0].comments = [range(1; 51) | {id: (200000 + .), author: "bob",
			body: ("comment \(.) " * 40), created: "2026-12-01T09:\(10 + (. % 49)):00Z"}])}' \
		>"$TRASH/bench-tracker.json" &&
	fm tracker import "$TRASH/bench-tracker.json" >/dev/null || die "cannot import the bench tracker"
fi

# sdlc_per_call TOOL ARGS N: ms a call of N calls in one forgemcp mcp jira session
sdlc_per_call () {
	local t0 t1 i
	{
		echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}'
		for i in $(seq "$3"); do
			printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' \
				"$i" "$1" "$2"
		done
	} >"$TRASH/sdlc.in"
	t0=$(date +%s%N)
	FORGEMCP_HUB_URL=$BASE_URL/hub FORGEMCP_HUB_TOKEN=$HUB_TOKEN \
		"$FORGEMCP" mcp jira --project BENCH <"$TRASH/sdlc.in" >"$TRASH/sdlc.out" 2>>"$TRASH/sdlc.err" ||
		die "forgemcp mcp jira failed, see $TRASH/sdlc.err"
	t1=$(date +%s%N)
	test "$(jq -s '[.[] | select(.result.isError == false)] | length' "$TRASH/sdlc.out")" = "$3" ||
		die "sdlc $1: not every call answered, see $TRASH/sdlc.out"
	awk "BEGIN { printf \"%.2f\", ($t1 - $t0) / 1e6 / $3 }"
}

if sdlc_wanted sdlc-issues || sdlc_wanted sdlc-issue; then
	ms_issues=$(sdlc_per_call issues '{}' 200)
	ms_issue=$(sdlc_per_call issue '{"key":"BENCH-1"}' 200)
	note "sdlc: issues (50 rows) $ms_issues ms a call, issue (50 comments) $ms_issue ms a call, through forgemcp mcp jira"
	SDLC_JSON="{\"issues_ms\": $ms_issues, \"issue_ms\": $ms_issue}"
fi

if sdlc_wanted hub-issues; then
	BENCH_OUT=$TRASH/wrk.out wrk -t2 -c16 -d1s -s "$perf_dir/get.lua" \
		-H "Authorization: Bearer $HUB_TOKEN" "$BASE_URL/hub/issues?project=BENCH&limit=50" \
		>/dev/null 2>&1
	BENCH_OUT=$TRASH/wrk.out wrk -t2 -c16 -d"${SECS}s" --timeout 30s -s "$perf_dir/get.lua" \
		-H "Authorization: Bearer $HUB_TOKEN" "$BASE_URL/hub/issues?project=BENCH&limit=50" \
		>"$TRASH/wrk.log" 2>&1 || die "wrk failed for hub-issues: $(cat "$TRASH/wrk.log")"
	jq -c '{case: "hub-issues (GET /hub/issues, 50 rows)", conns: 16} + .' "$TRASH/wrk.out" >>"$RESULTS"
	printf '  %-36s %8.1f req/s\n' "hub-issues c=16" "$(jq .rps "$TRASH/wrk.out")" >&2
fi
