#!/bin/bash
# t9100: forgemcp fcgi --listen: pre-forked workers, replacement of dead
# workers, a clean stop on SIGTERM (also one sent while the master starts),
# and SIGUSR1 ignored (libfcgi's own handler took it, and SIGTERM before the
# master's, as a mark that made every later worker fail its accept()).
. ./test-lib.sh

# This script kills workers with SIGKILL on purpose.
TEST_ALLOW_SIGKILL=1

start_all 2
make_user alice
TOKEN=$(make_token alice read)

workers () {
	pgrep -P "$SERVER_PID" | sort
}

test_expect_success 'the master runs exactly 2 workers' '
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2" &&
	workers >before &&
	test "$(wc -l <before)" = 2
'

test_expect_success 'requests are served' '
	for i in 1 2 3 4 5 6; do
		mcp_legacy ping null && test_status 200 || return 1
	done
'

test_expect_success 'a worker killed with SIGKILL is replaced' '
	victim=$(head -n 1 before) &&
	kill -KILL "$victim" &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2 && ! workers | grep -qx $victim" &&
	workers >after &&
	test "$(wc -l <after)" = 2 &&
	test_must_fail grep -qx "$victim" after
'

test_expect_success 'requests keep working after the replacement' '
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mcp_post "$(legacy_body ping null $i)" && test_status 200 && test_json .id $i || return 1
	done
'

test_expect_success 'both workers killed at once are both replaced' '
	workers >before2 &&
	kill -KILL $(cat before2) &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2" &&
	workers >after2 &&
	test_must_fail grep -qxFf before2 after2 &&
	proc_stamps $(cat after2) >after2.stamps &&
	mcp_legacy ping null && test_status 200
'

test_expect_success 'the master logged the death of the killed workers' '
	grep -iE "worker.*(signal|died|killed|exit|replac)" "$SERVER_LOG"
'

# Apache's mod_proxy_fcgi may still be writing the empty record that ends
# stdin when a quick answer is out; a worker that closed the connection
# then made Apache answer 503 (EPIPE on its write).
test_expect_success 'a worker reads stdin to its end before it closes (the end sent after the answer)' '
	legacy_body ping null 7 >late.json &&
	mapfile -t cgienv < <(TOKEN=$TOKEN cgi_env_ late.json) &&
	for origin in http://evil.example.com "$BASE_URL"; do
		perl "$SRC_DIR/t/lib/fcgi-client.pl" --late-eof "$FCGI_SOCK" late.json \
			"${cgienv[@]}" "HTTP_ORIGIN=$origin" >"$RESP.raw" &&
		parse_cgi_output_ "$RESP.raw" || return 1
		case $origin in
		*evil*) test_status 403 ;;
		*) test_status 200 && test_json .id 7 ;;
		esac || return 1
	done
'

test_expect_success 'SIGUSR1 stops neither the master nor a worker, nor a worker started after it' '
	kill -USR1 "$SERVER_PID" $(workers) &&
	for i in 1 2 3 4; do
		mcp_legacy ping null && test_status 200 || return 1
	done &&
	victim=$(workers | head -n 1) &&
	kill -KILL "$victim" &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2 && ! workers | grep -qx $victim" &&
	for i in 1 2 3 4; do
		mcp_legacy ping null && test_status 200 || return 1
	done &&
	test_must_fail grep -F "accept failed" "$SERVER_LOG" &&
	test_must_fail grep -F "exited with status" "$SERVER_LOG"
'

# libfcgi's own accept waits up to 2 s for a unix-socket connection's first
# bytes, and a signal in that wait made it close the connection: nginx then
# answered 502.  A SIGTERM to a worker that has taken a connection must let
# it serve that request first.
test_expect_success 'SIGTERM to the workers while a connection is taken but silent: it is served' '
	legacy_body ping null 8 >quiet.json &&
	mapfile -t cgienv < <(TOKEN=$TOKEN cgi_env_ quiet.json) &&
	workers >term.before || return 1
	perl "$SRC_DIR/t/lib/fcgi-client.pl" --delay 1.5 "$FCGI_SOCK" quiet.json \
		"${cgienv[@]}" >"$RESP.raw" 2>quiet.err &
	client=$!
	test_register_pid "$client"
	sleep 0.5 &&
	kill -TERM $(cat term.before) &&
	wait "$client" || { cat quiet.err; return 1; }
	parse_cgi_output_ "$RESP.raw" && test_status 200 && test_json .id 8 &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2 && ! workers | grep -qxFf term.before" &&
	mcp_legacy ping null && test_status 200
'

test_expect_success 'a kept connection (FCGI_KEEP_CONN): a second request on it is answered' '
	legacy_body ping null 10 >kept.json &&
	mapfile -t cgienv < <(TOKEN=$TOKEN cgi_env_ kept.json) &&
	: >kept.go &&
	perl "$SRC_DIR/t/lib/fcgi-client.pl" --keep kept.go "$FCGI_SOCK" kept.json "${cgienv[@]}" >kept.raw &&
	test "$(grep -c "\"id\":10" kept.raw)" = 2 &&
	test "$(grep -c "^Status: 200" kept.raw)" = 2
'

