#!/bin/bash
# t9700: the Debian package (debian/).  dpkg-buildpackage builds it from a
# copy of the source tree's files, lintian finds no error in it, and
# `dpkg -i` installs it on this machine: the binary (and its name
# sdlc-hub, with the quick start `sdlc-hub serve` runs), the man pages, the
# samples, the systemd units (neither enabled nor started), the system user
# forgemcp and /etc/forgemcp.conf as a conffile, root:forgemcp 0640.  Then
# the installed configuration is pointed at a throwaway MariaDB, `forgemcp
# migrate` runs as forgemcp, and a request is served through the installed
# units: their socket, owner and mode, user and ExecStart, with
# systemd-socket-activate standing in for systemd (which need not be PID 1
# here; the sandboxing options of the units are not applied).  Last,
# `dpkg --purge` leaves nothing but what debian/README.Debian says it
# keeps: the system user and a repository directory that is not empty.
#
# It installs into the real root, so it runs as root only, refuses to run
# when forgemcp is installed already (as a package or by make install), and
# purges the package on any exit.  A user forgemcp that it caused to be
# created is removed at the end, leaving the machine as it found it.
# The package does not depend on the build under test: the ASan pass skips it.
# About 75 s on a quiet 2-core machine (140 s beside another suite), most of
# it the package build, which compiles the whole program once more with the
# packaging's flags (it cannot reuse the build under test); lintian takes
# 10 s.  etc/check runs it alone, after the parallel batch.
. ./test-lib.sh

is_root || skip_all "dpkg -i installs into the real root: run as root"
if asan_build; then
	skip_all "the package is built from the source tree, whatever the build under test: the plain pass tests it, not the ASan one"
fi
test -d "$SRC_DIR/debian" || skip_all "no debian/ directory in $SRC_DIR"
for c in dpkg-buildpackage dh lintian systemd-socket-activate setpriv runuser cgi-fcgi jq; do
	command -v "$c" >/dev/null || skip_all "$c is not installed (etc/check installs it)"
done
mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
getent group www-data >/dev/null || skip_all "there is no user www-data (the socket unit's SocketUser)"
if dpkg-query -W -f='${Status}\n' forgemcp 2>/dev/null | grep -qv '^unknown ok not-installed$'; then
	skip_all "a forgemcp package is installed already ($(dpkg-query -W -f='${Version} ${Status}' forgemcp)); this script installs and purges its own"
fi
for f in /usr/bin/forgemcp /etc/forgemcp.conf /lib/systemd/system/forgemcp.service /run/forgemcp; do
	test -e "$f" && skip_all "$f exists: forgemcp is installed here in another way"
done

# The user forgemcp: the package keeps it on purge (README.Debian); when it
# was not there before, the script removes it once the purge is checked.
USER_BEFORE=
id forgemcp >/dev/null 2>&1 && USER_BEFORE=1
INSTALLED=
RUN_DIR_MADE=
REPO_MADE=

cleanup_package_ () {
	stop_all >/dev/null 2>&1
	if test -n "$INSTALLED"; then
		dpkg --purge forgemcp >>"$TRASH/purge-at-exit.log" 2>&1
		INSTALLED=
	fi
	if test -n "$RUN_DIR_MADE"; then
		rm -rf /run/forgemcp
		RUN_DIR_MADE=
	fi
	if test -n "$REPO_MADE"; then
		rm -rf /var/lib/forgemcp/repos/alice
		rmdir /var/lib/forgemcp/repos /var/lib/forgemcp 2>/dev/null
		REPO_MADE=
	fi
	if test -z "$USER_BEFORE" && id forgemcp >/dev/null 2>&1; then
		userdel forgemcp >>"$TRASH/purge-at-exit.log" 2>&1
		getent group forgemcp >/dev/null && groupdel forgemcp >>"$TRASH/purge-at-exit.log" 2>&1
	fi
	return 0
}
package_exit_ () {
	local code=$?
	cleanup_package_
	(exit $code)
	test_exit_
}
trap package_exit_ EXIT

start_db
# The installed forgemcp reads /etc/forgemcp.conf, not the test configuration.
unset FORGEMCP_CONFIG

