#!/bin/bash
# t9200: etc/quickstart as a new user runs it: a complete local instance in a
# state directory, the printed curl calls work as printed, status/stop/env, and
# a second run reuses the state.
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
test -x "$FORGEMCP" || { echo "Bail out! no forgemcp binary at $FORGEMCP"; exit 1; }

QS=$SRC_DIR/etc/quickstart
QS_STATE=$TRASH/qs
QS_PORT=$(free_port)
HTTP_PORT=$QS_PORT
BASE_URL=http://127.0.0.1:$QS_PORT

# The binary under test is used as is (FORGEMCP_BUILD); the packages are
# installed (etc/check did it), so no apt-get.
qs () {
	FORGEMCP_STATE=$QS_STATE FORGEMCP_PORT=$QS_PORT FORGEMCP_BUILD=$FORGEMCP_BUILD \
		FORGEMCP_SKIP_APT=1 "$QS" "$@" </dev/null
}

# Run as root, the services run as forgemcp: they must be able to write
# their sanitizer reports where the end-of-script check reads them.
chmod 1777 "$TRASH/asan"

# Whatever quickstart started is stopped when the script ends.
trap 'c=$?; FORGEMCP_STATE=$QS_STATE "$QS" stop >/dev/null 2>&1; (exit $c); test_exit_' EXIT

# printed_curls FILE: each curl command of the output (with its continuation
# lines) as one file curl.N.
printed_curls () {
	rm -f curl.*
	awk '/^curl / { n++; on = 1 }
	     on { print > ("curl." n) }
	     on && !/\\$/ { on = 0 }' "$1"
}

test_expect_success 'a first run builds nothing, starts the instance and explains itself' '
	qs >first.out 2>first.err
	code=$?
	test_register_pids_in "$QS_STATE/run"
	cat first.out first.err
	test "$code" = 0 &&
	grep -F "endpoint:  http://127.0.0.1:$QS_PORT/mcp" first.out &&
	grep "creating a private MariaDB datadir" first.out &&
	grep "as demo/forgemcp (public)" first.out &&
	test -s "$QS_STATE/token" &&
	TOKEN=$(cat "$QS_STATE/token") &&
	grep -F "token:     in $QS_STATE/token (user demo, scopes read,write,execute)" first.out &&
	grep -xF "claude mcp add --transport http --scope project forge http://127.0.0.1:$QS_PORT/mcp --header '"'"'Authorization: Bearer \${FORGEMCP_TOKEN}'"'"'" first.out
'
TOKEN=$(cat "$QS_STATE/token" 2>/dev/null)
test_record_token "$TOKEN"

# Whoever pastes a printed line must not put the token in the process list
# or in the shell history.
test_expect_success 'the token is printed nowhere; the state keeps it in 0600 files' '
	test -n "$TOKEN" &&
	test_must_fail grep -F "$TOKEN" first.out first.err &&
	test "$(stat -c %a "$QS_STATE/token")" = 600 &&
	test "$(stat -c %a "$QS_STATE/token.header")" = 600 &&
	test "$(cat "$QS_STATE/token.header")" = "Authorization: Bearer $TOKEN"
'

test_expect_success 'the printed .mcp.json, its variable set as printed, reaches the endpoint' '
	grep "^{\"mcpServers\": {\"forge\"" first.out >mcp.json &&
	test "$(wc -l <mcp.json)" = 1 &&
	jq -e ".mcpServers.forge.type == \"http\" and .mcpServers.forge.url == \"http://127.0.0.1:$QS_PORT/mcp\"" mcp.json &&
	hdr=$(jq -r ".mcpServers.forge.headers.Authorization" mcp.json) &&
	test "$hdr" = "Bearer \${FORGEMCP_TOKEN}" &&
	grep "^FORGEMCP_TOKEN=.* claude\$" first.out >run-claude &&
	test "$(wc -l <run-claude)" = 1 &&
	sed "s/ claude\$/ printenv FORGEMCP_TOKEN/" run-claude >run-env &&
	value=$(bash run-env) &&
	test "$value" = "$TOKEN" &&
	printf "Authorization: %s\n" "${hdr/"\${FORGEMCP_TOKEN}"/$value}" >expanded.header &&
	test "$(cat expanded.header)" = "Authorization: Bearer $TOKEN" &&
	curl -s "$(jq -r .mcpServers.forge.url mcp.json)" -H @expanded.header \
		-H "Content-Type: application/json" \
		-d "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}" >ping5.json &&
	jq -e ".id == 5 and .result == {}" ping5.json
