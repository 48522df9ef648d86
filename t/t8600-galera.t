#!/bin/bash
# t8600: two forgemcp hosts on a three-node MariaDB Galera cluster: what one
# host writes the other reads at once, numbers of issues and pull requests
# stay unique and gapless across hosts, a cap holds across them, one
# account's rate limit holds across them, a revoked token is refused
# everywhere, merges queued through both land in order; the long-running
# workers of both hosts (a runner and an agent on each) run every CI job and
# tracker command queued through both exactly once; a node killed under a
# mixed load (plain pass) and rejoined with nothing acknowledged lost, a
# node cut off by a firewall rule.
# (About 120 s alone, 70 s with AddressSanitizer, which skips the load.
# One cluster serves every test, the workers' too: forming one (three
# nodes, two state transfers, the schema, two hosts, the fixtures) costs
# 20-25 s of CPU a pass.  A node rejoins twice, and the load is 20,000
# requests through two hosts and three nodes on the same cores.)
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"
. "$TEST_DIRECTORY/lib/lib-galera.sh"
. "$TEST_DIRECTORY/lib/faults.sh"
. "$TEST_DIRECTORY/lib/ci.sh"

ci_need_bwrap
galera_start
# an account's limit, met by one test only (the others, the workers' among
# them, stay well under it)
config_set rate_limit 1000
config_set rate_window 3600
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
BOB_ID=$(db_sql "SELECT id FROM users WHERE login = 'bob'")
ANN_ID=$(db_sql "SELECT id FROM users WHERE login = 'ann'")

R=alice/cluster

test_expect_success 'three nodes in one primary component, the schema on each' '
	for n in 1 2 3; do
		test "$(galera_sql $n "SHOW STATUS LIKE \"wsrep_cluster_size\"" | cut -f2)" = 3 &&
		test "$(galera_sql $n "SHOW STATUS LIKE \"wsrep_cluster_status\"" | cut -f2)" = Primary &&
		galera_sql $n "SELECT COUNT(*) FROM schema_migrations" >migrations-$n || return 1
	done &&
	test_cmp migrations-1 migrations-3 && test_cmp migrations-2 migrations-3 &&
	fm repo import $R --from "$TRASH/project.git" >/dev/null
'
REPO_ID=$(db_sql "SELECT id FROM repositories WHERE name = 'cluster'")

test_expect_success 'an issue made through one host is read through the other at once' '
	for i in 1 2 3 4 5 6 7 8 9 10; do
		from=$(( i % 2 + 1 )) to=$(( (i + 1) % 2 + 1 )) &&
		on $from tool_call create_issue "{\"repo\":\"$R\",\"title\":\"seen from host $to, $i\"}" &&
		forge_ok && n=$(jq .number out.json) &&
		on $to tool_call get_issue "{\"repo\":\"$R\",\"number\":$n}" && forge_ok &&
		jq -e ".title == \"seen from host $to, $i\"" out.json || return 1
	done
'

# client K H: 50 calls through host H, one connection: create_issue and
# create_pull_request in turn (one number counter for both), each pull
# request from a branch of its own (only one may be open per branch)
client () {
	local k=$1 h=$2 i
	for i in $(seq 1 50); do
		if test $((i % 2)) = 0; then
			printf "create_pull_request\t%s\tanswers/%s-%s.json\n" \
				"{\"repo\":\"$R\",\"title\":\"client $k pull $i\",\"head\":\"n-$k-$i\",\"base\":\"main\"}" "$k" "$i"
		else
			printf "create_issue\t%s\tanswers/%s-%s.json\n" \
				"{\"repo\":\"$R\",\"title\":\"client $k issue $i\"}" "$k" "$i"
		fi
	done >requests-$k &&
	on "$h" tool_stream "$ALICE_TOKEN" requests-$k >statuses-$k &&
	test "$(grep -c "^200 " statuses-$k)" = 50
}

