#!/bin/bash
# t5900: merge_pull_request queues a merge and `forgemcp worker` does it with
# libgit2 on the bare repository: each strategy, conflicts, refusals, a
# target or a head that moves, issues closed by a merge, two merges into one
# branch, a worker that dies or stops half-way (FORGEMCP_WORKER_FAULT and
# FORGEMCP_WORKER_PAUSE, in --enable-debug builds only), the pull request's
# activity (merged, merge_failed with its reason), and the merge_note of a
# merge queued while no worker runs.
. ./test-lib.sh
. "$TEST_DIRECTORY/lib/fixtures-forge.sh"

start_all
mcp_client_start
setup_forge_fixtures || { echo "Bail out! fixtures"; exit 1; }
# mona manages alice/project; dave (a writer) opens the pull requests.
make_user mona &&
fm collaborator add alice/project mona manager >/dev/null &&
MONA_M=$(make_token mona read,write,merge) &&
DAVE_M=$(make_token dave read,write,merge) || { echo "Bail out! fixtures"; exit 1; }

P=alice/project
G="git --git-dir=$PROJECT_GIT"
WLOG=$TRASH/worker.stderr

# commit_file BRANCH PATH TEXT MESSAGE: a commit on BRANCH of the served
# repository that sets PATH to TEXT (printf format); prints nothing.
commit_file () {
	local idx=$TRASH/merge-index blob tree c
	rm -f "$idx" &&
	test_tick &&
	GIT_INDEX_FILE=$idx $G read-tree "$1" &&
	blob=$(printf "$3" | $G hash-object -w --stdin) &&
	GIT_INDEX_FILE=$idx $G update-index --add --cacheinfo "100644,$blob,$2" &&
	tree=$(GIT_INDEX_FILE=$idx $G write-tree) &&
	c=$($G commit-tree -p "$1" -m "$4" "$tree") &&
	$G update-ref "refs/heads/$1" "$c" &&
	rm -f "$idx"
}

# branch NAME [FROM]: a new branch at FROM (default main)
branch () {
	$G update-ref "refs/heads/$1" "$($G rev-parse "${2:-main}")"
}

# open_pr HEAD TITLE [BODY]: dave opens HEAD -> main; PR holds the number
open_pr () {
	local t b=
	json_str t "$2"
	test -z "${3:-}" || { json_str b "$3"; b=",\"body\":$b"; }
	tool_call create_pull_request "{\"repo\":\"$P\",\"head\":\"$1\",\"base\":\"main\",\"title\":$t$b}" \
		--token "$DAVE_TOKEN" &&
	forge_ok && json_int PR out.json number
}

# pr N: get_pull_request #N into out.json
pr () {
	tool_call get_pull_request "{\"repo\":\"$P\",\"number\":$1}" --token "$MONA_M" && forge_ok
}

