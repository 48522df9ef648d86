#!/bin/bash
# t9000: deployment without the built-in listener: the same binary as CGI
# (directly and under fcgiwrap behind nginx) and as a FastCGI worker started
# by spawn-fcgi.
. ./test-lib.sh

FCGIWRAP=$(command -v fcgiwrap || echo /usr/sbin/fcgiwrap)
test -x "$FCGIWRAP" || skip_all "fcgiwrap is not installed"
command -v spawn-fcgi >/dev/null || skip_all "spawn-fcgi is not installed"
command -v cgi-fcgi >/dev/null || skip_all "cgi-fcgi (libfcgi-bin) is not installed"

start_db
migrate_db
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

test_expect_success 'CGI: one request, run directly' '
	modern_body tools/list >req &&
	cgi_request req HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/list &&
	test "$CGI_EXIT" = 0 &&
	test_status 200 &&
	test_header Content-Type "^application/json" &&
	test_jq ".result.tools | length >= 2" &&
	test_common_headers
'

test_expect_success 'CGI: a refused request still exits 0 with a proper answer' '
	legacy_body ping >req &&
	TOKEN= cgi_request req &&
	test "$CGI_EXIT" = 0 &&
	test_status 401 &&
	test_header WWW-Authenticate "^Bearer realm=\"forgemcp\"" &&
	test_json .error.code -32001
'

test_expect_success 'CGI: GET is 405' '
	: >empty &&
	cgi_request empty REQUEST_METHOD=GET CONTENT_LENGTH=0 &&
	test_status 405 &&
	test_header Allow "^POST$"
'

test_expect_success 'CGI: a body over max_body is 413 without being read' '
	head -c 70000 /dev/zero | tr "\0" " " >big &&
	cgi_request big &&
	test_status 413
'

test_expect_success 'CGI: a tool call reads the repository' '
	modern_body tools/call "{\"name\":\"get_file_contents\",\"arguments\":{\"repo\":\"alice/fixture\",\"path\":\"README.md\",\"ref\":\"v1.0\"}}" >req &&
	cgi_request req HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/call HTTP_MCP_NAME=get_file_contents &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C2\""
'

test_expect_success 'CGI: the request log line goes to stderr' '
	legacy_body ping >req &&
	: >"$TRASH/cgi.stderr" &&
	cgi_request req &&
	id=$(header_value X-Request-Id) &&
	grep -F "$id" "$TRASH/cgi.stderr"
'

test_expect_success 'CGI: a configuration that cannot be read is a 503 JSON-RPC error, and stderr says why' '
	legacy_body ping >req &&
	: >"$TRASH/cgi.stderr" &&
	cgi_request req "FORGEMCP_CONFIG=$TRASH/no-such.conf" &&
	test "$CGI_EXIT" = 1 &&
	test_status 503 &&
	test_header Content-Type "^application/json" &&
	test_header Cache-Control no-store &&
	test_no_header Retry-After &&
	test_json .error.code -32603 &&
	test_jq ".error.message | test(\"^Service unavailable: .*configuration\")" &&
	test_must_fail grep -F "no-such.conf" "$RESP.body" &&
	grep "error: cannot serve the request: cannot read configuration file $TRASH/no-such.conf: No such file or directory" "$TRASH/cgi.stderr"
'

test_expect_success 'CGI: so is one that names no usable repo_root' '
	legacy_body ping >req &&
	: >"$TRASH/cgi.stderr" &&
	cgi_request req "FORGEMCP_REPO_ROOT=$TRASH/no-such-dir" &&
	test_status 503 &&
	test_json .error.code -32603 &&
	grep "cannot serve the request: repo_root $TRASH/no-such-dir cannot be used" "$TRASH/cgi.stderr"
'

# --- fcgiwrap behind nginx ---------------------------------------------------

FCGIWRAP_SOCK=$TRASH/fcgiwrap.sock

# One process (no -c): its children would outlive it; stdout must not hold prove's pipe.
"$FCGIWRAP" -s "unix:$FCGIWRAP_SOCK" >/dev/null 2>>"$TRASH/fcgiwrap.stderr" </dev/null &
test_register_pid $!

test_expect_success 'fcgiwrap listens' '
	wait_for 10 test -S "$FCGIWRAP_SOCK"
'

start_nginx "$FCGIWRAP_SOCK"

test_expect_success 'fcgiwrap: a modern request through nginx' '
	mcp_modern tools/list &&
	test_status 200 &&
	test_jq ".result.tools | length >= 2" &&
	test_common_headers
'

