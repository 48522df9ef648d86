# lib-db.sh: the throwaway MariaDB of a test script and the configuration of the instance under test.
#
# Sourced by t/test-lib.sh; not meant to be run or sourced on its own.
# Licensed under the ISC license, see LICENSE.

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

# Options shared by the template build and every run: small and fast.  The
# system tablespace (ibdata1, 12 MB, which holds the undo logs) and ibtmp1
# grow 8 MB at a time, not InnoDB's default 64: whether a run outgrows the
# first 12 MB depends on how far purge lags, and a datadir that jumped to
# 76 MB did not fit t8030's small filesystem.
DB_OPTS="--innodb-buffer-pool-size=32M --innodb-log-file-size=8M
	--innodb-autoextend-increment=8
	--innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0
	--skip-log-bin --character-set-server=utf8mb4
	--collation-server=utf8mb4_unicode_ci --default-time-zone=+00:00"

db_user_opt () {
	if is_root; then echo --user=root; fi
}

# db_start_in DATADIR SOCKET PIDFILE LOG: starts mariadbd in the background
# as a child of this shell (never call it inside $(...): the server would be
# a grandchild, and `wait` would return at once); DB_STARTED holds its pid.
# Its temporary files go to DATADIR.tmp, not to the shared /tmp.  It listens
# on its socket only, unless DB_NETWORK holds the options of a TCP listener
# (such as --bind-address=127.0.0.1 --port=PORT).
DB_NETWORK=
db_start_in () {
	mkdir -p "${1%/}.tmp"
	# shellcheck disable=SC2086
	"$(mariadbd_bin)" --no-defaults $(db_user_opt) --datadir="$1" \
		--socket="$2" --pid-file="$3" --log-error="$4" --tmpdir="${1%/}.tmp" \
		${DB_NETWORK:---skip-networking} $DB_OPTS >>"$4" 2>&1 &
	DB_STARTED=$!
}

db_ping () {
	"$(mariadb_client)" --no-defaults -S "$1" -u root -e 'select 1' >/dev/null 2>&1
}

# db_wait_ready_ SOCKET TIMEOUT: waits until the server answers on SOCKET.
# mariadbd makes its socket once it is about to accept connections, so the
# wait is for the socket first (a test in the shell, no process), then
# for an answer (a client run each 0.1 s, some 40 ms of CPU each).  A socket
# left behind by a killed server only skips the first wait.
db_wait_ready_ () {
	wait_for "$2" test -S "$1"
	wait_for "$2" db_ping "$1"
}

build_template_ () {
	rm -rf "$TEMPLATE.tmp"
	mkdir -p "$TEMPLATE.tmp/data" "$TEMPLATE.tmp/data.tmp" || return 1
	# Its own tmpdir: bootstraps running at once (two checkouts' suites on
	# one machine) were seen to fail on each other's files in /tmp.
	# shellcheck disable=SC2086
	mariadb-install-db --no-defaults $(db_user_opt) --datadir="$TEMPLATE.tmp/data" \
		--tmpdir="$TEMPLATE.tmp/data.tmp" \
		--auth-root-authentication-method=normal --skip-test-db \
		$DB_OPTS >"$TEMPLATE.tmp/install.log" 2>&1 || {
		cat "$TEMPLATE.tmp/install.log" >&2
		return 1
	}
	sock=$TEMPLATE.tmp/s
	db_start_in "$TEMPLATE.tmp/data" "$sock" "$TEMPLATE.tmp/pid" "$TEMPLATE.tmp/err.log"
	pid=$DB_STARTED
	if ! db_wait_ready_ "$sock" 60; then
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
		pause_ 0.1
	done
	ret=0
	test -f "$TEMPLATE/ready" || build_template_ || ret=1
	rmdir "$TEMPLATE.lock"
	return $ret
}

# build_migrated_ DIR: DIR/data, a copy of the template datadir that the
# binary under test has migrated, and that run's output in DIR/migrate.out
# and DIR/migrate.stderr.
build_migrated_ () {
	local dir=$1 tmp=$1.tmp.$$ pid rc=0
	rm -rf "$tmp" && mkdir -p "$tmp" && cp -a "$TEMPLATE/data" "$tmp/data" || return 1
	db_start_in "$tmp/data" "$tmp/s" "$tmp/pid" "$tmp/err.log"
	pid=$DB_STARTED
	if ! db_wait_ready_ "$tmp/s" 60; then
		cat "$tmp/err.log" >&2
		stop_pid "$pid" 30
		return 1
	fi
	printf 'db_socket = %s\ndb_user = %s\ndb_password = %s\ndb_name = %s\nrepo_root = %s\n' \
		"$tmp/s" "$DB_USER" "$DB_PASSWORD" "$DB_NAME" "$tmp/repos" >"$tmp/forgemcp.conf" &&
	mkdir -p "$tmp/repos" &&
	FORGEMCP_CONFIG=$tmp/forgemcp.conf "$FORGEMCP" migrate >"$tmp/migrate.out" 2>"$tmp/migrate.stderr" ||
		{ cat "$tmp/migrate.stderr" >&2; rc=1; }
	# copied only once the server is gone, as the template is
	stop_pid "$pid" 60 || rc=1
	rm -rf "$tmp/s" "$tmp/pid" "$tmp/repos" "$tmp/forgemcp.conf" "$tmp/data.tmp"
	test $rc = 0 && mv -T "$tmp" "$dir" 2>/dev/null
	rm -rf "$tmp"
	# those of binaries or schemas of earlier runs
	find "${dir%/*}" -mindepth 1 -maxdepth 1 -mmin +120 -exec rm -rf {} + 2>/dev/null
	test -f "$dir/migrate.out"
}