'

test_expect_success 'the three printed curl calls work as printed' '
	printed_curls first.out &&
	test -f curl.1 && test -f curl.2 && test -f curl.3 && test ! -f curl.4 &&
	grep -F "Mcp-Name: create_run" curl.2 && mv curl.2 create_run.sh && mv curl.3 curl.2 &&
	grep -F "MCP-Protocol-Version: 2026-07-28" curl.1 &&
	bash curl.1 >modern.json &&
	jq -e ".result.structuredContent | map(.full_name) | sort == [\"demo/forgemcp\",\"demo/notes\",\"demo/wiki\"]" modern.json &&
	jq -e ".result.structuredContent[] | select(.full_name == \"demo/notes\") | .private == true" modern.json &&
	test_must_fail grep -F "MCP-Protocol-Version" curl.2 &&
	bash curl.2 >legacy.json &&
	jq -e ".result.protocolVersion == \"2025-11-25\" and .result.serverInfo.name == \"forgemcp\"" legacy.json
'

test_expect_success 'the printed create_run starts demo/notes CI; the runner runs it to success' '
	bash create_run.sh >run.json &&
	jq -e ".result.structuredContent.run == 1 and .result.structuredContent.jobs == [\"hello\", \"files\"]" run.json &&
	sed "s/create_run/get_run/g; s/\"workflow\":\"ci\"/\"run\":1/" create_run.sh >get_run.sh &&
	i=0 &&
	while bash get_run.sh >got.json && ! jq -e ".result.structuredContent.state == \"success\"" got.json >/dev/null; do
		test $i -lt 150 || { cat got.json; false; } &&
		sleep 0.1 && i=$((i + 1))
	done &&
	jq -e "[.result.structuredContent.jobs[] | .state] == [\"success\", \"success\"]" got.json
'

test_expect_success 'env prints FORGEMCP_URL, FORGEMCP_HUB_URL and FORGEMCP_TOKEN for eval, exported' '
	FORGEMCP_STATE=$QS_STATE "$QS" env >env.out &&
	test "$(wc -l <env.out)" = 3 &&
	(
		unset FORGEMCP_URL FORGEMCP_TOKEN &&
		eval "$(cat env.out)" &&
		test "$FORGEMCP_URL" = "http://127.0.0.1:$QS_PORT/mcp" &&
		test "$FORGEMCP_HUB_URL" = "http://127.0.0.1:$QS_PORT/hub" &&
		test "$FORGEMCP_TOKEN" = "$TOKEN" &&
		"$FORGEMCP" call get_user >me.json &&
		jq -e ".structuredContent.login != null" me.json &&
		curl -s "$FORGEMCP_URL" -H "Authorization: Bearer $FORGEMCP_TOKEN" \
			-H "Content-Type: application/json" \
			-d "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}" >ping.json &&
		jq -e ".id == 7 and .result == {}" ping.json
	)
'