# merge N VERSION [STRATEGY] [EDIT_VERSION] [TOKEN]: merge_pull_request
# (the arguments written without jq when N, VERSION and EDIT_VERSION are
# integers and STRATEGY a plain word)
merge () {
	local a int='^-?[0-9]{1,15}$'
	if [[ $1 =~ $int && $2 =~ $int && ${3:-} =~ ^[a-z_]*$ ]] &&
	   { test -z "${4:-}" || [[ $4 =~ ^[0-9]{1,15}$ ]]; }; then
		a="{\"repo\":\"$P\",\"number\":$1,\"version\":$2"
		test -z "${3:-}" || a="$a,\"strategy\":\"$3\""
		test -z "${4:-}" || a="$a,\"edit_version\":$((10#$4))"
		a="$a}"
	else
		a=$(jq -nc --arg r "$P" --argjson n "$1" --argjson v "$2" \
			--arg s "${3:-}" --arg ev "${4:-}" \
			'{repo: $r, number: $n, version: $v} + (if $s == "" then {} else {strategy: $s} end)
			 + (if $ev == "" then {} else {edit_version: ($ev | tonumber)} end)') || return 1
	fi
	tool_call merge_pull_request "$a" --token "${5:-$MONA_M}"
}

# work: one `forgemcp worker --once`
work () {
	fm worker --once 2>>"$WLOG"
}

# state_is N "STATE MERGE_STATE": state and merge_state of #N as
# get_pull_request shows them (and leaves in out.json)
state_is () {
	local s= m= v
	pr "$1" && json_value s out.json .state && json_value m out.json .merge_state &&
	v="$s $m" &&
	test "$v" = "$2" || { echo "#$1: state merge_state '$v', expected '$2'"; return 1; }
}

# noted N: get_pull_request #N into out.json shows a merge_note
noted () {
	pr "$1" >/dev/null 2>&1 && jq -e ".merge_note != null" out.json >/dev/null
}

merges_sum () {
	db_sql "select count(*), group_concat(state order by id) from merges"
}

test_expect_success 'tools/list: merge_pull_request needs the merge scope and says it queues' '
	mcp_modern tools/list && test_status 200 &&
	test_jq ".result.tools[] | select(.name == \"merge_pull_request\") | .annotations.readOnlyHint == false and .annotations.destructiveHint == false" &&
	test_jq ".result.tools[] | select(.name == \"merge_pull_request\") | .description | test(\"merge scope\") and test(\"manager role\") and test(\"[Qq]ueue\")"
'

test_expect_success 'strategy merge: a merge commit (target, head) with the merged tree' '
	open_pr feature "Greet the world" && test "$PR" = 1 &&
	pr 1 && jq -e ".version == 1 and .merge_state == \"none\" and .merge_commit == null and .merge_error == null" out.json &&
	before=$($G rev-parse main) &&
	merge 1 1 && forge_ok &&
	jq -e ".queued == true and .version == 1 and .strategy == \"merge\" and .closing_issue_numbers == [] and (.merge_id | type == \"number\") and (.note | test(\"merge_state\"))" out.json &&
	state_is 1 "open queued" &&
	jq -e ".merge_note | test(\"^the merge is queued, but no merge worker has ever run: it waits until an operator starts .forgemcp worker.$\")" out.json &&
	test "$($G rev-parse main)" = "$before" &&
	work &&
	state_is 1 "merged merged" &&
	mc=$($G rev-parse main) &&
	jq -e ".merge_commit == \"$mc\" and .merge_error == null and .merge_note == null and (.merged_at | type == \"string\")" out.json &&
	test "$($G rev-parse "$mc^1")" = "$before" &&
	test "$($G rev-parse "$mc^2")" = "$PROJECT_FEATURE" &&
	test_must_fail $G rev-parse -q --verify "$mc^3" &&
	$G cat-file commit "$mc" >commit &&
	grep "^author User mona <mona@127.0.0.1> " commit &&
	grep "^committer User mona <mona@127.0.0.1> " commit &&
	sed "1,/^\$/d" commit >msg &&
	printf "Merge pull request #1 from feature\n\nGreet the world\n" >expect &&
	test_cmp expect msg &&
	$G show "$mc:src/app.c" | grep "hello, world" &&
	$G show "$mc:src/new.c" | grep helper &&
	$G show "$mc:README.md" | grep "Main moved on" &&
	test "$(db_sql "select state, attempts, base_commit = \"$before\", result_commit = \"$mc\" from merges")" = "merged	1	1	1"
'

test_expect_success 'the author is notified; the pull request shows a merged event in its activity' '
	tool_call list_inbox "{}" --token "$DAVE_TOKEN" && forge_ok &&
	jq -e "[.notifications[] | select(.reason == \"merged\" and .subject.number == 1)] | length == 1" out.json &&
	test "$(db_sql "select count(*) from events e join pull_requests p on p.id = e.pull_request_id where e.kind = \"merged\" and p.number = 1")" = 1 &&
	pr 1 &&
	test "$(jq -r "[.activity.entries[] | \"\\(.type):\\(.actor)\"] | join(\" \")" out.json)" = "opened:dave merged:mona" &&
	jq -e ".activity.page == 1 and .activity.has_more == false and (.activity.entries[1] | .cause == \"user\" and (.created_at | type == \"string\"))" out.json
'

