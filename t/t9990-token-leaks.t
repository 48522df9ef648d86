#!/bin/bash
# t9990: no bearer token, nor 7 consecutive characters of its secret part,
# appears in any log line, error or response of the whole suite.
#
# Every script records the tokens it makes ($FORGEMCP_TRASH/.tokens/) and
# leaves a copy of its logs and responses ($FORGEMCP_TRASH/.logs/, see
# collect_logs_ in test-lib.sh).  This script sorts last, so a plain `prove`
# or `make check` runs it after all the others.  It first runs a workload of
# its own (valid calls, refused tokens of every kind, wrong scopes, errors,
# debug logging, CGI and stdio, the sdlc hub's API, module server and agent), so it asserts something real when run alone,
# then searches every collected log for every recorded token.  The fixed
# prefix "fmcp_" every token starts with is public and not searched for.
. ./test-lib.sh

SCAN=$TEST_DIRECTORY/lib/token-leaks.pl

# random_token: a token-shaped string that was never issued.
random_token () {
	printf 'fmcp_%s' "$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n' | cut -c1-43)"
}

# test_expect_code_ CODE CMD...: CMD exits with CODE.
test_expect_code_ () {
	local want=$1
	shift
	"$@"
	test $? = "$want"
}

# other_char C: a character different from C.
other_char () {
	if test "$1" = A; then echo B; else echo A; fi
}

start_all
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
REVOKED=$(make_token alice read,write --name revoked)
EXPIRED=$(make_token alice read,write --name expired --expires 1h)
NEVER=$(random_token)
LAST=${ALICE_TOKEN%?}$(other_char "${ALICE_TOKEN: -1}")
SHORT=${ALICE_TOKEN%?}
LONGER=${ALICE_TOKEN}x
test_record_token "$NEVER" "$LAST" "$SHORT" "$LONGER"

test_expect_success 'workload: valid calls in both eras' '
	mcp_modern tools/list && test_status 200 &&
	mcp_legacy initialize "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" &&
	test_status 200 &&
	mcp_legacy tools/list && test_status 200 &&
	tool_call list_repositories && test_status 200 &&
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"README.md\"}" &&
	test_status 200 && test_jq ".result.isError != true" &&
	tool_call search_code "{\"repo\":\"bob/hidden\",\"query\":\"deep\"}" --token "$CAROL_TOKEN" &&
	test_status 200 && test_jq ".result.isError != true" &&
	tool_call create_issue "{\"repo\":\"alice/fixture\",\"title\":\"a bug\"}" --token "$BOB_TOKEN" &&
	test_status 200 && test_jq ".result.isError != true"
'

test_expect_success 'workload: tool errors and protocol errors' '
	tool_call get_file_contents "{\"repo\":\"alice/fixture\",\"path\":\"nope.txt\"}" &&
	test_json .result.isError true &&
	tool_call get_tree "{\"repo\":\"nobody/nothing\"}" &&
	test_json .result.isError true &&
	tool_call get_tree "{\"repo\":5}" &&
	test_json .result.isError true &&
	tool_call no_such_tool && test_json .error.code -32602 &&
	mcp_post "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":" && test_status 400 &&
	mcp_post "[]" && test_status 400 &&
	mcp_legacy no/such/method && test_json .error.code -32601
'

test_expect_success 'workload: refused tokens (never issued, one character off, cut, extended)' '
	for t in "$NEVER" "$LAST" "$SHORT" "$LONGER"; do
		mcp_modern tools/list "{}" --token "$t" && test_status 401 || return 1
	done
'

test_expect_success 'workload: revoked and expired tokens' '
	fm token revoke "$(db_sql "select id from tokens where name = '\''revoked'\''")" >/dev/null &&
	db_sql "update tokens set expires_at = utc_timestamp() - interval 1 minute where name = '\''expired'\''" &&
	mcp_modern tools/list "{}" --token "$REVOKED" && test_status 401 &&
	tool_call list_repositories "{}" --token "$EXPIRED" && test_status 401
'