# --- build ------------------------------------------------------------------------

PKG=$TRASH/pkg
status_before=$(git -C "$SRC_DIR" status --porcelain 2>/dev/null)

test_expect_success 'dpkg-buildpackage builds the package from a copy of the source tree' '
	mkdir -p "$PKG/src" &&
	if git -C "$SRC_DIR" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$SRC_DIR" && git ls-files -z | tar --null -cf - -T -) | tar -xf - -C "$PKG/src"
	else
		tar -C "$SRC_DIR" --exclude=./t/trash --exclude="./_build*" -cf - . | tar -xf - -C "$PKG/src"
	fi &&
	(
		cd "$PKG/src" &&
		unset MAKEFLAGS MFLAGS MAKELEVEL &&
		DEB_BUILD_OPTIONS="nocheck noautodbgsym parallel=2" dpkg-buildpackage -us -uc -b
	) >"$PKG/build.log" 2>&1 || { tail -n 40 "$PKG/build.log"; false; } &&
	DEB=$(ls "$PKG"/forgemcp_*_*.deb) &&
	test -f "$DEB" &&
	note "built $(basename "$DEB"), $(stat -c %s "$DEB") bytes"
'
DEB=$(ls "$PKG"/forgemcp_*_*.deb 2>/dev/null)
test -f "$DEB" || { echo "Bail out! no package was built (see $PKG/build.log)"; exit 1; }

test_expect_success 'the build left the source tree as it was' '
	test "$(git -C "$SRC_DIR" status --porcelain 2>/dev/null)" = "$status_before"
'

test_expect_success 'the version is the one configure.ac declares' '
	version=$(sed -n "s/^AC_INIT(\[forgemcp\], \[\([^]]*\)\].*/\1/p" "$SRC_DIR/configure.ac") &&
	test -n "$version" &&
	test "$(dpkg-deb -f "$DEB" Version)" = "$version"
'

test_expect_success 'lintian finds no error' '
	lintian --fail-on error "$PKG"/forgemcp_*.changes >lintian.out 2>&1
	code=$?
	cat lintian.out
	grep "^[WI]:" lintian.out | while read -r line; do note "lintian: $line"; done
	test "$code" = 0 &&
	test_must_fail grep -q "^E:" lintian.out
'

test_expect_success 'its maintainer scripts start no service' '
	dpkg-deb -e "$DEB" control &&
	grep -q "adduser --system" control/postinst &&
	test_must_fail grep -E "deb-systemd-invoke|invoke-rc.d|systemctl .*(start|enable)" control/postinst
'

# --- install -----------------------------------------------------------------------

test_expect_success 'dpkg -i installs it' '
	INSTALLED=1 &&
	dpkg -i "$DEB" >install.log 2>&1 || { cat install.log; false; } &&
	dpkg-query -W -f="\${Status}\n" forgemcp | grep -qx "install ok installed"
'
INSTALLED=1

test_expect_success 'the binary, the man pages and the samples are installed' '
	test -x /usr/bin/forgemcp &&
	/usr/bin/forgemcp --version >version.out &&
	grep "$(dpkg-deb -f "$DEB" Version)" version.out &&
	for m in man1/forgemcp.1 man5/forgemcp.conf.5 man8/forgemcp-fcgi.8; do
		test -f /usr/share/man/$m.gz || { echo "missing man page $m"; return 1; }
	done &&
	for s in nginx-forgemcp.conf.sample apache-proxy-fcgi.conf.sample apache-fcgid.conf.sample \
		htaccess.sample README.Debian copyright; do
		ls /usr/share/doc/forgemcp/$s /usr/share/doc/forgemcp/$s.gz 2>/dev/null | grep -q . ||
			{ echo "missing sample $s"; return 1; }
	done &&
	test "$(readlink /usr/bin/sdlc-hub)" = forgemcp &&
	/usr/bin/sdlc-hub serve --help | grep -q "^usage: sdlc-hub serve" &&
	for f in quickstart demo-tracker.json nginx-forgemcp.conf.sample; do
		test -f /usr/share/forgemcp/etc/$f || { echo "missing /usr/share/forgemcp/etc/$f"; return 1; }
	done
'