test_expect_success '100 create_issue and 100 create_pull_request from four clients, two on each host: numbers 11..210, none twice' '
	for k in 0 1 2 3; do
		for i in $(seq 2 2 50); do echo "create refs/heads/n-$k-$i feature" || return 1; done
	done | git --git-dir="$TRASH/repos/$R.git" update-ref --stdin &&
	mkdir -p answers && pids= &&
	for k in 0 1 2 3; do
		client $k $(( k % 2 + 1 )) >client-$k.log 2>&1 &
		pids="$pids $!"
	done &&
	status=0 && for p in $pids; do wait $p || status=1; done &&
	test $status = 0 &&
	jq -s -e "all(.[]; .result.isError != true)" answers/*.json &&
	jq -r ".result.structuredContent.number" answers/*.json | sort -n >got &&
	seq 11 210 >expect && test_cmp expect got &&
	test "$(galera_sql 2 "SELECT COUNT(*) FROM pull_requests p JOIN repositories r ON r.id = p.repo_id
		WHERE r.name = \"cluster\"")" = 100
'

# numbers N: "number<TAB>title" of R's issues and pull requests on node N
numbers () {
	galera_sql "$1" "SELECT x.number, x.title FROM (SELECT repo_id, number, title FROM issues
		UNION ALL SELECT repo_id, number, title FROM pull_requests) x
		JOIN repositories r ON r.id = x.repo_id WHERE r.name = 'cluster' ORDER BY x.number"
}

test_expect_success 'every node holds the same 210 issues and pull requests' '
	for n in 1 2 3; do
		numbers $n >numbers-$n || return 1
	done &&
	test "$(wc -l <numbers-1)" = 210 &&
	test_cmp numbers-1 numbers-2 && test_cmp numbers-1 numbers-3
'

# A Galera node aborts a local transaction for another node's write set
# and reports it on the client's next command; when that report is lost
# (under the binary protocol the server loses it now and then), the rest of
# the transaction must not commit on what it read.  A create_issue through
# stdio on node 1 takes the next number, then waits before its INSERT
# (FORGEMCP_TX_PAUSE); a create_pull_request through host 2 takes the same
# number on node 2 and commits, which aborts the waiting one on node 1;
# the hook then drops the ping that carries the report.  With autocommit
# on, the INSERT and what follows committed one by one: one number twice.
test_expect_success DEBUG_HOOKS 'a transaction aborted by another node, its report lost: none of it commits, it runs again' '
	git --git-dir="$TRASH/repos/$R.git" update-ref refs/heads/lost-report feature &&
	pause=$TRASH/tx-pause && rm -f "$pause" &&
	modern_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"paused\"}}" 1 >paused.json &&
	{ FORGEMCP_TOKEN=$ALICE_TOKEN FORGEMCP_TX_PAUSE="INSERT INTO issues" \
		FORGEMCP_TX_PAUSE_FILE=$pause fm stdio <paused.json >paused.out 2>paused.err & } &&
	pid=$! &&
	wait_for 30 test -e "$pause" &&
	on 2 tool_call create_pull_request "{\"repo\":\"$R\",\"title\":\"meanwhile\",\"head\":\"lost-report\",\"base\":\"main\"}" &&
	forge_ok && theirs=$(jq .number out.json) &&
	test "$(galera_sql 1 "SELECT COUNT(*) FROM pull_requests WHERE repo_id = $REPO_ID AND number = $theirs")" = 1 &&
	rm -f "$pause" && wait $pid &&
	grep "FORGEMCP_TX_PAUSE: the ping" paused.err &&
	mine=$(jq -e .result.structuredContent.number paused.out) &&
	echo "the pull request is #$theirs, the paused issue #$mine" &&
	test "$mine" -gt "$theirs" &&
	numbers 1 | cut -f1 | uniq -d >twice &&
	test_cmp /dev/null twice
'

# varset ROUND K H: 3 set_repository_variable calls through host H, one
# connection, when the pipe go-ROUND is closed (a get_issue opens it first)
varset () {
	local r=$1 k=$2 h=$3 i
	printf "get_issue\t%s\tvars-%s/ready-%s.json\n@wait\tgo-%s\n" \
		"{\"repo\":\"$R\",\"number\":1}" "$r" "$k" "$r" >varset-$r-$k &&
	for i in 1 2 3; do
		printf "set_repository_variable\t%s\tvars-%s/%s-%s.json\n" \
			"{\"repo\":\"$R\",\"name\":\"RACE_${k}_$i\",\"value\":\"v\"}" "$r" "$k" "$i"
	done >>varset-$r-$k &&
	on "$h" tool_stream "$ALICE_TOKEN" varset-$r-$k >varset-statuses-$r-$k
}

# A cap checked under a row lock holds across nodes only if the locking
# transaction writes that row (Galera certifies written rows only).  The
# race is for the last place, as many clients as the hosts have workers,
# let go at once, and it is run five times.
test_expect_success 'the cap of 100 variables holds: 12 creates through both hosts for the last place, five times' '
	for i in $(seq 1 99); do echo "($REPO_ID, \"FILL_$i\", \"v\")"; done | paste -sd, >fill &&
	galera_sql 1 "INSERT INTO repository_variables (repo_id, name, value) VALUES $(cat fill)" &&
	for r in 1 2 3 4 5; do
		mkdir -p vars-$r && mkfifo go-$r && pids= &&
		for k in 0 1 2 3; do
			varset $r $k $(( k % 2 + 1 )) &
			pids="$pids $!"
		done &&
		wait_for 30 test -s vars-$r/ready-0.json -a -s vars-$r/ready-1.json \
			-a -s vars-$r/ready-2.json -a -s vars-$r/ready-3.json &&
		# all four wait in the pipe now; closing it lets them go at once
		exec 9>go-$r && sleep 0.2 && exec 9>&- &&
		for p in $pids; do wait $p || return 1; done &&
		rm vars-$r/ready-* &&
		test "$(cat varset-statuses-$r-* | grep -c "^200 ")" = 16 &&
		test "$(jq -s "[.[] | select(.result.isError != true)] | length" vars-$r/*.json)" = 1 &&
		jq -r "select(.result.isError == true) | .result.content[0].text" vars-$r/*.json >refusals &&
		test "$(grep -c "the most a repository may have (100)" refusals)" = 11 &&
		for n in 1 2 3; do
			test "$(galera_sql $n "SELECT COUNT(*) FROM repository_variables
				WHERE repo_id = $REPO_ID")" = 100 || return 1
		done &&
		galera_sql 1 "DELETE FROM repository_variables WHERE name LIKE \"RACE%\"" || return 1
	done
'

# prrace ROUND K H TOOL ARGS: one TOOL call through host H when the pipe
# pr-go-ROUND is closed (a get_issue opens the connection first)
prrace () {
	printf "get_issue\t%s\tprs-%s/ready-%s.json\n@wait\tpr-go-%s\n%s\t%s\tprs-%s/%s.json\n" \
		"{\"repo\":\"$R\",\"number\":1}" "$1" "$2" "$1" "$4" "$5" "$1" "$2" >prrace-$1-$2 &&
	on "$3" tool_stream "$ALICE_TOKEN" prrace-$1-$2 >prrace-statuses-$1-$2
}
open_from () {
	galera_sql "$1" "SELECT COUNT(*) FROM pull_requests p JOIN repositories r ON r.id = p.repo_id
		WHERE r.name = 'cluster' AND p.head_ref = '$2' AND p.base_ref = 'main' AND p.state = 'open'"
}

# Only one pull request may be open from a branch into a base.  A create
# checks it under the repository's counter row, which it writes; a reopen
# must write that row too, or a reopen and a create through two nodes both
# pass (each certifies only its own rows).  Two reopens of a closed pull
# request and two creates from its branch, let go at once, five times.
test_expect_success 'one open pull request from a branch into a base: 2 reopens and 2 creates through both hosts at once, five times' '
	for r in 1 2 3 4 5; do
		git --git-dir="$TRASH/repos/$R.git" update-ref refs/heads/race-$r feature &&
		tool_call create_pull_request "{\"repo\":\"$R\",\"title\":\"race $r\",\"head\":\"race-$r\",\"base\":\"main\"}" &&
		forge_ok && a=$(jq .number out.json) &&
		tool_call close_pull_request "{\"repo\":\"$R\",\"number\":$a}" && forge_ok &&
		mkdir -p prs-$r && mkfifo pr-go-$r && pids= &&
		for k in 0 1 2 3; do
			if test $k -lt 2; then
				prrace $r $k $((k % 2 + 1)) reopen_pull_request "{\"repo\":\"$R\",\"number\":$a}" &
			else
				prrace $r $k $((k % 2 + 1)) create_pull_request \
					"{\"repo\":\"$R\",\"title\":\"race $r again\",\"head\":\"race-$r\",\"base\":\"main\"}" &
			fi
			pids="$pids $!"
		done &&
		wait_for 30 test -s prs-$r/ready-0.json -a -s prs-$r/ready-1.json \
			-a -s prs-$r/ready-2.json -a -s prs-$r/ready-3.json &&
		exec 9>pr-go-$r && sleep 0.2 && exec 9>&- &&
		for p in $pids; do wait $p || return 1; done &&
		test "$(cat prrace-statuses-$r-* | grep -c "^200 ")" = 8 &&
		for n in 1 2 3; do
			test "$(open_from $n race-$r)" = 1 || { echo "round $r: node $n has $(open_from $n race-$r) open"; return 1; }
		done
	done
'

# twohosts N1 N2 PATH BODY1 BODY2: N1 POSTs of BODY1 to /hub/PATH through
# host 1 and N2 of BODY2 through host 2, let go at once: each request is
# sent but its last byte, then the last bytes one after the other, in a
# random order; the statuses in codes-1 and codes-2, the answers in
# twohosts.H-I.json
twohosts () {
	perl -MIO::Socket::INET -MList::Util=shuffle -MTime::HiRes=sleep -e '
		my ($n1, $n2, $path, $b1, $b2, $p1, $p2, $tok) = @ARGV;
		my @c;
		for my $h (1, 2) {
			my ($n, $b, $p) = $h == 1 ? ($n1, $b1, $p1) : ($n2, $b2, $p2);
			for my $i (1 .. $n) {
				my $s = IO::Socket::INET->new(PeerAddr => "127.0.0.1:$p") or die "connect: $!\n";
				$s->autoflush(1);
				my $req = "POST /hub/$path HTTP/1.0\r\nHost: 127.0.0.1:$p\r\n" .
				    "Authorization: Bearer $tok\r\nContent-Type: application/json\r\n" .
				    "Content-Length: " . length($b) . "\r\nConnection: close\r\n\r\n$b";
				print $s substr($req, 0, -1);
				push @c, [$h, $i, $s, substr($req, -1)];
			}
		}
		sleep 0.3;
		print {$_->[2]} $_->[3] for shuffle @c;
		for (@c) {
			my ($h, $i, $s) = @$_;
			my $r = do { local $/; <$s> };
			my ($code) = $r =~ m{^HTTP/1\.[01] (\d{3})} or die "no answer\n";
			my (undef, $body) = split /\r\n\r\n/, $r, 2;
			open my $f, ">", "twohosts.$h-$i.json" or die; print $f $body; close $f;
			open my $o, ">>", "codes-$h" or die; print $o "$code\n"; close $o;
		}
	' "$1" "$2" "$3" "$4" "$5" "${HOST_PORT[1]}" "${HOST_PORT[2]}" "$ANN_TOKEN"
}

# The parts an agent uploads for a command are checked against it under its
# tracker_commands row's lock; a part writes that row (lock_count), or after
# a lease ran out the old agent's next part through one node and the new
# agent's first part through the other may both pass (neither wrote a row
# the other did) and the parts of two agents mix.  The old agent's part 5
# through host 1 and the new agent's part 0 through host 2, twice each, let
# go at once, ten times: only the new agent's part 0 is left, and every
# part taken wrote the command's row.  (Without that write the mix was not
# seen in 30 rounds: a part's foreign key makes the other node's applier
# wait for the command row, which aborts a part still holding it, so only
# two parts certified in the same instant mix; the count of writes is what
# catches a part that no longer writes the row.  Both name hand-out 1, the
# command's: a part of an earlier hand-out is refused outright, t6520.)
test_expect_success 'the parts of one command: an old agent'\''s part 5 and a new agent'\''s part 0 through both hosts at once, ten times: never mixed' '
	galera_sql 1 "INSERT INTO tracker_batches (title, author, created_at)
		VALUES (\"parts race\", \"ann\", UTC_TIMESTAMP(3))" &&
	B=$(galera_sql 1 "SELECT id FROM tracker_batches WHERE title = \"parts race\"") &&
	galera_sql 1 "INSERT INTO tracker_commands (batch_id, seq, type, params, state, handouts,
		claimed_at, updated_at) VALUES ($B, 1, \"fetch_attachment\", \"{}\", \"claimed\", 1,
		UTC_TIMESTAMP(3), UTC_TIMESTAMP(3))" &&
	C=$(galera_sql 1 "SELECT id FROM tracker_commands WHERE batch_id = $B") &&
	test_when_finished "galera_sql 1 \"UPDATE tracker_commands SET state = \\\"failed\\\" WHERE id = $C\"" &&
	for r in $(seq 1 10); do
		galera_sql 1 "DELETE FROM wiki_upload_parts WHERE command_id = $C;
			INSERT INTO wiki_upload_parts (command_id, part, bytes, data) VALUES
			($C, 0, 4, \"b2xk\"), ($C, 1, 4, \"b2xk\"), ($C, 2, 4, \"b2xk\"),
			($C, 3, 4, \"b2xk\"), ($C, 4, 4, \"b2xk\")" &&
		rm -f codes-1 codes-2 &&
		twohosts 2 2 agent/jira_fetch \
			"{\"command\":$C,\"handout\":1,\"part\":5,\"data\":\"b2xk\",\"last\":false}" \
			"{\"command\":$C,\"handout\":1,\"part\":0,\"data\":\"bmV3\",\"last\":false}" &&
		say "round $r: host 1 $(sort codes-1 | uniq -c | tr -s " \n" " "), host 2 $(sort codes-2 | uniq -c | tr -s " \n" " ")" &&
		test "$(grep -c "^200$" codes-2)" = 2 &&
		! grep -v "^200$\|^409$" codes-1 &&
		for n in 1 2 3; do
			parts=$(galera_sql $n "SELECT GROUP_CONCAT(part, \":\", data ORDER BY part)
				FROM wiki_upload_parts WHERE command_id = $C") &&
			test "$parts" = "0:bmV3" || { echo "round $r: node $n holds $parts"; return 1; }
		done || return 1
	done &&
	test "$(galera_sql 3 "SELECT lock_count FROM tracker_commands WHERE id = $C")" -ge 20
'

# An account's uploaded files (POST /hub/files) are counted under its users
# row, which each create writes: 12 creates of ann through both hosts for
# her 1,000th file, three times: one taken each time.
test_expect_success 'an account'\''s 1,000 files: 12 creates through both hosts for the last place, three times' '
	for r in 1 2 3; do
		galera_sql 1 "DELETE FROM tracker_files WHERE user_id = $ANN_ID;
			INSERT INTO tracker_files (user_id, filename, size, created_at)
			SELECT $ANN_ID, \"f\", 0, UTC_TIMESTAMP(3) FROM seq_1_to_999" &&
		rm -f codes-1 codes-2 &&
		twohosts 6 6 files "{\"name\":\"last\",\"size\":0}" "{\"name\":\"last\",\"size\":0}" &&
		say "round $r: $(cat codes-1 codes-2 | sort | uniq -c | tr -s " \n" " ")" &&
		test "$(cat codes-1 codes-2 | grep -c "^201$")" = 1 &&
		test "$(cat codes-1 codes-2 | grep -c "^413$")" = 11 &&
		for n in 1 2 3; do
			test "$(galera_sql $n "SELECT COUNT(*) FROM tracker_files WHERE user_id = $ANN_ID")" = 1000 ||
				{ echo "round $r: node $n holds more"; return 1; }
		done || return 1
	done &&
	galera_sql 1 "DELETE FROM tracker_files WHERE user_id = $ANN_ID"
'

# count N [TITLE]: the issues on node N (titled like TITLE)
count () { galera_sql "$1" "SELECT COUNT(*) FROM issues${2:+ WHERE title LIKE '$2'}"; }
# host_reads H: host H answers a read
host_reads () {
	on "$1" tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" && test "$(cat "$RESP.status")" = 200
}

# fcgi_restart H: host H's workers started again, with a limit no account
# of the load reaches (the hosts read their configuration at start)
fcgi_restart () {
	local h=$1 dir=$TRASH/host$1
	sed -i "s/^rate_limit *=.*/rate_limit = 1000000/" "$dir/forgemcp.conf" &&
	kill -TERM "${HOST_FCGI_PID[$h]}" && wait "${HOST_FCGI_PID[$h]}"
	rm -f "$dir/fcgi.sock" || return 1
	# a command of its own, so that $! is forgemcp (after "&&" the & would
	# put the whole list in a subshell, and $! be that shell)
	FORGEMCP_CONFIG=$dir/forgemcp.conf "$FORGEMCP" fcgi --listen "$dir/fcgi.sock" --workers 2 \
		>>"$dir/server.log" 2>&1 </dev/null 7>&- &
	HOST_FCGI_PID[$h]=$!
	test_register_pid "${HOST_FCGI_PID[$h]}"
	wait_for 20 test -S "$dir/fcgi.sock" &&
	wait_for 20 host_reads "$h"
}