test_expect_success 'workload: malformed Authorization headers carrying a token' '
	mcp_modern tools/list "{}" --no-auth -H "Authorization: Bearer $ALICE_TOKEN $BOB_TOKEN" &&
	test_status 401 &&
	mcp_modern tools/list "{}" --no-auth -H "Authorization: Bearer \"$ALICE_TOKEN\"" &&
	test_status 401 &&
	mcp_modern tools/list "{}" --no-auth -H "Authorization: Token $ALICE_TOKEN" &&
	test_status 401 &&
	mcp_modern tools/list "{}" --no-auth -H "Authorization: Bearer $(printf "%0600d" 0)$ALICE_TOKEN" &&
	test_status 401 &&
	mcp_modern tools/list "{}" --no-auth -H "Authorization: Bearer $ALICE_TOKEN" \
		-H "Authorization: Bearer $BOB_TOKEN" &&
	test_status 400
'

test_expect_success 'workload: a token in the query string or the body is ignored' '
	mcp_modern tools/list "{}" --no-auth --path "/mcp?access_token=$ALICE_TOKEN" &&
	test_status 401 &&
	mcp_post --no-auth "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"access_token\":\"$ALICE_TOKEN\"}" &&
	test_status 401
'

test_expect_success 'workload: wrong scopes' '
	tool_call list_repositories "{}" --token "$WRITE_ONLY_TOKEN" && test_status 403 &&
	tool_call create_issue "{\"repo\":\"bob/hidden\",\"title\":\"x\"}" --token "$CAROL_TOKEN" &&
	test_status 403
'

test_expect_success 'workload: the same at log_level debug' '
	config_set log_level debug &&
	restart_server &&
	tool_call list_repositories && test_status 200 &&
	mcp_modern tools/list "{}" --token "$LAST" && test_status 401 &&
	mcp_modern tools/list "{}" --token "$REVOKED" && test_status 401 &&
	tool_call list_repositories "{}" --token "$WRITE_ONLY_TOKEN" && test_status 403 &&
	tool_call get_tree "{\"repo\":\"bob/hidden\"}" --token "$ALICE_TOKEN" &&
	test_json .result.isError true
'

test_expect_success 'workload: the sdlc hub, its module server and its agent, at debug' '
	curl -sS -o hub-ok.log -w "%{http_code}" -H "Authorization: Bearer $ALICE_TOKEN" \
		"$BASE_URL/hub/projects" >hub-ok.status &&
	test "$(cat hub-ok.status)" = 200 &&
	curl -sS -o hub-refused.log -w "%{http_code}" -H "Authorization: Bearer $LAST" \
		"$BASE_URL/hub/projects" >hub-refused.status &&
	test "$(cat hub-refused.status)" = 401 &&
	init="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" &&
	call="{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"projects\",\"arguments\":{}}}" &&
	printf "%s\n%s\n" "$init" "$call" | FORGEMCP_LOG_LEVEL=debug FORGEMCP_HUB_URL=$BASE_URL/hub \
		FORGEMCP_HUB_TOKEN=$ALICE_TOKEN "$FORGEMCP" mcp jira >mcp-ok.log 2>>mcp.stderr &&
	jq -s -e ".[1].result.isError == false" mcp-ok.log &&
	printf "%s\n%s\n" "$init" "$call" | FORGEMCP_LOG_LEVEL=debug FORGEMCP_HUB_URL=$BASE_URL/hub \
		FORGEMCP_HUB_TOKEN=$LAST "$FORGEMCP" mcp jira >mcp-refused.log 2>>mcp.stderr &&
	jq -s -e ".[1].result.isError == true" mcp-refused.log &&
	FORGEMCP_LOG_LEVEL=debug FORGEMCP_HUB_URL=$BASE_URL/hub FORGEMCP_HUB_TOKEN=$ALICE_TOKEN \
		"$FORGEMCP" agent --module jira --backend local --once 2>>agent.stderr &&
	test_must_fail env FORGEMCP_LOG_LEVEL=debug FORGEMCP_HUB_URL=$BASE_URL/hub \
		FORGEMCP_HUB_TOKEN=$LAST "$FORGEMCP" agent --module jira --backend local --once \
		2>>agent.stderr &&
	grep -q "agent: claim: the hub answers 401: " agent.stderr
