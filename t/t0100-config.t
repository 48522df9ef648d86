#!/bin/bash
# t0100: the configuration file, environment overrides and start-up errors.
. ./test-lib.sh

start_db
migrate_db

# bad_config 'line': a copy of the working configuration plus one line.
# An existing line for the same key is dropped first.
bad_config () {
	grep -v "^${1%%[ =]*} *=" "$CONFIG" >"$TRASH/bad.conf"
	printf '%s\n' "$1" >>"$TRASH/bad.conf"
}

test_expect_success 'the test configuration works (comments and blank lines allowed)' '
	printf "\n# a comment\n   # an indented comment\n\n" >>"$CONFIG" &&
	fm user list >out 2>err
'

test_expect_success '--config FILE is used' '
	cp "$CONFIG" "$TRASH/other.conf" &&
	env -u FORGEMCP_CONFIG "$FORGEMCP" --config "$TRASH/other.conf" user list
'

test_expect_success 'a missing named config file is an error naming it' '
	test_must_fail fm --config "$TRASH/no-such.conf" user list 2>err &&
	test_one_line_failure err &&
	grep "no-such.conf" err
'

test_expect_success 'a missing file named by FORGEMCP_CONFIG is an error too' '
	test_must_fail env FORGEMCP_CONFIG="$TRASH/gone.conf" "$FORGEMCP" user list 2>err &&
	test_one_line_failure err &&
	grep "gone.conf" err
'

for line in 'colour = blue' 'max_body = lots' 'max_body = -5' 'db_port = 70000' \
	'db_port = 33x' 'log_level = loud' 'allowed_origins = http://example.com/path'; do
	key=${line%% *}
	test_expect_success "bad line '$line' stops start-up naming $key" "
		bad_config '$line' &&
		test_must_fail fm --config \"\$TRASH/bad.conf\" user list >out 2>err &&
		test_one_line_failure err &&
		grep -F '$key' err &&
		test_must_fail test -s out
	"
done

test_expect_success 'a line without = is an error' '
	bad_config "just some words" &&
	test_must_fail fm --config "$TRASH/bad.conf" user list 2>err &&
	test_one_line_failure err
'

test_expect_success 'the FastCGI server refuses to start on a bad key, naming it' '
	bad_config "frobnication = yes" &&
	test_must_fail fm --config "$TRASH/bad.conf" fcgi --listen "$TRASH/bad.sock" --workers 1 2>err &&
	grep -F frobnication err &&
	test_must_fail test -S "$TRASH/bad.sock"
'

test_expect_success 'an environment variable overrides the file' '
	bad_config "db_password = wrong-password" &&
	test_must_fail fm --config "$TRASH/bad.conf" user list 2>err &&
	test_one_line_failure err &&
	FORGEMCP_DB_PASSWORD=$DB_PASSWORD fm --config "$TRASH/bad.conf" user list
'

test_expect_success 'a database failure message does not leak the password' '
	bad_config "db_password = s3cr3t-value" &&
	test_must_fail fm --config "$TRASH/bad.conf" user list 2>err &&
	test_must_fail grep s3cr3t-value err
'

test_expect_success 'a bad value in the environment is named like one in the file' '
	test_must_fail env FORGEMCP_MAX_BODY=huge "$FORGEMCP" user list 2>err &&
	test_one_line_failure err &&
	grep -i max_body err
'

test_expect_success 'FORGEMCP_REPO_ROOT moves where repositories are created' '
	mkdir -p "$TRASH/other-root" &&
	fm user add envuser >/dev/null &&
	FORGEMCP_REPO_ROOT=$TRASH/other-root fm repo create envuser/moved >/dev/null &&
	test -d "$TRASH/other-root/envuser/moved.git" &&
	test_must_fail test -d "$TRASH/repos/envuser/moved.git"
'

