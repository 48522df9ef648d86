#!/bin/bash
# t5500: repository variables: list_repository_variables, set_repository_variable,
# delete_repository_variable, by role, with their name, value and count rules.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

# four workers, so that writers really run at once (see "concurrent writers")
start_all 4
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# On alice/project: alice owns it, mona manages, dave writes, erin reads, frank
# is a stranger.  MONA_RO_TOKEN has the read scope only.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_TOKEN=$(make_token mona read,write) &&
MONA_RO_TOKEN=$(make_token mona read) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
RULE='\[A-Z_\]\[A-Z0-9_\]\*'

# set_var NAME VALUE TOKEN [REPO]: set_repository_variable
set_var () {
	local r n v
	json_str r "${4:-$P}" && json_str n "$1" && json_str v "$2" &&
	tool_call set_repository_variable "{\"repo\":$r,\"name\":$n,\"value\":$v}" --token "$3"
}

# del_var NAME TOKEN [REPO]: delete_repository_variable
del_var () {
	local r n
	json_str r "${3:-$P}" && json_str n "$1" &&
	tool_call delete_repository_variable "{\"repo\":$r,\"name\":$n}" --token "$2"
}

# list_vars TOKEN [PAGE] [REPO]: list_repository_variables; the answer goes to out.json
list_vars () {
	local r
	json_str r "${3:-$P}" &&
	tool_call list_repository_variables "{\"repo\":$r,\"page\":${2:-1}}" --token "$1" && forge_ok
}

# snapshot FILE: every variable row, to show that a refused call changed nothing
snapshot () {
	db_sql "select repo_id, name, value, created_at, updated_at, coalesce(updated_by, 0)
		from repository_variables order by repo_id, name" >"$1"
}

# count_vars: how many variables alice/project has
count_vars () {
	db_sql "select count(*) from repository_variables v join repositories r on r.id = v.repo_id where r.name = 'project'"
}

test_expect_success 'tools/list: the three tools, their hints and what their descriptions promise' '
	mcp_modern tools/list && test_status 200 &&
	for t in list_repository_variables set_repository_variable delete_repository_variable; do
		test_jq ".result.tools[] | select(.name == \"$t\") | (.title | length > 0) and (.description | test(\"credentials\"))" || return 1
	done &&
	for t in list_repository_variables set_repository_variable; do
		test_jq ".result.tools[] | select(.name == \"$t\") | .description | test(\"at most 100 variables\")" || return 1
	done &&
	test_jq ".result.tools[] | select(.name == \"list_repository_variables\") | .annotations.readOnlyHint == true" &&
	test_jq ".result.tools[] | select(.name == \"set_repository_variable\") | .annotations.readOnlyHint == false and .annotations.idempotentHint == true" &&
	test_jq ".result.tools[] | select(.name == \"delete_repository_variable\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == true and .annotations.idempotentHint == true" &&
	test_jq ".result.tools[] | select(.name == \"set_repository_variable\") | .description | test(\"manager role\") and test(\"anyone who can read the repository\")" &&
	test_jq ".result.tools[] | select(.name == \"delete_repository_variable\") | .description | test(\"manager role\")"
'

test_expect_success 'a repository without variables lists none, for every role' '
	for tok in "$ALICE_TOKEN" "$MONA_TOKEN" "$DAVE_TOKEN" "$ERIN_TOKEN" "$FRANK_TOKEN"; do
		list_vars "$tok" &&
		jq -e ". == {variables: [], page: 1, has_more: false}" out.json || return 1
	done
'

test_expect_success 'the manager creates a variable: created is true' '
	set_var DEPLOY_REGION eu-west-1 "$MONA_TOKEN" && forge_ok &&
	jq -e ".name == \"DEPLOY_REGION\" and .value == \"eu-west-1\" and .created == true" out.json &&
	jq -e ".updated_at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$\")" out.json &&
	jq -e "keys == [\"created\", \"name\", \"updated_at\", \"value\"]" out.json &&
	test "$(db_sql "select v.value, u.login from repository_variables v join users u on u.id = v.updated_by where v.name = \"DEPLOY_REGION\"")" = "$(printf "eu-west-1\tmona")"
'

test_expect_success 'the manager replaces it: created is false, one row' '
	set_var DEPLOY_REGION us-east-2 "$MONA_TOKEN" && forge_ok &&
	jq -e ".name == \"DEPLOY_REGION\" and .value == \"us-east-2\" and .created == false" out.json &&
	test "$(count_vars)" = 1 &&
	test "$(db_sql "select value from repository_variables")" = us-east-2
