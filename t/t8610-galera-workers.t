#!/bin/bash
# t8610: the long-running workers on two forgemcp hosts of a three-node
# MariaDB Galera cluster.  24 CI jobs (8 runs) queued through both hosts at
# once, a `forgemcp runner` on each host on its own node: every job claimed
# once, run once (its log one execution) and a success.  10 tracker batches
# (40 commands) queued through both hosts' hubs at once, a `forgemcp agent
# --backend local` on each host: every command handed out once and done
# once, one issue made by each ensure_issue.  All three nodes hold the
# same rows, and neither host answered a request 5xx.
# (About 30 s alone, with AddressSanitizer too: most of it is the cluster
# forming, with two state transfers.)
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/ci.sh"
. "$TEST_DIRECTORY/lib/lib-galera.sh"

ci_need_bwrap
galera_start
fm migrate >migrate.out || { echo "Bail out! forgemcp migrate on the cluster"; exit 1; }
galera_host_start 1 1
galera_host_start 2 2
setup_forge_fixtures &&
DAVE_X=$(make_token dave read,execute) &&
make_user ann &&
ANN_TOKEN=$(make_token ann read,write) || { echo "Bail out! fixtures"; exit 1; }
. "$TEST_DIRECTORY/lib/sdlc.sh"
sdlc_fixture aurora.json && fm tracker import aurora.json >/dev/null ||
	{ echo "Bail out! the tracker fixture"; exit 1; }
P=alice/project
W=.forgemcp/workflows

# same FILE: FILE-1, FILE-2 and FILE-3 (one a node) are the same and not empty
same () {
	test -s "$1-1" && test_cmp "$1-1" "$1-2" && test_cmp "$1-1" "$1-3"
}
# is EXPECTED ACTUAL: the two are equal; else both are shown
is () {
	test "$1" = "$2" && return 0
	printf 'expected: %s\n     got: %s\n' "$1" "$2"
	return 1
}
# stopped PID WHAT: PID ends on SIGTERM with status 0
stopped () {
	stop_pid "$1" 40 && is 0 "$STOP_STATUS" || { echo "$2 did not stop cleanly"; return 1; }
}

# --- CI runs ----------------------------------------------------------------

# Each job's log is one line naming it, its run and the host its run was
# queued through: a job run twice has the lines twice (both runners append).
cat >"$TRASH/galera.yml" <<'EOF'
on: { manual: true }
inputs:
  via: { type: string, required: true }
jobs:
  m:
    matrix: { n: [1, 2] }
    steps:
      - name: once
        run: echo "ran $FORGEMCP_JOB of run $FORGEMCP_RUN via $INPUT_VIA"
  after:
    needs: [m]
    steps:
      - name: once
        run: echo "ran $FORGEMCP_JOB of run $FORGEMCP_RUN via $INPUT_VIA"
EOF

# runs_final: the 8 runs are final (seen by node 3, which no host uses)
runs_final () {
	test "$(galera_sql 3 "SELECT COUNT(*) FROM ci_runs
		WHERE state IN ('success', 'failure', 'cancelled')")" = 8
}
# unfinished: the jobs of the runs not final, on each node
unfinished () {
	local n
	for n in 1 2 3; do
		echo "node $n: the jobs of the runs not final:"
		galera_sql $n "SELECT r.number, r.state, j.id, j.job_id, j.state, j.claimed_by
			FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id
			WHERE r.state NOT IN ('success', 'failure', 'cancelled') ORDER BY j.id"
	done
}
# ci_jobs N: every job on node N, one a line
ci_jobs () {
	galera_sql "$1" "SELECT r.number, r.state, j.id, j.job_id, j.state, j.exit_code,
		j.claimed_by, j.log_bytes, j.started_at IS NOT NULL, j.finished_at IS NOT NULL
		FROM ci_jobs j JOIN ci_runs r ON r.id = j.run_id ORDER BY j.id"
}
# ci_logs N: each job's id and log on node N, the log's lines joined with |
ci_logs () {
	galera_sql "$1" "SELECT j.id, REPLACE(COALESCE(GROUP_CONCAT(c.bytes ORDER BY c.seq
		SEPARATOR ''), ''), '\n', '|') FROM ci_jobs j LEFT JOIN ci_log_chunks c
		ON c.job_id = j.id GROUP BY j.id ORDER BY j.id"
}
# ci_expected_logs: the log each job must have, from node 1's jobs and runs
ci_expected_logs () {
	galera_sql 1 "SELECT j.id, CONCAT('==> step 1/1: once|ran ', j.job_id, ' of run ',
		r.number, ' via ', JSON_VALUE(r.inputs, '$.via'), '|') FROM ci_jobs j
		JOIN ci_runs r ON r.id = j.run_id ORDER BY j.id"
}
# claims LOG...: the job ids the runners' logs say were claimed, sorted, repeats kept
claims () {
	cat "$@" | sed -n "s/.*runner: job \([0-9]*\) (.*) of run [0-9]* of alice\/project claimed$/\1/p" |
		sort -n
}