test_expect_success 'the units are installed and name /usr/bin/forgemcp' '
	for u in forgemcp.socket forgemcp.service forgemcp-worker.service forgemcp-runner.service; do
		test -f /lib/systemd/system/$u || { echo "missing unit $u"; return 1; }
	done &&
	grep -x "ExecStart=/usr/bin/forgemcp --config /etc/forgemcp.conf fcgi --workers 4" \
		/lib/systemd/system/forgemcp.service &&
	grep -x "ExecStart=/usr/bin/forgemcp --config /etc/forgemcp.conf worker --interval 1" \
		/lib/systemd/system/forgemcp-worker.service &&
	grep -x "ExecStart=/usr/bin/forgemcp --config /etc/forgemcp.conf runner --grace 30" \
		/lib/systemd/system/forgemcp-runner.service &&
	test_must_fail grep -r /usr/local /lib/systemd/system/forgemcp.socket \
		/lib/systemd/system/forgemcp.service /lib/systemd/system/forgemcp-worker.service \
		/lib/systemd/system/forgemcp-runner.service &&
	test_must_fail ls /usr/share/doc/forgemcp/forgemcp.service
'

printf '[Unit]\nDescription=probe\n[Service]\nExecStart=/bin/true\n' >probe.service
if command -v systemd-analyze >/dev/null && systemd-analyze verify ./probe.service >/dev/null 2>&1; then
	test_expect_success 'systemd-analyze verify accepts the installed units' '
		systemd-analyze verify /lib/systemd/system/forgemcp.socket \
			/lib/systemd/system/forgemcp.service \
			/lib/systemd/system/forgemcp-worker.service \
			/lib/systemd/system/forgemcp-runner.service >verify.out 2>&1
		code=$?
		cat verify.out
		test "$code" = 0 &&
		test_must_fail grep -iE "unknown|invalid|ignoring|not executable" verify.out
	'
else
	say "skipping systemd-analyze verify: it cannot run here"
fi

test_expect_success 'the system user and group forgemcp exist' '
	getent passwd forgemcp >passwd.out &&
	uid=$(cut -d: -f3 passwd.out) &&
	test "$uid" -lt 1000 &&
	getent group forgemcp &&
	test "$(id -gn forgemcp)" = forgemcp &&
	case $(cut -d: -f7 passwd.out) in */nologin|/bin/false) ;; *) false ;; esac
'

test_expect_success '/etc/forgemcp.conf is a conffile, root:forgemcp 0640, the sample as shipped' '
	dpkg-query -W -f="\${Conffiles}\n" forgemcp | grep -q "^ /etc/forgemcp.conf " &&
	test "$(stat -c "%U:%G %a" /etc/forgemcp.conf)" = "root:forgemcp 640" &&
	test_cmp "$SRC_DIR/etc/forgemcp.conf.sample" /etc/forgemcp.conf &&
	test_must_fail runuser -u nobody -- cat /etc/forgemcp.conf &&
	runuser -u forgemcp -- cat /etc/forgemcp.conf >/dev/null
'

test_expect_success 'the repository directory belongs to forgemcp' '
	test "$(stat -c "%U:%G %a" /var/lib/forgemcp/repos)" = "forgemcp:forgemcp 750"
'

