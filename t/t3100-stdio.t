#!/bin/bash
# t3100: the stdio front: newline-delimited JSON-RPC on stdin/stdout; the
# token comes from FORGEMCP_TOKEN or --token-file, never the command line.
. ./test-lib.sh

start_db
migrate_db
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# run_stdio [args...] < input: stdout to out, stderr to err (both also
# appended to the logs t9990-token-leaks.t reads).
run_stdio () {
	local code
	timeout 30 "$FORGEMCP" stdio "$@" >out 2>err
	code=$?
	cat out >>"$RESPONSES_LOG"
	cat err >>"$TRASH/stdio.stderr"
	return $code
}

# every stdout line must be a JSON-RPC message
stdout_is_json_lines () {
	while IFS= read -r line; do
		printf '%s' "$line" | jq -e '.jsonrpc == "2.0"' >/dev/null ||
			{ echo "not JSON-RPC on stdout: $line"; return 1; }
	done <out
}

test_expect_success 'legacy session over stdio' '
	{
		legacy_body initialize "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}" 1
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		legacy_body tools/list "{}" 2
		legacy_body ping null 3
	} | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test "$(wc -l <out)" = 3 &&
	stdout_is_json_lines &&
	sed -n 1p out | jq -e ".id == 1 and .result.protocolVersion == \"2025-11-25\" and .result.serverInfo.name == \"forgemcp\"" &&
	sed -n 2p out | jq -e ".id == 2 and (.result.tools | length >= 2)" &&
	sed -n 3p out | jq -e ".id == 3 and .result == {}"
'

test_expect_success 'modern requests over stdio need no HTTP headers' '
	{
		modern_body server/discover "{}" 1
		modern_body tools/list "{}" 2
		modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" 3
	} | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test "$(wc -l <out)" = 3 &&
	stdout_is_json_lines &&
	sed -n 1p out | jq -e ".id == 1 and .result.resultType == \"complete\" and .result.supportedVersions == [\"2026-07-28\"]" &&
	sed -n 2p out | jq -e ".id == 2 and .result.resultType == \"complete\" and (.result.tools | length >= 2)" &&
	sed -n 3p out | jq -e ".id == 3 and .result.resultType == \"complete\" and (.result.content[0].text | fromjson | map(.full_name) | index(\"alice/fixture\"))"
'

test_expect_success 'modern removed methods over stdio are -32601' '
	modern_body ping "{}" 4 | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	jq -e ".id == 4 and .error.code == -32601" out
'

test_expect_success 'notifications produce no output' '
	{
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
		echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}"
	} | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test_must_fail test -s out
'

test_expect_success 'FORGEMCP_TOKEN works like --token' '
	legacy_body ping null 5 | FORGEMCP_TOKEN=$ALICE_TOKEN run_stdio &&
	jq -e ".id == 5 and .result == {}" out
'