# writer K H TOKEN: 30 create_issue calls on R through host H, one connection
writer () {
	local k=$1 h=$2 i
	for i in $(seq 1 30); do
		printf "create_issue\t%s\twrites/%s-%s.json\n" \
			"{\"repo\":\"$R\",\"title\":\"writer $k issue $i\"}" "$k" "$i"
	done >writes-$k &&
	on "$h" tool_stream "$3" writes-$k >writes-statuses-$k &&
	test "$(grep -c "^200 " writes-statuses-$k)" = 30
}
# conflicts H: the collisions host H's log reports, so far
conflicts () { grep -c "transaction conflict, retrying" "$TRASH/host$1/server.log" || :; }

test_expect_success 'host 3 reads on node 2 and writes through node 1 (db_write_socket): 120 creates on one repository with host 1, no collision' '
	galera_host_start 3 2 2 1 &&
	c1=$(conflicts 1) && c3=$(conflicts 3) &&
	mkdir -p writes && pids= &&
	for k in 0 1 2 3; do
		if test $((k % 2)) = 0; then
			writer $k 1 "$ALICE_TOKEN" &
		else
			writer $k 3 "$ANN_TOKEN" &
		fi
		pids="$pids $!"
	done &&
	for p in $pids; do wait $p || return 1; done &&
	jq -r ".result.structuredContent.number" writes/*.json | sort -n | uniq -d >twice &&
	test_cmp /dev/null twice &&
	test "$(jq -r ".result.structuredContent.number" writes/*.json | sort -un | wc -l)" = 120 &&
	test "$(conflicts 1)" = "$c1" && test "$(conflicts 3)" = "$c3" &&
	on 3 tool_call get_issue "{\"repo\":\"$R\",\"number\":$(jq .result.structuredContent.number writes/1-30.json)}" &&
	forge_ok && jq -e ".title == \"writer 1 issue 30\"" out.json
'

test_expect_success 'host 3 with its write node away: reads go on, writes answer 503 and the log names db_write_socket' '
	sed -i "s|^db_write_socket *=.*|db_write_socket = $TRASH/no-such-node.sock|" "$TRASH/host3/forgemcp.conf" &&
	fcgi_restart 3 &&
	on 3 tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" && forge_ok &&
	on 3 tool_call create_issue "{\"repo\":\"$R\",\"title\":\"nowhere to write\"}" &&
	test_status 503 && test -n "$(header_value Retry-After)" &&
	grep -F "cannot connect to the database through db_write_socket $TRASH/no-such-node.sock" "$TRASH/host3/server.log" &&
	test "$(count 1 "nowhere to write")" = 0 &&
	stop_pid "${HOST_FCGI_PID[3]}" 10 && stop_pid "${HOST_NGINX_PID[3]}" 10
'

test_expect_success 'forgemcp migrate moved the rate-limit counts to InnoDB, on every node' '
	grep -x "a Galera cluster: the rate-limit counts moved to InnoDB, shared by every node" migrate.out &&
	for n in 1 2 3; do
		test "$(galera_sql $n "SELECT ENGINE FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = \"rate_limits\"")" = InnoDB || return 1
	done &&
	fm migrate >again.out && ! grep Galera again.out
'

# limited K H: 325 get_issue calls of bob through host H, one connection
limited () {
	local k=$1 h=$2 i
	for i in $(seq 1 325); do
		printf "get_issue\t%s\tlimited/%s-%s.json\n" "{\"repo\":\"$R\",\"number\":1}" "$k" "$i"
	done >limited-$k &&
	on "$h" tool_stream "$BOB_TOKEN" limited-$k >limited-statuses-$k
}

test_expect_success 'one account, 1,300 requests over both hosts in one window: never over the limit of 1,000' '
	while test $((3600 - $(date +%s) % 3600)) -lt 60; do sleep 1; done &&
	mkdir -p limited && pids= &&
	for k in 0 1 2 3; do
		limited $k $(( k % 2 + 1 )) &
		pids="$pids $!"
	done &&
	for p in $pids; do wait $p || return 1; done &&
	cat limited-statuses-* | cut -d" " -f1 | sort | uniq -c >limited-counts &&
	cat limited-counts &&
	ok=$(cat limited-statuses-* | grep -c "^200 ") &&
	refused=$(cat limited-statuses-* | grep -c "^429 ") &&
	test $((ok + refused)) = 1300 &&
	test "$ok" -le 1000 &&
	echo "$ok" >limited-ok
'

# limited_one: one get_issue call of bob, through host 1 and host 2 in turn
LIMITED_N=0
limited_one () {
	LIMITED_N=$((LIMITED_N + 1))
	on $(( LIMITED_N % 2 + 1 )) tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" \
		--token "$BOB_TOKEN"
}

test_expect_success 'once the workers gave back what they held, exactly 1,000 were answered in the window, counted alike on every node' '
	sleep 2 &&
	until_refused limited-tail-ok limited_one &&
	note "bob: $(cat limited-ok) answered in the burst, $(cat limited-tail-ok) after it" &&
	test $(( $(cat limited-ok) + $(cat limited-tail-ok) )) = 1000 &&
	for n in 1 2 3; do
		test "$(galera_sql $n "SET SESSION wsrep_sync_wait = 1; SELECT n FROM rate_limits WHERE kind = \"u\" AND principal = \"$BOB_ID\"")" = 1000 || return 1
	done
'

test_expect_success 'a token revoked through host 1 is refused by host 2' '
	tok=$(make_token alice read --name revoke-me) &&
	on 2 tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" --token "$tok" && forge_ok &&
	id=$(fm token list --user alice | awk -F "\t" "\$3 == \"revoke-me\" { print \$1 }") &&
	test -n "$id" &&
	FORGEMCP_CONFIG=$TRASH/host1/forgemcp.conf fm token revoke "$id" >/dev/null &&
	on 2 tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" --token "$tok" &&
	test_status 401
'

P=alice/project
G="git --git-dir=$PROJECT_GIT"
# branch NAME FILE: a branch off main with one commit adding FILE
branch () {
	local idx=$TRASH/merge-index blob tree c
	rm -f "$idx" && test_tick &&
	GIT_INDEX_FILE=$idx $G read-tree main &&
	blob=$(echo "$2" | $G hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx $G update-index --add --cacheinfo "100644,$blob,$2" &&
	tree=$(GIT_INDEX_FILE=$idx $G write-tree) &&
	c=$($G commit-tree -p main -m "$1: $2" "$tree") &&
	$G update-ref "refs/heads/$1" "$c" && rm -f "$idx"
}
# worker H: one forgemcp worker --once on host H's node
worker () { FORGEMCP_CONFIG=$TRASH/host$1/forgemcp.conf fm worker --once 2>>worker-$1.log; }

test_expect_success 'two merges into one branch queued through the two hosts, a worker on each: both land, in order' '
	make_user mona && fm collaborator add $P mona manager >/dev/null &&
	MONA_M=$(make_token mona read,write,merge) &&
	branch g1 g1.txt && branch g2 g2.txt && before=$($G rev-parse main) &&
	on 1 tool_call create_pull_request "{\"repo\":\"$P\",\"head\":\"g1\",\"base\":\"main\",\"title\":\"g1\"}" --token "$DAVE_TOKEN" &&
	forge_ok && n1=$(jq .number out.json) &&
	on 2 tool_call create_pull_request "{\"repo\":\"$P\",\"head\":\"g2\",\"base\":\"main\",\"title\":\"g2\"}" --token "$DAVE_TOKEN" &&
	forge_ok && n2=$(jq .number out.json) &&
	on 1 tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$n1,\"version\":1}" --token "$MONA_M" && forge_ok &&
	on 2 tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$n2,\"version\":1}" --token "$MONA_M" && forge_ok &&
	{ worker 1 & p1=$!; worker 2 & p2=$!; wait $p1 && wait $p2; } &&
	{ worker 1 & p1=$!; worker 2 & p2=$!; wait $p1 && wait $p2; } &&
	for n in $n1 $n2; do
		on 2 tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$n}" --token "$MONA_M" &&
		forge_ok && jq -e ".state == \"merged\"" out.json || return 1
	done &&
	c2=$($G rev-parse main) && c1=$($G rev-parse "$c2^1") &&
	test "$($G rev-parse "$c1^1")" = "$before" &&
	$G log --format=%s -2 main >subjects &&
	grep -q "#$n2" subjects && test "$(sed -n 2p subjects | grep -c "#$n1")" = 1 &&
	test "$(galera_sql 3 "SELECT COUNT(*) FROM merge_locks")" = 0
'

# The long-running workers: a `forgemcp runner` and a `forgemcp agent
# --backend local` on each host, each on its host's node, while the cluster
# is whole (before the load and the partition).  24 CI jobs (8 runs)
# queued through both hosts at once: every job claimed once, run once (its
# log one execution) and a success.  10 tracker batches (40 commands)
# queued through both hosts' hubs at once: every command handed out once
# and done once, one issue made by each ensure_issue.  All three nodes hold
# the same rows, and neither host answered a request 5xx.  Their accounts
# (dave and erin for the runs, ann for the batches and the agents' claims
# and reports) stay far under the rate limit of 1,000 that bob's test
# meets; an agent refused would log it.
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
	jq -r ".result.structuredContent.run" runs/*.json | sort -n >run-numbers &&
	seq 1 8 >expect && test_cmp expect run-numbers &&
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
	note "the requests of ann counted in this window: $(galera_sql 1 "SELECT n FROM rate_limits
		WHERE kind = \"u\" AND principal = \"$ANN_ID\"") of the 1,000 allowed" &&
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
# collisions (an error naming the deadlock, at a statement's prepare,
# execute, fetch, commit or rollback; a transaction whose abort was not
# reported, found gone at its commit; the transaction runs again, or the
# poll's read at its next round)
worker_trouble () {
	grep -h -E "\] (error|warn): " "$TRASH"/host[12]/runner.log "$TRASH"/host[12]/agent.log |
		grep -v -E "database (prepare|execute|fetch|commit|rollback|rollback to savepoint) failed: (Deadlock found|aborted by a concurrent transaction)|transaction conflict, retrying|the database ended the transaction under it, unreported \(a Galera abort\): it is run again"
}

# The access logs hold every request so far, of the tests before the
# workers' too (the load below kills node 2, and host 2 answers 503 then).
test_expect_success 'neither host answered a request 5xx; no worker logged trouble other than collisions run again' '
	for h in 1 2; do
		log=$TRASH/host$h/nginx/logs/access.log &&
		test -s "$log" && ! awk "\$9 ~ /^5/" "$log" | grep . || return 1
	done &&
	! worker_trouble
'

# the runners and agents stopped, if a test above failed before it stopped
# them: the load below kills node 2 under them
galera_workers_stop

# size N / status N: the cluster's size and state (Primary, non-Primary) node N sees
size () { galera_sql "$1" "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2; }
status () { galera_sql "$1" "SHOW STATUS LIKE 'wsrep_cluster_status'" | cut -f2; }
is_size () { test "$(size "$1")" = "$2"; }
is_status () { test "$(status "$1")" = "$2"; }
all_synced () { is_size 2 3 && galera_synced 1 && galera_synced 2 && galera_synced 3; }

# bodies PREFIX: a mix of reads and writes, both eras, on R; new issues are
# titled "PREFIX <conn>-<seq>".  (No tools/list: t8100 loads it, and the
# client's pure-Perl JSON would spend more on its 50 KB than the hosts do.)
bodies () {
	legacy_body tools/call "{\"name\":\"get_issue\",\"arguments\":{\"repo\":\"$R\",\"number\":1}}"
	modern_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"$1 @SEQ@\"}}"
	legacy_body tools/call "{\"name\":\"list_issues\",\"arguments\":{\"repo\":\"$R\",\"state\":\"closed\"}}"
	modern_body tools/call "{\"name\":\"get_issue\",\"arguments\":{\"repo\":\"$R\",\"number\":2}}"
	legacy_body tools/call "{\"name\":\"create_issue\",\"arguments\":{\"repo\":\"$R\",\"title\":\"$1 @SEQ@\"}}"
	modern_body tools/call "{\"name\":\"get_issue\",\"arguments\":{\"repo\":\"$R\",\"number\":3}}"
}
answered () { test "$(cat load1.log.* load2.log.* 2>/dev/null | wc -l)" -ge "$1"; }
# rows N: "title<TAB>number" of the load's issues on node N, sorted
rows () {
	galera_sql "$1" "SELECT i.title, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id
		WHERE r.name = 'cluster' AND i.title LIKE 'load%'" | sort
}
# numbered N: the issues and pull requests of R on node N are numbered
# 1..count, none twice
numbered () {
	set -- $(galera_sql "$1" "SELECT COUNT(*), COUNT(DISTINCT x.number), MIN(x.number),
		MAX(x.number), MAX(r.next_number) FROM (SELECT repo_id, number FROM issues
		UNION ALL SELECT repo_id, number FROM pull_requests) x JOIN repositories r ON r.id = x.repo_id
		WHERE r.name = 'cluster'")
	test "$1" = "$2" && test "$3" = 1 && test "$4" = "$1" && test "$5" = $(($1 + 1)) ||
	{ echo "numbering broken: count=$1 distinct=$2 min=$3 max=$4 next=$5"; return 1; }
}


# The load: LOAD_REQUESTS (default 20,000) over 8 connections, 4 through
# each host, one in three of them writes.  The plain pass runs it: under
# the sanitizers two hosts and three nodes on the same cores are too slow
# for a load to mean anything.
LOAD=${LOAD_REQUESTS:-20000}
test_prereq_PLAIN_BUILD_ () { ! asan_build; }
TEST_PREREQ_WHY_PLAIN_BUILD="the load runs in the plain pass"

test_expect_success PLAIN_BUILD "$LOAD requests through both hosts, node 2 killed (SIGKILL) in the middle, then back" '
	test_when_finished "touch load1.stop load2.stop" &&
	fcgi_restart 1 && fcgi_restart 2 &&
	bodies load1 >load1.bodies && bodies load2 >load2.bodies &&
	for h in 1 2; do
		BASE_URL=${HOST_URL[$h]} TOKEN=$ALICE_TOKEN \
			load_start load$h 4 load$h.bodies --count $((LOAD / 8)) --timeout 30 &&
		eval "pid$h=\$LOAD_PID" || return 1
	done &&
	wait_for 300 answered $((LOAD / 4)) &&
	now >t_down && galera_node_kill 2 &&
	wait_for 30 is_size 1 2 &&
	wait_for 30 grep -q "	503	" load2.log.0 load2.log.1 load2.log.2 load2.log.3 &&
	galera_node_restart 2 && now >t_up &&
	wait $pid1 && wait $pid2 &&
	for h in 1 2; do sort -t "	" -k3,3n load$h.log.* >load$h.all || return 1; done &&
	load_say "host 1" load1.all && load_say "host 2" load2.all &&
	test "$(cat load1.all load2.all | wc -l)" = $(( LOAD / 8 * 8 ))
'

test_expect_success PLAIN_BUILD 'load: host 1 answered every request with a result; host 2 a result or a clean 503' '
	awk -F "\t" "\$5 != 200 || \$8 != \"result\"" load1.all >bad1 &&
	test_cmp /dev/null bad1 &&
	note "host 1: slowest answer $(awk -F "\t" "{ d = \$4 - \$3; if (d > m) m = d } END { printf \"%.2f\", m }" load1.all) s" &&
	awk -F "\t" "\$5 == 503 && \$6 !~ /^[1-9][0-9]*\$/" load2.all >no-retry &&
	test_cmp /dev/null no-retry &&
	awk -F "\t" "\$5 != 503 && (\$5 != 200 || \$8 != \"result\")" load2.all >bad2 &&
	test_cmp /dev/null bad2 &&
	up=$(cat t_up) &&
	test "$(awk -F "\t" "\$5 == 503" load2.all | wc -l)" -gt 0 &&
	test "$(awk -F "\t" -v t=$up "\$5 == 200 && \$3 > t" load2.all | wc -l)" -gt 0
'

test_expect_success PLAIN_BUILD 'load: every acknowledged issue is on all three nodes once, numbered without a gap' '
	{ acked_issues load1 load1.all && acked_issues load2 load2.all; } | sort >acked &&
	note "$(wc -l <acked) issues acknowledged" &&
	test -s acked &&
	for n in 1 2 3; do
		rows $n >rows-$n &&
		comm -23 acked rows-$n >missing-$n &&
		test_cmp /dev/null missing-$n &&
		test -z "$(cut -f1 rows-$n | uniq -d)" &&
		numbered $n || return 1
	done &&
	test_cmp rows-1 rows-2 && test_cmp rows-1 rows-3
'

test_expect_success PLAIN_BUILD 'load: node 2 rejoined by IST and its host serves again' '
	grep "IST received" "$GALERA_DIR/n2/err.log" &&
	wait_for 20 host_reads 2 &&
	on 2 tool_call create_issue "{\"repo\":\"$R\",\"title\":\"while node 2 is back\"}" && forge_ok
'

# The partition: node 2 cut off from the network of the others (an nftables
# rule drops every packet of its sockets; host 2 still reaches it through its
# unix socket).  Nodes 1 and 3 are two of three, the primary component, and
# take writes; node 2 alone must not.
test_expect_success NETCUT 'node 2 cut off (a firewall rule): it refuses writes, nodes 1 and 3 go on, nothing is split' '
	n=$(count 1) &&
	galera_cut 2 &&
	test_when_finished galera_mend &&
	wait_for 60 is_status 2 non-Primary &&
	wait_for 60 is_size 1 2 &&
	on 2 tool_call create_issue "{\"repo\":\"$R\",\"title\":\"split brain\"}" &&
	test_status 503 && test -n "$(header_value Retry-After)" &&
	on 1 tool_call create_issue "{\"repo\":\"$R\",\"title\":\"while node 2 is cut off\"}" &&
	forge_ok &&
	test "$(count 3 "while node 2 is cut off")" = 1 &&
	galera_mend &&
	wait_for 90 all_synced &&
	for k in 1 2 3; do
		test "$(count $k "split brain")" = 0 &&
		test "$(count $k "while node 2 is cut off")" = 1 &&
		test "$(count $k)" = $((n + 1)) || return 1
	done &&
	wait_for 20 host_reads 2
'

galera_stop
test_done
