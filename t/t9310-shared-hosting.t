#!/bin/bash
# t9310: shared hosting as doc/shared-hosting.md sets it up: Apache run by an
# unprivileged user (uid 65534 when the suite runs as root), whose main
# configuration only gives the user's web directory AllowOverride All and
# says nothing of forgemcp; the binary copied there as forgemcp.cgi beside
# etc/htaccess.sample rendered with the test's paths; the configuration
# (0600) outside the web root; MariaDB reached over TCP with a password.
# Real calls in both eras with a bearer token, also as /~USER/ (mod_userdir)
# and, when mod_fcgid is installed, through its commented lines; a directory
# that allows less (no AuthConfig, no symbolic links, no ExecCGI) and what
# the guide says to do there; then a configuration that cannot be read and
# a database that refuses the login or is down, each a 503 with a JSON-RPC
# body and a line in Apache's error log naming the cause.
. ./test-lib.sh

APACHE=$(command -v apache2 || echo /usr/sbin/apache2)
test -x "$APACHE" || skip_all "apache2 is not installed (etc/check installs apache2)"
MODS=/usr/lib/apache2/modules
for m in mpm_prefork cgi mime env rewrite setenvif userdir authz_core; do
	test -f "$MODS/mod_$m.so" || skip_all "Apache module mod_$m is not installed ($MODS)"
done
mariadbd_bin >/dev/null || skip_all "mariadbd is not installed"

# The web user: who runs Apache and owns the home below.  Run as root, the
# suite hands all of it to uid 65534 (nobody); otherwise it is the user
# running the suite, who has no root anyway.
AS_USER=()
WEB_USER=$(id -un)
if is_root; then
	WEB_USER=$(getent passwd 65534 | cut -d: -f1)
	test -n "$WEB_USER" || skip_all "no user with uid 65534 to run Apache as"
	command -v setpriv >/dev/null || skip_all "setpriv (util-linux) is not installed"
	AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi

# The user's home, web space and configuration, in a directory the web user
# can reach (the trash may be under a home it cannot enter), removed at the end.
APDIR=$(mktemp -d /tmp/forgemcp-t9310.XXXXXX) || exit 1
chmod 755 "$APDIR"
trap 'c=$?; rm -rf "$APDIR"; (exit $c); test_exit_' EXIT
# named after the user, as mod_userdir finds it (UserDir $APDIR/*/public_html)
HOMEDIR=$APDIR/$WEB_USER
WEB=$HOMEDIR/public_html/forgemcp
USER_CONF=$HOMEDIR/forgemcp/forgemcp.conf
AP=$APDIR/apache
mkdir -p "$WEB" "$HOMEDIR/public_html/limited" "$HOMEDIR/forgemcp/repos" "$AP/run" "$AP/logs" \
	"$AP/fcgid" "$APDIR/asan"
chmod 1777 "$APDIR/asan"

# as_user CMD...: CMD as the web user, its sanitizer reports where it can write.
as_user () {
	env ASAN_OPTIONS="log_path=$APDIR/asan/asan:detect_leaks=1:abort_on_error=0" \
	    UBSAN_OPTIONS="print_stacktrace=1:log_path=$APDIR/asan/ubsan" \
	    "${AS_USER[@]}" "$@"
}

# MariaDB on a free loopback port; the web user's account has a password
# and is granted the forge's database only.
DB_PORT=$(free_port) || exit 1
WEB_DB_USER=webuser
WEB_DB_PASSWORD=t9310-$RANDOM$RANDOM
ensure_template || { echo "Bail out! cannot build the MariaDB template datadir"; exit 1; }
DB_NETWORK="--bind-address=127.0.0.1 --port=$DB_PORT --skip-name-resolve"
start_db
db_sql "CREATE USER '$WEB_DB_USER'@'127.0.0.1' IDENTIFIED BY '$WEB_DB_PASSWORD';
	GRANT ALL ON $DB_NAME.* TO '$WEB_DB_USER'@'127.0.0.1';" ||
	{ echo "Bail out! cannot create the database account"; exit 1; }

