# faults.sh: helpers of the fault-injection scripts (t80xx).
# Sourced after test-lib.sh.
#
# Licensed under the ISC license, see LICENSE.

# workers: the pids of the FastCGI master's workers, sorted.
workers () {
	pgrep -P "$SERVER_PID" | sort
}

# worker_count_is N: the master runs exactly N workers.
worker_count_is () {
	test "$(workers | wc -l)" = "$1"
}

# now: seconds since the epoch with nanoseconds.
now () {
	date +%s.%N
}

# load_start NAME CONNS BODIES [loadclient options]: runs t/lib/loadclient.pl
# in the background with TOKEN against the endpoint until load_stop NAME.
# Answers go to NAME.log.<conn>.
load_start () {
	local name=$1 conns=$2 bodies=$3
	shift 3
	rm -f "$name.stop" "$name".log.*
	perl "$TEST_DIRECTORY/lib/loadclient.pl" --url "$BASE_URL/mcp" --token "$TOKEN" \
		--bodies "$bodies" --out "$name.log" --conns "$conns" --stop "$name.stop" "$@" &
	LOAD_PID=$!
	test_register_pid "$LOAD_PID"
}

# load_stop NAME: asks the clients to stop and waits for them; NAME.all holds
# every answer, sorted by start time.
load_stop () {
	touch "$1.stop"
	wait "$LOAD_PID"
	sort -t "	" -k3,3n "$1".log.* >"$1.all"
}

# load_summary FILE: "count status kind code" lines, most frequent first.
load_summary () {
	awk -F '\t' '{ print $5, $8, $9 }' "$1" | sort | uniq -c | sort -rn
}

# load_say NAME FILE: the summary of FILE as TAP comments.
load_say () {
	note "$1: $(wc -l <"$2") answers; count status kind code:"
	load_summary "$2" | while read -r line; do note "  $line"; done
}

# load_check_clean FILE: every answer in FILE is a 200 JSON-RPC result that
# is not a tool error, or a 503 with Retry-After, application/json and a
# JSON-RPC error -32603; none took 5 s or more.  Prints the offenders.
load_check_clean () {
	awk -F '\t' '
		$5 == 200 && $8 == "result" && $7 ~ /^application\/json/ { next }
		$5 == 503 && $6 ~ /^[1-9][0-9]*$/ && $7 ~ /^application\/json/ &&
		    $8 == "rpcerror" && $9 == "-32603" { next }
		{ print "unclean answer: " $0; bad = 1 }
		END { exit bad }
	' "$1" &&
	awk -F '\t' '$4 - $3 >= 5 { print "slow answer: " $0; bad = 1 } END { exit bad }' "$1"
}

# acked_issues PREFIX FILE: "title<TAB>number" of every create_issue in
# FILE that was answered with a number, sorted; the bodies titled the issues
# "PREFIX @SEQ@".
acked_issues () {
	awk -F '\t' -v p="$1" '$5 == 200 && $10 ~ /^issue:/ {
		sub(/^issue:/, "", $10); print p " " $1 "-" $2 "\t" $10 }' "$2" | sort
}

# elapsed FROM TO: TO - FROM in seconds, 3 decimals.
elapsed () {
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'
}

# at_most X LIMIT: the number X is not above LIMIT.
at_most () {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'
}

# issue_rows: "title<TAB>number" of every issue of alice/fixture, sorted.
issue_rows () {
	db_sql "SELECT i.title, i.number FROM issues i JOIN repositories r ON r.id = i.repo_id
		JOIN users u ON u.id = r.owner_id WHERE u.login = 'alice' AND r.name = 'fixture'" | sort
}

# check_numbering: the numbers of alice/fixture are 1..N without a gap or a
# double, and the counter is at N + 1.
check_numbering () {
	set -- $(db_sql "SELECT COUNT(*), COUNT(DISTINCT i.number), COALESCE(MIN(i.number), 0),
		COALESCE(MAX(i.number), 0), MAX(r.next_number) FROM repositories r
		JOIN users u ON u.id = r.owner_id LEFT JOIN issues i ON i.repo_id = r.id
		WHERE u.login = 'alice' AND r.name = 'fixture'")
	if test "$1" != "$2" || test "$3" != 1 || test "$4" != "$1" || test "$5" != $(($1 + 1)); then
		echo "numbering broken: count=$1 distinct=$2 min=$3 max=$4 next=$5"
		return 1
	fi
}

# check_titles_once: no repository holds two issues with one title.
check_titles_once () {
	dups=$(db_sql "SELECT title, COUNT(*) FROM issues GROUP BY repo_id, title HAVING COUNT(*) > 1")
	test -z "$dups" || { echo "stored twice: $dups"; return 1; }
}