test_expect_success 'fcgiwrap: the same visibility rules' '
	tool_call list_repositories "{}" --token "$CAROL_TOKEN" &&
	test_status 200 &&
	tool_text | jq -e "map(.full_name) | index(\"bob/hidden\") != null" &&
	tool_call list_repositories "{}" --token "$ALICE_TOKEN" &&
	tool_text | jq -e "map(.full_name) | index(\"bob/hidden\") == null"
'

test_expect_success 'fcgiwrap: auth, method and Origin checks' '
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	mcp_post -X GET &&
	test_status 405 &&
	mcp_legacy ping null -H "Origin: http://evil.example.com" &&
	test_status 403 &&
	mcp_legacy ping null -H "Origin: http://localhost:$HTTP_PORT" &&
	test_status 200
'

test_expect_success 'fcgiwrap: legacy initialize and a batch' '
	mcp_legacy initialize "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" &&
	test_json .result.protocolVersion "\"2025-06-18\"" &&
	mcp_post "[$(legacy_body ping null 1),$(legacy_body ping null 2)]" &&
	test_jq "length == 2"
'

test_expect_success 'fcgiwrap: 413 from nginx is JSON' '
	head -c 65537 /dev/zero | tr "\0" " " >big &&
	mcp_post --file big &&
	test_status 413 &&
	test_json .jsonrpc "\"2.0\""
'

test_expect_success 'fcgiwrap: a notification is 202' '
	mcp_post "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}" &&
	test_status 202 &&
	test_body_empty
'

stop_nginx

# --- spawn-fcgi: no arguments, an inherited FastCGI socket --------------------

SPAWN_SOCK=$TRASH/spawn.sock

test_expect_success 'spawn-fcgi runs forgemcp without arguments as a FastCGI worker' '
	spawn-fcgi -n -s "$SPAWN_SOCK" -- "$FORGEMCP" 2>>"$SERVER_LOG" >/dev/null </dev/null &
	SPAWN_PID=$! &&
	test_register_pid $SPAWN_PID &&
	wait_for 10 test -S "$SPAWN_SOCK" &&
	legacy_body ping >req &&
	wait_for 10 fcgi_request "$SPAWN_SOCK" req &&
	test_status 200 &&
	test_json .result "{}" &&
	test_common_headers
'

test_expect_success 'spawn-fcgi: the worker serves many requests' '
	for i in 1 2 3 4 5 6 7 8; do
		legacy_body ping null $i >req &&
		fcgi_request "$SPAWN_SOCK" req &&
		test_status 200 &&
		test_json .id $i || return 1
	done
'

test_expect_success 'spawn-fcgi: tool calls, auth and the gate' '
	modern_body tools/call "{\"name\":\"get_file_contents\",\"arguments\":{\"repo\":\"bob/hidden\",\"path\":\"README.md\"}}" >req &&
	fcgi_request "$SPAWN_SOCK" req HTTP_MCP_PROTOCOL_VERSION=2026-07-28 HTTP_MCP_METHOD=tools/call HTTP_MCP_NAME=get_file_contents \
		"HTTP_AUTHORIZATION=Bearer $CAROL_TOKEN" &&
	test_status 200 &&
	tool_text | jq -e ".commit == \"$FIXTURE_C3\"" &&
	fcgi_request "$SPAWN_SOCK" req HTTP_AUTHORIZATION= &&
	test_status 401 &&
	fcgi_request "$SPAWN_SOCK" req REQUEST_METHOD=DELETE &&
	test_status 405
'

test_expect_success 'spawn-fcgi: the worker stops on SIGTERM' '
	stop_pid "$SPAWN_PID" 10
'

test_expect_success 'spawn-fcgi: a configuration that cannot be read: every request a 503 JSON-RPC error' '
	rm -f "$SPAWN_SOCK"
	FORGEMCP_CONFIG=$TRASH/no-such.conf spawn-fcgi -n -s "$SPAWN_SOCK" -- "$FORGEMCP" \
		2>"$TRASH/refuse.stderr" >/dev/null </dev/null &
	REFUSE_PID=$!
	test_register_pid $REFUSE_PID
	wait_for 10 test -S "$SPAWN_SOCK" &&
	legacy_body ping >req &&
	for i in 1 2; do
		wait_for 10 fcgi_request "$SPAWN_SOCK" req &&
		test_status 503 &&
		test_json .error.code -32603 &&
		test_no_header Retry-After || return 1
	done &&
	test "$(grep -c "cannot serve the request: cannot read configuration file $TRASH/no-such.conf: No such file or directory" \
		"$TRASH/refuse.stderr")" = 2 &&
	stop_pid "$REFUSE_PID" 10
'

test_done
