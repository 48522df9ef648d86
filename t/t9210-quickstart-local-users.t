#!/bin/bash
# t9210: etc/quickstart on a machine other people log in to.  Another local
# user (uid 65534, no groups) can neither reach the quick start's database nor
# read, list or write its state directory; started as root, MariaDB, the
# FastCGI workers, the merge worker and nginx's workers run as the user
# forgemcp, and MariaDB writes files only into its own private directory;
# forgemcp itself can plant nothing where root writes, and what an earlier
# layout let it plant is removed, not followed.
# Run by uid 65534 itself, uid 65533 gets nothing either.
# About 110 s on a busy 2-core machine, though only some 25 s of CPU: it
# makes two MariaDB datadirs and starts the quick start three times, each
# start waiting for MariaDB, two of them importing this checkout's history.
. ./test-lib.sh

# Its subject is the script; under the sanitizers the quick start's stack
# runs in t9230 (hub mode: the same services, no history import), and the
# commands it calls are leak-checked in t0300 and t6500-t6540.
if asan_build; then
	skip_all "etc/quickstart's own behaviour: the plain pass runs it; t9230 runs its stack under the sanitizers"
fi
mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
command -v mariadb-install-db >/dev/null || skip_all "mariadb-install-db is not installed"
nginx_bin >/dev/null || skip_all "nginx is not installed"
is_root || skip_all "acting as another local user needs root (setpriv)"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"
test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP"; exit 1; }

QS=$SRC_DIR/etc/quickstart
QS_STATE=$TRASH/qs
QS_PORT=$(free_port)
MYSQL=$(mariadb_client)

# The root instance is given a build its service user cannot reach (as a
# checkout under /root would be): it must run a copy of its own.
PRIVATE_BUILD=$TRASH/private-build
mkdir -p "$PRIVATE_BUILD" && chmod 700 "$PRIVATE_BUILD" && cp "$FORGEMCP" "$PRIVATE_BUILD/forgemcp" ||
	{ echo "Bail out! cannot copy $FORGEMCP"; exit 1; }
# The services run as forgemcp and nobody: they must be able to write their
# sanitizer reports where the end-of-script check reads them.
chmod 1777 "$TRASH/asan"

qs () {
	FORGEMCP_STATE=$QS_STATE FORGEMCP_PORT=$QS_PORT FORGEMCP_BUILD=$PRIVATE_BUILD \
		FORGEMCP_SKIP_APT=1 "$QS" "$@" </dev/null
}
USER_STATE=$TRASH/user-qs
USER_PORT=$(free_port)
trap 'c=$?; FORGEMCP_STATE=$QS_STATE "$QS" stop >/dev/null 2>&1
	FORGEMCP_STATE=$USER_STATE "$QS" stop >/dev/null 2>&1; (exit $c); test_exit_' EXIT

# as_other CMD...: CMD as uid and gid 65534 with no supplementary groups.
as_other () {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}

# user_of PID: the user a process runs as.
user_of () {
	ps -o user= -p "$1" | tr -d ' '
}

test_expect_success 'the quick start, started as root, runs' '
	qs >start.out 2>&1
	code=$?
	test_register_pids_in "$QS_STATE/run"
	cat start.out
	test "$code" = 0 &&
	grep -F "endpoint:  http://127.0.0.1:$QS_PORT/mcp" start.out
'
test_record_token "$(cat "$QS_STATE/token" 2>/dev/null)"

# Everything below would pass if the other user could not even reach the
# state directory's parent; it can, so the state directory itself keeps it out.
test_expect_success 'the other user can reach the directory that holds the state' '
	as_other ls "$TRASH" >parent.ls &&
	grep -qx qs parent.ls
'

test_expect_success 'the state directory is root'"'"'s, 0710 for the group forgemcp, and its secrets 0600' '
	test "$(stat -c "%U:%G %a" "$QS_STATE")" = "root:forgemcp 710" &&
	for f in token token.header forgemcp.conf db-password; do
		test "$(stat -c %a "$QS_STATE/$f")" = 600 || { echo "$f: $(stat -c %a "$QS_STATE/$f")"; return 1; }
	done
'

test_expect_success 'the other user cannot connect to the database as root' '
	test -S "$QS_STATE/sock/db.sock" &&
	test_must_fail as_other "$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root \
		-e "select user from mysql.user" >out 2>err &&
	cat err &&
	grep -E "ERROR (2002|1045|1698)" err &&
	test_must_fail grep -q . out
