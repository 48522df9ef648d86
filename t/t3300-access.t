#!/bin/bash
# t3300: access control for every tool, driven by tools/list: a private
# repository is indistinguishable from a missing one for a caller who cannot
# see it; a token without the tool's scope is refused at the gate (403, the
# scope challenge) before any work; write rules per role are kept.
#
# The table below holds valid arguments, the scope and the write rule of
# each tool; a tool tools/list serves without a row (or a row for a tool it
# does not serve) fails the script.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

unset SEARCH_PROVIDER BRAVE_SEARCH_API_KEY
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

# Valid arguments per tool.  @REPO@ is owner/name, @NAME@ the bare name,
# @HEAD@ a branch made fresh for each call (at the "feature" commit).
declare -A ARGS=(
	[add_issue_comment]='{"repo":"@REPO@","number":1,"body":"a comment"}'
	[compare_refs]='{"repo":"@REPO@","base":"main","head":"feature"}'
	[create_issue]='{"repo":"@REPO@","title":"an issue"}'
	[create_pull_request]='{"repo":"@REPO@","title":"a change","head":"@HEAD@","base":"main"}'
	[get_file_contents]='{"repo":"@REPO@","path":"README.md"}'
	[get_issue]='{"repo":"@REPO@","number":1}'
	[get_pull_request]='{"repo":"@REPO@","number":2}'
	[get_tree]='{"repo":"@REPO@"}'
	[list_branches]='{"repo":"@REPO@"}'
	[list_commits]='{"repo":"@REPO@"}'
	[list_issues]='{"repo":"@REPO@"}'
	[list_pull_requests]='{"repo":"@REPO@"}'
	[list_repositories]='{"query":"@NAME@"}'
	[search_code]='{"repo":"@REPO@","query":"project"}'
	[web_search]='{"query":"forgemcp"}'
	[get_user]='{}'
	[edit_issue]='{"repo":"@REPO@","number":1,"edit_version":@EV@,"body":"edited @N@"}'
	[close_issue]='{"repo":"@REPO@","number":1}'
	[reopen_issue]='{"repo":"@REPO@","number":1}'
	[list_inbox]='{}'
	[mark_notification_read]='{"all":true}'
	[list_repository_variables]='{"repo":"@REPO@"}'
	[set_repository_variable]='{"repo":"@REPO@","name":"BUILD_MODE","value":"fast @N@"}'
	[delete_repository_variable]='{"repo":"@REPO@","name":"BUILD_MODE"}'
	[get_pull_request_checks]='{"repo":"@REPO@","number":2}'
	[approve_pull_request_checks]='{"repo":"@REPO@","number":2}'
	[merge_pull_request]='{"repo":"@REPO@","number":@PR@,"version":1}'
	[list_pull_request_discussions]='{"repo":"@REPO@","number":2,"discussion":@DISC@}'
	[create_pull_request_discussion]='{"repo":"@REPO@","number":2,"body":"look @N@","path":"src/app.c","line":6}'
	[reply_pull_request_discussion]='{"repo":"@REPO@","number":2,"discussion":@DISC@,"body":"a reply @N@"}'
	[resolve_pull_request_discussion]='{"repo":"@REPO@","number":2,"discussion":@DISC@,"state_version":@SV@}'
	[reopen_pull_request_discussion]='{"repo":"@REPO@","number":2,"discussion":@DISC@,"state_version":@SV@}'
	[get_pull_request_diff]='{"repo":"@REPO@","number":2}'
	[edit_pull_request]='{"repo":"@REPO@","number":2,"edit_version":@PEV@,"title":"edited @N@"}'
	[close_pull_request]='{"repo":"@REPO@","number":7}'
	[reopen_pull_request]='{"repo":"@REPO@","number":7}'
	[create_run]='{"repo":"@REPO@","workflow":"ci","ref":"ci"}'
	[list_runs]='{"repo":"@REPO@"}'
	[get_run]='{"repo":"@REPO@","run":1}'
	[rerun_run]='{"repo":"@REPO@","run":1}'
	[get_run_logs]='{"repo":"@REPO@","run":1,"job":"build"}'
	[cancel_run]='{"repo":"@REPO@","run":2}'
)
# The scope each tool needs (doc/tools.md).
declare -A SCOPE=(
	[add_issue_comment]=write [compare_refs]=read [create_issue]=write
	[create_pull_request]=write [get_file_contents]=read [get_issue]=read
	[get_pull_request]=read [get_tree]=read [list_branches]=read [list_commits]=read
	[list_issues]=read [list_pull_requests]=read [list_repositories]=read
	[search_code]=read [web_search]=read [get_user]=read [edit_issue]=write
	[close_issue]=write [reopen_issue]=write [list_inbox]=read
	[mark_notification_read]=write [list_repository_variables]=read
	[set_repository_variable]=write [delete_repository_variable]=write
	[get_pull_request_checks]=read [approve_pull_request_checks]=execute
	[list_pull_request_discussions]=read [create_pull_request_discussion]=write
	[reply_pull_request_discussion]=write [resolve_pull_request_discussion]=write
	[reopen_pull_request_discussion]=write [merge_pull_request]=merge
	[get_pull_request_diff]=read [edit_pull_request]=write
	[close_pull_request]=write [reopen_pull_request]=write
	[create_run]=execute [list_runs]=read [get_run]=read
	[rerun_run]=execute
	[get_run_logs]=read [cancel_run]=execute
)
# What names a repository: "repo" (the repo argument), "listing" (the query
# of list_repositories), "none" (not about a repository).
declare -A TARGET=(
	[list_repositories]=listing [web_search]=none [get_user]=none [list_inbox]=none
	[mark_notification_read]=none
)
# Who may use a write tool on a repository they can read (doc/scopes-and-roles.md):
# "reader" (anyone who can read it), or the least role it needs: "writer",
# "manager" or "owner" (roles rank reader < writer < manager < owner); "self"
# for a tool that acts on the caller's own data, not on a repository.
# edit_issue, close_issue and reopen_issue also let an issue's author act on
# it; issue #1 is the owner's, so here they follow the writer rule, as
# edit_pull_request does on pull request #2.  So do
# resolve/reopen_pull_request_discussion: the discussion (@DISC@, on pull
# request #2) and the pull request are the owner's.  close_pull_request and
# reopen_pull_request act on pull request #7, the owner's, kept for them:
# both are idempotent, so every allowed call succeeds whatever the order.
# cancel_run acts on run 2, the writer's: its actor may cancel it, and so
# may a manager or more; it is idempotent too.
declare -A RULE=(
	[add_issue_comment]=reader [create_issue]=reader [create_pull_request]=writer
	[edit_issue]=writer [close_issue]=writer [reopen_issue]=writer
	[set_repository_variable]=manager [delete_repository_variable]=manager
	[mark_notification_read]=self [approve_pull_request_checks]=manager
	[create_pull_request_discussion]=reader [reply_pull_request_discussion]=reader
	[resolve_pull_request_discussion]=writer [reopen_pull_request_discussion]=writer
	[merge_pull_request]=manager [edit_pull_request]=writer
	[close_pull_request]=writer [reopen_pull_request]=writer
	[create_run]=writer [cancel_run]=writer [rerun_run]=writer
)
# The role ladder: role, repository, token variable.  frank has no role on
# the public repository; the others are collaborators on the private one.
LADDER="none:PUBLIC_:FRANK_TOKEN reader:VAULT_:ERIN_TOKEN writer:VAULT_:DAVE_TOKEN
	manager:VAULT_:GINA_TOKEN owner:VAULT_:ALICE_TOKEN"