# A worker waiting on a kept connection for the web server's next request
# is between requests: SIGTERM closes the connection and the worker leaves
# (it used to wait there until the web server sent or hung up).
test_expect_success 'SIGTERM while a kept connection idles: the worker closes it and leaves' '
	rm -f kept.go &&
	workers >kept.before || return 1
	perl "$SRC_DIR/t/lib/fcgi-client.pl" --keep kept.go "$FCGI_SOCK" kept.json \
		"${cgienv[@]}" >kept.raw 2>kept.err &
	client=$!
	test_register_pid "$client"
	wait_for 10 grep -q "^Status: 200" kept.raw &&
	kill -TERM $(cat kept.before) &&
	wait_for 10 eval "! workers | grep -qxFf kept.before" &&
	: >kept.go &&
	{ wait "$client"; test $? = 3; } &&
	grep -x gone kept.err &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 2" &&
	mcp_legacy ping null && test_status 200
'

# tcp_master ADDRS: a master of 1 worker on a TCP port of its own
# (TCP_PORT), FCGI_WEB_SERVER_ADDRS=ADDRS; its pid in TCP_PID.
tcp_master () {
	TCP_PORT=$(free_port) || return 1
	FCGI_WEB_SERVER_ADDRS=$1 "$FORGEMCP" fcgi --listen "127.0.0.1:$TCP_PORT" --workers 1 \
		</dev/null 2>>"$TRASH/tcp.log" &
	TCP_PID=$!
	test_register_pid "$TCP_PID"
	wait_for 20 port_owned_by "$TCP_PORT" "$TCP_PID"
}

test_expect_success 'on TCP: served from an address FCGI_WEB_SERVER_ADDRS names, closed from another' '
	legacy_body ping null 9 >tcp.json &&
	mapfile -t cgienv < <(TOKEN=$TOKEN cgi_env_ tcp.json) &&
	tcp_master "::1, 127.0.0.1" &&
	perl "$SRC_DIR/t/lib/fcgi-client.pl" "127.0.0.1:$TCP_PORT" tcp.json "${cgienv[@]}" >tcp.raw &&
	parse_cgi_output_ tcp.raw && test_status 200 && test_json .id 9 &&
	stop_pid "$TCP_PID" 10 && test "$STOP_STATUS" = 0 &&
	tcp_master "127.0.0.2,10.0.0.1" &&
	test_must_fail perl "$SRC_DIR/t/lib/fcgi-client.pl" "127.0.0.1:$TCP_PORT" tcp.json \
		"${cgienv[@]}" >tcp.raw 2>tcp.err &&
	grep -E "Broken pipe|Connection reset|without FCGI_END_REQUEST" tcp.err &&
	stop_pid "$TCP_PID" 10 && test "$STOP_STATUS" = 0
'

# early_term N: starts a master on its own socket, sends it SIGTERM as soon
# as the socket is there (while it may still be starting), and wants it gone
# with status 0 within 10 s, no worker having failed; N times.
early_term () {
	local i pid code
	for i in $(seq "$1"); do
		rm -f "$TRASH/early.sock"
		"$FORGEMCP" fcgi --listen "$TRASH/early.sock" --workers 2 </dev/null 2>"$TRASH/early.log" &
		pid=$!
		test_register_pid "$pid"
		wait_for 20 test -S "$TRASH/early.sock" || return 1
		kill -TERM "$pid"
		wait_for 10 eval "! proc_alive $pid" || { echo "run $i: the master still runs 10 s after SIGTERM"; cat "$TRASH/early.log"; return 1; }
		wait "$pid"
		code=$?
		test "$code" = 0 || { echo "run $i: exit status $code"; cat "$TRASH/early.log"; return 1; }
		if grep -E "accept failed|exited with status" "$TRASH/early.log"; then return 1; fi
	done
}

test_expect_success 'SIGTERM as soon as the socket is there: the master stops, exit 0, no worker fails' '
	early_term 5
'

test_expect_success 'SIGTERM finishes an in-flight request, then the master exits 0' '
	for p in $(workers); do test_register_pid "$p"; done
	legacy_body ping null 77 >req &&
	len=$(wc -c <req) &&
	half=$((len / 2)) &&
	rm -f slow && mkfifo slow || return 1
	{ head -c "$half" req; sleep 1.5; tail -c +$((half + 1)) req; } >slow &
	writer=$!
	BODY_LEN=$len fcgi_request "$FCGI_SOCK" slow >client.out 2>&1 &
	client=$!
	sleep 0.5
	kill -TERM "$SERVER_PID" || return 1
	wait "$client"
	wait "$writer"
	test_status 200 && test_json .id 77 || return 1
	wait_for 15 eval "! proc_alive $SERVER_PID" || { echo "the master still runs 15 s after SIGTERM"; return 1; }
	wait "$SERVER_PID"
	code=$?
	SERVER_PID=
	test "$code" = 0
'

test_expect_success 'after SIGTERM no worker is left' '
	test -z "$(cat after2.stamps | while read p; do proc_alive "$p" && echo "$p"; done)"
'

test_expect_success 'a restarted master serves again' '
	start_fcgi_only 3 &&
	wait_for 10 eval "test \"\$(workers | wc -l)\" = 3" &&
	mcp_legacy ping null && test_status 200
'

test_expect_success 'SIGTERM on an idle master exits 0 promptly' '
	pids=$(proc_stamps $(workers)) &&
	for p in $pids; do test_register_pid "${p%%:*}"; done &&
	stop_pid "$SERVER_PID" 10 &&
	test "$STOP_STATUS" = 0 &&
	SERVER_PID= &&
	for p in $pids; do test_must_fail proc_alive "$p" || return 1; done
'

test_done