test_expect_success 'a merged pull request cannot be queued again' '
	merge 1 1 &&
	forge_error "pull request #1 of alice/project is merged: only an open pull request can be merged" &&
	test "$(merges_sum)" = "1	merged"
'

test_expect_success 'a queued merge says when no worker runs, and not while one does' '
	branch nw && commit_file nw nw.txt "nw\n" "nw: one" &&
	open_pr nw "No worker" && n=$PR &&
	merge $n 1 && forge_ok &&
	pr $n &&
	jq -e ".merge_state == \"queued\" and (.merge_note | test(\"^the merge is queued, but no merge worker is running \\\\(one was last seen [0-9]+ s ago\\\\): it waits until an operator starts .forgemcp worker.$\"))" out.json &&
	# a worker seen just now, still polling
	db_sql "update merge_workers set running = 1, seen_at = utc_timestamp(3)" &&
	pr $n && jq -e ".merge_state == \"queued\" and .merge_note == null" out.json &&
	# ... that stopped polling 100 seconds ago without a word (a crash, a hang)
	db_sql "update merge_workers set seen_at = utc_timestamp(3) - interval 100 second" &&
	pr $n && jq -e ".merge_note | test(\"no merge worker is running \\\\(one was last seen 1[0-9][0-9] s ago\\\\)\")" out.json &&
	work &&
	state_is $n "merged merged" &&
	jq -e ".merge_note == null" out.json
'

test_expect_success 'strategy squash: one commit on the target, title and body as message' '
	branch sq && commit_file sq sq.txt "squashed\n" "sq: one" && commit_file sq sq2.txt "two\n" "sq: two" &&
	open_pr sq "Add the sq files" "Two files.

With a body." &&
	before=$($G rev-parse main) && head=$($G rev-parse sq) &&
	merge $PR 1 squash && forge_ok && jq -e ".strategy == \"squash\"" out.json &&
	work &&
	state_is $PR "merged merged" &&
	mc=$($G rev-parse main) && jq -e ".merge_commit == \"$mc\"" out.json &&
	test "$($G rev-parse "$mc^1")" = "$before" &&
	test_must_fail $G rev-parse -q --verify "$mc^2" &&
	test "$($G rev-parse "$mc^{tree}")" = "$($G rev-parse "$head^{tree}")" &&
	! $G merge-base --is-ancestor "$head" "$mc" &&
	$G cat-file commit "$mc" | sed "1,/^\$/d" >msg &&
	printf "Add the sq files\n\nTwo files.\n\nWith a body.\n" >expect &&
	test_cmp expect msg
'

test_expect_success 'strategy fast_forward: the target moves to the head' '
	branch ff && commit_file ff ff.txt "ff\n" "ff: one" &&
	open_pr ff "Fast" && head=$($G rev-parse ff) &&
	merge $PR 1 fast_forward && forge_ok &&
	work &&
	state_is $PR "merged merged" &&
	test "$($G rev-parse main)" = "$head" &&
	jq -e ".merge_commit == \"$head\"" out.json
'

test_expect_success 'fast_forward impossible: fails, says so, leaves the ref and the pull request' '
	branch ff2 main~1 && commit_file ff2 ff2.txt "ff2\n" "ff2: one" &&
	open_pr ff2 "Not fast" && n=$PR && before=$($G rev-parse main) &&
	merge $n 1 fast_forward && forge_ok &&
	work &&
	state_is $n "open failed" &&
	jq -e ".merge_commit == null and (.merge_error | test(\"cannot fast-forward .main. to .ff2.\"))" out.json &&
	test "$($G rev-parse main)" = "$before" &&
	merge $n 1 && forge_ok && work &&
	state_is $n "merged merged" &&
	jq -e ".merge_error == null" out.json &&
	test "$($G rev-parse main^2)" = "$($G rev-parse ff2)"
'