test_expect_success 'the token decides visibility over stdio as well' '
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" 6 | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	jq -r .result.content[0].text out | jq -e "map(.full_name) | index(\"bob/hidden\") == null" &&
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" 6 | FORGEMCP_TOKEN="$CAROL_TOKEN" run_stdio &&
	jq -r .result.content[0].text out | jq -e "map(.full_name) | index(\"bob/hidden\") != null"
'

test_expect_success 'a bad token is refused: no result is ever served' '
	legacy_body ping null 7 | FORGEMCP_TOKEN=not-a-valid-token run_stdio
	code=$?
	test_must_fail grep -q "\"result\"" out &&
	if test -s out; then
		stdout_is_json_lines && jq -e ".error.code == -32001" out
	else
		test $code != 0 && test_one_line_failure err
	fi
'

test_expect_success 'no token at all is refused' '
	legacy_body ping null 8 | run_stdio
	code=$?
	test_must_fail grep -q "\"result\"" out &&
	if test -s out; then
		jq -e ".error.code == -32001" out
	else
		test $code != 0 && test_one_line_failure err
	fi
'

test_expect_success '--token is refused, saying why and what to use instead' '
	legacy_body ping null 16 | run_stdio --token "$ALICE_TOKEN"
	test $? = 2 &&
	test_must_fail test -s out &&
	test_one_line_failure err &&
	grep -F "shown to every user of this host in the process list" err &&
	grep -F "set FORGEMCP_TOKEN or use --token-file FILE" err &&
	test_must_fail grep -F "$ALICE_TOKEN" err &&
	legacy_body ping null 16 | FORGEMCP_TOKEN=$ALICE_TOKEN run_stdio --token="$ALICE_TOKEN"
	test $? = 2 &&
	test_must_fail test -s out &&
	grep -F "process list" err &&
	: | FORGEMCP_TOKEN=$ALICE_TOKEN run_stdio --token
	test $? = 2 &&
	grep -F "process list" err
'

test_expect_success '--token-file reads the token from a file other users cannot read' '
	(umask 027 && printf "%s\n" "$ALICE_TOKEN" >alice.token) &&
	legacy_body ping null 17 | run_stdio --token-file alice.token &&
	jq -e ".id == 17 and .result == {}" out &&
	(umask 077 && printf "%s\r\n" "$CAROL_TOKEN" >carol.token) &&
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" 18 |
		FORGEMCP_TOKEN=$ALICE_TOKEN run_stdio --token-file carol.token &&
	jq -r .result.content[0].text out | jq -e "map(.full_name) | index(\"bob/hidden\") != null"
'

test_expect_success '--token-file refuses a file other users can read, and one that is not a token' '
	printf "%s\n" "$ALICE_TOKEN" >open.token &&
	chmod 644 open.token &&
	legacy_body ping null 19 | run_stdio --token-file open.token
	test $? = 1 &&
	test_must_fail test -s out &&
	test_one_line_failure err &&
	grep -F "other users can read or write it" err &&
	test_must_fail grep -F "$ALICE_TOKEN" err &&
	: | run_stdio --token-file no-such.token
	test $? = 1 && test_one_line_failure err && grep -F "no-such.token" err &&
	(umask 077 && : >empty.token && printf "a\nb\n" >two.token) &&
	: | run_stdio --token-file empty.token
	test $? = 1 && grep -F "expected the token on one line" err &&
	: | run_stdio --token-file two.token
	test $? = 1 && grep -F "expected the token on one line" err &&
	: | run_stdio --token-file .
	test $? = 1 && grep -F "not a regular file" err
'

test_expect_success 'a revoked token is refused' '
	tok=$(make_token alice read --name stdio-revoked) &&
	fm token revoke "$(db_sql "select id from tokens where name = '\''stdio-revoked'\''")" &&
	legacy_body ping null 9 | FORGEMCP_TOKEN="$tok" run_stdio
	test_must_fail grep -q "\"result\"" out
'

test_expect_success 'a scope the token lacks is an error over stdio' '
	modern_body tools/call "{\"name\":\"list_repositories\",\"arguments\":{}}" 10 | FORGEMCP_TOKEN="$WRITE_ONLY_TOKEN" run_stdio &&
	jq -e ".id == 10 and .error.code == -32001" out
'

test_expect_success 'invalid JSON gets -32700 with id null and the session goes on' '
	{
		echo "{not json"
		legacy_body ping null 11
	} | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test "$(wc -l <out)" = 2 &&
	sed -n 1p out | jq -e ".id == null and .error.code == -32700" &&
	sed -n 2p out | jq -e ".id == 11 and .result == {}"
'

test_expect_success 'a batch in stdio gets an array' '
	echo "[$(legacy_body ping null 12),$(legacy_body ping null 13)]" | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	jq -e "type == \"array\" and length == 2" out
'

test_expect_success 'logs go to stderr only; stdout stays clean at log_level debug' '
	legacy_body ping null 14 | FORGEMCP_LOG_LEVEL=debug FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test "$(wc -l <out)" = 1 &&
	stdout_is_json_lines
'

test_expect_success 'end of input exits 0' '
	: | FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test_must_fail test -s out
'

test_expect_success 'the token never appears in stderr' '
	legacy_body ping null 15 | FORGEMCP_LOG_LEVEL=debug FORGEMCP_TOKEN="$ALICE_TOKEN" run_stdio &&
	test_must_fail grep -F "$ALICE_TOKEN" err
'

test_expect_success 'stdio --help names --token-file and FORGEMCP_TOKEN, not --token' '
	fm stdio --help >out &&
	grep -i usage out &&
	grep -F -- "--token-file FILE" out &&
	grep -F FORGEMCP_TOKEN out &&
	test_must_fail grep -E -- "--token( |$|\])" out
'

test_done