test_expect_success 'eight runs of three jobs queued through both hosts at once: numbered 1..8, none twice' '
	repo_put "$PROJECT_GIT" main "$W/galera.yml" "$(cat "$TRASH/galera.yml")" &&
	mkdir -p runs && pids= &&
	for h in 1 2; do
		for i in 1 2 3 4; do
			printf "create_run\t%s\truns/h%s-%s.json\n" \
				"{\"repo\":\"$P\",\"workflow\":\"galera\",\"inputs\":{\"via\":\"h$h\"}}" $h $i
		done >create-$h &&
		{ on $h tool_stream "$DAVE_X" create-$h >create-statuses-$h & } &&
		pids="$pids $!" || return 1
	done &&
	for p in $pids; do wait $p || return 1; done &&
	is 8 "$(cat create-statuses-* | grep -c "^200 ")" &&
	jq -s -e "all(.[]; .result.isError != true)" runs/*.json &&
	jq -r ".result.structuredContent.run" runs/*.json | sort -n >numbers &&
	seq 1 8 >expect && test_cmp expect numbers &&
	for n in 1 2 3; do
		galera_sql $n "SELECT j.state, COUNT(*) FROM ci_jobs j GROUP BY j.state ORDER BY j.state" \
			>queued-$n || return 1
	done &&
	printf "queued\t16\nblocked\t8\n" | sort >expect && sort queued-1 >got &&
	test_cmp expect got && same queued
'

test_expect_success 'a runner on each host, on its own node: all 24 jobs succeed, each claimed and run exactly once' '
	galera_runner_start 1 --concurrency 2 && galera_runner_start 2 --concurrency 2 &&
	{ wait_for 60 runs_final || { unfinished; return 1; }; } &&
	stopped ${HOST_RUNNER_PID[1]} "the runner of host 1" &&
	stopped ${HOST_RUNNER_PID[2]} "the runner of host 2" &&
	for n in 1 2 3; do ci_jobs $n >jobs-$n && ci_logs $n >logs-$n || return 1; done &&
	host=$(hostname) &&
	n1=$(cut -f7 jobs-1 | grep -c "^$host:${HOST_RUNNER_PID[1]}\$" || :) &&
	n2=$(cut -f7 jobs-1 | grep -c "^$host:${HOST_RUNNER_PID[2]}\$" || :) &&
	note "the runner of host 1 ran $n1 jobs, that of host 2 $n2" &&
	# each log one execution: a job run twice has its lines twice
	ci_expected_logs >expect-logs && test_cmp expect-logs logs-1 &&
	# each job claimed once, by one runner or the other
	claims "$TRASH/host1/runner.log" "$TRASH/host2/runner.log" >claims &&
	cut -f3 jobs-1 | sort -n >ids && test_cmp ids claims &&
	is 24 "$(wc -l <ids)" &&
	is "success	success	0	1	1" "$(cut -f2,5,6,9,10 jobs-1 | sort -u)" &&
	is 24 $((n1 + n2)) &&
	is $n1 "$(claims "$TRASH/host1/runner.log" | wc -l)" &&
	is $n1 "$(grep -c "runner: job [0-9]* (.*) ended success\$" "$TRASH/host1/runner.log")" &&
	is $n2 "$(grep -c "runner: job [0-9]* (.*) ended success\$" "$TRASH/host2/runner.log")" &&
	# 24 jobs queued before both started: each takes a share
	test $n1 -gt 0 && test $n2 -gt 0 &&
	same jobs && same logs &&
	test -z "$(ls -A "$TRASH/host1/runner")" && test -z "$(ls -A "$TRASH/host2/runner")"
'

test_expect_success 'get_run through either host: every run and job a success' '
	for r in $(seq 1 8); do
		on $((r % 2 + 1)) tool_call get_run "{\"repo\":\"$P\",\"run\":$r}" --token "$ERIN_TOKEN" &&
		forge_ok &&
		jq -e ".state == \"success\" and (.jobs | length) == 3 and
			all(.jobs[]; .state == \"success\" and .exit_code == 0)" out.json || return 1
	done
'

# --- tracker agents ---------------------------------------------------------

# queue_batches H: five batches through host H's hub, each an issue of its
# own, a status for it and a link from it; "STATUS FILE" a batch
queue_batches () {
	local h=$1 i
	for i in 1 2 3 4 5; do
		curl -sS -o "batches/h$h-$i.json" -w "%{http_code} batches/h$h-$i.json\n" \
			-H "Authorization: Bearer $ANN_TOKEN" -H "Content-Type: application/json" \
			--data-binary "{\"title\":\"galera h$h b$i\",\"project\":\"AURORA\",\"commands\":[
				{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"galera h$h b$i\"},
				{\"type\":\"ensure_fields\",\"key\":\"new:1\",\"status\":\"В работе\"},
				{\"type\":\"ensure_link\",\"key\":\"new:1\",\"link_type\":\"Relates\",\"to\":\"AURORA-9001\"}]}" \
			"${HOST_URL[$h]}/hub/batches" || return 1
	done
}
OURS="batch_id IN (SELECT id FROM tracker_batches WHERE title LIKE 'galera h%')"
# commands_final: no command of the batches is queued or claimed (node 3)
commands_final () {
	test "$(galera_sql 3 "SELECT COUNT(*) FROM tracker_commands WHERE $OURS
		AND state IN ('queued', 'claimed')")" = 0
}
# commands N: the commands of the batches on node N, one a line
commands () {
	galera_sql "$1" "SELECT c.id, b.title, c.seq, c.type, c.state, c.handouts,
		COALESCE(c.error, '-'), COALESCE(c.result, '-') FROM tracker_commands c
		JOIN tracker_batches b ON b.id = c.batch_id WHERE c.$OURS ORDER BY c.id"
}
# made N: what the commands made on node N: each new issue with its status,
# labels, status changes and links, and the refresh runs logged
made () {
	galera_sql "$1" "SELECT i.issue_key, i.summary, i.status,
		(SELECT GROUP_CONCAT(l.label) FROM tracker_issue_labels l WHERE l.issue_id = i.id),
		(SELECT GROUP_CONCAT(CONCAT(ch.kind, ':', ch.from_value, '>', ch.to_value))
			FROM tracker_changes ch WHERE ch.issue_id = i.id),
		(SELECT GROUP_CONCAT(CONCAT(k.link_type, '>', t.issue_key)) FROM tracker_links k
			JOIN tracker_issues t ON t.id = k.inward_id WHERE k.outward_id = i.id)
		FROM tracker_issues i WHERE i.summary LIKE 'galera h%' ORDER BY i.id" &&
	galera_sql "$1" "SELECT command_id, state, issues FROM tracker_sync_runs
		WHERE command_id IN (SELECT id FROM tracker_commands WHERE $OURS) ORDER BY id"
}

test_expect_success 'ten batches queued through both hosts'"'"' hubs at once: 40 commands queued' '
	mkdir -p batches &&
	{ queue_batches 1 >batch-statuses-1 & p1=$!; } &&
	{ queue_batches 2 >batch-statuses-2 & p2=$!; } &&
	wait $p1 && wait $p2 &&
	is 10 "$(cat batch-statuses-* | grep -c "^201 ")" &&
	jq -s -e "(map(.id) | unique | length) == 10 and all(.[]; .commands == 4)" batches/*.json &&
	for n in 1 2 3; do commands $n >queued-commands-$n || return 1; done &&
	is 40 "$(wc -l <queued-commands-1)" &&
	is "queued	0" "$(cut -f5,6 queued-commands-1 | sort -u)" &&
	same queued-commands
'

test_expect_success 'an agent on each host, a client of its hub: every command handed out once and done once' '
	galera_agent_start 1 "$ANN_TOKEN" && galera_agent_start 2 "$ANN_TOKEN" &&
	{ wait_for 45 commands_final || { commands 3; return 1; }; } &&
	stopped ${HOST_AGENT_PID[1]} "the agent of host 1" &&
	stopped ${HOST_AGENT_PID[2]} "the agent of host 2" &&
	for n in 1 2 3; do commands $n >commands-$n || return 1; done &&
	a1=$(grep -c "agent: command [0-9]* ([a-z_]*): done\$" "$TRASH/host1/agent.log" || :) &&
	a2=$(grep -c "agent: command [0-9]* ([a-z_]*): done\$" "$TRASH/host2/agent.log" || :) &&
	note "the agent of host 1 ran $a1 commands, that of host 2 $a2" &&
	cut -f1 commands-1 | sort -n >ids &&
	is 40 "$(wc -l <ids)" &&
	# the hubs: each command handed out by one of them, once
	cat "$TRASH/host1/server.log" "$TRASH/host2/server.log" |
		sed -n "s/.*hub: command \([0-9]*\) ([a-z_]*) handed out, time \([0-9]*\)\$/\1 \2/p" |
		sort -n >handouts &&
	sed "s/\$/ 1/" ids >expect && test_cmp expect handouts &&
	# the agents: each command run by one of them, once, done
	cat "$TRASH/host1/agent.log" "$TRASH/host2/agent.log" |
		sed -n "s/.*agent: command \([0-9]*\) ([a-z_]*): done\$/\1/p" | sort -n >ran &&
	test_cmp ids ran &&
	! grep -e "did not run it" -e "claim:" "$TRASH/host1/agent.log" "$TRASH/host2/agent.log" &&
	is "done	1	-" "$(cut -f5-7 commands-1 | sort -u)" &&
	is "10 ensure_fields
10 ensure_issue
10 ensure_link
10 refresh" "$(cut -f4 commands-1 | sort | uniq -c | sed "s/^ *//")" &&
	# 40 commands of 10 batches queued before both started: each takes a share
	test $a1 -gt 0 && test $a2 -gt 0 &&
	same commands