test_expect_success 'nothing is enabled or started' '
	test_must_fail ls /etc/systemd/system/*.wants/forgemcp* 2>/dev/null &&
	for u in forgemcp.socket forgemcp.service forgemcp-worker.service forgemcp-runner.service; do
		state=$(systemctl is-enabled $u 2>&1)
		test "$state" = disabled || { echo "$u: $state"; return 1; }
	done &&
	test_must_fail pgrep -f "^/usr/bin/forgemcp" &&
	test ! -e /run/forgemcp
'

# --- configure, migrate, serve --------------------------------------------------------

test_expect_success 'an unconfigured instance refuses to start' '
	test_must_fail runuser -u forgemcp -- /usr/bin/forgemcp migrate 2>unconfigured.err &&
	cat unconfigured.err &&
	test -s unconfigured.err
'

test_expect_success 'the installed configuration points at the throwaway database' '
	cat >>/etc/forgemcp.conf <<-EOF &&

	# added by $TEST_NAME
	db_socket = $DB_SOCK
	db_user = $DB_USER
	db_password = $DB_PASSWORD
	db_name = $DB_NAME
	repo_root = /var/lib/forgemcp/repos
	EOF
	test "$(stat -c "%U:%G %a" /etc/forgemcp.conf)" = "root:forgemcp 640"
'

test_expect_success 'forgemcp migrate runs as the user forgemcp' '
	runuser -u forgemcp -- /usr/bin/forgemcp migrate >migrate.out 2>migrate.err || { cat migrate.err; false; } &&
	cat migrate.out &&
	test "$(db_sql "select count(*) from information_schema.tables where table_schema = \"$DB_NAME\"")" -gt 5 &&
	runuser -u forgemcp -- /usr/bin/forgemcp migrate >migrate2.out 2>&1
'

test_expect_success 'a user and a token made with the installed binary' '
	runuser -u forgemcp -- /usr/bin/forgemcp user add alice --name "Alice" --email alice@example.com &&
	runuser -u forgemcp -- /usr/bin/forgemcp token create --user alice --scopes read >token.out &&
	test "$(wc -l <token.out)" = 1 &&
	test_record_token "$(cat token.out)"
'
TOKEN=$(cat token.out 2>/dev/null)

# unit_value UNIT KEY: the value of KEY= in the installed UNIT.
unit_value () {
	sed -n "s/^$2=//p" "/lib/systemd/system/$1"
}
LISTEN=$(unit_value forgemcp.socket ListenStream)
read -ra EXEC <<<"$(unit_value forgemcp.service ExecStart)"

# www_request BODYFILE [NAME=VALUE...]: one FastCGI request on the unit's
# socket, made as the socket's user (the web server).
www_request () {
	local file=$1
	shift
	mapfile -t cgienv < <(cgi_env_ "$file")
	setpriv --reuid="$(unit_value forgemcp.socket SocketUser)" \
		--regid="$(unit_value forgemcp.socket SocketGroup)" --init-groups -- \
		env -i "${cgienv[@]}" "$@" cgi-fcgi -bind -connect "$LISTEN" <"$file" \
		>"$RESP.raw" 2>"$RESP.err" || { echo "cgi-fcgi failed:"; cat "$RESP.err"; return 1; }
	{ echo '### fastcgi'; cat "$RESP.raw"; echo; } >>"$RESPONSES_LOG"
	parse_cgi_output_ "$RESP.raw"
}

test_expect_success 'the socket unit listens where the service runs as its user' '
	test "$LISTEN" = /run/forgemcp/fcgi.sock &&
	test "${EXEC[0]}" = /usr/bin/forgemcp &&
	test "$(unit_value forgemcp.service User)" = forgemcp &&
	test "$(unit_value forgemcp.service Group)" = forgemcp
'

# What systemd does with the two units: it makes the socket (and its
# directory), gives it the unit's owner and mode, and on the first
# connection starts ExecStart as User and Group with the socket as fd 3.
RUN_DIR_MADE=1
mkdir -p "$(dirname "$LISTEN")"
systemd-socket-activate -l "$LISTEN" \
	setpriv --reuid="$(unit_value forgemcp.service User)" \
	--regid="$(unit_value forgemcp.service Group)" --init-groups -- \
	"${EXEC[@]}" </dev/null >/dev/null 2>>"$SERVER_LOG" 7>&- &
ACT_PID=$!
test_register_pid $ACT_PID

test_expect_success 'the socket is there, with the owner and mode of the unit, before forgemcp runs' '
	wait_for 10 test -S "$LISTEN" &&
	chown "$(unit_value forgemcp.socket SocketUser):$(unit_value forgemcp.socket SocketGroup)" "$LISTEN" &&
	chmod "$(unit_value forgemcp.socket SocketMode)" "$LISTEN" &&
	test "$(stat -c "%U:%G %a" "$LISTEN")" = "www-data:www-data 660" &&
	test -z "$(pgrep -P $ACT_PID)"
'

test_expect_success 'tools/list through the installed units: forgemcp runs as forgemcp' '
	modern_body tools/list >list.json &&
	TOKEN=$TOKEN www_request list.json HTTP_MCP_PROTOCOL_VERSION=$MODERN_VERSION \
		HTTP_MCP_METHOD=tools/list &&
	test_status 200 &&
	test_jq ".result.tools | length >= 2" &&
	test_jq "[.result.tools[].name] | index(\"get_file_contents\") != null" &&
	wait_for 10 eval "test \"\$(pgrep -P $ACT_PID | wc -l)\" = 4" &&
	tr "\0" " " </proc/$ACT_PID/cmdline | grep "^/usr/bin/forgemcp --config /etc/forgemcp.conf fcgi --workers 4" &&
	for p in $ACT_PID $(pgrep -P $ACT_PID); do
		test "$(ps -o user= -p $p)" = forgemcp || return 1
	done
'

test_expect_success 'a request without a token is refused' '
	legacy_body ping >ping.json &&
	TOKEN= www_request ping.json &&
	test_status 401
'

test_expect_success 'SIGTERM stops the service' '
	stop_pid "$ACT_PID" 15 &&
	test_must_fail pgrep -f "^/usr/bin/forgemcp"
'
rm -rf /run/forgemcp
RUN_DIR_MADE=

read -ra WEXEC <<<"$(unit_value forgemcp-worker.service ExecStart)"
test_expect_success 'the merge worker unit runs its ExecStart as forgemcp' '
	setpriv --reuid="$(unit_value forgemcp-worker.service User)" \
		--regid="$(unit_value forgemcp-worker.service Group)" --init-groups -- \
		"${WEXEC[@]}" </dev/null >worker.out 2>>"$SERVER_LOG" 7>&- &
	wpid=$!
	test_register_pid $wpid
	sleep 1.5 &&
	proc_alive $wpid &&
	test "$(ps -o user= -p $wpid)" = forgemcp &&
	stop_pid $wpid 30 &&
	test "$STOP_STATUS" = 0
'

# --- purge -------------------------------------------------------------------------------

REPO_MADE=1
test_expect_success 'a repository put under /var/lib/forgemcp/repos' '
	mkdir -p /var/lib/forgemcp/repos/alice &&
	git init -q --bare /var/lib/forgemcp/repos/alice/kept.git &&
	chown -R forgemcp:forgemcp /var/lib/forgemcp/repos/alice
'

test_expect_success 'dpkg --purge removes the package' '
	dpkg -L forgemcp >files.list &&
	dpkg --purge forgemcp >purge.log 2>&1 || { cat purge.log; false; } &&
	INSTALLED= &&
	cat purge.log &&
	dpkg-query -W -f="\${Status}\n" forgemcp >status.out 2>&1
	cat status.out &&
	test_must_fail grep -q " installed\$" status.out
'
INSTALLED=

test_expect_success 'nothing is left but the user and the repository (and what other packages own)' '
	left= &&
	while read -r f; do
		case $f in
		/.|/var/lib/forgemcp|/var/lib/forgemcp/repos) ;;
		*)	if test -e "$f" && ! dpkg -S "$f" >/dev/null 2>&1; then
				left="$left $f"
			fi ;;
		esac
	done <files.list &&
	test -z "$left" || { echo "left behind:$left"; false; } &&
	test ! -e /etc/forgemcp.conf &&
	test_must_fail ls /etc/forgemcp.conf.* 2>/dev/null &&
	test_must_fail ls /var/lib/dpkg/info/forgemcp.* 2>/dev/null &&
	test -z "$(find /var/lib/systemd/deb-systemd-helper-enabled \
		/var/lib/systemd/deb-systemd-helper-masked -name "*forgemcp*" 2>/dev/null)" &&
	test_must_fail ls /etc/systemd/system/*.wants/forgemcp* 2>/dev/null &&
	test ! -e /run/forgemcp &&
	test -d /var/lib/forgemcp/repos/alice/kept.git &&
	id forgemcp
'

test_expect_success 'the repository is all that is left under /var/lib/forgemcp' '
	rm -rf /var/lib/forgemcp/repos/alice &&
	rmdir /var/lib/forgemcp/repos /var/lib/forgemcp &&
	test ! -e /var/lib/forgemcp
'
REPO_MADE=

test_done
