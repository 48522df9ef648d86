#!/bin/bash
# t9230: forgemcp under the name sdlc-hub, as the sdlc hub's specification
# writes its commands.  An ordinary user (uid 65534, its own home) runs
# `sdlc-hub serve`: a local hub (the quick start's stack in its hub mode)
# under ~/.local/share/forgemcp; `sdlc-hub mcp jira --project DEMO`, with
# nothing configured, finds that hub and its token there, and a batch it
# makes is run by the local agent; once the hub is stopped, a tool answers
# «хаб не запущен: sdlc-hub serve».  A user who may not read the machine's
# configuration file still gets the module server, from the environment (in
# a private mount namespace whose /etc holds a forgemcp.conf only root may
# read).  Needs root (to act as those users).
# About 15 s: one MariaDB datadir, no repository imported.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/sdlc.sh"

mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"
command -v mariadb-install-db >/dev/null || skip_all "mariadb-install-db is not installed"
nginx_bin >/dev/null || skip_all "nginx is not installed"
is_root || skip_all "acting as an ordinary user needs root (setpriv)"
command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"
HUB=$FORGEMCP_BUILD/sdlc-hub
test -L "$HUB" || { echo "Bail out! no sdlc-hub link at $HUB (make builds it)"; exit 1; }

HOME_DIR=$TRASH/user-home
STATE=$HOME_DIR/.local/share/forgemcp
PORT=$(free_port)
mkdir -p "$HOME_DIR" && chown 65534:65534 "$HOME_DIR"
# The user's processes write their sanitizer reports where the end-of-script check reads them.
chmod 1777 "$TRASH/asan"

# as_user CMD...: CMD as uid 65534 with its home, no forgemcp settings, and
# git trusting this root-owned checkout as a user trusts a clone of its own.
as_user () {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- env -u FORGEMCP_CONFIG \
		-u FORGEMCP_HUB_URL -u FORGEMCP_HUB_TOKEN -u FORGEMCP_TOKEN -u FORGEMCP_STATE \
		-u XDG_DATA_HOME HOME="$HOME_DIR" \
		GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0="*" "$@"
}
# hubcmd ARGS...: sdlc-hub run by the user
hubcmd () {
	as_user FORGEMCP_PORT=$PORT FORGEMCP_SKIP_APT=1 timeout 120 "$HUB" "$@" </dev/null
}
# hubmcp < LINES: sdlc-hub mcp jira --project DEMO run by the user, answers in out
hubmcp () {
	as_user timeout 60 "$HUB" mcp jira --project DEMO >out 2>err
}
# exits N CMD...: CMD exits with status N
exits () {
	local want=$1 code=0
	shift
	"$@" || code=$?
	test "$code" = "$want" || { echo "exit status $code, not $want: $*"; return 1; }
}
trap 'c=$?; hubcmd stop >/dev/null 2>&1; (exit $c); test_exit_' EXIT

test_expect_success 'sdlc-hub has the commands mcp and serve, and names them when given another' '
	exits 2 "$HUB" >none.out 2>none.err &&
	grep -q "sdlc-hub serve \[start|status|stop|env\]" none.err &&
	exits 2 "$HUB" user list 2>user.err &&
	grep -q "sdlc-hub: unknown command .user. (mcp, serve)" user.err &&
	exits 2 "$HUB" serve restart 2>serve.err &&
	grep -q "unknown command .restart. (start, status, stop, env)" serve.err &&
	"$HUB" serve --help >help.out &&
	grep -q "XDG_DATA_HOME/forgemcp" help.out &&
	exits 2 "$HUB" mcp 2>mcp.err &&
	grep -qx "модули: jira, wiki" mcp.err
'

