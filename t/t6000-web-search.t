#!/bin/bash
# t6000: web_search through nginx against a fake Brave Search API on 127.0.0.1.
. ./test-lib.sh

# The spec's own variable names configure the server too: none may leak in.
unset SEARCH_PROVIDER BRAVE_SEARCH_API_KEY
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

KEY=bsk-test-7f3c9e21d4a8b6f0-secret
FAKE_LOG=$TRASH/fake-brave.log
: >"$FAKE_LOG"

perl "$TEST_DIRECTORY/lib/fake-brave.pl" --token "$KEY" --log "$FAKE_LOG" \
	--port-file "$TRASH/fake.port" >"$TRASH/fake.out" 2>"$TRASH/fake.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/fake.port" || { echo "Bail out! the fake provider did not start"; exit 1; }
FAKE_PORT=$(cat "$TRASH/fake.port")
FAKE_URL=http://127.0.0.1:$FAKE_PORT/res/v1/web/search

start_db
config_set search_base_url "$FAKE_URL"
config_set brave_api_key "$KEY"
config_set search_timeout 1
config_set search_hourly_limit 3
start_server
start_nginx
mcp_client_start
setup_fixtures || { echo "Bail out! fixtures"; exit 1; }

# The limit is 3 searches an hour: until the rate-limit tests, every search
# starts from an empty window so the other tests can search freely.
RESET_WINDOW=yes

reset_window_ () {
	if test -n "$RESET_WINDOW"; then
		db_sql "DELETE FROM web_search_events"
	fi
}

# search ARGS_JSON [token]: a web_search call through nginx; fails unless HTTP 200
search () {
	reset_window_ &&
	tool_call web_search "$1" --token "${2:-$ALICE_TOKEN}" &&
	test_status 200
}

# cgi_search ARGS_JSON [NAME=VALUE...]: the same call, as alice, through a CGI run
# of the binary with extra environment
cgi_search () {
	local a=$1
	shift
	reset_window_ &&
	modern_body tools/call "$(jq -nc --argjson a "$a" '{name: "web_search", arguments: $a}')" \
		>cgi-body.json &&
	TOKEN=$ALICE_TOKEN cgi_request cgi-body.json \
		"HTTP_MCP_PROTOCOL_VERSION=$MODERN_VERSION" "HTTP_MCP_METHOD=tools/call" \
		"HTTP_MCP_NAME=web_search" "$@" &&
	test_status 200
}

# tool_error REGEX: the last response is an in-band tool error whose text matches

# last_fake: the fake's log line of the latest request
last_fake () {
	tail -n 1 "$FAKE_LOG"
}

# fake_requests: how many requests the fake has seen
fake_requests () {
	wc -l <"$FAKE_LOG" | tr -d ' '
}

test_expect_success 'tools/list: web_search is read-only, open-world, needs query' '
	mcp_modern tools/list &&
	test_status 200 &&
	jq ".result.tools[] | select(.name == \"web_search\")" "$RESP.body" >tool.json &&
	jq -e ".annotations.readOnlyHint == true and .annotations.openWorldHint == true" tool.json &&
	jq -e ".inputSchema.required == [\"query\"]" tool.json &&
	jq -e ".title | length > 0" tool.json
'

test_expect_success 'happy path: an array of {title, url, snippet}' '
	search "{\"query\":\"forgemcp release\",\"count\":3}" &&
	test_jq ".result.isError != true" &&
	tool_text >out.json &&
	jq -e "length == 3" out.json &&
	jq -e "all(.[]; (keys == [\"snippet\", \"title\", \"url\"]) and (.title | type == \"string\") and (.url | type == \"string\") and (.snippet | type == \"string\"))" out.json &&
	jq -e ".[0] == {title: \"Result 1 for forgemcp release\", url: \"https://example.com/1\", snippet: \"Snippet 1 about <strong>forgemcp release</strong>\"}" out.json &&
	jq -e ".[2].url == \"https://example.com/3\"" out.json
'

test_expect_success 'the request has the Brave shape: path, q, count, subscription token' '
	last_fake >line &&
	grep -F "GET /res/v1/web/search?q=forgemcp%20release&count=3	" line &&
	grep -F "	token=ok	" line
'