test_expect_success 'fcgi --listen in a directory that does not exist: forgemcp says so, exit 1' '
	exits_1 fm fcgi --listen "$TRASH/no-run-dir/fcgi.sock" --workers 1 &&
	echo "forgemcp: cannot listen on $TRASH/no-run-dir/fcgi.sock: No such file or directory (create the directory $TRASH/no-run-dir, writable by the user forgemcp runs as)" >expect &&
	test_cmp expect err
'

test_expect_success 'fcgi --listen on a TCP address it cannot bind: forgemcp says so, exit 1' '
	exits_1 fm fcgi --listen "no-such-host.invalid:9000" --workers 1 &&
	grep "^forgemcp: cannot listen on no-such-host.invalid:9000: ." err
'

# A server whose database refuses its login: it serves (503) and says in its
# log that the cause is its configuration, not an outage; the answer does not
# promise that a retry will help (no Retry-After, no "retry shortly").
test_expect_success 'a refused database login at start is logged as a configuration error; requests get 503 without Retry-After' '
	rm -f "$TRASH/refused.sock" || return 1
	FORGEMCP_DB_PASSWORD=wrong-password "$FORGEMCP" fcgi --listen "$TRASH/refused.sock" \
		--workers 1 </dev/null 2>"$TRASH/refused.log" &
	pid=$! &&
	test_register_pid "$pid" &&
	wait_for 20 test -S "$TRASH/refused.sock" &&
	legacy_body tools/list >body &&
	fcgi_request "$TRASH/refused.sock" body &&
	test_rpc_error 503 -32603 1 &&
	test_jq ".error.message | test(\"database refuses the server.s login, a configuration error that retrying will not mend; tell the forge.s operator\$\")" &&
	test_must_fail grep -F "retry shortly" "$RESP.body" &&
	test_must_fail grep -i "^Retry-After:" "$RESP.headers" &&
	stop_pid "$pid" 15 && test "$STOP_STATUS" = 0 &&
	cat "$TRASH/refused.log" &&
	grep -F "error: database login refused at start: cannot connect to the database through db_socket $DB_SOCK: Access denied for user '\''$DB_USER'\''@'\''localhost'\'' (using password: YES) (check db_user and db_password): a configuration error, not an outage, that will not pass by itself; answering 503 until it is fixed" "$TRASH/refused.log" &&
	grep "error: database login refused (1045), a configuration error that will not pass by itself: cannot connect to the database through db_socket" "$TRASH/refused.log" &&
	test_must_fail grep -e "until it is back" -e "database unavailable" "$TRASH/refused.log" &&
	test_must_fail grep wrong-password "$TRASH/refused.log"
'

test_expect_success 'a database that is away at start is logged as an outage, naming db_socket' '
	rm -f "$TRASH/away.sock" || return 1
	FORGEMCP_DB_SOCKET=$TRASH/no-db.sock "$FORGEMCP" fcgi --listen "$TRASH/away.sock" \
		--workers 1 </dev/null 2>"$TRASH/away.log" &
	pid=$! &&
	test_register_pid "$pid" &&
	wait_for 20 test -S "$TRASH/away.sock" &&
	stop_pid "$pid" 15 && test "$STOP_STATUS" = 0 &&
	cat "$TRASH/away.log" &&
	grep -F "warn: database unavailable at start (cannot connect to the database through db_socket $TRASH/no-db.sock: Can'\''t connect to local server through socket" "$TRASH/away.log" &&
	grep -F "(check db_socket, and that MariaDB is running)); serving 503 until it is back" "$TRASH/away.log" &&
	test_must_fail grep "configuration error" "$TRASH/away.log"
'

# That the sample shows exactly the keys of src/conf.c's table is checked
# by t0510-docs.t, which reads the table itself.
test_expect_success 'the sample configuration (all comments) is accepted' '
	fm --config "$SRC_DIR/etc/forgemcp.conf.sample" --help >/dev/null &&
	cp "$SRC_DIR/etc/forgemcp.conf.sample" "$TRASH/sample.conf" &&
	cat "$CONFIG" >>"$TRASH/sample.conf" &&
	fm --config "$TRASH/sample.conf" user list
'

test_done