HTTP_PORT=$(free_port) || exit 1
BASE_URL=http://127.0.0.1:$HTTP_PORT/forgemcp
# The configuration the guide shows, with the test's paths and ports.
cat >"$USER_CONF" <<EOF
db_host = 127.0.0.1
db_port = $DB_PORT
db_user = $WEB_DB_USER
db_password = $WEB_DB_PASSWORD
db_name = $DB_NAME
repo_root = $HOMEDIR/forgemcp/repos
base_url = http://127.0.0.1:$HTTP_PORT
endpoint = /forgemcp/mcp
EOF
chmod 600 "$USER_CONF"
cp "$FORGEMCP" "$WEB/forgemcp.cgi"
chmod 755 "$WEB/forgemcp.cgi"

# etc/htaccess.sample itself, /home/USER made the test's home.
render_htaccess () {
	sed -e "s|/home/USER|$HOMEDIR|g" "$SRC_DIR/etc/htaccess.sample"
}
render_htaccess >"$WEB/.htaccess"

# The fixtures through the suite's own administrator configuration (the
# repositories into the user's repo_root); the schema by the user, over TCP.
config_set repo_root "$HOMEDIR/forgemcp/repos"
test -z "${AS_USER[*]}" || chown -R 65534:65534 "$HOMEDIR"
test_expect_success 'the user migrates the database over TCP with the password' '
	as_user "$WEB/forgemcp.cgi" --config "$USER_CONF" migrate >migrate.out 2>migrate.err ||
		{ cat migrate.err; false; }
'
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
test -z "${AS_USER[*]}" || chown -R 65534:65534 "$HOMEDIR"
chmod 711 "$HOMEDIR"