'

test_expect_success 'setting the same value again is no change and still created false' '
	set_var DEPLOY_REGION us-east-2 "$MONA_TOKEN" && forge_ok &&
	jq -e ".value == \"us-east-2\" and .created == false" out.json &&
	test "$(count_vars)" = 1
'

test_expect_success 'the owner creates and replaces a variable; the last writer is recorded' '
	set_var BUILD_FLAGS "-O2 -g" "$ALICE_TOKEN" && forge_ok &&
	jq -e ".created == true and .value == \"-O2 -g\"" out.json &&
	set_var BUILD_FLAGS "-O3" "$ALICE_TOKEN" && forge_ok &&
	jq -e ".created == false and .value == \"-O3\"" out.json &&
	set_var DEPLOY_REGION ap-south-1 "$ALICE_TOKEN" && forge_ok &&
	jq -e ".created == false" out.json &&
	test "$(db_sql "select u.login from repository_variables v join users u on u.id = v.updated_by where v.name = \"DEPLOY_REGION\"")" = alice
'

test_expect_success 'every role and a stranger on the public repository list them, by name' '
	for tok in "$ALICE_TOKEN" "$MONA_TOKEN" "$DAVE_TOKEN" "$ERIN_TOKEN" "$FRANK_TOKEN"; do
		list_vars "$tok" &&
		jq -e "[.variables[] | [.name, .value, .updated_by]] == [[\"BUILD_FLAGS\", \"-O3\", \"alice\"], [\"DEPLOY_REGION\", \"ap-south-1\", \"alice\"]]" out.json &&
		jq -e ".page == 1 and .has_more == false" out.json &&
		jq -e "all(.variables[]; (keys == [\"name\", \"updated_at\", \"updated_by\", \"value\"]) and (.updated_at | test(\"Z$\")))" out.json || return 1
	done
'

for who in dave:writer:DAVE_TOKEN erin:reader:ERIN_TOKEN frank:none:FRANK_TOKEN; do
	IFS=: read -r login role tokvar <<<"$who"
	test_expect_success "$login ($role) may not set a variable, and nothing changes" "
		snapshot before &&
		set_var DEPLOY_REGION hacked \"\$$tokvar\" &&
		forge_error '^you cannot set repository variables on alice/project: that needs the manager role or more, and your role is $role\$' &&
		set_var NEW_ONE x \"\$$tokvar\" &&
		forge_error 'needs the manager role' &&
		snapshot after && test_cmp before after
	"
	test_expect_success "$login ($role) may not delete a variable, and nothing changes" "
		snapshot before &&
		del_var DEPLOY_REGION \"\$$tokvar\" &&
		forge_error '^you cannot delete repository variables on alice/project: that needs the manager role or more, and your role is $role\$' &&
		del_var NOT_THERE \"\$$tokvar\" &&
		forge_error 'needs the manager role' &&
		snapshot after && test_cmp before after
	"
done

test_expect_success 'a read-only token is refused with 403 before any work, for both writes' '
	snapshot before &&
	set_var DEPLOY_REGION x "$MONA_RO_TOKEN" &&
	test_status 403 && test_header WWW-Authenticate "insufficient_scope" &&
	del_var DEPLOY_REGION "$MONA_RO_TOKEN" &&
	test_status 403 && test_header WWW-Authenticate "insufficient_scope" &&
	snapshot after && test_cmp before after &&
	list_vars "$MONA_RO_TOKEN" &&
	jq -e "(.variables | length) == 2" out.json
'

test_expect_success 'the manager deletes: deleted true, then false (idempotent)' '
	del_var BUILD_FLAGS "$MONA_TOKEN" && forge_ok &&
	jq -e ". == {name: \"BUILD_FLAGS\", deleted: true}" out.json &&
	test "$(count_vars)" = 1 &&
	del_var BUILD_FLAGS "$MONA_TOKEN" && forge_ok &&
	jq -e ". == {name: \"BUILD_FLAGS\", deleted: false}" out.json &&
	test "$(count_vars)" = 1
'

test_expect_success 'the owner deletes: deleted true, then false' '
	del_var DEPLOY_REGION "$ALICE_TOKEN" && forge_ok &&
	jq -e ". == {name: \"DEPLOY_REGION\", deleted: true}" out.json &&
	del_var DEPLOY_REGION "$ALICE_TOKEN" && forge_ok &&
	jq -e ". == {name: \"DEPLOY_REGION\", deleted: false}" out.json &&
	test "$(count_vars)" = 0