test_expect_success 'the query is escaped into the URL' '
	search "{\"query\":\"a&b=c d/e?f#g+h%i caf\u00e9\"}" &&
	test_jq ".result.isError != true" &&
	last_fake >line &&
	grep -F "?q=a%26b%3Dc%20d%2Fe%3Ff%23g%2Bh%25i%20caf%C3%A9&count=5	" line &&
	tool_text | jq -e ".[0].title == \"Result 1 for a&b=c d/e?f#g+h%i caf\u00e9\""
'

test_expect_success 'count defaults to 5' '
	search "{\"query\":\"default count\"}" &&
	last_fake | grep -F "	count=5	" &&
	test_text_jq "length == 5"
'

test_expect_success 'count 0 is clamped to 1' '
	search "{\"query\":\"zero\",\"count\":0}" &&
	test_jq ".result.isError != true" &&
	last_fake | grep -F "	count=1	" &&
	test_text_jq "length == 1"
'

test_expect_success 'count 50 is clamped to 10' '
	search "{\"query\":\"fifty\",\"count\":50}" &&
	test_jq ".result.isError != true" &&
	last_fake | grep -F "	count=10	" &&
	test_text_jq "length == 10"
'

test_expect_success 'count -7 and 3.9 are clamped, not refused' '
	search "{\"query\":\"negative\",\"count\":-7}" &&
	test_jq ".result.isError != true" &&
	last_fake | grep -F "	count=1	" &&
	search "{\"query\":\"fraction\",\"count\":3.9}" &&
	test_jq ".result.isError != true" &&
	last_fake | grep -F "	count=3	"
'

test_expect_success 'a provider answer without web results is an empty array' '
	search "{\"query\":\"noweb here\"}" &&
	test_jq ".result.isError != true" &&
	test_text_jq ". == []"
'

test_expect_success 'missing query is an in-band error' '
	n=$(fake_requests) &&
	search "{}" &&
	tool_error "query" &&
	search "{\"count\":3}" &&
	tool_error "query" &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'blank query is an in-band "missing query" error' '
	n=$(fake_requests) &&
	search "{\"query\":\"   \"}" &&
	tool_error "^missing query" &&
	search "{\"query\":\"\"}" &&
	tool_error "^missing query" &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'a query of the wrong type is an in-band error' '
	search "{\"query\":42}" &&
	test_json .result.isError true &&
	search "{\"query\":\"x\",\"count\":\"5\"}" &&
	test_json .result.isError true
'

test_expect_success 'upstream 4xx is surfaced in band with its status' '
	search "{\"query\":\"status:429 please\"}" &&
	tool_error "search provider returned HTTP 429" &&
	search "{\"query\":\"status:422\"}" &&
	tool_error "search provider returned HTTP 422" &&
	search "{\"query\":\"status:404\"}" &&
	tool_error "search provider returned HTTP 404"
'

test_expect_success 'upstream 5xx is surfaced in band with its status' '
	search "{\"query\":\"status:503\"}" &&
	tool_error "search provider returned HTTP 503" &&
	search "{\"query\":\"status:500\"}" &&
	tool_error "search provider returned HTTP 500"
'

test_expect_success 'a redirect is not followed' '
	n=$(fake_requests) &&
	search "{\"query\":\"status:302\"}" &&
	tool_error "search provider returned HTTP 302" &&
	test "$(fake_requests)" = "$((n + 1))"
'

test_expect_success 'an unreadable answer is an in-band error' '
	search "{\"query\":\"garbage\"}" &&
	tool_error "could not be read"
'

test_expect_success 'an answer over the size cap is an in-band error' '
	search "{\"query\":\"huge\"}" &&
	tool_error "larger than"
'

test_expect_success 'the server keeps working after upstream failures' '
	search "{\"query\":\"after failures\",\"count\":2}" &&
	test_jq ".result.isError != true" &&
	test_text_jq "length == 2"
'

test_expect_success 'a token without read scope gets 403 before the tool runs' '
	n=$(fake_requests) &&
	tool_call web_search "{\"query\":\"x\"}" --token "$WRITE_ONLY_TOKEN" &&
	test_status 403 &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'the legacy era returns the same results' '
	mcp_legacy tools/call "{\"name\":\"web_search\",\"arguments\":{\"query\":\"legacy era\",\"count\":2}}" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	test_text_jq "length == 2 and .[1].title == \"Result 2 for legacy era\""
'