rank () {
	case $1 in none) echo 0 ;; reader) echo 1 ;; writer) echo 2 ;; manager) echo 3 ;;
	owner) echo 4 ;; esac
}

# --- the forge: alice/vault is private, a copy of alice/project --------------

KEY=bsk-access-test-key-$$
FAKE_LOG=$TRASH/fake-brave.log
: >"$FAKE_LOG"
perl "$TEST_DIRECTORY/lib/fake-brave.pl" --token "$KEY" --log "$FAKE_LOG" \
	--port-file "$TRASH/fake.port" >"$TRASH/fake.out" 2>"$TRASH/fake.stderr" </dev/null &
test_register_pid $!
wait_for 10 test -s "$TRASH/fake.port" || { echo "Bail out! the fake provider did not start"; exit 1; }

start_db
config_set search_base_url "http://127.0.0.1:$(cat "$TRASH/fake.port")/res/v1/web/search"
config_set brave_api_key "$KEY"
start_server
start_nginx
mcp_client_start

VAULT=alice/vault
MISSING=alice/nothere
PUBLIC=alice/project

setup_access_fixtures () {
	setup_forge_fixtures &&
	fm repo import "$VAULT" --from "$TRASH/project.git" --private >/dev/null &&
	fm collaborator add "$VAULT" erin reader >/dev/null &&
	fm collaborator add "$VAULT" dave writer >/dev/null &&
	make_user gina &&
	fm collaborator add "$VAULT" gina manager >/dev/null &&
	GINA_TOKEN=$(make_token gina read,write) &&
	# for the tools that need execute or merge: the same callers with every scope
	for u in ALICE DAVE ERIN FRANK GINA; do
		printf -v "${u}_ALL" %s "$(make_token "${u,,}" read,write,execute,merge)" || return 1
	done &&
	READ_ONLY=$(make_token alice read) &&
	NO_SCOPES=$(head -c 30 /dev/urandom | base64 | tr "+/" "-_") &&
	test_record_token "$NO_SCOPES" &&
	db_sql "insert into tokens (token_hash, user_id, name, scopes) select '$(sha256_hex "$NO_SCOPES")', id, 'none', '' from users where login = 'alice'" &&
	# issue #1 and pull request #2 on both repositories
	for r in "$VAULT" "$PUBLIC"; do
		tool_call create_issue "{\"repo\":\"$r\",\"title\":\"first\"}" &&
		test_jq ".result.structuredContent.number == 1" &&
		tool_call create_pull_request "{\"repo\":\"$r\",\"title\":\"second\",\"head\":\"feature\",\"base\":\"main\"}" &&
		test_jq ".result.structuredContent.number == 2" &&
		# a general discussion on pull request #2, the owner's
		tool_call create_pull_request_discussion "{\"repo\":\"$r\",\"number\":2,\"body\":\"a thread\"}" &&
		DISC[$r]=$(jq -r '.result.structuredContent.id' "$RESP.body") &&
		test -n "${DISC[$r]}" || return 1
		# pull requests #3 to #6 for merge_pull_request (@PR@): each call that
		# succeeds queues one of them
		for i in 3 4 5 6; do
			git --git-dir="$TRASH/repos/$r.git" update-ref "refs/heads/mq$i" \
				"$(git --git-dir="$TRASH/repos/$r.git" rev-parse feature)" &&
			tool_call create_pull_request "{\"repo\":\"$r\",\"title\":\"merge $i\",\"head\":\"mq$i\",\"base\":\"main\"}" &&
			test_jq ".result.structuredContent.number == $i" || return 1
		done
		# pull request #7 for close_pull_request and reopen_pull_request
		git --git-dir="$TRASH/repos/$r.git" update-ref refs/heads/cr7 \
			"$(git --git-dir="$TRASH/repos/$r.git" rev-parse feature)" &&
		tool_call create_pull_request "{\"repo\":\"$r\",\"title\":\"close 7\",\"head\":\"cr7\",\"base\":\"main\"}" &&
		test_jq ".result.structuredContent.number == 7" || return 1
		# branch ci: main and a workflow that may be started by hand; run 1
		# of it for get_run, run 2 (the writer's) for cancel_run
		g=$TRASH/repos/$r.git &&
		blob=$(printf "name: CI\non:\n  manual: true\njobs:\n  build: { steps: [ { run: make } ] }\n" |
			git --git-dir="$g" hash-object -w --stdin) &&
		tree=$(printf "100644 blob %s\tci.yml\n" "$blob" | git --git-dir="$g" mktree) &&
		tree=$(printf "040000 tree %s\tworkflows\n" "$tree" | git --git-dir="$g" mktree) &&
		tree=$({ git --git-dir="$g" ls-tree main && printf "040000 tree %s\t.forgemcp\n" "$tree"; } |
			git --git-dir="$g" mktree) &&
		commit=$(git --git-dir="$g" commit-tree -p main -m "ci: a workflow" "$tree") &&
		git --git-dir="$g" update-ref refs/heads/ci "$commit" &&
		tool_call create_run "{\"repo\":\"$r\",\"workflow\":\"ci\",\"ref\":\"ci\"}" --token "$ALICE_ALL" &&
		test_jq ".result.structuredContent.run == 1" &&
		tool_call create_run "{\"repo\":\"$r\",\"workflow\":\"ci\",\"ref\":\"ci\"}" --token "$DAVE_ALL" &&
		test_jq ".result.structuredContent.run == 2" || return 1
	done
	# run 1 ended (no runner executes it here), so rerun_run may repeat it
	db_sql "update ci_runs set state = 'success', finished_at = utc_timestamp(3) where number = 1"
}
declare -A DISC=()
setup_access_fixtures >"$TRASH/setup.out" 2>&1 ||
	{ echo "Bail out! fixtures"; sed 's/^/# /' "$TRASH/setup.out"; exit 1; }

