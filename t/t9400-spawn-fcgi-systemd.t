#!/bin/bash
# t9400: the systemd deployment: etc/forgemcp.socket, etc/forgemcp.service and
# etc/forgemcp-worker.service
# pass `systemd-analyze verify`, and socket activation with
# systemd-socket-activate (Debian's systemd package) hands the listening
# socket to `forgemcp fcgi` (LISTEN_FDS, fd 3) behind nginx.  spawn-fcgi with
# several forks (-F 2) behind nginx covers the other inherited-socket path
# (t9000 runs spawn-fcgi with one process and no nginx).
. ./test-lib.sh

start_db
migrate_db
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# --- systemd-analyze verify -----------------------------------------------------

if ! command -v systemd-analyze >/dev/null; then
	say "skipping the unit checks: systemd-analyze is not installed (Debian package systemd)"
else
	# The installed paths, rewritten to the binary under test.
	mkdir -p units
	sed "s|/usr/local/bin/forgemcp|$FORGEMCP|g" "$SRC_DIR/etc/forgemcp.service" >units/forgemcp.service
	cp "$SRC_DIR/etc/forgemcp.socket" units/forgemcp.socket
	sed "s|/usr/local/bin/forgemcp|$FORGEMCP|g" "$SRC_DIR/etc/forgemcp-worker.service" >units/forgemcp-worker.service
	# A trivial unit tells whether verify can run in this environment at all.
	printf '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n' >probe.service
	if systemd-analyze verify ./probe.service >/dev/null 2>verify-probe.err; then
		test_expect_success 'systemd-analyze verify accepts the socket and service units' '
			systemd-analyze verify units/forgemcp.socket units/forgemcp.service >verify.out 2>&1
			code=$?
			cat verify.out
			test "$code" = 0 &&
			test_must_fail grep -iE "unknown|invalid|ignoring|not executable" verify.out
		'
		test_expect_success 'systemd-analyze verify catches a broken ExecStart (the check can fail)' '
			mkdir -p bad &&
			sed "s|^ExecStart=.*|ExecStart=$TRASH/no-such-forgemcp fcgi|" units/forgemcp.service >bad/forgemcp.service &&
			cp units/forgemcp.socket bad/ &&
			test_must_fail systemd-analyze verify bad/forgemcp.socket bad/forgemcp.service
		'
		test_expect_success 'systemd-analyze verify accepts the merge worker unit' '
			systemd-analyze verify units/forgemcp-worker.service >verify-worker.out 2>&1
			code=$?
			cat verify-worker.out
			test "$code" = 0 &&
			test_must_fail grep -iE "unknown|invalid|ignoring|not executable" verify-worker.out &&
			grep -x "ExecStart=$FORGEMCP --config /etc/forgemcp.conf worker --interval 1" units/forgemcp-worker.service
		'
		test_expect_success 'systemd-analyze verify catches a broken worker ExecStart' '
			mkdir -p bad &&
			sed "s|^ExecStart=.*|ExecStart=$TRASH/no-such-forgemcp worker|" units/forgemcp-worker.service >bad/forgemcp-worker.service &&
			test_must_fail systemd-analyze verify bad/forgemcp-worker.service
		'
	else
		say "skipping the unit checks: systemd-analyze verify cannot run here: $(head -n 1 verify-probe.err)"
	fi
fi

# --- systemd-socket-activate behind nginx -----------------------------------------

SSA=$(command -v systemd-socket-activate || echo /lib/systemd/systemd-socket-activate)
if test -x "$SSA"; then
	ACT_SOCK=$TRASH/activate.sock
	"$SSA" -l "$ACT_SOCK" -E "FORGEMCP_CONFIG=$CONFIG" -E "ASAN_OPTIONS=$ASAN_OPTIONS" \
		-E "UBSAN_OPTIONS=$UBSAN_OPTIONS" -E "LSAN_OPTIONS=$LSAN_OPTIONS" \
		"$FORGEMCP" fcgi --workers 2 </dev/null >/dev/null 2>>"$SERVER_LOG" &
	ACT_PID=$!
	test_register_pid $ACT_PID

	test_expect_success 'systemd-socket-activate holds the socket before forgemcp runs' '
		wait_for 10 test -S "$ACT_SOCK" &&
		test -z "$(pgrep -P $ACT_PID)"
	'

	start_nginx "$ACT_SOCK"

	test_expect_success 'the first request starts forgemcp on the inherited socket' '
		mcp_modern tools/list &&
		test_status 200 &&
		test_jq ".result.tools | length >= 2" &&
		test_common_headers &&
		tr "\0" " " </proc/$ACT_PID/cmdline | grep "^$FORGEMCP fcgi --workers 2" &&
		wait_for 10 eval "test \"\$(pgrep -P $ACT_PID | wc -l)\" = 2"
	'

	test_expect_success 'socket activation: the token and the workers serve many requests' '
		for i in 1 2 3 4 5 6 7 8; do
			mcp_post "$(legacy_body ping null $i)" && test_status 200 && test_json .id $i || return 1
		done &&
		tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" &&
		test_status 200 &&
		tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
		mcp_legacy ping null --no-auth &&
		test_status 401 &&
		test "$(pgrep -P $ACT_PID | wc -l)" = 2
	'

	test_expect_success 'socket activation: SIGTERM stops the master and its workers' '
		workers=$(proc_stamps $(pgrep -P $ACT_PID)) &&
		for p in $workers; do test_register_pid "${p%%:*}"; done &&
		stop_pid "$ACT_PID" 15 &&
		test "$STOP_STATUS" = 0 &&
		for p in $workers; do test_must_fail proc_alive "$p" || return 1; done
	'
	stop_nginx
else
	say "skipping socket activation: systemd-socket-activate is not installed (Debian package systemd)"
fi

# --- spawn-fcgi -F 2 behind nginx ----------------------------------------------------

if command -v spawn-fcgi >/dev/null; then
	SPAWN_SOCK=$TRASH/spawn.sock
	test_expect_success 'spawn-fcgi -F 2 starts two forgemcp processes without arguments' '
		spawn-fcgi -s "$SPAWN_SOCK" -F 2 -P "$TRASH/spawn.pid" -- "$FORGEMCP" \
			>spawn.out 2>>"$SERVER_LOG" </dev/null &&
		cat spawn.out &&
		wait_for 10 test -S "$SPAWN_SOCK" &&
		grep -oE "[0-9]+" "$TRASH/spawn.pid" >spawn.pids &&
		for p in $(cat spawn.pids); do test_register_pid "$p"; done &&
		test "$(wc -l <spawn.pids)" = 2
	'
	start_nginx "$SPAWN_SOCK"
	test_expect_success 'spawn-fcgi: requests through nginx' '
		for i in 1 2 3 4 5 6; do
			mcp_post "$(legacy_body ping null $i)" && test_status 200 && test_json .id $i || return 1
		done &&
		mcp_modern tools/list &&
		test_status 200 &&
		test_jq ".result.tools | length >= 2"
	'
	test_expect_success 'spawn-fcgi: each process stops on SIGTERM' '
		for p in $(cat spawn.pids); do stop_pid "$p" 10 || return 1; done
	'
else
	say "skipping spawn-fcgi: not installed"
fi

test_done