test_expect_success 'timeout: a stalled provider is an in-band error after search_timeout' '
	start=$(date +%s) &&
	search "{\"query\":\"sleep:10 slow\"}" &&
	end=$(date +%s) &&
	tool_error "did not answer within 1 second;" &&
	test $((end - start)) -lt 8
'

test_expect_success 'after a timeout the next search works' '
	sleep 2 &&
	search "{\"query\":\"after timeout\",\"count\":1}" &&
	test_jq ".result.isError != true" &&
	test_text_jq "length == 1"
'

# Configuration variants run the same binary as a CGI program with its own
# environment, so the FastCGI workers need no restart for each.
grep -v "^brave_api_key *=" "$CONFIG" >"$TRASH/nokey.conf"

test_expect_success 'unconfigured key: the message names BRAVE_SEARCH_API_KEY' '
	n=$(fake_requests) &&
	cgi_search "{\"query\":\"no key\"}" "FORGEMCP_CONFIG=$TRASH/nokey.conf" &&
	tool_error "not configured.*BRAVE_SEARCH_API_KEY" &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'an empty key counts as unconfigured' '
	cgi_search "{\"query\":\"empty key\"}" "FORGEMCP_BRAVE_API_KEY=" &&
	tool_error "not configured.*BRAVE_SEARCH_API_KEY"
'

test_expect_success 'BRAVE_SEARCH_API_KEY in the environment configures the key' '
	cgi_search "{\"query\":\"spec variable\",\"count\":1}" \
		"FORGEMCP_CONFIG=$TRASH/nokey.conf" "BRAVE_SEARCH_API_KEY=$KEY" &&
	test_jq ".result.isError != true" &&
	last_fake | grep -F "	token=ok	"
'

test_expect_success 'FORGEMCP_BRAVE_API_KEY wins over BRAVE_SEARCH_API_KEY' '
	cgi_search "{\"query\":\"both set\"}" "FORGEMCP_CONFIG=$TRASH/nokey.conf" \
		"BRAVE_SEARCH_API_KEY=$KEY" "FORGEMCP_BRAVE_API_KEY=not-the-key" &&
	last_fake | grep -F "	token=wrong	" &&
	tool_error "search provider returned HTTP 401"
'

test_expect_success 'unknown provider: named in the message with the supported ones' '
	n=$(fake_requests) &&
	cgi_search "{\"query\":\"which provider\"}" "SEARCH_PROVIDER=bing" &&
	tool_error "unknown search provider .bing." &&
	tool_error "supported: brave" &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'FORGEMCP_SEARCH_PROVIDER wins over SEARCH_PROVIDER' '
	cgi_search "{\"query\":\"brave again\",\"count\":1}" \
		"SEARCH_PROVIDER=bing" "FORGEMCP_SEARCH_PROVIDER=brave" &&
	test_jq ".result.isError != true" &&
	{ cat "$CONFIG" && echo "search_provider = duckduck"; } >"$TRASH/duck.conf" &&
	cgi_search "{\"query\":\"from the file\"}" "FORGEMCP_CONFIG=$TRASH/duck.conf" &&
	tool_error "unknown search provider .duckduck."
'

test_expect_success 'a bad search_timeout or search_hourly_limit stops start-up naming the key' '
	FORGEMCP_SEARCH_TIMEOUT=0 test_must_fail fm migrate --status 2>err &&
	grep -F search_timeout err &&
	FORGEMCP_SEARCH_HOURLY_LIMIT=ten test_must_fail fm migrate --status 2>err &&
	grep -F search_hourly_limit err
'

# The rate limit: 3 searches per user per hour, shared by every process.
RESET_WINDOW=
test_expect_success 'rate limit: start from an empty window' '
	db_sql "DELETE FROM web_search_events"
'

test_expect_success 'rate limit: three searches pass, through workers and a CGI process' '
	search "{\"query\":\"one\",\"count\":1}" &&
	test_jq ".result.isError != true" &&
	search "{\"query\":\"two\",\"count\":1}" &&
	test_jq ".result.isError != true" &&
	cgi_search "{\"query\":\"three\",\"count\":1}" &&
	test_jq ".result.isError != true" &&
	test "$(db_sql "SELECT COUNT(*) FROM web_search_events e JOIN users u ON u.id = e.user_id WHERE u.login = '\''alice'\''")" = 3
