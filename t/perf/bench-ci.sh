# t/perf/bench-ci.sh: the CI cases of `make bench`, sourced by bench.sh after
# the other cases (its functions and the running stack are in scope).
#
#   create_run            create_run of a 3-job workflow (build -> test -> deploy), 4 connections
#   get_run_logs-16MiB    get_run_logs paging through a 16 MiB log the runner wrote, 64 KiB a
#                         page, every page in turn; its ceiling is
#   get_file_contents-64KiB  get_file_contents of a 64 KiB file: an answer of the same size
#   ci-start              from approve_pull_request_checks to the first job running, with an
#                         idle `forgemcp runner` (its default poll), the median of 5
#   ci-sandbox            a job of 50 steps of `true`, in bubblewrap and with runner_sandbox =
#                         none: the time a step takes from the job's start to its end, and
#                         the difference, the sandbox's start-up (median of 3 jobs each)
#   ci-throughput         100 trivial jobs (one `true` step each) through 2 and then 4
#                         runner processes (--concurrency 1 each, the default poll): jobs/s
#                         from the runners' start to the last job's end
#
# BENCH_ONLY takes these names; "ci" asks for all six.  The CI figures go to
# $STATE/ci-runner.json too.

ci_wanted () { wanted ci || wanted "$1"; }
CI_START=null
if ci_wanted create_run || ci_wanted get_run_logs-16MiB || ci_wanted ci-start ||
    ci_wanted ci-sandbox || ci_wanted ci-throughput; then
	note "CI: a repository with workflows, a runner"
	XTOKEN=$(make_token alice read,write,execute) || die "cannot create an execute token"
	XHDRS="Authorization: Bearer $XTOKEN|MCP-Protocol-Version: $MODERN_VERSION|Mcp-Method: tools/call"
	ci_git=$TRASH/repos/alice/ci.git
	fm repo import alice/ci --from "$TRASH/small.git" >/dev/null || die "import ci"
	# . fixtures-forge.sh for repo_put
	. "$top/t/lib/fixtures-forge.sh"
	repo_put "$ci_git" main .forgemcp/workflows/three.yml 'on: { manual: true }
jobs:
  build: { steps: [ { run: echo build } ] }
  test: { needs: [build], steps: [ { run: echo test } ] }
  deploy: { needs: [test], steps: [ { run: echo deploy } ] }
' .forgemcp/workflows/log.yml 'on: { manual: true }
jobs:
  big: { steps: [ { name: log, run: "seq -f %063g 1 262144" } ] }