test_expect_success 'a conflict fails naming the path; ref and pull request unchanged' '
	branch conf && commit_file conf README.md "# project\n\nconflict A\n" "conf: readme" &&
	open_pr conf "Conflicting" && n=$PR &&
	commit_file main README.md "# project\n\nconflict B\n" "main: readme again" &&
	before=$($G rev-parse main) &&
	merge $n 1 && forge_ok && work &&
	state_is $n "open failed" &&
	jq -e ".merge_error | test(\"conflicts in 1 file: README.md\")" out.json &&
	jq -e ".merge_commit == null and .merged_at == null" out.json &&
	test "$($G rev-parse main)" = "$before" &&
	test "$(db_sql "select state, result_commit is null from merges order by id desc limit 1")" = "failed	1"
'

test_expect_success 'refusals: scope, role, stale version, draft; nothing is queued' '
	branch ref1 && commit_file ref1 r1.txt "r1\n" "ref1: one" &&
	open_pr ref1 "Refusals" && n=$PR && sum=$(merges_sum) &&
	merge $n 1 "" "" "$ALICE_TOKEN" &&
	test_status 403 &&
	test_header WWW-Authenticate "error=\"insufficient_scope\", scope=\"merge\"" &&
	merge $n 1 "" "" "$DAVE_M" &&
	forge_error "^you cannot merge pull request #$n on alice/project: that needs the manager role or more, and your role is writer" &&
	merge $n 2 &&
	forge_error "is at version 1, not the version 2 you passed.*reload.*retry" &&
	commit_file ref1 r1.txt "r1 again\n" "ref1: pushed" &&
	merge $n 1 &&
	forge_error "is at version 2, not the version 1 you passed.*reload it with get_pull_request.*retry with version 2" &&
	merge 999 1 && forge_error "pull request #999 not found in alice/project" &&
	tool_call merge_pull_request "{\"repo\":\"$P\",\"number\":$n,\"version\":2,\"strategy\":\"rebase\"}" --token "$MONA_M" &&
	test_json .result.isError true &&
	tool_call merge_pull_request "{\"repo\":\"bob/hidden\",\"number\":1,\"version\":1}" --token "$MONA_M" &&
	forge_error "^Repository not found or not accessible$" &&
	test "$(merges_sum)" = "$sum" &&
	state_is $n "open none"
'

test_expect_success 'a draft cannot be merged' '
	branch dr && commit_file dr dr.txt "dr\n" "dr: one" &&
	tool_call create_pull_request "{\"repo\":\"$P\",\"head\":\"dr\",\"base\":\"main\",\"title\":\"Draft\",\"draft\":true}" --token "$DAVE_TOKEN" &&
	forge_ok && json_int n out.json number && sum=$(merges_sum) &&
	merge $n 1 && forge_error "is a draft" &&
	test "$(merges_sum)" = "$sum"
'

test_expect_success 'a failing required check is refused at queue time, naming it' '
	branch chk && commit_file chk chk.txt "chk\n" "chk: one" &&
	open_pr chk "Checked" && n=$PR && sum=$(merges_sum) &&
	fm branch-rule set $P main --require-check build --require-check test >/dev/null &&
	test_when_finished "fm branch-rule set $P main >/dev/null" &&
	merge $n 1 && forge_error "build is expected, test is expected" &&
	fm check report $P chk build success >/dev/null &&
	fm check report $P chk test failure >/dev/null &&
	merge $n 1 && forge_error "required checks of branch .main.*test is failure" &&
	! grep "build is" errtext &&
	test "$(merges_sum)" = "$sum" &&
	fm check report $P chk test success >/dev/null &&
	merge $n 1 && forge_ok && work &&
	state_is $n "merged merged"
'

