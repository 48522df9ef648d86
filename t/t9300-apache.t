#!/bin/bash
# t9300: Apache 2.4 in front of forgemcp, both samples rendered with test
# paths: etc/apache-proxy-fcgi.conf.sample (mod_proxy_fcgi to forgemcp's own
# workers) and etc/apache-fcgid.conf.sample (mod_fcgid runs the binary).  Real
# MCP calls go through Apache; the bearer token must get through.
. ./test-lib.sh

APACHE=$(command -v apache2 || echo /usr/sbin/apache2)
test -x "$APACHE" || skip_all "apache2 is not installed (etc/check installs apache2 and libapache2-mod-fcgid)"
MODS=/usr/lib/apache2/modules
for m in proxy proxy_fcgi fcgid setenvif alias rewrite authz_core mpm_event; do
	test -f "$MODS/mod_$m.so" || skip_all "Apache module mod_$m is not installed ($MODS)"
done

# When the suite runs as root, Apache serves as www-data: what its children
# touch (the FastCGI socket, and for mod_fcgid the binary, its configuration,
# the MariaDB socket and the repositories) lives in a world-traversable
# directory of its own, removed at the end.
AP_USER=
if is_root; then
	AP_USER=www-data
	getent passwd "$AP_USER" >/dev/null || AP_USER=nobody
fi
APDIR=$(mktemp -d /tmp/forgemcp-t9300.XXXXXX) || exit 1
chmod 755 "$APDIR"
mkdir -p "$APDIR/run" "$APDIR/asan" "$APDIR/fcgid" "$TRASH/apache"
test -z "$AP_USER" || chown "$AP_USER" "$APDIR/asan" "$APDIR/fcgid"
chmod 1777 "$APDIR/asan"
trap 'c=$?; rm -rf "$APDIR"; (exit $c); test_exit_' EXIT

HTTP_PORT=$(free_port)
DB_SOCK=$APDIR/db.sock
start_db
config_set repo_root "$APDIR/repos"
mkdir -p "$APDIR/repos"
migrate_db
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
chmod -R a+rX "$APDIR/repos"
# mod_fcgid: the binary and its configuration where www-data reaches them
cp "$FORGEMCP" "$APDIR/forgemcp"
cp "$CONFIG" "$APDIR/forgemcp.conf"
chmod 644 "$APDIR/forgemcp.conf"
chmod 755 "$APDIR/forgemcp"

APACHE_PID=
BASE_URL=http://127.0.0.1:$HTTP_PORT

# write_apache_conf SAMPLE MODULES...: httpd.conf around the rendered sample.
write_apache_conf () {
	local sample=$1 m
	shift
	sed -e "s|@PORT@|$HTTP_PORT|g" -e "s|@SERVER_NAME@|127.0.0.1|g" \
	    -e "s|@SOCKET@|$APDIR/fcgi.sock|g" -e "s|@FORGEMCP@|$APDIR/forgemcp|g" \
	    -e "s|@CONFIG@|$APDIR/forgemcp.conf|g" \
	    "$SRC_DIR/etc/$sample" >"$TRASH/apache/site.conf"
	{
		echo "# written by $TEST_NAME around etc/$sample"
		echo "ServerRoot $TRASH/apache"
		for m in mpm_event authz_core "$@"; do
			echo "LoadModule ${m}_module $MODS/mod_$m.so"
		done
		if test -n "$AP_USER"; then
			echo "User $AP_USER"
			echo "Group $(id -gn "$AP_USER")"
		fi
		cat <<-EOF
		ServerName 127.0.0.1
		Listen 127.0.0.1:$HTTP_PORT
		PidFile $APDIR/run/httpd.pid
		DefaultRuntimeDir $APDIR/run
		Mutex file:$APDIR/run default
		ErrorLog $TRASH/apache/error.log
		LogLevel warn
		LogFormat "%h %r %>s %b" plain
		CustomLog $TRASH/apache/access.log plain
		StartServers 1
		ServerLimit 2
		ThreadsPerChild 8
		MaxRequestWorkers 16
		<IfModule fcgid_module>
			FcgidIPCDir $APDIR/fcgid
			FcgidProcessTableFile $APDIR/fcgid/shm
			FcgidInitialEnv ASAN_OPTIONS log_path=$APDIR/asan/asan:detect_leaks=1:abort_on_error=0
			FcgidInitialEnv UBSAN_OPTIONS print_stacktrace=1:log_path=$APDIR/asan/ubsan
		</IfModule>
		Include $TRASH/apache/site.conf
		EOF
	} >"$TRASH/apache/httpd.conf"
}

start_apache () {
	"$APACHE" -f "$TRASH/apache/httpd.conf" -t >"$TRASH/apache/t.out" 2>&1 || {
		echo "apache rejects the rendered configuration:"
		cat "$TRASH/apache/t.out"
		return 1
	}
	"$APACHE" -f "$TRASH/apache/httpd.conf" -DFOREGROUND </dev/null \
		>>"$TRASH/apache/stdout.log" 2>&1 &
	APACHE_PID=$!
	test_register_pid $APACHE_PID
	wait_for 10 curl -s -o /dev/null "$BASE_URL/" || {
		echo "apache did not start on $BASE_URL:"
		cat "$TRASH/apache/error.log"
		return 1
	}
}