'

test_expect_success 'the other user cannot connect as forgemcp, even knowing its password' '
	pw=$(sed -n "s/^db_password = //p" "$QS_STATE/forgemcp.conf") &&
	test -n "$pw" &&
	test_must_fail env MYSQL_PWD="$pw" setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		"$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u forgemcp \
		-e "select count(*) from forgemcp.tokens" >out 2>err &&
	cat err &&
	grep -E "ERROR (2002|1045|1698)" err &&
	test_must_fail grep -q . out
'

test_expect_success 'the other user can neither list nor read anything in the state directory' '
	test_must_fail as_other ls "$QS_STATE" &&
	test_must_fail as_other cat "$QS_STATE/token" &&
	test_must_fail as_other cat "$QS_STATE/forgemcp.conf" &&
	find "$QS_STATE" -type f >files &&
	test "$(wc -l <files)" -gt 20 &&
	as_other sh -c "while read -r f; do cat \"\$f\" >/dev/null 2>&1 && echo \"\$f\"; done; exit 0" <files >readable &&
	if test -s readable; then echo "readable by the other user:"; cat readable; false; fi
'

test_expect_success 'the other user cannot create a file in the state directory' '
	for d in "$QS_STATE" "$QS_STATE/repos" "$QS_STATE/logs" "$QS_STATE/run"; do
		test_must_fail as_other touch "$d/planted" || return 1
		test ! -e "$d/planted" || return 1
	done
'

test_expect_success 'MariaDB does not run as root' '
	p=$(cat "$QS_STATE/run/mariadb.pid") &&
	u=$(user_of "$p") &&
	echo "mariadbd (pid $p) runs as $u" &&
	test "$u" = forgemcp
'

test_expect_success 'nginx'"'"'s workers, the FastCGI workers, the merge worker and the sdlc agents do not run as root' '
	n=$(cat "$QS_STATE/run/nginx.pid") &&
	ps -o pid=,user= --ppid "$n" >nginx.ps &&
	cat nginx.ps &&
	test -s nginx.ps &&
	test_must_fail grep -vE " forgemcp\$" nginx.ps &&
	f=$(cat "$QS_STATE/run/fcgi.pid") &&
	{ ps -o pid=,user= -p "$f"; ps -o pid=,user= --ppid "$f"; } >fcgi.ps &&
	cat fcgi.ps &&
	test "$(wc -l <fcgi.ps)" = 5 &&	# the master and the 4 workers of the default
	test_must_fail grep -vE " forgemcp\$" fcgi.ps &&
	test "$(user_of "$(cat "$QS_STATE/run/worker.pid")")" = forgemcp &&
	test "$(user_of "$(cat "$QS_STATE/run/agent.pid")")" = forgemcp &&
	test "$(user_of "$(cat "$QS_STATE/run/wikiagent.pid")")" = forgemcp
'

test_expect_success 'the services run a copy of a build their user cannot reach' '
	setpriv --reuid=forgemcp --regid=forgemcp --clear-groups -- test ! -x "$PRIVATE_BUILD/forgemcp" &&
	for c in fcgi worker; do
		test "$(readlink "/proc/$(cat "$QS_STATE/run/$c.pid")/exe")" = "$QS_STATE/bin/forgemcp" || return 1
	done &&
	cmp "$PRIVATE_BUILD/forgemcp" "$QS_STATE/bin/forgemcp"
'

test_expect_success 'the endpoint still answers through the unprivileged workers' '
	tok=$(cat "$QS_STATE/token") &&
	curl -s "http://127.0.0.1:$QS_PORT/mcp" -H @"$QS_STATE/token.header" \
		-H "Content-Type: application/json" \
		-d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}" >ping.json &&
	jq -e ".id == 3 and .result == {}" ping.json
'

test_expect_success 'the database root is the OS user who ran the quick start, without a password' '
	"$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -BN \
		-e "select current_user()" >who &&
	grep -x "root@localhost" who
'