test_expect_success 'closures: edit_version required and checked; the merge closes open issues only' '
	for t in one two three closed; do
		tool_call create_issue "{\"repo\":\"$P\",\"title\":\"issue $t\"}" --token "$DAVE_TOKEN" && forge_ok || return 1
	done &&
	json_int i1 out.json number && i1=$((i1 - 3)) && i2=$((i1 + 1)) && i3=$((i1 + 2)) && i4=$((i1 + 3)) &&
	tool_call close_issue "{\"repo\":\"$P\",\"number\":$i4}" --token "$DAVE_TOKEN" && forge_ok &&
	branch clo && commit_file clo clo.txt "clo\n" "clo: one" &&
	open_pr clo "Fix things, closes #$i3" "Closes #$i1 and fixes #$i2, resolves #$i4 and #9999." &&
	n=$PR &&
	tool_call add_issue_comment "{\"repo\":\"$P\",\"number\":$n,\"body\":\"this also closes #$i3\"}" --token "$DAVE_TOKEN" && forge_ok &&
	pr $n && json_value ev out.json .edit_version &&
	jq -e ".closing_issue_numbers == [$i1, $i2, $i4, 9999]" out.json &&
	sum=$(merges_sum) &&
	merge $n 1 &&
	forge_error "declares that merging closes #$i1, #$i2, #$i4, #9999: pass the edit_version" &&
	merge $n 1 "" $((ev + 1)) &&
	forge_error "has changed since you read it.*reload it with get_pull_request and retry" &&
	test "$(merges_sum)" = "$sum" &&
	merge $n 1 "" "$ev" && forge_ok &&
	jq -e ".closing_issue_numbers == [$i1, $i2, $i4, 9999]" out.json &&
	for i in $i1 $i2 $i3; do
		tool_call get_issue "{\"repo\":\"$P\",\"number\":$i}" && forge_ok &&
		jq -e ".state == \"open\"" out.json || return 1
	done &&
	work &&
	state_is $n "merged merged" &&
	for i in $i1 $i2; do
		tool_call get_issue "{\"repo\":\"$P\",\"number\":$i}" && forge_ok &&
		jq -e ".state == \"closed\"" out.json &&
		jq -e "[.activity.entries[] | select(.type == \"closed\")] | length == 1" out.json &&
		jq -e ".activity.entries[] | select(.type == \"closed\") | .cause == \"merge\" and .source_number == $n and .actor == \"mona\"" out.json || return 1
	done &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$i3}" && forge_ok &&
	jq -e ".state == \"open\" and ([.activity.entries[] | select(.type == \"closed\")] | length == 0)" out.json &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$i4}" && forge_ok &&
	jq -e "[.activity.entries[] | select(.type == \"closed\")] | length == 1 and .[0].cause == \"user\"" out.json
'

test_expect_success 'a failed merge leaves the declared issues open' '
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"stays open\"}" --token "$DAVE_TOKEN" && forge_ok &&
	json_int i out.json number &&
	branch cf2 conf && commit_file cf2 cf2.txt "cf2\n" "cf2: on the conflicting readme" &&
	open_pr cf2 "Conflict again" "Closes #$i" && n=$PR &&
	pr $n && json_value ev out.json .edit_version &&
	merge $n 1 "" "$ev" && forge_ok && work &&
	state_is $n "open failed" &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$i}" && forge_ok &&
	jq -e ".state == \"open\"" out.json
'

test_expect_success 'the target moved between queue and merge: rebuilt on the new target' '
	branch mv && commit_file mv mv.txt "mv\n" "mv: one" &&
	open_pr mv "Moving target" && n=$PR &&
	merge $n 1 && forge_ok &&
	commit_file main moved.txt "moved\n" "main: moved meanwhile" &&
	moved=$($G rev-parse main) &&
	work &&
	state_is $n "merged merged" &&
	mc=$($G rev-parse main) && jq -e ".merge_commit == \"$mc\"" out.json &&
	test "$($G rev-parse "$mc^1")" = "$moved" &&
	test "$($G rev-parse "$mc^2")" = "$($G rev-parse mv)" &&
	$G show "$mc:moved.txt" | grep moved &&
	test "$(db_sql "select base_commit from merges order by id desc limit 1")" = "$moved"
'