'

test_expect_success 'names: the edges that are allowed' '
	for n in A _ _9 A_B_C Z0 "$(printf "%064d" 0 | tr 0 X)"; do
		set_var "$n" v "$MONA_TOKEN" && forge_ok &&
		jq -e --arg n "$n" ".name == \$n and .created == true" out.json || return 1
		del_var "$n" "$MONA_TOKEN" && forge_ok || return 1
	done &&
	test "$(count_vars)" = 0
'

LONG65=$(printf "%065d" 0 | tr 0 X)
for n in deploy_region 1ABC "$LONG65" "" "A-B" "A B" "CAF$(printf '\303\211')" "lower"; do
	test_expect_success "set_repository_variable refuses the name '$n', showing the rule and the name" "
		snapshot before &&
		set_var '$n' v \"\$MONA_TOKEN\" &&
		forge_error \"^variable name '$n' \" &&
		grep -e '$RULE' errtext &&
		grep -e 'at most 64\|1 to 64' errtext &&
		del_var '$n' \"\$MONA_TOKEN\" &&
		forge_error \"^variable name '$n' \" &&
		snapshot after && test_cmp before after
	"
done

test_expect_success 'each bad name gets its reason' '
	set_var deploy v "$MONA_TOKEN" && forge_error "has characters other than A-Z, 0-9 and _" &&
	set_var 9LIVES v "$MONA_TOKEN" && forge_error "starts with a digit" &&
	set_var "$LONG65" v "$MONA_TOKEN" && forge_error "is longer than 64 characters" &&
	set_var "" v "$MONA_TOKEN" && forge_error "is empty"
'

test_expect_success 'a very long name is quoted cut short, not whole' '
	set_var "$(printf "%5000d" 0 | tr " 0" "XX")" v "$MONA_TOKEN" &&
	forge_error "^variable name .X{80}\.\.\.. is longer than 64 characters" &&
	test "$(wc -c <errtext)" -lt 600 &&
	test "$(count_vars)" = 0
'

test_expect_success 'a NUL byte in the name or the value is refused' '
	tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"A\\u0000B\",\"value\":\"v\"}" --token "$MONA_TOKEN" &&
	forge_error "name.* must not contain NUL bytes" &&
	tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"A\",\"value\":\"x\\u0000y\"}" --token "$MONA_TOKEN" &&
	forge_error "value.* must not contain NUL bytes" &&
	tool_call delete_repository_variable "{\"repo\":\"$P\",\"name\":\"A\\u0000B\"}" --token "$MONA_TOKEN" &&
	forge_error "name.* must not contain NUL bytes" &&
	test "$(count_vars)" = 0
'

test_expect_success 'values: empty, multi-line and Unicode text survive' '
	set_var EMPTY "" "$MONA_TOKEN" && forge_ok &&
	jq -e ".value == \"\" and .created == true" out.json &&
	set_var TEXT "$(printf "line one\n\tcaf\303\251 \342\234\223 \"quoted\"")" "$MONA_TOKEN" && forge_ok &&
	list_vars "$ERIN_TOKEN" &&
	jq -e ".variables == [.variables[0], .variables[1]] and .variables[0].name == \"EMPTY\" and .variables[0].value == \"\"" out.json &&
	jq -e ".variables[1].value == \"line one\n\tcaf\u00e9 \u2713 \\\"quoted\\\"\"" out.json
'

test_expect_success 'a variable whose last writer is gone shows updated_by null' '
	db_sql "update repository_variables set updated_by = NULL where name = \"EMPTY\"" &&
	list_vars "$FRANK_TOKEN" &&
	jq -e "[.variables[] | [.name, .updated_by]] == [[\"EMPTY\", null], [\"TEXT\", \"mona\"]]" out.json
'

test_expect_success 'a value of 4096 bytes is stored whole' '
	v=$(printf "%4096d" 0 | tr " 0" "vv") &&
	set_var BIG "$v" "$MONA_TOKEN" && forge_ok &&
	jq -e ".value | length == 4096" out.json &&
	test "$(db_sql "select octet_length(value) from repository_variables where name = \"BIG\"")" = 4096
'

test_expect_success 'a value of 4097 bytes is refused, naming the limit, and the old value stays' '
	snapshot before &&
	set_var BIG "$(printf "%4097d" 0 | tr " 0" "ww")" "$MONA_TOKEN" &&
	forge_error "^the value of BIG is 4097 bytes: a variable value is at most 4096 bytes" &&
	set_var NEW "$(printf "%4097d" 0 | tr " 0" "ww")" "$MONA_TOKEN" &&
	forge_error "is 4097 bytes" &&
	snapshot after && test_cmp before after
