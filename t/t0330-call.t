#!/bin/bash
# t0330: `forgemcp call`, the runbook client, against the real front (nginx and
# the FastCGI workers): both eras, arguments typed from the tool's schema,
# --text, --list, TOOL --help, and every exit status a script branches on.
# It runs without the configuration file, as on a host that has only the URL
# and a token; t/lib/fake-http.pl plays the endpoints that misbehave.
. ./test-lib.sh

start_db
# dave's limit is reached on purpose; alice makes some 60 requests, far below it
config_set rate_limit 200
config_set rate_window 3600
start_server 2
start_nginx
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }
make_user dave &&
DAVE_TOKEN=$(make_token dave read) || { echo "Bail out! dave"; exit 1; }
URL=$BASE_URL/mcp

FAKE_LOG=$TRASH/fake-http.log
: >"$FAKE_LOG"
perl "$TEST_DIRECTORY/lib/fake-http.pl" --port-file "$TRASH/fake.port" --log "$FAKE_LOG" \
	</dev/null >/dev/null 2>"$TRASH/fake.stderr" &
test_register_pid $!
wait_for 10 test -s "$TRASH/fake.port" || { echo "Bail out! fake-http.pl did not start"; exit 1; }
FAKE=http://127.0.0.1:$(cat "$TRASH/fake.port")

# fcall STATUS [ARGS...]: forgemcp call --url $URL ARGS with FORGEMCP_TOKEN=$TOKEN
# and a configuration file that does not exist (every other command fails on
# it); stdout in out, stderr in err; the exit status must be STATUS.
fcall () {
	local want=$1 code
	shift
	FORGEMCP_CONFIG=$TRASH/no-such.conf FORGEMCP_TOKEN=$TOKEN \
		"$FORGEMCP" call --url "$URL" "$@" >out 2>err
	code=$?
	if test "${TEST_VERBOSE:-}" = 1; then
		echo "\$ forgemcp call $* -> $code"; head -n 15 out; cat err
	fi
	if test "$code" != "$want"; then
		echo "forgemcp call $*: exit status $code, expected $want"
		head -n 20 out | sed 's/^/stdout: /'
		sed 's/^/stderr: /' err
		return 1
	fi
}

# err_is REGEX: stderr is one line "forgemcp: ..." matching REGEX.
err_is () {
	test_one_line_failure err &&
	grep -E -- "$1" err || { echo "stderr does not match /$1/:"; cat err; return 1; }
}

printf 'db3: /var is full\n\n- rotated logs\n' >incident.md

test_expect_success 'call --help needs no endpoint, configuration or database' '
	test_must_fail env FORGEMCP_CONFIG=$TRASH/no-such.conf "$FORGEMCP" repo list 2>/dev/null &&
	env -u FORGEMCP_URL FORGEMCP_CONFIG=$TRASH/no-such.conf FORGEMCP_DB_SOCKET=/nonexistent \
		"$FORGEMCP" call --help >out 2>err &&
	test_must_fail test -s err &&
	grep -q "^usage: forgemcp call " out &&
	grep -q "^Exit status: 0 " out &&
	"$FORGEMCP" --help | grep -q "^  call  "
'

test_expect_success '--list prints every tool of tools/list, name and title' '
	fcall 0 --list &&
	mcp_modern tools/list &&
	jq -r ".result.tools[] | [.name, .title] | @tsv" "$RESP.body" >expect &&
	test_cmp expect out &&
	grep -qx "create_issue	Create issue" out
'

test_expect_success 'TOOL --help prints its arguments from the schema' '
	fcall 0 list_issues --help &&
	grep -q "^usage: forgemcp call list_issues " out &&
	grep -q "^  repo=VALUE (string, required)\$" out &&
	grep -q "^  page=VALUE (integer, default 1)\$" out &&
	grep -q "^  state=VALUE (string, default \"open\") one of: \"open\" \"closed\" \"all\"\$" out
'

test_expect_success 'a runbook line: create_issue with body=@FILE, 2026-07-28' '
	fcall 0 create_issue repo=alice/fixture title="disk full on db3" body=@incident.md &&
	test_must_fail test -s err &&
	jq -e ".isError != true and (.structuredContent.number | type) == \"number\"" out &&
	N=$(jq -r .structuredContent.number out) &&
	tool_ok get_issue "{\"repo\":\"alice/fixture\",\"number\":$N}" &&
	jq -j .body out.json >body &&
	test_cmp incident.md body &&
	jq -e ".title == \"disk full on db3\" and .author == \"alice\"" out.json
'