test_expect_success DEBUG_HOOKS 'the target moved during the merge (after the result was built): built again on it' '
	branch dm && commit_file dm dm.txt "dm\n" "dm: one" &&
	open_pr dm "Moving during the merge" && n=$PR &&
	merge $n 1 && forge_ok &&
	pause=$TRASH/merge-pause && rm -f "$pause" &&
	{ FORGEMCP_WORKER_PAUSE=after-result FORGEMCP_WORKER_PAUSE_FILE=$pause \
		"$FORGEMCP" worker --once 2>>"$WLOG" & p=$!; } &&
	wait_for 60 test -e "$pause" &&
	first=$(db_sql "select result_commit from merges order by id desc limit 1") &&
	test -n "$first" &&
	commit_file main during.txt "during\n" "main: moved during the merge" &&
	moved=$($G rev-parse main) &&
	rm -f "$pause" &&
	wait $p &&
	state_is $n "merged merged" &&
	mc=$($G rev-parse main) && jq -e ".merge_commit == \"$mc\"" out.json &&
	test "$mc" != "$first" &&
	test "$($G rev-parse "$mc^1")" = "$moved" &&
	test "$($G rev-parse "$mc^2")" = "$($G rev-parse dm)" &&
	$G show "$mc:during.txt" | grep during &&
	grep -q "moved while merging, building again" "$WLOG"
'

test_expect_success DEBUG_HOOKS 'a merge queued behind one under way has no note: a worker runs' '
	branch bw1 && commit_file bw1 bw1.txt "bw1\n" "bw1: one" &&
	branch bw2 && commit_file bw2 bw2.txt "bw2\n" "bw2: one" &&
	open_pr bw1 "Under way" && n1=$PR && open_pr bw2 "Behind it" && n2=$PR &&
	merge $n1 1 && forge_ok &&
	pause=$TRASH/merge-pause && rm -f "$pause" &&
	{ FORGEMCP_WORKER_PAUSE=after-result FORGEMCP_WORKER_PAUSE_FILE=$pause \
		"$FORGEMCP" worker --once 2>>"$WLOG" & p=$!; } &&
	wait_for 60 test -e "$pause" &&
	merge $n2 1 && forge_ok &&
	pr $n2 && jq -e ".merge_state == \"queued\" and .merge_note == null" out.json &&
	rm -f "$pause" &&
	wait $p &&
	state_is $n1 "merged merged" &&
	state_is $n2 "merged merged" &&
	jq -e ".merge_note == null" out.json
'

test_expect_success 'the head moved between queue and merge: fails, asks to reload' '
	branch hm && commit_file hm hm.txt "hm\n" "hm: one" &&
	open_pr hm "Head moves" && n=$PR &&
	merge $n 1 && forge_ok &&
	commit_file hm hm.txt "hm two\n" "hm: two" &&
	before=$($G rev-parse main) &&
	work &&
	state_is $n "open failed" &&
	jq -e ".merge_error == \"the head branch moved since version 1: reload and merge again\"" out.json &&
	test "$($G rev-parse main)" = "$before"
'

# A merge re-checks at merge time what it checked when it was queued.
test_expect_success 'a role taken away after queueing: the merge fails with the reason, no ref moves' '
	make_user rhea && fm collaborator add $P rhea manager >/dev/null &&
	RHEA_M=$(make_token rhea read,write,merge) &&
	branch rt && commit_file rt rt.txt "rt\n" "rt: one" &&
	open_pr rt "Role taken away" && n=$PR &&
	merge $n 1 "" "" "$RHEA_M" && forge_ok &&
	fm collaborator add $P rhea writer >/dev/null &&
	before=$($G rev-parse main) &&
	work &&
	state_is $n "open failed" &&
	jq -e ".merge_error | test(\"^rhea, who queued the merge, no longer has the manager role on alice/project \\\\(their role is writer\\\\)\")" out.json &&
	jq -e ".merge_note == null and (.activity.entries[-1] | .type == \"merge_failed\" and .actor == \"rhea\" and has(\"cause\") == false)" out.json &&
	jq -e ".activity.entries[-1].reason == .merge_error" out.json &&
	test "$($G rev-parse main)" = "$before" &&
	test "$(db_sql "select e.kind, u.login, e.detail like \"rhea, who queued the merge, no longer has the manager role%\" from events e join pull_requests p on p.id = e.pull_request_id join users u on u.id = e.actor_id where p.number = $n order by e.id desc limit 1")" = "merge_failed	rhea	1"
'

