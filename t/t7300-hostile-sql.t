#!/bin/bash
# t7300: SQL metacharacters (' " ; -- /* % _ \ and UNION SELECT strings) in
# every string argument of every tool, generated from the schemas the
# running server serves in tools/list.  The server answers normally (no 5xx,
# no JSON-RPC error, no SQL error text, no token hash), LIKE wildcards are
# data, and issues, comments, pull requests and web searches made with such
# text read back byte-identical.  The workers survive every family.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/hostile.sh"
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

unset SEARCH_PROVIDER BRAVE_SEARCH_API_KEY
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

KEY=bsk-hostile-0d1e2f3a4b5c6d7e
FAKE_LOG=$TRASH/fake-brave.log
: >"$FAKE_LOG"
perl "$TEST_DIRECTORY/lib/fake-brave.pl" --token "$KEY" --log "$FAKE_LOG" \
	--port-file "$TRASH/fake.port" >"$TRASH/fake.out" 2>"$TRASH/fake.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/fake.port" || { echo "Bail out! the fake provider did not start"; exit 1; }

start_db
config_set search_base_url "http://127.0.0.1:$(cat "$TRASH/fake.port")/res/v1/web/search"
config_set brave_api_key "$KEY"
config_set search_hourly_limit 100000
start_server "$HOSTILE_WORKERS"
start_nginx
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# every scope, so the execute and merge tools are reached past the gate
TOKEN=$(make_token alice read,write,execute,merge)

test_expect_success "the server runs $HOSTILE_WORKERS workers; their pids are recorded" '
	workers_record
'
hclient_start

# The payloads: each metacharacter on its own, all of them at once, and
# classic injections.  None has blanks at either end (titles are trimmed).
PAYLOADS=(
	"'" '"' ';' '--' '/*' '%' '_' '\'
	"'\";--/*%_\\"
	"' UNION SELECT token_hash FROM tokens -- x"
	"x' OR '1'='1"
	'" OR "1"="1'
	"'); DROP TABLE issues; --x"
	"\\'; SELECT SLEEP(5); #x"
)