'

test_expect_success 'workload: CGI runs with a valid and a refused token' '
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" >cgi-body.json &&
	TOKEN=$ALICE_TOKEN cgi_request cgi-body.json HTTP_MCP_PROTOCOL_VERSION=$MODERN_VERSION \
		HTTP_MCP_METHOD=tools/call HTTP_MCP_NAME=list_repositories FORGEMCP_LOG_LEVEL=debug &&
	test_status 200 &&
	TOKEN=$LAST cgi_request cgi-body.json HTTP_MCP_PROTOCOL_VERSION=$MODERN_VERSION \
		HTTP_MCP_METHOD=tools/call HTTP_MCP_NAME=list_repositories FORGEMCP_LOG_LEVEL=debug &&
	test_status 401
'

test_expect_success 'workload: stdio with a valid token (from a file) and a refused one' '
	(umask 077 && printf "%s\n" "$ALICE_TOKEN" >alice.token) &&
	legacy_body ping null 1 |
		FORGEMCP_LOG_LEVEL=debug "$FORGEMCP" stdio --token-file alice.token >stdio-ok.log 2>>stdio.stderr &&
	jq -e ".result == {}" stdio-ok.log &&
	legacy_body ping null 2 |
		FORGEMCP_LOG_LEVEL=debug FORGEMCP_TOKEN="$LAST" "$FORGEMCP" stdio >stdio-refused.log 2>>stdio.stderr &&
	jq -e ".error.code == -32001" stdio-refused.log &&
	grep -q "status=401" stdio.stderr
'

test_expect_success 'workload: the command line never shows a token' '
	fm token list >token-list.log &&
	grep -w revoked token-list.log &&
	test_must_fail fm token revoke 999999 2>>cli.stderr
'

stop_all
collect_logs_

test_expect_success 'the search finds a planted token and does not print it' '
	test_when_finished "rm -rf planted" &&
	mkdir -p planted/tokens planted/logs &&
	printf "%s\n" "$ALICE_TOKEN" >planted/tokens/t0000-x &&
	secret=${ALICE_TOKEN#fmcp_} &&
	printf "one\ntwo\nxx%syy\n" "${secret:20:7}" >planted/logs/a.log &&
	printf "%s\n" "${secret:0:6}" "fmcp_" "${secret:30:6}" >planted/logs/b.log &&
	test_expect_code_ 1 perl "$SCAN" planted/tokens planted/logs >found 2>/dev/null &&
	cat found &&
	test "$(wc -l <found)" = 1 &&
	grep "^planted/logs/a.log:3: 7 characters of token 1 made by t0000-x$" found &&
	test_must_fail grep -F "${secret:20:7}" found &&
	perl "$SCAN" planted/tokens planted/logs/b.log
'

test_expect_success 'tokens were recorded, this script'\''s among them' '
	test -s "$TOKENS_DIR/$TEST_NAME" &&
	grep -qxF "$ALICE_TOKEN" "$TOKENS_DIR/$TEST_NAME" &&
	grep -qxF "$REVOKED" "$TOKENS_DIR/$TEST_NAME" &&
	grep -qxF "$LAST" "$TOKENS_DIR/$TEST_NAME"
'

test_expect_success 'this script'\''s logs and responses were collected' '
	own=$LOGS_DIR/$TEST_NAME &&
	test -s "$own/server.log" &&
	test -s "$own/responses.log" &&
	test -s "$own/nginx/logs/access.log" &&
	test -s "$own/cli.stderr" && test -s "$own/stdio.stderr" &&
	grep -q "status=401" "$own/server.log"
'

n=0
for dir in "$LOGS_DIR"/*/; do
	script=$(basename "$dir")
	# logs of a script that no longer exists are stale
	test -f "$TEST_DIRECTORY/$script.t" || continue
	n=$((n + 1))
	test_expect_success "no token in the logs and responses of $script" "
		perl '$SCAN' '$TOKENS_DIR' '$dir'
	"
done
say "searched the logs of $n scripts"

test_done