test_expect_success 'a merge token revoked after queueing: the merge fails with the reason, no ref moves' '
	make_user rory && fm collaborator add $P rory manager >/dev/null &&
	RORY_M=$(make_token rory read,write,merge) &&
	branch rv && commit_file rv rv.txt "rv\n" "rv: one" &&
	open_pr rv "Token revoked" && n=$PR &&
	merge $n 1 "" "" "$RORY_M" && forge_ok &&
	fm token revoke "$(db_sql "select t.id from tokens t join users u on u.id = t.user_id where u.login = \"rory\"")" >/dev/null &&
	before=$($G rev-parse main) &&
	work &&
	state_is $n "open failed" &&
	jq -e ".merge_error | test(\"^rory, who queued the merge, no longer has a valid token with the merge scope\")" out.json &&
	test "$($G rev-parse main)" = "$before"
'

test_expect_success 'a required check turned to failure after queueing: the merge fails naming it, no ref moves' '
	fm branch-rule set $P main --require-check build >/dev/null &&
	test_when_finished "fm branch-rule set $P main >/dev/null" &&
	branch cf && commit_file cf cf.txt "cf\n" "cf: one" &&
	open_pr cf "Check turns red" && n=$PR &&
	fm check report $P cf build success >/dev/null &&
	merge $n 1 && forge_ok &&
	fm check report $P cf build failure --details "flaky no more" >/dev/null &&
	before=$($G rev-parse main) &&
	work &&
	state_is $n "open failed" &&
	jq -e ".merge_error | test(\"^nothing was merged: the required checks of branch .main. have not all passed on revision 1 of pull request #$n of alice/project \\\\(commit [0-9a-f]{12}\\\\): build is failure\")" out.json &&
	test "$($G rev-parse main)" = "$before" &&
	test "$(db_sql "select e.kind from events e join pull_requests p on p.id = e.pull_request_id where p.number = $n order by e.id desc limit 1")" = merge_failed &&
	jq -e ".activity.entries[-1] | .type == \"merge_failed\" and .actor == \"mona\" and (.reason | test(\"^nothing was merged: the required checks of branch .main. .*: build is failure\"))" out.json &&
	fm check report $P cf build success >/dev/null &&
	merge $n 1 && forge_ok && work &&
	state_is $n "merged merged" &&
	test "$(jq -r "[.activity.entries[].type] | join(\" \")" out.json)" = "opened merge_failed merged"
'

test_expect_success 'two merges queued at once into one branch, two workers: both merged, in order' '
	branch tw1 && commit_file tw1 tw1.txt "tw1\n" "tw1: one" &&
	branch tw2 && commit_file tw2 tw2.txt "tw2\n" "tw2: one" &&
	open_pr tw1 "Two one" && n1=$PR && open_pr tw2 "Two two" && n2=$PR &&
	before=$($G rev-parse main) &&
	merge $n1 1 && forge_ok && merge $n2 1 && forge_ok &&
	{ fm worker --once 2>>"$WLOG" & p1=$!; fm worker --once 2>>"$WLOG" & p2=$!; wait $p1 && wait $p2; } &&
	state_is $n1 "merged merged" && json_value c1 out.json .merge_commit &&
	state_is $n2 "merged merged" && json_value c2 out.json .merge_commit &&
	test "$($G rev-parse main)" = "$c2" &&
	test "$($G rev-parse "$c2^1")" = "$c1" &&
	test "$($G rev-parse "$c1^1")" = "$before" &&
	test "$($G rev-list --first-parent "$before..main" | wc -l)" = 2
'

test_expect_success DEBUG_HOOKS 'worker dies after recording the result: ref not moved, then merged once' '
	branch k1 && commit_file k1 k1.txt "k1\n" "k1: one" &&
	open_pr k1 "Killed after result" && n=$PR &&
	before=$($G rev-parse main) &&
	merge $n 1 && forge_ok &&
	test_must_fail env FORGEMCP_WORKER_FAULT=after-result "$FORGEMCP" worker --once 2>>"$WLOG" &&
	test "$($G rev-parse main)" = "$before" &&
	state_is $n "open running" &&
	jq -e ".merge_commit == null" out.json &&
	test "$(db_sql "select state, result_commit is not null from merges order by id desc limit 1")" = "running	1" &&
	work &&
	state_is $n "merged merged" &&
	mc=$($G rev-parse main) && jq -e ".merge_commit == \"$mc\"" out.json &&
	test "$($G rev-parse "$mc^1")" = "$before" &&
	test "$(db_sql "select state, attempts, result_commit = \"$mc\" from merges order by id desc limit 1")" = "merged	2	1" &&
	test "$(db_sql "select count(*) from events e join pull_requests p on p.id = e.pull_request_id where e.kind = \"merged\" and p.number = $n")" = 1
