#!/bin/bash
# t8030: full storage.  The rate limiter's MEMORY table full before
# rate_limit_buckets is reached: an account takes a network's bucket and is
# held to its limit, a network without one is refused, never served, the
# log says why, and a network gets a bucket once there is room.  MariaDB's datadir on a full filesystem (root only: a
# small tmpfs): a write gets an in-band error saying the database is out of
# space, nothing is half written (no number consumed, no comment stored or
# counted twice), reads go on, and writes work again once space is freed.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/faults.sh"

start_all 2
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
R=alice/fixture
FULL_MSG="the forge's database is out of space: nothing was saved; try again later"

# A limit small enough to reach: 5 requests per account per hour.
config_set rate_limit 5
config_set rate_window 3600
restart_server 2

test_expect_success 'set-up: issue #1, two workers' '
	tool_call create_issue "{\"repo\":\"$R\",\"title\":\"the first\"}" &&
	test_status 200 && test_text_jq ".number == 1" &&
	wait_for 10 worker_count_is 2 &&
	workers >workers.before
'

# ---- the rate-limit table is full ----------------------------------------

test_expect_success 'rate_limits, a MEMORY table, is made small and filled up' '
	db_sql "SET SESSION max_heap_table_size = 16384; ALTER TABLE rate_limits ENGINE=MEMORY" &&
	# buckets of networks in a window far ahead: none has ended
	for i in $(seq 1 40); do
		db_sql "INSERT INTO rate_limits (kind, principal, window_start, n, touched)
			SELECT \"a\", CONCAT(\"filler-$i-\", seq), 4000000000, 1, seq
			FROM seq_1_to_100" 2>insert.err ||
		break
	done &&
	grep "The table .rate_limits. is full" insert.err &&
	note "rate_limits holds $(db_sql "SELECT COUNT(*) FROM rate_limits") rows and is full"
'

test_expect_success 'a new account takes a network'"'"'s bucket and is held to its limit' '
	make_user zed &&
	ZED=$(make_token zed read,write) &&
	for i in 1 2 3 4 5; do
		tool_call list_issues "{\"repo\":\"$R\"}" --token "$ZED" &&
		test_status 200 && test_jq ".result.isError != true" || return 1
	done &&
	tool_call list_issues "{\"repo\":\"$R\"}" --token "$ZED" &&
	test_rpc_error 429 -32600 1 &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = \"u\" AND principal = (SELECT id FROM users WHERE login = \"zed\")")" = 5
'

legacy_body ping null 7 >ping.json

test_expect_success 'without a token, from a network with no bucket: 429, not served' '
	TOKEN= cgi_request ping.json REMOTE_ADDR=203.0.113.5 &&
	test_rpc_error 429 -32600 7 &&
	test_jq ".error.message | test(\"every rate limit bucket is in use\")" &&
	test_header Retry-After "^[0-9]+$"
'

test_expect_success 'the log says why' '
	grep "The table .rate_limits. is full" "$SERVER_LOG" &&
	grep "no rate limit bucket is free" "$SERVER_LOG" "$TRASH/cgi.stderr" &&
	test_must_fail grep "rate limit not applied" "$SERVER_LOG"
'

test_expect_success 'room again: a network without a bucket gets one; the account stays held' '
	db_sql "DELETE FROM rate_limits WHERE principal LIKE \"filler-%\"" &&
	TOKEN= cgi_request ping.json REMOTE_ADDR=203.0.113.5 &&
	test_rpc_error 401 -32001 7 &&
	test "$(db_sql "SELECT n FROM rate_limits WHERE kind = \"a\" AND principal = \"203.0.113.0/24\"")" = 1 &&
	mcp_legacy tools/list null --token "$ZED" &&
	test_rpc_error 429 -32600 1
'

test_expect_success 'no worker died while the table was full' '
	workers >workers.now &&
	test_cmp workers.before workers.now
'

# The writes below need more than 5 requests.
config_set rate_limit 1000000
restart_server 2
wait_for 10 worker_count_is 2
workers >workers.before

# ---- the datadir on a full filesystem ------------------------------------

DBFS_MOUNTED=
# umount_dbfs: stops MariaDB and unmounts the small filesystem.
umount_dbfs () {
	test -n "$DBFS_MOUNTED" || return 0
	stop_db
	umount "$TRASH/db" && DBFS_MOUNTED=
}
trap 'code=$?; umount_dbfs >/dev/null 2>&1; (exit $code); test_exit_' EXIT

# Issue and comment bodies stay below half a page (6,000 bytes), stored in
# the row: MariaDB 10.11 aborts ("[FATAL] InnoDB: Error (Out of disk space)
# in rollback") when it cannot roll back a row whose long body went to
# overflow pages on a full disk -- which 60,000-byte issue bodies did, once
# the schema grew and the disk happened to fill inside such an insert.
perl -e 'print "y" x 6000' >medium