test_expect_success 'an integer argument is sent as an integer (the schema says so)' '
	fcall 0 get_issue repo=alice/fixture number=$N comments_limit=5 &&
	jq -e ".structuredContent.title == \"disk full on db3\"" out
'

test_expect_success 'KEY:=JSON is sent as written, KEY:=@FILE from a file' '
	fcall 0 get_issue repo:="\"alice/fixture\"" number:=$N &&
	jq -e ".structuredContent.number == $N" out &&
	printf "%s\n" "$N" >n.json &&
	fcall 0 get_issue repo=alice/fixture number:=@n.json &&
	jq -e ".structuredContent.number == $N" out &&
	fcall 1 get_issue repo=alice/fixture "number:={\"a\":[1]}" &&
	jq -e ".isError == true" out
'

test_expect_success 'KEY=@- reads stdin; a number in a file may end with a line break' '
	printf "from stdin\n" | fcall 0 create_issue repo=alice/fixture title=piped body=@- &&
	M=$(jq -r .structuredContent.number out) &&
	fcall 0 get_issue repo=alice/fixture number=@n.json &&
	fcall 0 get_issue repo=alice/fixture number=$M &&
	jq -e ".structuredContent.body == \"from stdin\n\"" out
'

test_expect_success '--legacy speaks 2025-06-18 to the same endpoint' '
	fcall 0 get_issue repo=alice/fixture number=$N &&
	jq -e ".resultType == \"complete\"" out &&
	fcall 0 --legacy get_issue repo=alice/fixture number=$N &&
	jq -e ".structuredContent.title == \"disk full on db3\" and (has(\"resultType\") | not)" out
'

test_expect_success '--text prints the text blocks' '
	fcall 0 get_issue repo=alice/fixture number=$N --text &&
	jq -e ".title == \"disk full on db3\"" out &&
	fcall 0 --legacy --text get_issue repo=alice/fixture number=$N &&
	jq -e ".number == $N" out
'

test_expect_success '--token-file reads the token; a file others can read is refused (2)' '
	printf "%s\n" "$ALICE_TOKEN" >tok &&
	chmod 600 tok &&
	TOKEN= fcall 0 --token-file tok get_issue repo=alice/fixture number=$N &&
	chmod 644 tok &&
	TOKEN= fcall 2 --token-file tok --list &&
	err_is "other users can read"
'

test_expect_success 'exit 1: the tool answered isError; the result is still printed' '
	fcall 1 get_issue repo=alice/nope number=1 &&
	jq -e ".isError == true and (.content[0].text | length > 0)" out &&
	err_is "^forgemcp: tool .get_issue. answered with an error: " &&
	fcall 1 --text get_issue repo=alice/nope number=1 &&
	test -s out
'