test_expect_success 'the printed sdlc-jira server, with env: DEMO'"'"'s issues; a batch the agent runs; the new issue; a demo attachment fetched' '
	grep "^{\"mcpServers\": {\"sdlc-jira\"" first.out >sdlc.json &&
	jq -e ".mcpServers[\"sdlc-jira\"].args == [\"mcp\", \"jira\", \"--project\", \"DEMO\"]" sdlc.json &&
	! grep -F "$TOKEN" sdlc.json &&
	cmd=$(jq -r ".mcpServers[\"sdlc-jira\"].command" sdlc.json) &&
	init="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" &&
	(
		eval "$(cat env.out)" && unset FORGEMCP_CONFIG &&
		{ echo "$init"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"issues\",\"arguments\":{}}}"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"batch_create\",\"arguments\":{\"title\":\"demo\",\"commands\":[{\"type\":\"ensure_issue\",\"temp_key\":\"new:1\",\"summary\":\"Из быстрого старта\"}]}}}"
		} | timeout 30 "$cmd" mcp jira --project DEMO >sdlc1.out 2>sdlc1.err &&
		jq -s -r ".[] | select(.id == 2) | .result.content[0].text" sdlc1.out >demo-issues.txt &&
		grep "^DEMO-1 | Подключить Claude Code к трекеру | В работе | 31.12 | demo | Спринт 1 | 3$" demo-issues.txt &&
		grep "^DEMO-3 " demo-issues.txt &&
		b=$(jq -s -r ".[] | select(.id == 3) | .result.content[0].text" sdlc1.out | sed -n "s/^пакет #\([0-9]*\) .*/\1/p") &&
		test -n "$b" &&
		{ echo "$init"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"batch_wait\",\"arguments\":{\"id\":$b,\"timeout_minutes\":1}}}"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"issues\",\"arguments\":{}}}"
		} | timeout 90 "$cmd" mcp jira --project DEMO >sdlc2.out 2>sdlc2.err &&
		jq -s -r ".[] | select(.id == 2) | .result.content[0].text" sdlc2.out | sed -n 1p | grep "): done$" &&
		jq -s -r ".[] | select(.id == 3) | .result.content[0].text" sdlc2.out | grep "^DEMO-4 | Из быстрого старта | Новая " &&
		{ echo "$init"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"attachment\",\"arguments\":{\"key\":\"DEMO-1\",\"attachment\":\"#1\",\"wait_seconds\":60}}}"
		} | timeout 90 "$cmd" mcp jira --project DEMO >sdlc3.out 2>sdlc3.err &&
		jq -s -r ".[] | select(.id == 2) | .result.content[0].text" sdlc3.out >demo-att.txt &&
		sed -n 2p demo-att.txt | grep -x "памятка.txt (.*), text/plain, задача DEMO-1" &&
		grep "^Сервер модуля: forgemcp mcp jira --project DEMO$" "$(sed -n 1p demo-att.txt)"
	)
'

test_expect_success 'the printed sdlc-wiki server, with env: DEMO'"'"'s wiki synced from demo/wiki by the wiki agent' '
	grep "^{\"mcpServers\": {\"sdlc-wiki\"" first.out >wiki.json &&
	jq -e ".mcpServers[\"sdlc-wiki\"].args == [\"mcp\", \"wiki\", \"--project\", \"DEMO\"]" wiki.json &&
	! grep -F "$TOKEN" wiki.json &&
	cmd=$(jq -r ".mcpServers[\"sdlc-wiki\"].command" wiki.json) &&
	init="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}" &&
	(
		eval "$(cat env.out)" && unset FORGEMCP_CONFIG &&
		{ echo "$init"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"sync\",\"arguments\":{\"wait\":true}}}"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"tree\",\"arguments\":{}}}"
		  echo "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"search\",\"arguments\":{\"query\":\"СОГЛАСОВАН\"}}}"
		} | timeout 90 "$cmd" mcp wiki --project DEMO >wiki1.out 2>wiki1.err &&
		jq -s -r ".[] | select(.id == 2) | .result.content[0].text" wiki1.out | grep "^пакет #[0-9]*: done$" &&
		jq -s -r ".[] | select(.id == 3) | .result.content[0].text" wiki1.out >wiki-tree.txt &&
		grep "^DOC-1 Вики проекта DEMO " wiki-tree.txt && grep "^  DOC-2 Быстрый старт " wiki-tree.txt &&
		jq -s -r ".[] | select(.id == 4) | .result.content[0].text" wiki1.out | grep -x "DOC-2 · Быстрый старт"
	)
'