# leak_free: no SQL error text, no token hash, no 5xx in the answer.
leak_free () {
	test "$STATUS" -lt 500 || show_ "a 5xx answer" || return 1
	[[ ! $BODY =~ (SQL syntax|MariaDB|MySQL|SQLSTATE|You have an error|Unknown column|Duplicate entry|near \') ]] ||
		show_ "SQL error text leaked" || return 1
	[[ ! $BODY =~ [0-9a-f]{64} ]] || show_ "a token hash leaked" || return 1
}

# ---------------------------------------------------------------------------
family_begin 'SQL metacharacters in every string argument of every tool'

# The generator: one line per (tool, string property, payload), fields
# separated by US (0x1f): tool, property, payload, arguments JSON.  The
# other arguments are the valid required ones; a repo becomes alice/PAYLOAD
# so that the text reaches the repository lookup.
cat >gen.jq <<'EOF'
def types: (.type // []) | if type == "string" then [.] else . end;
def valid($name):
  if $name == "repo" then "alice/project"
  elif $name == "head" then "feature"
  elif $name == "base" then "main"
  elif .enum then .enum[0]
  else (types[0]) as $t
    | if $t == "string" then "a" * ([.minLength // 1, 1] | max)
      elif $t == "integer" then (.minimum // 1)
      elif $t == "number" then 1
      elif $t == "boolean" then true
      else null end
  end;
.result.tools[] | .name as $tool | .inputSchema as $s
| ([ ($s.properties | to_entries)[] | .key as $k
     | select(($s.required // []) | index($k))
     | {($k): (.value | valid($k))} ] | add // {}) as $base
| ($s.properties | to_entries)[] | select(.value | types | index("string")) | .key as $p
| $payloads[] as $v
| [$tool, $p, $v, ($base + {($p): (if $p == "repo" then "alice/" + $v else $v end)} | tojson)]
| join("\u001f")
EOF

test_expect_success "$FAMILY: the string arguments come from tools/list" '
	mcp_modern tools/list &&
	test_status 200 &&
	printf "%s\n" "${PAYLOADS[@]}" | jq -R . | jq -sc . >payloads.json &&
	jq -r --argjson payloads "$(cat payloads.json)" -f gen.jq "$RESP.body" >cases.txt &&
	test "$(cut -d "$(printf "\037")" -f1 cases.txt | sort -u | wc -l)" -ge 15 &&
	wc -l <cases.txt
'

TOKENS_BEFORE=$(db_sql "select count(*) from tokens")
while IFS=$'\x1f' read -r -u 3 tool prop payload args; do
	C_TOOL=$tool C_ARGS=$args
	test_expect_success "$FAMILY: $tool $prop = $payload -> answered, nothing leaked" '
		call_modern "$C_TOOL" "$C_ARGS" &&
		test "$STATUS" = 200 &&
		[[ $BODY == *"\"result\":{"* ]] || show_ "expected a result" || return 1
		leak_free
	'
done 3<cases.txt

test_expect_success "$FAMILY: every table is intact" '
	test "$(db_sql "select count(*) from tokens")" = "$TOKENS_BEFORE" &&
	db_sql "select count(*) from issues" &&
	db_sql "select count(*) from users" >users &&
	test "$(cat users)" = 6
'

family_end

# ---------------------------------------------------------------------------
family_begin 'LIKE wildcards and quotes in search queries are data'

for payload in "${PAYLOADS[@]}"; do
	json_str C_Q "$payload"
	test_expect_success "$FAMILY: list_repositories query $payload -> no repository" '
		call_modern list_repositories "{\"query\":$C_Q}" &&
		expect_tool_ok && leak_free &&
		[[ $BODY == *"\"structuredContent\":[]"* ]] || show_ "expected no repository"
	'
done

family_end

# ---------------------------------------------------------------------------
family_begin 'issues and comments with such text read back byte-identical'

test_expect_success "$FAMILY: the issues of the first family are closed (set aside)" '
	db_sql "update issues set state = \"closed\", closed_at = utc_timestamp()" &&
	test "$(db_sql "select count(*) from issues where state = \"open\"")" = 0
'

N=0
for payload in "${PAYLOADS[@]}"; do
	N=$((N + 1))
	C_P=$payload
	json_str C_PJ "x $N $payload"
	json_str C_PQ "$payload"
	test_expect_success "$FAMILY: create_issue titled and described $payload" '
		call_modern create_issue "{\"repo\":\"alice/project\",\"title\":$C_PJ,\"body\":$C_PJ}" &&
		expect_tool_ok && leak_free &&
		jq_body -r ".result.structuredContent.number" >number &&
		call_modern get_issue "{\"repo\":\"alice/project\",\"number\":$(cat number)}" &&
		expect_tool_ok && leak_free &&
		jq_body -e --argjson t "$C_PJ" ".result.structuredContent | .title == \$t and .body == \$t" &&
		test "$(db_sql "select title = body from issues where number = $(cat number) and repo_id = (select r.id from repositories r join users u on u.id = r.owner_id where u.login = \"alice\" and r.name = \"project\")")" = 1
	'
	test_expect_success "$FAMILY: a comment of $payload reads back" '
		call_modern add_issue_comment "{\"repo\":\"alice/project\",\"number\":$(cat number),\"body\":$C_PJ}" &&
		expect_tool_ok && leak_free &&
		call_modern get_issue "{\"repo\":\"alice/project\",\"number\":$(cat number)}" &&
		jq_body -e --argjson t "$C_PJ" "[.result.structuredContent.comments[].body] == [\$t]"
	'
	test_expect_success "$FAMILY: list_issues query $payload finds exactly the issues holding it" '
		call_modern list_issues "{\"repo\":\"alice/project\",\"state\":\"open\",\"query\":$C_PQ}" &&
		expect_tool_ok && leak_free &&
		jq_body -e --arg p "$C_P" "[.result.structuredContent.issues[].title] | length > 0 and all(contains(\$p))"
	'
done

test_expect_success "$FAMILY: each query matched only its own kind of issue" '
	call_modern list_issues "{\"repo\":\"alice/project\",\"state\":\"open\",\"query\":\"%\"}" &&
	jq_body -e "[.result.structuredContent.issues[].title] | all(contains(\"%\"))" &&
	call_modern list_issues "{\"repo\":\"alice/project\",\"state\":\"open\",\"query\":\"_\"}" &&
	jq_body -e "[.result.structuredContent.issues[].title] | all(contains(\"_\"))"
'

family_end

# ---------------------------------------------------------------------------
family_begin 'pull requests and web searches with such text'

for payload in "${PAYLOADS[@]:8}"; do
	json_str C_PJ "pr $payload"
	test_expect_success "$FAMILY: create_pull_request titled $payload reads back" '
		db_sql "update pull_requests set state = \"closed\"" &&
		call_modern create_pull_request "{\"repo\":\"alice/project\",\"title\":$C_PJ,\"body\":$C_PJ,\"head\":\"feature\",\"base\":\"main\"}" &&
		expect_tool_ok && leak_free &&
		jq_body -r ".result.structuredContent.number" >number &&
		call_modern get_pull_request "{\"repo\":\"alice/project\",\"number\":$(cat number)}" &&
		expect_tool_ok && leak_free &&
		jq_body -e --argjson t "$C_PJ" ".result.structuredContent | .title == \$t and .body == \$t"
	'
done

for payload in "${PAYLOADS[@]}"; do
	C_P=$payload
	json_str C_PQ "$payload"
	test_expect_success "$FAMILY: web_search for $payload reaches the provider unchanged" '
		call_modern web_search "{\"query\":$C_PQ,\"count\":1}" &&
		expect_tool_ok && leak_free &&
		jq_body -e --arg t "Result 1 for $C_P" ".result.structuredContent[0].title == \$t"
	'
done

test_expect_success "$FAMILY: no answer took the time of an injected SLEEP" '
	! grep -E "time=([5-9][0-9]{3}|[0-9]{5,})\." "$SERVER_LOG"
'

family_end

hostile_summary 100

test_done