test_expect_success 'SELECT ... INTO OUTFILE cannot write outside the private directory' '
	"$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -BN \
		-e "select @@secure_file_priv" >priv &&
	cat priv &&
	d=$(cat priv) &&
	case $d in "$QS_STATE"/*) ;; *) false ;; esac &&
	test "$(stat -c %a "$d")" = 700 &&
	for target in /tmp/t9210-outfile-$$ "$TRASH/outfile" /etc/t9210-outfile-$$; do
		test_must_fail "$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root \
			-e "select 1 into outfile \"$target\"" 2>err || return 1
		cat err
		grep -F "secure-file-priv" err || return 1
		test ! -e "$target" || { rm -f "$target"; return 1; }
	done
'

# What an earlier quick start left: a root without a password, a readable
# state directory and logs.
test_expect_success 'a state directory from an earlier quick start is locked down on its next start' '
	"$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -e "
		ALTER USER root@localhost IDENTIFIED VIA mysql_native_password USING PASSWORD(\"\");
		CREATE USER root@\"127.0.0.1\"; GRANT ALL ON *.* TO root@\"127.0.0.1\";" &&
	chmod 755 "$QS_STATE" "$QS_STATE/logs" "$QS_STATE/sock" &&
	chmod 644 "$QS_STATE"/logs/*.log &&
	as_other "$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -BN -e "select current_user()" >weak &&
	grep -x "root@localhost" weak &&
	FORGEMCP_STATE=$QS_STATE "$QS" stop >/dev/null &&
	qs >upgrade.out 2>&1
	code=$?
	test_register_pids_in "$QS_STATE/run"
	cat upgrade.out
	test "$code" = 0 &&
	grep -F "MariaDB'"'"'s administrator: unix_socket authentication for root only, no password" upgrade.out &&
	test "$(stat -c %a "$QS_STATE")" = 710 &&
	test "$(stat -c %a "$QS_STATE/logs/mariadb.log")" = 600 &&
	"$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -BN \
		-e "select concat(user, \"@\", host, \" \", json_value(priv, \"\$.plugin\")) from mysql.global_priv where user in (\"root\", \"\")" >root.accounts &&
	cat root.accounts &&
	test "$(cat root.accounts)" = "root@localhost unix_socket" &&
	test_when_finished "chmod 710 \"\$QS_STATE\"; chmod 700 \"\$QS_STATE/sock\"" &&
	chmod 711 "$QS_STATE" "$QS_STATE/sock" &&
	test_must_fail as_other "$MYSQL" --no-defaults -S "$QS_STATE/sock/db.sock" -u root -e "select 1" 2>err &&
	cat err &&
	grep -F "ERROR 1698" err
'

test_expect_success 'after that restart, the services still run as forgemcp and the state is still closed' '
	test_must_fail as_other ls "$QS_STATE" &&
	test "$(user_of "$(cat "$QS_STATE/run/mariadb.pid")")" = forgemcp &&
	test "$(user_of "$(cat "$QS_STATE/run/fcgi.pid")")" = forgemcp
'

# as_svc CMD...: CMD as the service user, as a compromised service would run it.
as_svc () {
	setpriv --reuid=forgemcp --regid=forgemcp --clear-groups -- "$@"
}

test_expect_success 'the service user can add nothing where root writes' '
	for d in "$QS_STATE" "$QS_STATE/logs" "$QS_STATE/run" "$QS_STATE/bin" "$QS_STATE/nginx" "$QS_STATE/nginx/tmp"; do
		test_must_fail as_svc ln -s /etc/passwd "$d/planted" 2>/dev/null || { echo "planted in $d"; return 1; }
		test ! -L "$d/planted" || return 1
	done &&
	test_must_fail as_svc mv "$QS_STATE/bin" "$QS_STATE/bin.away" 2>/dev/null &&
	test_must_fail as_svc rm -f "$QS_STATE/token.header" &&
	test -s "$QS_STATE/token.header" &&
	# what the services write is theirs
	for d in db files tmp repos sock; do
		test "$(stat -c %U "$QS_STATE/$d")" = forgemcp || { echo "$d: $(stat -c %U "$QS_STATE/$d")"; return 1; }
	done &&
	test "$(stat -c %U "$QS_STATE/repos/demo/notes.git/HEAD")" = forgemcp
'

# An earlier quick start gave the whole state directory to the service user,
# who could leave links for root's next start to write through.
test_expect_success 'links a service left in an earlier state directory are removed, never followed' '
	FORGEMCP_STATE=$QS_STATE "$QS" stop >/dev/null &&
	echo original >victim && chmod 644 victim &&
	mkdir victim.d && chmod 755 victim.d &&
	chown forgemcp:forgemcp "$QS_STATE" "$QS_STATE/logs" "$QS_STATE/nginx" "$QS_STATE/nginx/tmp" &&
	as_svc rm -f "$QS_STATE/port" "$QS_STATE/logs/migrate.log" "$QS_STATE/logs/mariadbd-stdout.log" &&
	as_svc ln -s "$TRASH/victim" "$QS_STATE/port" &&
	as_svc ln -s "$TRASH/victim" "$QS_STATE/logs/migrate.log" &&
	as_svc ln -s "$TRASH/victim" "$QS_STATE/logs/mariadbd-stdout.log" &&
	as_svc rm -rf "$QS_STATE/nginx/tmp/body" &&
	as_svc ln -s "$TRASH/victim.d" "$QS_STATE/nginx/tmp/body" &&
	qs >links.out 2>&1
	code=$?
	test_register_pids_in "$QS_STATE/run"
	cat links.out
	test "$code" = 0 &&
	test "$(cat victim)" = original &&
	test "$(stat -c "%U %a" victim)" = "root 644" &&
	test "$(stat -c "%U %a" victim.d)" = "root 755" &&
	test ! -L "$QS_STATE/port" && test "$(cat "$QS_STATE/port")" = "$QS_PORT" &&
	test ! -L "$QS_STATE/logs/migrate.log" &&
	test "$(stat -c "%U:%G %a" "$QS_STATE")" = "root:forgemcp 710" &&
	test "$(stat -c %U "$QS_STATE/logs")" = root &&
	grep -F "removing $QS_STATE/port" links.out &&
	FORGEMCP_STATE=$QS_STATE "$QS" stop
'

# The quick start run by an ordinary user (uid 65534 here, whose name is
# nobody), and another ordinary user (uid 65533) trying to get in.  This
# checkout belongs to root: git and libgit2 are told to trust it, as they
# would trust a user's own clone.
as_user () {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env HOME="$TRASH/user-home" \
		GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="*" "$@"
}
as_third () {
	setpriv --reuid=65533 --regid=65533 --clear-groups -- "$@"
}

test_expect_success 'run by an ordinary user, the quick start runs as that user' '
	mkdir -p "$TRASH/user-home" "$USER_STATE" &&
	chown 65534:65534 "$TRASH/user-home" "$USER_STATE" &&
	as_user env FORGEMCP_STATE="$USER_STATE" FORGEMCP_PORT=$USER_PORT \
		FORGEMCP_BUILD="$FORGEMCP_BUILD" FORGEMCP_SKIP_APT=1 "$QS" </dev/null >user.out 2>&1
	code=$?
	test_register_pids_in "$USER_STATE/run"
	cat user.out
	test "$code" = 0 &&
	grep -F "services:  run as the user nobody" user.out &&
	test "$(stat -c "%a %u" "$USER_STATE")" = "700 65534" &&
	test "$(user_of "$(cat "$USER_STATE/run/mariadb.pid")")" = nobody &&
	as_user "$MYSQL" --no-defaults -S "$USER_STATE/sock/db.sock" -u nobody -BN \
		-e "select current_user(), @@secure_file_priv" >admin &&
	cat admin &&
	test "$(cat admin)" = "nobody@localhost	$USER_STATE/files/"
'
test_record_token "$(cat "$USER_STATE/token" 2>/dev/null)"

test_expect_success 'another ordinary user gets nothing from it' '
	test -S "$USER_STATE/sock/db.sock" &&
	as_third ls "$TRASH" >/dev/null &&
	test_must_fail as_third ls "$USER_STATE" &&
	test_must_fail as_third cat "$USER_STATE/token" &&
	test_must_fail as_third touch "$USER_STATE/planted" &&
	for u in root nobody forgemcp; do
		test_must_fail as_third "$MYSQL" --no-defaults -S "$USER_STATE/sock/db.sock" -u $u \
			-e "select 1" 2>err || return 1
		grep -F "ERROR 2002" err || return 1
	done
'

test_expect_success 'the ordinary user'"'"'s MariaDB root is refused even to that user, and writes no file outside' '
	test_must_fail as_user "$MYSQL" --no-defaults -S "$USER_STATE/sock/db.sock" -u root -e "select 1" 2>err &&
	grep -F "ERROR 1698" err &&
	test_must_fail as_user "$MYSQL" --no-defaults -S "$USER_STATE/sock/db.sock" -u nobody \
		-e "select 1 into outfile \"/tmp/t9210-user-outfile-$$\"" 2>err &&
	grep -F "secure-file-priv" err &&
	test ! -e /tmp/t9210-user-outfile-$$ &&
	FORGEMCP_STATE=$USER_STATE "$QS" stop
'

test_done