stop_apache () {
	test -n "$APACHE_PID" || return 0
	stop_pid "$APACHE_PID" 15
	APACHE_PID=
	! curl -s -o /dev/null "$BASE_URL/"
}

# The same user-visible checks for both variants.
apache_calls () {
	test_expect_success "$1: a modern tools/list with the bearer token" '
		mcp_modern tools/list &&
		test_status 200 &&
		test_header Content-Type "^application/json" &&
		test_jq ".result.tools | length >= 2" &&
		test_common_headers
	'
	test_expect_success "$1: a legacy initialize" '
		mcp_legacy initialize "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" &&
		test_status 200 &&
		test_json .result.protocolVersion "\"2025-06-18\""
	'
	test_expect_success "$1: the Authorization header gets through (per-user visibility)" '
		tool_call list_repositories "{}" --token "$CAROL_TOKEN" &&
		test_status 200 &&
		tool_text | jq -e "map(.full_name) | index(\"bob/hidden\") != null" &&
		tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$BOB_TOKEN" &&
		test_status 200 &&
		tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
		tool_call list_repositories "{}" --token "$ALICE_TOKEN" &&
		tool_text | jq -e "map(.full_name) | index(\"bob/hidden\") == null"
	'
	test_expect_success "$1: a git walk is answered: the end of the request is no hang-up" '
		tool_ok list_commits "{\"repo\":\"alice/fixture\",\"limit\":2}" &&
		jq -e ".commits | length == 2" out.json
	'
	test_expect_success "$1: no token is 401 with the Bearer challenge" '
		mcp_legacy ping null --no-auth &&
		test_status 401 &&
		test_header WWW-Authenticate "^Bearer realm=\"forgemcp\"" &&
		test_json .error.code -32001 &&
		mcp_legacy ping null --token not-a-token &&
		test_status 401
	'
	test_expect_success "$1: a foreign Origin is 403, a body over 64 KiB is 413" '
		mcp_legacy ping null -H "Origin: http://evil.example.com" &&
		test_status 403 &&
		head -c 70000 /dev/zero | tr "\0" " " >big &&
		mcp_post --file big &&
		test_status 413
	'
	test_expect_success "$1: the endpoint's toolset and read-only paths, and the sdlc hub's API" '
		mcp_post --path /mcp/x/repos "$(legacy_body tools/list)" &&
		test_status 200 &&
		test_jq "[.result.tools[].name] | index(\"list_repositories\") != null and index(\"create_issue\") == null" &&
		mcp_post --path /mcp/readonly "$(legacy_body tools/list)" &&
		test_status 200 &&
		test_jq "[.result.tools[].name] | index(\"get_file_contents\") != null and index(\"create_issue\") == null" &&
		mcp_post -X GET --path /hub/projects &&
		test_status 200 &&
		test_jq ".projects | type == \"array\"" &&
		mcp_post -X GET --path /hub/projects --no-auth &&
		test_status 401 &&
		mcp_post -X GET --path /hub/nothing &&
		test_status 404
	'
	test_expect_success "$1: other paths do not reach forgemcp" '
		mcp_post --path /etc/passwd "$(legacy_body ping)" &&
		test_status 403
	'
}

# --- mod_proxy_fcgi -----------------------------------------------------------

FCGI_SOCK=$APDIR/fcgi.sock
rm -f "$FCGI_SOCK"
"$FORGEMCP" fcgi --listen "$FCGI_SOCK" --workers 2 --socket-mode 0666 2>>"$SERVER_LOG" </dev/null &
SERVER_PID=$!
wait_for 20 test -S "$FCGI_SOCK" || { echo "Bail out! forgemcp fcgi did not start"; exit 1; }

write_apache_conf apache-proxy-fcgi.conf.sample proxy proxy_fcgi setenvif alias
test_expect_success 'mod_proxy_fcgi: apache starts with the rendered sample' '
	start_apache
'
apache_calls mod_proxy_fcgi

test_expect_success 'mod_proxy_fcgi: apache stops' '
	stop_apache
'
stop_server

# --- mod_fcgid ----------------------------------------------------------------

write_apache_conf apache-fcgid.conf.sample fcgid setenvif alias rewrite
test_expect_success 'mod_fcgid: apache starts with the rendered sample' '
	start_apache
'
apache_calls mod_fcgid

test_expect_success 'mod_fcgid: the processes run the binary and log to the error log' '
	pgrep -f "^$APDIR/forgemcp" >fcgid.pids &&
	test -s fcgid.pids &&
	grep -E "(POST|tools/list|initialize)" "$TRASH/apache/error.log"
'

test_expect_success 'mod_fcgid: stopping apache stops the forgemcp processes' '
	stop_apache &&
	wait_for 10 eval "! pgrep -f \"^$APDIR/forgemcp\" >/dev/null"
'
# a report of a forgemcp process lands in the suite's sanitizer directory
cp "$APDIR"/asan/* "$TRASH/asan/" 2>/dev/null
for p in $(pgrep -f "^$APDIR/forgemcp"); do test_register_pid "$p"; done

test_done