' .forgemcp/workflows/pr.yml 'on: { pull_request: {} }
jobs: { a: { steps: [ { run: echo a } ] } }
' .forgemcp/workflows/steps.yml "on: { manual: true }
jobs: { s: { steps: [ $(printf '{ run: "true" }, %.0s' $(seq 49)){ run: \"true\" } ] } }
" .forgemcp/workflows/trivial.yml "on: { manual: true }
jobs: { t: { matrix: { n: [$(seq -s ', ' 50)] }, steps: [ { run: \"true\" } ] } }
" page.txt "$(seq -f %063g 1 1024)" || die "cannot commit the workflows"
	config_set runner_dir "$TRASH/runner"
fi

# create_run: every call a new run of three jobs in one transaction
if ci_wanted create_run; then
	body create-run "$(call_body create_run '{"repo":"alice/ci","workflow":"three"}')"
	ONLY_=$ONLY ONLY=
	run_wrk create_run create-run 4 "$XHDRS|Mcp-Name: create_run" /mcp
	ONLY=$ONLY_
	note "create_run: $(db_sql "SELECT COUNT(*) FROM ci_runs WHERE workflow = 'three'") runs created"
	# nothing is to run them: cancelled, so the runner below is idle
	db_sql "UPDATE ci_jobs j JOIN ci_runs r ON r.id = j.run_id SET j.state = 'cancelled'
		WHERE r.workflow = 'three' AND j.state IN ('queued', 'blocked')" &&
	db_sql "UPDATE ci_runs SET state = 'cancelled' WHERE workflow = 'three'" ||
		die "cannot cancel the create_run runs"
fi

# get_run_logs: the log of one job (16 MiB of 64-byte lines, the runner's
# limit), read page by page: wrk sends the 256 pages' requests round-robin.
if ci_wanted get_run_logs-16MiB; then
	tool_call create_run '{"repo":"alice/ci","workflow":"log"}' --token "$XTOKEN" >/dev/null
	logrun=$(tool_text | jq -r '.run // empty')
	test -n "$logrun" || die "cannot start the log run: $(cat "$RESP.body")"
	"$FORGEMCP" runner --once >>"$TRASH/runner.log" 2>&1 || die "the runner failed, see $TRASH/runner.log"
	pages= cursor= n=0
	while :; do
		a="{\"repo\":\"alice/ci\",\"run\":$logrun,\"job\":\"big\"${cursor:+,\"after\":\"$cursor\"}}"
		n=$((n + 1))
		body "log-page-$n" "$(call_body get_run_logs "$a")"
		pages=$pages${pages:+:}$BODIES/log-page-$n.json
		tool_call get_run_logs "$a" --token "$XTOKEN" >/dev/null
		cursor=$(tool_text | jq -r 'if .has_more then .next_cursor else empty end')
		test -n "$cursor" || break
		test $n -lt 1000 || die "get_run_logs: no end after 1000 pages"
	done
	note "get_run_logs: $n pages of the 16 MiB log"
	body file-64k "$(call_body get_file_contents '{"repo":"alice/ci","path":"page.txt"}')"
	check file-64k "$XHDRS|Mcp-Name: get_file_contents" /mcp || die "get_file_contents of page.txt is broken"
	check log-page-1 "$XHDRS|Mcp-Name: get_run_logs" /mcp || die "get_run_logs is broken"
	ONLY_=$ONLY ONLY=
	run_wrk get_file_contents-64KiB file-64k 16 "$XHDRS|Mcp-Name: get_file_contents" /mcp
	BENCH_BODIES=$pages BENCH_HEADERS="$XHDRS|Mcp-Name: get_run_logs" BENCH_OUT=/dev/null \
		wrk -t2 -c16 -d1s -s "$perf_dir/post.lua" "$BASE_URL/mcp" >/dev/null 2>&1
	BENCH_BODIES=$pages BENCH_HEADERS="$XHDRS|Mcp-Name: get_run_logs" BENCH_OUT=$TRASH/wrk.out \
		wrk -t2 -c16 -d"${SECS}s" --timeout 30s -s "$perf_dir/post.lua" "$BASE_URL/mcp" \
		>"$TRASH/wrk.log" 2>&1 || die "wrk failed for get_run_logs: $(cat "$TRASH/wrk.log")"
	jq -c '{case: "get_run_logs-16MiB", conns: 16} + .' "$TRASH/wrk.out" >>"$RESULTS"
	printf '  %-36s %8.1f req/s\n' "get_run_logs-16MiB c=16" "$(jq .rps "$TRASH/wrk.out")" >&2
	ONLY=$ONLY_
fi

# ci-start: a pull request's run, approved while a runner idles; the time
# from just before the approval (the database's clock) to the job's start.
if ci_wanted ci-start; then
	"$FORGEMCP" runner >>"$TRASH/runner.log" 2>&1 &
	runner_pid=$!
	sleep 1
	starts=
	for i in 1 2 3 4 5; do
		git --git-dir="$ci_git" update-ref "refs/heads/ci-start-$i" main &&
		repo_put "$ci_git" "ci-start-$i" "start-$i.txt" "$i" || die "cannot make a branch"
		tool_call create_pull_request "{\"repo\":\"alice/ci\",\"title\":\"start $i\",\"head\":\"ci-start-$i\",\"base\":\"main\"}" \
			--token "$XTOKEN" >/dev/null
		num=$(tool_text | jq -r '.number // empty')
		test -n "$num" || die "cannot open a pull request: $(cat "$RESP.body")"
		t0=$(db_sql "SELECT UTC_TIMESTAMP(6)")
		tool_call approve_pull_request_checks "{\"repo\":\"alice/ci\",\"number\":$num,\"version\":1}" \
			--token "$XTOKEN" >/dev/null
		tool_text | jq -e '.runs_started | length == 1' >/dev/null ||
			die "the approval started no run: $(cat "$RESP.body")"
		ms=
		for w in $(seq 200); do
			ms=$(db_sql "SELECT ROUND(TIMESTAMPDIFF(MICROSECOND, '$t0', MIN(j.started_at)) / 1000)
				FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id JOIN pull_requests p
				ON p.id = r.pull_request_id JOIN repositories o ON o.id = p.repo_id
				WHERE o.name = 'ci' AND p.number = $num AND j.started_at IS NOT NULL")
			test "$ms" != NULL && test -n "$ms" && break
			sleep 0.05
		done
		test "$ms" != NULL && test -n "$ms" || die "no job of pull request $num started in 10 s"
		starts="$starts $ms"
	done
	stop_pid "$runner_pid" 10
	CI_START=$(printf '%s\n' $starts | sort -n | sed -n 3p)
	note "ci-start: approval to a running job, ms:$starts; median $CI_START"
fi

# ci_job_ms RUN: milliseconds from the start of run RUN's first job to the end of its last
ci_job_ms () {
	db_sql "SELECT ROUND(TIMESTAMPDIFF(MICROSECOND, MIN(j.started_at), MAX(j.finished_at)) / 1000)
		FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id JOIN repositories o ON o.id = r.repo_id
		WHERE o.name = 'ci' AND r.number = $1"
}
# ci_final RUN...: every run named of alice/ci is final
ci_final () {
	test "$(db_sql "SELECT COUNT(*) FROM ci_runs r JOIN repositories o ON o.id = r.repo_id
		WHERE o.name = 'ci' AND r.number IN ($(echo "$@" | tr ' ' ,))
		AND r.state IN ('success', 'failure', 'cancelled')")" = $#
}
# ci_run WORKFLOW: create_run of alice/ci; its number on stdout
ci_run () {
	tool_call create_run "{\"repo\":\"alice/ci\",\"workflow\":\"$1\"}" --token "$XTOKEN" >/dev/null
	tool_text | jq -r '.run // empty'
}

CI_SANDBOX=null CI_THROUGHPUT=null
# ci-sandbox: the same 50 steps of `true` with and without bubblewrap
if ci_wanted ci-sandbox; then
	command -v bwrap >/dev/null || die "ci-sandbox: bwrap (Debian bubblewrap) is not installed"
	declare -A step_ms
	for mode in bwrap none; do
		ms=
		for i in 1 2 3; do
			n=$(ci_run steps)
			test -n "$n" || die "cannot start the steps run: $(cat "$RESP.body")"
			FORGEMCP_RUNNER_SANDBOX=$mode "$FORGEMCP" runner --once >>"$TRASH/runner.log" 2>&1 ||
				die "the runner failed, see $TRASH/runner.log"
			test "$(db_sql "SELECT r.state FROM ci_runs r JOIN repositories o ON o.id = r.repo_id
				WHERE o.name = 'ci' AND r.number = $n")" = success || die "the steps run $n failed"
			ms="$ms $(ci_job_ms "$n")"
		done
		step_ms[$mode]=$(printf '%s\n' $ms | sort -n | sed -n 2p)
		note "ci-sandbox: runner_sandbox = $mode, 50 steps in ms:$ms; median $((step_ms[$mode] / 50)).$(( (step_ms[$mode] % 50) * 2 )) ms a step"
	done
	per_bwrap=$(awk "BEGIN { printf \"%.1f\", ${step_ms[bwrap]} / 50 }")
	per_none=$(awk "BEGIN { printf \"%.1f\", ${step_ms[none]} / 50 }")
	over=$(awk "BEGIN { printf \"%.1f\", (${step_ms[bwrap]} - ${step_ms[none]}) / 50 }")
	CI_SANDBOX="{\"step_ms_bwrap\": $per_bwrap, \"step_ms_none\": $per_none, \"over_ms\": $over}"
	note "ci-sandbox: a step of \`true\` takes $per_bwrap ms in bubblewrap, $per_none ms without: $over ms over"
fi

# ci-throughput: 100 trivial jobs through 2, then 4 runner processes
if ci_wanted ci-throughput; then
	rates=
	for k in 2 4; do
		a=$(ci_run trivial) && b=$(ci_run trivial)
		test -n "$a" && test -n "$b" || die "cannot start the trivial runs: $(cat "$RESP.body")"
		pids=
		t0=$(date +%s.%N)
		for i in $(seq $k); do
			"$FORGEMCP" runner --concurrency 1 >>"$TRASH/runner.log" 2>&1 &
			pids="$pids $!"
		done
		for w in $(seq 1200); do
			ci_final "$a" "$b" && break
			sleep 0.05
		done
		t1=$(date +%s.%N)
		for p in $pids; do stop_pid "$p" 10; done
		ci_final "$a" "$b" || die "ci-throughput: 100 jobs on $k runners did not end in 60 s"
		rate=$(awk "BEGIN { printf \"%.1f\", 100 / ($t1 - $t0) }")
		rates="$rates${rates:+, }\"$k\": $rate"
		note "ci-throughput: 100 trivial jobs on $k runners: $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s, $rate jobs/s"
	done
	CI_THROUGHPUT="{$rates}"
fi
if test "$CI_SANDBOX" != null || test "$CI_THROUGHPUT" != null; then
	echo "{\"sandbox\": $CI_SANDBOX, \"jobs_per_s\": $CI_THROUGHPUT}" | jq . >"$STATE/ci-runner.json" ||
		die "cannot write ci-runner.json"
fi