# start_db [--migrated]: the script's mariadbd, on a copy of the template
# datadir.  With --migrated (start_server's, when the script has not
# started MariaDB itself) the copy is of one the binary under test has
# already migrated, and migrate_db is not run again: the migrations run
# once per suite run (per binary and schema), not once per script.  The
# first script to need it builds it; scripts that start at once may each
# build one, and the first to finish puts it in place.
start_db () {
	local data=$TEMPLATE/data key
	mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
	ensure_template || { echo "Bail out! cannot build the MariaDB template datadir"; exit 1; }
	if test "${1:-}" = --migrated && test -x "$FORGEMCP"; then
		key=$(cat "$SRC_DIR"/schema/*.sql | cksum) &&
		key=${key%% *}-$(stat -c %s-%Y "$FORGEMCP") &&
		key=$TEMPLATE.migrated/$key &&
		mkdir -p "$TEMPLATE.migrated" &&
		{ test -f "$key/migrate.out" || build_migrated_ "$key"; } &&
		data=$key/data &&
		cp "$key/migrate.out" "$TRASH/migrate.out" &&
		cp "$key/migrate.stderr" "$TRASH/migrate.stderr" ||
			{ echo "Bail out! cannot build the migrated template datadir"; exit 1; }
	fi
	rm -rf "$TRASH/db"
	cp -a "$data" "$TRASH/db" || exit 1
	db_start_in "$TRASH/db" "$DB_SOCK" "$TRASH/db.pid" "$TRASH/db.log"
	DB_PID=$DB_STARTED
	if ! db_wait_ready_ "$DB_SOCK" 60; then
		echo "Bail out! mariadbd did not start (see $TRASH/db.log)"
		tail -n 20 "$TRASH/db.log" >&2
		exit 1
	fi
	write_config
}

# stop_db [--kill]: stops the script's mariadbd: a clean shutdown, or with
# --kill a SIGKILL, as a crash would (also at the end of a script, whose
# datadir is thrown away: it spares the shutdown's flushing).  Returns once
# the process is gone.
stop_db () {
	test -n "$DB_PID" || return 0
	if test "${1:-}" = --kill; then
		# disowned first, so that bash does not report the job "Killed"
		disown "$DB_PID" 2>/dev/null
		kill -KILL "$DB_PID" 2>/dev/null
		wait_for 30 eval "! proc_alive $DB_PID"
	else
		stop_pid "$DB_PID" 30
	fi
	DB_PID=
}

# db_sql 'SQL': runs SQL in the forgemcp database, tab-separated, no headers.
MARIADB_CLIENT_=$(mariadb_client)
db_sql () {
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B "$DB_NAME" -e "$1"
}

# db_client_start: from now on db_query sends its SQL to one MariaDB client
# process (a connection kept open, over two FIFOs) instead of starting a
# client per statement as db_sql does: for a script that reads the same
# state hundreds of times (some 40 ms of CPU a client run).  Statements
# run in the main shell only, one at a time.  Restart it after a restart of
# MariaDB.
DB_CLIENT_PID=
DB_CLIENT_N=0
db_client_start () {
	local dir=$TRASH/db-client
	rm -rf "$dir" && mkdir -p "$dir" && mkfifo "$dir/in" "$dir/out" || return 1
	"$MARIADB_CLIENT_" --no-defaults -S "$DB_SOCK" -u root -N -B --unbuffered --force \
		"$DB_NAME" <"$dir/in" >"$dir/out" 2>>"$dir/err" &
	DB_CLIENT_PID=$!
	test_register_pid "$DB_CLIENT_PID"
	exec {DB_CLIENT_IN}>"$dir/in" {DB_CLIENT_OUT}<"$dir/out"
}

# db_query 'SQL': as db_sql 'SQL', through db_client_start's client (which
# it starts when there is none).  Fails, printing the client's message,
# when a statement failed, and when the client is gone.
db_query () {
	local err=$TRASH/db-client/err line end
	test -n "$DB_CLIENT_PID" || db_client_start || return 1
	# the client appends: emptied here, it holds only this statement's errors
	: >"$err"
	DB_CLIENT_N=$((DB_CLIENT_N + 1))
	end="-- end of statement $DB_CLIENT_N --"
	printf '%s;\nSELECT '"'"'%s'"'"';\n' "$1" "$end" >&"$DB_CLIENT_IN" || return 1
	while IFS= read -r line <&"$DB_CLIENT_OUT"; do
		if test "$line" = "$end"; then
			if test -s "$err"; then
				cat "$err" >&2
				return 1
			fi
			return 0
		fi
		printf '%s\n' "$line"
	done
	echo "the MariaDB client is gone" >&2
	return 1
}

# db_value VAR 'SQL': sets VAR to what db_query 'SQL' prints, as
# VAR=$(db_sql 'SQL') would (trailing empty lines dropped), without a
# subshell or a client run; in the main shell only, as db_query.
db_value () {
	local out=$TRASH/.db-value lines IFS=$'\n'
	db_query "$2" >"$out" || return 1
	mapfile -t lines <"$out"
	while test ${#lines[@]} -gt 0 && test -z "${lines[-1]}"; do
		unset 'lines[-1]'
	done
	printf -v "$1" '%s' "${lines[*]}"
}

# ---------------------------------------------------------------------------
# Configuration of the instance under test

HTTP_PORT=
CONFIG=$TRASH/forgemcp.conf

# The limits are out of the way of the scripts that do not test them (one
# account's parallel calls, the load test); t3200 and t9110 set their own.
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
	account_concurrency = 256
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