# Every table but the rate-limit counters (which count each request by
# design) and the tokens (last_used_at), as one checksum list.
STATE_SQL="CHECKSUM TABLE $(db_sql 'show tables' | grep -v -x -e rate_limits -e tokens | paste -sd, -)"

# state: what a refused call must leave unchanged: every table's checksum,
# the number of tokens, and the fake search provider's log.  Asked of one
# MariaDB client kept open (db_query), not of a client run each time.
state () {
	local lines=()
	db_query "$STATE_SQL; select count(*) from tokens" &&
	mapfile -t lines <"$FAKE_LOG" &&
	echo "${#lines[@]}"
}

BRANCH_N=0
# call TOOL REPO TOKEN: the tool with its arguments for REPO (@HEAD@ becomes
# a new branch in both fixture repositories); the answer is in $RESP.*.
call () {
	local a=${ARGS[$1]} g v
	if test "${a#*@HEAD@}" != "$a"; then
		BRANCH_N=$((BRANCH_N + 1))
		for g in "$TRASH/repos/$VAULT.git" "$TRASH/repos/$PUBLIC.git"; do
			git --git-dir="$g" update-ref "refs/heads/pr$BRANCH_N" \
				"$(git --git-dir="$g" rev-parse feature)" || return 1
		done
		a=${a//@HEAD@/pr$BRANCH_N}
	fi
	if test "${a#*@DISC@}" != "$a"; then
		# 1 for the missing repository
		a=${a//@DISC@/${DISC[$2]:-1}}
	fi
	if test "${a#*@SV@}" != "$a"; then
		tool_call list_pull_request_discussions "{\"repo\":\"$2\",\"number\":2,\"discussion\":${DISC[$2]:-1}}" --token "$ALICE_TOKEN" &&
		json_value v "$RESP.body" .result.structuredContent.discussion.state_version 1 &&
		a=${a//@SV@/$v} || return 1
	fi
	if test "${a#*@PR@}" != "$a"; then
		# the first pull request with no merge queued yet (2 for the missing repository)
		a=${a//@PR@/$(db_sql "select ifnull(min(p.number), 2) from pull_requests p
			join repositories r on r.id = p.repo_id join users u on u.id = r.owner_id
			where concat(u.login, '/', r.name) = '$2' and p.number between 3 and 6
			and p.merge_state = 'none'")} || return 1
	fi
	if test "${a#*@EV@}" != "$a"; then
		tool_call get_issue "{\"repo\":\"$2\",\"number\":1}" --token "$ALICE_TOKEN" &&
		# 1 for a repository the owner cannot read either (the missing one)
		json_value v "$RESP.body" .result.structuredContent.edit_version 1 &&
		a=${a//@EV@/$v} || return 1
	fi
	if test "${a#*@PEV@}" != "$a"; then
		tool_call get_pull_request "{\"repo\":\"$2\",\"number\":2}" --token "$ALICE_TOKEN" &&
		json_value v "$RESP.body" .result.structuredContent.edit_version 1 &&
		a=${a//@PEV@/$v} || return 1
	fi
	BRANCH_N=$((BRANCH_N + 1))
	a=${a//@N@/$BRANCH_N}
	a=${a//@REPO@/$2}
	a=${a//@NAME@/${2#*/}}
	tool_call "$1" "$a" --token "$3"
}

# succeeds: the last answer is a tool result that is not an error.
succeeds () {
	test_status 200 &&
	test_tool_success
}

# normalized REPO: the last answer as status and sorted JSON (body_sorted),
# with REPO (and its bare name) replaced by a placeholder.
normalized () {
	local status line body h=() i j t
	read -r status <"$RESP.status" || :
	printf '%s\n' "$status" &&
	while IFS= read -r line || test -n "$line"; do
		case ${line,,} in
		content-type:*|www-authenticate:*) h+=("$line") ;;
		esac
	done <"$RESP.headers" &&
	# sorted (byte order, as LC_ALL=C sort does)
	for ((i = 0; i < ${#h[@]}; i++)); do
		for ((j = i + 1; j < ${#h[@]}; j++)); do
			if [[ ${h[j]} < ${h[i]} ]]; then t=${h[i]} h[i]=${h[j]} h[j]=$t; fi
		done
	done &&
	if test ${#h[@]} -gt 0; then printf '%s\n' "${h[@]}"; fi &&
	body_sorted "$TRASH/sorted.json" &&
	{ IFS= read -r -d "" body <"$TRASH/sorted.json" || :; } &&
	while [[ $body == *$'\n' ]]; do body=${body%$'\n'}; done &&
	body=${body//"$1"/OWNER/REPO} &&
	printf '%s\n' "${body//"${1#*/}"/REPO}"
}

# --- the table against the registry ------------------------------------------

mcp_modern tools/list && test "$(cat "$RESP.status")" = 200 &&
	jq -c '.result.tools' "$RESP.body" >tools.json ||
	{ echo "Bail out! tools/list failed"; exit 1; }
TOOLS=$(jq -r '.[].name' tools.json)
# per tool, as jq -r prints them for each tool of that name (one a line):
# annotations.readOnlyHint, and whether "repo" is a required argument
declare -A RO=() HAS=()
while IFS='	' read -r t ro has; do
	RO[$t]=${RO[$t]+${RO[$t]}$'\n'}$ro
	HAS[$t]=${HAS[$t]+${HAS[$t]}$'\n'}$has
done < <(jq -r '.[] | [.name, (.annotations.readOnlyHint | tostring),
	(.inputSchema.required // [] | index("repo") != null | tostring)] | @tsv' tools.json)

test_expect_success 'tools/list serves tools, and every one has a row in the table' '
	test -n "$TOOLS" &&
	missing= &&
	for t in $TOOLS; do
		test -n "${ARGS[$t]:-}" && test -n "${SCOPE[$t]:-}" || missing="$missing $t"
	done &&
	if test -n "$missing"; then
		echo "tools without a row in the table of t3300-access.t:$missing"
		return 1
	fi
'

test_expect_success 'the table names no tool tools/list lacks' '
	stale= &&
	for t in "${!ARGS[@]}" "${!SCOPE[@]}" "${!TARGET[@]}" "${!RULE[@]}"; do
		printf "%s\n" $TOOLS | grep -qx "$t" || stale="$stale $t"
	done &&
	test -z "$stale" || { echo "rows for tools the server does not serve:$stale"; return 1; }
'

test_expect_success 'the table agrees with the registry: read tools are readOnlyHint, write tools are not and have a rule' '
	for t in $TOOLS; do
		ro=${RO[$t]-} &&
		case ${SCOPE[$t]}:$ro in
		read:true) ;;
		write:false|execute:false|merge:false)
			test -n "${RULE[$t]:-}" || { echo "$t: no write rule"; return 1; } ;;
		*) echo "$t: scope ${SCOPE[$t]} but readOnlyHint $ro"; return 1 ;;
		esac
	done
'

test_expect_success 'the table agrees with the registry: a repo argument exactly where the table says' '
	for t in $TOOLS; do
		has=${HAS[$t]-} &&
		case ${TARGET[$t]:-repo}:$has in
		repo:true|listing:false|none:false) ;;
		*) echo "$t: target ${TARGET[$t]:-repo} but repo required: $has"; return 1 ;;
		esac
	done
'

test_expect_success 'doc/tools.md gives every tool the scope the table gives it' '
	sed -n "s/^| \`\([a-z_]*\)\` | \(read\|write\|execute\|merge\) |.*/\1 \2/p" "$SRC_DIR/doc/tools.md" >doc-scopes &&
	for t in $TOOLS; do
		grep -qx "$t ${SCOPE[$t]}" doc-scopes || { echo "doc/tools.md: $t is not listed with scope ${SCOPE[$t]}"; return 1; }
	done
'

# --- every tool -----------------------------------------------------------------

for t in $TOOLS; do
	scope=${SCOPE[$t]:-read}
	target=${TARGET[$t]:-repo}
	if test "$scope" = read; then lacking=$WRITE_ONLY_TOKEN; else lacking=$READ_ONLY; fi
	# An execute or merge tool is called with the *_ALL tokens (every
	# scope); the owner's read,write token is the one lacking its scope.
	tok=TOKEN
	case $scope in execute|merge) tok=ALL lacking=$ALICE_TOKEN ;; esac

	test_expect_success "$t: the owner's call with the table's arguments succeeds" "
		call $t $VAULT \"\$ALICE_$tok\" &&
		succeeds &&
		if test $target = listing; then
			test_text_jq 'map(.full_name) | index(\"$VAULT\") != null'
		fi
	"

	test_expect_success "$t: a token without '$scope' is refused at the gate and nothing changes" "
		state >before &&
		call $t $VAULT \"\$lacking\" &&
		test_status 403 &&
		test_header WWW-Authenticate '^Bearer realm=\"forgemcp\", error=\"insufficient_scope\", scope=\"$scope\"' &&
		test_jq '.error.code == -32001 and (.error.message | contains(\"$t\") and contains(\"$scope\"))' &&
		state >after &&
		test_cmp before after
	"

	test_expect_success "$t: a token with no scope at all is refused at the gate" "
		state >before &&
		call $t $VAULT \"\$NO_SCOPES\" &&
		test_status 403 &&
		test_header WWW-Authenticate 'scope=\"$scope\"' &&
		state >after &&
		test_cmp before after
	"

	if test "$target" != none; then
		test_expect_success "$t: to a stranger, private $VAULT answers exactly like missing $MISSING" "
			state >before &&
			call $t $VAULT \"\$FRANK_$tok\" &&
			normalized $VAULT >private &&
			call $t $MISSING \"\$FRANK_$tok\" &&
			normalized $MISSING >missing &&
			test_cmp missing private &&
			if test $target = listing; then
				test_json .result.isError null &&
				test_text_jq 'length == 0'
			else
				test_json .result.isError true
			fi &&
			test_must_fail grep -i vault private &&
			state >after &&
			test_cmp before after
		"
	fi

	case ${RULE[$t]:-} in
	reader)
		test_expect_success "$t: a reader collaborator may, as the rules say" "
			state >before &&
			call $t $VAULT \"\$ERIN_TOKEN\" &&
			succeeds &&
			state >after &&
			test_must_fail test_cmp before after >/dev/null
		"
		test_expect_success "$t: anyone who can read a public repository may" "
			call $t $PUBLIC \"\$FRANK_TOKEN\" &&
			succeeds
		"
		;;
	writer|manager|owner)
		need=${RULE[$t]}
		for step in $LADDER; do
			role=${step%%:*} where=${step#*:} tokvar=${step##*:}
			tokvar=${tokvar%_TOKEN}_$tok
			where=${where%%:*}
			if test "$where" = PUBLIC_; then where=$PUBLIC; else where=$VAULT; fi
			if test "$(rank "$role")" -lt "$(rank "$need")"; then
				test_expect_success "$t: role $role on $where may not (needs $need), and nothing changes" "
					state >before &&
					call $t $where \"\$$tokvar\" &&
					forge_error 'needs the $need role or more, and your role is $role' &&
					state >after &&
					test_cmp before after
				"
			else
				test_expect_success "$t: role $role on $where may (needs $need)" "
					call $t $where \"\$$tokvar\" &&
					succeeds
				"
			fi
		done
		;;
	self)
		test_expect_success "$t: any caller may, on their own data" "
			call $t $VAULT \"\$FRANK_TOKEN\" &&
			succeeds
		"
		;;
	esac
done

test_expect_success 'a stranger'\''s repository list never shows the private repository' '
	tool_call list_repositories "{}" --token "$FRANK_TOKEN" &&
	succeeds &&
	test_text_jq "map(.full_name) | index(\"$PUBLIC\") != null and index(\"$VAULT\") == null"
'

test_done
