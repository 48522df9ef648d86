# test-lib.sh: the shared library of the forgemcp TAP test scripts.
#
# A script sources this file, calls the start_* functions it needs, runs
# test_expect_success blocks and ends with test_done.  Everything it starts
# (a throwaway mariadbd, the FastCGI server, nginx, helper daemons) lives in
# the script's own trash directory and is stopped when the script exits.
#
# Environment:
#   FORGEMCP_BUILD   absolute build directory holding the forgemcp binary
#                    (default: the source directory)
#   FORGEMCP_TRASH   where the trash directories go (default: t/trash, or
#                    $FORGEMCP_BUILD/t/trash when t/ is not writable)
#   TEST_VERBOSE=1   show the output of every test, not only failing ones
#   FORGEMCP_VALGRIND=1  run the FastCGI server under valgrind memcheck; any
#                    error valgrind reports fails the script
#
# Every script leaves, under $FORGEMCP_TRASH, the tokens it made
# (.tokens/<script>) and a copy of its logs and responses (.logs/<script>/),
# even when its trash directory is removed; t9990-token-leaks.t, which runs
# last, looks for the tokens in them.
#
# Vocabulary (after git's t/):
#   test_expect_success [PREREQ] 'title' 'commands'
#   test_expect_failure [PREREQ] 'title' 'commands'   (known breakage, reported as TODO)
#   test_have_prereq PREREQ                  (a test without PREREQ is skipped)
#   test_when_finished 'commands'            (cleanup after the current test)
#   test_done
#   say, skip_all, test_skip_unless
#
# Licensed under the ISC license, see LICENSE.

# ---------------------------------------------------------------------------
# Paths and a clean environment

TEST_NAME=$(basename "$0" .t)
TEST_DIRECTORY=$(cd "$(dirname "$0")" && pwd)
SRC_DIR=$(cd "$TEST_DIRECTORY/.." && pwd)
FORGEMCP_BUILD=${FORGEMCP_BUILD:-$SRC_DIR}
FORGEMCP=$FORGEMCP_BUILD/forgemcp
export FORGEMCP_BUILD

if test -z "${FORGEMCP_TRASH:-}"; then
	if mkdir -p "$TEST_DIRECTORY/trash" 2>/dev/null &&
	   test -w "$TEST_DIRECTORY/trash"; then
		FORGEMCP_TRASH=$TEST_DIRECTORY/trash
	else
		FORGEMCP_TRASH=$FORGEMCP_BUILD/t/trash
	fi
fi
mkdir -p "$FORGEMCP_TRASH" || { echo "1..0 # SKIP cannot create $FORGEMCP_TRASH"; exit 0; }
FORGEMCP_TRASH=$(cd "$FORGEMCP_TRASH" && pwd)
TRASH=$FORGEMCP_TRASH/$TEST_NAME
TEMPLATE=$FORGEMCP_TRASH/.template
# Suite-wide records read by t9990-token-leaks.t: the tokens each script
# made (one file per script) and a copy of each script's logs and responses.
TOKENS_DIR=$FORGEMCP_TRASH/.tokens
LOGS_DIR=$FORGEMCP_TRASH/.logs

# FORGEMCP_VALGRIND=1 runs the FastCGI server under valgrind memcheck (see
# start_fcgi_only); like every other FORGEMCP_* variable it is then unset.
TEST_VALGRIND=${FORGEMCP_VALGRIND:-}
# Nothing from the caller's environment may configure the server under test.
for v in $(env | sed -n 's/^\(FORGEMCP_[A-Z_]*\)=.*/\1/p'); do
	case $v in
	FORGEMCP_BUILD|FORGEMCP_TRASH) ;;
	*) unset "$v" ;;
	esac
done
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_CONFIG_PARAMETERS
LC_ALL=C
export LC_ALL

rm -rf "$TRASH"
mkdir -p "$TRASH/asan" "$TRASH/home" "$TOKENS_DIR" || exit 1
: >"$TOKENS_DIR/$TEST_NAME"
HOME=$TRASH/home
export HOME
GIT_CONFIG_NOSYSTEM=1
export GIT_CONFIG_NOSYSTEM