'

test_expect_success 'each ensure_issue made one issue, AURORA-9004..9013, its key in the result; the same on every node' '
	for n in 1 2 3; do made $n >made-$n || return 1; done &&
	sed -n "/^AURORA-/p" made-1 >issues &&
	cut -f2 issues | sort >summaries &&
	for h in 1 2; do for i in 1 2 3 4 5; do echo "galera h$h b$i"; done; done | sort >expect &&
	test_cmp expect summaries &&
	cut -f1 issues | sort >keys &&
	seq -f "AURORA-%g" 9004 9013 | sort >expect && test_cmp expect keys &&
	is "В работе	AURORA	status:Новая>В работе	Relates>AURORA-9001" "$(cut -f3-6 issues | sort -u)" &&
	# the result of each ensure_issue names the issue of its batch
	awk -F "\t" "\$4 == \"ensure_issue\" { print \$2 \"\t\" \$8 }" commands-1 |
		sed "s/\t{\"temp_key\":\"new:1\",\"key\":\"\(.*\)\"}\$/\t\1/" | sort >results &&
	cut -f1,2 issues | awk -F "\t" "{ print \$2 \"\t\" \$1 }" | sort >expect &&
	test_cmp expect results &&
	# one refresh run logged a refresh command
	sed -n "/^[0-9]/p" made-1 >syncs &&
	awk -F "\t" "\$4 == \"refresh\" { print \$1 }" commands-1 | sort -n >expect &&
	cut -f1 syncs | sort -n >got && test_cmp expect got &&
	is "done	2" "$(cut -f2,3 syncs | sort -u)" &&
	same made
'

# worker_trouble: the runners' and agents' errors and warnings, but for
# collisions they ran again (an error naming the deadlock, then a warning
# that the transaction is retried)
worker_trouble () {
	grep -h -E "\] (error|warn): " "$TRASH"/host[12]/runner.log "$TRASH"/host[12]/agent.log |
		grep -v -E "database (prepare|execute|commit) failed: Deadlock found|transaction conflict, retrying"
}

test_expect_success 'neither host answered a request 5xx; no worker logged trouble other than collisions run again' '
	for h in 1 2; do
		log=$TRASH/host$h/nginx/logs/access.log &&
		test -s "$log" && ! awk "\$9 ~ /^5/" "$log" | grep . || return 1
	done &&
	! worker_trouble
'

galera_stop
test_done