'

test_expect_success 'the limit is in bytes: 1366 three-byte characters (4098 bytes) are refused' '
	set_var WIDE "$(for i in $(seq 1366); do printf "\342\202\254"; done)" "$MONA_TOKEN" &&
	forge_error "is 4098 bytes" &&
	set_var WIDE "$(for i in $(seq 1365); do printf "\342\202\254"; done)" "$MONA_TOKEN" && forge_ok &&
	jq -e ".value | length == 1365" out.json
'

test_expect_success 'up to 100 variables; the 101st is refused with the limit in the message' '
	i=0 n=$(count_vars) &&
	while test $n -lt 100; do
		printf -v name "V_%03d" $i &&
		body= &&
		tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"$name\",\"value\":\"$i\"}" --token "$MONA_TOKEN" &&
		test_status 200 && { IFS= read -r -d "" body <"$RESP.body" || :; } &&
		[[ $body == *"\\\"created\\\":true"* ]] || { show_response_; return 1; }
		i=$((i + 1)) n=$((n + 1))
	done &&
	test "$(count_vars)" = 100 &&
	snapshot before &&
	set_var ONE_TOO_MANY x "$MONA_TOKEN" &&
	forge_error "^alice/project already has 100 variables, the most a repository may have \(100\)" &&
	grep ONE_TOO_MANY errtext &&
	snapshot after && test_cmp before after
'

test_expect_success 'at the limit an existing variable can still be changed, and a freed slot reused' '
	set_var V_095 changed "$ALICE_TOKEN" && forge_ok &&
	jq -e ".created == false and .value == \"changed\"" out.json &&
	test "$(count_vars)" = 100 &&
	del_var V_095 "$ALICE_TOKEN" && forge_ok && jq -e ".deleted == true" out.json &&
	set_var ONE_TOO_MANY x "$ALICE_TOKEN" && forge_ok && jq -e ".created == true" out.json &&
	test "$(count_vars)" = 100
'

test_expect_success 'paging: 50 a page by name, has_more, then an empty page' '
	db_sql "select v.name from repository_variables v join repositories r on r.id = v.repo_id where r.name = \"project\" order by v.name" >all &&
	list_vars "$ERIN_TOKEN" 1 &&
	jq -e "(.variables | length) == 50 and .page == 1 and .has_more == true" out.json &&
	jq -r ".variables[].name" out.json >got1 &&
	list_vars "$ERIN_TOKEN" 2 &&
	jq -e "(.variables | length) == 50 and .page == 2 and .has_more == false" out.json &&
	jq -r ".variables[].name" out.json >got2 &&
	cat got1 got2 >got && test_cmp all got &&
	list_vars "$ERIN_TOKEN" 3 &&
	jq -e ". == {variables: [], page: 3, has_more: false}" out.json &&
	list_vars "$ERIN_TOKEN" 9223372036854775807 &&
	jq -e ".variables == [] and .has_more == false" out.json
'

test_expect_success 'paging: without page it is page 1' '
	tool_call list_repository_variables "{\"repo\":\"$P\"}" --token "$ERIN_TOKEN" && forge_ok &&
	jq -e ".page == 1 and (.variables | length) == 50 and .has_more == true" out.json
'

for a in '{"page":0}' '{"page":"2"}' '{"page":1.5}' '{"page":-1}'; do
	test_expect_success "list_repository_variables $a is an in-band error naming page" "
		tool_call list_repository_variables \"\$(jq -nc --argjson a '$a' '{repo: \"$P\"} + \$a')\" &&
		forge_error page
	"
done

test_expect_success 'a missing or mistyped argument is named' '
	tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"A\"}" --token "$MONA_TOKEN" &&
	forge_error value &&
	tool_call set_repository_variable "{\"repo\":\"$P\",\"name\":\"A\",\"value\":5}" --token "$MONA_TOKEN" &&
	forge_error value &&
	tool_call delete_repository_variable "{\"repo\":\"$P\"}" --token "$MONA_TOKEN" &&
	forge_error name &&
	test "$(count_vars)" = 100
'