# Sanitizer reports go to files the end-of-script check reads.
ASAN_OPTIONS="log_path=$TRASH/asan/asan:detect_leaks=1:abort_on_error=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="print_stacktrace=1:log_path=$TRASH/asan/ubsan${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
LSAN_OPTIONS="log_path=$TRASH/asan/lsan${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS

SERVER_LOG=$TRASH/server.log
: >"$SERVER_LOG"
# Every response the request helpers receive, appended (see collect_logs_).
RESPONSES_LOG=$TRASH/responses.log

# ---------------------------------------------------------------------------
# TAP core

test_count=0
test_failed=0
test_fixed=0
test_broken=0
test_cleanup=
TEST_OUT=$TRASH/test.out

say () {
	printf '# %s\n' "$*"
}

# Prints its arguments on stderr; prove shows stderr even without -v.
say_err () {
	printf '# %s\n' "$@" >&2
}

skip_all () {
	printf '1..0 # SKIP %s\n' "$*"
	test_skip_all=1
	exit 0
}

# test_skip_unless CMD...: skips the whole script unless the command succeeds.
test_skip_unless () {
	"$@" >/dev/null 2>&1 || skip_all "needs: $*"
}

# Prerequisites a test names before its title: without them it is reported
# as skipped, with the reason, and not run.  Each is a function
# test_prereq_NAME_ that succeeds when NAME holds (asked once per script)
# and a TEST_PREREQ_WHY_NAME saying what is missing.

# DEBUG_HOOKS: the binary has the fault hooks of configure --enable-debug.
test_prereq_DEBUG_HOOKS_ () {
	"$FORGEMCP" --version 2>/dev/null | grep -qx 'debug hooks: yes'
}
TEST_PREREQ_WHY_DEBUG_HOOKS="forgemcp was built without --enable-debug: no fault hooks"

# test_have_prereq NAME: whether the prerequisite NAME holds.
test_have_prereq () {
	local have
	type "test_prereq_$1_" >/dev/null 2>&1 ||
		{ echo "bug in the test script: unknown prerequisite '$1'" >&2; exit 1; }
	eval "have=\${TEST_PREREQ_HAVE_$1:-}"
	if test -z "$have"; then
		if "test_prereq_$1_"; then have=yes; else have=no; fi
		eval "TEST_PREREQ_HAVE_$1=\$have"
	fi
	test "$have" = yes
}

# test_skip_missing_ PREREQ TITLE: when PREREQ does not hold, reports TITLE
# as a skipped test and succeeds; fails when the test is to run.
test_skip_missing_ () {
	local why
	test_have_prereq "$1" && return 1
	test_count=$((test_count + 1))
	eval "why=\${TEST_PREREQ_WHY_$1}"
	echo "ok $test_count - $2 # skip $why"
	return 0
}

test_when_finished () {
	test_cleanup="{ $*
	} && (exit \"\$eval_ret\"); eval_ret=\$?; $test_cleanup"
}

# A function of its own, so that `return` in a test body ends only the body.
test_eval_ () {
	eval "$1"
}

test_run_ () {
	test_cleanup=:
	eval_ret=0
	test_eval_ "$1" >"$TEST_OUT" 2>&1
	eval_ret=$?
	eval "$test_cleanup" >>"$TEST_OUT" 2>&1
	test_cleanup=
	return $eval_ret
}

test_show_failure_ () {
	say_err "failed test: $1" "commands:"
	printf '%s\n' "$2" | sed 's/^/#	/' >&2
	say_err "output:"
	sed 's/^/#	/' "$TEST_OUT" | tail -n 60 >&2
}

test_expect_success () {
	if test "$#" = 3; then
		test_skip_missing_ "$1" "$2" && return 0
		shift
	fi
	test "$#" = 2 || { echo "bug in the test script: test_expect_success needs [PREREQ] TITLE COMMANDS" >&2; exit 1; }
	test_count=$((test_count + 1))
	if test_run_ "$2"; then
		echo "ok $test_count - $1"
		test "${TEST_VERBOSE:-}" = 1 && sed 's/^/#	/' "$TEST_OUT"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		test_show_failure_ "$1" "$2"
	fi
	return 0
}

test_expect_failure () {
	if test "$#" = 3; then
		test_skip_missing_ "$1" "$2" && return 0
		shift
	fi
	test "$#" = 2 || { echo "bug in the test script: test_expect_failure needs [PREREQ] TITLE COMMANDS" >&2; exit 1; }
	test_count=$((test_count + 1))
	if test_run_ "$2"; then
		test_fixed=$((test_fixed + 1))
		echo "ok $test_count - $1 # TODO known breakage vanished"
	else
		test_broken=$((test_broken + 1))
		echo "not ok $test_count - $1 # TODO known breakage"
	fi
	return 0
}

# Ends the script: stops everything it started, checks the logs for
# sanitizer reports and crashed workers, prints the plan and exits.
test_done () {
	stop_all
	test_expect_success 'no sanitizer report and no crashed process' '
		check_crash_logs
	'
	echo "1..$test_count"
	if test "$test_failed" -gt 0; then
		say_err "failed $test_failed of $test_count"
		exit 1
	fi
	test_done_called=1
	collect_logs_
	# keep the trash of a failing script; remove a passing one unless asked
	if test -z "${TEST_KEEP_TRASH:-}"; then
		rm -rf "$TRASH"
	fi
	exit 0
}

# Lines in the server log or sanitizer logs that mean a crash.  A script
# that kills workers on purpose sets TEST_ALLOW_SIGKILL=1 to accept
# reports of workers killed by SIGKILL.
check_crash_logs () {
	local status=0 f bad
	for f in "$SERVER_LOG" "$TRASH"/asan/* "$TRASH"/*.stderr; do
		test -f "$f" || continue
		if grep -E 'ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: [A-Za-z]*Sanitizer' "$f" >/dev/null; then
			echo "sanitizer report in $f:"
			head -n 60 "$f"
			status=1
		fi
		bad=$(grep -iE '(died|killed|terminated|exited).*(signal|SIG[A-Z]+)|(signal|SIG[A-Z]+).*(died|killed|terminated)|segmentation fault|core dumped' "$f" |
		      { if test "${TEST_ALLOW_SIGKILL:-}" = 1; then grep -vE 'signal 9([^0-9]|$)|SIGKILL|Killed'; else cat; fi; })
		if test -n "$bad"; then
			echo "crash reported in $f:"
			printf '%s\n' "$bad" | head -n 20
			status=1
		fi
	done
	for f in "$TRASH"/valgrind.*.log; do
		test -f "$f" || continue
		if grep -E 'ERROR SUMMARY: [1-9]|Process terminating with default action' "$f" >/dev/null; then
			echo "valgrind report in $f:"
			head -n 80 "$f"
			status=1
		fi
	done
	return $status
}

# collect_logs_: copies the script's logs (server, nginx, Apache, MariaDB,
# sanitizers, valgrind, stderr files) and the responses the helpers received
# to $LOGS_DIR/$TEST_NAME/, replacing an earlier copy.
collect_logs_ () {
	local dest=$LOGS_DIR/$TEST_NAME
	test -d "$TRASH" || return 0
	rm -rf "$dest"
	mkdir -p "$dest" || return 0
	(
		cd "$TRASH" &&
		find . \( -name db -o -name repos -o -name home -o -name '*.git' -o -name tmp \) -prune -o \
			-type f \( -name '*.log' -o -name '*.stderr' -o -path './asan/*' -o \
			-name 'resp.body' -o -name 'resp.headers' -o -name 'resp.raw' -o -name 'resp.err' \) \
			-print0 | xargs -0 -r cp --parents -t "$dest"
	) 2>/dev/null
	return 0
}

# ---------------------------------------------------------------------------
# Process bookkeeping and cleanup

TEST_PIDS=

# test_register_pid PID NAME: stop PID (SIGTERM, then SIGKILL) at the end.
test_register_pid () {
	TEST_PIDS="$TEST_PIDS $1"
}

# proc_alive PID: PID exists and is not a zombie.
proc_alive () {
	test -r "/proc/$1/status" || return 1
	! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# stop_pid PID [SECONDS]: SIGTERM, wait, SIGKILL.  Returns 0 when it went
# away on SIGTERM; STOP_STATUS holds its exit status when it was our child.
stop_pid () {
	local pid=$1 limit=${2:-10} i=0
	STOP_STATUS=
	if ! proc_alive "$pid"; then
		wait "$pid" 2>/dev/null
		STOP_STATUS=$?
		return 0
	fi
	kill -TERM "$pid" 2>/dev/null
	while proc_alive "$pid"; do
		i=$((i + 1))
		if test $i -gt $((limit * 10)); then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			STOP_STATUS=$?
			return 1
		fi
		sleep 0.1
	done
	wait "$pid" 2>/dev/null
	STOP_STATUS=$?
	return 0
}

stop_all () {
	stop_nginx
	stop_server
	for p in $TEST_PIDS; do
		stop_pid "$p" 5
	done
	TEST_PIDS=
	stop_db
}

test_exit_ () {
	code=$?
	if test -z "${test_done_called:-}"; then
		stop_all >/dev/null 2>&1
		collect_logs_
	fi
	if test -z "${test_done_called:-}${test_skip_all:-}"; then
		if test "$code" = 0; then
			echo "bug in the test script: exited without test_done" >&2
			code=1
		fi
	fi
	exit $code
}
trap test_exit_ EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# ---------------------------------------------------------------------------
# Small utilities

# free_port: prints a free TCP port on 127.0.0.1.
free_port () {
	perl -MIO::Socket::INET -e '
		my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1",
		    LocalPort => 0, ReuseAddr => 1) or die "no port: $!\n";
		print $s->sockport, "\n";'
}

# wait_for TIMEOUT CMD...: retries CMD every 0.1 s for up to TIMEOUT seconds.
wait_for () {
	local limit=$(( $1 * 10 )) i
	shift
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		test $i -gt $limit && return 1
		sleep 0.1
	done
	return 0
}

is_root () {
	test "$(id -u)" = 0
}

# fm ARGS...: runs the forgemcp binary with the test configuration.  The
# token a successful `token create` prints is recorded (test_record_token).
fm () {
	local code out=$TRASH/.token-create.$BASHPID
	if test "${1:-}" = token && test "${2:-}" = create; then
		"$FORGEMCP" "$@" >"$out"
		code=$?
		if test "$code" = 0 && test "$(wc -l <"$out")" = 1; then
			test_record_token "$(cat "$out")"
		fi
		cat "$out"
		rm -f "$out"
		return $code
	fi
	"$FORGEMCP" "$@"
}

# test_record_token TOKEN...: notes tokens the script issued (or wrote into
# the token table) for t9990-token-leaks.t, which fails when any of them,
# or 7 consecutive characters of one, shows up in a log or a response.
test_record_token () {
	local t
	for t in "$@"; do
		case $t in
		''|*[!A-Za-z0-9._~+/=-]*) ;;	# not a token68: help text, an error
		*) printf '%s\n' "$t" >>"$TOKENS_DIR/$TEST_NAME" ;;
		esac
	done
	return 0
}

# test_one_line_failure FILE: FILE holds exactly one line "forgemcp: ..."
test_one_line_failure () {
	n=$(wc -l <"$1")
	if test "$n" != 1 || ! grep -q '^forgemcp: ..*' "$1"; then
		echo "expected one line 'forgemcp: <reason>' on stderr, got:"
		cat "$1"
		return 1
	fi
}

# test_must_fail CMD...: CMD exits non-zero (and was not killed by a signal).
test_must_fail () {
	"$@"
	code=$?
	if test $code = 0; then
		echo "test_must_fail: command succeeded: $*"
		return 1
	elif test $code -gt 128 && test $code -le 192; then
		echo "test_must_fail: command died by signal $((code - 128)): $*"
		return 1
	fi
	return 0
}

test_cmp () {
	diff -u "$@"
}

# sha256_hex TEXT
sha256_hex () {
	printf '%s' "$1" | sha256sum | cut -d' ' -f1
}

# ---------------------------------------------------------------------------
# MariaDB: a throwaway server per script, copied from a template datadir.

DB_SOCK=$TRASH/db.sock
DB_USER=forgemcp
DB_PASSWORD=forgemcp-test-secret
DB_NAME=forgemcp
DB_PID=

mariadbd_bin () {
	for b in mariadbd /usr/sbin/mariadbd mysqld /usr/sbin/mysqld; do
		if command -v "$b" >/dev/null 2>&1; then
			command -v "$b"
			return 0
		fi
	done
	return 1
}

mariadb_client () {
	if command -v mariadb >/dev/null 2>&1; then echo mariadb; else echo mysql; fi
}

# Options shared by the template build and every run: small and fast.
DB_OPTS="--innodb-buffer-pool-size=32M --innodb-log-file-size=8M
	--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0
	--skip-log-bin --character-set-server=utf8mb4
	--collation-server=utf8mb4_unicode_ci --default-time-zone=+00:00"

db_user_opt () {
	if is_root; then echo --user=root; fi
}

# db_start_in DATADIR SOCKET PIDFILE LOG: starts mariadbd in the background
# as a child of this shell (never call it inside $(...): the server would be
# a grandchild, and `wait` would return at once); DB_STARTED holds its pid.
db_start_in () {
	# shellcheck disable=SC2086
	"$(mariadbd_bin)" --no-defaults $(db_user_opt) --datadir="$1" \
		--socket="$2" --pid-file="$3" --log-error="$4" \
		--skip-networking $DB_OPTS >>"$4" 2>&1 &
	DB_STARTED=$!
}

db_ping () {
	"$(mariadb_client)" --no-defaults -S "$1" -u root -e 'select 1' >/dev/null 2>&1
}

build_template_ () {
	rm -rf "$TEMPLATE.tmp"
	mkdir -p "$TEMPLATE.tmp/data" || return 1
	# shellcheck disable=SC2086
	mariadb-install-db --no-defaults $(db_user_opt) --datadir="$TEMPLATE.tmp/data" \
		--auth-root-authentication-method=normal --skip-test-db \
		$DB_OPTS >"$TEMPLATE.tmp/install.log" 2>&1 || {
		cat "$TEMPLATE.tmp/install.log" >&2
		return 1
	}
	sock=$TEMPLATE.tmp/s
	db_start_in "$TEMPLATE.tmp/data" "$sock" "$TEMPLATE.tmp/pid" "$TEMPLATE.tmp/err.log"
	pid=$DB_STARTED
	if ! wait_for 60 db_ping "$sock"; then
		cat "$TEMPLATE.tmp/err.log" >&2
		stop_pid "$pid" 30
		return 1
	fi
	"$(mariadb_client)" --no-defaults -S "$sock" -u root <<-EOF || return 1
	CREATE DATABASE $DB_NAME CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
	CREATE USER '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
	GRANT ALL ON $DB_NAME.* TO '$DB_USER'@'localhost';
	FLUSH PRIVILEGES;
	EOF
	# The datadir is copied only once the server is gone: a server still
	# shutting down removes files (ibtmp1) under the copy's feet.
	stop_pid "$pid" 60 || { echo "the template's mariadbd ignored SIGTERM" >&2; return 1; }
	rm -f "$sock" "$TEMPLATE.tmp/pid"
	touch "$TEMPLATE.tmp/ready"
	rm -rf "$TEMPLATE" && mv "$TEMPLATE.tmp" "$TEMPLATE"
}

# ensure_template: builds the template datadir once; parallel scripts wait.
ensure_template () {
	test -f "$TEMPLATE/ready" && return 0
	i=0
	until mkdir "$TEMPLATE.lock" 2>/dev/null; do
		test -f "$TEMPLATE/ready" && return 0
		i=$((i + 1))
		if test $i -gt 1200; then
			echo "stale lock $TEMPLATE.lock" >&2
			return 1
		fi
		sleep 0.1
	done
	ret=0
	test -f "$TEMPLATE/ready" || build_template_ || ret=1
	rmdir "$TEMPLATE.lock"
	return $ret
}

start_db () {
	mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
	ensure_template || { echo "Bail out! cannot build the MariaDB template datadir"; exit 1; }
	rm -rf "$TRASH/db"
	cp -a "$TEMPLATE/data" "$TRASH/db" || exit 1
	db_start_in "$TRASH/db" "$DB_SOCK" "$TRASH/db.pid" "$TRASH/db.log"
	DB_PID=$DB_STARTED
	if ! wait_for 60 db_ping "$DB_SOCK"; then
		echo "Bail out! mariadbd did not start (see $TRASH/db.log)"
		tail -n 20 "$TRASH/db.log" >&2
		exit 1
	fi
	write_config
}

stop_db () {
	test -n "$DB_PID" || return 0
	stop_pid "$DB_PID" 30
	DB_PID=
}

# db_sql 'SQL': runs SQL in the forgemcp database, tab-separated, no headers.
db_sql () {
	"$(mariadb_client)" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" -e "$1"
}

# ---------------------------------------------------------------------------
# Configuration of the instance under test

HTTP_PORT=
CONFIG=$TRASH/forgemcp.conf

write_config () {
	test -n "$HTTP_PORT" || HTTP_PORT=$(free_port)
	mkdir -p "$TRASH/repos"
	cat >"$CONFIG" <<-EOF
	# written by t/test-lib.sh for $TEST_NAME
	db_socket = $DB_SOCK
	db_user = $DB_USER
	db_password = $DB_PASSWORD
	db_name = $DB_NAME
	repo_root = $TRASH/repos
	endpoint = /mcp
	base_url = http://127.0.0.1:$HTTP_PORT
	allowed_origins = http://127.0.0.1:$HTTP_PORT,http://localhost:$HTTP_PORT
	log_level = info
	rate_limit = 1000000
	rate_limit_anonymous = 1000000
	token_cache_seconds = 0
	EOF
	FORGEMCP_CONFIG=$CONFIG
	export FORGEMCP_CONFIG
	BASE_URL=http://127.0.0.1:$HTTP_PORT
}

# config_set KEY VALUE: replaces or adds a key in the test configuration.
# A running server must be restarted to see it.
config_set () {
	grep -v "^$1 *=" "$CONFIG" >"$CONFIG.tmp"
	echo "$1 = $2" >>"$CONFIG.tmp"
	mv "$CONFIG.tmp" "$CONFIG"
}

config_unset () {
	grep -v "^$1 *=" "$CONFIG" >"$CONFIG.tmp"
	mv "$CONFIG.tmp" "$CONFIG"
}

# ---------------------------------------------------------------------------
# The FastCGI server

FCGI_SOCK=$TRASH/fcgi.sock
SERVER_PID=

migrate_db () {
	fm migrate >>"$TRASH/migrate.out" 2>>"$TRASH/migrate.stderr" || {
		echo "Bail out! forgemcp migrate failed:"
		cat "$TRASH/migrate.stderr"
		exit 1
	}
}

# start_server [WORKERS]: migrate, then forgemcp fcgi --listen on a unix socket.
start_server () {
	test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP"; exit 1; }
	test -n "$DB_PID" || start_db
	test -f "$TRASH/migrate.out" || migrate_db
	start_fcgi_only "${1:-2}"
}

start_fcgi_only () {
	local vg=()
	rm -f "$FCGI_SOCK"
	if test "$TEST_VALGRIND" = 1; then
		command -v valgrind >/dev/null ||
			{ echo "Bail out! FORGEMCP_VALGRIND=1 but valgrind is not installed"; exit 1; }
		# one log per process (the master and each forked worker); a
		# definite leak counts as an error, reachable memory does not
		vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
			--show-leak-kinds=definite --errors-for-leak-kinds=definite
			--track-origins=yes "--suppressions=$TEST_DIRECTORY/lib/valgrind.supp"
			"--log-file=$TRASH/valgrind.%p.log")
	fi
	"${vg[@]}" "$FORGEMCP" fcgi --listen "$FCGI_SOCK" --workers "${1:-2}" 2>>"$SERVER_LOG" </dev/null &
	SERVER_PID=$!
	if ! wait_for 20 test -S "$FCGI_SOCK"; then
		echo "Bail out! forgemcp fcgi did not create $FCGI_SOCK"
		tail -n 20 "$SERVER_LOG" | sed 's/^/# /'
		exit 1
	fi
	# give the pre-forked workers a moment to connect to the database
	sleep 0.3
	if test "$TEST_VALGRIND" = 1; then sleep 2; fi
}

# stop_server: SIGTERM to the master; workers it leaves behind are killed so
# no process outlives the script.  SERVER_STOP_STATUS is the master's exit
# status (137 when it had to be killed).
stop_server () {
	local workers p
	test -n "$SERVER_PID" || return 0
	workers=$(pgrep -P "$SERVER_PID" 2>/dev/null)
	stop_pid "$SERVER_PID" 15
	SERVER_STOP_STATUS=$STOP_STATUS
	test "$SERVER_STOP_STATUS" = 0 ||
		say_err "forgemcp fcgi exited with status $SERVER_STOP_STATUS after SIGTERM"
	for p in $workers; do
		if proc_alive "$p"; then
			say_err "forgemcp worker $p outlived its master; killing it"
			kill -KILL "$p" 2>/dev/null
		fi
	done
	SERVER_PID=
	STOP_STATUS=$SERVER_STOP_STATUS
}

restart_server () {
	stop_server
	start_fcgi_only "${1:-2}"
}

# ---------------------------------------------------------------------------
# nginx, rendered from etc/nginx-forgemcp.conf.sample

NGINX_PID=
NGINX_DIR=$TRASH/nginx

# render_nginx_sample SOCKET OUTFILE: fills in the sample's placeholders.
render_nginx_sample () {
	sed -e "s|@PORT@|$HTTP_PORT|g" \
	    -e "s|@SOCKET@|$1|g" \
	    -e "s|@FORGEMCP@|$FORGEMCP|g" \
	    -e "s|@TRASH@|$TRASH|g" \
	    -e "s|@ACCESS_LOG@|$NGINX_DIR/logs/access.log|g" \
	    -e "s|@ERROR_LOG@|$NGINX_DIR/logs/error.log|g" \
	    -e "s|@SERVER_NAME@|127.0.0.1 localhost|g" \
	    "$SRC_DIR/etc/nginx-forgemcp.conf.sample" >"$2"
}

# write_nginx_conf [SOCKET]: the main nginx.conf around the rendered sample.
write_nginx_conf () {
	test -n "$HTTP_PORT" || HTTP_PORT=$(free_port)
	mkdir -p "$NGINX_DIR/tmp" "$NGINX_DIR/logs"
	cp /etc/nginx/fastcgi_params "$NGINX_DIR/fastcgi_params" 2>/dev/null ||
		cp "$SRC_DIR/t/lib/fastcgi_params" "$NGINX_DIR/fastcgi_params"
	render_nginx_sample "${1:-$FCGI_SOCK}" "$NGINX_DIR/forgemcp-site.conf"
	{
		if is_root; then echo "user root;"; fi
		cat <<-EOF
		worker_processes 1;
		daemon off;
		pid $NGINX_DIR/nginx.pid;
		error_log $NGINX_DIR/logs/error.log info;
		events { worker_connections 128; }
		http {
			client_body_temp_path $NGINX_DIR/tmp/body;
			fastcgi_temp_path $NGINX_DIR/tmp/fastcgi;
			proxy_temp_path $NGINX_DIR/tmp/proxy;
			uwsgi_temp_path $NGINX_DIR/tmp/uwsgi;
			scgi_temp_path $NGINX_DIR/tmp/scgi;
			access_log $NGINX_DIR/logs/access.log;
			default_type application/octet-stream;
			include $NGINX_DIR/forgemcp-site.conf;
		}
		EOF
	} >"$NGINX_DIR/nginx.conf"
}

nginx_bin () {
	command -v nginx 2>/dev/null || { test -x /usr/sbin/nginx && echo /usr/sbin/nginx; }
}

# start_nginx [SOCKET]: nginx on 127.0.0.1:$HTTP_PORT forwarding /mcp to SOCKET.
start_nginx () {
	nginx=$(nginx_bin) || skip_all "nginx is not installed"
	write_nginx_conf "$@"
	"$nginx" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/logs/error.log" -t \
		>"$NGINX_DIR/t.out" 2>&1 || {
		echo "Bail out! nginx rejects the rendered configuration"
		sed 's/^/# /' "$NGINX_DIR/t.out"
		exit 1
	}
	"$nginx" -p "$NGINX_DIR" -c "$NGINX_DIR/nginx.conf" -e "$NGINX_DIR/logs/error.log" \
		</dev/null >>"$NGINX_DIR/logs/stdout.log" 2>&1 &
	NGINX_PID=$!
	if ! wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/"; then
		echo "Bail out! nginx did not start on port $HTTP_PORT"
		sed 's/^/# /' "$NGINX_DIR/logs/error.log"
		exit 1
	fi
	BASE_URL=http://127.0.0.1:$HTTP_PORT
}

stop_nginx () {
	test -n "$NGINX_PID" || return 0
	stop_pid "$NGINX_PID" 10
	NGINX_PID=
}

# start_all: the usual stack for wire tests.
start_all () {
	start_db
	start_server "$@"
	start_nginx
}

# ---------------------------------------------------------------------------
# Users, tokens and fixture repositories

# make_user LOGIN: creates a user.
make_user () {
	fm user add "$1" --name "User $1" --email "$1@example.com" >/dev/null 2>>"$TRASH/cli.stderr"
}

# make_token LOGIN SCOPES [more args]: prints a new token.
make_token () {
	local u=$1 s=$2
	shift 2
	fm token create --user "$u" --scopes "$s" "$@" 2>>"$TRASH/cli.stderr"
}

TEST_TICK=1700000000

test_tick () {
	TEST_TICK=$((TEST_TICK + 60))
	GIT_AUTHOR_DATE="$TEST_TICK +0000"
	GIT_COMMITTER_DATE="$TEST_TICK +0000"
	export GIT_AUTHOR_DATE GIT_COMMITTER_DATE
}

GIT_AUTHOR_NAME='A U Thor'
GIT_AUTHOR_EMAIL=author@example.com
GIT_COMMITTER_NAME='C O Mitter'
GIT_COMMITTER_EMAIL=committer@example.com
export GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# make_fixture_repo DIR.git: a deterministic bare repository:
#   commit 1: README.md, src/lib/deep/nested.txt, docs/guide.md
#   commit 2: logo.bin (binary), big.txt (exactly 10240 bytes)      <- tag v1.0
#   commit 3: README.md changed
# Sets FIXTURE_C1, FIXTURE_C2, FIXTURE_C3 (commit ids).
make_fixture_repo () {
	bare=$1
	work=$TRASH/fixture-work.$$
	rm -rf "$work" "$bare"
	git -c init.defaultBranch=main init -q "$work" || return 1
	(
		cd "$work" &&
		git config user.useConfigOnly false &&
		printf '# fixture\n\nA repository for tests.\n' >README.md &&
		mkdir -p src/lib/deep docs &&
		printf 'deep inside\n' >src/lib/deep/nested.txt &&
		printf 'Guide\n=====\n\nUnicode: caf\303\251 \342\234\223\n' >docs/guide.md &&
		git add . && test_tick && git commit -q -m 'first commit' &&
		printf '\211PNG\r\n\032\n\000\001\002\003\377\376binary\000data' >logo.bin &&
		perl -e 'for my $i (0..255) { printf "line %03d: %s\n", $i, "x" x 29 }' >big.txt &&
		test "$(wc -c <big.txt)" = 10240 &&
		git add . && test_tick && git commit -q -m 'add binary and big files' &&
		test_tick && git tag -a -m 'release 1.0' v1.0 &&
		printf '# fixture\n\nA repository for tests.\nVersion two.\n' >README.md &&
		git add . && test_tick && git commit -q -m 'third commit'
	) || return 1
	FIXTURE_C1=$(git -C "$work" rev-parse HEAD~2)
	FIXTURE_C2=$(git -C "$work" rev-parse HEAD~1)
	FIXTURE_C3=$(git -C "$work" rev-parse HEAD)
	git clone -q --bare "$work" "$bare" || return 1
	rm -rf "$work"
}

# setup_fixtures: the standard cast for tool and auth tests.
#   alice: owns alice/fixture (public, imported fixture) and alice/secret (private)
#   bob:   owns bob/hidden (private, imported fixture), bob/tools (public, empty)
#   carol: reader on bob/hidden
# Tokens: ALICE_TOKEN, BOB_TOKEN, CAROL_TOKEN (read,write), WRITE_ONLY_TOKEN (alice, write)
setup_fixtures () {
	make_user alice &&
	make_user bob &&
	make_user carol &&
	make_fixture_repo "$TRASH/fixture.git" &&
	fm repo import alice/fixture --from "$TRASH/fixture.git" --description 'the fixture' >/dev/null &&
	fm repo create alice/secret --private --description 'alice private' >/dev/null &&
	fm repo import bob/hidden --from "$TRASH/fixture.git" --private >/dev/null &&
	fm repo create bob/tools --description 'bob public tools' >/dev/null &&
	fm collaborator add bob/hidden carol reader >/dev/null &&
	ALICE_TOKEN=$(make_token alice read,write) &&
	BOB_TOKEN=$(make_token bob read,write) &&
	CAROL_TOKEN=$(make_token carol read) &&
	WRITE_ONLY_TOKEN=$(make_token alice write) &&
	TOKEN=$ALICE_TOKEN
}

# ---------------------------------------------------------------------------
# HTTP requests through nginx

RESP=$TRASH/resp
EMPTY_OBJ='{}'
TOKEN=
MODERN_VERSION=2026-07-28

# mcp_post [options] [BODY]: POSTs BODY (or --file F) to the endpoint.
# Options:
#   -H 'Name: value'    extra header (repeatable)
#   --no-auth           send no Authorization header
#   --token T           use T as the bearer token
#   --no-ctype          send no Content-Type header
#   --ctype VALUE       Content-Type value
#   -X METHOD           HTTP method (default POST)
#   --path PATH         request path (default /mcp)
#   --url URL           whole URL
#   --file F            body from file F
# Leaves $RESP.status, $RESP.headers (CR stripped) and $RESP.body.
mcp_post () {
	local method=POST path=/mcp url= auth=yes tok=$TOKEN ctype=application/json file=
	set -- "$@" --end-of-options--
	while test "$1" != --end-of-options--; do
		case $1 in
		-H) set -- "$@" -H "$2"; shift 2 ;;
		--no-auth) auth=no; shift ;;
		--token) tok=$2; shift 2 ;;
		--no-ctype) ctype=; shift ;;
		--ctype) ctype=$2; shift 2 ;;
		-X) method=$2; shift 2 ;;
		--path) path=$2; shift 2 ;;
		--url) url=$2; shift 2 ;;
		--file) file=$2; shift 2 ;;
		*) printf '%s' "$1" >"$RESP.req"; file=$RESP.req; shift ;;
		esac
	done
	shift
	test -n "$url" || url=$BASE_URL$path
	if test "$auth" = yes && test -n "$tok"; then
		set -- "$@" -H "Authorization: Bearer $tok"
	fi
	if test -n "$ctype"; then
		set -- "$@" -H "Content-Type: $ctype"
	else
		set -- "$@" -H "Content-Type:"
	fi
	case $method in
	POST|PUT|PATCH)
		test -n "$file" || { : >"$RESP.req"; file=$RESP.req; }
		set -- "$@" --data-binary "@$file" ;;
	esac
	rm -f "$RESP.status" "$RESP.headers" "$RESP.body"
	curl -sS -X "$method" -H 'Accept: application/json, text/event-stream' \
		-H 'Expect:' "$@" -o "$RESP.body" -D "$RESP.headers.raw" \
		-w '%{http_code}' "$url" >"$RESP.status" || {
		echo "curl failed for $method $url"
		return 1
	}
	tr -d '\r' <"$RESP.headers.raw" >"$RESP.headers"
	{ printf '### %s -> %s\n' "$method" "$(cat "$RESP.status")"
	  cat "$RESP.headers" "$RESP.body" 2>/dev/null; echo; } >>"$RESPONSES_LOG"
	if test "${TEST_VERBOSE:-}" = 1; then
		echo "> $method $url: $(cat "$RESP.status")"
		cat "$RESP.headers" "$RESP.body"
		echo
	fi
	return 0
}

# json_meta [EXTRA_JSON_OBJECT]: the modern per-request _meta object.
json_meta () {
	jq -nc --arg v "$MODERN_VERSION" --argjson extra "${1:-$EMPTY_OBJ}" \
		'{"io.modelcontextprotocol/protocolVersion": $v,
		  "io.modelcontextprotocol/clientCapabilities": {}} + $extra'
}

# modern_body METHOD [PARAMS_JSON] [ID]: a modern request body (params gain _meta).
# ID "none" makes a notification.
modern_body () {
	jq -nc --arg m "$1" --argjson p "${2:-$EMPTY_OBJ}" --argjson meta "$(json_meta)" \
		--arg id "${3:-1}" \
		'{jsonrpc: "2.0", method: $m, params: ({_meta: $meta} + $p)}
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# legacy_body METHOD [PARAMS_JSON] [ID]
legacy_body () {
	jq -nc --arg m "$1" --argjson p "${2:-null}" --arg id "${3:-1}" \
		'{jsonrpc: "2.0", method: $m}
		 + (if $p == null then {} else {params: $p} end)
		 + (if $id == "none" then {} else {id: ($id | fromjson? // $id)} end)'
}

# mcp_modern METHOD [PARAMS_JSON] [mcp_post options]: a modern request with
# the standard headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name).
mcp_modern () {
	local m=$1 p=${2:-$EMPTY_OBJ} name
	shift
	test $# -gt 0 && shift
	name=$(printf '%s' "$p" | jq -r '.name // .uri // empty')
	if test -n "$name"; then
		set -- -H "Mcp-Name: $name" "$@"
	fi
	mcp_post -H "MCP-Protocol-Version: $MODERN_VERSION" -H "Mcp-Method: $m" "$@" \
		"$(modern_body "$m" "$p")"
}

# mcp_legacy METHOD [PARAMS_JSON] [mcp_post options]: no _meta, no modern headers.
mcp_legacy () {
	local m=$1 p=${2:-null}
	shift
	test $# -gt 0 && shift
	mcp_post "$@" "$(legacy_body "$m" "$p")"
}

# tool_call NAME ARGS_JSON [mcp_post options]: a modern tools/call.
tool_call () {
	local n=$1 a=${2:-$EMPTY_OBJ}
	shift
	test $# -gt 0 && shift
	mcp_modern tools/call "$(jq -nc --arg n "$n" --argjson a "$a" '{name: $n, arguments: $a}')" "$@"
}

# tool_text: prints result.content[0].text of the last response.
tool_text () {
	jq -r '.result.content[0].text' "$RESP.body"
}

# ---------------------------------------------------------------------------
# Assertions on the last response

show_response_ () {
	echo "--- status: $(cat "$RESP.status" 2>/dev/null)"
	cat "$RESP.headers" 2>/dev/null
	echo "--- body:"
	head -c 2000 "$RESP.body" 2>/dev/null
	echo
}

# test_status CODE
test_status () {
	if test "$(cat "$RESP.status")" != "$1"; then
		echo "expected HTTP status $1"
		show_response_
		return 1
	fi
}

# test_json FILTER EXPECTED: jq -c FILTER on the body equals EXPECTED.
test_json () {
	local actual expect
	actual=$(jq -cS "$1" "$RESP.body" 2>&1)
	expect=$(printf '%s' "$2" | jq -cS . 2>/dev/null) || expect=$2
	if test "$actual" != "$expect"; then
		echo "expected $1 == $2, got: $actual"
		show_response_
		return 1
	fi
}

# test_jq FILTER: jq -e FILTER on the body is true.
test_jq () {
	if ! jq -e "$1" "$RESP.body" >/dev/null 2>&1; then
		echo "expected true: $1"
		show_response_
		return 1
	fi
}

# test_text_jq FILTER: the tool result's text parses as JSON and FILTER is true.
test_text_jq () {
	if ! tool_text | jq -e "$1" >/dev/null 2>&1; then
		echo "expected true on the tool text: $1"
		show_response_
		return 1
	fi
}

# test_header NAME REGEX: a header NAME exists and its value matches REGEX.
test_header () {
	local v
	v=$(sed -n "s/^$1: *//Ip" "$RESP.headers" | head -n 1)
	if ! grep -i "^$1:" "$RESP.headers" >/dev/null ||
	   ! printf '%s\n' "$v" | grep -E -- "$2" >/dev/null; then
		echo "expected header $1 matching /$2/"
		show_response_
		return 1
	fi
}

# test_no_header NAME
test_no_header () {
	if grep -i "^$1:" "$RESP.headers" >/dev/null; then
		echo "unexpected header $1"
		show_response_
		return 1
	fi
}

header_value () {
	sed -n "s/^$1: *//Ip" "$RESP.headers" | head -n 1
}

test_body_empty () {
	if test -s "$RESP.body"; then
		echo "expected an empty body"
		show_response_
		return 1
	fi
}

# test_rpc_error STATUS CODE [ID_JSON]: a JSON-RPC error with that HTTP status,
# code and (when given) echoed id.
test_rpc_error () {
	test_status "$1" &&
	test_json .jsonrpc '"2.0"' &&
	test_json .error.code "$2" &&
	test_jq '.error.message | type == "string" and length > 0' &&
	test_jq 'has("result") | not' &&
	if test $# -ge 3; then test_json .id "$3"; fi
}

# test_common_headers: every response carries these.
test_common_headers () {
	test_header Cache-Control 'no-store' &&
	test_header X-Request-Id '^[0-9a-f]{32}$' &&
	test_no_header Mcp-Session-Id
}

# ---------------------------------------------------------------------------
# Requests without nginx: straight to a FastCGI socket, or a CGI run

# parse_cgi_output_ RAWFILE: splits CGI/FastCGI output into $RESP.*
parse_cgi_output_ () {
	perl -e '
		local $/; open my $f, "<", $ARGV[0] or die; binmode $f; my $raw = <$f>;
		my ($h, $b) = split /\r?\n\r?\n/, $raw, 2;
		$b = "" unless defined $b; $h = "" unless defined $h;
		my $status = 200;
		$status = $1 if $h =~ /^Status:\s*(\d{3})/mi;
		open my $s, ">", "$ARGV[1].status"; print $s $status;
		open my $hh, ">", "$ARGV[1].headers"; (my $hc = $h) =~ s/\r//g; print $hh "$hc\n";
		open my $bb, ">", "$ARGV[1].body"; binmode $bb; print $bb $b;
	' "$1" "$RESP"
}

# cgi_env_ BODYFILE: the CGI meta-variables of a POST to /mcp (one per line).
cgi_env_ () {
	printf '%s\n' "PATH=$PATH" "REQUEST_METHOD=POST" "CONTENT_TYPE=application/json" \
		"CONTENT_LENGTH=${BODY_LEN:-$(wc -c <"$1")}" "SCRIPT_NAME=/mcp" "REQUEST_URI=/mcp" \
		"DOCUMENT_URI=/mcp" "SERVER_NAME=127.0.0.1" "SERVER_PORT=${HTTP_PORT:-80}" \
		"SERVER_PROTOCOL=HTTP/1.1" "GATEWAY_INTERFACE=CGI/1.1" \
		"REMOTE_ADDR=127.0.0.1" "HTTP_HOST=127.0.0.1:${HTTP_PORT:-80}" \
		"HTTP_ACCEPT=application/json, text/event-stream"
	if test -n "$TOKEN"; then echo "HTTP_AUTHORIZATION=Bearer $TOKEN"; fi
}

# fcgi_request SOCKET BODYFILE [NAME=VALUE...]: one request with cgi-fcgi.
fcgi_request () {
	local sock=$1 file=$2
	shift 2
	mapfile -t cgienv < <(cgi_env_ "$file")
	env -i "${cgienv[@]}" "$@" cgi-fcgi -bind -connect "$sock" <"$file" >"$RESP.raw" 2>"$RESP.err" || {
		echo "cgi-fcgi failed:"; cat "$RESP.err"; return 1; }
	{ echo '### fastcgi'; cat "$RESP.raw"; echo; } >>"$RESPONSES_LOG"
	parse_cgi_output_ "$RESP.raw"
}

# cgi_request BODYFILE [NAME=VALUE...]: runs forgemcp itself as a CGI program.
cgi_request () {
	local file=$1
	shift
	mapfile -t cgienv < <(cgi_env_ "$file")
	env -i "${cgienv[@]}" "FORGEMCP_CONFIG=$CONFIG" "ASAN_OPTIONS=$ASAN_OPTIONS" \
		"UBSAN_OPTIONS=$UBSAN_OPTIONS" "$@" \
		"$FORGEMCP" <"$file" >"$RESP.raw" 2>>"$TRASH/cgi.stderr"
	CGI_EXIT=$?
	{ echo '### cgi'; cat "$RESP.raw"; echo; } >>"$RESPONSES_LOG"
	parse_cgi_output_ "$RESP.raw"
}

# restart_db: stops and starts the same mariadbd datadir (no template copy).
stop_db_only () {
	stop_db
}
start_db_again () {
	db_start_in "$TRASH/db" "$DB_SOCK" "$TRASH/db.pid" "$TRASH/db.log"
	DB_PID=$DB_STARTED
	wait_for 60 db_ping "$DB_SOCK"
}

# ---------------------------------------------------------------------------
# Test bodies run inside the trash directory.
cd "$TRASH" || exit 1