# Apache's main configuration: the user's web space with AllowOverride All,
# and nothing about forgemcp.
cat >"$AP/httpd.conf" <<EOF
# written by $TEST_NAME: a shared host's Apache, no word of forgemcp
ServerRoot $AP
LoadModule mpm_prefork_module $MODS/mod_mpm_prefork.so
LoadModule authz_core_module $MODS/mod_authz_core.so
LoadModule mime_module $MODS/mod_mime.so
TypesConfig /dev/null
LoadModule env_module $MODS/mod_env.so
LoadModule rewrite_module $MODS/mod_rewrite.so
LoadModule cgi_module $MODS/mod_cgi.so
LoadModule setenvif_module $MODS/mod_setenvif.so
LoadModule userdir_module $MODS/mod_userdir.so
UserDir $APDIR/*/public_html
$(test -f "$MODS/mod_fcgid.so" && echo "LoadModule fcgid_module $MODS/mod_fcgid.so")
<IfModule fcgid_module>
	FcgidIPCDir $AP/fcgid
	FcgidProcessTableFile $AP/fcgid/shm
	FcgidInitialEnv ASAN_OPTIONS log_path=$APDIR/asan/asan:detect_leaks=1:abort_on_error=0
	FcgidInitialEnv UBSAN_OPTIONS print_stacktrace=1:log_path=$APDIR/asan/ubsan
</IfModule>
ServerName 127.0.0.1
Listen 127.0.0.1:$HTTP_PORT
PidFile $AP/run/httpd.pid
DefaultRuntimeDir $AP/run
Mutex file:$AP/run default
ErrorLog $AP/logs/error.log
LogLevel warn
LogFormat "%h %r %>s %b" plain
CustomLog $AP/logs/access.log plain
StartServers 1
MinSpareServers 1
MaxSpareServers 2
MaxRequestWorkers 4
DocumentRoot $HOMEDIR/public_html
<Directory />
	AllowOverride None
	Require all denied
</Directory>
<Directory $HOMEDIR/public_html>
	Options SymLinksIfOwnerMatch
	AllowOverride All
	Require all granted
</Directory>
# a directory with less: no symbolic links (so no mod_rewrite), no AuthConfig
<Directory $HOMEDIR/public_html/limited>
	Options None
	AllowOverride FileInfo Options=ExecCGI
	Require all granted
</Directory>
<FilesMatch "^\.ht">
	Require all denied
</FilesMatch>
# the test's sanitizer reports (CGI programs see only what Apache passes)
SetEnv ASAN_OPTIONS log_path=$APDIR/asan/asan:detect_leaks=1:abort_on_error=0
SetEnv UBSAN_OPTIONS print_stacktrace=1:log_path=$APDIR/asan/ubsan
EOF
test -z "${AS_USER[*]}" || chown -R 65534:65534 "$AP"

APACHE_PID=
test_expect_success 'Apache starts as the unprivileged user' '
	as_user "$APACHE" -f "$AP/httpd.conf" -t >apache-t.out 2>&1 || { cat apache-t.out; return 1; }
	# not through as_user: $! must be Apache itself (env and setpriv exec it)
	env ASAN_OPTIONS= "${AS_USER[@]}" "$APACHE" -f "$AP/httpd.conf" -DFOREGROUND \
		</dev/null >>"$AP/logs/stdout.log" 2>&1 &
	APACHE_PID=$!
	test_register_pid $APACHE_PID
	wait_for 10 curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/" &&
	port_owned_by "$HTTP_PORT" "$APACHE_PID" &&
	test "$(stat -c %u /proc/$APACHE_PID)" = "$(id -u "$WEB_USER")"
'

# error_log_has TEXT: a line of Apache's error log written since the last
# mark_error_log holds TEXT (fixed string).
ERROR_LOG=$AP/logs/error.log
mark_error_log () {
	ERROR_LOG_MARK=$(wc -l <"$ERROR_LOG")
}
error_log_has () {
	tail -n +"$((ERROR_LOG_MARK + 1))" "$ERROR_LOG" | grep -F -- "$1" || {
		echo "no line with '$1' in Apache's error log since the mark:"
		tail -n +"$((ERROR_LOG_MARK + 1))" "$ERROR_LOG"
		return 1
	}
}

test_expect_success 'modern era: tools/list and a tool call with the bearer token' '
	mcp_modern tools/list &&
	test_status 200 &&
	test_header Content-Type "^application/json" &&
	test_jq ".result.tools | length >= 2" &&
	test_common_headers &&
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"v1.0\"}" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C2\""
'

test_expect_success 'legacy era: initialize, then a tool call' '
	mcp_legacy initialize "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" &&
	test_status 200 &&
	test_json .result.protocolVersion "\"2025-06-18\"" &&
	mcp_legacy tools/call "{\"name\":\"list_commits\",\"arguments\":{\"repo\":\"alice/fixture\",\"limit\":2}}" &&
	test_status 200 &&
	tool_text | jq -e ".commits | length == 2"
'

test_expect_success 'the Authorization header gets through: who asks decides what is seen' '
	tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
	tool_call list_repositories "{}" --token "$ALICE_TOKEN" &&
	tool_text | jq -e "map(.full_name) | index(\"bob/hidden\") == null" &&
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	test_header WWW-Authenticate "^Bearer realm=\"forgemcp\""
'

test_expect_success 'the toolset paths after the endpoint reach forgemcp too' '
	mcp_modern tools/list "{}" --path /mcp/readonly &&
	test_status 200 &&
	test_jq "[.result.tools[] | select(.name == \"create_issue\")] | length == 0" &&
	test_jq ".result.tools | length >= 2"
'

test_expect_success 'other paths: .htaccess is denied, GET is 405, the program by its file name is 404' '
	mcp_post -X GET --path /.htaccess &&
	test_status 403 &&
	mcp_post -X GET &&
	test_status 405 &&
	test_header Allow "^POST$" &&
	mcp_post --path /forgemcp.cgi "$(legacy_body ping)" &&
	test_status 404 &&
	test_json .error.code -32600
'

test_expect_success 'without CGIPassAuth every call is 401 (the line matters)' '
	test_when_finished "render_htaccess >\"$WEB/.htaccess\"" &&
	render_htaccess | sed "/^CGIPassAuth On/d" >"$WEB/.htaccess" &&
	tool_call list_repositories "{}" &&
	test_status 401
'

test_expect_success 'the RewriteRule fallback passes the header instead of CGIPassAuth' '
	test_when_finished "render_htaccess >\"$WEB/.htaccess\"" &&
	render_htaccess | sed -e "/^CGIPassAuth On/d" \
		-e "s/^#\(RewriteRule ^ - \[E=HTTP_AUTHORIZATION\)/\1/" >"$WEB/.htaccess" &&
	grep "^RewriteRule ^ - \[E=HTTP_AUTHORIZATION" "$WEB/.htaccess" &&
	tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C3\""
'

test_expect_success 'served as a home page, /~USER/forgemcp/mcp: the same .htaccess' '
	test_when_finished "cp forgemcp.conf.good \"$USER_CONF\"" &&
	cp "$USER_CONF" forgemcp.conf.good &&
	sed "s|^endpoint = .*|endpoint = /~$WEB_USER/forgemcp/mcp|" forgemcp.conf.good >"$USER_CONF" &&
	tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" \
		--url "http://127.0.0.1:$HTTP_PORT/~$WEB_USER/forgemcp/mcp" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C3\""
'

# A host that allows less: no AuthConfig, no symbolic links (so no rewrite).
LIMITED=$HOMEDIR/public_html/limited
LIMITED_URL=http://127.0.0.1:$HTTP_PORT/limited
cp "$WEB/forgemcp.cgi" "$LIMITED/forgemcp.cgi"
sed "s|^endpoint = .*|endpoint = /limited/forgemcp.cgi|" "$USER_CONF" >"$HOMEDIR/forgemcp/limited.conf"
test -z "${AS_USER[*]}" || chown 65534:65534 "$LIMITED/forgemcp.cgi" "$HOMEDIR/forgemcp/limited.conf"
chmod 600 "$HOMEDIR/forgemcp/limited.conf"
render_limited () {
	render_htaccess | sed "s|^SetEnv FORGEMCP_CONFIG .*|SetEnv FORGEMCP_CONFIG $HOMEDIR/forgemcp/limited.conf|"
}

test_expect_success 'no AuthConfig: CGIPassAuth is a 500 that the error log explains' '
	render_limited >"$LIMITED/.htaccess" &&
	mark_error_log &&
	mcp_legacy ping null --url "$LIMITED_URL/mcp" &&
	test_status 500 &&
	error_log_has "CGIPassAuth not allowed here"
'

test_expect_success 'no Options +ExecCGI: a 403 that the error log explains' '
	render_limited | sed -e "/^CGIPassAuth On/d" -e "/^Options +ExecCGI/d" -e "/^#\{0,1\}Rewrite/d" \
		>"$LIMITED/.htaccess" &&
	mark_error_log &&
	mcp_legacy ping null --url "$LIMITED_URL/forgemcp.cgi" &&
	test_status 403 &&
	error_log_has "Options ExecCGI is off in this directory"
'

test_expect_success 'no symbolic links: the RewriteRule is a 403 that the error log explains' '
	render_limited | sed "/^CGIPassAuth On/d" >"$LIMITED/.htaccess" &&
	mark_error_log &&
	mcp_legacy ping null --url "$LIMITED_URL/mcp" &&
	test_status 403 &&
	error_log_has "RewriteRule directive is also forbidden"
'

test_expect_success 'there, the program by its file name, the header passed by SetEnvIf (the guide)' '
	render_limited | sed -e "/^CGIPassAuth On/d" -e "/^#\{0,1\}Rewrite/d" >"$LIMITED/.htaccess" &&
	echo "SetEnvIf Authorization \"(.+)\" HTTP_AUTHORIZATION=\$1" >>"$LIMITED/.htaccess" &&
	tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" \
		--url "$LIMITED_URL/forgemcp.cgi" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
	mcp_legacy ping null --url "$LIMITED_URL/forgemcp.cgi" --no-auth &&
	test_status 401
'

# test_refused STATUS: the answer is a JSON-RPC error with that status.
test_refused () {
	test_status "$1" &&
	test_header Content-Type "^application/json" &&
	test_header Cache-Control no-store &&
	test_jq ".jsonrpc == \"2.0\" and .error.code == -32603 and
		(.error.message | test(\"^Service unavailable: \"))"
}

# mod_fcgid from .htaccess: the sample's commented lines, and the guide's
# script that names the configuration (mod_fcgid ignores SetEnv when it
# starts a process).
render_fcgid () {
	render_htaccess | sed -e "s/^AddHandler cgi-script/#&/" -e "s/^RewriteRule ^mcp.* forgemcp\.cgi /#&/" \
		-e "s/^#\(AddHandler fcgid-script\)/\1/" -e "s/^#\(RewriteRule ^mcp.* forgemcp\.fcgi \)/\1/"
}
# fcgid_wrapper CONFIG: the guide's forgemcp.fcgi, for a configuration file.
fcgid_wrapper () {
	printf '#!/bin/sh\nFORGEMCP_CONFIG=%s\nexport FORGEMCP_CONFIG\nexec %s/forgemcp/forgemcp\n' \
		"$1" "$HOMEDIR" >"$WEB/forgemcp.fcgi" &&
	chmod 755 "$WEB/forgemcp.fcgi"
}
FCGID=
test -f "$MODS/mod_fcgid.so" && FCGID=yes

if test -n "$FCGID"; then
	install -m 0755 "$FORGEMCP" "$HOMEDIR/forgemcp/forgemcp"
	test_expect_success 'mod_fcgid: calls in both eras through the script of the guide' '
		test_when_finished "render_htaccess >\"$WEB/.htaccess\"" &&
		render_fcgid >"$WEB/.htaccess" &&
		grep -c "^AddHandler\|^RewriteRule ^mcp" "$WEB/.htaccess" >n && test "$(cat n)" = 2 &&
		grep "^AddHandler fcgid-script" "$WEB/.htaccess" &&
		fcgid_wrapper "$USER_CONF" &&
		mcp_modern tools/list &&
		test_status 200 &&
		test_jq ".result.tools | length >= 2" &&
		tool_call get_file_contents "{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}" --token "$CAROL_TOKEN" &&
		test_status 200 &&
		tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
		mcp_legacy tools/call "{\"name\":\"list_commits\",\"arguments\":{\"repo\":\"alice/fixture\",\"limit\":2}}" &&
		test_status 200 &&
		pgrep -f "^$HOMEDIR/forgemcp/forgemcp\$" >fcgid.pids &&
		test -s fcgid.pids
	'
	test_expect_success 'mod_fcgid: a configuration that cannot be read: a 503 with a JSON-RPC body, the log says why' '
		test_when_finished "render_htaccess >\"$WEB/.htaccess\"" &&
		render_fcgid >"$WEB/.htaccess" &&
		sed "s|^FORGEMCP_CONFIG=.*|&.missing|" "$WEB/forgemcp.fcgi" >"$WEB/broken.fcgi" &&
		chmod 755 "$WEB/broken.fcgi" &&
		mark_error_log &&
		mcp_modern tools/list "{}" --path /broken.fcgi &&
		test_refused 503 &&
		test_no_header Retry-After &&
		error_log_has "cannot serve the request: cannot read configuration file $USER_CONF.missing: No such file or directory" &&
		mcp_legacy ping null --path /broken.fcgi &&
		test_refused 503
	'
fi

test_expect_success 'a request log line per call lands in the error log, with its request id' '
	mark_error_log &&
	mcp_legacy ping &&
	test_status 200 &&
	id=$(header_value X-Request-Id) &&
	test -n "$id" &&
	error_log_has "rid=$id"
'

# --- failures -------------------------------------------------------------


test_expect_success 'an unreadable configuration is a 503 with a JSON-RPC body, and the log says why' '
	test_when_finished "chmod 600 \"$USER_CONF\"" &&
	chmod 000 "$USER_CONF" &&
	mark_error_log &&
	mcp_modern tools/list &&
	test_refused 503 &&
	test_no_header Retry-After &&
	test_must_fail grep -F "$HOMEDIR" "$RESP.body" &&
	error_log_has "cannot read configuration file $USER_CONF: Permission denied"
'

test_expect_success 'a configuration that is not there (SetEnv names another file): the same' '
	test_when_finished "render_htaccess >\"$WEB/.htaccess\"" &&
	render_htaccess | sed "s|^SetEnv FORGEMCP_CONFIG .*|&.missing|" >"$WEB/.htaccess" &&
	mark_error_log &&
	mcp_legacy ping &&
	test_refused 503 &&
	error_log_has "cannot read configuration file $USER_CONF.missing: No such file or directory"
'

test_expect_success 'a configuration forgemcp cannot use (repo_root is not there): the same' '
	test_when_finished "cp forgemcp.conf.good \"$USER_CONF\"" &&
	cp "$USER_CONF" forgemcp.conf.good &&
	sed "s|^repo_root = .*|&/gone|" forgemcp.conf.good >"$USER_CONF" &&
	mark_error_log &&
	mcp_legacy ping &&
	test_refused 503 &&
	error_log_has "repo_root $HOMEDIR/forgemcp/repos/gone cannot be used"
'

test_expect_success 'a wrong database password is the 503 for a refused login, without Retry-After' '
	test_when_finished "cp forgemcp.conf.good \"$USER_CONF\"" &&
	cp "$USER_CONF" forgemcp.conf.good &&
	sed "s|^db_password = .*|db_password = not-the-password|" forgemcp.conf.good >"$USER_CONF" &&
	mark_error_log &&
	mcp_modern tools/list &&
	test_refused 503 &&
	test_no_header Retry-After &&
	test_jq ".error.message | test(\"refuses the server.s login\")" &&
	error_log_has "database login refused (1045)" &&
	error_log_has "check db_user and db_password"
'

test_expect_success 'the database down is a 503 with Retry-After, and the log says where it tried' '
	stop_db &&
	mark_error_log &&
	mcp_modern tools/list &&
	test_refused 503 &&
	test_header Retry-After "^[0-9]+$" &&
	test_jq ".error.message | test(\"cannot be reached\")" &&
	error_log_has "cannot connect to the database at db_host 127.0.0.1, db_port $DB_PORT"
'

test_expect_success 'never a bare 500 from Apache for the endpoint: every refusal came from forgemcp' '
	grep -E "^[^ ]+ POST /forgemcp/mcp HTTP/[0-9.]+ 503 " "$AP/logs/access.log" &&
	test_must_fail grep -E "^[^ ]+ [A-Z]+ /forgemcp/mcp[^ ]* HTTP/[0-9.]+ 500 " "$AP/logs/access.log" &&
	test_must_fail grep -E "(Premature end of script headers|End of script output before headers): forgemcp\.cgi" "$ERROR_LOG"
'

test_expect_success 'Apache stops' '
	stop_pid "$APACHE_PID" 10 &&
	! curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/"
'

# Apache's logs and the CGI runs' sanitizer reports, for the checks and the record
mkdir -p "$TRASH/apache"
cp "$AP"/logs/*.log "$TRASH/apache/" 2>/dev/null
cp "$APDIR"/asan/* "$TRASH/asan/" 2>/dev/null

# a report that could not go to its file went to stderr: Apache's error log
test_expect_success 'no sanitizer report in the error log of Apache either' '
	test_must_fail grep -E "ERROR: AddressSanitizer|runtime error:|LeakSanitizer|ERROR: [A-Za-z]*Sanitizer" \
		"$TRASH/apache/error.log"
'
test_done