test_expect_success 'sdlc-hub serve starts a local hub under the user'"'"'s data directory' '
	hubcmd serve >serve.out 2>&1
	code=$?
	test_register_pids_in "$STATE/run"
	cat serve.out
	test $code = 0 &&
	grep -qx "The sdlc hub runs." serve.out &&
	grep -q "hub:       http://127.0.0.1:$PORT/hub" serve.out &&
	grep -q "^sdlc-hub serve: " serve.out &&
	grep -qF "{\"mcpServers\": {\"sdlc-jira\": {\"command\": \"$FORGEMCP_BUILD/forgemcp\", \"args\": [\"mcp\", \"jira\", \"--project\", \"DEMO\"]}}}" serve.out &&
	test "$(cat "$STATE/port")" = "$PORT" &&
	test "$(stat -c "%a %u" "$STATE")" = "700 65534" &&
	test_must_fail test -e "$STATE/repos/demo/forgemcp.git" &&
	hubcmd serve status >status.out &&
	grep -q "agent    running" status.out
'

test_expect_success 'sdlc-hub mcp jira finds the local hub and its token, with nothing configured' '
	{ echo "$INIT"; call 2 issues "{}"; } | hubmcp &&
	text 2 >issues.txt &&
	head -n 1 issues.txt | grep -q "^ключ | тема | статус" &&
	grep -q "^DEMO-1 | Подключить Claude Code к трекеру | В работе" issues.txt
'

test_expect_success 'a batch made through it is run by the local agent, and the issue is in issues' '
	{ echo "$INIT"
	  call 2 batch_create "{\"title\":\"serve\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Проверить sdlc-hub serve\"}]}"
	} | hubmcp &&
	text 2 >made.txt &&
	id=$(sed -n "s/^пакет #\([0-9]*\) поставлен.*/\1/p" made.txt) &&
	test -n "$id" &&
	{ echo "$INIT"; call 3 batch_wait "{\"id\":$id}"; call 4 issues "{}"; } | hubmcp &&
	text 3 | head -n 1 | grep -q ": done$" &&
	text 4 | grep -q "^DEMO-[0-9]* | Проверить sdlc-hub serve | Новая"
'

test_expect_success 'after sdlc-hub serve stop, a tool says the hub is not running and the server goes on' '
	hubcmd serve stop >stop.out &&
	exits 3 hubcmd serve status >status2.out &&
	{ echo "$INIT"; call 2 issues "{}"; call 3 projects "{}"; } | hubmcp &&
	test "$(text 2)" = "хаб не запущен: sdlc-hub serve" &&
	test "$(text 3)" = "хаб не запущен: sdlc-hub serve"
'

# In a private mount namespace, /etc is an overlay holding a forgemcp.conf
# only root may read; the commands run as uid 65534.
as_nobody_with_conf () {
	unshare --mount --fork sh -ec '
		mkdir -p "$1/upper" "$1/work"
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc
		printf "db_password = secret\n" >/etc/forgemcp.conf
		chmod 600 /etc/forgemcp.conf
		shift
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	' sh "$TRASH/etc-overlay" "$@"
}

# ETC_OVERLAY: a private mount namespace can lay an overlay on /etc, which
# is where this build reads its configuration file.
test_prereq_ETC_OVERLAY_ () {
	command -v unshare >/dev/null && unshare --mount --fork true 2>/dev/null &&
	grep -qx "sysconfdir = /etc" "$FORGEMCP_BUILD/Makefile"
}
TEST_PREREQ_WHY_ETC_OVERLAY="needs unshare --mount and a build whose configuration file is in /etc"

test_expect_success ETC_OVERLAY 'mcp skips a configuration file the user may not read; other commands refuse it' '
	rm -rf "$TRASH/etc-overlay" && mkdir -p "$TRASH/etc-overlay" &&
	cp "$FORGEMCP" "$TRASH/etc-overlay/forgemcp" && chmod 755 "$TRASH/etc-overlay" "$TRASH/etc-overlay/forgemcp" &&
	{ echo "$INIT"; call 2 projects "{}"; } >lines &&
	as_nobody_with_conf env -u FORGEMCP_CONFIG FORGEMCP_HUB_URL=http://127.0.0.1:9/hub \
		"$TRASH/etc-overlay/forgemcp" mcp jira <lines >out 2>err &&
	test "$(text 2)" = "хаб не запущен: sdlc-hub serve" &&
	test_must_fail as_nobody_with_conf env -u FORGEMCP_CONFIG \
		"$TRASH/etc-overlay/forgemcp" user list 2>refused.err &&
	grep -q "cannot read configuration file /etc/forgemcp.conf: Permission denied" refused.err
'

test_done