test_expect_success 'exit 2: usage errors, each named' '
	fcall 2 no_such_tool &&
	err_is "unknown tool .no_such_tool.: .forgemcp call --list." &&
	fcall 2 get_issue repo=alice/fixture number=three &&
	err_is "argument .number. must be an integer, not .three." &&
	fcall 2 get_issue repo=alice/fixture number=1 colour=red &&
	err_is "tool .get_issue. has no argument .colour." &&
	fcall 2 get_issue number=1 &&
	err_is "tool .get_issue. needs the argument .repo." &&
	fcall 2 get_issue repo=alice/fixture number:={ &&
	err_is "argument .number. is not valid JSON" &&
	fcall 2 create_issue repo=alice/fixture title=x body=@missing.md &&
	err_is "argument .body.: cannot read .missing.md." &&
	fcall 2 get_issue repo=alice/fixture number=1 number=2 &&
	err_is "argument .number. is given twice" &&
	fcall 2 get_issue repo=alice/fixture number:=null number=2 &&
	err_is "argument .number. is given twice" &&
	fcall 1 get_issue repo=alice/fixture number:=null &&
	jq -e ".isError == true" out &&
	fcall 2 get_issue repo &&
	err_is "expected KEY=VALUE, KEY=@FILE or KEY:=JSON, got .repo.\$" &&
	fcall 2 --timeout 0 --list &&
	err_is "--timeout" &&
	fcall 2 --list get_issue &&
	fcall 2 &&
	env -u FORGEMCP_URL "$FORGEMCP" call --list >out 2>err
	test $? = 2 &&
	err_is "no endpoint: give --url URL or set FORGEMCP_URL"
'

test_expect_success 'exit 2: --token is refused, saying why' '
	fcall 2 --token fmcp_never_issued --list &&
	err_is "--token is refused: .*process list.*FORGEMCP_TOKEN" &&
	fcall 2 --token=x --list &&
	test_must_fail test -s out
'

test_expect_success 'FORGEMCP_URL gives the endpoint' '
	FORGEMCP_URL=$URL FORGEMCP_TOKEN=$ALICE_TOKEN "$FORGEMCP" call --list >out 2>err &&
	grep -q "^get_issue	" out
'

test_expect_success 'exit 3: a path that is not the endpoint (404), a closed port' '
	fcall 3 --url "$BASE_URL/nothing/here" --list &&
	err_is "^forgemcp: HTTP 404 from $BASE_URL/nothing/here\$" &&
	PORT=$(free_port) &&
	fcall 3 --url "http://127.0.0.1:$PORT/mcp" --list &&
	err_is "cannot reach http://127.0.0.1:$PORT/mcp"
'

test_expect_success 'exit 3: a redirect is reported, not followed' '
	: >"$FAKE_LOG" &&
	fcall 3 --url "$FAKE/redirect" --list &&
	err_is "HTTP 302, a redirect to http://other.example/mcp; not followed" &&
	test "$(cat "$FAKE_LOG")" = "POST /redirect"
'

test_expect_success 'exit 3: an answer that is not JSON-RPC; no answer within --timeout' '
	fcall 3 --url "$FAKE/garbage" --list &&
	err_is "answered HTTP 200 without a JSON-RPC response" &&
	fcall 3 --url "$FAKE/hang" --timeout 1 --list &&
	err_is "did not answer within 1 second"
'

test_expect_success 'exit 3: a JSON-RPC error is printed with its code' '
	fcall 3 --url "$BASE_URL/mcp/x/nosuchset" --list &&
	err_is "HTTP 400 from .*: .*unknown toolset .nosuchset. .* \(JSON-RPC error -32600\)\$"
'

test_expect_success 'an answer as an event stream is read too' '
	TOKEN= fcall 0 --url "$FAKE/sse" echo say=hello --text &&
	test "$(cat out)" = "echo: hello"
'

test_expect_success 'exit 4: a token the server does not know (401)' '
	TOKEN=fmcp_not_a_real_token fcall 4 --list &&
	err_is "^forgemcp: HTTP 401 from $URL: Unauthorized" &&
	TOKEN= fcall 4 --list &&
	err_is "^forgemcp: HTTP 401 from $URL: "
'

test_expect_success 'exit 4: a token without the scope the tool needs (403)' '
	TOKEN=$CAROL_TOKEN fcall 4 create_issue repo=bob/hidden title=nope &&
	err_is "^forgemcp: HTTP 403 from $URL: .*needs the token scope .write."
'

# The runbook of doc/runbooks.md, pointed at this forge.
sed -n '/^#!\/bin\/sh$/,/^```$/p' "$SRC_DIR/doc/runbooks.md" | sed '$d' |
	sed -e "s|https://forge.example.org/mcp|$URL|" -e "s|/etc/forgemcp/ops.token|$TRASH/ops.token|" \
	    -e "s|ops/infra|alice/fixture|g" >runbook.sh
chmod +x runbook.sh
# run_runbook HOST: the runbook, with this build's forgemcp first on PATH
run_runbook () {
	env -u FORGEMCP_CONFIG PATH="${FORGEMCP%/*}:$PATH" ./runbook.sh "$1"
}

test_expect_success 'the runbook of doc/runbooks.md opens the issue once' '
	test "$(wc -l <runbook.sh)" -ge 20 &&
	(umask 077 && printf "%s\n" "$ALICE_TOKEN" >ops.token) &&
	{ run_runbook db7 >out 2>err || { cat err; false; }; } &&
	grep -Ex "$BASE_URL/alice/fixture/issues/[0-9]+" out &&
	{ run_runbook db7 >out 2>err || { cat err; false; }; } &&
	test_must_fail test -s out &&
	tool_ok list_issues "{\"repo\":\"alice/fixture\",\"query\":\"disk full on db7\"}" &&
	jq -e ".issues | length == 1" out.json
'

test_expect_success 'exit 5: rate limited, the wait on stderr' '
	mcp_client_start &&
	for i in $(seq 201); do
		mcp_post --token "$DAVE_TOKEN" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}" ||
			return 1
		st= && read -r st <"$RESP.status" || :
		test "$st" = 429 && break
	done
	test_status 429 &&
	TOKEN=$DAVE_TOKEN fcall 5 --list &&
	err_is "^forgemcp: rate limited: retry after [0-9]+ s\$" &&
	s=$(sed "s/.*after \([0-9]*\) s/\1/" err) &&
	test "$s" -ge 1 && test "$s" -le 3600
'

test_done