test_expect_success 'concurrent writers cannot pass the limit' '
	for n in V_000 V_001 V_002 V_003 V_004 V_005; do
		del_var $n "$MONA_TOKEN" && forge_ok || return 1
	done &&
	test "$(count_vars)" = 94 &&
	pids= &&
	for i in $(seq 1 12); do
		fast_tool set_repository_variable "{\"repo\":\"$P\",\"name\":\"RACE_$i\",\"value\":\"$i\"}" "$MONA_TOKEN" race.$i >race.$i.code &
		pids="$pids $!"
	done &&
	wait $pids &&
	for i in $(seq 1 12); do test "$(cat race.$i.code)" = 200 || return 1; done &&
	test "$(grep -l "\\\\\"created\\\\\":true" race.[0-9]* | wc -l)" = 6 &&
	test "$(grep -l "already has 100 variables" race.[0-9]* | wc -l)" = 6 &&
	test "$(count_vars)" = 100
'

test_expect_success 'private repository: a reader collaborator lists, but may not set or delete' '
	set_var HIDDEN_CONF on "$BOB_TOKEN" bob/hidden && forge_ok &&
	list_vars "$CAROL_RW_TOKEN" 1 bob/hidden &&
	jq -e "[.variables[] | .name + \"=\" + .value] == [\"HIDDEN_CONF=on\"]" out.json &&
	set_var HIDDEN_CONF off "$CAROL_RW_TOKEN" bob/hidden &&
	forge_error "^you cannot set repository variables on bob/hidden: that needs the manager role or more, and your role is reader$" &&
	del_var HIDDEN_CONF "$CAROL_RW_TOKEN" bob/hidden &&
	forge_error "needs the manager role" &&
	test "$(db_sql "select value from repository_variables where name = \"HIDDEN_CONF\"")" = on
'

for call in \
	'list_repository_variables {"repo":"R"}' \
	'set_repository_variable {"repo":"R","name":"HIDDEN_CONF","value":"x"}' \
	'delete_repository_variable {"repo":"R","name":"HIDDEN_CONF"}' \
	'set_repository_variable {"repo":"R","name":"bad name","value":"x"}'
do
	tool=${call%% *}
	args=${call#* }
	test_expect_success "$tool: a private repository of another user looks exactly like a missing one" "
		snapshot before &&
		tool_call $tool '$(printf '%s' "$args" | sed 's|\"R\"|"bob/hidden"|')' --token \"\$FRANK_TOKEN\" &&
		forge_error '^Repository not found or not accessible\$' &&
		cp errtext hidden.txt &&
		tool_call $tool '$(printf '%s' "$args" | sed 's|\"R\"|"bob/nothing"|')' --token \"\$FRANK_TOKEN\" &&
		forge_error . &&
		test_cmp errtext hidden.txt &&
		snapshot after && test_cmp before after
	"
done

test_expect_success 'repo arguments that are not owner/name are not found' '
	for r in alice "alice/project/x" "/alice/project" "alice/"; do
		tool_call list_repository_variables "{\"repo\":\"$r\"}" &&
		forge_error "^Repository not found or not accessible$" &&
		tool_call set_repository_variable "{\"repo\":\"$r\",\"name\":\"A\",\"value\":\"v\"}" &&
		forge_error "^Repository not found or not accessible$" || return 1
	done
'

test_expect_success 'variables are per repository' '
	list_vars "$ALICE_TOKEN" 1 bob/tools &&
	jq -e ". == {variables: [], page: 1, has_more: false}" out.json &&
	set_var DEPLOY_REGION x "$BOB_TOKEN" bob/tools && forge_ok &&
	jq -e ".created == true" out.json &&
	test "$(count_vars)" = 100
'

test_expect_success 'a manager whose role is taken away can no longer set variables' '
	fm collaborator remove alice/project mona >/dev/null &&
	set_var ONE_TOO_MANY again "$MONA_TOKEN" &&
	forge_error "your role is none$" &&
	fm collaborator add alice/project mona manager >/dev/null &&
	set_var ONE_TOO_MANY again "$MONA_TOKEN" && forge_ok &&
	jq -e ".created == false and .value == \"again\"" out.json
'

test_expect_success 'set_repository_variable in the legacy era carries structuredContent' '
	mcp_legacy tools/call "{\"name\":\"set_repository_variable\",\"arguments\":{\"repo\":\"$P\",\"name\":\"ONE_TOO_MANY\",\"value\":\"legacy\"}}" --token "$MONA_TOKEN" &&
	test_status 200 &&
	test_jq ".result.isError != true" &&
	test_jq ".result.structuredContent == (.result.content[0].text | fromjson)" &&
	test_jq ".result.structuredContent.created == false"
'

test_done