test_expect_success 'the public repository is this checkout'"'"'s history' '
	tool_call get_file_contents "{\"repo\":\"demo/forgemcp\",\"path\":\"etc/nginx-forgemcp.conf.sample\"}" &&
	test_status 200 &&
	tool_text | jq -e ".content | contains(\"fastcgi_pass\")" &&
	if test "$(git -C "$SRC_DIR" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$SRC_DIR" && pwd -P)"; then
		tool_text | jq -e ".commit == \"$(git -C "$SRC_DIR" rev-parse HEAD)\""
	fi
'

test_expect_success 'no token is 401; the loopback origins are allowed, others refused' '
	mcp_legacy ping null --no-auth &&
	test_status 401 &&
	mcp_legacy ping null -H "Origin: http://localhost:$QS_PORT" &&
	test_status 200 &&
	mcp_legacy ping null -H "Origin: http://127.0.0.1:$QS_PORT" &&
	test_status 200 &&
	mcp_legacy ping null -H "Origin: http://evil.example.com" &&
	test_status 403
'

test_expect_success 'status says what runs' '
	FORGEMCP_STATE=$QS_STATE "$QS" status >status.out &&
	cat status.out &&
	grep -E "^  mariadb +running" status.out &&
	grep -E "^  fcgi +running" status.out &&
	grep -E "^  worker +running" status.out &&
	grep -E "^  runner +running" status.out &&
	grep -E "^  agent +running" status.out &&
	grep -E "^  wikiagent +running" status.out &&
	grep -E "^  nginx +running" status.out &&
	grep "answers" status.out
'

test_expect_success 'a second run reuses the state: fast, same token, no re-import' '
	start=$(date +%s) &&
	qs >second.out 2>&1 &&
	end=$(date +%s) &&
	cat second.out &&
	test $((end - start)) -lt 10 &&
	test "$(cat "$QS_STATE/token")" = "$TOKEN" &&
	test_must_fail grep -F "$TOKEN" second.out &&
	test_must_fail grep -E "importing|creating a private MariaDB|^curl .*error" second.out &&
	test "$(FORGEMCP_CONFIG=$QS_STATE/forgemcp.conf "$FORGEMCP" token list | grep -c .)" -le 2
'

test_expect_success 'stop stops everything it started' '
	pids=$(for p in $(cat "$QS_STATE"/run/*.pid); do proc_stamp "$p"; done) &&
	test -n "$pids" &&
	FORGEMCP_STATE=$QS_STATE "$QS" stop &&
	for p in $pids; do test_must_fail proc_alive "$p" || return 1; done &&
	test_must_fail curl -s -o /dev/null "http://127.0.0.1:$QS_PORT/" &&
	{ FORGEMCP_STATE=$QS_STATE "$QS" status >status2.out; test $? = 3; } &&
	grep -E "^  nginx +stopped" status2.out &&
	grep -E "^  mariadb +stopped" status2.out
'

test_expect_success 'after stop, a run brings the same instance back' '
	qs >third.out 2>&1
	code=$?
	test_register_pids_in "$QS_STATE/run"
	cat third.out
	test "$code" = 0 &&
	test "$(cat "$QS_STATE/token")" = "$TOKEN" &&
	tool_call list_repositories "{}" &&
	test_status 200 &&
	tool_text | jq -e "map(.full_name) | index(\"demo/forgemcp\") != null" &&
	FORGEMCP_STATE=$QS_STATE "$QS" stop
'

test_expect_success 'a state directory that holds something else is refused, untouched' '
	mkdir -p other &&
	chmod 755 other &&
	echo mine >other/notes.txt &&
	{ FORGEMCP_STATE=$PWD/other FORGEMCP_SKIP_APT=1 "$QS" status >out 2>err; test $? = 1; } &&
	cat err &&
	grep -F "$PWD/other is not empty and not a quick start state directory" err &&
	test "$(stat -c %a other)" = 755 &&
	test "$(ls -A other)" = notes.txt
'

test_expect_success 'an unknown command is a usage error' '
	{ FORGEMCP_STATE=$QS_STATE "$QS" frobnicate 2>err; test $? = 2; } &&
	grep "unknown command" err
'

test_done