'

test_expect_success 'rate limit: the fourth search is refused in band with the next time' '
	n=$(fake_requests) &&
	search "{\"query\":\"four\",\"count\":1}" &&
	tool_error "rate limit" &&
	tool_error "at most 3 searches per hour" &&
	tool_error "next search is allowed in [0-9]+ seconds \(at [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z\)" &&
	secs=$(sed -n "s/.*allowed in \([0-9]*\) seconds.*/\1/p" errtext) &&
	test "$secs" -gt 3000 && test "$secs" -le 3600 &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'rate limit: refused by every worker' '
	for i in 1 2 3 4 5 6; do
		search "{\"query\":\"again $i\"}" &&
		tool_error "rate limit" || return 1
	done &&
	test "$(db_sql "SELECT COUNT(*) FROM web_search_events e JOIN users u ON u.id = e.user_id WHERE u.login = '\''alice'\''")" = 3
'

test_expect_success 'rate limit: another user is not affected' '
	search "{\"query\":\"bob searches\",\"count\":1}" "$BOB_TOKEN" &&
	test_jq ".result.isError != true" &&
	test_text_jq "length == 1"
'

test_expect_success 'rate limit: parallel searches from both workers admit exactly the limit' '
	pids= &&
	for i in 1 2 3 4 5 6 7 8; do
		(
			RESP=$TRASH/par.$i &&
			tool_call web_search "{\"query\":\"parallel $i\",\"count\":1}" --token "$CAROL_TOKEN" &&
			jq -r ".result.isError // false" "$RESP.body" >"$TRASH/par.$i.err"
		) &
		pids="$pids $!"
	done &&
	wait $pids &&
	ok=$(cat "$TRASH"/par.*.err | grep -c false) &&
	refused=$(cat "$TRASH"/par.*.err | grep -c true) &&
	echo "admitted $ok refused $refused" &&
	test "$ok" = 3 && test "$refused" = 5
'

test_expect_success 'rate limit: events older than an hour leave the window and are purged' '
	db_sql "UPDATE web_search_events e JOIN users u ON u.id = e.user_id SET e.at = e.at - INTERVAL 2 HOUR WHERE u.login = '\''alice'\''" &&
	search "{\"query\":\"an hour later\",\"count\":1}" &&
	test_jq ".result.isError != true" &&
	test "$(db_sql "SELECT COUNT(*) FROM web_search_events e JOIN users u ON u.id = e.user_id WHERE u.login = '\''alice'\''")" = 1
'

test_expect_success 'rate limit: the sliding window frees one place when the oldest leaves' '
	search "{\"query\":\"fill 2\",\"count\":1}" &&
	search "{\"query\":\"fill 3\",\"count\":1}" &&
	search "{\"query\":\"full\",\"count\":1}" &&
	tool_error "rate limit" &&
	db_sql "UPDATE web_search_events e JOIN users u ON u.id = e.user_id SET e.at = UTC_TIMESTAMP(6) - INTERVAL 3599 SECOND WHERE u.login = '\''alice'\'' ORDER BY e.at LIMIT 1" &&
	search "{\"query\":\"full still\",\"count\":1}" &&
	tool_error "allowed in [1-9] seconds" &&
	sleep 2 &&
	search "{\"query\":\"one place free\",\"count\":1}" &&
	test_jq ".result.isError != true"
'

test_expect_success 'unconfigured key through nginx: in band, naming BRAVE_SEARCH_API_KEY' '
	config_unset brave_api_key &&
	restart_server &&
	n=$(fake_requests) &&
	tool_call web_search "{\"query\":\"no key\"}" --token "$BOB_TOKEN" &&
	tool_error "not configured.*BRAVE_SEARCH_API_KEY" &&
	test "$(fake_requests)" = "$n"
'

test_expect_success 'the API key never reaches a log' '
	test_must_fail grep -F "$KEY" "$SERVER_LOG" &&
	test_must_fail grep -rF "$KEY" "$TRASH/nginx/logs" &&
	if test -f "$TRASH/cgi.stderr"; then test_must_fail grep -F "$KEY" "$TRASH/cgi.stderr"; fi &&
	test_must_fail grep -F "$KEY" "$FAKE_LOG" &&
	grep -F "	token=ok	" "$FAKE_LOG" >/dev/null
'

test_done