'

test_expect_success DEBUG_HOOKS 'worker dies after moving the ref: completed from the record, not merged twice' '
	branch k2 && commit_file k2 k2.txt "k2\n" "k2: one" &&
	tool_call create_issue "{\"repo\":\"$P\",\"title\":\"closed after a crash\"}" --token "$DAVE_TOKEN" && forge_ok &&
	json_int i out.json number &&
	open_pr k2 "Killed after ref" "Fixes #$i" && n=$PR &&
	pr $n && json_value ev out.json .edit_version &&
	before=$($G rev-parse main) &&
	merge $n 1 "" "$ev" && forge_ok &&
	test_must_fail env FORGEMCP_WORKER_FAULT=after-ref "$FORGEMCP" worker --once 2>>"$WLOG" &&
	mc=$($G rev-parse main) &&
	test "$($G rev-parse "$mc^1")" = "$before" &&
	test "$(db_sql "select state, result_commit from merges order by id desc limit 1")" = "running	$mc" &&
	state_is $n "open running" &&
	work &&
	test "$($G rev-parse main)" = "$mc" &&
	state_is $n "merged merged" &&
	jq -e ".merge_commit == \"$mc\"" out.json &&
	tool_call get_issue "{\"repo\":\"$P\",\"number\":$i}" && forge_ok &&
	jq -e ".state == \"closed\" and ([.activity.entries[] | select(.type == \"closed\" and .cause == \"merge\" and .source_number == $n)] | length == 1)" out.json &&
	test "$(db_sql "select count(*) from events e join pull_requests p on p.id = e.pull_request_id where e.kind = \"merged\" and p.number = $n")" = 1
'

test_expect_success 'every merged pull request has its commit on main; no merge is left running' '
	test "$(db_sql "select count(*) from merges where state in (\"queued\", \"running\")")" = 0 &&
	db_sql "select merge_commit from pull_requests where state = \"merged\"" >merged &&
	test -s merged &&
	while read c; do
		$G merge-base --is-ancestor "$c" main || { echo "$c not on main"; return 1; }
	done <merged &&
	test "$(db_sql "select count(*) from pull_requests where state = \"merged\" and merge_commit is null")" = 0
'

test_expect_success 'the long-running worker merges what is queued and stops on SIGTERM' '
	branch lw && commit_file lw lw.txt "lw\n" "lw: one" &&
	open_pr lw "Long-running" && n=$PR || return 1
	"$FORGEMCP" worker --interval 0.2 2>>"$WLOG" &
	wp=$!
	test_register_pid $wp &&
	merge $n 1 && forge_ok &&
	for i in $(seq 50); do
		state_is $n "merged merged" && break
		sleep 0.2
	done &&
	state_is $n "merged merged" &&
	kill -TERM $wp && wait $wp &&
	grep "stopped" "$WLOG" &&
	branch lw2 && commit_file lw2 lw2.txt "lw2\n" "lw2: one" &&
	open_pr lw2 "After the stop" && merge $PR 1 && forge_ok &&
	# the workers that died above count as gone once they missed their polls
	wait_for 30 noted $PR &&
	jq -e ".merge_state == \"queued\" and (.merge_note | test(\"no merge worker is running \\\\(one was last seen [0-9]+ s ago\\\\)\"))" out.json
'

test_expect_success 'worker: bad options are usage errors' '
	test_expect_code () { "$@"; test $? = 2; } &&
	test_expect_code fm worker --interval 0 2>err && grep "interval" err &&
	test_expect_code fm worker extra 2>err && grep "unexpected argument" err
'

test_done
