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
# The harness (paths, TAP core, processes, small utilities) is here; the
# rest is in modules under t/lib/, sourced below: lib-db.sh (the throwaway
# MariaDB and the configuration), lib-server.sh (the FastCGI server, nginx,
# requests that bypass nginx) and lib-mcp.sh (users, tokens, fixtures, MCP
# requests and assertions on the last response).
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
# Each failed test's title and the end of its output, one file per script
# and build, which etc/check prints again once the suite has run.
FAILURES_DIR=$FORGEMCP_TRASH/.failures

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

# note TEXT: a figure for the TAP output, printed as a comment at once even
# from inside a test body (whose own output is shown only on failure), and
# kept in the body's output too.
exec 7>&1
note () {
	printf '# %s\n' "$*" >&7
	printf '%s\n' "$*"
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
	mkdir -p "$FAILURES_DIR" 2>/dev/null &&
	{
		echo "$TEST_NAME ($(basename "$FORGEMCP_BUILD")): not ok $test_count - $1"
		sed 's/^/#	/' "$TEST_OUT" | tail -n 12
	} >>"$FAILURES_DIR/$TEST_NAME@$(basename "$FORGEMCP_BUILD")" 2>/dev/null
	return 0
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

# test_register_pids_in DIR: test_register_pid for each DIR/*.pid (a quick
# start's run/ directory).
test_register_pids_in () {
	local f
	for f in "$1"/*.pid; do
		test -f "$f" && test_register_pid "$(cat "$f")"
	done
	return 0
}

# proc_alive PID: PID exists and is not a zombie.
#
# PID may also be PID:START as proc_stamp prints it: then a process that has
# the pid but started at another time (the pid was reused: the kernel hands
# out at most pid_max of them, 32768 on many machines, and a busy suite goes
# round that in minutes) is not the one asked about.
proc_alive () {
	local pid=${1%%:*} st
	test -r "/proc/$pid/status" || return 1
	grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null && return 1
	case $1 in
	*:*) st=$(proc_stamp "$pid") && test "$st" = "$1" ;;
	esac
}

# proc_stamps PID...: proc_stamp of each PID that still runs, one a line.
proc_stamps () {
	local p
	for p in "$@"; do
		proc_stamp "$p" || :
	done
}

# proc_stamp PID: PID:START, START being when the process started (in clock
# ticks since boot); fails when there is no such process.
proc_stamp () {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	# the fields after the command name (which may hold spaces), from the 3rd
	set -- "$1" ${stat##*) }
	printf '%s:%s\n' "$1" "${21}"
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
		pause_ 0.1
	done
	wait "$pid" 2>/dev/null
	STOP_STATUS=$?
	return 0
}

# stop_all: the stop hooks (TEST_STOP_HOOKS, functions a library adds), then
# everything else the script started (at its end).
stop_all () {
	local h
	for h in ${TEST_STOP_HOOKS:-}; do "$h"; done
	stop_nginx
	stop_server
	for p in $TEST_PIDS; do
		stop_pid "$p" 5
	done
	TEST_PIDS=
	# the datadir is thrown away with the trash: no clean shutdown needed
	stop_db --kill
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

# free_port: prints a free TCP port on 127.0.0.1 that no other script of
# this run was given.  The kernel's free port is only free until somebody
# binds it, and scripts run in parallel: each port handed out is claimed in
# $FORGEMCP_TRASH/.ports (a directory made atomically), and a port claimed
# in the last two hours is not handed out again.
free_port () {
	local port i
	mkdir -p "$FORGEMCP_TRASH/.ports"
	for i in 1 2 3 4 5 6 7 8 9 10; do
		port=$(perl -MIO::Socket::INET -e '
			my $s = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1",
			    LocalPort => 0, ReuseAddr => 1) or die "no port: $!\n";
			print $s->sockport, "\n";') || return 1
		if mkdir "$FORGEMCP_TRASH/.ports/$port" 2>/dev/null; then
			echo "$port"
			return 0
		fi
		# claimed before: by this run, or by one long gone
		if test -z "$(find "$FORGEMCP_TRASH/.ports/$port" -maxdepth 0 -mmin -120)"; then
			touch "$FORGEMCP_TRASH/.ports/$port"
			echo "$port"
			return 0
		fi
	done
	echo "free_port: no unclaimed port in 10 tries" >&2
	return 1
}

# port_owned_by PORT PID: the listening socket on 127.0.0.1:PORT belongs to
# PID (true when ss(8) is not there to ask).
port_owned_by () {
	command -v ss >/dev/null 2>&1 || return 0
	ss -ltnpH "sport = :$1" 2>/dev/null | grep -q "pid=$2,"
}

# pause_ SECONDS: sleeps without a process (a sleep costs a fork and an
# exec, and the polling loops below run thousands of times in a suite):
# read times out on a FIFO that this shell holds open for writing too, so
# nothing ever arrives.  Falls back to sleep when the FIFO cannot be made.
PAUSE_FIFO_=$TRASH/.pause
pause_ () {
	if test -p "$PAUSE_FIFO_" || mkfifo "$PAUSE_FIFO_" 2>/dev/null; then
		read -r -t "$1" _ <>"$PAUSE_FIFO_" 2>/dev/null
		test $? -gt 128 && return 0
	fi
	sleep "$1"
}

# wait_for TIMEOUT CMD...: retries CMD every 0.1 s for up to TIMEOUT seconds.
wait_for () {
	local limit=$(( $1 * 10 )) i
	shift
	i=0
	until "$@" >/dev/null 2>&1; do
		i=$((i + 1))
		test $i -gt $limit && return 1
		pause_ 0.1
	done
	return 0
}

is_root () {
	test "$(id -u)" = 0
}

# asan_build: the build under test is the sanitizer one (--enable-asan).
asan_build () {
	grep -q '^FM_LDFLAGS = .*-fsanitize=address' "$FORGEMCP_BUILD/Makefile" 2>/dev/null
}

# fm ARGS...: runs the forgemcp binary with the test configuration.  The
# token a successful `token create` prints is recorded (test_record_token).
#
# FM_FIXTURE=1 fm ...: a command that only sets a fixture up (make_user,
# make_token, setup_fixtures) runs without LeakSanitizer's check at exit,
# which costs an AddressSanitizer build about 70 ms a run, a few thousand
# runs a suite; the commands themselves are leak-checked where they are
# tested (t0300-cli, t0310-collaborators, ...), and the servers always.
fm () {
	local code out=$TRASH/.token-create.$BASHPID
	if test "${FM_FIXTURE:-}" = 1; then
		local ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
		export ASAN_OPTIONS
	fi
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

# exits_1 CMD...: CMD fails with exit status 1 and one "forgemcp: ..." line
# on stderr (in err), nothing on stdout.
exits_1 () {
	"$@" >out 2>err
	code=$?
	test "$code" = 1 || { echo "exit status $code, expected 1"; cat err; return 1; }
	test_one_line_failure err &&
	test_must_fail test -s out
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

# forgemcp_commands: the commands `forgemcp --help` lists, one a line.
forgemcp_commands () {
	"$FORGEMCP" --help | sed -n "/^Commands:/,/^\$/s/^  \([a-z][a-z-]*\)  .*/\1/p"
}

# sha256_hex TEXT
sha256_hex () {
	printf '%s' "$1" | sha256sum | cut -d' ' -f1
}

# ---------------------------------------------------------------------------
# The modules: the database, the servers, MCP requests and assertions.
. "$TEST_DIRECTORY/lib/lib-db.sh"
. "$TEST_DIRECTORY/lib/lib-server.sh"
. "$TEST_DIRECTORY/lib/lib-mcp.sh"

# ---------------------------------------------------------------------------
# Test bodies run inside the trash directory.
cd "$TRASH" || exit 1