# write_until_full TOOL ARGS_JSON OUT BODYFILE: up to 600 writes with that
# body and a title from the loop (unless ARGS_JSON names a "number"); stops
# at the first failure (its answer in OUT.failed.*).  OUT.ok gets
# "title<TAB>number" (issues) or "id" (comments) of each success.  The
# keep-alive client checks each answer and keeps its text (OUT.texts, one
# a line); one jq run reads the numbers or ids of them all at the end.
write_until_full () {
	local i a b answer text
	: >"$3.ok"
	: >"$3.texts"
	IFS= read -r -d "" b <"$4"
	json_str b "$b"
	for ((i = 1; i <= 600; i++)); do
		a=${2%\}},\"body\":$b
		case $2 in *\"number\"*) ;; *) a="$a,\"title\":\"full $i\"" ;; esac
		tool_call "$1" "$a}" || return 1
		test_status 200 || return 1
		answer=
		printf 'TEXT\tok\t%s\t%s\n' "$RESP.body" "$3.text" >&"${MCP_CLIENT[1]}" &&
		read -r answer <&"${MCP_CLIENT[0]}"
		case $answer in
		ok|fail) ;;
		*)
			# not a plain text: jq decides
			if jq -e '.result.isError == true' "$RESP.body" >/dev/null; then
				answer=fail
			else
				jq -r '.result.content[0].text' "$RESP.body" >"$3.text" || return 1
			fi ;;
		esac
		if test "$answer" = fail; then
			for f in status headers body; do cp "$RESP.$f" "$3.failed.$f"; done
			echo "full $i" >"$3.failed-title"
			break
		fi
		IFS= read -r -d "" text <"$3.text"
		printf '%s' "$text" >>"$3.texts"
	done
	if test $i -gt 600; then
		echo "600 writes and the disk is still not full"
		return 1
	fi
	case $1 in
	create_issue)
		jq -r .number "$3.texts" >"$3.numbers" &&
		i=0 &&
		while read -r n; do
			i=$((i + 1))
			printf 'full %s\t%s\n' "$i" "$n"
		done <"$3.numbers" >"$3.ok" ;;
	*) jq -r .id "$3.texts" >"$3.ok" ;;
	esac
}

if ! is_root; then
	say "skipped: MariaDB on a full filesystem -- mounting a small tmpfs needs root"
else
	test_expect_success 'MariaDB moves to a small filesystem and it is filled up' '
		stop_db_only &&
		mv "$TRASH/db" "$TRASH/db.disk" && mkdir "$TRASH/db" &&
		# the datadir and 32 MB (ibtmp1 is made again at start-up, 12 MB)
		size=$(( $(du -sm "$TRASH/db.disk" | cut -f1) + 32 )) &&
		note "the datadir filesystem: $size MB" &&
		mount -t tmpfs -o size=${size}m,mode=0755 forgemcp-test "$TRASH/db" &&
		DBFS_MOUNTED=1 &&
		cp -a "$TRASH/db.disk/." "$TRASH/db/" &&
		start_db_again &&
		avail=$(df --output=avail -B1 "$TRASH/db" | tail -n 1) &&
		dd if=/dev/zero of="$TRASH/db/filler" bs=64k count=$(( (avail - 512 * 1024) / 65536 )) 2>/dev/null &&
		note "free on the datadir filesystem: $(df --output=avail -B1 "$TRASH/db" | tail -n 1) bytes"
	'

	test_expect_success 'create_issue on the full disk: an in-band error that says so' '
		write_until_full create_issue "{\"repo\":\"$R\"}" issues medium &&
		note "$(wc -l <issues.ok) issues stored before the disk was full" &&
		RESP=$TRASH/issues.failed &&
		test_jq ".result.isError == true" &&
		test_json ".result.content[0].text" "\"$FULL_MSG\"" &&
		grep "The table .issues. is full" "$SERVER_LOG"
	'

	test_expect_success 'nothing half written: no number consumed, the failed title absent' '
		issue_rows >rows &&
		test_must_fail grep "^$(cat issues.failed-title)	" rows &&
		sort issues.ok | comm -23 - rows >missing &&
		test_cmp /dev/null missing &&
		check_numbering
	'

	test_expect_success 'add_issue_comment on the full disk: an in-band error, no comment stored' '
		before=$(db_sql "SELECT COUNT(*) FROM comments") &&
		write_until_full add_issue_comment "{\"repo\":\"$R\",\"number\":1}" comments medium &&
		RESP=$TRASH/comments.failed &&
		test_json ".result.content[0].text" "\"$FULL_MSG\"" &&
		after=$(db_sql "SELECT COUNT(*) FROM comments") &&
		note "$(wc -l <comments.ok) comments stored before the disk was full; $before -> $after rows" &&
		test "$after" = $((before + $(wc -l <comments.ok))) &&
		for id in $(cat comments.ok); do
			test "$(db_sql "SELECT COUNT(*) FROM comments WHERE id = $id")" = 1 || return 1
		done
	'

	test_expect_success 'reads go on while the disk is full' '
		tool_call get_issue "{\"repo\":\"$R\",\"number\":1}" &&
		test_status 200 && test_text_jq ".number == 1" &&
		tool_call list_issues "{\"repo\":\"$R\"}" && test_status 200 &&
		test_jq ".result.isError != true"
	'

	test_expect_success 'space freed: the next issue takes the next number' '
		rm "$TRASH/db/filler" &&
		n=$(db_sql "SELECT MAX(number) FROM issues i JOIN repositories r ON r.id = i.repo_id WHERE r.name = \"fixture\"") &&
		tool_call create_issue "{\"repo\":\"$R\",\"title\":\"after the disk was full\"}" &&
		test_status 200 &&
		test_text_jq ".number == $((n + 1))" &&
		check_numbering
	'

	test_expect_success 'MariaDB back on disk' '
		umount_dbfs &&
		rmdir "$TRASH/db" && mv "$TRASH/db.disk" "$TRASH/db"
	'
fi

test_expect_success 'no worker died, no 5xx' '
	workers >workers.now &&
	test_cmp workers.before workers.now &&
	grep -E "status=5[0-9]{2}" "$SERVER_LOG" >bad5xx
	test_cmp /dev/null bad5xx
'

test_done
